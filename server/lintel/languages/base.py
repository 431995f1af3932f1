"""What a language is to lintel: one `LanguageSpec` names its markers, files, checks and language server.

The ground floor: every other part of lintel (detection, configuration, checks, the server, navigation, the
CLI) reads languages through these shapes and the registry in `lintel.languages`; this module imports only
lintel.core and the shapes of the parsers and of the coverage index.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

from lintel.core.fsstat import is_file
from lintel.core.positions import Unit
from lintel.core.results import RunResult
from lintel.core.testitems import FoundTest
from lintel.languages.coverage.model import CoverageIndex
from lintel.languages.parsers.base import ParserFamily

CheckName = Literal["lint", "typecheck", "test", "format"]
CHECKS: tuple[CheckName, ...] = get_args(CheckName)
# The check a coverage run reports as (its RunResult's `check`), beside the four a language declares.
COVERAGE_CHECK = "coverage"
# The checks the server runs on one file (lint and format check on open, save and change).
FileCheckName = Literal["lint", "format"]

# Folders no project of one's own lives in, which discovery, workspace globs and `{files}` never enter:
# dependencies, build output, environments, and test data — Go's `testdata` (go itself ignores it) and the
# `fixtures` folders of test suites, whose markers belong to sample projects with deliberate faults.
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        "vendor",
        "target",
        "dist",
        "build",
        "venv",
        "__pycache__",
        "site-packages",
        "testdata",
        "fixtures",
        "__fixtures__",
    }
)

# Folders of example and demo projects: a project found below one is checked only when a workspace declares it a
# member or `projects.examples` is on (docs/architecture.md, "Projects: discovery": the projects' own CI leaves
# standalone examples out). A `_` prefix also marks one: Go's tools skip `_`-prefixed folders (`_examples/`).
EXAMPLE_DIRS = frozenset({"examples", "example", "demo", "demos", "samples", "sample"})


def is_example_dir(name: str) -> bool:
    """Whether a folder of this name holds examples rather than the project's own code."""
    return name.startswith("_") or name.lower() in EXAMPLE_DIRS


# argv elements equal to this are replaced by a fresh temporary file path the tool writes a report to.
REPORT_PLACEHOLDER = "{report}"
# A project's own node tool run through npx, which never downloads with this flag: `npx --no-install eslint …`.
# lintel runs the tool's node_modules/.bin file itself when it finds one (checks.plan_spec).
NPX_NO_INSTALL = ("npx", "--no-install")
# argv elements equal to this are replaced by the files the run covers: every file of the language in the
# project for a project-wide run, the one file for a per-file run (user-defined languages' commands).
FILES_PLACEHOLDER = "{files}"


@dataclass(frozen=True)
class ScriptStep:
    """One command of a package.json script that chains commands with `&&` (`eslint . && prettier -c src`)."""

    text: str  # as the script writes it
    tool: str | None = None  # a tool lintel knows (its display name), else None
    parser: str | None = None  # the parser of that tool's output
    finding_codes: frozenset[int] = frozenset()  # its exit codes that mean findings; others: it could not run
    sources: frozenset[str] = frozenset()  # the `source` of the issues its output gives
    banner: str | None = None  # a line (regex) the tool prints whenever it runs: it ran, findings or not
    script: str | None = None  # the script it comes from when the chain runs another (`npm run lint:js`)


# In FixMode.stdin_argv, replaced by the path of the file whose text goes on stdin.
FILE_PLACEHOLDER = "{file}"


@dataclass(frozen=True)
class FixMode:
    """A tool's own fix mode (`ruff check --fix`, `eslint --fix`, `cargo clippy --fix`, `golangci-lint run --fix`):
    what `lintel check --fix` runs, and what the editor's fix-all asks for one document's text."""

    argv: tuple[str, ...]  # the fix run in place of ToolSpec.argv: same cwd, same targets; it writes the files
    unsafe_args: tuple[str, ...] = ()  # added to argv for unsafe fixes too; empty: the tool's fix mode has none
    # One file's fixed text from its current text on stdin, writing nothing ({file}: the file's path); empty when
    # the tool has no such mode (the fixes of its findings are applied by lintel.core.fixes instead). How its stdout
    # reads: "text", the fixed text itself (ruff), or "eslint-json", the `output` of eslint's JSON report.
    stdin_argv: tuple[str, ...] = ()
    stdin_unsafe_args: tuple[str, ...] = ()
    stdin_output: Literal["text", "eslint-json"] = "text"


