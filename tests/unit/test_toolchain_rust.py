"""The Rust toolchain table: argv, parsers, exit-code meaning and install hints of each check."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintel.engine.detect import detect
from lintel.languages import CHECKS, Project
from lintel.languages.binaries import not_found_message
from lintel.languages.parsers import is_known_parser
from lintel.languages.rust import tools as rust_toolchain

from tests.helpers import WORKSPACES, make_project, tool_for

PROJECT = make_project("rust", root=Path("/ws"), markers=("Cargo.toml",))


def test_fixture_is_detected_as_rust() -> None:
    [project] = detect(WORKSPACES / "rust")
    assert project.language == "rust"
    assert tool_for(project, "lint").tool == "clippy"


@pytest.mark.parametrize(
    ("check", "argv", "tool", "parser", "kind"),
    [
        ("lint", ("cargo", "clippy", "--all-targets", "--message-format=json"), "clippy", "clippy", "lint"),
        (
            "typecheck",
            ("cargo", "check", "--all-targets", "--message-format=json"),
            "cargo check",
            "cargo-check",
            "typecheck",
        ),
        ("test", ("cargo", "test", "--no-fail-fast"), "cargo test", "cargo-test", "test"),
        ("format", ("cargo", "fmt", "--check", "--", "--color", "never"), "rustfmt", "rustfmt", "format"),
    ],
)
def test_commands(check: str, argv: tuple[str, ...], tool: str, parser: str, kind: str) -> None:
    spec = rust_toolchain.tool_for(PROJECT, check)  # type: ignore[arg-type]
    assert spec.check == check
    assert spec.argv == argv
    assert spec.binary == "cargo"
    assert spec.tool == tool
    assert spec.parser == parser
    assert is_known_parser(spec.parser)


@pytest.mark.parametrize("check", ["lint", "typecheck", "test"])
def test_cargo_exit_codes(check: str) -> None:
    # Measured with cargo 1.95: clippy and check exit 0 with warnings; every cargo failure is 101
    # (compile error, failed test, broken manifest) and the parser decides whether it understood it.
    spec = tool_for(PROJECT, check)  # type: ignore[arg-type]
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset({101})


def test_rustfmt_exit_codes() -> None:
    spec = tool_for(PROJECT, "format")
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset({1})  # diffs; also a file it cannot parse (the parser tells)


def test_required_components_and_install_hints() -> None:
    lint, fmt, test = (tool_for(PROJECT, c) for c in ("lint", "format", "test"))
    assert lint.requires == ("cargo-clippy",)
    assert lint.install_hint == "rustup component add clippy"
    assert fmt.requires == ("cargo-fmt", "rustfmt")
    assert fmt.install_hint == "rustup component add rustfmt"
    assert "rustup" in test.install_hint
    assert not_found_message("lint", "cargo-clippy", lint.install_hint) == (
        "lint: cargo-clippy: not found on PATH — install it with: rustup component add clippy"
    )


def test_the_users_rust_backtrace_is_kept() -> None:
    # The user's RUST_BACKTRACE is theirs: a test that fails in their shell must fail the same way in lintel.
    for check in CHECKS:
        assert "RUST_BACKTRACE" not in tool_for(PROJECT, check).env
        assert "RUST_BACKTRACE" not in tool_for(PROJECT, check).env_defaults


def test_unknown_check_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown check"):
        rust_toolchain.tool_for(PROJECT, "validators")  # type: ignore[arg-type]


# -- Cargo workspaces ---------------------------------------------------------------------------------------


def cargo_project(root: Path, manifest: str) -> Project:
    root.mkdir(parents=True, exist_ok=True)
    (root / "Cargo.toml").write_text(manifest, encoding="utf-8")
    return make_project("rust", root=root, markers=("Cargo.toml",))


PACKAGE = '[package]\nname = "app"\nversion = "0.1.0"\n'


@pytest.mark.parametrize(
    ("manifest", "whole"),
    [
        (PACKAGE, False),
        (PACKAGE + "[workspace]\n", False),  # an empty table only stops cargo looking further up
        (PACKAGE + '[workspace]\nmembers = ["impl"]\n', True),
        ('[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n', True),  # virtual manifest
        ("[workspace]\n", True),  # virtual, members left to cargo's defaults
    ],
)
def test_a_workspace_is_checked_whole(tmp_path: Path, manifest: str, whole: bool) -> None:
    project = cargo_project(tmp_path, manifest)
    flag = ("--workspace",) if whole else ()
    assert tool_for(project, "lint").argv == ("cargo", "clippy", *flag, "--all-targets", "--message-format=json")
    assert tool_for(project, "typecheck").argv == ("cargo", "check", *flag, "--all-targets", "--message-format=json")
    assert tool_for(project, "test").argv == ("cargo", "test", *flag, "--no-fail-fast")
    fmt_all = ("--all",) if whole else ()
    assert tool_for(project, "format").argv == ("cargo", "fmt", *fmt_all, "--check", "--", "--color", "never")
    assert all(tool_for(project, c).paths_from is None for c in CHECKS)  # the project is its own root


def test_a_member_checked_alone_reads_paths_from_the_workspace_root(tmp_path: Path) -> None:
    cargo_project(tmp_path, PACKAGE + '[workspace]\nmembers = ["impl"]\n')
    member = cargo_project(tmp_path / "impl", '[package]\nname = "impl"\nversion = "0.1.0"\n')
    for check in CHECKS:
        spec = tool_for(member, check)
        assert "--workspace" not in spec.argv  # the member alone
        assert spec.paths_from == tmp_path  # where cargo runs rustc: panics name `impl/src/lib.rs`


def test_a_crate_outside_any_workspace_is_its_own_root(tmp_path: Path) -> None:
    project = cargo_project(tmp_path / "crate", PACKAGE)
    assert rust_toolchain.cargo_workspace_root(project) == project.root


def test_cargo_install_folder() -> None:
    assert rust_toolchain.install_dirs({}) == (Path.home() / ".cargo" / "bin",)
    assert rust_toolchain.install_dirs({"CARGO_HOME": "/opt/cargo"}) == (Path("/opt/cargo/bin"),)


@pytest.mark.parametrize(("fixture", "members"), [("fix-rust", ()), ("rust-workspace", ("--workspace",))])
def test_clippys_fix_mode_fixes_what_the_check_checks(fixture: str, members: tuple[str, ...]) -> None:
    spec = rust_toolchain.tool_for(make_project("rust", WORKSPACES / fixture), "lint")
    assert spec.fix_mode is not None
    flags = ("--fix", "--allow-dirty", "--allow-staged", "--allow-no-vcs")
    assert spec.fix_mode.argv == ("cargo", "clippy", *flags, *members, "--all-targets", "--message-format=json")
    assert spec.argv == ("cargo", "clippy", *members, "--all-targets", "--message-format=json")
    assert (spec.fix_mode.unsafe_args, spec.fix_mode.stdin_argv) == ((), ())
