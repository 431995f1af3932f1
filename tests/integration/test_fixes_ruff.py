"""ruff's fixes as lintel carries them (parse_ruff's Fix on each Issue) against ruff's own fix mode, with real ruff.

On tests/workspaces/fix-python (safe, unsafe, display-only and unfixable findings on lines with tabs, emoji and CJK
text, one file with CRLF ends): applying every issue's chosen fix with lintel.core.fixes.fix_all, round after round with
ruff run again on the result, gives byte for byte what `ruff check --fix` (lintel's FixMode, in place and from
stdin) writes, safe fixes alone and with unsafe ones. One round alone already equals it for a file whose fixes
neither overlap nor make new findings (plain.py), and not for the others: in core.py removing E703's `;` leaves a
trailing space (W291, a second round), in windows.py I001 overlaps three F401 fixes. `lintel check --format json`
carries each finding's fixes and rule page.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from lintel.core.fixes import Fix, chosen_fix, fix_all
from lintel.core.issues import Issue, ParseContext
from lintel.languages.base import FILE_PLACEHOLDER, FixMode
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.python.parsers import parse_ruff
from lintel.languages.python.tools import RUFF_LINT
from lintel.languages.sources import unit_for

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_tool

pytestmark = [pytest.mark.tool("ruff"), pytest.mark.timeout(300)]

FIXTURE = WORKSPACES / "fix-python"
FILES = ("src/fixme/core.py", "src/fixme/plain.py", "src/fixme/windows.py")


def declared_fix_mode() -> FixMode:
    mode = RUFF_LINT.fix_mode
    assert mode is not None, "ruff's fix mode is not declared"
    return mode


MODE = declared_fix_mode()


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # CRLF kept as it is


def ruff_issues(root: Path, rel: str, text: str) -> list[Issue]:
    """parse_ruff on lintel's own `ruff check` argv for `rel`, written with `text` first."""
    (root / rel).write_bytes(text.encode("utf-8"))
    proc = subprocess.run(
        [require_tool("ruff"), *RUFF_LINT.argv[1:], rel], cwd=root, capture_output=True, check=False, timeout=60
    )
    assert proc.returncode in (0, 1), proc.stderr
    output = ToolOutput(proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"), proc.returncode)
    result = parse_ruff(output, ParseContext(cwd=str(root), root=str(root)))
    assert result.recognized
    return result.issues


def chosen(issues: list[Issue], *, unsafe: bool) -> list[Fix]:
    return [fix for fix in (chosen_fix(issue.fixes, unsafe=unsafe) for issue in issues) if fix is not None]


def one_round(root: Path, rel: str, text: str, *, unsafe: bool) -> tuple[str, int, int]:
    """`text` with one round of fix_all: the new text, how many fixes it applied and how many there were."""
    fixes = chosen(ruff_issues(root, rel, text), unsafe=unsafe)
    fixed, applied = fix_all(text, rel, fixes, unit_for("ruff"))
    return fixed, applied, len(fixes)


def fixed_by_rounds(root: Path, rel: str, *, unsafe: bool) -> tuple[str, int]:
    """The file's text after rounds of fix_all until one changes nothing (ruff run on each round's result), and
    how many rounds changed it. The file is left as it was."""
    original = read(root / rel)
    text, rounds = original, 0
    for _ in range(20):
        fixed, applied, _ = one_round(root, rel, text, unsafe=unsafe)
        if not applied:
            break
        text, rounds = fixed, rounds + 1
    (root / rel).write_bytes(original.encode("utf-8"))
    return text, rounds


def ruff_fixed_in_place(root: Path, *, unsafe: bool) -> dict[str, bytes]:
    """Every file as lintel's FixMode argv (`ruff check --fix …`, on the whole project) rewrites it."""
    argv = [require_tool("ruff"), *MODE.argv[1:], *(MODE.unsafe_args if unsafe else ())]
    proc = subprocess.run(argv, cwd=root, capture_output=True, check=False, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    return {rel: (root / rel).read_bytes() for rel in FILES}


def ruff_fixed_from_stdin(root: Path, rel: str, *, unsafe: bool) -> str:
    """The text lintel's FixMode stdin argv prints for the file's text (`--stdin-filename {file} -`)."""
    argv = [part.replace(FILE_PLACEHOLDER, rel) for part in MODE.stdin_argv[1:]]
    argv = [require_tool("ruff"), *argv, *(MODE.stdin_unsafe_args if unsafe else ())]
    proc = subprocess.run(argv, cwd=root, input=(root / rel).read_bytes(), capture_output=True, check=False, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.decode("utf-8")


def test_the_fixture_has_every_kind_of_fix(tmp_path: Path) -> None:
    root = copy_workspace("fix-python", tmp_path / "kinds")
    issues = [issue for rel in FILES for issue in ruff_issues(root, rel, read(root / rel))]
    kinds = [issue.fixes[0].applicability if issue.fixes else None for issue in issues]
    assert kinds.count("safe") >= 5
    assert kinds.count("unsafe") >= 5
    assert kinds.count("display") >= 1  # ERA001
    assert kinds.count(None) >= 3  # W191, F821, E741, UP035: nothing to fix
    assert all(issue.url and issue.url.startswith("https://docs.astral.sh/ruff/rules/") for issue in issues)
    assert "\r\n" in read(root / "src/fixme/windows.py")
    safe_lines = {(i.file, i.line) for i in issues for f in i.fixes if f.applicability == "safe"}
    text = read(root / "src/fixme/core.py").splitlines()
    # A safe fix after a tab, an emoji and CJK text on one line (F541 on line 9).
    assert ("src/fixme/core.py", 9) in safe_lines
    assert {"\t", "👋", "世"} <= set(text[8])


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fixes_applied_round_after_round_equal_ruffs_own_fix(tmp_path: Path, unsafe: bool) -> None:
    """(a) safe fixes equal `ruff check --fix`; (c) with unsafe ones, `ruff check --fix --unsafe-fixes`: byte for
    byte, in place and from stdin."""
    mine = copy_workspace("fix-python", tmp_path / "lintel")
    theirs = copy_workspace("fix-python", tmp_path / "ruff")
    from_stdin = {rel: ruff_fixed_from_stdin(theirs, rel, unsafe=unsafe) for rel in FILES}
    in_place = ruff_fixed_in_place(theirs, unsafe=unsafe)
    for rel in FILES:
        fixed, rounds = fixed_by_rounds(mine, rel, unsafe=unsafe)
        assert rounds >= 1, rel
        assert fixed != read(FIXTURE / rel), rel
        assert fixed.encode("utf-8") == in_place[rel], rel
        assert fixed == from_stdin[rel], rel
    assert "\r\n" in in_place["src/fixme/windows.py"].decode("utf-8")


def test_one_round_equals_ruffs_fix_where_nothing_is_left_for_a_second(tmp_path: Path) -> None:
    """(b) One round of fix_all is ruff's whole fix when none of its fixes overlaps another and the fixed text has
    nothing left to fix; on this fixture that is plain.py alone."""
    root = copy_workspace("fix-python", tmp_path / "one-round")
    same_in_one_round = set()
    for rel in FILES:
        original = read(root / rel)
        fixed, applied, offered = one_round(root, rel, original, unsafe=False)
        _, again, _ = one_round(root, rel, fixed, unsafe=False)
        (root / rel).write_bytes(original.encode("utf-8"))
        if fixed == ruff_fixed_from_stdin(root, rel, unsafe=False):
            same_in_one_round.add(rel)
        if applied == offered and not again:
            assert rel in same_in_one_round, rel
    assert same_in_one_round == {"src/fixme/plain.py"}


def test_a_projects_unsafe_fixes_setting_does_not_widen_the_safe_fix_mode(tmp_path: Path) -> None:
    """`unsafe-fixes = true` in the project makes a plain `ruff check --fix` apply unsafe fixes too; lintel's fix
    mode (`--no-unsafe-fixes`) applies the safe ones only, as the issues' safe fixes do."""
    root = copy_workspace("fix-python", tmp_path / "setting")
    config = root / "pyproject.toml"
    config.write_text(read(config).replace("[tool.ruff]\n", "[tool.ruff]\nunsafe-fixes = true\n"), encoding="utf-8")
    rel = "src/fixme/core.py"
    plain = subprocess.run(
        [require_tool("ruff"), "check", "--fix", "--no-cache", "--stdin-filename", rel, "-"],
        cwd=root,
        input=(root / rel).read_bytes(),
        capture_output=True,
        check=False,
    )
    fixed, _ = fixed_by_rounds(root, rel, unsafe=False)
    assert plain.stdout.decode("utf-8") != fixed  # the setting is in effect for ruff's plain fix
    assert ruff_fixed_from_stdin(root, rel, unsafe=False) == fixed
    assert ruff_fixed_in_place(root, unsafe=False)[rel] == fixed.encode("utf-8")


def test_lintel_check_json_carries_fixes_and_rule_pages() -> None:
    """(d) `lintel check --format json`: each ruff finding's fixes (as parse_ruff reads the tool) and url."""
    require_tool("ruff")
    code, report = lintel_json("check", str(FIXTURE), "--only", "lint")
    assert code == 1, report
    issues = [issue for issue in report["issues"] if issue["source"] == "ruff"]
    assert len(issues) >= 20
    assert all(issue["url"].startswith("https://docs.astral.sh/ruff/rules/") for issue in issues)
    found = sorted((i["file"], i["line"], i["column"], i["rule"], json.dumps(i.get("fixes", []))) for i in issues)
    expected = [issue for rel in FILES for issue in ruff_issues_read_only(rel)]
    assert found == sorted(
        (i.file, i.line, i.column, i.rule, json.dumps([fix.to_json() for fix in i.fixes])) for i in expected
    )
    by_place = {(i["file"], i["line"], i["column"], i["rule"]): i.get("fixes", []) for i in issues}
    f541 = by_place[("src/fixme/core.py", 9, 43, "F541")]
    assert f541 == [
        {
            "title": "Remove extraneous `f` prefix",
            "applicability": "safe",
            "edits": [
                {
                    "file": "src/fixme/core.py",
                    "line": 9,
                    "column": 43,
                    "endLine": 9,
                    "endColumn": 51,
                    "newText": '"こんにちは"',
                }
            ],
        }
    ]
    assert {fix["applicability"] for fixes in by_place.values() for fix in fixes} == {"safe", "unsafe", "display"}


def ruff_issues_read_only(rel: str) -> list[Issue]:
    """parse_ruff on lintel's argv for one fixture file, run in place (ruff writes nothing with `--no-fix`)."""
    proc = subprocess.run(
        [require_tool("ruff"), *RUFF_LINT.argv[1:], rel], cwd=FIXTURE, capture_output=True, check=False, timeout=60
    )
    output = ToolOutput(proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"), proc.returncode)
    return parse_ruff(output, ParseContext(cwd=str(FIXTURE), root=str(FIXTURE))).issues


def test_a_byte_order_mark_is_not_counted(tmp_path: Path) -> None:
    """ruff's columns on line 1 start after a byte order mark, and its own fix keeps the mark: the edits apply to
    the text without it, the mark put back (applied to the text with it, they would cut one character early)."""
    root = copy_workspace("fix-python", tmp_path / "bom")
    rel = "src/fixme/bom.py"
    text = '\ufeffx = f"é"; import os\n'
    first = chosen(ruff_issues(root, rel, text), unsafe=False)
    assert [edit.column for fix in first for edit in fix.edits] == [5, 11]
    # Counted from the mark, each edit lands one character early.
    assert fix_all(text, rel, first, unit_for("ruff"))[0] == '\ufeffx ="é"";s\n'
    fixed = text
    for _ in range(5):
        fixes = chosen(ruff_issues(root, rel, fixed), unsafe=False)
        without, applied = fix_all(fixed.removeprefix("\ufeff"), rel, fixes, unit_for("ruff"))
        if not applied:
            break
        fixed = "\ufeff" + without
    assert fixed == '\ufeffx = "é"\n'
    (root / rel).write_bytes(text.encode("utf-8"))
    assert ruff_fixed_from_stdin(root, rel, unsafe=False) == fixed
    ruff_fixed_in_place(root, unsafe=False)
    assert read(root / rel) == fixed
