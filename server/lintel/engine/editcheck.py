"""check_edit / lintel.checkEdit: the findings a proposed content of a file would have, without writing it, as a
delta against the file on disk; and the diagnostics of a document open in the editor, for its current text."""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lintel.core.issues import Issue
from lintel.core.results import RunResult, run_state, state_json
from lintel.engine import actions, settled
from lintel.engine.actions import CommandArgs, FileDiagnostics, Folder
from lintel.engine.detect import is_inside, nearest_project, normalize_language
from lintel.engine.edits import EditError, apply_edits, line_spans
from lintel.languages import Project

OnStart = Callable[[int], None]


@dataclass(frozen=True)
class OpenDocument:
    """A document the editor has open: its text now and the version the editor gave it."""

    text: str
    version: int


class Servers(Protocol):
    """The front end's child language servers, asked for their diagnostics of a text (None: none serves it)."""

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None: ...


@dataclass
class EditCheck:
    """The answer of check_edit: the proposed text's findings against the file's on disk."""

    file: str  # relative to the workspace root, with `/`
    language: str
    content_hash: str
    base_hash: str | None  # None: the file does not exist yet
    new: list[Issue]
    fixed: list[Issue]
    unchanged: int
    runs: list[RunResult]  # the runs on the proposed text
    base_runs: list[RunResult]  # the same runs on the file on disk

    @property
    def partial(self) -> list[RunResult]:
        return settled.incomplete([*self.runs, *self.base_runs])

    @property
    def ok(self) -> bool:
        return not self.new and not self.partial

    def to_json(self) -> dict[str, Any]:
        base = {(run.tool, run.check): run for run in self.base_runs}
        runs = []
        for run in self.runs:
            entry = {**run.result_json(), "tool": run.tool, **state_json(run)}
            before = base.get((run.tool, run.check))
            if before is not None:
                entry["baseState"], entry["baseStateReason"] = run_state(before)
            runs.append(entry)
        return {
            "ok": self.ok,
            "check": "check_edit",
            "file": self.file,
            "language": self.language,
            "contentHash": self.content_hash,
            "baseHash": self.base_hash,
            "new": [issue.to_json() for issue in self.new],
            "fixed": [issue.to_json() for issue in self.fixed],
            "unchanged": self.unchanged,
            "counts": {"new": len(self.new), "fixed": len(self.fixed), "unchanged": self.unchanged},
            "runs": runs,
        }

    def head(self) -> str:
        """The summary's first line: `file: N new, M fixed, K unchanged (tools)`, after `partial: …` when a run on
        either text is not complete."""
        labels = [run_label(run, self.runs) for run in self.runs if run_state(run)[0] == "complete"]
        tools = ", ".join(dict.fromkeys(labels)) or "no tool ran"
        counts = f"{len(self.new)} new, {len(self.fixed)} fixed, {self.unchanged} unchanged ({tools})"
        others = " from the other tools" if labels else ""
        partial = settled.partial_head(self.partial, f"{self.file}: {counts}{others}")
        return partial or f"{self.file}: {counts}"


def run_label(run: RunResult, runs: Sequence[RunResult]) -> str:
    """A run's tool as a summary names it: `ruff format` where the same tool also lints."""
    shared = any(other is not run and other.tool == run.tool for other in runs)
    return f"{run.tool} {run.check}" if shared and run.check == "format" else run.tool


# -- the delta ---------------------------------------------------------------------------------------------------


def _key(issue: Issue, lines: Sequence[str]) -> tuple[str, str | None, str, str]:
    """What an issue is, wherever its line moved: its tool, rule, message and the text of its line."""
    line = lines[issue.line - 1].strip() if issue.line is not None and 0 < issue.line <= len(lines) else ""
    return (issue.source, issue.rule, issue.message, line)


def _lines(text: str) -> list[str]:
    return [text[start:end] for start, end in line_spans(text)]


def _edited_blocks(old_lines: Sequence[str], new_lines: Sequence[str]) -> list[tuple[range, range]]:
    """The blocks of lines the edit replaced: (old line numbers, new line numbers), 1-based."""
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [
        (range(i1 + 1, i2 + 1), range(j1 + 1, j2 + 1))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag == "replace"
    ]


