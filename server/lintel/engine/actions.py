"""What the agent-facing commands do, without a protocol: their arguments, the project they act on (path
confinement, the polyglot and multi-project rules), trust, the run and its RunResult (docs/architecture.md, Commands and
MCP tools).

The command table (lintel.engine.commandtable) builds each command from these; the LSP commands and the MCP tools
are both made from that table, so both give the same results and the same error messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lintel.core.errors import BadArgument, NothingToRun, NotSupported
from lintel.core.issues import Issue, Severity
from lintel.core.results import state_json
from lintel.engine import settled
from lintel.engine.checks import RunResult, run_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import DetectionError, choose_project, is_inside, nearest_project, normalize_language
from lintel.engine.discover import Discovery, describe, discover, nearest_above
from lintel.engine.edits import RangeEdit, TextReplace
from lintel.engine.scripts import run_script, script_command
from lintel.languages import LANGUAGES, CheckName, Project, Registry
from lintel.languages.base import Selection

if TYPE_CHECKING:
    from lintel.engine.coverage import CoverageStore
    from lintel.engine.detect_report import DetectReport
    from lintel.engine.fixrun import FixOutcome

# Coverage, fixes, test runs and detection's report are imported by the actions that use them: a one-file check
# (the post-edit hook, the `diagnostics` tool) pays for none of them (docs/architecture.md, A fast start).

NOT_TRUSTED = "this workspace is not trusted: lintel runs no tools here"


class ActionError(Exception):
    """A command refused: `invalid` for a bad argument (LSP -32602), else one that could not be carried out
    (LSP -32803). The message is what the user sees, over either protocol."""

    def __init__(self, message: str, *, invalid: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.invalid = invalid


def invalid(message: str) -> ActionError:
    return ActionError(message, invalid=True)


def failed(message: str) -> ActionError:
    return ActionError(message)


class TestIdentity(BaseModel):
    """A test named by a TestFailure object (its other fields ignored), as lastTestFailures returns them."""

    model_config = ConfigDict(extra="ignore", strict=True)

    name: str = Field(description="The test's name as a TestFailure gives it.")
    file: str | None = None
    line: int | None = None


class CommandArgs(BaseModel):
    """The one argument object every command takes; the descriptions are what MCP clients show agents."""

    model_config = ConfigDict(extra="forbid", strict=True)

    language: str | None = Field(
        None,
        description=f"The project type to act on ({', '.join(LANGUAGES.names)}, or one lintel.toml declares); "
        "needed only where the workspace root holds several.",
    )
    path: str | None = Field(
        None,
        description="A file or folder inside the workspace (relative to its root, or absolute): the project is the "
        "nearest project root at or above it. Needed when the workspace holds several projects. For run_tests, a "
        "test file or a folder holding tests runs only those tests.",
    )
    timeout: float | None = Field(
        None, gt=0, description="Seconds before the run is killed (clamped to 1-1800; default per check)."
    )
    ids: list[str] | None = None  # lintel.validate only
    tests: list[str | TestIdentity] | None = Field(
        None,
        description="Run only these tests: each a test name as a failure reports it (a pytest node id, a Go test "
        "name, a cargo test path, a JS test title), a test file, `file:line` (the test at that line), or a failure "
        "object from a previous result. A test that matches nothing is an error, never a full run.",
    )
    script: str | None = Field(None, description="The package.json script to run (npm, pnpm, yarn or bun run).")
    args: list[str] | None = Field(None, description="Arguments passed on to the script.")
    file: str | None = Field(None, description="A file inside the workspace (relative to its root, or absolute).")
    line: int | None = Field(None, ge=1, description="A line of `file`, 1-based.")
    rules: list[str] | None = Field(None, description="Only the findings of these rules (as issues name them: F401).")
    unsafe: bool | None = Field(None, description="Apply the tools' unsafe fixes too (default: safe ones only).")
    dry_run: bool | None = Field(
        None, description="Write nothing: answer the diff each file would get and what would be left."
    )
    content: str | None = Field(
        None, description="check_edit: the file's whole proposed text (a file not created yet may be checked too)."
    )
    edits: list[RangeEdit | TextReplace] | None = Field(
        None,
        description="check_edit: edits of the file on disk, in order: {oldText, newText} (oldText must match exactly"
        " once) or {line, column, endLine, endColumn, newText} (1-based, columns in characters, end excluded).",
    )
    max_issues: int | None = Field(
        None, ge=1, description="At most this many issues in the answer, most severe first (default 50 over MCP)."
    )
    severity: Severity | None = Field(None, description="Only issues at or above this severity (default: hint, all).")


def parse_args(command: str, arguments: Any) -> CommandArgs:
    """A command's arguments (zero, or one object) validated; a bad one is an `invalid` error naming the field."""
    values = list(arguments or [])
    if not values:
        return CommandArgs()
    if len(values) > 1 or not isinstance(values[0], dict):
        raise invalid(f"{command}: expected no argument or one object {{language?, path?, timeout?}}")
    try:
        return CommandArgs.model_validate(values[0])
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'argument'}: {e['msg']}" for e in exc.errors())
        raise invalid(f"{command}: {problems}") from exc


