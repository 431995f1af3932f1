"""Python's checks (docs/architecture.md, Detection): ruff for lint and format, the configured type checker, pytest.

Everything here is data except `typechecker`, which reads the project's config files (no process runs)
to tell a mypy project from a pyright one.
"""

from __future__ import annotations

import configparser
import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from lintel.core.tomlread import read_toml
from lintel.languages.base import (
    FILE_PLACEHOLDER,
    REPORT_PLACEHOLDER,
    CheckName,
    FileCheckName,
    FileScope,
    FixMode,
    Project,
    ToolSpec,
    Workspace,
    project_relpath,
    scope_for_file,
)
from lintel.languages.binaries import resolve_binary
from lintel.languages.manifests import uv_workspace
from lintel.languages.python.intent import typecheckers_used

log = logging.getLogger(__name__)

TypeChecker = Literal["mypy", "pyright", "basedpyright"]

# ruff's own fix mode (docs/fixes.md, Python; measured, ruff 0.17.6, 0.1.0 and 0.0.291). From stdin it prints the
# whole text on stdout, fixed, even for a file it excludes or cannot parse (unchanged then), and exits 0 (nothing
# left) or 1 (findings left), the findings left on stderr; exit 2 (a configuration it cannot read) prints nothing on
# stdout. On files it rewrites them and prints the findings left on stdout. `--quiet`: no summary after them.
# `--no-unsafe-fixes`: a project's `unsafe-fixes = true` would make a plain `--fix` apply unsafe fixes too, which
# lintel applies only when asked (`--unsafe-fixes`, appended after it: the last of the two wins). ruff 0.1.0 is
# the first with either flag.
_RUFF_FIX = ("ruff", "check", "--fix", "--no-unsafe-fixes", "--no-cache", "--force-exclude", "--quiet")

# One file's text from stdin, named for ruff's per-file settings and `--force-exclude`.
_RUFF_STDIN = ("--stdin-filename", FILE_PLACEHOLDER, "-")

# `--no-fix`: a project with `fix = true` in its ruff config must not have its files rewritten by a lint run.
# `--no-cache`: ruff is the default linter of every Python project, also those that never chose ruff;
# a lint run should not leave a `.ruff_cache` behind, and ruff is fast enough without it.
# `--force-exclude`: files the server appends (lint on save) still honour the project's `exclude`.
RUFF_LINT = ToolSpec(
    check="lint",
    tool="ruff",
    argv=("ruff", "check", "--output-format=json", "--no-fix", "--no-cache", "--force-exclude"),
    parser="ruff",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({1}),  # 2: bad config or arguments, ruff itself failed
    install_hint="pip install ruff",
    per_file="stdin",
    stdin_args=_RUFF_STDIN,
    fix_mode=FixMode(
        argv=_RUFF_FIX,
        unsafe_args=("--unsafe-fixes",),
        stdin_argv=(*_RUFF_FIX, "--stdin-filename", FILE_PLACEHOLDER, "-"),
        stdin_unsafe_args=("--unsafe-fixes",),
    ),
)

RUFF_FORMAT = ToolSpec(
    check="format",
    tool="ruff",
    argv=("ruff", "format", "--diff", "--no-cache", "--force-exclude"),
    parser="ruff-format",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({1}),  # 1: would reformat; 2: a file could not be parsed, or bad config
    install_hint="pip install ruff",
    per_file="stdin",
    stdin_args=_RUFF_STDIN,
)

# Both take file paths, so one file is checked by appending it (or `--stdin-filename <file> -`: per_file).
_FILE_CHECKS: Mapping[FileCheckName, ToolSpec] = {"lint": RUFF_LINT, "format": RUFF_FORMAT}

# What `ruff format` formats from a text buffer (notebooks reach an editor as notebook documents, not text).
FORMATTED_SUFFIXES = frozenset({".py", ".pyi"})

# Flags that only shape the output, so a project's own `pretty = true` or `show_error_context = true`
# cannot change what the parser reads. Text rather than `--output=json`: that flag needs mypy >= 1.11,
# and the project's own (possibly older) mypy in .venv/bin is preferred over ours.
MYPY_OUTPUT_FLAGS: tuple[str, ...] = (
    "--show-column-numbers",
    "--show-error-end",
    "--show-error-codes",
    "--hide-error-context",
    "--no-pretty",
    "--no-color-output",
    "--no-error-summary",
)

