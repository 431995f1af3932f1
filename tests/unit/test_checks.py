from __future__ import annotations

import dataclasses
import json
import os
import stat
from pathlib import Path

import pytest
from lintel.core.issues import make_issue
from lintel.core.runenv import DEFAULTS
from lintel.engine.checks import (
    PlannedCheck,
    dedupe_issues,
    failure_tail,
    plan_check,
    run_planned,
    sort_issues,
    timeout_for,
)
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.scripts import script_command
from lintel.languages import LANGUAGES, ToolSpec
from lintel.languages.binaries import command_label, hoisted_folders, not_found_message, resolve_binary
from lintel.languages.parsers import get_parser

from tests.helpers import load_capture, make_project


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_dedupe_keeps_first_of_identical_findings() -> None:
    a = make_issue(kind="lint", message="unused variable", source="rustc", file="a.rs", line=3, rule="unused")
    b = make_issue(kind="lint", message="unused variable", source="rustc", file="a.rs", line=3, rule="unused")
    c = make_issue(kind="lint", message="unused variable", source="rustc", file="a.rs", line=4, rule="unused")
    assert dedupe_issues([a, b, c]) == [a, c]


def test_one_compile_error_is_one_issue_whichever_tools_saw_it() -> None:
    seen = [
        make_issue(
            kind="build", message="undefined: Triple", source=source, file="a_test.go", line=12, column=5, rule=rule
        )
        for source, rule in (("go test", None), ("go vet", None), ("golangci-lint", "typecheck"))
    ]
    assert dedupe_issues(seen) == seen[:1]
    lint = [
        make_issue(kind="lint", message="x", source="ruff", file="a.py", line=1, column=1, rule=rule)
        for rule in ("F401", "F811")
    ]
    assert dedupe_issues(lint) == lint  # two rules on one spot are two findings


def test_rustcs_two_wordings_of_one_error_are_one_issue() -> None:
    """clippy's rustc names types by their full path (`std::string::String`), cargo check's and cargo test's by
    the shortest (`String`): captured from one crate (tests/captures/README.md, Rust). Four E0277 errors, two
    of them at one span (`Display` and `Debug` missing), stay four; an unused `Result` warning stays one."""
    parsed = [
        issue
        for tool in ("clippy", "cargo-check", "cargo-test")
        for issue in get_parser(tool)(*load_capture(tool, "e0277-wordings")[:2]).issues
    ]
    assert "a value of type `std::string::String` cannot be made" in " ".join(i.message for i in parsed)
    assert len({i.signature for i in parsed}) == 6  # two of the four errors in two wordings
    kept = dedupe_issues(sort_issues(parsed))
    assert [(i.line, i.column, i.rule, i.message) for i in kept] == [
        (8, 19, "E0277", "`Point` doesn't implement `std::fmt::Display`"),
        (12, 40, "E0277", "a value of type `String` cannot be made by summing an iterator over elements of type `i32`"),
        (18, 11, "E0277", "`Point` doesn't implement `Debug`"),
        (18, 11, "E0277", "`Point` doesn't implement `std::fmt::Display`"),
    ]
    warnings = [
        issue
        for tool in ("clippy", "cargo-check")
        for issue in get_parser(tool)(*load_capture(tool, "lint-wordings")[:2]).issues
    ]
    assert {i.message for i in warnings} == {
        "unused `Result` that must be used",
        "unused `std::result::Result` that must be used",
    }
    assert [(i.line, i.rule) for i in dedupe_issues(sort_issues(warnings))] == [(6, "unused_must_use")]


def test_resolution_order_setting_project_path(tmp_path: Path) -> None:
    on_path = executable(tmp_path / "bin" / "tool")
    local = executable(tmp_path / "proj" / "node_modules" / ".bin" / "tool")
    pinned = executable(tmp_path / "pinned" / "tool")
    env = {"PATH": str(tmp_path / "bin")}
    root = tmp_path / "proj"
    assert resolve_binary("tool", project_root=root, env=env, setting=str(pinned)).path == str(pinned)
    assert resolve_binary("tool", project_root=root, env=env).path == str(local)
    local.unlink()
    found = resolve_binary("tool", project_root=root, env=env)
    assert (found.path, found.via) == (str(on_path), "path")
    assert not resolve_binary("tool", project_root=root, env=env, local_only=True).found


