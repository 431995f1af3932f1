"""check_edit's parts without a tool: edits applied (and refused), the delta of two texts' findings, the per-run
state every diagnostics-like answer carries, the `partial:` summary line, and the argument checks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lintel.core.budget import Budget
from lintel.core.issues import Issue, make_issue
from lintel.core.results import RunResult, run_state, state_json
from lintel.engine import actions, settled
from lintel.engine.actions import ActionError, CommandArgs, FileDiagnostics
from lintel.engine.editcheck import EditCheck, check_edit, delta, edit_target, findings
from lintel.engine.edits import EditError, RangeEdit, TextReplace, apply_edits
from lintel.frontends.mcp.tools import diagnostics_summary, edit_summary
from lintel.frontends.mcp.workspace import Workspace

# -- edits ------------------------------------------------------------------------------------------------------------


def ranged(line: int, column: int, end_line: int, end_column: int, text: str) -> RangeEdit:
    return RangeEdit.model_validate(
        {"line": line, "column": column, "endLine": end_line, "endColumn": end_column, "newText": text}
    )


def replaced(old: str, new: str) -> TextReplace:
    return TextReplace.model_validate({"oldText": old, "newText": new})


def test_a_range_edit_counts_code_points_and_excludes_its_end() -> None:
    text = "café = 1\nx = 2\n"
    assert apply_edits(text, [ranged(1, 1, 1, 5, "tea")]) == "tea = 1\nx = 2\n"
    assert apply_edits(text, [ranged(1, 9, 2, 1, "; ")]) == "café = 1; x = 2\n"
    assert apply_edits(text, [ranged(3, 1, 3, 1, "y = 3\n")]) == "café = 1\nx = 2\ny = 3\n"
    assert apply_edits("a\r\nb\r\n", [ranged(2, 1, 2, 2, "c")]) == "a\r\nc\r\n"


def test_edits_apply_in_order_each_to_the_text_before_it() -> None:
    text = "one\ntwo\n"
    edits: list[RangeEdit | TextReplace] = [replaced("one", "uno"), ranged(1, 1, 1, 4, "ein")]
    assert apply_edits(text, edits) == "ein\ntwo\n"


def test_an_old_text_must_match_exactly_once() -> None:
    with pytest.raises(EditError, match="the edit: oldText occurs 2 times in the file; it must match exactly once"):
        apply_edits("a = 1\na = 1\n", [replaced("a = 1", "b = 1")])
    with pytest.raises(EditError, match="edit 2: oldText does not occur in the file"):
        apply_edits("a\n", [replaced("a", "b"), replaced("a", "c")])


def test_a_range_outside_the_text_is_refused() -> None:
    with pytest.raises(EditError, match="line 4 is past the end of the file \\(3 lines\\)"):
        apply_edits("a\nb\n", [ranged(4, 1, 4, 1, "x")])
    with pytest.raises(EditError, match="column 5 is past the end of line 1 \\(2 characters\\)"):
        apply_edits("ab\n", [ranged(1, 5, 1, 5, "x")])
    with pytest.raises(EditError, match="is before its start"):
        apply_edits("abc\n", [ranged(1, 3, 1, 1, "x")])


def test_edits_arguments_take_either_shape_and_nothing_else() -> None:
    args = actions.parse_args("check_edit", [{"file": "a.py", "edits": [{"oldText": "a", "newText": "b"}]}])
    assert args.edits == [replaced("a", "b")]
    shaped = {"line": 1, "column": 1, "endLine": 1, "endColumn": 2, "newText": ""}
    assert actions.parse_args("check_edit", [{"file": "a.py", "edits": [shaped]}]).edits == [ranged(1, 1, 1, 2, "")]
    for bad in ({"oldText": "a"}, {"oldText": "", "newText": "b"}, {"line": 0, "column": 1}, {"text": "x"}):
        with pytest.raises(ActionError, match=r"check_edit: edits\.0"):
            actions.parse_args("check_edit", [{"file": "a.py", "edits": [bad]}])


# -- the delta --------------------------------------------------------------------------------------------------------


def issue(line: int, rule: str, message: str = "m", source: str = "ruff") -> Issue:
    return make_issue(kind="lint", message=message, source=source, severity="error", file="a.py", line=line, rule=rule)


def test_a_finding_that_only_moved_is_unchanged() -> None:
    before = "import os\nx == None\n"
    after = "# moved\nimport os\nx == None\nimport sys\n"
    old = [issue(1, "F401", "os"), issue(2, "E711")]
    new = [issue(2, "F401", "os"), issue(3, "E711"), issue(4, "F401", "sys")]
    added, fixed, unchanged = delta(old, before, new, after)
    assert [(i.line, i.rule) for i in added] == [(4, "F401")]
    assert fixed == []
    assert unchanged == 2


def test_the_delta_counts_a_multiset() -> None:
    # Two equal findings on two equal lines; one goes away: one fixed, one unchanged, whichever line it was.
    before = "x == None\nx == None\n"
    after = "x == None\nx is None\n"
    added, fixed, unchanged = delta([issue(1, "E711"), issue(2, "E711")], before, [issue(1, "E711")], after)
    assert (added, [(i.rule) for i in fixed], unchanged) == ([], ["E711"], 1)


def test_a_finding_on_a_line_the_edit_rewrote_is_unchanged() -> None:
    # An edit elsewhere on a finding's line (another argument of the same call) leaves that finding as it was.
    added, fixed, unchanged = delta([issue(1, "E501")], "a = 1\n", [issue(1, "E501")], "a = 2\n")
    assert (added, fixed, unchanged) == ([], [], 1)


def test_the_same_rule_gone_from_one_line_and_on_another_rewritten_line_is_new_and_fixed() -> None:
    before, after = "x = 1\ny = 2\n", "x = 1\ny = 3\n"
    added, fixed, unchanged = delta([issue(1, "E501")], before, [issue(2, "E501")], after)
    assert ([i.line for i in added], [i.line for i in fixed], unchanged) == ([2], [1], 0)


# -- states -----------------------------------------------------------------------------------------------------------


def result(**fields: Any) -> RunResult:
    base: dict[str, Any] = {"language": "python", "check": "lint", "tool": "ruff", "argv": [], "cwd": Path()}
    return RunResult(**{"status": "clean", **base, **fields})


def test_run_state_tells_complete_timed_out_missing_and_not_run() -> None:
    assert run_state(result()) == ("complete", None)
    assert run_state(result(status="findings"))[0] == "complete"
    assert run_state(result(status="passed", reason="output not parsed"))[0] == "complete"
    timed = result(status="not_checked", timed_out=True, reason="ruff timed out after 2s")
    assert run_state(timed) == ("timed_out", "ruff timed out after 2s")
    missing = result(status="not_checked", reason="lint: ruff not found", missing_binary="ruff")
    assert run_state(missing) == ("tool_missing", "lint: ruff not found")
    crashed = result(status="not_checked", exit_code=2, reason="ruff failed (exit 2): boom")
    assert run_state(crashed) == ("not_run", "ruff failed (exit 2): boom")
    assert run_state(result(status="not_configured", reason="no prettier"))[0] == "not_run"
    assert state_json(timed) == {"state": "timed_out", "stateReason": "ruff timed out after 2s"}


def test_timeouts_are_not_findings() -> None:
    timeout = make_issue(kind="timeout", message="lint: ruff timed out", source="ruff", severity="error")
    ran = result(status="findings", issues=[issue(1, "F401")])
    timed = result(status="not_checked", timed_out=True, issues=[timeout])
    assert findings([ran, timed]) == ran.issues


def test_a_partial_answer_says_so_first_and_never_no_issues() -> None:
    timeout = make_issue(kind="timeout", message="lint: ruff timed out", source="ruff", severity="error")
    timed = result(status="not_checked", timed_out=True, reason="ruff timed out after 30s", issues=[timeout])
    fmt = result(check="format", status="clean")
    found = FileDiagnostics("a.py", "python", [timed, fmt], settled.text_hash(""))
    first = diagnostics_summary(found, Budget()).splitlines()[0]
    assert first == "partial: ruff lint timed_out (timed out after 30s); a.py: 0 issues from the other tools (ruff)"
    assert (
        diagnostics_summary(FileDiagnostics("a.py", "python", [fmt]), Budget()).splitlines()[0]
        == "a.py: no issues (ruff)"
    )
    document = found.to_json()
    assert [r["state"] for r in document["runs"]] == ["timed_out", "complete"]
    assert document["contentHash"] == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_an_edit_summary_names_the_counts_and_the_new_issues() -> None:
    lint = result(status="findings", issues=[issue(3, "F401", "`os` imported but unused")])
    fmt = result(check="format")
    checked = EditCheck("a.py", "python", "sha256:1", "sha256:0", lint.issues, [], 2, [lint, fmt], [lint, fmt])
    lines = edit_summary(checked, Budget()).splitlines()
    assert lines[0] == "a.py: 1 new, 0 fixed, 2 unchanged (ruff, ruff format)"
    assert lines[1] == "a.py:3: error F401 `os` imported but unused [ruff]"
    document = checked.to_json()
    assert document["counts"] == {"new": 1, "fixed": 0, "unchanged": 2}
    assert document["runs"][0]["baseState"] == "complete"
    stdin_less = settled.not_run(_project(), "format", "gofmt", settled.READS_FILES_ONLY)
    partial = EditCheck("a.go", "go", "sha256:1", None, [], [], 0, [stdin_less], [])
    assert edit_summary(partial, Budget()) == (
        "partial: gofmt format not_run (reads files only); a.go: 0 new, 0 fixed, 0 unchanged (no tool ran)"
    )


def _project() -> Any:
    class Project:
        language = "go"
        root = Path()

    return Project()


# -- the target -------------------------------------------------------------------------------------------------------


class _Folder:
    def __init__(self, root: Path) -> None:
        self.root = root


def test_edit_target_allows_a_new_file_with_content_only(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    folders: Any = [_Folder(tmp_path)]
    folder, path, exists = edit_target("check_edit", folders, CommandArgs(file="src/a.py", content=""))
    assert (folder.root, path, exists) == (tmp_path, tmp_path / "src" / "a.py", True)
    _, path, exists = edit_target("check_edit", folders, CommandArgs(file="src/new/b.py", content=""))
    assert (path, exists) == (tmp_path / "src" / "new" / "b.py", False)
    with pytest.raises(ActionError, match="does not exist"):
        edit_target("check_edit", folders, CommandArgs(file="src/b.py", edits=[replaced("a", "b")]))
    with pytest.raises(ActionError, match="outside the workspace"):
        edit_target("check_edit", folders, CommandArgs(file="../b.py", content=""))
    with pytest.raises(ActionError, match="exactly one of"):
        edit_target("check_edit", folders, CommandArgs(file="src/a.py"))
    with pytest.raises(ActionError, match="is not a file"):
        edit_target("check_edit", folders, CommandArgs(file="src", content=""))


def test_a_file_rewritten_during_its_runs_is_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.py"
    path.write_text("x = 1\n", encoding="utf-8")
    seen: list[str] = []

    async def fake_run(project: Any, check: str, file: Path, **_: Any) -> RunResult:
        seen.append(file.read_text(encoding="utf-8"))
        if len(seen) == 1:
            file.write_text("x = 2\n", encoding="utf-8")  # the agent wrote again while the first run went on
        return result(check=check)

    monkeypatch.setattr(settled, "run_file_check", fake_run)
    config = _Config()
    runs, digest = asyncio.run(settled.disk_runs(_project(), path, workspace=tmp_path, config=config))  # type: ignore[arg-type]
    assert seen == ["x = 1\n", "x = 2\n"]
    assert digest == settled.text_hash("x = 2\n")
    assert len(runs) == 1


class _Config:
    class editor:
        format_check = False


# -- the child server's findings --------------------------------------------------------------------------------------


class _Gopls:
    """A Front's server_diagnostics: one finding on each line that calls strings.Index."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def server_diagnostics(self, folder: Any, file: Path, text: str) -> RunResult | None:
        self.texts.append(text)
        lines = text.splitlines()
        found = [
            make_issue(
                kind="typecheck",
                message="should use strings.Contains",
                source="gopls",
                severity="warning",
                file=file.name,
                line=number,
                rule="S1003",
            )
            for number, line in enumerate(lines, 1)
            if "strings.Index" in line
        ]
        return result(language="go", check="typecheck", tool="gopls", status="findings", issues=found)