# pytest's exit codes: 0 all passed, 1 some failed, 2 interrupted, 3 internal error, 4 usage error,
# 5 no test collected. Only 0 and 1 mean the suite ran; 5 is a failure (a suite that tests nothing is not
# clean), so it is in neither set and the run is reported not_checked with pytest's own words.
# `--continue-on-collection-errors`: a module that fails to import is reported (with its file and line)
# beside the other tests' results instead of stopping the whole run with exit 2.
# `--tb=short`: every traceback entry starts with `path:line: in func`, whatever the project's addopts say.
# `junit_family=xunit1`: testcases carry `file` and `line` attributes, the fallback location for
# failures without a traceback (pytest.fail(pytrace=False), strict xpass).
PYTEST = ToolSpec(
    check="test",
    tool="pytest",
    argv=(
        "pytest",
        "-q",
        "--color=no",
        "--tb=short",
        "--continue-on-collection-errors",
        "-o",
        "junit_family=xunit1",
        "--junitxml",
        REPORT_PLACEHOLDER,  # a whole argv element: the runner replaces only exact matches
    ),
    parser="pytest",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({1}),
    install_hint="pip install pytest",
)

_INSTALL_HINTS: Mapping[TypeChecker, str] = {
    "mypy": "pip install mypy",
    "basedpyright": "pip install basedpyright",
    "pyright": "npm install --save-dev pyright (or: pip install basedpyright)",
}


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    if check == "lint":
        return RUFF_LINT
    if check == "format":
        return RUFF_FORMAT
    if check == "test":
        return PYTEST
    if check == "typecheck":
        return typecheck_spec(project.root, typechecker(project.root))
    raise ValueError(f"unknown check {check!r} for python")


def file_scope(project: Project, check: FileCheckName, file: Path, use_stdin: bool) -> FileScope:
    """ruff checks and format-checks single files, from disk or from stdin.

    With `--stdin-filename` ruff applies the project's per-file settings and `--force-exclude` to the given
    name, and reports it (measured, ruff 0.17): the JSON `filename` is the absolute path of that name, the
    format diff's `---`/`+++` headers are the name as given, a parse error is `error: Failed to parse
    <name>:line:col: ...`, all as for the file on disk; an excluded name gives `[]` or no diff, exit 0.
    """
    base = _FILE_CHECKS.get(check)
    if base is None:
        raise ValueError(f"unknown file check {check!r} for python")
    return scope_for_file(base, project, file, use_stdin)


