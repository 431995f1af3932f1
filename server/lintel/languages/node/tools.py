"""Node's checks (docs/architecture.md, Detection): the project's own package.json scripts through its package manager,
else eslint, tsc and prettier written as `npx --no-install <tool>` (lintel never downloads a package), which
`checks.plan_spec` runs as the project's node_modules/.bin file directly when it is installed.

A script is run as the project wrote it. Only when it is a bare call of a tool lintel knows (`eslint .`,
`tsc --noEmit`, `jest`) does lintel add the flags that make the tool's output machine-readable.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lintel.core.gitignore import is_ignored
from lintel.core.runenv import defaults_for
from lintel.languages.base import (
    FILE_PLACEHOLDER,
    NPX_NO_INSTALL,
    CheckName,
    FileCheckName,
    FileScope,
    FixMode,
    LanguageSpec,
    Project,
    ScriptStep,
    ToolSpec,
    Workspace,
    project_relpath,
    scope_for_file,
)
from lintel.languages.evidence import folders_up
from lintel.languages.manifests import (
    PNPM_WORKSPACE,
    package_json_workspaces,
    pnpm_workspace_packages,
)
from lintel.languages.members import expand_members
from lintel.languages.node.fix import ESLINT_FORMAT, eslint_fix_mode, script_fix
from lintel.languages.node.intent import prettier_targets, tsc_project
from lintel.languages.node.steps import chain_steps

log = logging.getLogger(__name__)

# Lock file -> package manager, first match wins.
LOCK_FILES: tuple[tuple[str, str], ...] = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
)

# CI=true unless the user's environment says otherwise (lintel.core.runenv says why); nothing else is added.
_TEST_DEFAULTS = defaults_for("node", "test")

# Measured exit codes (eslint 9.39, tsc 5.9, prettier 3.10, node 20 --test, jest 30, vitest 3.2):
#   eslint   0 clean, 1 findings, 2 eslint failed (bad config, crash; no JSON then)
#   tsc      0 clean, 2 errors with --noEmit (tsconfig errors too); 1 when it checked nothing (no
#            tsconfig.json: it prints its help, which the parser does not recognise) or skipped output
#   prettier 0 formatted, 1 some file is not, 2 prettier failed (a file it cannot parse, no file matched)
#   jest, vitest, node --test: 1 when a test failed
# npm, yarn 1 and pnpm pass a script's exit code through unchanged.
_ESLINT_FINDINGS = frozenset({1})
_TSC_FINDINGS = frozenset({1, 2})
_TEST_FINDINGS = frozenset({1})
_UNKNOWN_SCRIPT_FINDINGS = frozenset({1, 2})


@dataclass(frozen=True)
class _KnownTool:
    """A tool a script may call: its display name, the flags that make its output parseable (added when
    absent), the parser for that output and what its exit codes mean."""

    tool: str
    binary: str | None
    parseable_flags: tuple[str, ...]
    already_parseable: tuple[str, ...]
    parser: str
    finding_codes: frozenset[int]
    # The `source` of its findings besides its own name (xo's JSON reporter is eslint's).
    also_sources: tuple[str, ...] = ()
    banner: str | None = None  # a line it prints whenever it runs (a chained script's steps are told apart by it)


_KNOWN_TOOLS: Mapping[str, _KnownTool] = {
    "eslint": _KnownTool(
        tool="eslint",
        binary="eslint",
        parseable_flags=ESLINT_FORMAT,
        already_parseable=("-f", "--format", "-o", "--output-file"),
        parser="node-lint-auto",
        finding_codes=_ESLINT_FINDINGS,
    ),
    # oxlint exits 0 with warnings only, 1 with errors (measured, oxlint 1.94).
    "oxlint": _KnownTool(
        tool="oxlint",
        binary="oxlint",
        parseable_flags=("--format", "json"),
        already_parseable=("-f", "--format"),
        parser="node-lint-auto",
        finding_codes=frozenset({1}),
    ),
    # `biome lint` / `biome check`: exit 0 with warnings and infos only, 1 with errors (measured, biome 2.6).
    "biome": _KnownTool(
        tool="biome",
        binary="biome",
        parseable_flags=("--reporter=json",),
        already_parseable=("--reporter",),
        parser="node-lint-auto",
        finding_codes=frozenset({1}),
    ),
    # xo's JSON is eslint's; it exits 1 with errors.
    "xo": _KnownTool(
        tool="xo",
        binary="xo",
        parseable_flags=("--reporter=json",),
        already_parseable=("--reporter",),
        parser="node-lint-auto",
        finding_codes=frozenset({1}),
        also_sources=("eslint",),
    ),
    "tsc": _KnownTool(
        tool="tsc",
        binary="tsc",
        parseable_flags=("--pretty", "false"),
        already_parseable=("--pretty", "--watch", "-w"),
        parser="node-lint-auto",
        finding_codes=_TSC_FINDINGS,
    ),
    "prettier": _KnownTool(
        tool="prettier",
        binary="prettier",
        parseable_flags=(),
        already_parseable=(),
        parser="prettier",
        finding_codes=frozenset({1}),
        banner=r"Checking formatting\.\.\.$",
    ),
    "jest": _KnownTool(
        tool="jest",
        binary="jest",
        parseable_flags=("--json", "--testLocationInResults"),
        already_parseable=("--json", "--watch", "--watchAll"),
        parser="node-test-auto",
        finding_codes=_TEST_FINDINGS,
    ),
    "vitest": _KnownTool(
        tool="vitest",
        binary="vitest",
        # --run: vitest's watch mode would never exit.
        parseable_flags=("--run", "--reporter=json"),
        already_parseable=("--reporter", "--watch", "-w"),
        parser="node-test-auto",
        finding_codes=_TEST_FINDINGS,
    ),
    # mocha exits with the number of failed tests, at most 255.
    "mocha": _KnownTool(
        tool="mocha",
        binary="mocha",
        parseable_flags=("--reporter", "json"),
        already_parseable=("--reporter", "-R", "--watch", "-w"),
        parser="node-test-auto",
        finding_codes=frozenset(range(1, 256)),
    ),
    # node's own runner prints TAP when stdout is not a terminal (node 20) and flags cannot be appended
    # after its file arguments, so lintel adds none: a script that asks for another reporter is not read.
    "node --test": _KnownTool(
        tool="node --test",
        binary=None,
        parseable_flags=(),
        already_parseable=(),
        parser="node-test-auto",
        finding_codes=_TEST_FINDINGS,
    ),
}

# The parser for a script that calls none of the tools above: it sniffs the formats it knows.
_SCRIPT_PARSERS: Mapping[CheckName, str] = {"test": "node-test-auto"}
# Anything that makes a script more than one plain command: lintel then adds no flags to it.
_SHELL_SYNTAX = re.compile(r"[;&|<>`$(){}]|\n")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# What makes shell-quote single-quote a word (JavaScript's \s, as Python's for str): see pnpm_changes.
_SPACE_OR_QUOTE = re.compile(r'["\s]')

_ADD_DEV: Mapping[str, str] = {
    "npm": "npm install --save-dev",
    "yarn": "yarn add --dev",
    "pnpm": "pnpm add --save-dev",
    "bun": "bun add --dev",
}
_GET_PACKAGE_MANAGER: Mapping[str, str] = {
    "npm": "npm ships with Node.js (https://nodejs.org)",
    "yarn": "npm install -g yarn",
    "pnpm": "npm install -g pnpm",
    "bun": "npm install -g bun",
}

# The defaults name `.` as the contract's table does, so a file appended to their argv would be checked
# together with the whole project: they are not per-file commands (file_scope builds those without `.`).
NPX = NPX_NO_INSTALL


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    """The command for one check of a node project, run in the directory that holds package.json."""
    manager = project.package_manager or "npm"
    script = check if check in ("lint", "test", "typecheck") else None
    if script is not None and script in project.scripts:
        return script_spec(project, check, script)
    if check == "lint":
        ignored = tuple(f"--ignore-pattern={name}/" for name in gitignored_folders(project.root))
        return eslint_spec(manager, (".", *ignored))
    if check == "typecheck":
        return ToolSpec(
            check="typecheck",
            tool="tsc",
            argv=(*NPX, "tsc", "--noEmit", "--pretty", "false", *tsc_project(project.root)),
            parser="tsc",
            finding_codes=_TSC_FINDINGS,
            install_hint=f"{_ADD_DEV.get(manager, _ADD_DEV['npm'])} typescript",
            requires=("tsc",),
        )
    if check == "test":
        # The contract's default for a package without a test script; npm then fails with "Missing
        # script", which the parser does not recognise, so the check is reported as not run.
        return ToolSpec(
            check="test",
            tool="npm test",
            argv=("npm", "test", "--silent"),
            parser="node-test-auto",
            finding_codes=_TEST_FINDINGS,
            install_hint=_GET_PACKAGE_MANAGER["npm"],
            env_defaults=_TEST_DEFAULTS,
        )
    if check == "format":
        # What the project's own scripts give prettier (`prettier -c src test`): the files it formats, not `.`.
        return prettier_spec(manager, ("--check", *(prettier_targets(project.scripts) or (".",))))
    raise ValueError(f"unknown check {check!r} for node")


def gitignored_folders(root: Path) -> list[str]:
    """The project's top-level folders git ignores, node_modules aside (eslint skips it itself): `eslint .` reads
    no .gitignore (flat config), so a Python `.venv` at a polyglot root, say, would be linted as the project's
    JavaScript (tree-sitter-json: 22 errors in pip's vendored files)."""
    top = folders_up(root)[-1]
    try:
        names = sorted(entry.name for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False))
    except OSError:
        return []
    prefix = root.relative_to(top).as_posix() if root != top else ""
    return [
        name
        for name in names
        if name != "node_modules" and is_ignored(top, f"{prefix}/{name}" if prefix else name, True)
    ]


