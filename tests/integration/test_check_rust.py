"""`lintel check` on the Rust fixture, compared with cargo, clippy and rustfmt run by hand.

The fixture (tests/workspaces/rust) compiles with warnings only, so every check runs: clippy lints in two
files, rustc warnings, a failing unit test and a failing integration test, three hunks rustfmt would change.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lintel.engine.checks import run_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect

from tests.helpers import (
    WORKSPACES,
    copy_workspace,
    finding_keys,
    lintel_json,
    missing_tool,
    require_tool,
    run_tool,
    tool_path,
)

FIXTURE = WORKSPACES / "rust"
CLIPPY = ["cargo", "clippy", "--all-targets", "--message-format=json"]
CHECK = ["cargo", "check", "--all-targets", "--message-format=json"]

pytestmark = pytest.mark.tool("cargo")


def require_component(*argv: str) -> None:
    """Skip unless `cargo <component> --version` works (rustup installs proxies even for absent components)."""
    require_tool("cargo", "install Rust with rustup")
    proc = run_tool(["cargo", *argv, "--version"], cwd=FIXTURE, timeout=60)
    if proc.returncode != 0:
        missing_tool(f"cargo {argv[0]} is not installed (rustup component add {argv[0]}): {proc.stderr.strip()}")


def by_hand(argv: list[str], cwd: Path) -> Counter[tuple[Any, ...]]:
    """(file, line, rule) of each distinct compiler message cargo printed, read straight from its JSON."""
    proc = run_tool(argv, cwd=cwd)
    assert proc.returncode in (0, 101), proc.stderr
    distinct: set[tuple[Any, ...]] = set()
    for line in proc.stdout.splitlines():
        record = json.loads(line)
        if record["reason"] != "compiler-message" or record["message"]["level"] not in ("error", "warning"):
            continue
        message = record["message"]
        [span] = [s for s in message["spans"] if s["is_primary"]][:1]
        code = (message["code"] or {}).get("code")
        # lib and lib test (bin and bin test) compile the same files: cargo prints their findings twice.
        distinct.add((span["file_name"], span["line_start"], span["column_start"], code, message["message"]))
    return Counter((file, line, code) for file, line, _, code, _ in distinct)


def run_of(report: dict[str, Any], check: str) -> dict[str, Any]:
    runs: list[dict[str, Any]] = [r for r in report["runs"] if r["check"] == check and r["language"] == "rust"]
    [run] = runs
    return run


def test_lint_and_typecheck_match_clippy_and_cargo_check_by_hand() -> None:
    require_component("clippy")
    clippy = by_hand(CLIPPY, FIXTURE)
    check = by_hand(CHECK, FIXTURE)
    assert len(clippy) >= 8  # several clippy lints and rustc warnings across lib.rs, shapes.rs, main.rs
    assert {rule for _, _, rule in clippy if rule.startswith("clippy::")} >= {
        "clippy::needless_return",
        "clippy::len_zero",
        "clippy::redundant_field_names",
        "clippy::bool_comparison",
    }
    assert {rule for _, _, rule in check} == {"unused_variables", "dead_code"}

    code, report = lintel_json("check", str(FIXTURE), "--only", "lint,typecheck")
    assert code == 0  # warnings only, default fail level is error
    assert run_of(report, "lint")["status"] == "findings"
    assert run_of(report, "lint")["exitCode"] == 0
    assert run_of(report, "typecheck")["status"] == "findings"
    got = finding_keys(report["issues"])
    # clippy repeats rustc's warnings, so both runs report them; the report may list them once or per run.
    assert got in (clippy + check, clippy | check), (got, clippy, check)
    assert report["summary"]["warnings"] == len(report["issues"])
    sources = {(i["rule"], i["source"]) for i in report["issues"]}
    assert ("clippy::len_zero", "clippy") in sources
    assert ("dead_code", "rustc") in sources


def test_only_test_reports_the_failing_unit_and_integration_tests() -> None:
    require_tool("cargo", "install Rust with rustup")
    code, report = lintel_json("check", str(FIXTURE), "--only", "test")
    assert code == 1
    run = run_of(report, "test")
    assert run["status"] == "findings"
    assert run["exitCode"] == 101
    assert run["argv"] == ["cargo", "test", "--no-fail-fast"]
    tests = [i for i in report["issues"] if i["kind"] == "test"]
    assert sorted((i["file"], i["line"]) for i in tests) == [("src/lib.rs", 40), ("tests/integration.rs", 10)]
    assert all(i["severity"] == "error" and i["source"] == "cargo test" for i in tests)
    assert any("add(2, 2) should be 5" in i["message"] for i in tests)


def test_only_format_reports_the_hunks_rustfmt_would_change() -> None:
    require_component("fmt")
    by_hand_proc = run_tool(["cargo", "fmt", "--check", "--", "--color", "never"], cwd=FIXTURE)
    assert by_hand_proc.returncode == 1
    code, report = lintel_json("check", str(FIXTURE), "--only", "format")
    assert code == 0  # formatting is a warning
    assert run_of(report, "format")["status"] == "findings"
    assert sorted((i["file"], i["line"]) for i in report["issues"]) == [
        ("src/main.rs", 5),
        ("src/shapes.rs", 24),
        ("tests/integration.rs", 5),
    ]
    assert by_hand_proc.stdout.count("Diff in ") == len(report["issues"])


def test_compile_error_is_reported_by_every_cargo_check(tmp_path: Path) -> None:
    require_component("clippy")
    crate = tmp_path / "crate"
    shutil.copytree(FIXTURE, crate, ignore=shutil.ignore_patterns("target"))
    lib = crate / "src" / "lib.rs"
    lib.write_text(lib.read_text(encoding="utf-8").replace("let unused = 42;", 'let unused: i32 = "x";'), "utf-8")
    code, report = lintel_json("check", str(crate), "--only", "lint,typecheck,test")
    assert code == 1
    for check in ("lint", "typecheck", "test"):
        assert run_of(report, check)["status"] == "findings"
        assert run_of(report, check)["exitCode"] == 101
    builds = [i for i in report["issues"] if i["kind"] == "build"]
    assert {(i["file"], i["line"], i["rule"], i["severity"]) for i in builds} == {("src/lib.rs", 21, "E0308", "error")}
    assert {i["signature"] for i in builds} == {"build:src/lib.rs:21:mismatched types"}


def test_clean_crate_is_clean_for_every_check(tmp_path: Path) -> None:
    require_component("clippy")
    require_component("fmt")
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "clean"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n', encoding="utf-8"
    )
    (tmp_path / "src" / "lib.rs").write_text(
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n"
        "    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
        encoding="utf-8",
    )
    code, report = lintel_json("check", str(tmp_path), "--only", "lint,typecheck,test,format")
    assert code == 0, report
    assert [r["status"] for r in report["runs"]] == ["clean"] * 4
    assert report["issues"] == []


E0277_CRATE = """use std::fmt::{Debug, Display};