# The comment or attribute that silences one finding of a tool in its file (ruff's noqa comment, golangci-lint's
# nolint, an `allow` attribute for clippy…); lintel.engine.suppress writes each, extending a directive already there.
Suppression = Literal[
    "noqa",
    "type-ignore",
    "pyright-ignore",
    "eslint-disable-next-line",
    "ts-expect-error",
    "nolint",
    "rust-allow",
    "shellcheck-disable",
]


@dataclass(frozen=True)
class IssueSource:
    """What lintel knows of the issues one tool reports, by their `source`: the unit its columns count in (Go's tools
    count bytes, JavaScript's UTF-16 code units, the rest characters) and how one of its findings is suppressed
    (None: the tool has no suppression lintel writes)."""

    unit: Unit = "utf-32"
    suppression: Suppression | None = None


PerFile = Literal["append", "stdin", "whole"]


@dataclass(frozen=True)
class ToolSpec:
    check: CheckName
    tool: str  # shown to users, and the Issue/Diagnostic source
    argv: tuple[str, ...]  # argv[0] is resolved through resolve_binary
    parser: str  # a name from lintel.languages.parsers
    ok_codes: frozenset[int] = frozenset({0})
    finding_codes: frozenset[int] = frozenset({1})
    install_hint: str = ""
    # Binaries that must exist besides argv[0] (eslint behind `npx --no-install eslint`).
    requires: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # set over the user's environment (plain output)
    env_defaults: Mapping[str, str] = field(default_factory=dict)  # set only where the user's has none
    # The directory the tool's relative paths start from, when it is not the cwd (a Cargo workspace member's
    # test panics name files from the workspace root, where cargo runs rustc).
    paths_from: Path | None = None
    # A package.json script: its text and, when lintel can split it, its steps. Its exit code is the floor of
    # the verdict (lintel.engine.scriptfloor).
    script: str | None = None
    steps: tuple[ScriptStep, ...] = ()
    # The tool compiles the project before it checks it (clippy, golangci-lint): a first run on a new machine takes
    # as long as a build, so it gets the typecheck's time unless the user set the check's own timeout.
    builds: bool = False
    fix_mode: FixMode | None = None  # the tool's own fix mode, when it has one
    # How the tool checks one file (the server's lint and format on open, save and change; `scope_for_file`):
    # "append" its path to argv; "stdin" the same, or, given the file's current text, `stdin_args` appended
    # ({file}: its path) and the text on stdin; "whole" argv as it is, the caller keeping the file's findings.
    per_file: PerFile = "whole"
    stdin_args: tuple[str, ...] = ()
    # A one-file run reports other files too (rustfmt checks the modules the file declares): the caller keeps the
    # file's findings.
    reports_others: bool = False

    @property
    def binary(self) -> str:
        return self.argv[0]


@dataclass(frozen=True)
class FileScope:
    """How to check one file: what to run, and what the caller does with its output.

    Tools that take a file get it; tools that work per package or crate get the file's package or the whole
    project, and `filter_to_file` tells the caller to keep only the file's findings.
    """

    spec: ToolSpec  # what to run: its argv targets the file, its package, or the whole project
    filter_to_file: bool  # the run covers more than the file: the caller keeps only findings for it
    stdin: bool  # the file's current text goes on stdin (the argv says so, e.g. `-` or --stdin)