def test_bad_setting_is_missing_not_a_fallback(tmp_path: Path) -> None:
    executable(tmp_path / "bin" / "tool")
    found = resolve_binary("tool", project_root=tmp_path, env={"PATH": str(tmp_path / "bin")}, setting="/no/such/tool")
    assert not found.found


def test_npx_tools_must_be_installed_in_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "x"}))
    executable(tmp_path / "global" / "eslint")  # a global eslint is no proof `npx --no-install` finds one
    monkeypatch.setenv("PATH", f"{tmp_path / 'global'}{os.pathsep}{os.environ['PATH']}")
    [project] = detect(tmp_path)
    planned = plan_check(project, "lint", LintelConfig(), tmp_path)
    assert planned.spec.argv[:2] == ("npx", "--no-install")
    missing = planned.missing
    assert missing is not None
    assert missing.name == "eslint"
    eslint = executable(tmp_path / "node_modules" / ".bin" / "eslint")
    planned = plan_check(project, "lint", LintelConfig(), tmp_path)
    assert planned.missing is None
    # Found, it runs itself: the same file npx would have run.
    assert planned.spec.argv == (str(eslint), "--format", "json-with-metadata", ".")
    assert [(b.name, b.path, b.via) for b in planned.binaries] == [("eslint", str(eslint), "project")]
    assert planned.spec.tool == "eslint"


def _member(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "w", "workspaces": ["packages/*"]}))
    member = root / "packages" / "app"
    member.mkdir(parents=True)
    (member / "package.json").write_text(json.dumps({"name": "app"}))
    return member


def test_a_tool_hoisted_above_the_project_is_run_directly(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    member = _member(repo)
    (repo / ".git").mkdir()
    hoisted = executable(repo / "node_modules" / ".bin" / "tsc")
    [project] = detect(member)
    # The editor opened the member alone: the walk still goes up to the repository's top.
    planned = plan_check(project, "typecheck", LintelConfig(), member)
    assert planned.spec.argv == (str(hoisted), "--noEmit", "--pretty", "false")
    nearer = executable(member / "node_modules" / ".bin" / "tsc")
    assert plan_check(project, "typecheck", LintelConfig(), member).spec.argv[0] == str(nearer)


def test_the_walk_up_stops_at_the_repository_or_the_workspace(tmp_path: Path) -> None:
    outside = executable(tmp_path / "node_modules" / ".bin" / "eslint")  # above the repository: not the project's
    repo = tmp_path / "repo"
    member = _member(repo)
    (repo / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    [project] = detect(member)
    planned = plan_check(project, "lint", LintelConfig(), repo)
    assert planned.spec.argv[:3] == ("npx", "--no-install", "eslint")
    assert planned.missing is not None
    assert str(outside) not in planned.missing.tried
    assert hoisted_folders(member, repo) == [repo / "packages", repo]
    (repo / ".git").unlink()
    # No repository: up to the workspace root; a project outside the workspace looks only in itself.
    assert hoisted_folders(member, repo) == [repo / "packages", repo]
    assert hoisted_folders(member, member) == []
    assert hoisted_folders(member, tmp_path / "elsewhere") == []


def test_a_binaries_setting_for_the_tool_is_what_runs(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "x"}))
    pinned = executable(tmp_path / "opt" / "prettier")
    [project] = detect(tmp_path)
    config = LintelConfig.model_validate({"languages": {"node": {"binaries": {"prettier": str(pinned)}}}})
    planned = plan_check(project, "format", config, tmp_path)
    assert planned.spec.argv == (str(pinned), "--check", ".")
    assert planned.binaries[0].via == "setting"


def test_a_users_npx_command_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "x"}))
    executable(tmp_path / "node_modules" / ".bin" / "eslint")
    [project] = detect(tmp_path)
    config = LintelConfig.model_validate({"languages": {"node": {"lint": ["npx", "--no-install", "eslint", "src"]}}})
    assert plan_check(project, "lint", config, tmp_path).spec.argv == ("npx", "--no-install", "eslint", "src")


# -- the environment a tool runs in --------------------------------------------------------------------------


def _env_echo(tmp_path: Path) -> PlannedCheck:
    project = make_project("node", root=tmp_path, markers=("package.json",))
    variables = ("CI", "FORCE_COLOR", "NO_COLOR", "CLICOLOR", "CARGO_TERM_COLOR", "RUST_BACKTRACE")
    spec = ToolSpec(
        check="test",
        tool="sh",
        argv=("sh", "-c", " ".join(f'echo "{name}=${{{name}-unset}}";' for name in variables)),
        parser="custom",
        env_defaults={"CI": "true"},
    )
    return PlannedCheck(project, spec, (resolve_binary("sh", project_root=tmp_path),))