pub struct Point {
    pub x: i32,
}

pub fn show(p: &Point) -> String {
    format!("{}", p)
}

pub fn total(values: &[i32]) -> String {
    values.iter().map(|v| v * 2).sum::<String>()
}

pub fn needs<T: Display + Debug>(_: T) {}

pub fn call() {
    needs(Point { x: 1 });
}
"""


def error_messages(argv: list[str], cwd: Path) -> set[tuple[int, str]]:
    """(line, message) of each error rustc printed, read straight from cargo's JSON."""
    records = [json.loads(line) for line in run_tool(argv, cwd=cwd).stdout.splitlines()]
    return {
        (r["message"]["spans"][0]["line_start"], r["message"]["message"])
        for r in records
        if r["reason"] == "compiler-message" and r["message"]["level"] == "error"
    }


def test_each_rustc_error_is_one_issue_in_whichever_wording_clippy_and_cargo_gave_it(tmp_path: Path) -> None:
    require_component("clippy")
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "wordings"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n', encoding="utf-8"
    )
    (tmp_path / "src" / "lib.rs").write_text(E0277_CRATE, encoding="utf-8")
    clippy, check = error_messages(CLIPPY, tmp_path), error_messages(CHECK, tmp_path)
    assert len(clippy) == len(check) == 4
    # `std::string::String` from clippy's rustc, `String` from cargo check's.
    assert {message for _, message in clippy - check} == {
        "a value of type `std::string::String` cannot be made by summing an iterator over elements of type `i32`",
        "`Point` doesn't implement `std::fmt::Debug`",
    }
    code, report = lintel_json("check", str(tmp_path), "--only", "lint,typecheck,test")
    assert code == 1
    assert [(i["kind"], i["line"], i["column"], i["rule"]) for i in report["issues"]] == [
        ("build", 8, 19, "E0277"),
        ("build", 12, 40, "E0277"),
        ("build", 18, 11, "E0277"),  # `Point` lacks `Debug`
        ("build", 18, 11, "E0277"),  # and `Display`: two errors at one span
    ]


