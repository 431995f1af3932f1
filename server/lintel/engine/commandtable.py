"""The one table of lintel's commands: each with its LSP name (`lintel.lint`), its MCP tool name (`run_lint`), its
arguments and the action that carries it out. The LSP `Commands` and the MCP tools are both made from it.

An action takes a typed request (the name it was called by, its arguments) and the front end's hooks (`Front`:
the workspace, trust, progress, publishing) and returns a typed report; each front end turns that into its answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lintel.engine import actions, editcheck
from lintel.engine.actions import CommandArgs, FileDiagnostics, Folder
from lintel.engine.checks import RunResult
from lintel.engine.coverage import CoverageStore
from lintel.engine.detect import normalize_language
from lintel.engine.detect_report import DetectReport
from lintel.engine.editcheck import EditCheck, OpenDocument
from lintel.engine.fixrun import FixOutcome
from lintel.engine.testdiscovery import TestIndex
from lintel.engine.testlist import TestList, list_tests
from lintel.engine.testruns import nothing_to_rerun
from lintel.engine.validators import ValidateResult, run_validators
from lintel.engine.validators import select as select_validators
from lintel.languages import CheckName, Project
from lintel.languages.base import Selection

OnStart = Callable[[int], None]


class Front(Protocol):
    """What a front end lends one command call: the workspace folders, whether tools may run there, and its own
    ways of showing progress and publishing results (an editor shows diagnostics; an agent reads the report)."""

    @property
    def folders(self) -> Sequence[Folder]: ...

    @property
    def trusted(self) -> bool: ...

    @property
    def coverage(self) -> CoverageStore: ...

    @property
    def tests(self) -> TestIndex:
        """The tests found so far (each file's by its stamp, each project's last collection), for discoverTests."""
        ...

    @property
    def fixes_need_a_target(self) -> bool:
        """Whether fixing needs a `file` or `path` (the editor's command) or may fix the whole workspace."""
        ...

    def progress(self, title: str) -> AbstractAsyncContextManager[OnStart]:
        """Progress shown from entering to leaving; the callback it yields is told the tool's pid."""
        ...

    def publish(self, folder: Folder, result: RunResult, channel: str, scope: Path | Sequence[Path]) -> None: ...

    def publish_validation(self, folder: Folder, result: ValidateResult) -> None: ...

    async def restart_servers(self, language: str | None) -> Any: ...

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None:
        """The child language server's diagnostics of `text` as the content of `file` (check "typecheck", tool and
        source the server's name, 1-based code-point columns, `timed_out` when it did not answer in time); None
        when no language server serves the file."""
        ...

    def open_document(self, file: Path) -> OpenDocument | None:
        """The editor's open document of `file` (resolved): its text and version; None when it is not open."""
        ...


@dataclass(frozen=True)
class CommandRequest:
    """One call of a command: the name the caller used (messages start with it) and its arguments."""

    name: str
    args: CommandArgs


# -- the reports ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ran:
    """A run's RunResult: a check, tests, a script, coverage."""

    result: RunResult

    def to_json(self) -> dict[str, Any]:
        return self.result.result_json()


@dataclass(frozen=True)
class LastTestRun:
    """The project's last test run, without running anything; None when none was recorded."""

    project: Project
    where: str  # the project's root, relative to the workspace
    result: RunResult | None

    def to_json(self) -> dict[str, Any] | None:
        return self.result.result_json() if self.result is not None else None


@dataclass(frozen=True)
class Covering:
    """The tests that run a line: `{file, line, tests, granularity, covered, executable, source, note?}`."""

    answer: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return self.answer


@dataclass(frozen=True)
class Validation:
    results: list[ValidateResult]

    def to_json(self) -> list[dict[str, Any]]:
        return [r.to_json() for r in self.results]


@dataclass(frozen=True)
class Restarted:
    """What the front end's restart of the language servers answered."""

    answer: Any

    def to_json(self) -> Any:
        return self.answer


CommandReport = (
    Ran
    | LastTestRun
    | Covering
    | Validation
    | Restarted
    | FileDiagnostics
    | FixOutcome
    | DetectReport
    | EditCheck
    | TestList
)
Action = Callable[[Front, CommandRequest], Awaitable[CommandReport]]


# -- the arguments ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Arguments:
    """The CommandArgs fields a command takes and those it needs: its MCP input schema and its checking."""

    fields: tuple[str, ...]
    required: tuple[str, ...] = ()

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments, with CommandArgs' descriptions (what agents read)."""
        full = CommandArgs.model_json_schema()
        properties = _inline(full["properties"], full.get("$defs", {}))
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {name: _plain(properties[name]) for name in self.fields},
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def parse(self, name: str, arguments: Any, *, only_listed: bool) -> CommandArgs:
        """The arguments validated (actions.parse_args: a bad one is an `invalid` error naming the field). With
        `only_listed` (MCP) a field this command does not take is refused as an unknown one and a required one
        must be there; an editor's command takes every field and says itself what it misses."""
        args = actions.parse_args(name, arguments)
        if not only_listed:
            return args
        unknown = sorted(args.model_fields_set - {*self.fields})
        problems = [f"{field}: Extra inputs are not permitted" for field in unknown]
        problems += [f"{field}: Field required" for field in self.required if getattr(args, field) is None]
        if problems:
            raise actions.invalid(f"{name}: {'; '.join(problems)}")
        return args


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """`{"$ref": "#/$defs/X"}` replaced by X itself: each schema stands alone (no shared `$defs`)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """pydantic's `anyOf [T, null]` for an optional field as the plain type: the field is simply left out."""
    out = {k: v for k, v in schema.items() if k not in ("anyOf", "default", "title")}
    choices = [c for c in schema.get("anyOf", ()) if c.get("type") != "null"]
    if len(choices) == 1:
        out = {**choices[0], **out}
    return out


@dataclass(frozen=True)
class Command:
    """One command: its names over each protocol (None: not offered there), arguments, action, and the text an
    agent reads about it."""

    lsp: str | None
    mcp: str | None
    arguments: Arguments
    action: Action
    description: str = ""


# -- the actions -------------------------------------------------------------------------------------------------


def _project(front: Front, args: CommandArgs) -> tuple[Folder, Project]:
    folder, project = actions.project(front.folders, args)
    actions.require_trust(front.trusted)
    return folder, project


async def _run_check(
    front: Front, request: CommandRequest, check: CheckName, *, scope: str | None = None
) -> CommandReport:
    folder, project = _project(front, request.args)
    actions.require_check(request.name, project, check)
    async with front.progress(f"lintel: {project.language} {check}") as on_start:
        result = await actions.run_project_check(
            request.name, folder, project, check, request.args, trusted=front.trusted, on_start=on_start
        )
    result.scope = scope
    front.publish(folder, result, check, project.root)
    return Ran(result)


def check_action(check: CheckName) -> Action:
    async def action(front: Front, request: CommandRequest) -> CommandReport:
        return await _run_check(front, request, check)

    return action


async def _run_selection(
    front: Front, request: CommandRequest, folder: Folder, project: Project, selection: Selection, scope: str | None
) -> CommandReport:
    async with front.progress(f"lintel: {project.language} test (subset)") as on_start:
        result = await actions.run_test_selection(folder, project, selection, request.args, on_start=on_start)
    result.scope = scope
    # Only the files the subset covers (and those it mentions) get their test diagnostics replaced.
    front.publish(folder, result, "test", list(selection.files))
    return Ran(result)


async def run_tests(front: Front, request: CommandRequest) -> CommandReport:
    """With `tests`, or a `path` naming a test file or folder, only those tests (their files' test diagnostics
    replaced, the record too); otherwise the whole suite. `scope` in the result says which."""
    folder, project = _project(front, request.args)
    _, where = actions.target(front.folders, request.args)
    scope = actions.test_scope(request.name, folder, project, request.args, where)
    if scope.selection is None:
        return await _run_check(front, request, "test", scope=scope.text)
    return await _run_selection(front, request, folder, project, scope.selection, scope.text)


async def run_failing_tests(front: Front, request: CommandRequest) -> CommandReport:
    """The failures of the project's last test run, rerun; the record becomes this run's. After a run that
    passed nothing runs (an ok result saying so) and the record stays."""
    folder, project = _project(front, request.args)
    selection = actions.failing_tests_selection(request.name, folder, project)
    if selection is None:
        last = actions.last_test_run(folder, project)
        assert last is not None  # without a record the selection was refused
        return Ran(nothing_to_rerun(project, last))
    return await _run_selection(front, request, folder, project, selection, None)


async def last_test_failures(front: Front, request: CommandRequest) -> CommandReport:
    folder, project = actions.project(front.folders, request.args)
    return LastTestRun(project, project.relative_root(folder.root), actions.last_test_run(folder, project))


async def run_script(front: Front, request: CommandRequest) -> CommandReport:
    folder, project = _project(front, request.args)
    script = actions.check_script(request.name, project, request.args)  # refused before any progress is shown
    async with front.progress(f"lintel: {project.language} script {script}") as on_start:
        result = await actions.run_package_script(
            request.name, folder, project, request.args, trusted=front.trusted, on_start=on_start
        )
    return Ran(result)


async def coverage(front: Front, request: CommandRequest) -> CommandReport:
    """The project's tests run with coverage: a RunResult with a `coverage` summary; the index is kept for
    tests_covering."""
    folder, project = _project(front, request.args)
    async with front.progress(f"lintel: {project.language} coverage") as on_start:
        result = await actions.run_coverage(
            request.name, folder, project, request.args, front.coverage, trusted=front.trusted, on_start=on_start
        )
    return Ran(result)


async def tests_covering(front: Front, request: CommandRequest) -> CommandReport:
    """`{file, line}` -> the tests that run that line, from the project's last coverage run (run first when
    there is none, or the file changed since)."""
    args = request.args
    folder, project, file = actions.covering_target(request.name, front.folders, args)
    actions.require_trust(front.trusted)
    async with front.progress(f"lintel: tests covering {file.name}:{args.line}") as on_start:
        answer = await actions.covering_tests(
            request.name, folder, project, file, args, front.coverage, trusted=front.trusted, on_start=on_start
        )
    return Covering(answer)


async def discover_tests(front: Front, request: CommandRequest) -> CommandReport:
    """The tests under `path` (or in `file`; everywhere without either) without running them: static, refined by the
    runner's own listing where the workspace is trusted (lintel.engine.testdiscovery)."""
    async with front.progress("lintel: finding tests"):
        return await list_tests(request.name, front.folders, request.args, trusted=front.trusted, index=front.tests)


async def detect(front: Front, request: CommandRequest) -> CommandReport:
    folder, where = actions.target(front.folders, request.args)
    return actions.detect(folder, where)


async def validate(front: Front, request: CommandRequest) -> CommandReport:
    """The configured validators (all, or `ids`), each one's issues published under its id."""
    folder, _ = actions.target(front.folders, request.args)
    actions.require_trust(front.trusted)
    try:
        chosen = select_validators(folder.config.validators, request.args.ids)
    except ValueError as exc:
        raise actions.invalid(f"{request.name}: {exc}") from exc
    async with front.progress("lintel: validators"):
        results = await run_validators(chosen, folder.root, concurrency=folder.config.validator_concurrency)
    for result in results:
        front.publish_validation(folder, result)
    return Validation(results)


async def fix_all(front: Front, request: CommandRequest) -> CommandReport:
    """The linters' fixes written (lintel.engine.fixrun), then the lint findings left published."""
    args = request.args
    named = args.file if args.file is not None else args.path
    if named is None and front.fixes_need_a_target:
        raise actions.invalid(f"{request.name}: path: Field required")
    async with front.progress("lintel: fix all"):
        outcome = await actions.fix_findings(request.name, front.folders, args, trusted=front.trusted)
    if not outcome.dry_run and outcome.files:
        folder, project = actions.project(front.folders, CommandArgs(path=named, language=args.language))
        for run in outcome.runs:
            front.publish(folder, run, "lint", project.root)
    return outcome


async def file_diagnostics(front: Front, request: CommandRequest) -> CommandReport:
    """The file's lint and format findings and its language server's diagnostics: of the editor's open document (its
    current text and version) when it is open, else of the file on disk."""
    args = request.args
    async with front.progress(f"lintel: diagnostics of {args.file}") as on_start:
        folder, path, project = actions.diagnostics_target(request.name, front.folders, args)
        actions.require_trust(front.trusted)
        found = await editcheck.document_diagnostics(
            front.open_document, folder, path, project, args, on_start=on_start
        )
        if found is None:
            found = await actions.file_diagnostics(
                request.name, front.folders, args, trusted=front.trusted, on_start=on_start
            )
        return await editcheck.with_server_diagnostics(front, folder, path, found)


async def check_edit(front: Front, request: CommandRequest) -> CommandReport:
    """A proposed content of a file checked without writing it, against the file on disk (lintel.engine.editcheck)."""
    async with front.progress(f"lintel: checking an edit of {request.args.file}") as on_start:
        return await editcheck.check_edit(
            request.name, front, front.folders, request.args, trusted=front.trusted, on_start=on_start
        )


async def restart_servers(front: Front, request: CommandRequest) -> CommandReport:
    """The language servers navigation goes to (of `language`, or all), restarted — a given-up one too."""
    if not front.trusted:
        raise actions.failed("this workspace is not trusted: lintel runs no language server here")
    return Restarted(await front.restart_servers(normalize_language(request.args.language)))


# -- the table -------------------------------------------------------------------------------------------------------

_TARGET = ("language", "path")
_RUN = (*_TARGET, "timeout")
_RESULT = (
    " Returns a RunResult: ok, argv, cwd, exitCode, timedOut, durationMs, output (capped), issues"
    " (file/line/column/severity/rule/message)"
)

COMMANDS: tuple[Command, ...] = (
    Command(
        "lintel.runTests",
        "run_tests",
        Arguments((*_RUN, "tests")),
        run_tests,
        "Run the project's tests (pytest, go test, cargo test, the package.json test script): all of them, only"
        " `tests`, or those in the test file or folder `path` names (a `path` naming the project or a source file"
        " runs the whole suite); `scope` in the result says which." + _RESULT + " and failures (name, file, line,"
        " message). Failing tests are a result (ok: false), not an error.",
    ),
    Command(
        "lintel.runFailingTests",
        "run_failing_tests",
        Arguments(_RUN),
        run_failing_tests,
        "Rerun exactly the tests that failed in the project's last run_tests (or run_failing_tests); the rerun"
        " becomes the last run. An error when no run was recorded: it never runs the whole suite." + _RESULT + ".",
    ),
    Command(
        "lintel.lastTestFailures",
        "last_test_failures",
        Arguments(_TARGET),
        last_test_failures,
        "The last run_tests result of the project (its failures), without running anything; nothing when no run"
        " was recorded since lintel started.",
    ),
    Command(
        "lintel.lint",
        "run_lint",
        Arguments(_RUN),
        check_action("lint"),
        "Lint the whole project (ruff, eslint or the lint script, golangci-lint, clippy)." + _RESULT + ".",
    ),
    Command(
        "lintel.typecheck",
        "run_typecheck",
        Arguments(_RUN),
        check_action("typecheck"),
        "Type-check the project (mypy/pyright, tsc or the typecheck script, go vet, cargo check)." + _RESULT + ".",
    ),
    Command(
        "lintel.format",
        "run_format_check",
        Arguments(_RUN),
        check_action("format"),
        "Check formatting without changing files (ruff format --diff, prettier --check, gofmt -l, rustfmt --check)."
        + _RESULT
        + ": one per file that is not formatted.",
    ),
    Command(
        "lintel.runScript",
        "run_script",
        Arguments(("script", "args", *_RUN), required=("script",)),
        run_script,
        "Run a package.json script with the project's package manager (from its lock file: npm, pnpm, yarn, bun)."
        " An unknown script is an error listing the available ones." + _RESULT + "; a failing script is ok: false"
        " with one issue holding the end of its output.",
    ),
    Command(
        "lintel.testsCovering",
        "tests_covering",
        Arguments(("file", "line", "language", "timeout"), required=("file", "line")),
        tests_covering,
        "The tests that execute `file`:`line` (1-based), from the project's last coverage run (run first when there"
        " is none or the file changed since): call it before editing a function, then run_tests with those tests."
        " Returns {file, line, tests, granularity (test where the tool can tell, else file or package), covered,"
        " executable, source, note?}.",
    ),
    Command(
        "lintel.discoverTests",
        "list_tests",
        Arguments(("path", "file", "language")),
        discover_tests,
        "The tests of the workspace (or under `path`, or in `file`) without running them: pytest's, go test's,"
        " cargo test's and the JS runners' tests as their sources declare them (refined by `pytest --collect-only`"
        " where the workspace is trusted). Returns {tests: [{id, label, kind (file, suite or test), file, line,"
        " column, endLine, endColumn, parent?, language}]}; each `id` is what run_tests {tests} accepts.",
    ),
    Command(
        "lintel.detect",
        "detect",
        Arguments(("path",)),
        detect,
        "The projects under the workspace (or under `path`): language, root, the command each check would run,"
        " and whether every binary it needs was found. Runs nothing.",
    ),
    Command("lintel.validate", None, Arguments(("path", "ids")), validate),
    Command("lintel.restartServers", None, Arguments(("language",)), restart_servers),
    Command("lintel.coverage", None, Arguments(_RUN), coverage),
    Command(
        "lintel.fixAll",
        "apply_fixes",
        Arguments(("file", "path", "language", "rules", "unsafe", "dry_run", "timeout")),
        fix_all,
        "Apply the linters' own fixes (ruff --fix, eslint --fix, clippy --fix, golangci-lint --fix) to the project"
        " `file` or `path` names, only in that file or folder when it is inside the project, and only for `rules`"
        " when given; `unsafe` adds the tools' unsafe fixes; `dry_run` writes nothing. Returns {applied, files"
        " [{file, diff, fixes}], remaining (the issues left), dryRun}.",
    ),
    Command(
        "lintel.diagnostics",
        "diagnostics",
        Arguments(("file", "language", "timeout"), required=("file",)),
        file_diagnostics,
        "The lint and format findings for one file, as the editor shows them after a save: call it right after"
        " writing a file. Returns {ok, language, file, contentHash, issues, runs} (runs: the RunResult of each tool"
        " with its state: complete, timed_out, tool_missing or not_run, and stateReason). When a run is not"
        " complete the summary's first line starts with `partial:` — that is never a clean file.",
    ),
    Command(
        "lintel.checkEdit",
        "check_edit",
        Arguments(("file", "content", "edits", "language", "timeout"), required=("file",)),
        check_edit,
        "Check a proposed content of a file BEFORE writing it: the lint and format findings (and the language"
        " server's, where one runs) of `content` (the whole new text) or of `edits` applied to the file, as a delta"
        " against the file on disk; nothing is written. Returns {ok, file, contentHash, baseHash, new (the new"
        " issues in full), fixed, unchanged, counts, runs (each with state and stateReason)}. A tool that reads"
        " files only is a run with state not_run.",
    ),
)

LSP_COMMANDS = {c.lsp: c for c in COMMANDS if c.lsp is not None}
MCP_TOOLS = {c.mcp: c for c in COMMANDS if c.mcp is not None}