def file_scope(project: Project, check: FileCheckName, file: Path, use_stdin: bool) -> FileScope:
    """eslint and prettier take files; a project's own `lint` script does not, so it runs whole and the caller
    keeps the file's findings.

    eslint reads stdin with `--stdin --stdin-filename <file>` and reports the absolute path of that name
    (measured, eslint 9.39), as for the file on disk. `prettier --check` does not: given stdin it prints
    `(stdin)` instead of `[warn] <file>` (measured, prettier 3.10), so the format check reads the saved file.
    """
    manager = project.package_manager or "npm"
    if check == "lint":
        if "lint" in project.scripts:
            return scope_for_file(tool_for(project, "lint"), project, file, use_stdin)
        rel = project_relpath(project, file)
        spec = dataclasses.replace(
            eslint_spec(manager, ()),
            per_file="stdin",
            stdin_args=_ESLINT_STDIN_ARGS,
            fix_mode=eslint_fix_mode((rel,)),
        )
        return scope_for_file(spec, project, file, use_stdin)
    if check == "format":
        # A file prettier has no parser for, or one .prettierignore (or node_modules) excludes, is not checked
        # by `prettier --check .`: these flags make the one-file run agree (clean, exit 0) instead of exit 2.
        flags = ("--check", "--ignore-unknown", "--no-error-on-unmatched-pattern")
        spec = dataclasses.replace(prettier_spec(manager, flags), per_file="append")
        return scope_for_file(spec, project, file, use_stdin)
    raise ValueError(f"unknown file check {check!r} for node")