class Folder(Protocol):
    """A workspace folder as the commands need it (the server's session.Folder; lintel.frontends.mcp's workspace)."""

    root: Path
    config: LintelConfig
    languages: Registry
    # (project root, language) -> its last test run: each project of a monorepo keeps its own.
    last_tests: dict[tuple[Path, str], RunResult]


F = TypeVar("F", bound=Folder)


def folder_for(folders: Sequence[F], path: Path) -> F | None:
    """The innermost workspace folder that holds `path` (after symlinks)."""
    holders = [f for f in folders if is_inside(path, f.root)]
    return max(holders, key=lambda f: len(f.root.parts), default=None)


def _shown(path: str) -> str:
    return path if len(path) <= 200 else f"{path[:200]}…"


def inside(folders: Sequence[F], path: str, *, what: str = "path") -> tuple[F, Path]:
    """The folder holding `path` (relative to the first folder, or absolute) and the path resolved: a path
    outside every folder, or one that does not exist, is refused (path confinement)."""
    if not folders:
        raise failed("no workspace folder is open")
    shown = _shown(path)
    if "\0" in path:
        # Said before the confinement check, which would call it outside the workspace (it cannot resolve).
        raise invalid(f"{what} {shown!r} is not a valid path: it contains a NUL byte")
    try:
        raw = Path(path).expanduser()
        candidate = raw if raw.is_absolute() else folders[0].root / raw
        owner = folder_for(folders, candidate)
        if owner is None or not is_inside(candidate, owner.root):
            raise invalid(f"{what} {shown!r} is outside the workspace; lintel only runs inside it")
        if not candidate.exists():
            raise invalid(f"{what} {shown!r} does not exist")
        return owner, candidate.resolve()
    except (OSError, ValueError) as exc:
        # A name too long for the file system, a NUL byte: the argument is wrong, not the server.
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise invalid(f"{what} {shown!r} cannot be used: {reason}") from exc


def target(folders: Sequence[F], args: CommandArgs) -> tuple[F, Path]:
    """The workspace folder a command acts on and the path inside it it names (the folder's root without one)."""
    if not folders:
        raise failed("no workspace folder is open")
    if args.path is None:
        return folders[0], folders[0].root
    return inside(folders, args.path)


def project(folders: Sequence[F], args: CommandArgs) -> tuple[F, Project]:
    """The project a command acts on: the nearest project root at or above `path` (a file's own language
    first); a folder holding several projects below it, or the workspace without `path`, must hold one."""
    folder, where = target(folders, args)
    languages = folder.languages
    try:
        if args.path is not None:
            near = nearest_above(where, languages, stop=folder.root.resolve())
            if near:
                return folder, choose_project(near, args.language, languages)
        place_dir = where if where.is_dir() else where.parent
        discovery = discover(
            place_dir, languages, exclude=folder.config.projects.exclude, examples=folder.config.projects.examples
        )
        place = "workspace" if place_dir == folder.root else place_dir.relative_to(folder.root.resolve()).as_posix()
        return folder, one_of(discovery, args.language, languages, place)
    except DetectionError as exc:
        raise failed(str(exc)) from exc


