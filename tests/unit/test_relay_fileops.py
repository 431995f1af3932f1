"""File operations for the child servers (lintel.frontends.relay.fileops): LSP globs, which files each child's own
filters take, the children's workspace edits merged into one, and the router asking only the children concerned."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lintel.frontends.relay import router as router_module
from lintel.frontends.relay.client import ChildFailed
from lintel.frontends.relay.fileops import glob_regex, merge_edits, taken
from lsprotocol import types

from tests.unit.test_proxy_manager import ROOT
from tests.unit.test_proxy_router import ScriptedChild, Setup


@pytest.mark.parametrize(
    ("glob", "matching", "other"),
    [
        ("**/*.rs", ["/w/src/main.rs", "main.rs", "/w/a/b/c/lib.rs"], ["/w/main.rsx", "/w/x.rs/main.go", "/w/rs"]),
        ("**/*.{ts,js}", ["/w/a.ts", "/w/src/b.js", "c.ts"], ["/w/a.tsx", "/w/a.json", "/w/a.ts/b"]),
        ("**", ["/w/anything", "/", "x", "/w/deep/down/file.txt"], []),
        ("**/*", ["/w/a", "/w/a/b.c"], []),
        ("*.go", ["a.go", "main_test.go"], ["/w/a.go", "a.go/x", "a.gox"]),  # one segment: the name (see taken)
        ("[!a]b", ["cb", "bb"], ["ab", "b", "cbb"]),
        ("[ab]c", ["ac", "bc"], ["cc"]),
        ("?", ["x", "é"], ["xy", "", "/"]),
        ("src/**/test_?.py", ["src/test_a.py", "src/x/y/test_b.py"], ["src/test_ab.py", "lib/test_a.py"]),
    ],
)
def test_lsp_globs(glob: str, matching: list[str], other: list[str]) -> None:
    pattern = glob_regex(glob)
    for path in matching:
        assert pattern.match(path), (glob, path)
    for path in other:
        assert not pattern.match(path), (glob, path)


def registration(*globs: tuple[str, str | None], scheme: str | None = "file") -> types.FileOperationRegistrationOptions:
    return types.FileOperationRegistrationOptions(
        filters=[
            types.FileOperationFilter(
                scheme=scheme,
                pattern=types.FileOperationPattern(
                    glob=glob, matches=types.FileOperationPatternKind(kind) if kind else None
                ),
            )
            for glob, kind in globs
        ]
    )


def entry(path: Path) -> dict[str, str]:
    return {"uri": path.as_uri()}


def test_taken_matches_files_or_folders_as_the_filter_says(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.go").write_text("package pkg\n")
    folder, file, gone = entry(tmp_path / "pkg"), entry(tmp_path / "pkg" / "a.go"), entry(tmp_path / "new.go")
    files = [folder, file, gone]
    assert taken(registration(("**/*", "folder")), files, tmp_path) == [folder, gone]
    assert taken(registration(("**/*", "file")), files, tmp_path) == [file, gone]  # unknown: the glob decides
    assert taken(registration(("**/*", None)), files, tmp_path) == files
    assert taken(registration(("*.go", None)), files, tmp_path) == [file, gone]  # a name-only glob
    assert taken(None, files, tmp_path) == []  # the child takes no such operation


def test_taken_keeps_the_childs_scheme_and_root(tmp_path: Path) -> None:
    root = tmp_path / "api"
    inside, outside = entry(root / "a.go"), entry(tmp_path / "web" / "b.go")
    untitled = {"uri": "untitled:Untitled-1"}
    assert taken(registration(("**/*.go", None)), [inside, outside, untitled], root) == [inside]
    assert taken(registration(("**/*.go", None), scheme="untitled"), [inside], root) == []
    assert taken(registration(("**/*.go", None), scheme=None), [inside], root) == [inside]  # any scheme
    # A rename into or out of the child's root concerns it; a rename elsewhere does not.
    into = {"oldUri": (tmp_path / "web" / "x.go").as_uri(), "newUri": (root / "x.go").as_uri()}
    elsewhere = {"oldUri": (tmp_path / "web" / "x.go").as_uri(), "newUri": (tmp_path / "web" / "y.go").as_uri()}
    assert taken(registration(("**/*.go", None)), [into, elsewhere, "not an entry"], root) == [into]


# -- merged edits --------------------------------------------------------------------------------------------------


def text_edit(text: str) -> dict[str, Any]:
    return {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": text}


def test_nothing_to_merge_is_null_and_one_edit_is_itself() -> None:
    assert merge_edits([]) is None
    assert merge_edits([None, {}, {"changes": {}}, {"documentChanges": []}]) is None
    one = {"changes": {"file:///a.go": [text_edit("a")]}}
    assert merge_edits([None, one, {"changes": {}}]) is one


def test_changes_of_two_children_are_merged_per_document() -> None:
    first = {"changes": {"file:///a.go": [text_edit("a")], "file:///b.go": [text_edit("b")]}}
    second = {"changes": {"file:///a.go": [text_edit("c")]}}
    assert merge_edits([first, second]) == {
        "changes": {"file:///a.go": [text_edit("a"), text_edit("c")], "file:///b.go": [text_edit("b")]}
    }
    # Annotated text edits in `changes` keep their annotations.
    annotated_edit = {**text_edit("x"), "annotationId": "n"}
    annotated = {"changes": {"file:///c.go": [annotated_edit]}, "changeAnnotations": {"n": {}}}
    assert merge_edits([second, annotated]) == {
        "changes": {"file:///a.go": [text_edit("c")], "file:///c.go": [annotated_edit]},
        "changeAnnotations": {"n": {}},
    }


def test_changes_and_document_changes_become_document_changes_with_the_annotations() -> None:
    renamed = {"kind": "rename", "oldUri": "file:///a.py", "newUri": "file:///b.py", "annotationId": "py"}
    python = {
        "documentChanges": [
            {"textDocument": {"uri": "file:///c.py", "version": 3}, "edits": [text_edit("c")]},
            renamed,
        ],
        "changeAnnotations": {"py": {"label": "rename module", "needsConfirmation": True}},
    }
    go = {"changes": {"file:///a.go": [text_edit("a")]}, "changeAnnotations": {"go": {"label": "imports"}}}
    assert merge_edits([go, None, python]) == {
        "documentChanges": [
            {"textDocument": {"uri": "file:///a.go", "version": None}, "edits": [text_edit("a")]},
            {"textDocument": {"uri": "file:///c.py", "version": 3}, "edits": [text_edit("c")]},
            renamed,
        ],
        "changeAnnotations": {"py": {"label": "rename module", "needsConfirmation": True}, "go": {"label": "imports"}},
    }


def test_an_edit_with_both_forms_counts_once() -> None:
    """A server may send `changes` alongside `documentChanges` for older clients: the same edits twice."""
    both = {
        "changes": {"file:///a.ts": [text_edit("a")]},
        "documentChanges": [{"textDocument": {"uri": "file:///a.ts", "version": 1}, "edits": [text_edit("a")]}],
    }
    other = {"documentChanges": [{"textDocument": {"uri": "file:///b.py", "version": 1}, "edits": [text_edit("b")]}]}
    assert merge_edits([both, other]) == {"documentChanges": [*both["documentChanges"], *other["documentChanges"]]}


# -- through the router --------------------------------------------------------------------------------------------


def operations(**members: types.FileOperationRegistrationOptions) -> types.ServerCapabilities:
    return types.ServerCapabilities(
        workspace=types.WorkspaceOptions(file_operations=types.FileOperationOptions(**members))
    )


def rename(old: str, new: str) -> dict[str, str]:
    return {"oldUri": (ROOT / old).as_uri(), "newUri": (ROOT / new).as_uri()}


async def three_children() -> tuple[Setup, ScriptedChild, ScriptedChild, ScriptedChild]:
    setup = Setup()
    go = await setup.child("api/a.go")
    web = await setup.child("web/a.ts")
    py = await setup.child("py/a.py")
    go._capabilities = operations(will_rename=registration(("**/*.go", None)), did_rename=registration(("**", None)))
    web._capabilities = operations(will_rename=registration(("**/*.{ts,js}", None)))
    py._capabilities = operations(will_rename=registration(("**/*", None)))
    return setup, go, web, py


async def test_will_rename_asks_each_child_of_its_own_files_and_merges_their_edits() -> None:
    setup, go, web, py = await three_children()
    go.answers[types.WORKSPACE_WILL_RENAME_FILES] = {"changes": {(ROOT / "api/b.go").as_uri(): [text_edit("g")]}}
    web.answers[types.WORKSPACE_WILL_RENAME_FILES] = {"changes": {(ROOT / "web/b.ts").as_uri(): [text_edit("t")]}}
    files = [rename("api/a.go", "api/z.go"), rename("web/a.ts", "web/z.ts"), rename("web/a.css", "web/z.css")]
    merged = await setup.router.files(types.WORKSPACE_WILL_RENAME_FILES, {"files": files})
    assert merged == {
        "changes": {(ROOT / "api/b.go").as_uri(): [text_edit("g")], (ROOT / "web/b.ts").as_uri(): [text_edit("t")]}
    }
    assert go.asked == [(types.WORKSPACE_WILL_RENAME_FILES, {"files": [files[0]]})]
    assert web.asked == [(types.WORKSPACE_WILL_RENAME_FILES, {"files": [files[1]]})]  # not the stylesheet
    assert py.asked == []  # none of its root's files


async def test_a_failing_or_slow_child_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(router_module, "WORKSPACE_SYMBOL_TIMEOUT", 0.05)
    setup, go, web, py = await three_children()
    go.answers[types.WORKSPACE_WILL_RENAME_FILES] = ChildFailed("gopls was killed by SIGKILL")
    web.answers[types.WORKSPACE_WILL_RENAME_FILES] = {"changes": {(ROOT / "web/b.ts").as_uri(): [text_edit("t")]}}

    async def never(method: str, params: Any) -> Any:
        await asyncio.Event().wait()

    py.request = never  # type: ignore[method-assign]
    files = [rename("api/a.go", "api/z.go"), rename("web/a.ts", "web/z.ts"), rename("py/a.py", "py/z.py")]
    merged = await asyncio.wait_for(setup.router.files(types.WORKSPACE_WILL_RENAME_FILES, {"files": files}), 5)
    assert merged == {"changes": {(ROOT / "web/b.ts").as_uri(): [text_edit("t")]}}


async def test_no_child_concerned_is_a_null_edit() -> None:
    setup, go, web, py = await three_children()
    files = [rename("notes/a.md", "notes/b.md")]
    assert await setup.router.files(types.WORKSPACE_WILL_RENAME_FILES, {"files": files}) is None
    assert await setup.router.files(types.WORKSPACE_WILL_DELETE_FILES, {"files": files}) is None
    assert go.asked == web.asked == py.asked == []


async def test_did_rename_is_told_only_to_the_children_whose_filters_match() -> None:
    setup, go, web, py = await three_children()
    told: list[tuple[str, str, Any]] = []

    def telling(child: ScriptedChild) -> Callable[[str, Any], None]:
        return lambda method, params: told.append((child.spec.language, method, params))

    for child in (go, web, py):
        child.notify = telling(child)  # type: ignore[method-assign,assignment]
    files = [rename("api/a.go", "api/b.go"), rename("web/a.ts", "web/b.ts")]
    setup.router.files_done(types.WORKSPACE_DID_RENAME_FILES, {"files": files})
    assert told == [("go", types.WORKSPACE_DID_RENAME_FILES, {"files": [files[0]]})]
    setup.router.files_done(types.WORKSPACE_DID_DELETE_FILES, {"files": files})  # no child takes it
    setup.router.files_done(types.WORKSPACE_DID_RENAME_FILES, {"files": "not a list"})
    assert len(told) == 1
