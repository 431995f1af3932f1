"""The result cache's key: what a check's outcome depends on (the tool's identity, its argv, the environment that
matters, the configuration files it reads, the files it covers) as one hash; no key when that cannot be known."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from lintel.engine.cachefiles import TreeHasher, file_hash, repository

KEY_FORMAT = 2
# What the checkout's own folder reads as in a key and a stored result: a check of the same files in another
# checkout of the repository (the merge base's worktree of `--new-from`, a CI runner's other path) is the same
# check. NULs cannot be in a path or a tool's text, so the mark cannot be mistaken for either.
_ROOT_MARK = "\\u0000root\\u0000"

# The lockfiles of a family's package managers: what a tool's plugins and a type checker's imports resolve to.
_NODE_LOCKS = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    # What the package manager last installed (a lockfile says what should be): npm, pnpm, yarn.
    "node_modules/.package-lock.json",
    "node_modules/.modules.yaml",
    "node_modules/.yarn-state.yml",
    "node_modules/.yarn-integrity",
)
_PYTHON_LOCKS = ("uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock", "requirements.txt", "requirements-dev.txt")
_NODE_ENV = ("NODE_OPTIONS", "NODE_PATH", "NODE_ENV")
_GO_ENV = ("GO*", "CGO_*", "CC", "CXX")
_RUST_ENV = ("CARGO*", "RUST*", "CLIPPY_*", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "PKG_CONFIG*")
_GO_CONFIGS = ("go.mod", "go.sum", "go.work", "go.work.sum")
_CARGO_CONFIGS = (
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".cargo/config.toml",
    ".cargo/config",
)
_ESLINT_CONFIGS = (
    *(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts")),
    *(f".eslintrc{ext}" for ext in ("", ".js", ".cjs", ".json", ".yaml", ".yml")),
    ".eslintignore",
)
_PRETTIER_CONFIGS = (
    *(
        f"{stem}{ext}"
        for stem in (".prettierrc", "prettier.config")
        for ext in ("", ".json", ".json5", ".yaml", ".yml", ".toml", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
    ),
    ".prettierignore",
    ".editorconfig",
)
_MYPY_CONFIGS = ("mypy.ini", ".mypy.ini", "setup.cfg", "pyproject.toml", *_PYTHON_LOCKS)


@dataclass(frozen=True)
class ToolInputs:
    """What one tool reads besides its argv and the files it checks."""

    family: str  # python, node, go, rust: how its dependencies and extra roots are found
    configs: tuple[str, ...]  # file names looked for in the project's folder and every folder above it
    env: tuple[str, ...]  # environment variables that change its result; `X*` a prefix
    gitignored_out: bool  # it skips what .gitignore names, so an ignored file is not an input
    user_configs: tuple[str, ...] = ()  # files under the user's config folder ($XDG_CONFIG_HOME, ~/.config)


# The tools whose results are cached, by the name a ToolSpec gives them. Lint and format tools are; type checkers
# whose inputs are the project's files, its configuration and its installed dependencies are (mypy, pyright, go
# vet, cargo check); tsc is not (project references and `paths` reach outside the project), nor is any test run.
TOOLS: Mapping[str, ToolInputs] = MappingProxyType(
    {
        "ruff": ToolInputs(
            "python",
            ("pyproject.toml", "ruff.toml", ".ruff.toml"),
            ("RUFF_*",),
            gitignored_out=True,
            # git's own global ignore file: ruff honours it as git does.
            user_configs=("ruff/ruff.toml", "ruff/pyproject.toml", "ruff/.ruff.toml", "git/ignore"),
        ),
        "mypy": ToolInputs("python", _MYPY_CONFIGS, ("MYPY*", "PYTHONPATH", "VIRTUAL_ENV"), gitignored_out=False),
        "pyright": ToolInputs(
            "python", ("pyrightconfig.json", *_MYPY_CONFIGS), ("PYTHONPATH", "VIRTUAL_ENV"), gitignored_out=False
        ),
        "basedpyright": ToolInputs(
            "python", ("pyrightconfig.json", *_MYPY_CONFIGS), ("PYTHONPATH", "VIRTUAL_ENV"), gitignored_out=False
        ),
        "eslint": ToolInputs(
            "node",
            (*_ESLINT_CONFIGS, "package.json", "tsconfig.json", *_NODE_LOCKS),
            ("ESLINT_*", *_NODE_ENV),
            gitignored_out=False,
        ),
        # prettier 2 does not read .gitignore, nor does 3 given an `--ignore-path`: ignored files count.
        "prettier": ToolInputs(
            "node", (*_PRETTIER_CONFIGS, "package.json", *_NODE_LOCKS), _NODE_ENV, gitignored_out=False
        ),
        "golangci-lint": ToolInputs(
            "go",
            (*_GO_CONFIGS, *(f".golangci.{ext}" for ext in ("yml", "yaml", "toml", "json"))),
            (*_GO_ENV, "GOLANGCI_*"),
            gitignored_out=False,
        ),
        "go vet": ToolInputs("go", _GO_CONFIGS, _GO_ENV, gitignored_out=False),
        "gofmt": ToolInputs("go", (), (), gitignored_out=False),
        "clippy": ToolInputs("rust", (*_CARGO_CONFIGS, "clippy.toml", ".clippy.toml"), _RUST_ENV, gitignored_out=False),
        "cargo check": ToolInputs("rust", _CARGO_CONFIGS, _RUST_ENV, gitignored_out=False),
    }
)
CACHED_CHECKS = frozenset({"lint", "format", "typecheck"})

# What a binary answers to its version probe, given the binary's (path, size, mtime, inode): a probe runs once
# per installed binary, not once per check.
Prober = Callable[[str, Sequence[str]], Awaitable[str | None]]


@dataclass(frozen=True)
class KeyInputs:
    """One run as it is about to start: what the key is made of."""

    tool: str
    check: str
    parser: str
    codes: tuple[tuple[int, ...], tuple[int, ...]]  # ok and finding exit codes: how the outcome is read
    argv: tuple[str, ...]
    binaries: tuple[str, ...]  # resolved paths: argv[0]'s first
    cwd: Path
    workspace: Path
    env: Mapping[str, str]
    script: bool  # a package.json script: it runs whatever the script says
    stdin: bytes | None


def inputs_for(run: KeyInputs) -> ToolInputs | None:
    """The tool's table entry when its results may be cached: a known tool, a cached check, no script, no stdin."""
    if run.script or run.stdin is not None or run.check not in CACHED_CHECKS:
        return None
    return TOOLS.get(run.tool)


