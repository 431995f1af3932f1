"""`lintel check` on the Rust fixture, compared with cargo, clippy and rustfmt run by hand.

The fixture (tests/workspaces/rust) compiles with warnings only, so every check runs: clippy lints in two
files, rustc warnings, a failing unit test and a failing integration test, three hunks rustfmt would change.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import WORKSPACES, finding_keys, lintel_json, require_tool, run_tool

FIXTURE = WORKSPACES / "rust"
CLIPPY = ["cargo", "clippy", "--all-targets", "--message-format=json"]
CHECK = ["cargo", "check", "--all-targets", "--message-format=json"]

pytestmark = pytest.mark.tool("cargo")


def require_component(*argv: str) -> None:
    """Skip unless `cargo <component> --version` works (rustup installs proxies even for absent components)."""
    require_tool("cargo", "install Rust with rustup")
    proc = run_tool(["cargo", *argv, "--version"], cwd=FIXTURE, timeout=60)
    if proc.returncode != 0:
        pytest.skip(f"cargo {argv[0]} is not installed (rustup component add {argv[0]}): {proc.stderr.strip()}")


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