def scope_for_file(spec: ToolSpec, project: Project, file: Path, use_stdin: bool) -> FileScope:
    """How `spec` checks one file of `project`, as its `per_file` says; `use_stdin`: the caller has the file's
    current text to send."""
    if spec.per_file == "whole":
        return FileScope(spec, filter_to_file=True, stdin=False)
    rel = project_relpath(project, file)
    if spec.per_file == "stdin" and use_stdin:
        args = tuple(rel if arg == FILE_PLACEHOLDER else arg for arg in spec.stdin_args)
        return FileScope(dataclasses.replace(spec, argv=(*spec.argv, *args)), spec.reports_others, stdin=True)
    return FileScope(dataclasses.replace(spec, argv=(*spec.argv, rel)), spec.reports_others, stdin=False)


# What tells lintel that a language server has loaded its workspace, for servers that answer cross-file
# requests (references, rename…) from whatever part of it they have read so far; the router holds those
# requests until then. "diagnostics": the server's first publishDiagnostics — pyright publishes only after an
# analysis pass, and it starts one only once it has enumerated the workspace's files.
LoadSignal = Literal["diagnostics"]

# A language's own rule for its server's root, given the folders from the file's up to the workspace folder
# (nearest first) and the nearest one holding a root marker: the root, or None for that nearest folder.
RootRule = Callable[[list[Path], "Path | None"], "Path | None"]