async def test_the_users_environment_is_kept_with_no_colour_variable_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lintel's NO_COLOR=1 / FORCE_COLOR=0 / CLICOLOR=0 reached the code under test and failed a CLI
    library's colour tests; a run sees the user's environment, and a default only where it has none."""
    monkeypatch.setenv("CI", "false")
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("RUST_BACKTRACE", "full")
    for name in ("NO_COLOR", "CLICOLOR", "CARGO_TERM_COLOR"):
        monkeypatch.delenv(name, raising=False)
    result = await run_planned(_env_echo(tmp_path), workspace=tmp_path, timeout=30)
    assert result.stdout.split() == [
        "CI=false",
        "FORCE_COLOR=1",
        "NO_COLOR=unset",
        "CLICOLOR=unset",
        "CARGO_TERM_COLOR=unset",
        "RUST_BACKTRACE=full",
    ]

    monkeypatch.delenv("CI")  # a default fills in only what the user's environment lacks
    monkeypatch.delenv("FORCE_COLOR")
    result = await run_planned(_env_echo(tmp_path), workspace=tmp_path, timeout=30)
    assert result.stdout.split()[:2] == ["CI=true", "FORCE_COLOR=unset"]


def test_what_lintel_adds_to_the_environment_is_the_table(tmp_path: Path) -> None:
    """Every built-in check's defaults come from lintel.core.runenv.DEFAULTS (docs/architecture.md, Processes), and no
    check sets a variable over the user's."""
    (tmp_path / "package.json").write_text(json.dumps({"name": "x", "scripts": {"lint": "eslint .", "test": "jest"}}))
    for spec in LANGUAGES:
        project = make_project(spec.name, root=tmp_path, markers=spec.markers[:1])
        if spec.name == "node":
            [project] = [p for p in detect(tmp_path) if p.language == "node"]
        for check in spec.checks:
            tool = spec.tool_for(project, check)
            assert dict(tool.env_defaults) == dict(DEFAULTS.get((spec.name, check), {})), (spec.name, check)
            assert not tool.env, (spec.name, check)
    [node] = [p for p in detect(tmp_path) if p.language == "node"]
    assert dict(script_command(node, "lint").env_defaults) == dict(DEFAULTS[("node", "script")])
    assert set(DEFAULTS) == {("node", "test"), ("node", "script")}


def test_a_languages_install_folders_are_searched_after_path(tmp_path: Path) -> None:
    gobin = executable(tmp_path / "gobin" / "tool")
    env = {"PATH": str(tmp_path / "bin")}
    found = resolve_binary("tool", project_root=tmp_path, env=env, install_dirs=[tmp_path / "none", gobin.parent])
    assert (found.path, found.via) == (str(gobin), "install-dir")
    assert str(tmp_path / "none" / "tool") in found.tried
    on_path = executable(tmp_path / "bin" / "tool")
    found = resolve_binary("tool", project_root=tmp_path, env=env, install_dirs=[gobin.parent])
    assert (found.path, found.via) == (str(on_path), "path")  # PATH first: what the user's shell would run


def test_a_rustup_proxy_with_no_component_behind_it_is_not_a_binary(tmp_path: Path) -> None:
    """rustup links a proxy for every component into ~/.cargo/bin, installed or not; running rust-analyzer's
    without the component fails with "Unknown binary" and a backtrace."""
    rustup = executable(tmp_path / "cargo" / "bin" / "rustup")
    (tmp_path / "cargo" / "bin" / "rust-analyzer").symlink_to(rustup)
    toolchain_bin = tmp_path / "rustup" / "toolchains" / "stable-x86_64-unknown-linux-gnu" / "bin"
    executable(toolchain_bin / "cargo")
    env = {"PATH": str(rustup.parent), "RUSTUP_HOME": str(tmp_path / "rustup")}
    found = resolve_binary("rust-analyzer", project_root=tmp_path, env=env)
    assert (found.found, found.proxy_only) == (False, True)
    assert not_found_message("navigation", "rust-analyzer", "rustup component add rust-analyzer", proxy_only=True) == (
        "navigation: rust-analyzer is not installed (rustup component add rust-analyzer)"
    )
    executable(toolchain_bin / "rust-analyzer")  # `rustup component add rust-analyzer`
    found = resolve_binary("rust-analyzer", project_root=tmp_path, env=env)
    assert (found.path, found.via) == (str(rustup.parent / "rust-analyzer"), "path")
    assert resolve_binary("rustup", project_root=tmp_path, env=env).path == str(rustup)