def install_dirs(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Where `pip install --user` and pipx put scripts: the user base's bin, ~/.local/bin by default."""
    env = os.environ if env is None else env
    base = env.get("PYTHONUSERBASE") or str(Path.home() / ".local")
    return (Path(base) / "bin",)


def formatter_for(project: Project, file: Path) -> ToolSpec | None:
    """`ruff format -`: the formatted source on stdout, exit 0; 2 with `error: Failed to parse` on stderr.

    `--stdin-filename` picks the project's settings for that path; with `--force-exclude` a file the project
    excludes comes back unchanged (measured), as `ruff format .` would leave it. No `--no-cache`: ruff keeps
    no cache for stdin input (measured: no `.ruff_cache` appears).
    """
    if file.suffix not in FORMATTED_SUFFIXES:
        return None
    rel = project_relpath(project, file)
    return ToolSpec(
        check="format",
        tool="ruff",
        argv=("ruff", "format", "--force-exclude", "--stdin-filename", rel, "-"),
        parser="custom",
        finding_codes=frozenset(),
        install_hint=RUFF_FORMAT.install_hint,
    )


def typecheck_spec(root: Path, checker: TypeChecker) -> ToolSpec:
    # The project's interpreter, as in the user's shell with its venv active: without it pyright takes the first
    # `python` on PATH and cannot resolve the venv's imports, and a mypy from outside the venv the same.
    python = project_python(root)
    if checker == "mypy":
        # Without configured targets mypy exits 2 ("Missing target module, package, files, or command").
        target: tuple[str, ...] = () if mypy_targets_configured(root) else (".",)
        interpreter = ("--python-executable", python) if python else ()
        return ToolSpec(
            check="typecheck",
            tool="mypy",
            argv=("mypy", *MYPY_OUTPUT_FLAGS, *interpreter, *target),
            parser="mypy",
            ok_codes=frozenset({0}),
            # 2: mypy stopped early — a blocking error (syntax error, bad config) or a crash.
            finding_codes=frozenset({1}),
            install_hint=_INSTALL_HINTS["mypy"],
        )
    # pyright and basedpyright: 0 no errors (warnings may remain), 1 errors, 2 fatal, 3 config error, 4 usage.
    binary = pyright_binary(root) if checker == "pyright" else "basedpyright"
    return ToolSpec(
        check="typecheck",
        tool=binary,
        argv=(binary, "--outputjson", *(("--pythonpath", python) if python and not _pyright_names_env(root) else ())),
        parser="pyright",
        ok_codes=frozenset({0}),
        finding_codes=frozenset({1}),
        install_hint=_INSTALL_HINTS[binary],
    )


def project_python(root: Path) -> str | None:
    """The interpreter of the project's own virtualenv (`.venv` or `venv` holding `pyvenv.cfg` in its folder),
    else None. Not one above it: a repository's top-level venv is often a tool's own (lintel's fixtures sit under
    lintel's), not the nested project's."""
    for name in (".venv", "venv"):
        if (root / name / "pyvenv.cfg").is_file() and (root / name / "bin" / "python").exists():
            return str(root / name / "bin" / "python")
    return None


def _pyright_names_env(root: Path) -> bool:
    """Whether the project's pyright configuration picks the environment itself (`venv`, or `pythonPath`): then
    it decides, not lintel. `venvPath` alone picks nothing (pyright needs `venv` with it)."""
    keys = {"venv", "pythonPath"}
    tool = _pyproject_tool_table(root)
    if any(isinstance(t, dict) and keys & set(t) for t in (tool.get("pyright"), tool.get("basedpyright"))):
        return True
    try:  # JSON with comments, as pyright reads it: the keys are looked for, not parsed
        text = (root / "pyrightconfig.json").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return re.search(r'"(?:venv|pythonPath)"\s*:', text) is not None


def pyright_binary(root: Path) -> Literal["pyright", "basedpyright"]:
    """A `[tool.pyright]`/pyrightconfig.json project gets pyright when it can be found, else basedpyright.

    basedpyright reads the same configuration and installs from PyPI with its own Node.js (lintel's
    `python` extra ships it), but it defaults to its stricter "recommended" mode where pyright defaults to
    "standard", so pyright itself is preferred when the project has it.
    """
    return "pyright" if resolve_binary("pyright", project_root=root).found else "basedpyright"


def typechecker(root: Path) -> TypeChecker:
    """mypy unless the project configures pyright/basedpyright and does not configure mypy; with no
    configuration, the one the project depends on or runs (pyright in its dev dependencies: pyright)."""
    tool = _pyproject_tool_table(root)
    if "mypy" in tool or _mypy_ini(root) is not None:
        return "mypy"
    if "basedpyright" in tool:
        return "basedpyright"
    if "pyright" in tool or (root / "pyrightconfig.json").is_file():
        return "pyright"
    used = typecheckers_used(root)
    if "mypy" not in used:
        if "basedpyright" in used:
            return "basedpyright"
        if "pyright" in used:
            return "pyright"
    return "mypy"


def mypy_targets_configured(root: Path) -> bool:
    """Whether mypy's config names what to check (`files`, `modules` or `packages`).

    Follows mypy's own search order: mypy.ini, .mypy.ini, pyproject.toml, setup.cfg; the first that holds
    mypy configuration is the one mypy uses.
    """
    keys = ("files", "modules", "packages")
    for name in ("mypy.ini", ".mypy.ini"):
        section = _ini_section(root / name, "mypy")
        if section is not None:
            return any(section.get(key, "").strip() for key in keys)
    mypy_table = _pyproject_tool_table(root).get("mypy")
    if isinstance(mypy_table, Mapping):
        return any(mypy_table.get(key) for key in keys)
    section = _ini_section(root / "setup.cfg", "mypy")
    if section is not None:
        return any(section.get(key, "").strip() for key in keys)
    return False


# ruff reads each file's nearest configuration (measured, ruff 0.17: a member's own `[tool.ruff]` applies to its
# files in a run from the root), so one run from a uv workspace's root finds what a run in each member would.
# The other checks depend on where they run (pytest's rootdir and conftest, a type checker's environment).
UV_WORKSPACE_COVERS: frozenset[CheckName] = frozenset({"lint", "format"})


def workspace(project: Project) -> Workspace | None:
    """A uv workspace (`[tool.uv.workspace]` in the root's pyproject.toml): lint and format cover its members."""
    found = uv_workspace(project.root)
    if found is None:
        return None
    return Workspace("pyproject.toml", found.members, covers=UV_WORKSPACE_COVERS, own=found.own)


def _mypy_ini(root: Path) -> Path | None:
    for name in ("mypy.ini", ".mypy.ini", "setup.cfg"):
        if _ini_section(root / name, "mypy") is not None:
            return root / name
    return None


def _pyproject_tool_table(root: Path) -> Mapping[str, Any]:
    document = read_toml(root / "pyproject.toml") or {}
    tool = document.get("tool")
    return tool if isinstance(tool, Mapping) else {}


def _ini_section(path: Path, section: str) -> Mapping[str, str] | None:
    """The section of an ini file, or None when the file or the section is absent or unreadable."""
    if not path.is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return None
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


# How pytest lists the tests (`testfind.collected` reads it), kept here so naming it loads no test finding.
# `--verbosity=-1` sets what `-q` gives however many `-q` or `-v` the command and addopts hold: one node id a line;
# without pytest-randomly (where installed) the cases come in their declared order.
COLLECT_ARGS = ("--collect-only", "--verbosity=-1", "-p", "no:randomly")
