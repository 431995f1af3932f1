"""Go: the commands behind each check (docs/architecture.md, Detection), what their exit codes mean, how to install
them.

Exit codes, measured with go 1.26.8 and golangci-lint v2.15.0:
- golangci-lint: 0 clean, 1 issues (compile errors included, as `typecheck` issues), 3 failure (bad config,
  another run holding the lock), 5 no Go files; its documentation adds 4 timeout and 7 "an error was logged".
- go vet: 0 clean, 1 findings or a package that does not compile; also 1 when nothing could be vetted
  ("matched no packages"), which the parser does not recognise, so that run is not_checked, never clean.
- go test: 0 passed, 1 a test or a build failed; also 1 for "no packages to test" (not recognised, as above).
- gofmt -l: 0 whether or not it lists files (the parser turns the list into findings), 2 when a file does
  not parse (its syntax errors are findings too).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from lintel.languages.base import (
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
from lintel.languages.evidence import folders_up, mentions
from lintel.languages.manifests import GO_WORK, go_work_uses
from lintel.languages.members import expand_members

log = logging.getLogger(__name__)

# Kept in step with scripts/setup.d/10-go.sh, which installs exactly these versions for lintel's own tests.
GOLANGCI_LINT_VERSION = "v2.15.0"
GOPLS_VERSION = "v0.23.0"  # the newest gopls that builds with go 1.26 (v0.24 needs go 1.27)

INSTALL_GO = "install Go from https://go.dev/dl/ (go vet and gofmt come with it)"
INSTALL_GOLANGCI_LINT = f"go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@{GOLANGCI_LINT_VERSION}"
INSTALL_GOPLS = f"go install golang.org/x/tools/gopls@{GOPLS_VERSION}"

# golangci-lint v2 flags (v1's --out-format is gone):
# --output.json.path=stdout   JSON on stdout; naming an output also turns off the default text one.
# --show-stats=false          otherwise a "7 issues: * errcheck: 2 ..." tally follows the JSON on stdout.
# --path-mode=abs             v2 prints paths relative to the config file's directory by default (measured:
#                             `sub/calc.go` when run in sub/), not to the cwd; absolute paths are unambiguous.
# --issues-exit-code=1        a project's `run.issues-exit-code` must not change what the exit code means.
# --allow-parallel-runners    without it a second golangci-lint anywhere on the machine (measured: another
#                             module, as from a polyglot check or lint-on-save beside a CLI run) exits 3
#                             "parallel golangci-lint is running": the lock file is in the temp directory.
#                             lintel never runs it with --fix, so the lock protects nothing lintel needs.
# --max-issues-per-linter=0   by default it shows 50 issues per linter and 3 with the same text, and which 3
# --max-same-issues=0         varies run to run (measured: a baseline then saw "new" issues in unchanged code,
#                             and a file's save diagnostics missed most of its findings): every issue, always.
_GOLANGCI_RUN = (
    "golangci-lint",
    "run",
    "--output.json.path=stdout",
    "--show-stats=false",
    "--path-mode=abs",
    "--issues-exit-code=1",
    "--allow-parallel-runners",
    "--max-issues-per-linter=0",
    "--max-same-issues=0",
)

_GOLANGCI_FIX = (*_GOLANGCI_RUN[:2], "--fix", *_GOLANGCI_RUN[2:])

GOLANGCI_LINT = ToolSpec(
    check="lint",
    tool="golangci-lint",
    argv=_GOLANGCI_RUN,
    parser="golangci-lint",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({1}),
    install_hint=INSTALL_GOLANGCI_LINT,
    builds=True,
    # `run --fix` writes every SuggestedFix of the enabled linters, formats the files it changed (with the
    # enabled formatters, gofmt when none is), and prints only the issues it could not fix (exit 1 while any
    # remain). It has no unsafe tier.
    fix_mode=FixMode(argv=_GOLANGCI_FIX),
)

# Text, not `go vet -json`: with -json vet exits 0 even when it reports findings, so the exit code would stop
# telling findings from a clean run; and the text lines are what users see from `go vet ./...` themselves.
# The price is that text lines do not name the analyzer, so go vet issues carry no rule
# (golangci-lint's govet reports the same findings with the analyzer name in the message).
GO_VET = ToolSpec(
    check="typecheck",
    tool="go vet",
    argv=("go", "vet", "./..."),
    parser="go-vet",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({1}),
    install_hint=INSTALL_GO,
)

# -count=1: a cached "ok" would hide a flaky test and report no timing; lintel wants a real run.
# -fullpath: `t.Errorf` locations are printed as absolute paths instead of a bare `calc_test.go:13`, which
#            test2json ties only to an import path; the parser can still place bare names (a user's own
#            `go test -json` validator) but has to infer the module path for that.
GO_TEST = ToolSpec(
    check="test",
    tool="go test",
    argv=("go", "test", "-json", "-count=1", "-fullpath", "./..."),
    parser="go-test",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({1}),
    install_hint=INSTALL_GO,
)

# `gofmt -l .` lists every file gofmt would change and exits 0 regardless; 2 means a file did not parse.
GOFMT = ToolSpec(
    check="format",
    tool="gofmt",
    argv=("gofmt", "-l", "."),
    parser="gofmt",
    ok_codes=frozenset({0}),
    finding_codes=frozenset({2}),
    install_hint=INSTALL_GO,
)

# gofmt given the one file (it could read stdin, but it then lists `<standard input>`, not the file).
GOFMT_FILE = dataclasses.replace(GOFMT, argv=("gofmt", "-l"), per_file="append")

_SPECS: Mapping[CheckName, ToolSpec] = {
    "lint": GOLANGCI_LINT,
    "typecheck": GO_VET,
    "test": GO_TEST,
    "format": GOFMT,
}


# `gofmt` with no file reads stdin and writes the formatted source to stdout: exit 0, or 2 with
# `<standard input>:line:col: message` on stderr for a file that does not parse.
GOFMT_STDIN = ToolSpec(
    check="format",
    tool="gofmt",
    argv=("gofmt",),
    parser="custom",
    ok_codes=frozenset({0}),
    finding_codes=frozenset(),
    install_hint=INSTALL_GO,
)


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    """The command for one check of a Go module, run in the module root (where go.mod is); in a go.work root,
    the checks it covers run once over every module it uses (`go vet ./api/... ./web/...`)."""
    try:
        spec = _SPECS[check]
    except KeyError:
        raise ValueError(f"unknown check {check!r} for go") from None
    if check not in GO_WORK_COVERS:
        return spec
    work = workspace(project)
    if work is None or not work.members:
        return spec
    return _across_modules(spec, project.root.resolve(), work.members)


def _across_modules(spec: ToolSpec, root: Path, members: tuple[Path, ...]) -> ToolSpec:
    """`spec` with its `./...` (or gofmt's `.`) replaced by every member module's folder (members are resolved
    folders inside `root`)."""
    folders = ["." if m == root else f"./{m.relative_to(root).as_posix()}" for m in members]
    if spec.check == "format":
        # gofmt walks folders without regard to modules: `.` already holds every member below it.
        targets = ["."] if "." in folders else [f.removeprefix("./") for f in folders]
        return dataclasses.replace(spec, argv=(*spec.argv[:-1], *targets))
    # `./...` stops at module boundaries, even inside a workspace: one pattern per module.
    patterns = [f"{folder}/..." for folder in folders]
    return dataclasses.replace(spec, argv=(*spec.argv[:-1], *patterns))


def file_scope(project: Project, check: FileCheckName, file: Path, use_stdin: bool) -> FileScope:
    """golangci-lint on the file's package; gofmt on the file. Neither reads the buffer from stdin.

    Go type-checks a package as a whole, so golangci-lint given one file of a package reports its siblings'
    names as undefined: it runs on the package directory instead (`./sub`, `.` for the root), which gave the
    same findings per file as the whole-module run on the fixture (measured, golangci-lint v2.15). It may
    also report other packages (compile errors of an import), hence filter_to_file. `gofmt -l` could read
    stdin, but it then lists `<standard input>`, not the file, so the format check reads the saved file.
    """
    rel = project_relpath(project, file)
    if check == "lint":
        package = PurePosixPath(rel).parent.as_posix()
        target = "." if package == "." else f"./{package}"
        fix = FixMode(argv=(*_GOLANGCI_FIX, target))
        spec = dataclasses.replace(GOLANGCI_LINT, argv=(*GOLANGCI_LINT.argv, target), fix_mode=fix)
        return scope_for_file(spec, project, file, use_stdin)  # whole: the package, the file's findings kept
    if check == "format":
        return scope_for_file(GOFMT_FILE, project, file, use_stdin)
    raise ValueError(f"unknown file check {check!r} for go")


def install_dirs(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Where `go install` puts binaries (the install hints above use it), as `go env` would say without running
    go: GOBIN, else `bin` of each GOPATH entry; either from the environment or from go's own env file
    (`go env -w`), GOPATH defaulting to ~/go. Often not on PATH: a fresh Go install does not add it."""
    env = os.environ if env is None else env
    written = _go_env_file(env)
    gobin = env.get("GOBIN") or written.get("GOBIN")
    gopath = env.get("GOPATH") or written.get("GOPATH") or str(Path.home() / "go")
    folders = [Path(gobin)] if gobin else []
    folders += [Path(entry) / "bin" for entry in gopath.split(os.pathsep) if entry]
    return tuple(dict.fromkeys(folders))


def _go_env_file(env: Mapping[str, str]) -> dict[str, str]:
    """`KEY=value` lines of go's env file ($GOENV, else <user config dir>/go/env); empty when there is none."""
    config = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    path = Path(env.get("GOENV") or Path(config) / "go" / "env")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values[key.strip()] = value.strip()
    return values


def formatter_for(project: Project, file: Path) -> ToolSpec | None:
    """gofmt formats Go source only; it takes no configuration, so the file's path does not matter."""
    return GOFMT_STDIN if file.suffix == ".go" else None


# What one run from a go.work root covers for all its modules (measured, go 1.26.8 and golangci-lint v2.15.0,
# in a go.work folder with two modules): `go vet ./a/... ./b/...` and `go test -json ./a/... ./b/...` report
# both modules' findings (a bare `./...` fails there: "directory prefix . does not contain modules listed in
# go.work"), and `gofmt -l a b` lists both modules' files. Not golangci-lint: `golangci-lint run ./a/... ./b/...`
# does lint both modules, but with one configuration, the one found from the first pattern's folder (a's
# .golangci.yml then applied to b too, b's never read); so it runs in each module, with the module's own.
GO_WORK_COVERS: frozenset[CheckName] = frozenset({"typecheck", "test", "format"})


def workspace(project: Project) -> Workspace | None:
    """The go.work at the project's root: the modules its `use` directives name. Without a go.mod beside it the
    folder is only a workspace root, no module of its own."""
    uses = go_work_uses(project.root)
    if uses is None:
        return None
    members = expand_members(project.root, uses, manifest="go.mod", globs=False)
    return Workspace(GO_WORK, members, covers=GO_WORK_COVERS, own=(project.root / "go.mod").is_file())


def go_work_root(ancestors: list[Path], nearest: Path | None) -> Path | None:
    """gopls is rooted where go.work is, above the module: the workspace's modules see each other there."""
    return next((folder for folder in ancestors if (folder / "go.work").is_file()), None)


_GOLANGCI_CONFIGS = tuple(f".golangci.{ext}" for ext in ("yml", "yaml", "toml", "json"))
_GOLANGCI_RUNNERS = ("Makefile", "justfile", "Taskfile.yml", ".pre-commit-config.yaml")


def not_configured(project: Project, check: CheckName) -> str | None:
    """golangci-lint is the lint of a module that uses it: a `.golangci.*` in the module or above it up to the
    repository's top (golangci-lint looks there), or a Makefile, justfile, Taskfile, pre-commit hook or CI workflow
    that runs it. Its default linters on a module that never chose them (google/uuid: its CI runs go test alone)
    are not the project's verdict. go vet, go test and gofmt ship with Go: always configured."""
    if check != "lint":
        return None
    folders = folders_up(project.root)
    for folder in folders:
        if any((folder / name).is_file() for name in _GOLANGCI_CONFIGS):
            return None
        if any("golangci-lint" in _text(folder / name) for name in _GOLANGCI_RUNNERS):
            return None
    if any(mentions(folders[-1], "golangci-lint")):
        return None
    return "no golangci-lint in this module (no .golangci.yml, Makefile target, pre-commit hook or CI step)"


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
