"""lintel.engine.workers.ruff_read: `ruff server` diagnostics (shaped as ruff 0.17.6 sends them) read back into the
CLI's
Issue, fixes and rule pages included; what the server could send wrong is no fix, never an exception. The equality
with the real CLI on real files is tests/integration/test_worker_ruff.py's."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.fixes import Edit, Fix
from lintel.engine.workers.ruff_read import diagnostic_issue

FILE = "pkg/mod.py"
LINE = '\t\treturn f"👋 {1}" if x else f"こんにちは"'


def diagnostic(code: str, start: int, end: int, data: dict[str, Any], message: str) -> dict[str, Any]:
    return {
        "code": code,
        "range": {"start": {"line": 0, "character": start}, "end": {"line": 0, "character": end}},
        "codeDescription": {"href": f"https://docs.astral.sh/ruff/rules/{data.pop('name')}"},
        "data": {"code": code, **data},
        "message": message,
    }


def edit(start: int, end: int, text: str) -> dict[str, Any]:
    return {"range": {"start": {"line": 0, "character": start}, "end": {"line": 0, "character": end}}, "newText": text}


def f541(edits: Any, *, utf16: bool = True) -> dict[str, Any]:
    start, end = (35, 43) if utf16 else (34, 42)  # the emoji is two UTF-16 units
    data = {"name": "f-string-missing-placeholders", "edits": edits, "is_preferred": True}
    data["title"] = "Remove extraneous `f` prefix"
    return diagnostic(
        "F541", start, end, data, "f-string without any placeholders\n\nhelp: Remove extraneous `f` prefix"
    )


def read(found: dict[str, Any], encoding: Any = "utf-16") -> Any:
    return diagnostic_issue(found, file=FILE, lines=[LINE, ""], encoding=encoding, rule=found["code"])


def test_a_safe_fix_in_utf16_positions_is_read_in_characters() -> None:
    issue = read(f541([edit(35, 43, '"こんにちは"')]))
    assert (issue.line, issue.column, issue.end_column) == (1, 35, 43)
    assert issue.message == "f-string without any placeholders"
    assert issue.fixes == (Fix("Remove extraneous `f` prefix", "safe", (Edit(FILE, 1, 35, 1, 43, '"こんにちは"'),)),)
    assert issue.url == "https://docs.astral.sh/ruff/rules/f-string-missing-placeholders"
    same = read(f541([edit(34, 42, '"こんにちは"')], utf16=False), encoding="utf-32")
    assert same == issue


def test_display_only_and_unsafe_fixes() -> None:
    display = diagnostic(
        "ERA001",
        0,
        10,
        {"name": "commented-out-code", "edits": [edit(0, 10, "")], "is_preferred": False},
        "Found commented-out code\n\nhelp: Remove commented-out code",
    )
    display["data"]["title"] = "Remove commented-out code (suggestion)"
    issue = read(display)
    assert issue.message == "Found commented-out code"
    assert [(f.title, f.applicability) for f in issue.fixes] == [("Remove commented-out code", "display")]
    unsafe = diagnostic(
        "E711",
        0,
        4,
        {"name": "none-comparison", "edits": [edit(0, 4, "x")], "is_preferred": False, "title": "Replace"},
        "Comparison to `None`\n\nhelp: Replace",
    )
    assert [(f.title, f.applicability) for f in read(unsafe).fixes] == [("Replace", "unsafe")]


def test_no_fix_and_a_fix_without_a_message() -> None:
    unfixable = diagnostic(
        "W191", 0, 2, {"name": "tab-indentation", "edits": [], "title": "tab-indentation"}, "Indentation contains tabs"
    )
    issue = read(unfixable)
    assert (issue.fixes, issue.hint) == ((), None)
    untitled = diagnostic(
        "F541", 0, 2, {"name": "f-string-missing-placeholders", "edits": [edit(0, 1, "")], "is_preferred": True}, "m"
    )
    untitled["data"]["title"] = "f-string-missing-placeholders"  # the server's title when the fix has no message
    issue = read(untitled)
    assert ([f.title for f in issue.fixes], issue.hint) == (["Fix F541"], None)  # as the CLI's `message: null`


def test_edits_lintel_cannot_read_give_no_fix() -> None:
    broken: list[Any] = [
        [{"newText": "x"}],
        [edit(35, 43, 3)],  # type: ignore[arg-type]
        [edit(-1, 43, "")],
        [edit(35, 43, ""), edit(36, 40, "")],  # overlapping
        "edits",
        [None],
    ]
    for edits in broken:
        assert read(f541(edits)).fixes == (), edits


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    edits=st.lists(
        st.fixed_dictionaries({"range": st.fixed_dictionaries({"start": _JSON, "end": _JSON}), "newText": _JSON}),
        max_size=3,
    )
    | _JSON,
    title=_JSON,
    preferred=_JSON,
)
def test_whatever_the_server_sends_reading_never_raises(edits: Any, title: Any, preferred: Any) -> None:
    found = f541(edits)
    found["data"].update(title=title, is_preferred=preferred)
    for encoding in ("utf-16", "utf-32", "utf-8"):
        read(found, encoding)