def checkout_root(workspace: Path) -> Path | None:
    """The folder a key and a stored result name relative to: the repository holding the workspace, else the
    workspace; None for a folder too near `/` to stand for one checkout."""
    folder = workspace.resolve()
    root = repository(folder) or folder
    return root if len(root.parts) > 2 else None


def relocated(text: str, root: Path | None) -> str:
    """JSON `text` with `root` (as a path, not a prefix of a longer name) written as the checkout's mark."""
    if root is None:
        return text
    needle = json.dumps(str(root))[1:-1]
    return re.sub(re.escape(needle) + r"(?![\w.-])", lambda _: _ROOT_MARK, text)


def restored(text: str, root: Path | None) -> str:
    """Relocated JSON `text` with the mark as `root` again: the checkout the result is replayed in."""
    if root is None:
        return text
    return text.replace(_ROOT_MARK, json.dumps(str(root))[1:-1])


async def cache_key(run: KeyInputs, hasher: TreeHasher, probe: Prober) -> str | None:
    """The key of `run`, or None when its result must not be cached (an unknown tool, an input not readable).
    Paths inside the checkout count relative to it (checkout_root)."""
    inputs = inputs_for(run)
    if inputs is None or not run.binaries:
        return None
    identity = [await _identity(path, run, probe) for path in run.binaries]
    identity.extend(await _family_identity(inputs.family, run, probe))
    if any(part is None for part in identity):
        return None
    roots = covered_roots(inputs.family, run.cwd.resolve(), run.workspace)
    configs = config_files(inputs, run.cwd.resolve(), run.env)
    if inputs.family == "rust" and not any(Path(path).name == "Cargo.lock" for path, _ in configs):
        return None  # without a lockfile cargo resolves the dependencies anew: the registry's state is an input
    gitignored_out = honours_gitignore(inputs, run.argv, configs)
    if gitignored_out:
        configs += _ignore_files(run.cwd.resolve())
    files = hasher.digest(roots, gitignored_out=gitignored_out)
    if files is None:
        return None
    document: dict[str, Any] = {
        "format": KEY_FORMAT,
        "tool": [run.tool, run.check, run.parser, [list(c) for c in run.codes]],
        "identity": identity,
        "argv": list(run.argv),
        "argv_files": _argv_files(run.argv, run.cwd),
        "cwd": str(run.cwd.resolve()),
        "workspace": str(run.workspace),
        "env": environment_part(inputs.env, run.env),
        "configs": configs,
        "files": files,
    }
    text = json.dumps(document, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    text = relocated(text, checkout_root(run.workspace))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def environment_part(allowed: Sequence[str], env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The variables of `env` the tool's family reads (never lintel's own LINTEL_*), sorted."""

    def wanted(name: str) -> bool:
        if name.startswith("LINTEL_"):
            return False
        return any(name.startswith(a[:-1]) if a.endswith("*") else name == a for a in allowed)

    return sorted((name, value) for name, value in env.items() if wanted(name))


def honours_gitignore(inputs: ToolInputs, argv: Sequence[str], configs: Sequence[tuple[str, str]]) -> bool:
    """Whether the run skips what .gitignore names: the tool does by default, and neither its argv nor a
    configuration file of it turns that off (ruff's respect-gitignore)."""
    if not inputs.gitignored_out:
        return False
    if any(arg.startswith(("--ignore-path", "--no-respect-gitignore")) for arg in argv):
        return False
    return not any("respect-gitignore" in _read(Path(path)) for path, _ in configs)


def _ignore_files(cwd: Path) -> list[tuple[str, str]]:
    """The .gitignore files from the project up to its repository, and the repository's info/exclude: which files
    a tool that honours them reads."""
    out: list[tuple[str, str]] = []
    for folder in (cwd, *cwd.parents):
        ignore = folder / ".gitignore"
        if ignore.is_file():
            out.append((str(ignore), file_hash(ignore) or "unreadable"))
        if (folder / ".git").exists():
            exclude = _common_git_dir(folder / ".git") / "info" / "exclude"
            # Named, not by path: a worktree of the repository reads the same file.
            out.append(("git info/exclude", (file_hash(exclude) if exclude.is_file() else None) or "none"))
            break
    return out


def _common_git_dir(dot_git: Path) -> Path:
    """The repository's own git folder: `.git` itself, or, for a worktree (a `.git` file naming its folder under
    the repository's `worktrees/`), the folder that one's `commondir` names."""
    if dot_git.is_dir():
        return dot_git
    text = _read(dot_git).strip()
    if not text.startswith("gitdir:"):
        return dot_git
    own = (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
    common = _read(own / "commondir").strip()
    return (own / common).resolve() if common else own


def config_files(inputs: ToolInputs, cwd: Path, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """Each configuration file the tool may read, in the project's folder and every folder above it (tools look
    upwards beyond the workspace too), and in the user's config folder, with its hash."""
    candidates = [folder / name for folder in (cwd, *cwd.parents) for name in inputs.configs]
    config_home = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")
    candidates += [config_home / name for name in inputs.user_configs]
    out: list[tuple[str, str]] = []
    for path in candidates:
        if path.is_file():
            out.append((str(path), file_hash(path) or "unreadable"))
    return out


def _argv_files(argv: Sequence[str], cwd: Path) -> list[tuple[str, str]]:
    """The files an argument names (`--config x.toml`, `--config=x.toml`): a user's command may point anywhere."""
    out: list[tuple[str, str]] = []
    for arg in argv[1:]:
        value = arg.split("=", 1)[1] if arg.startswith("-") and "=" in arg else arg
        if not value or value.startswith("-") or len(value) > 4096:
            continue
        path = cwd / value
        if path.is_file():
            out.append((value, file_hash(path) or "unreadable"))
    return out


async def _identity(binary: str, run: KeyInputs, probe: Prober) -> list[str] | None:
    """The binary and the file it resolves to (by identity, not path: a checkout that links another's installed
    tools runs the same file), and what its version probe says."""
    real = Path(os.path.realpath(binary))
    try:
        stat = real.stat()
    except OSError:
        return None
    args = _probe_args(run, binary)
    version = await probe(str(real), args) if args is not None else ""
    if version is None:
        return None
    return [binary, str(stat.st_dev), str(stat.st_ino), str(stat.st_size), str(stat.st_mtime_ns), version]


def _probe_args(run: KeyInputs, binary: str) -> tuple[str, ...] | None:
    name = Path(binary).name
    if name == "gofmt":
        return None  # no version flag: it is the file of its Go release, and `go` is probed (the family's part)
    if name == "go":
        return ("version",)
    if name == "cargo" and len(run.argv) > 1 and run.argv[1] == "clippy":
        return ("clippy", "--version")
    return ("--version",)


async def _family_identity(family: str, run: KeyInputs, probe: Prober) -> list[list[str] | None]:
    """What else decides the tool's behaviour: the Go toolchain it loads packages with, the rustup toolchain
    behind cargo's proxy, the Node that runs a JS tool, the Python packages a type checker imports."""
    path = run.env.get("PATH", os.environ.get("PATH", ""))
    if family == "go":
        go = _which("go", path)
        return [await _identity(go, run, probe) if go else ["no go"]]
    if family == "node":
        node = _which("node", path)
        return [await _identity(node, run, probe) if node else ["no node"]]
    if family == "rust":
        return [_rustup_state(run.env)]
    if family == "python" and run.check == "typecheck":
        return [_site_packages(run)]
    return []


def _which(name: str, path: str) -> str | None:
    for folder in path.split(os.pathsep):
        candidate = Path(folder or ".", name)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _rustup_state(env: Mapping[str, str]) -> list[str]:
    """The installed toolchains (an update replaces a toolchain's folder) and rustup's default: cargo on PATH is
    usually rustup's proxy, whose own file does not change when the toolchain it runs does."""
    home = Path(env.get("RUSTUP_HOME") or Path(env.get("HOME") or Path.home()) / ".rustup")
    out = [str(home)]
    settings = home / "settings.toml"
    if settings.is_file():
        out.append(file_hash(settings) or "unreadable")
    try:
        for entry in sorted(os.scandir(home / "toolchains"), key=lambda e: e.name):
            out.append(f"{entry.name}:{entry.stat().st_mtime_ns}")
    except OSError:
        out.append("no toolchains")
    return out


def _site_packages(run: KeyInputs) -> list[str]:
    """What is installed in the virtualenvs a type checker imports from (the project's own, the checker's): the
    names of the packages' metadata folders carry their versions; `.pth` files (editable installs) their paths.
    Each virtualenv once, by its real folder; named by what it holds, not where (a checkout may link another's)."""
    venvs = {run.cwd / ".venv", run.cwd / "venv"}
    venvs |= {Path(os.path.realpath(b)).parent.parent for b in run.binaries}
    venvs |= {Path(b).parent.parent for b in run.binaries}
    real = sorted({v.resolve() for v in venvs if (v / "pyvenv.cfg").is_file()})
    out: list[str] = []
    for venv in real:
        for site in sorted(venv.glob("lib/python*/site-packages")):
            out.append(site.relative_to(venv).as_posix())
            for entry in sorted(os.listdir(site)):
                if entry.endswith(".pth"):
                    out.append(f"{entry}:{file_hash(site / entry)}")
                elif entry.endswith((".dist-info", ".egg-info", ".egg-link")):
                    out.append(entry)
    return out


_CARGO_PATH = re.compile(r"""\bpath\s*=\s*["']([^"']+)["']""")
_GO_REPLACE = re.compile(r"=>\s*(\.{1,2}/\S*|/\S+)")
_GO_USE = re.compile(r"^\s*(?:use\s+)?(\.{1,2}(?:/\S*)?|/\S+)\s*$", re.MULTILINE)


def covered_roots(family: str, cwd: Path, workspace: Path) -> list[Path]:
    """The folders whose files the tool reads: the project's, and, where the manifest says it reads more, those:
    Cargo path dependencies (transitively, the workspace's too), go.mod `replace` paths and go.work's modules,
    a Node dependency linked to a folder of the repository (workspace packages)."""
    roots = [cwd]
    if family == "rust":
        _follow(roots, "Cargo.toml", _CARGO_PATH, also=_cargo_workspace(cwd))
    elif family == "go":
        _follow(roots, "go.mod", _GO_REPLACE, also=_go_work(cwd))
    elif family == "node":
        roots += _linked_packages(cwd, workspace)
    return [r.resolve() for r in dict.fromkeys(roots)]


def _follow(roots: list[Path], manifest: str, pattern: re.Pattern[str], also: list[Path]) -> None:
    """Add the folders the manifests under `roots` (and the `also` manifests' folders) name, transitively."""
    queue = [*roots, *also]
    seen = {r.resolve() for r in roots}
    manifests_seen: set[Path] = set()
    while queue:
        folder = queue.pop()
        text = _read(folder / manifest)
        if folder.resolve() in manifests_seen:
            continue
        manifests_seen.add(folder.resolve())
        for match in pattern.findall(text):
            target = (folder / match).resolve()
            if target.is_dir() and target not in seen:
                seen.add(target)
                roots.append(target)
                queue.append(target)


def _cargo_workspace(cwd: Path) -> list[Path]:
    return [f for f in cwd.parents if "[workspace]" in _read(f / "Cargo.toml")][:1]


def _go_work(cwd: Path) -> list[Path]:
    """The modules of the go.work above the project: any of them may be one it imports."""
    for folder in (cwd, *cwd.parents):
        text = _read(folder / "go.work")
        if text:
            return [(folder / m).resolve() for m in _GO_USE.findall(_use_block(text))]
    return []


def _use_block(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith(("go ", "toolchain ", "//")))


def _linked_packages(cwd: Path, workspace: Path) -> list[Path]:
    """The project's dependencies installed as links to folders of the workspace (pnpm, npm and yarn workspaces),
    transitively: a type-aware lint rule reads their sources."""
    out: list[Path] = []
    queue, seen = [cwd], {cwd.resolve()}
    while queue:
        folder = queue.pop()
        try:
            manifest = json.loads(_read(folder / "package.json") or "{}")
        except ValueError:
            continue
        names = set()
        for field in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
            section = manifest.get(field) if isinstance(manifest, dict) else None
            names |= set(section) if isinstance(section, dict) else set()
        for name in sorted(names):
            for base in (folder, *folder.parents):
                link = base / "node_modules" / name
                if link.exists() or link.is_symlink():
                    target = link.resolve()
                    if link.is_symlink() and target.is_relative_to(workspace) and target not in seen:
                        seen.add(target)
                        out.append(target)
                        queue.append(target)
                    break
                if base == workspace:
                    break
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
