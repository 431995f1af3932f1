"""`lintel check` on the node fixtures, compared with eslint, tsc and node --test run by hand.

tests/workspaces/node is an npm project without lint/typecheck scripts (so lintel's defaults run, its own
node_modules/.bin tools called directly):
eslint findings of five rules in two files, three tsc errors in src/api.ts, one failing node --test test, one
file prettier would reformat. tests/workspaces/polyglot's node half runs its yarn 1 scripts.
scripts/setup-dev installs both fixtures' node_modules and yarn.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lintel.core.issues import make_fingerprint
from lintel.engine.checks import run_file_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import nearest_project

from tests.helpers import WORKSPACES, finding_keys, lintel_json, require_path, require_tool, run_tool

NODE = WORKSPACES / "node"
POLYGLOT = WORKSPACES / "polyglot"

pytestmark = pytest.mark.tool("node")

_TSC_LINE = re.compile(r"^(?P<file>[^\s(][^()]*)\((?P<line>\d+),\d+\): error (?P<code>TS\d+): ")


def require_fixture(root: Path) -> None:
    require_tool("node", "install Node.js 20+")
    require_tool("npx", "install Node.js 20+ (npx ships with npm)")
    require_path(root / "node_modules" / ".bin" / "eslint")
    require_path(root / "node_modules" / ".bin" / "tsc")


def eslint_by_hand(root: Path) -> Counter[tuple[Any, ...]]:
    proc = run_tool(["npx", "--no-install", "eslint", ".", "--format", "json"], cwd=root)
    assert proc.returncode == 1, proc.stderr
    keys: Counter[tuple[Any, ...]] = Counter()
    for result in json.loads(proc.stdout):
        file = Path(result["filePath"]).relative_to(root).as_posix()
        for message in result["messages"]:
            keys[(file, message["line"], message["ruleId"])] += 1
    return keys


def tsc_by_hand(root: Path) -> Counter[tuple[Any, ...]]:
    proc = run_tool(["npx", "--no-install", "tsc", "--noEmit", "--pretty", "false"], cwd=root)
    assert proc.returncode == 2, proc.stdout + proc.stderr  # tsc --noEmit exits 2 with errors
    keys: Counter[tuple[Any, ...]] = Counter()
    for line in proc.stdout.splitlines():
        match = _TSC_LINE.match(line)
        if match:
            keys[(match.group("file"), int(match.group("line")), match.group("code"))] += 1
    return keys


def run_of(report: dict[str, Any], check: str, language: str = "node") -> dict[str, Any]:
    [run] = [r for r in report["runs"] if r["check"] == check and r["language"] == language]
    assert isinstance(run, dict)
    return run


def test_lint_and_typecheck_match_eslint_and_tsc_by_hand() -> None:
    require_fixture(NODE)
    eslint = eslint_by_hand(NODE)
    tsc = tsc_by_hand(NODE)
    assert {rule for _, _, rule in eslint} == {
        "@typescript-eslint/no-unused-vars",
        "eqeqeq",
        "prefer-const",
        "no-unused-vars",
        "no-console",
        "no-undef",
    }
    assert {file for file, _, _ in eslint} == {"src/api.ts", "src/util.js"}
    assert sum(tsc.values()) == 3

    code, report = lintel_json("check", str(NODE), "--only", "lint,typecheck")
    assert code == 1
    lint, typecheck = run_of(report, "lint"), run_of(report, "typecheck")
    # The project's own tools, run directly: npx would only find the same files (and start Node once more).
    assert lint["argv"] == [str(NODE / "node_modules" / ".bin" / "eslint"), "--format", "json-with-metadata", "."]
    assert typecheck["argv"] == [str(NODE / "node_modules" / ".bin" / "tsc"), "--noEmit", "--pretty", "false"]
    assert (lint["status"], lint["exitCode"], lint["tool"]) == ("findings", 1, "eslint")
    assert (typecheck["status"], typecheck["exitCode"], typecheck["tool"]) == ("findings", 2, "tsc")
    got = finding_keys(report["issues"])
    assert got == eslint + tsc
    assert {(i["kind"], i["source"]) for i in report["issues"]} == {("lint", "eslint"), ("typecheck", "tsc")}
    assert report["summary"] == {"errors": 9, "warnings": 1, "infos": 0, "notChecked": 0}


def test_issue_records_follow_the_contract() -> None:
    require_fixture(NODE)
    _, report = lintel_json("check", str(NODE), "--only", "typecheck")
    [issue] = [i for i in report["issues"] if i["line"] == 26]
    assert issue["file"] == "src/api.ts"
    assert issue["column"] == 9
    assert issue["rule"] == "TS2322"
    assert issue["signature"] == "typecheck:src/api.ts:26:Type 'string' is not assignable to type 'number'."
    assert re.fullmatch(r"[0-9a-f]{64}", issue["fingerprint"])


def test_fingerprint_reads_a_non_ascii_source_line() -> None:
    require_fixture(NODE)
    _, report = lintel_json("check", str(NODE), "--only", "lint")
    [issue] = [i for i in report["issues"] if i["rule"] == "prefer-const"]
    assert (issue["file"], issue["line"]) == ("src/util.js", 8)
    text = (NODE / "src" / "util.js").read_text(encoding="utf-8").splitlines()[7]
    assert "é" in text
    assert issue["fingerprint"] == make_fingerprint("lint", "src/util.js", "prefer-const", text)


def test_failing_node_test_is_reported_with_file_and_line() -> None:
    require_fixture(NODE)
    code, report = lintel_json("check", str(NODE), "--only", "test")
    assert code == 1
    run = run_of(report, "test")
    assert run["argv"] == ["npm", "run", "--silent", "test"]
    assert (run["status"], run["exitCode"], run["tool"]) == ("findings", 1, "node --test")
    [issue] = report["issues"]
    assert (issue["kind"], issue["source"], issue["file"], issue["line"]) == (
        "test",
        "node --test",
        "src/math.test.js",
        11,
    )
    assert "multiply multiplies two numbers" in issue["message"]
    assert "multiply(3, 4) should be 12" in issue["message"]


def test_format_reports_the_unformatted_file() -> None:
    require_fixture(NODE)
    require_path(NODE / "node_modules" / ".bin" / "prettier")
    _, report = lintel_json("check", str(NODE), "--only", "format")
    run = run_of(report, "format")
    assert run["argv"] == [str(NODE / "node_modules" / ".bin" / "prettier"), "--check", "."]
    assert (run["status"], run["exitCode"], run["tool"]) == ("findings", 1, "prettier")
    assert [(i["kind"], i["file"]) for i in report["issues"]] == [("format", "src/messy.js")]


def test_missing_eslint_says_how_to_install_it(tmp_path: Path) -> None:
    require_tool("npx", "install Node.js 20+ (npx ships with npm)")
    # The project uses eslint (its dependency), which is not installed.
    manifest = {"name": "empty", "version": "1.0.0", "devDependencies": {"eslint": "^9"}}
    (tmp_path / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    (tmp_path / "index.js").write_text("export const x = 1;\n", encoding="utf-8")
    # PATH without the fixtures' or any global eslint: only node's own directory.
    node_dir = os.path.dirname(require_tool("node"))
    code, report = lintel_json("check", str(tmp_path), "--only", "lint", env={"PATH": node_dir})
    assert code == 3
    run = run_of(report, "lint")
    assert run["status"] == "not_checked"
    assert run["argv"] == [
        "npx",
        "--no-install",
        "eslint",
        "--format",
        "json-with-metadata",
        ".",
    ]  # the fallback, never run
    assert run["reason"] == ("lint: eslint: not found on PATH — install it with: npm install --save-dev eslint")


def hoisted_workspace(tmp_path: Path) -> Path:
    """An npm workspace whose member (a copy of the node fixture) has no node_modules of its own: its tools are
    in the workspace root's, where npm, yarn and pnpm hoist them (here a link to the fixture's node_modules)."""
    root = tmp_path / "hoisted"
    shutil.copytree(NODE, root / "packages" / "app", ignore=shutil.ignore_patterns("node_modules"))
    manifest = {"name": "hoisted", "private": True, "workspaces": ["packages/*"]}
    (root / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    (root / "node_modules").symlink_to(NODE / "node_modules", target_is_directory=True)
    return root.resolve()


def test_tools_hoisted_to_the_workspace_root_run_directly(tmp_path: Path) -> None:
    require_fixture(NODE)
    root = hoisted_workspace(tmp_path)
    code, report = lintel_json("check", str(root), "--only", "lint,typecheck")
    assert code == 1
    lint, typecheck = run_of(report, "lint"), run_of(report, "typecheck")
    assert lint["cwd"] == typecheck["cwd"] == "packages/app"
    assert lint["argv"] == [str(root / "node_modules" / ".bin" / "eslint"), "--format", "json-with-metadata", "."]
    assert typecheck["argv"] == [str(root / "node_modules" / ".bin" / "tsc"), "--noEmit", "--pretty", "false"]
    in_member = Counter({("packages/app/" + f, line, rule): n for (f, line, rule), n in eslint_by_hand(NODE).items()})
    in_member.update({("packages/app/" + f, line, rule): n for (f, line, rule), n in tsc_by_hand(NODE).items()})
    assert finding_keys(report["issues"]) == in_member


def test_a_file_check_runs_the_hoisted_tool_directly(tmp_path: Path) -> None:
    """Lint on save: the same run the server makes for one file, on disk and from the buffer."""
    require_fixture(NODE)
    root = hoisted_workspace(tmp_path)
    file = root / "packages" / "app" / "src" / "util.js"
    project = nearest_project(file, root)
    assert project is not None
    assert project.root == root / "packages" / "app"
    results = [
        asyncio.run(run_file_check(project, "lint", file, workspace=root, config=LintelConfig(), text=text))
        for text in (None, file.read_text(encoding="utf-8"))
    ]
    fixture = nearest_project(NODE / "src" / "util.js", NODE)
    assert fixture is not None
    own = asyncio.run(run_file_check(fixture, "lint", NODE / "src" / "util.js", workspace=NODE, config=LintelConfig()))
    assert own is not None
    assert own.argv[0] == str(NODE / "node_modules" / ".bin" / "eslint")
    expected = [(i.line, i.column, i.rule, i.message) for i in own.issues]
    assert expected
    for result in results:
        assert result is not None
        assert result.argv[0] == str(root / "node_modules" / ".bin" / "eslint")
        assert [(i.line, i.column, i.rule, i.message) for i in result.issues] == expected
        assert {i.file for i in result.issues} == {"packages/app/src/util.js"}


def test_polyglot_runs_the_yarn_scripts_and_only_node() -> None:
    require_fixture(POLYGLOT)
    yarn = require_tool("yarn", "run scripts/setup-dev (installs yarn 1)")
    code, report = lintel_json("check", str(POLYGLOT), "--language", "node", "--only", "lint,typecheck,test")
    assert code == 1
    assert {r["language"] for r in report["runs"]} == {"node"}
    assert [p["language"] for p in report["projects"]] == ["node"]
    for check in ("lint", "typecheck", "test"):
        run = run_of(report, check)
        assert Path(run["argv"][0]).name == "yarn" or os.path.samefile(run["argv"][0], yarn)
        assert run["argv"][1:4] == ["--silent", "run", check]
        assert run["status"] == "findings", run
    assert run_of(report, "lint")["argv"][4:] == ["--format", "json-with-metadata"]
    assert finding_keys(report["issues"]) == Counter(
        {
            ("ui/cart.js", 8, "eqeqeq"): 1,
            ("ui/price.ts", 9, "TS2322"): 1,
            ("ui/cart.test.js", 17, None): 1,
        }
    )
    kinds = {(i["file"], i["kind"], i["source"]) for i in report["issues"]}
    assert kinds == {
        ("ui/cart.js", "lint", "eslint"),
        ("ui/price.ts", "typecheck", "tsc"),
        ("ui/cart.test.js", "test", "node --test"),
    }


def test_polyglot_scripts_match_the_tools_by_hand() -> None:
    require_fixture(POLYGLOT)
    require_tool("yarn", "run scripts/setup-dev (installs yarn 1)")
    _, report = lintel_json("check", str(POLYGLOT), "--language", "node", "--only", "lint,typecheck")
    assert finding_keys(report["issues"]) == eslint_by_hand(POLYGLOT) + tsc_by_hand(POLYGLOT)