def delta(
    before: Sequence[Issue], before_text: str, after: Sequence[Issue], after_text: str
) -> tuple[list[Issue], list[Issue], int]:
    """(new, fixed, unchanged): the findings matched as a multiset by (source, rule, message, line text), so one
    that only moved to another line is unchanged; then, of those left, one on a line the edit rewrote matched by
    (source, rule, message) to one on the lines that line replaced (an edit elsewhere on a finding's line)."""
    old_lines, new_lines = _lines(before_text), _lines(after_text)
    waiting: dict[tuple[str, str | None, str, str], list[Issue]] = {}
    for issue in before:
        waiting.setdefault(_key(issue, old_lines), []).append(issue)
    left: list[Issue] = []
    unchanged = 0
    for issue in after:
        matched = waiting.get(_key(issue, new_lines))
        if matched:
            matched.pop(0)
            unchanged += 1
        else:
            left.append(issue)
    fixed = [issue for rest in waiting.values() for issue in rest]
    new: list[Issue] = []
    blocks = _edited_blocks(old_lines, new_lines)
    for issue in left:
        same = next(
            (
                old
                for olds, news in blocks
                if issue.line in news
                for old in fixed
                if old.line in olds and (old.source, old.rule, old.message) == (issue.source, issue.rule, issue.message)
            ),
            None,
        )
        if same is None:
            new.append(issue)
        else:
            fixed.remove(same)
            unchanged += 1
    return new, fixed, unchanged


def findings(runs: Sequence[RunResult]) -> list[Issue]:
    """The findings of runs that are complete on their text (a timed-out run's note is not a finding)."""
    return [i for run in runs if run_state(run)[0] == "complete" for i in run.issues if i.kind != "timeout"]


# -- the request -------------------------------------------------------------------------------------------------


def edit_target(command: str, folders: Sequence[Folder], args: CommandArgs) -> tuple[Folder, Path, bool]:
    """The folder and the file check_edit names, and whether it exists: a file not created yet may be checked with
    `content` (its folder confined like any path), never with `edits`."""
    if args.file is None:
        raise actions.invalid(f"{command}: file: Field required")
    if (args.content is None) == (args.edits is None):
        raise actions.invalid(f"{command}: pass exactly one of `content` (the whole text) or `edits`")
    if not folders:
        raise actions.failed("no workspace folder is open")
    shown = args.file if len(args.file) <= 200 else f"{args.file[:200]}…"
    try:
        raw = Path(args.file).expanduser()
        candidate = raw if raw.is_absolute() else folders[0].root / raw
        exists = "\0" not in args.file and candidate.exists()
    except (OSError, ValueError):
        exists = False
    if exists or "\0" in args.file:
        folder, path = actions.inside(folders, args.file, what="file")
        if not path.is_file():
            raise actions.invalid(f"file {shown!r} is not a file")
        return folder, path, True
    if args.edits is not None:
        raise actions.invalid(f"file {shown!r} does not exist: `edits` need a file to apply to (pass `content`)")
    try:
        resolved = candidate.resolve()
    except (OSError, ValueError) as exc:
        raise actions.invalid(f"file {shown!r} cannot be used: {exc}") from exc
    owner = actions.folder_for(folders, resolved)
    if owner is None or not is_inside(resolved, owner.root):
        raise actions.invalid(f"file {shown!r} is outside the workspace; lintel only runs inside it")
    return owner, resolved, False