@pytest.mark.parametrize("targets", ["", "\n[lib]\ntest = false\ndoctest = false\n"])
def test_a_crate_without_tests_is_clean(tmp_path: Path, targets: str) -> None:
    """A lib without tests (`running 0 tests` twice), and one that has no target to test (cargo runs nothing)."""
    require_tool("cargo", "install Rust with rustup")
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text(
        f'[package]\nname = "untested"\nversion = "0.1.0"\nedition = "2021"\n{targets}\n[workspace]\n',
        encoding="utf-8",
    )
    (tmp_path / "src" / "lib.rs").write_text("pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n", "utf-8")
    by_hand = run_tool(["cargo", "test", "--no-fail-fast"], cwd=tmp_path)
    assert by_hand.returncode == 0
    assert ("running 0 tests" in by_hand.stdout) == (not targets)
    code, report = lintel_json("check", str(tmp_path), "--only", "test")
    assert (code, report["issues"]) == (0, [])
    assert [(r["status"], r["reason"]) for r in report["runs"]] == [("clean", None)]


# -- a Cargo workspace (tests/workspaces/rust-workspace: a root package with one member, `impl`) ---------------

WORKSPACE = WORKSPACES / "rust-workspace"
PANIC = re.compile(r"^thread '[^']*'(?: \(\d+\))? panicked at (?P<file>[^\n:]+):(?P<line>\d+):\d+:$", re.M)


def panics_by_hand(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, set[tuple[str, int]]]:
    proc = run_tool(argv, cwd=cwd, env=env)
    return proc.returncode, {(m["file"], int(m["line"])) for m in PANIC.finditer(proc.stdout)}


def test_a_workspace_members_findings_and_failing_test_are_reported_as_cargo_workspace_reports_them() -> None:
    require_component("clippy")
    # The shape of the bug: in the root, plain `cargo test` passes — the member's failing test runs only with
    # --workspace.
    assert panics_by_hand(["cargo", "test", "--no-fail-fast"], WORKSPACE) == (0, set())
    code, expected = panics_by_hand(["cargo", "test", "--workspace", "--no-fail-fast"], WORKSPACE)
    assert code == 101
    assert expected == {("impl/src/lib.rs", 17)}
    clippy = by_hand(["cargo", "clippy", "--workspace", "--all-targets", "--message-format=json"], WORKSPACE)
    assert clippy == Counter({("impl/src/lib.rs", 8, "clippy::len_zero"): 1})

    code, report = lintel_json("check", str(WORKSPACE), "--only", "lint,test")
    assert code == 1
    assert run_of(report, "test")["argv"] == ["cargo", "test", "--workspace", "--no-fail-fast"]
    assert run_of(report, "lint")["argv"][:3] == ["cargo", "clippy", "--workspace"]
    tests = {(i["file"], i["line"]) for i in report["issues"] if i["kind"] == "test"}
    assert tests == expected
    assert finding_keys(i for i in report["issues"] if i["kind"] == "lint") == clippy


def test_a_virtual_manifest_is_checked_whole(tmp_path: Path) -> None:
    require_tool("cargo", "install Rust with rustup")
    root = copy_workspace("rust-workspace", tmp_path / "virtual")
    (root / "Cargo.toml").write_text('[workspace]\nmembers = ["impl"]\nresolver = "2"\n', encoding="utf-8")
    shutil.rmtree(root / "src")
    (root / "Cargo.lock").unlink()
    code, expected = panics_by_hand(["cargo", "test", "--workspace", "--no-fail-fast"], root)
    assert (code, expected) == (101, {("impl/src/lib.rs", 17)})
    code, report = lintel_json("check", str(root), "--only", "test")
    assert code == 1
    assert {(i["file"], i["line"]) for i in report["issues"] if i["kind"] == "test"} == expected


def test_a_member_checked_on_its_own_names_its_files_from_the_member() -> None:
    require_tool("cargo", "install Rust with rustup")
    code, report = lintel_json("check", str(WORKSPACE / "impl"), "--only", "test")
    assert code == 1
    assert run_of(report, "test")["argv"] == ["cargo", "test", "--no-fail-fast"]
    # cargo prints `impl/src/lib.rs` (rustc runs in the workspace root); the report is relative to the checked path.
    assert [(i["file"], i["line"]) for i in report["issues"]] == [("src/lib.rs", 17)]


async def test_the_users_rust_backtrace_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    require_tool("cargo", "install Rust with rustup")
    monkeypatch.setenv("PATH", tool_path())
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    [project] = detect(WORKSPACE / "impl")
    result = await run_check(project, "test", workspace=WORKSPACE / "impl", config=LintelConfig())
    assert "stack backtrace:" in result.output  # what the user's shell shows, lintel shows
    [failure] = result.failures
    assert (failure.file, failure.line) == ("src/lib.rs", 17)
    assert "stack backtrace" not in failure.message
    assert failure.message.split()[-4:] == ["left:", "4", "right:", "5"]