@dataclass(frozen=True)
class ServerSpec:
    """The language server navigation is forwarded to."""

    # Default command lines, first found wins (basedpyright before pyright: it ships as a Python wheel).
    candidates: tuple[tuple[str, ...], ...]
    install_hint: str
    # Files that make a directory the server's project root, nearest first.
    root_markers: tuple[str, ...]
    initialization_options: Mapping[str, Any] | None = None
    load_signal: LoadSignal | None = None
    root_rule: RootRule | None = None
    # What the server shows (window/showMessage) that is for its own developers, not the user (regular
    # expressions, searched): logged, never a pop-up (lintel.frontends.relay.messages).
    chatter: tuple[str, ...] = ()
    # The sources of its diagnostics that come from a build of the saved files (rust-analyzer's cargo check:
    # rustc, clippy), not from the text it was given: left out when a proposed text is checked.
    saved_sources: tuple[str, ...] = ()
    # The server's diagnostics that report what one of lintel's own tools reports, by (the server's source, its
    # code) -> the (lintel source, rule) pairs of the same problem: the editor is shown lintel's one
    # (lintel.frontends.lsp.overlap). Same codes need no entry.
    same_problems: Mapping[tuple[str, str], frozenset[tuple[str, str]]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.candidates[0][0]


@dataclass(frozen=True)
class Project:
    """One project: a folder whose markers say which language it is."""

    spec: LanguageSpec
    root: Path
    markers: tuple[str, ...]
    package_manager: str | None = None
    scripts: Mapping[str, str] = field(default_factory=dict)
    # Why the project's manifest cannot be read (a package.json that is not JSON): its checks and scripts are not
    # run, and each says this instead of acting as if the file were empty.
    problem: str | None = None

    @property
    def language(self) -> str:
        return self.spec.name

    def relative_root(self, workspace: Path) -> str:
        try:
            rel = self.root.relative_to(workspace)
        except ValueError:
            return str(self.root)
        return rel.as_posix() if rel.parts else "."


@dataclass(frozen=True)
class Workspace:
    """A workspace file at a project's root (go.work, Cargo `[workspace]`, pnpm-workspace.yaml,
    package.json#workspaces, `[tool.uv.workspace]`): the member projects it declares, and which checks the root
    runs for all of them at once with the ecosystem's own tool (`cargo clippy --workspace`, `go vet` across the
    go.work modules, the root's own recursive script)."""

    file: str  # the file that declares the workspace, relative to the root
    members: tuple[Path, ...]  # member folders (absolute, existing, the root itself allowed), in declared order
    # Checks the root's run covers for every member: a member checked together with its root skips these.
    covers: frozenset[CheckName] = frozenset()
    # Whether the root is a project of its own for the other checks; if not (a pnpm root that only holds
    # packages, a go.work folder without go.mod), only its members run them.
    own: bool = True


# -- what a language's test selection and coverage are given and give back (their modules use them; they sit
# here because a LanguageSpec holds them and they name its Project) ------------------------------------


@dataclass(frozen=True)
class TestRef:
    """One identity, read: a test name, a file (absolute, resolved), or both (a recorded failure, or a name
    read from `file:line`). `recorded`: it came from the runner's own report, so it names a test the runner
    ran and is not looked up in the sources again."""

    __test__ = False  # not a pytest test class

    shown: str  # as the agent gave it, for error messages
    name: str | None = None
    file: Path | None = None
    line: int | None = None
    recorded: bool = False


@dataclass(frozen=True)
class Expected:
    """A test a run must start, as its runner names it (`TestX/case`), and the identity that asked for it."""

    name: str
    ref: TestRef


@dataclass(frozen=True)
class Selection:
    """What to run for the identities: one command per runner invocation (Go runs one per package where one
    pattern cannot say it), and the files the selection covers (their test diagnostics are replaced).

    A runner whose filter may match nothing and still pass (go test's `-run`) says, per run, the tests it must
    have started (`expected`) and how to read the tests a run started from its stdout (`started`)."""

    runs: tuple[ToolSpec, ...]
    files: tuple[Path, ...] = ()
    expected: tuple[tuple[Expected, ...], ...] = ()
    started: Callable[[str], set[str]] | None = None


Selector = Callable[[Project, Sequence[TestRef], ToolSpec, Path], Selection]
# The tests declared in each of `files` (resolved, inside the project; `texts` holds an editor's unsaved text by
# file), in source order, each file's record first. Static: reads sources, runs nothing, and a file it cannot read
# or parse has no tests rather than an error.
Discoverer = Callable[[Project, Sequence[Path], Mapping[Path, str]], list[FoundTest]]
# runTests {path}: the tests in a file or under a folder (resolved, inside the project), None when it holds none.
PathSelector = Callable[[Project, Path, ToolSpec, Path], "Selection | None"]


# A test the runner listed without running it: its id, its file (resolved), and the id of the test the sources
# declare it as (itself, or the parametrised function it is one case of).
Collected = tuple[str, Path, str]


@dataclass(frozen=True)
class TestCollector:
    """How the runner itself lists a project's tests without running them (`pytest --collect-only`): the arguments
    appended to the project's test command, and how its output reads (None: output it does not recognise)."""

    __test__ = False  # not a pytest test class

    args: tuple[str, ...]
    read: Callable[[Project, str], list[Collected] | None]


@dataclass(frozen=True)
class TestSelection:
    """How a language runs a subset of its tests: the given test identities, or the tests under a path; and how it
    finds the tests its sources declare without running them (`discover`, None where it cannot), refined, where the
    workspace is trusted, by what its runner lists (`collect`)."""

    select: Selector
    select_path: PathSelector
    discover: Discoverer | None = None
    collect: TestCollector | None = None


class CoverageHost(Protocol):
    """What the engine gives a language's coverage run: the project and the runs the engine plans (binaries resolved
    through the user's settings, the check's timeout), so no language reads the configuration itself."""

    @property
    def project(self) -> Project: ...

    @property
    def workspace(self) -> Path: ...

    @property
    def seconds(self) -> float: ...

    @property
    def on_start(self) -> Callable[[int], None] | None: ...

    async def run_tests(self, extra_args: Sequence[str], env: Mapping[str, str] | None = None) -> RunResult:
        """The project's test command (what `lintel.runTests` runs, the user's override included) with coverage
        flags appended, as a `coverage` run."""
        ...

    async def run_spec(self, spec: ToolSpec) -> RunResult:
        """`spec` run as the project's test check would be (its binaries resolved the same way), as a `coverage`
        run."""
        ...

    def test_spec(self) -> ToolSpec:
        """The project's planned test command (with the binaries lintel runs directly)."""
        ...

    def test_binary(self) -> str | None:
        """The resolved path of the test command's program, None when it is not found."""
        ...

    def binary_setting(self, name: str) -> str | None:
        """The user's `binaries` setting for `name` in the project's language."""
        ...


@dataclass
class Measurement:
    """A coverage run's RunResult (check `coverage`, with the coverage summary) and its index (None when no
    coverage data came out: the result then says why, `not_checked`)."""

    result: RunResult
    index: CoverageIndex | None = None


@dataclass
class Refined:
    """Who covers one line, measured more finely than the index (a Go test run alone, a node test file alone)."""

    granularity: str
    tests: list[str]
    note: str | None = None
    runs: int = 0  # how many runs it took
    skipped: list[str] = field(default_factory=list)  # candidates not run (over the bound)


Measure = Callable[[CoverageHost], Awaitable[Measurement]]
Refine = Callable[[CoverageHost, str, int], Awaitable["Refined | None"]]


@dataclass(frozen=True)
class CoverageSupport:
    """How a language measures coverage (None: it cannot, and `unsupported` says why), and how it asks who covers
    one line more finely than its index (None: the index is the answer)."""

    measure: Measure | None
    refine: Refine | None = None
    unsupported: str = ""


def _plain_project(spec: LanguageSpec, root: Path, markers: tuple[str, ...]) -> Project:
    return Project(spec, root, markers)


def _no_install_dirs() -> tuple[Path, ...]:
    return ()


def _no_workspace(project: Project) -> Workspace | None:
    return None


def _always_configured(project: Project, check: CheckName) -> str | None:
    return None


@dataclass(frozen=True)
class LanguageSpec:
    """Everything lintel knows about a language. Built-in ones are declared in `lintel.languages.<name>`;
    users declare more in `[languages.<name>]` of lintel.toml (`lintel.engine.registry`)."""

    name: str
    # Files whose presence in a folder makes it a project root of this language (shell-style patterns allowed).
    markers: tuple[str, ...]
    # File suffix (lower case, with its dot) -> the LSP language id of such a file.
    extensions: Mapping[str, str]
    tool_for: Callable[[Project, CheckName], ToolSpec]
    file_scope: Callable[[Project, FileCheckName, Path, bool], FileScope]
    # The formatter for a file (source on stdin, formatted source on stdout), or None.
    formatter_for: Callable[[Project, Path], ToolSpec | None]
    server: ServerSpec | None = None
    # Folders the language's own installer fills that may not be on PATH (searched after PATH).
    install_dirs: Callable[[], tuple[Path, ...]] = _no_install_dirs
    # The project for a root holding `markers` (node reads its package manager and scripts there).
    inspect: Callable[[LanguageSpec, Path, tuple[str, ...]], Project] = _plain_project
    checks: tuple[CheckName, ...] = CHECKS
    # Editor file types beyond the language ids (Neovim's `gomod`).
    extra_filetypes: tuple[str, ...] = ()
    order: int = 100  # the default order where one language must be picked; lower first
    builtin: bool = True
    # The workspace a project's root declares, if any (read on discovery, not on every detection).
    workspace: Callable[[Project], Workspace | None] = _no_workspace
    # Why the project does not use the tool of a check (no TypeScript: no tsc), or None when it does; such a check
    # is `not_configured` (docs/architecture.md, "Checks the project does not use"). Read from its files, no process.
    not_configured: Callable[[Project, CheckName], str | None] = _always_configured
    # Folders of a project whose nested projects of this language are its test data, not projects to check (a
    # Cargo.toml under a crate's `tests/` is a fixture its tests build: xshell's `tests/data/*`), unless a
    # workspace declares them members or `projects.examples` is on.
    test_data_dirs: frozenset[str] = frozenset()
    # The parsers of its tools' output (`lintel.languages.parsers` looks names up here).
    parsers: ParserFamily | None = None
    # Its tools' issues by their `source` (several tools may share one): column unit and suppression syntax, where
    # they are not characters and none (`lintel.languages.sources`).
    sources: Mapping[str, IssueSource] = field(default_factory=dict)
    # How it runs a subset of its tests (`lintel.runTests` with tests or a path); None: it cannot.
    tests: TestSelection | None = None
    # The command that runs one of the project's own scripts (`lintel.runScript`: the script, its arguments, the
    # request's name for messages); None: the language has no scripts to run.
    script_command: Callable[[Project, str, Sequence[str], str], ToolSpec] | None = None
    # How it measures coverage (`lintel.coverage`, `lintel.testsCovering`); None: lintel knows no coverage tool.
    coverage: CoverageSupport | None = None

    @property
    def language_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.extensions.values()))

    def markers_in(self, folder: Path, names: Iterable[str] | None = None) -> tuple[str, ...]:
        """This language's markers present in `folder`: plain names by stat, patterns against its listing."""
        found: list[str] = []
        listing: list[str] | None = list(names) if names is not None else None
        for marker in self.markers:
            if not any(c in marker for c in "*?["):
                # With the folder's listing at hand (discovery has it), no stat per marker.
                if marker in listing if listing is not None else is_file(folder / marker):
                    found.append(marker)
                continue
            if listing is None:
                try:
                    listing = [p.name for p in folder.iterdir() if p.is_file()]
                except OSError:
                    listing = []
            found.extend(sorted(n for n in listing if fnmatch.fnmatchcase(n, marker)))
        return tuple(dict.fromkeys(found))

    def owns(self, path: Path) -> bool:
        """Whether `path` is one of this language's files (by suffix, case-insensitive)."""
        name = path.name.lower()
        return any(name.endswith(suffix) for suffix in self.extensions)

    def language_id(self, path: Path) -> str | None:
        name = path.name.lower()
        return next((lid for suffix, lid in self.extensions.items() if name.endswith(suffix)), None)


