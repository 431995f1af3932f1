"""`lint` scripts on linters other than eslint, with the real oxlint and biome of tests/workspaces/node-linters
(installed by scripts/setup-dev), compared with the linters run by hand: a bare `oxlint src` (lintel adds
`--format json`), a bare `biome lint src` (`--reporter=json`), a chain of both (their default output, read from
the mixed stream), and a linter lintel cannot read (passed, never clean)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_path, run_lintel, run_tool

FIXTURE = WORKSPACES / "node-linters"
BIN = FIXTURE / "node_modules" / ".bin"

pytestmark = pytest.mark.tool("node")


def installed() -> None:
    require_path(BIN / "oxlint", "run scripts/setup-dev (npm ci in tests/workspaces/node-linters)")
    require_path(BIN / "biome", "run scripts/setup-dev (npm ci in tests/workspaces/node-linters)")


def oxlint_by_hand(*flags: str) -> Counter[tuple[Any, ...]]:
    proc = run_tool([str(BIN / "oxlint"), *flags, "--format", "json", "src"], cwd=FIXTURE)
    return Counter(
        (d["filename"], d["labels"][0]["span"]["line"], d["code"], d["severity"])
        for d in json.loads(proc.stdout)["diagnostics"]
    )


def biome_by_hand() -> Counter[tuple[Any, ...]]:
    proc = run_tool([str(BIN / "biome"), "lint", "--reporter=json", "src"], cwd=FIXTURE)
    return Counter(
        (d["location"]["path"], d["location"]["start"]["line"], d["category"], d["severity"])
        for d in json.loads(proc.stdout)["diagnostics"]
    )


def with_lint_script(tmp_path: Path, script: str) -> Path:
    root = copy_workspace("node-linters", tmp_path / "project")
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    manifest["scripts"] = {"lint": script}
    (root / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return root


def found(report: dict[str, Any], source: str) -> Counter[tuple[Any, ...]]:
    return Counter((i["file"], i["line"], i["rule"], i["severity"]) for i in report["issues"] if i["source"] == source)


def test_a_bare_oxlint_script_with_warnings_only_reports_them() -> None:
    """oxlint exits 0 with warnings: before, the run was `clean`."""
    installed()
    by_hand = oxlint_by_hand()
    assert sum(by_hand.values()) == 3
    assert {severity for *_, severity in by_hand} == {"warning"}
    code, report = lintel_json("check", str(FIXTURE), "--only", "lint")
    [run] = report["runs"]
    assert (run["status"], run["exitCode"], run["argv"][-3:]) == ("findings", 0, ["--", "--format", "json"])
    assert found(report, "oxlint") == by_hand
    assert code == 0  # warnings only; the default fail level is error


def test_oxlint_errors_fail_the_check(tmp_path: Path) -> None:
    installed()
    by_hand = oxlint_by_hand("-D", "no-debugger")
    assert ("src/cart.js", 8, "eslint(no-debugger)", "error") in by_hand
    code, report = lintel_json("check", str(with_lint_script(tmp_path, "oxlint -D no-debugger src")), "--only", "lint")
    assert code == 1
    assert found(report, "oxlint") == by_hand


def test_a_bare_biome_script(tmp_path: Path) -> None:
    installed()
    by_hand = biome_by_hand()
    assert sum(by_hand.values()) == 5
    code, report = lintel_json("check", str(with_lint_script(tmp_path, "biome lint src")), "--only", "lint")
    [run] = report["runs"]
    assert (run["status"], run["exitCode"], run["argv"][-1]) == ("findings", 1, "--reporter=json")
    assert code == 1
    assert found(report, "biome") == by_hand


def test_a_chained_script_is_read_from_both_linters_default_output(tmp_path: Path) -> None:
    """`oxlint src; biome lint src` gets no flags (it is more than one command): their human output is read."""
    installed()
    root = with_lint_script(tmp_path, "oxlint src && biome lint src")
    code, report = lintel_json("check", str(root), "--only", "lint")
    [run] = report["runs"]
    assert (run["status"], run["exitCode"]) == ("findings", 1)
    assert found(report, "oxlint") == oxlint_by_hand()
    assert found(report, "biome") == biome_by_hand()
    assert code == 1


def test_a_linter_lintel_cannot_read_passes_without_being_called_clean(tmp_path: Path) -> None:
    installed()
    root = with_lint_script(tmp_path, "node report.js")
    # A linter of its own with its own report format: warnings, exit 0.
    (root / "report.js").write_text('console.log("cart.js  3 | warn  no-console  Unexpected console statement");\n')
    code, report = lintel_json("check", str(root), "--only", "lint")
    [run] = report["runs"]
    assert run["status"] == "passed"
    assert code == 0
    assert "passed (output not parsed): node lint" in run_lintel("check", str(root), "--only", "lint").stdout


def xo_by_hand() -> Counter[tuple[Any, ...]]:
    proc = run_tool([str(BIN / "xo"), "--reporter=json", "src"], cwd=FIXTURE)
    return Counter(
        (Path(result["filePath"]).relative_to(FIXTURE).as_posix(), message["line"], message["ruleId"], "error")
        for result in json.loads(proc.stdout)
        for message in result["messages"]
    )


@pytest.mark.parametrize("script", ["xo src", "oxlint src && xo src"])
def test_xo_bare_or_chained(tmp_path: Path, script: str) -> None:
    installed()
    require_path(BIN / "xo", "run scripts/setup-dev (npm install in tests/workspaces/node-linters)")
    by_hand = xo_by_hand()
    assert sum(by_hand.values()) == 24
    code, report = lintel_json("check", str(with_lint_script(tmp_path, script)), "--only", "lint")
    assert code == 1
    [run] = report["runs"]
    assert run["status"] == "findings"
    # Bare, lintel adds --reporter=json (eslint's JSON: source eslint); chained, xo's own format is read.
    xo = found(report, "xo") + found(report, "eslint")
    assert xo == by_hand
    if "&&" in script:
        assert found(report, "oxlint") == oxlint_by_hand()
