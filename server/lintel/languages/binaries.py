"""Finding a tool's binary (the chain every language shares), and what to say when it is missing."""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lintel.core.fsstat import is_file
from lintel.languages.base import ToolSpec

log = logging.getLogger(__name__)

LOCAL_BIN_DIRS: tuple[str, ...] = ("node_modules/.bin", ".venv/bin", "venv/bin")
NODE_BIN_DIR = "node_modules/.bin"


@dataclass(frozen=True)
class Resolved:
    name: str
    path: str | None
    via: Literal["setting", "project", "path", "install-dir", "lintel", "missing"]
    tried: tuple[str, ...] = ()
    # A rustup proxy for a component no toolchain has was passed over (it would fail "Unknown binary").
    proxy_only: bool = False

    @property
    def found(self) -> bool:
        return self.path is not None


def _executable(path: Path) -> bool:
    # A PATH entry the user may not search (root's, kept by sudo) holds nothing for them: not an error.
    return is_file(path) and os.access(path, os.X_OK)


def rustup_proxy_without_component(path: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether `path` is one of the proxies rustup puts on PATH for every component, installed or not (a link
    to rustup), for a binary that no installed toolchain has (`rustup component add` was never run): running it
    fails with "error: Unknown binary 'rust-analyzer' in official toolchain" and a backtrace."""
    try:
        target = Path(os.path.realpath(path))
    except OSError:
        return False
    if target.name not in ("rustup", "rustup-init") or path.name in ("rustup", "rustup-init"):
        return False
    home = Path((env if env is not None else os.environ).get("RUSTUP_HOME") or Path.home() / ".rustup")
    toolchains = home / "toolchains"
    try:
        return not any(_executable(t / "bin" / path.name) for t in toolchains.iterdir())
    except OSError:
        return False  # no rustup home to read: let the proxy speak for itself


def _real(candidate: Path, env: Mapping[str, str] | None, skipped: list[Path]) -> bool:
    """An executable that is not a rustup proxy with nothing behind it (those are noted in `skipped`)."""
    if not _executable(candidate):
        return False
    if rustup_proxy_without_component(candidate, env):
        skipped.append(candidate)
        return False
    return True


def resolve_binary(
    name: str,
    *,
    project_root: Path,
    workspace_root: Path | None = None,
    setting: str | None = None,
    env: Mapping[str, str] | None = None,
    local_only: bool = False,
    install_dirs: Sequence[Path] = (),
) -> Resolved:
    """Find `name`: the user's setting, then the project's own (node_modules/.bin, .venv/bin, venv/bin in the
    project; the node_modules/.bin of the folders above it that tools are hoisted to; the workspace root's), then
    PATH, then the folders the language's own installer fills though they are often not on PATH
    (`install_dirs`: `go install`'s, `cargo install`'s), then lintel's own environment (so the embedded ruff
    works right after `pip install`). `local_only` stops after the project's own."""
    tried: list[str] = []
    if setting:
        return _from_setting(name, setting, project_root, env, tried)
    if os.sep in name:
        path = Path(name) if Path(name).is_absolute() else project_root / name
        tried.append(str(path))
        return Resolved(name, str(path) if _executable(path) else None, "project", tuple(tried))
    for candidate in _project_candidates(name, project_root, workspace_root):
        tried.append(str(candidate))
        if _executable(candidate):
            return Resolved(name, str(candidate), "project", tuple(tried))
    if local_only:
        # `npx --no-install` runs only what the project installed: a global `tsc` on PATH is no proof.
        return Resolved(name, None, "missing", tuple(tried))
    return _from_elsewhere(name, env, install_dirs, tried)


def _project_candidates(name: str, project_root: Path, workspace_root: Path | None) -> list[Path]:
    """Where a project's own tools are, nearest first: its local bin folders, the node_modules/.bin of the
    folders above it (`hoisted_folders`), then the workspace root's bin folders."""
    candidates = [project_root / rel / name for rel in LOCAL_BIN_DIRS]
    above = hoisted_folders(project_root, workspace_root)
    candidates += [folder / NODE_BIN_DIR / name for folder in above]
    if workspace_root is not None and workspace_root != project_root:
        rels = [rel for rel in LOCAL_BIN_DIRS if not (rel == NODE_BIN_DIR and workspace_root in above)]
        candidates += [workspace_root / rel / name for rel in rels]
    return candidates


def hoisted_folders(project_root: Path, workspace_root: Path | None) -> list[Path]:
    """The folders above a project, nearest first, whose node_modules/.bin may hold its tools: npm, yarn and
    pnpm workspaces hoist a member's dependencies to the workspace root (`npx` walks up for them too). The walk
    ends at the top of the project's repository (the folder holding `.git`); outside a repository at the
    workspace root, and outside both it does not leave the project."""
    parents = project_root.parents
    top = next((folder for folder in (project_root, *parents) if (folder / ".git").exists()), None)
    if top is None and workspace_root is not None and project_root.is_relative_to(workspace_root):
        top = workspace_root
    if top is None or top == project_root:
        return []
    return [folder for folder in parents if folder.is_relative_to(top)]


def _from_setting(
    name: str, setting: str, project_root: Path, env: Mapping[str, str] | None, tried: list[str]
) -> Resolved:
    """The user's setting: a path (relative to the project) or a name looked up on PATH; nothing else is tried."""
    candidate = Path(os.path.expanduser(setting))
    if not candidate.is_absolute():
        candidate = project_root / candidate
    tried.append(f"setting {candidate}")
    if _executable(candidate):
        return Resolved(name, str(candidate), "setting", tuple(tried))
    found = shutil.which(setting, path=(env or os.environ).get("PATH"))
    if found:
        return Resolved(name, found, "setting", tuple(tried))
    log.warning("configured binary %s for %s is not executable", setting, name)
    return Resolved(name, None, "missing", tuple(tried))


def _from_elsewhere(
    name: str, env: Mapping[str, str] | None, install_dirs: Sequence[Path], tried: list[str]
) -> Resolved:
    """PATH, then the language's install folders, then lintel's own environment; rustup proxies with nothing
    behind them are passed over (and said so when nothing else is found)."""
    search_path = (env if env is not None else os.environ).get("PATH", "")
    tried.append("PATH")
    proxies: list[Path] = []
    for entry in filter(None, search_path.split(os.pathsep)):
        candidate = Path(entry) / name
        if _real(candidate, env, proxies):
            return Resolved(name, str(candidate), "path", tuple(tried))
    for folder in install_dirs:
        candidate = folder / name
        tried.append(str(candidate))
        if _real(candidate, env, proxies):
            return Resolved(name, str(candidate), "install-dir", tuple(tried))
    for folder in _own_dirs():
        own = folder / name
        tried.append(str(own))
        if _executable(own):
            return Resolved(name, str(own), "lintel", tuple(tried))
    tried.extend(f"{p} (rustup proxy, component not installed)" for p in proxies)
    return Resolved(name, None, "missing", tuple(tried), proxy_only=bool(proxies))


def _own_dirs() -> list[Path]:
    """Where lintel's own environment keeps the programs it installed (ruff): beside the interpreter in a venv, or
    in the `bin` folder next to the package when installed with `pip install --target` (the VS Code extension's
    self-contained bundle runs a system Python whose own folder has none of them)."""
    folders = [Path(sys.executable).parent]
    target_bin = Path(__file__).resolve().parents[2] / "bin"
    if target_bin.is_dir() and target_bin not in folders:
        folders.append(target_bin)
    return folders


def not_found_message(check: str, binary: str, install_hint: str, *, proxy_only: bool = False) -> str:
    """docs/architecture.md, Errors users see: `<check>: <binary>: not found on PATH` plus how to install it; for a
    rustup proxy with no component behind it, `<check>: <binary> is not installed (<hint>)`."""
    if proxy_only:
        return f"{check}: {binary} is not installed ({install_hint or 'rustup component add ' + binary})"
    message = f"{check}: {binary}: not found on PATH"
    return f"{message} — install it with: {install_hint}" if install_hint else message


def override_argv(spec: ToolSpec, argv: Sequence[str] | None) -> ToolSpec:
    """A user's argv for a check replaces the default command, and its label (`npx vitest`, not the default's
    `pnpm run test`); parser and exit codes stay."""
    if not argv:
        return spec
    return dataclasses.replace(spec, argv=tuple(argv), requires=(), tool=command_label(argv))


# Programs that run another: the label goes on to the program they run.
_LAUNCHERS = frozenset(
    {"npx", "pnpm", "yarn", "npm", "bun", "bunx", "uv", "uvx", "poetry", "pipx", "python", "python3"}
)
_LAUNCHER_WORDS = frozenset({"run", "exec", "x", "dlx"})


def command_label(argv: Sequence[str]) -> str:
    """What a command is called in reports: its program's name (`pytest`), through a launcher to the program it
    launches (`npx --no-install vitest`, `uv run pytest`, `python -m pytest`)."""
    words = [Path(argv[0]).name] if argv else []
    if not words or words[0] not in _LAUNCHERS:
        return " ".join(words)
    for word in argv[1:]:
        words.append(word)
        if not word.startswith("-") and word not in _LAUNCHER_WORDS:
            break
    return " ".join(words)