def install_dirs(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """None: node tools come from the project (node_modules/.bin) or npm's global prefix, which is on PATH."""
    return ()


def formatter_for(project: Project, file: Path) -> ToolSpec | None:
    """`prettier --stdin-filepath <file>`: the formatted source on stdout, exit 0; exit 2 for a file it cannot
    parse or has no parser for. The path picks the parser and the project's config; an ignored path comes back
    unchanged (measured). Never `--ignore-unknown` here: with stdin it makes prettier print nothing, exit 0.
    """
    spec = prettier_spec(project.package_manager or "npm", ("--stdin-filepath", project_relpath(project, file)))
    return dataclasses.replace(spec, parser="custom", finding_codes=frozenset())


# eslint's one file from stdin, named for its configuration and reported under that name.
_ESLINT_STDIN_ARGS = ("--stdin", "--stdin-filename", FILE_PLACEHOLDER)


def eslint_spec(manager: str, targets: tuple[str, ...], *, stdin: bool = False) -> ToolSpec:
    """`npx --no-install eslint <targets> --format json-with-metadata`: the project's own eslint, or "not found"
    with how to add it. With `stdin`, the one file in `targets` is read from stdin; its fix mode writes the file."""
    read = ("--stdin", "--stdin-filename", *targets) if stdin else targets
    return ToolSpec(
        check="lint",
        tool="eslint",
        argv=(*NPX, "eslint", *ESLINT_FORMAT, *read),
        parser="eslint",
        finding_codes=_ESLINT_FINDINGS,
        install_hint=f"{_ADD_DEV.get(manager, _ADD_DEV['npm'])} eslint",
        requires=("eslint",),
        fix_mode=eslint_fix_mode(targets),
    )


def prettier_spec(manager: str, args: tuple[str, ...]) -> ToolSpec:
    """`npx --no-install prettier <args>` read as a format check: 1 means some file is not formatted."""
    return ToolSpec(
        check="format",
        tool="prettier",
        argv=(*NPX, "prettier", *args),
        parser="prettier",
        finding_codes=frozenset({1}),
        install_hint=f"{_ADD_DEV.get(manager, _ADD_DEV['npm'])} prettier",
        requires=("prettier",),
    )


def script_spec(project: Project, check: CheckName, script: str, more: tuple[str, ...] = ()) -> ToolSpec:
    """`<pm> run <script>`, quiet, with parseable-output flags when the script is a bare known tool, then `more`
    (a subset's filters, lintel.runTests {tests})."""
    manager = project.package_manager or "npm"
    text = project.scripts.get(script, "")
    known = known_tool(text)
    extra: tuple[str, ...] = ()
    if known is not None and not _has_flag(text, known.already_parseable):
        extra = known.parseable_flags
    requires = (known.binary,) if known is not None and known.binary else ()
    # One hint for both binaries a script needs: the package manager and the tool the script calls.
    hint = f"{manager} install (installs the project's devDependencies)"
    if manager != "npm":
        hint = f"{hint}; to get {manager}: {_GET_PACKAGE_MANAGER.get(manager, 'see its documentation')}"
    berry = is_yarn_berry(project.root)
    fixes = script_fix(known.tool, text) if known is not None and check == "lint" and not more else None
    return ToolSpec(
        check=check,
        tool=known.tool if known is not None else f"{manager} run {script}",
        argv=run_script_argv(manager, script, (*extra, *more), berry=berry),
        parser=known.parser if known is not None else _SCRIPT_PARSERS.get(check, "node-lint-auto"),
        finding_codes=known.finding_codes if known is not None else _UNKNOWN_SCRIPT_FINDINGS,
        install_hint=hint,
        requires=requires,
        env_defaults=_TEST_DEFAULTS if check == "test" else {},
        script=text,
        steps=chain_steps(text, project.scripts, _step),
        # The script run with its tool's fix flags (`npm run lint -- --fix`): its own targets and config.
        fix_mode=None
        if fixes is None
        else FixMode(
            argv=run_script_argv(manager, script, fixes.args, berry=berry),
            unsafe_args=fixes.unsafe_args,
            stdin_argv=fixes.stdin_argv,
            stdin_unsafe_args=fixes.stdin_unsafe_args,
            stdin_output=fixes.stdin_output,
        ),
    )


def run_script_argv(manager: str, script: str, extra: tuple[str, ...] = (), *, berry: bool = False) -> tuple[str, ...]:
    """How each package manager runs a script without its banner and forwards extra arguments.

    npm needs `--` before the script's arguments; yarn 1 forwards them as they are (and warns about
    `--`); pnpm 7+ forwards everything after the script name, `--` included; bun forwards them too.
    yarn 2+ prints no banner and has no `--silent`. pnpm gets no `--silent` (nor `--loglevel`): the level
    reaches the pnpm a script runs in turn, and a pnpm that runs several scripts at once (`pnpm run "/^test:.*/"`,
    `-r`, `--parallel`) then prints none of their output (measured, pnpm 9.15); its banner lines (`> pkg@1.0.0
    test /w`) are left to the parsers, which pass over them.
    """
    if manager == "yarn":
        return ("yarn", "run", script, *extra) if berry else ("yarn", "--silent", "run", script, *extra)
    if manager == "pnpm":
        return ("pnpm", "run", script, *extra)
    if manager == "bun":
        return ("bun", "run", "--silent", script, *extra)
    return ("npm", "run", "--silent", script, *(("--", *extra) if extra else ()))


def pnpm_changes(arg: str) -> str | None:
    """Why pnpm would hand `arg` to a script changed, else None. pnpm appends a script's arguments to its command
    line quoted by shell-quote's `quote` and runs that line with sh (read in pnpm 9.15's code, measured): a word
    with no space or quote is only backslash-escaped, which leaves a leading `~` bare for sh to expand; one with a
    space or `"` is single-quoted with its backslashes doubled; one with a `'` is double-quoted with a backslash
    before each `!`, which sh keeps there. No placement of `--` changes that (pnpm forwards `--` itself)."""
    if "'" in arg:
        return "a backslash would stay before each `!`" if "!" in arg else None
    if _SPACE_OR_QUOTE.search(arg):
        return "its backslashes would be doubled" if "\\" in arg else None
    if arg.startswith("~"):
        return "sh would turn the leading `~` into a home folder"
    return None


def known_tool(script_text: str) -> _KnownTool | None:
    """The tool a script calls when the script is that one command (env assignments allowed before it)."""
    if _SHELL_SYNTAX.search(script_text):
        return None
    try:
        words = shlex.split(script_text)
    except ValueError:
        return None
    while words and _ENV_ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return None
    command = Path(words[0]).name
    if command == "node" and "--test" in words[1:]:
        return _KNOWN_TOOLS["node --test"]
    if command == "node":
        return None
    return _KNOWN_TOOLS.get(command)


def _step(command: str) -> ScriptStep:
    """One command of a chained script (`nodesteps.chain_steps`): known when it is a bare call of a known tool."""
    known = known_tool(command)
    if known is None:
        return ScriptStep(command)
    sources = frozenset({known.tool, *known.also_sources})
    return ScriptStep(command, known.tool, known.parser, known.finding_codes, sources, known.banner)


def _has_flag(script_text: str, flags: tuple[str, ...]) -> bool:
    try:
        words = shlex.split(script_text)
    except ValueError:
        return True
    return any(word == flag or word.startswith(f"{flag}=") for word in words for flag in flags)


def is_yarn_berry(root: Path) -> bool:
    """yarn 2+ ("berry"): its `.yarnrc.yml`, or package.json's `packageManager` naming yarn 2 or later."""
    if (root / ".yarnrc.yml").is_file():
        return True
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    pinned = data.get("packageManager") if isinstance(data, dict) else None
    if not isinstance(pinned, str) or not pinned.startswith("yarn@"):
        return False
    major = pinned[len("yarn@") :].split(".", 1)[0]
    return major.isdigit() and int(major) >= 2


def node_package_manager(root: Path) -> str:
    """The manager whose lock file is in the package's folder, else in the nearest folder above that has one (a
    workspace member's lock file is the workspace root's), up to the repository's top; npm when there is none."""
    for folder in (root, *root.parents):
        for lock, manager in LOCK_FILES:
            if (folder / lock).is_file():
                return manager
        if (folder / ".git").exists() or (folder / "pnpm-workspace.yaml").is_file():
            break
    return "npm"


def package_scripts(root: Path) -> tuple[dict[str, str], str | None]:
    """`package.json#scripts` (none when it has no such object), or why package.json cannot be read: a file that
    is not JSON is no project without scripts (npm, pnpm and node refuse it too)."""
    path = root / "package.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return {}, f"cannot read {path}: {reason}"
    if not isinstance(data, dict):
        return {}, f"cannot read {path}: a JSON object was expected, not {type(data).__name__}"
    scripts = data.get("scripts")
    if not isinstance(scripts, dict):
        return {}, None
    return {str(k): v for k, v in scripts.items() if isinstance(v, str)}, None


def inspect(spec: LanguageSpec, root: Path, markers: tuple[str, ...]) -> Project:
    """A node project: its package manager (from the lock file) and its scripts."""
    scripts, problem = package_scripts(root)
    return Project(spec, root, markers, package_manager=node_package_manager(root), scripts=scripts, problem=problem)


# The checks a workspace root's own script runs across its packages (`"test": "pnpm -r test"`); format has no
# script (prettier runs per package).
_SCRIPT_CHECKS: tuple[CheckName, ...] = ("lint", "test", "typecheck")


def workspace(project: Project) -> Workspace | None:
    """The packages a JS workspace root declares: pnpm-workspace.yaml's `packages` for a pnpm project (or one
    with that file and no other manager's lock file), else package.json's `workspaces`; `!` patterns exclude.
    The root's own script for a check is how the repository runs it across its packages, so the root covers
    the checks it has a script for; the others run in each package. A root holds packages and is no package
    to check of its own."""
    patterns = _workspace_patterns(project)
    if patterns is None:
        return None
    file, declared = patterns
    include = [p for p in declared if not p.startswith("!")]
    exclude = [p[1:] for p in declared if p.startswith("!")]
    members = expand_members(project.root, include, exclude, manifest="package.json")
    covers = frozenset(check for check in _SCRIPT_CHECKS if check in project.scripts)
    return Workspace(file, members, covers=covers, own=False)


def _workspace_patterns(project: Project) -> tuple[str, list[str]] | None:
    """The file that declares the workspace and its patterns, or None for a plain package."""
    root = project.root
    other_lock = any((root / lock).is_file() for lock, manager in LOCK_FILES if manager != "pnpm")
    if project.package_manager == "pnpm" or ((root / PNPM_WORKSPACE).is_file() and not other_lock):
        # pnpm reads only its own file; one without `packages` (pnpm 10 keeps settings there) declares none.
        packages = pnpm_workspace_packages(root / PNPM_WORKSPACE)
        return None if packages is None else (PNPM_WORKSPACE, packages)
    declared = package_json_workspaces(root)
    return None if declared is None else ("package.json", declared)


SOURCE_EXTENSIONS = {".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact"}
TYPED_EXTENSIONS = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact"}