def test_a_child_servers_findings_join_the_delta_and_cover_the_file_only_tools(tmp_path: Path) -> None:
    root = tmp_path / "go"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/m\n\ngo 1.22\n", encoding="utf-8")
    source = (
        'package m\n\nimport "strings"\n\nfunc Has(s, sub string) bool {\n\treturn strings.Index(s, sub) != -1\n}\n'
    )
    (root / "m.go").write_text(source, encoding="utf-8")
    workspace = Workspace(root)
    workspace.refresh()
    servers = _Gopls()
    edits: list[RangeEdit | TextReplace] = [replaced("strings.Index(s, sub) != -1", "strings.Contains(s, sub)")]
    args = CommandArgs(file="m.go", edits=edits)
    checked = asyncio.run(check_edit("check_edit", servers, [workspace], args, trusted=True, on_start=lambda _: None))
    assert [i.rule for i in checked.fixed] == ["S1003"]
    assert (checked.new, checked.unchanged) == ([], 0)
    assert len(servers.texts) == 2  # the proposed text and the file's, one after the other
    reasons = {r.tool: run_state(r) for r in checked.runs}
    assert reasons["gopls"] == ("complete", None)
    assert reasons["gofmt"] == ("not_run", "reads files only; checked through gopls instead")
    assert (root / "m.go").read_text(encoding="utf-8") == source