def _decoded(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise actions.invalid(f"file {shown!r} is not UTF-8 text; lintel cannot check an edit of it") from exc


def proposed_text(command: str, args: CommandArgs, disk: str | None) -> str:
    if args.content is not None:
        return args.content
    assert disk is not None
    assert args.edits is not None
    try:
        return apply_edits(disk, args.edits)
    except EditError as exc:
        raise actions.invalid(f"{command}: {exc}") from exc


def _with_server(runs: list[RunResult], server: RunResult | None) -> list[RunResult]:
    """The runs on a text and the child server's diagnostics of it; a tool that reads files only is said to be
    covered by the server when the server answered."""
    if server is None:
        return runs
    if run_state(server)[0] == "complete":
        for run in runs:
            if run.reason == settled.READS_FILES_ONLY:
                run.reason = f"{settled.READS_FILES_ONLY}; checked through {server.tool} instead"
    return [*runs, server]


async def with_server_diagnostics(
    servers: Servers, folder: Folder, path: Path, found: FileDiagnostics
) -> FileDiagnostics:
    """`found` with the file's language server's diagnostics of the same text (the open document's, else the file's
    on disk, as `found` describes it)."""
    document = found.text
    if document is None:
        try:
            document = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return found  # unreadable or not UTF-8: the language server would not see what the tools saw
    found.runs = _with_server(found.runs, await servers.server_diagnostics(folder, path, document))
    return found


async def check_edit(
    command: str, servers: Servers, folders: Sequence[Folder], args: CommandArgs, *, trusted: bool, on_start: OnStart
) -> EditCheck:
    """The proposed text's findings (lint and format on stdin, the child server's diagnostics) against those of the
    file on disk, found the same way; nothing is written."""
    folder, path, exists = edit_target(command, folders, args)
    shown = args.file or str(path)
    disk_bytes = path.read_bytes() if exists else None
    disk = _decoded(disk_bytes, shown) if disk_bytes is not None else None
    text = proposed_text(command, args, disk)
    language = normalize_language(args.language)
    project = nearest_project(path, folder.root, language=language, languages=folder.languages)
    if project is None:
        raise actions.failed(f"no project of lintel's languages owns {shown!r}")
    actions.require_trust(trusted)
    options: dict[str, Any] = {"workspace": folder.root, "config": folder.config, "timeout": args.timeout}
    after, before = await asyncio.gather(
        settled.text_runs(project, path, text, **options, on_start=on_start),
        settled.text_runs(project, path, disk, **options, on_start=on_start) if disk is not None else _nothing(),
    )
    # One text at a time: the child server holds one content per document.
    after = _with_server(after, await servers.server_diagnostics(folder, path, text))
    if disk is not None:
        before = _with_server(before, await servers.server_diagnostics(folder, path, disk))
    new, fixed, unchanged = delta(findings(before), disk or "", findings(after), text)
    return EditCheck(
        file=path.relative_to(folder.root.resolve()).as_posix(),
        language=project.language,
        content_hash=settled.text_hash(text),
        base_hash=settled.content_hash(disk_bytes) if disk_bytes is not None else None,
        new=new,
        fixed=fixed,
        unchanged=unchanged,
        runs=after,
        base_runs=before,
    )


async def _nothing() -> list[RunResult]:
    return []


# -- an open document's diagnostics ------------------------------------------------------------------------------


async def document_diagnostics(
    opened: Callable[[Path], OpenDocument | None],
    folder: Folder,
    path: Path,
    project: Project,
    args: CommandArgs,
    *,
    on_start: OnStart,
) -> FileDiagnostics | None:
    """The findings of the document's current text and its version: its text through stdin (the saved file when
    the text is what is on disk, so a tool that reads files only runs too), checked again while the editor changed
    it during the runs; None when the document is not open."""
    name = path.relative_to(folder.root.resolve()).as_posix()
    found: FileDiagnostics | None = None
    for _ in range(settled.SETTLE_ATTEMPTS):
        document = opened(path)
        if document is None:
            return found
        try:
            saved = path.read_bytes() == document.text.encode("utf-8")
        except OSError:
            saved = False
        if saved:
            runs, _ = await settled.disk_runs(
                project, path, workspace=folder.root, config=folder.config, timeout=args.timeout, on_start=on_start
            )
        else:
            runs = await settled.text_runs(
                project,
                path,
                document.text,
                workspace=folder.root,
                config=folder.config,
                timeout=args.timeout,
                on_start=on_start,
            )
        found = FileDiagnostics(
            name, project.language, runs, settled.text_hash(document.text), document.version, document.text
        )
        now = opened(path)
        if now is None or now.version == document.version:
            return found
    return found
