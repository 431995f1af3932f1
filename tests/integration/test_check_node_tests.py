"""`test` scripts that are more than one runner call, with the real vitest and jest of
tests/workspaces/node-tests (installed by scripts/setup-dev): lintel's failures equal the runners' own JSON
reports, run by hand, whether the script chains steps (the default reporter is read) or is the bare runner
(lintel adds the JSON reporter)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_path, require_tool, run_tool

FIXTURE = WORKSPACES / "node-tests"
BIN = FIXTURE / "node_modules" / ".bin"
QUIET = {"CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0"}

pytestmark = pytest.mark.tool("node")


def installed() -> None:
    for runner in ("vitest", "jest"):
        require_path(BIN / runner, "run scripts/setup-dev (npm ci in tests/workspaces/node-tests)")


def failing_by_hand(argv: list[str]) -> set[tuple[str, str, int]]:
    """(name, file, line) of each failed test in the runner's own JSON report (jest and vitest share its shape)."""
    proc = run_tool(argv, cwd=FIXTURE, env=QUIET)
    report = json.loads(proc.stdout)
    failed: set[tuple[str, str, int]] = set()
    for suite in report["testResults"]:
        file = Path(suite["name"]).relative_to(FIXTURE).as_posix()
        for test in suite["assertionResults"]:
            if test["status"] == "failed":
                name = " > ".join([*test["ancestorTitles"], test["title"]])
                line = int(test["location"]["line"]) if test.get("location") else 0
                failed.add((name, file, line))
    return failed