def one_of(discovery: Discovery, language: str | None, languages: Registry, place: str) -> Project:
    """The one project (a workspace root stands for its members) under a folder, or the contract's error."""
    units = discovery.units()
    at_top = [f.project for f in units if f.root == discovery.root]
    if len(at_top) == len(units):
        # Only the folder's own markers: the polyglot rule (pass `language`) as ever.
        return choose_project(at_top, language, languages)
    wanted = normalize_language(language)
    if wanted is not None:
        detected = ", ".join(dict.fromkeys(f.language for f in units))
        units = [f for f in units if f.language == wanted]
        if not units:
            raise DetectionError(f'language "{wanted}" not detected in {place}; detected: {detected}')
    if len(units) == 1:
        return units[0].project
    raise DetectionError(
        f"{len(units)} projects found in {place} ({describe(units, discovery)}) — pass `path` to pick one"
    )


def require_trust(trusted: bool) -> None:
    if not trusted:
        raise failed(NOT_TRUSTED)


def require_check(command: str, project: Project, check: CheckName) -> None:
    """A language the user declared without a command for this check: the contract's "not supported" error."""
    if check not in project.spec.checks:
        raise failed(
            f"{command} is not supported for {project.language} projects yet "
            f"(set languages.{project.language}.{check} in lintel.toml)"
        )


def must_have_run(result: RunResult, check: str) -> RunResult:
    """A tool that is missing or could not start is an error the user must act on, not a result (docs/architecture.md,
    Commands and MCP tools); one that ran and failed is a result."""
    if result.status == "not_checked" and result.exit_code is None and not result.timed_out:
        raise failed(result.reason or f"{check}: could not run")
    return result


async def run_project_check(
    command: str,
    folder: Folder,
    project: Project,
    check: CheckName,
    args: CommandArgs,
    *,
    trusted: bool,
    on_start: Callable[[int], None] | None = None,
) -> RunResult:
    """`check` run for the project a command chose; a test run is kept as the project's last one."""
    require_trust(trusted)
    require_check(command, project, check)
    result = await run_check(
        project, check, workspace=folder.root, config=folder.config, timeout=args.timeout, on_start=on_start
    )
    must_have_run(result, check)
    if check == "test":
        folder.last_tests[(project.root, project.language)] = result
    return result


@contextmanager
def engine_refusals() -> Iterator[None]:
    """lintel.core.errors raised by the test-run and script engines, as the commands' errors."""
    try:
        yield
    except BadArgument as exc:
        raise invalid(str(exc)) from exc
    except (NotSupported, NothingToRun) as exc:
        raise failed(str(exc)) from exc


def test_selection(command: str, folder: Folder, project: Project, args: CommandArgs) -> Selection:
    """What runs for `args.tests` (lintel.engine.testruns): an identity that matches no test is refused, never a full
    run."""
    from lintel.engine.testruns import select_tests

    tests = [t if isinstance(t, str) else t.model_dump() for t in args.tests or []]
    with engine_refusals():
        return select_tests(project, tests, workspace=folder.root, config=folder.config, command=command)


def failing_tests_selection(command: str, folder: Folder, project: Project) -> Selection | None:
    """What reruns the failures of the project's last test run; None when that run had none. With no run
    recorded it is refused: the whole suite never runs in its place."""
    from lintel.engine.testruns import failing_selection

    with engine_refusals():
        return failing_selection(
            project, last_test_run(folder, project), workspace=folder.root, config=folder.config, command=command
        )


async def run_test_selection(
    folder: Folder,
    project: Project,
    selection: Selection,
    args: CommandArgs,
    *,
    on_start: Callable[[int], None] | None = None,
) -> RunResult:
    """A selection run (each of its commands in turn); it becomes the project's last test run. A name the run
    shows matched no test (go test's `-run`) is refused then, and nothing is recorded."""
    from lintel.engine.testruns import run_selection

    with engine_refusals():
        result = await run_selection(
            project, selection, workspace=folder.root, config=folder.config, timeout=args.timeout, on_start=on_start
        )
    folder.last_tests[(project.root, project.language)] = must_have_run(result, "test")
    return result


@dataclass(frozen=True)
class TestScope:
    """What runTests runs — a selection (`tests`, or a `path` naming a test file or folder) or the whole suite
    (None) — and the sentence the result's `scope` carries."""

    __test__ = False  # not a pytest test class

    selection: Selection | None
    text: str