class Registry:
    """The languages lintel knows in one workspace: the built-in ones and the user's, in detection order."""

    def __init__(self, specs: Iterable[LanguageSpec]) -> None:
        by_name: dict[str, LanguageSpec] = {}
        for spec in specs:
            by_name[spec.name] = spec  # a later one (the user's) replaces an earlier one of the same name
        self._specs: tuple[LanguageSpec, ...] = tuple(sorted(by_name.values(), key=lambda s: s.order))
        self._by_name = {s.name: s for s in self._specs}

    def __iter__(self) -> Iterator[LanguageSpec]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> LanguageSpec:
        return self._by_name[name]

    def get(self, name: str | None) -> LanguageSpec | None:
        return self._by_name.get(name) if name is not None else None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def for_file(self, path: Path) -> LanguageSpec | None:
        """The language a file belongs to by its suffix; the longest matching suffix wins (`.d.ts` over `.ts`),
        then the detection order."""
        name = path.name.lower()
        best: tuple[int, LanguageSpec] | None = None
        for spec in self._specs:
            for suffix in spec.extensions:
                if name.endswith(suffix) and (best is None or len(suffix) > best[0]):
                    best = (len(suffix), spec)
        return best[1] if best is not None else None


def project_relpath(project: Project, file: Path) -> str:
    """`file` (absolute, inside the project) as the POSIX path relative to the project root that tools are given.

    Tools run in the project root, and print relative paths back the way they were given, so a relative path
    keeps their output in the form the parsers already read. A name that starts with `-` gets `./` in front,
    so no tool takes a file called `--fix.js` for an option.

    The file is named by its real path: one the editor opened through a symlinked folder (`alias/x.py`, `alias`
    -> `src`) is `src/x.py`, as the tool's findings for it must be named to be found as that file's
    (checks.keep_file_issues), and with the configuration that decides the real file.
    """
    real = file.resolve()
    try:
        rel = real.relative_to(project.root.resolve())
    except ValueError:
        # A symlink out of the project: the tool reads it where it is linked.
        rel = file.relative_to(project.root)
    text = rel.as_posix()
    return f"./{text}" if text.startswith("-") else text
