"""Which of node's default tools a project uses, and what its own scripts format (docs/architecture.md, "Checks the
project does not use"). Read from package.json and config files, never by running anything.

eslint, tsc and prettier are the project's own dependencies (lintel runs them from node_modules): a project that
does not use one has nothing for that check to run, and its check is `not_configured`, not a missing tool.
"""

from __future__ import annotations

import json
import logging
import re
import shlex
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lintel.languages.base import CheckName, Project
from lintel.languages.evidence import folders_up

log = logging.getLogger(__name__)

# Every form of prettier's configuration file (prettier 3 docs, "Configuration File"); `prettier` in
# package.json is the other one.
PRETTIER_CONFIGS = (
    ".prettierrc",
    ".prettierrc.json",
    ".prettierrc.json5",
    ".prettierrc.yaml",
    ".prettierrc.yml",
    ".prettierrc.toml",
    ".prettierrc.js",
    ".prettierrc.cjs",
    ".prettierrc.mjs",
    ".prettierrc.ts",
    ".prettierrc.cts",
    ".prettierrc.mts",
    "prettier.config.js",
    "prettier.config.cjs",
    "prettier.config.mjs",
    "prettier.config.ts",
    "prettier.config.cts",
    "prettier.config.mts",
)
# eslint's flat config and the legacy eslintrc files; `eslintConfig` in package.json is the other one.
ESLINT_CONFIGS = (
    "eslint.config.js",
    "eslint.config.cjs",
    "eslint.config.mjs",
    "eslint.config.ts",
    "eslint.config.cts",
    "eslint.config.mts",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.json",
    ".eslintrc.yaml",
    ".eslintrc.yml",
)
_DEPENDENCY_TABLES = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
# The commands of a script: a shell joins them with these.
_COMMAND_SEPARATORS = re.compile(r"&&|\|\||[;&|\n]")
# prettier's options that take a value (the next word is not a file).
_PRETTIER_VALUED = frozenset(
    {"--config", "--ignore-path", "--plugin", "--parser", "--log-level", "--cache-location", "--cache-strategy"}
)
# A check is what lintel runs, so a script that checks names the files first; one that writes, next.
_PRETTIER_MODES = (frozenset({"--check", "-c", "--list-different", "-l"}), frozenset({"--write", "-w"}))
# Script names that say "format check" first, so their targets win over a `format --write` elsewhere.
_FORMAT_SCRIPTS = ("format:check", "check:format", "format-check", "prettier:check", "lint:prettier", "prettier")


def not_configured(project: Project, check: CheckName) -> str | None:
    """Why `project` does not use the default tool of `check`, or None when it does (or has a script for it)."""
    if check in ("lint", "typecheck", "test") and check in project.scripts:
        return None
    if check == "lint":
        return None if uses_eslint(project) else "no eslint in this project (no eslint config, no eslint dependency)"
    if check == "typecheck":
        if uses_typescript(project):
            return None
        return "no TypeScript in this project (no tsconfig.json, no typescript dependency)"
    if check == "format":
        if uses_prettier(project):
            return None
        return "no prettier in this project (no prettier config, no prettier dependency or script)"
    return "no test script in package.json"  # test


def uses_typescript(project: Project) -> bool:
    """A tsconfig.json (where tsc looks for one: the project's folder or one above it), a jsconfig.json with
    `checkJs`, or `typescript` among the dependencies of the package (or of the workspace root above it)."""
    for folder in folders_up(project.root):
        if (folder / "tsconfig.json").is_file():
            return True
    if _checks_js(project.root / "jsconfig.json"):
        return True
    return any(_depends_on(manifest, "typescript") for manifest in _manifests(project.root))


def tsc_project(root: Path) -> tuple[str, ...]:
    """`-p jsconfig.json` for a JavaScript project type-checked through its jsconfig.json (`checkJs`) with no
    tsconfig.json where tsc looks: tsc alone reads only tsconfig.json (and prints its help without one)."""
    if any((folder / "tsconfig.json").is_file() for folder in folders_up(root)):
        return ()
    return ("-p", "jsconfig.json") if _checks_js(root / "jsconfig.json") else ()


def uses_prettier(project: Project) -> bool:
    """A prettier config file (in the project's folder or above, where prettier looks), `prettier` in a
    package.json, prettier among the dependencies, or a script that calls it."""
    for folder in folders_up(project.root):
        if any((folder / name).is_file() for name in PRETTIER_CONFIGS):
            return True
    for manifest in _manifests(project.root):
        if "prettier" in manifest or _depends_on(manifest, "prettier"):
            return True
    return any(_prettier_calls(text) for text in project.scripts.values())


def uses_eslint(project: Project) -> bool:
    """An eslint config file (in the project's folder or above), `eslintConfig` in package.json, or eslint among
    the dependencies."""
    for folder in folders_up(project.root):
        if any((folder / name).is_file() for name in ESLINT_CONFIGS):
            return True
    return any("eslintConfig" in m or _depends_on(m, "eslint") for m in _manifests(project.root))


def prettier_targets(scripts: Mapping[str, str]) -> tuple[str, ...] | None:
    """The files and folders the project's own scripts give prettier (`prettier -c src test` → src, test): a
    checking call's first (format-check scripts before the others), else a writing one's; None when no script
    names any (then `prettier --check .`)."""
    ordered = [name for name in _FORMAT_SCRIPTS if name in scripts]
    ordered += sorted(name for name in scripts if name not in ordered)
    calls = [words for name in ordered for words in _prettier_calls(scripts[name])]
    for mode in _PRETTIER_MODES:
        for words in calls:
            targets = _prettier_paths(words)
            if targets and mode.intersection(words):
                return targets
    return None


def _prettier_calls(script: str) -> list[list[str]]:
    """The argument words of each prettier command in a script (`npx prettier …`, `prettier …`)."""
    calls: list[list[str]] = []
    for command in _COMMAND_SEPARATORS.split(script):
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        while words and words[0] in ("npx", "pnpm", "yarn", "bunx", "exec", "--no-install", "dlx"):
            words = words[1:]
        if words and Path(words[0]).name == "prettier":
            calls.append(words[1:])
    return calls


def _prettier_paths(words: list[str]) -> tuple[str, ...]:
    paths: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _PRETTIER_VALUED
        else:
            paths.append(word)
    return tuple(paths)


def _checks_js(path: Path) -> bool:
    data = _read_json(path)
    options = data.get("compilerOptions") if data is not None else None
    return isinstance(options, dict) and options.get("checkJs") is True


def _depends_on(manifest: Mapping[str, Any], package: str) -> bool:
    return any(isinstance(manifest.get(t), dict) and package in manifest[t] for t in _DEPENDENCY_TABLES)


def _manifests(root: Path) -> Iterator[Mapping[str, Any]]:
    """The package's package.json and those above it up to the repository's top (a workspace root's
    devDependencies serve its packages)."""
    for folder in folders_up(root):
        data = _read_json(folder / "package.json")
        if data is not None:
            yield data


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.info("cannot read %s: %s", path, exc)
        return None
    return data if isinstance(data, dict) else None