def test_scope(command: str, folder: Folder, project: Project, args: CommandArgs, where: Path | None) -> TestScope:
    """`tests` names tests; else a `path` (`where`, resolved) naming a test file or folder runs those tests; a
    path naming the project, a source file or a folder without tests only picks the project (the whole suite)."""
    if args.tests is not None:
        return TestScope(test_selection(command, folder, project, args), "the tests named in `tests`")
    whole = f"the whole suite of the {project.language} project at {project.relative_root(folder.root.resolve())}"
    if args.path is None or where is None:
        return TestScope(None, whole)
    shown = _relative_to(where, folder.root)
    from lintel.engine.testruns import path_selection

    try:
        selection = path_selection(project, where, workspace=folder.root, config=folder.config, command=command)
    except BadArgument as exc:  # tests lintel cannot narrow to (a `test` script whose runner it cannot tell)
        return TestScope(None, f"{whole} (`path` {shown} names tests, but {exc})")
    if selection is not None:
        return TestScope(selection, f"the tests in {shown} (`path`)")
    if where == project.root.resolve():
        return TestScope(None, f"{whole} (`path` names the project; name a test file or folder to run only its tests)")
    return TestScope(None, f"{whole} (`path` {shown} is not a test file or a folder holding tests)")


def _relative_to(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return str(path)


def check_script(command: str, project: Project, args: CommandArgs) -> str:
    """The script `args` names, refused before anything starts: none given, a project that is not node, a
    script package.json does not define (the message lists those it does)."""
    if args.script is None:
        raise invalid(f"{command}: `script` is required")
    with engine_refusals():
        script_command(project, args.script, args.args or (), command=command)
    return args.script


async def run_package_script(
    command: str,
    folder: Folder,
    project: Project,
    args: CommandArgs,
    *,
    trusted: bool,
    on_start: Callable[[int], None] | None = None,
) -> RunResult:
    """A package.json script with the project's package manager (lintel.scripts)."""
    require_trust(trusted)
    script = check_script(command, project, args)
    with engine_refusals():
        result = await run_script(
            project,
            script,
            args.args or (),
            workspace=folder.root,
            config=folder.config,
            timeout=args.timeout,
            on_start=on_start,
            command=command,
        )
    return must_have_run(result, "script")


async def run_coverage(
    command: str,
    folder: Folder,
    project: Project,
    args: CommandArgs,
    store: CoverageStore,
    *,
    trusted: bool,
    on_start: Callable[[int], None] | None = None,
) -> RunResult:
    """The project's tests run with coverage (lintel.coverage): a RunResult with a `coverage` summary; the
    index goes to `store` for tests_covering."""
    from lintel.engine.coverage import CoverageUnsupported, Request, coverage

    require_trust(trusted)
    try:
        measurement = await coverage(Request(project, folder.root, folder.config, args.timeout, on_start), store)
    except CoverageUnsupported as exc:
        raise failed(exc.message(command)) from exc
    return must_have_run(measurement.result, "coverage")


def covering_target(command: str, folders: Sequence[F], args: CommandArgs) -> tuple[F, Project, Path]:
    """testsCovering's `{file, line}`: the file (inside the workspace) and the project that owns it."""
    if args.file is None or args.line is None:
        raise invalid(f"{command}: expected {{file, line}} (line 1-based)")
    folder, target = inside(folders, args.file)
    if not target.is_file():
        raise invalid(f"{command}: {args.file!r} is not a file")
    _, owner = project(folders, CommandArgs(path=str(target), language=args.language))
    return folder, owner, target


async def covering_tests(
    command: str,
    folder: Folder,
    project: Project,
    file: Path,
    args: CommandArgs,
    store: CoverageStore,
    *,
    trusted: bool,
    on_start: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The tests that run `file`:`args.line`, from the project's last coverage run (run first when there is
    none, or the file changed since)."""
    from lintel.engine.coverage import CoverageFailed, CoverageUnsupported, Request
    from lintel.engine.coverage import tests_covering as covering

    require_trust(trusted)
    assert args.line is not None  # covering_target checked it
    try:
        request = Request(project, folder.root, folder.config, args.timeout, on_start)
        return await covering(request, file, args.line, store)
    except CoverageUnsupported as exc:
        raise failed(exc.message(command)) from exc
    except CoverageFailed as exc:
        raise failed(f"{command}: {exc}") from exc


def last_test_run(folder: Folder, project: Project) -> RunResult | None:
    """The project's last test run, None when none was recorded."""
    return folder.last_tests.get((project.root, project.language))


def detect(folder: Folder, where: Path) -> DetectReport:
    """What `lintel detect --json` shows for the folder `where` names (a file's: its folder)."""
    from lintel.engine.detect_report import detect_report

    return detect_report(where if where.is_dir() else where.parent, folder.config)


@dataclass
class FileDiagnostics:
    """One file's findings after a save: its lint run and, with `editor.formatCheck`, its format run."""

    file: str  # relative to the workspace root, with `/`
    language: str
    runs: list[RunResult]
    content_hash: str | None = None  # of the bytes checked (settled.content_hash)
    version: int | None = None  # the editor's document version, when its open text was checked
    text: str | None = field(default=None, repr=False)  # that open text (None: the file on disk was checked)

    @property
    def issues(self) -> list[Issue]:
        return [issue for run in self.runs for issue in run.issues]

    @property
    def ok(self) -> bool:
        return all(run.ok for run in self.runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "language": self.language,
            "check": "diagnostics",
            "file": self.file,
            "issues": [issue.to_json() for issue in self.issues],
            "runs": [{**run.result_json(), "tool": run.tool, **state_json(run)} for run in self.runs],
            "contentHash": self.content_hash,
            **({"version": self.version} if self.version is not None else {}),
        }


def diagnostics_target(command: str, folders: Sequence[F], args: CommandArgs) -> tuple[F, Path, Project]:
    """The workspace folder, the file and the project of a `{file, language?}` diagnostics request."""
    if args.file is None:
        raise invalid(f"{command}: file: Field required")
    folder, path = inside(folders, args.file, what="file")
    if not path.is_file():
        raise invalid(f"file {_shown(args.file)!r} is not a file")
    chosen = nearest_project(path, folder.root, language=normalize_language(args.language), languages=folder.languages)
    if chosen is None:
        raise failed(f"no project of lintel's languages owns {_shown(args.file)!r}")
    return folder, path, chosen


async def file_diagnostics(
    command: str,
    folders: Sequence[F],
    args: CommandArgs,
    *,
    trusted: bool,
    on_start: Callable[[int], None] | None = None,
) -> FileDiagnostics:
    """What the editor shows for one file after a save: its lint findings and, with `editor.formatCheck` (on
    by default), its format findings — each run scoped to the file as on save (the CLI run; the editor may
    answer from a warm worker, with the same findings). A tool that is missing or timed out is a run whose state
    says so (the answer is partial), not an error."""
    folder, path, chosen = diagnostics_target(command, folders, args)
    require_trust(trusted)
    runs, digest = await settled.disk_runs(
        chosen, path, workspace=folder.root, config=folder.config, timeout=args.timeout, on_start=on_start
    )
    return FileDiagnostics(path.relative_to(folder.root.resolve()).as_posix(), chosen.language, runs, digest)


async def fix_findings(
    command: str,
    folders: Sequence[F],
    args: CommandArgs,
    *,
    trusted: bool,
) -> FixOutcome:
    """apply_fixes / lintel.fixAll: the lint findings of the project `file` or `path` names (only in that file or
    folder when it is inside the project), fixed as `lintel check --fix` does (lintel.engine.fixrun)."""
    from lintel.engine.fixrun import FixScope, apply_fixes

    if args.file is not None and args.path is not None:
        raise invalid(f"{command}: pass `file` or `path`, not both")
    named = args.file if args.file is not None else args.path
    where = inside(folders, named, what="file" if args.file is not None else "path")[1] if named else None
    folder, chosen = project(folders, CommandArgs(path=named, language=args.language))
    require_trust(trusted)
    require_check(command, chosen, "lint")
    scope = FixScope(
        [chosen],
        () if where is None else (where,),
        rules=args.rules or (),
        unsafe=bool(args.unsafe),
        dry_run=bool(args.dry_run),
    )
    return await apply_fixes(scope, workspace=folder.root, config=folder.config, timeout=args.timeout)