def test_a_long_failure_reason_keeps_whole_lines_from_the_end() -> None:
    output = "\n".join(f"line {n}: something went wrong in module number {n}" for n in range(100))
    reason = failure_tail(output)
    assert reason.startswith("… line ")  # a whole line, not the tail of one
    assert reason.endswith("line 99: something went wrong in module number 99")
    assert len(reason) <= 602
    one_line = " ".join(f"word{n}" for n in range(400))
    assert failure_tail(one_line).startswith("… word")


@pytest.mark.parametrize(
    ("argv", "label"),
    [
        (["pytest", "-x"], "pytest"),
        (["/usr/bin/ruff", "check", "."], "ruff"),
        (["npx", "--no-install", "vitest", "run"], "npx --no-install vitest"),
        (["pnpm", "exec", "vitest"], "pnpm exec vitest"),
        (["uv", "run", "pytest", "-q"], "uv run pytest"),
        (["python", "-m", "pytest"], "python -m pytest"),
    ],
)
def test_a_users_command_is_labelled_by_what_it_runs(argv: list[str], label: str) -> None:
    assert command_label(argv) == label


def test_a_users_test_command_is_not_labelled_as_the_default_script(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"scripts": {"test": "vitest"}}')
    (tmp_path / "pnpm-lock.yaml").write_text("")
    [project] = detect(tmp_path)
    config = LintelConfig.model_validate({"languages": {"node": {"test": ["npx", "vitest", "run"]}}})
    planned = plan_check(project, "test", config, tmp_path)
    assert planned.spec.tool == "npx vitest"


@pytest.mark.parametrize("stream", [">&1", ">&2"])
async def test_exit_zero_with_output_no_parser_reads_is_passed_not_clean(tmp_path: Path, stream: str) -> None:
    """An unknown linter behind a `lint` script: its warnings on stdout or stderr, exit 0 (CONTRACT §8)."""
    project = make_project("node", root=tmp_path, markers=("package.json",))
    spec = ToolSpec(
        check="lint",
        tool="sh",
        argv=("sh", "-c", f"echo 'a.js 3 warn no-console Unexpected console statement' {stream}"),
        parser="node-lint-auto",
    )
    planned = PlannedCheck(project, spec, (resolve_binary("sh", project_root=tmp_path),))
    result = await run_planned(planned, workspace=tmp_path, timeout=30)
    assert (result.status, result.ok, result.issues) == ("passed", True, [])
    quiet = PlannedCheck(
        project, dataclasses.replace(spec, argv=("true",)), (resolve_binary("true", project_root=tmp_path),)
    )
    assert (await run_planned(quiet, workspace=tmp_path, timeout=30)).status == "clean"  # silence is clean


def test_a_linter_that_builds_first_gets_the_typecheck_time_unless_lint_is_set() -> None:
    """clippy's first run on a new machine is a build, longer than the lint timeout; a user's own `timeouts.lint`
    still decides."""
    default = LintelConfig()
    assert timeout_for("lint", default, None, builds=True) == 300
    assert timeout_for("lint", default, None) == 30
    assert timeout_for("lint", default, 12, builds=True) == 12
    assert timeout_for("lint", LintelConfig.model_validate({"timeouts": {"lint": 45}}), None, builds=True) == 45
    project = make_project("rust", Path("/nowhere"), ("Cargo.toml",))
    assert project.spec.tool_for(project, "lint").builds


def test_a_build_failure_that_is_a_type_checkers_finding_is_that_finding() -> None:
    """go test fails its build on vet's findings and prints them as compile errors (without the `# [pkg]` header
    when the package's tests are an external package: tree-sitter-json's Go binding)."""
    where = {"file": "bindings/go/v.go", "line": 6, "column": 22, "severity": "error"}
    message = 'fmt.Sprintf format %d has arg "x" of wrong type string'
    from_test = make_issue(kind="build", message=message, source="go test", **where)  # type: ignore[arg-type]
    from_vet = make_issue(kind="typecheck", message=message, source="go vet", **where)  # type: ignore[arg-type]
    compile_error = make_issue(kind="build", message="undefined: x", source="go test", **where)  # type: ignore[arg-type]
    assert dedupe_issues([from_test, from_vet, compile_error]) == [from_vet, compile_error]
