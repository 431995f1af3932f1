"""A package.json script's exit code is the floor of the verdict, with the real eslint and prettier of
tests/workspaces/node-chained (installed by scripts/setup-dev): `"lint": "eslint . && prettier -c src test"`
with one eslint warning and one file prettier would reformat, and `"test": "npm run lint && node --test"`.

Before: lint reported only the eslint warning and `--only lint` exited 0 (the script exits 1); the test check was
`not checked`, its reason quoting the eslint warning; a clean chain was `passed (output not parsed)`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lintel.languages.parsers.common import clean

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_path, run_tool

FIXTURE = WORKSPACES / "node-chained"
BIN = FIXTURE / "node_modules" / ".bin"

pytestmark = pytest.mark.tool("node", "npm")


def installed() -> None:
    for tool in ("eslint", "prettier"):
        require_path(BIN / tool, "run scripts/setup-dev (npm ci in tests/workspaces/node-chained)")


def with_scripts(tmp_path: Path, **scripts: str) -> Path:
    root = copy_workspace("node-chained", tmp_path / "project")
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    manifest["scripts"] = {**manifest["scripts"], **scripts}
    (root / "package.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return root


def keys(report: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter((i["kind"], i["severity"], i.get("file"), i.get("line"), i["source"]) for i in report["issues"])


def runs(report: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    return {r["check"]: (r["status"], r["exitCode"]) for r in report["runs"]}


def test_a_lint_script_whose_prettier_step_fails_fails_the_check() -> None:
    installed()
    by_hand = run_tool(["npm", "run", "--silent", "lint"], cwd=FIXTURE)
    assert by_hand.returncode == 1
    # Colour or not as the tools decide (a CI=true environment gets prettier's and eslint's colours).
    assert "[warn] src/labels.js" in clean(by_hand.stderr)
    assert "4:3  warning  Unexpected console statement  no-console" in clean(by_hand.stdout)

    code, report = lintel_json("check", str(FIXTURE), "--only", "lint")
    assert code == 1
    assert runs(report) == {"lint": ("findings", 1)}
    assert keys(report) == Counter(
        {
            ("lint", "warning", "src/cart.js", 4, "eslint"): 1,
            # prettier's `[warn] file` is a format issue of the lint run: an error, since it fails the script.
            ("format", "error", "src/labels.js", None, "prettier"): 1,
        }
    )
    assert "`prettier -c src test` failed" in report["runs"][0]["reason"]


def test_a_test_script_that_fails_before_its_tests_names_the_failing_step() -> None:
    installed()
    by_hand = run_tool(["npm", "run", "--silent", "test"], cwd=FIXTURE)
    assert by_hand.returncode == 1
    assert "# pass" not in clean(by_hand.stdout)  # node --test never ran

    code, report = lintel_json("check", str(FIXTURE), "--only", "test")
    assert code == 1
    [run] = report["runs"]
    assert (run["status"], run["exitCode"]) == ("findings", 1)
    assert run["reason"].startswith("`prettier -c src test` (of `npm run lint`) failed (the `test` script exited 1)")
    assert "Unexpected console statement" not in run["reason"]
    assert keys(report) == Counter({("format", "error", "src/labels.js", None, "prettier"): 1})


def test_clean_chained_scripts_are_clean(tmp_path: Path) -> None:
    installed()
    root = copy_workspace("node-chained", tmp_path / "project")
    (root / "src" / "labels.js").write_text(
        "// Formatted.\nexport function label(item) {\n  return `${item.name} x${item.quantity}`;\n}\n",
        encoding="utf-8",
    )
    cart = root / "src" / "cart.js"
    cart.write_text(cart.read_text(encoding="utf-8").replace("  console.log(`total: ${sum}`);\n", ""), encoding="utf-8")
    assert run_tool(["npm", "run", "--silent", "test"], cwd=root).returncode == 0

    code, report = lintel_json("check", str(root), "--only", "lint,test")
    assert (code, runs(report), report["issues"]) == (0, {"lint": ("clean", 0), "test": ("clean", 0)}, [])


def test_a_step_lintel_does_not_know_fails_with_its_output_quoted(tmp_path: Path) -> None:
    installed()
    root = with_scripts(tmp_path, lint="eslint . && node check-headers.js")
    (root / "check-headers.js").write_text(
        'console.error("src/labels.js: no licence header");\nprocess.exit(1);\n', encoding="utf-8"
    )
    code, report = lintel_json("check", str(root), "--only", "lint")
    assert code == 1
    assert runs(report) == {"lint": ("findings", 1)}
    [floor] = [i for i in report["issues"] if i["severity"] == "error"]
    assert (floor["kind"], floor.get("file"), floor["source"]) == ("lint", None, "npm run lint")
    assert floor["message"] == "`node check-headers.js` failed: the `lint` script exited 1"
    assert "src/labels.js: no licence header" in floor["hint"]
    assert ("lint", "warning", "src/cart.js", 4, "eslint") in keys(report)  # what was parsed is still reported


@pytest.mark.parametrize(
    ("script", "step"),
    [("eslint . && prettier -c nowhere", "prettier -c nowhere"), ("eslint . && no-such-tool --check", None)],
)
def test_a_step_that_could_not_run_is_not_checked(tmp_path: Path, script: str, step: str | None) -> None:
    """prettier's exit 2 (no file matched) and the shell's 127 (command not found): the check did not run."""
    installed()
    code, report = lintel_json("check", str(with_scripts(tmp_path, lint=script)), "--only", "lint")
    assert code == 3
    [run] = report["runs"]
    assert run["status"] == "not_checked"
    assert run["reason"].startswith(f"`{step or 'no-such-tool --check'}` could not run (the `lint` script exited")


def test_warnings_that_fail_the_script_are_errors(tmp_path: Path) -> None:
    """`eslint --max-warnings 0 .` exits 1 on a warning: before, `findings` with one warning and exit 0."""
    installed()
    root = with_scripts(tmp_path, lint="eslint --max-warnings 0 .")
    code, report = lintel_json("check", str(root), "--only", "lint")
    assert code == 1
    assert runs(report) == {"lint": ("findings", 1)}
    assert keys(report) == Counter({("lint", "error", "src/cart.js", 4, "eslint"): 1})