def with_test_script(tmp_path: Path, script: str) -> Path:
    root = copy_workspace("node-tests", tmp_path / "project")
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    manifest["scripts"]["test"] = script
    (root / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return root


def failures(report: dict[str, Any]) -> set[tuple[str, str, int]]:
    return {(i["message"].split(" failed: ")[0], i["file"], i["line"]) for i in report["issues"] if i["kind"] == "test"}


def vitest_truth() -> set[tuple[str, str, int]]:
    # vitest's JSON names the line of the test's `it(…)`; lintel (both ways) names the failing expect's line.
    by_hand = failing_by_hand([str(BIN / "vitest"), "run", "--reporter=json", "--includeTaskLocation"])
    assert {(name, file) for name, file, _ in by_hand} == {
        ("add > adds to five", "test/math.test.js"),
        ("average > of nothing is zero", "test/math.test.js"),
    }
    return {("add > adds to five", "test/math.test.js", 10), ("average > of nothing is zero", "test/math.test.js", 16)}


def test_a_script_chaining_lint_and_build_before_vitest_reports_vitests_failures() -> None:
    """`npm run lint && npm run build && vitest run`: before, `not_checked`, exit 3, no failure."""
    installed()
    expected = vitest_truth()
    code, report = lintel_json("check", str(FIXTURE), "--only", "test")
    [run] = report["runs"]
    assert (run["status"], run["exitCode"]) == ("findings", 1)
    assert run["argv"][-1] == "test"  # the script as it is: no flags added to a chain
    assert failures(report) == expected
    assert code == 1


def test_a_pnpm_project_whose_test_chains_lint_build_and_vitest(tmp_path: Path) -> None:
    """The shape of the report: `pnpm lint && pnpm build && pnpm vitest run` under pnpm."""
    installed()
    require_tool("pnpm", "run scripts/setup-dev (installs pnpm 9 into the tools cache)")
    expected = vitest_truth()
    root = with_test_script(tmp_path, "pnpm lint && pnpm build && pnpm vitest run")
    (root / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n", encoding="utf-8")  # lintel picks pnpm
    code, report = lintel_json("check", str(root), "--only", "test")
    [run] = report["runs"]
    assert run["argv"] == ["pnpm", "run", "test"]
    assert (run["status"], code) == ("findings", 1)
    assert failures(report) == expected


def test_the_bare_vitest_script_gets_the_json_reporter_and_the_same_failures(tmp_path: Path) -> None:
    installed()
    expected = vitest_truth()
    code, report = lintel_json("check", str(with_test_script(tmp_path, "vitest run")), "--only", "test")
    [run] = report["runs"]
    assert "--reporter=json" in run["argv"]
    assert failures(report) == expected
    assert code == 1


@pytest.mark.parametrize("script", ["npm run lint && jest", "jest"])
def test_jest_chained_or_bare(tmp_path: Path, script: str) -> None:
    installed()
    by_hand = failing_by_hand([str(BIN / "jest"), "--json", "--testLocationInResults"])
    assert {(name, file) for name, file, _ in by_hand} == {
        ("multiply > two by three", "jest/calc.test.cjs"),
        ("a thrown error", "jest/calc.test.cjs"),
    }
    code, report = lintel_json("check", str(with_test_script(tmp_path, script)), "--only", "test")
    assert code == 1
    [run] = report["runs"]
    assert run["status"] == "findings"
    # The failing expect or throw: jest/calc.test.cjs lines 11 and 16.
    assert failures(report) == {
        ("multiply > two by three", "jest/calc.test.cjs", 11),
        ("a thrown error", "jest/calc.test.cjs", 16),
    }


def test_a_pnpm_script_pattern_reports_the_failures_it_shows(tmp_path: Path) -> None:
    """`pnpm run "/^test:.*/"` runs vitest and jest at once, each output line prefixed `. test:jest: `, and stops
    both at the first failure (pnpm's default bail): whichever failures got printed come back, never not_checked.
    With `--silent` (lintel's old argv) pnpm printed nothing of them at all."""
    installed()
    pnpm = require_tool("pnpm", "run scripts/setup-dev (installs pnpm 9 into the tools cache)")
    root = copy_workspace("node-tests", tmp_path / "project")
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    manifest["scripts"] = {"test": 'pnpm run "/^test:.*/"', "test:unit": "vitest run", "test:jest": "jest"}
    (root / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    (root / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n", encoding="utf-8")  # lintel picks pnpm
    by_hand = run_tool([pnpm, "run", "test"], cwd=root, env=QUIET)
    assert by_hand.returncode == 1
    assert ". test:jest: " in by_hand.stdout or ". test:unit: " in by_hand.stdout

    code, report = lintel_json("check", str(root), "--only", "test")
    [run] = report["runs"]
    assert run["argv"] == ["pnpm", "run", "test"]
    assert (run["status"], code) == ("findings", 1)
    every = {
        ("add > adds to five", "test/math.test.js", 10),
        ("average > of nothing is zero", "test/math.test.js", 16),
        ("multiply > two by three", "jest/calc.test.cjs", 11),
        ("a thrown error", "jest/calc.test.cjs", 16),
    }
    shown = failures(report)
    assert shown
    assert shown <= every, shown


@pytest.mark.parametrize("script", ["mocha mocha/", "npm run lint && mocha mocha/"])
def test_mocha_chained_or_bare(tmp_path: Path, script: str) -> None:
    installed()
    require_path(BIN / "mocha", "run scripts/setup-dev (npm ci in tests/workspaces/node-tests)")
    by_hand = json.loads(run_tool([str(BIN / "mocha"), "mocha/", "--reporter", "json"], cwd=FIXTURE, env=QUIET).stdout)
    assert [(f["fullTitle"], Path(f["file"]).relative_to(FIXTURE).as_posix()) for f in by_hand["failures"]] == [
        ("restock never goes below zero", "mocha/stock.test.cjs")
    ]
    code, report = lintel_json("check", str(with_test_script(tmp_path, script)), "--only", "test")
    assert code == 1
    [run] = report["runs"]
    assert run["status"] == "findings"
    assert failures(report) == {("restock > never goes below zero", "mocha/stock.test.cjs", 13)}


def test_a_chained_mocha_script_that_passes_with_pending_tests_is_clean(tmp_path: Path) -> None:
    """mocha's spec reporter (lintel cannot add `--reporter json` to a chained script) on a passing run: its tally
    (`2 passing`, `2 pending`) is the verdict, clean — not `passed (output not parsed)`."""
    require_path(BIN / "mocha", "run scripts/setup-dev (npm ci in tests/workspaces/node-tests)")
    root = with_test_script(tmp_path, "npm run lint && mocha pending/")
    (root / "pending").mkdir()
    (root / "pending" / "stock.test.cjs").write_text(
        'const assert = require("node:assert");\n\ndescribe("stock", function () {\n'
        '  it("counts", function () {\n    assert.strictEqual(1 + 1, 2);\n  });\n'
        '  it("restocks");\n  it.skip("sells out", function () {});\n'
        '  it("is fine", function () {\n    assert.ok(true);\n  });\n});\n',
        encoding="utf-8",
    )
    by_hand = run_tool(["npm", "test"], cwd=root)
    assert by_hand.returncode == 0
    assert "  2 passing" in by_hand.stdout
    assert "  2 pending" in by_hand.stdout
    code, report = lintel_json("check", str(root), "--only", "test")
    assert (code, report["issues"]) == (0, [])
    assert [(r["status"], r["reason"]) for r in report["runs"]] == [("clean", None)]
