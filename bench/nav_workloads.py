"""What bench/navigation.py asks each language server: the fixture workspace it serves and the positions of
the definition, hover and references requests, each named by (file, text on the line, symbol) as in
tests/e2e/test_navigation.py. One position per method sits after é and 🍰, where UTF-8 and UTF-16 columns differ."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORKSPACES = REPO / "tests" / "workspaces"
_NOT_COPIED = shutil.ignore_patterns("target", "node_modules", ".ruff_cache", ".pytest_cache", ".mypy_cache")

METHODS = ("textDocument/definition", "textDocument/hover", "textDocument/references")


@dataclass(frozen=True)
class Ask:
    method: str
    file: str  # relative to the workspace copy
    line_contains: str
    symbol: str

    @property
    def label(self) -> str:
        return f"{self.method.rsplit('/', 1)[1]} {self.file}:{self.symbol}"


@dataclass(frozen=True)
class NavWorkload:
    name: str  # as the table shows it
    workspace: str  # tests/workspaces/<workspace>
    language: str
    binary: str  # what must be on PATH
    ready: Ask  # a definition asked until its answer lands in `ready_in`: the server has loaded the workspace
    ready_in: str
    asks: tuple[Ask, ...]

    @property
    def files(self) -> list[str]:
        """The documents opened (in both sessions) before any request."""
        return list(dict.fromkeys([self.ready.file, *(ask.file for ask in self.asks)]))


def _asks(method: str, *where: tuple[str, str, str]) -> tuple[Ask, ...]:
    return tuple(Ask(f"textDocument/{method}", *w) for w in where)


WORKLOADS: dict[str, NavWorkload] = {
    "pyright": NavWorkload(
        name="pyright",
        workspace="python",
        language="python",
        binary="basedpyright-langserver",
        ready=Ask("textDocument/definition", "src/inventory/labels.py", "é 🍰", "total_value"),
        ready_in="src/inventory/models.py",
        asks=(
            *_asks(
                "definition",
                ("src/inventory/labels.py", "é 🍰", "total_value"),
                ("tests/test_models.py", "restock(item, 2)", "restock"),
            ),
            *_asks(
                "hover",
                ("src/inventory/labels.py", "é 🍰", "total_value"),
                ("tests/test_models.py", "restock(item, 2)", "restock"),
            ),
            *_asks(
                "references",
                ("src/inventory/models.py", "def total_value", "total_value"),
                ("src/inventory/models.py", "class Item", "Item"),
            ),
        ),
    ),
    "gopls": NavWorkload(
        name="gopls",
        workspace="go",
        language="go",
        binary="gopls",
        ready=Ask("textDocument/definition", "label.go", "é 🍰", "Greeting"),
        ready_in="greet.go",
        asks=(
            *_asks("definition", ("label.go", "é 🍰", "Greeting"), ("greet_test.go", 'Greeting("Ana")', "Greeting")),
            *_asks("hover", ("label.go", "é 🍰", "Greeting"), ("greet.go", "func Greeting", "Greeting")),
            *_asks("references", ("greet.go", "func Greeting", "Greeting"), ("label.go", "func Label", "Label")),
        ),
    ),
    "tsserver": NavWorkload(
        name="tsserver",
        workspace="node",
        language="node",
        binary="typescript-language-server",
        # Asked until it reaches api.ts: while tsserver loads the project it answers with the import binding.
        ready=Ask("textDocument/definition", "src/labels.ts", "é 🍰", "describe"),
        ready_in="src/api.ts",
        asks=(
            *_asks(
                "definition",
                ("src/labels.ts", "é 🍰", "describe"),
                ("src/labels.ts", "shelfLabel(user: User)", "User"),
            ),
            *_asks(
                "hover",
                ("src/labels.ts", "é 🍰", "describe"),
                ("src/api.ts", "export function describe", "describe"),
            ),
            *_asks(
                "references",
                ("src/api.ts", "export function describe", "describe"),
                ("src/api.ts", "export interface User", "User"),
            ),
        ),
    ),
}


def copy_workspace(name: str, dest: Path) -> Path:
    """A private copy of tests/workspaces/<name>; node_modules symlinked back (typescript resolves from there)."""
    source = WORKSPACES / name
    shutil.copytree(source, dest, symlinks=True, ignore=_NOT_COPIED)
    for current, dirs, _ in os.walk(source):
        if "node_modules" in dirs:
            modules = Path(current) / "node_modules"
            (dest / modules.relative_to(source)).symlink_to(modules, target_is_directory=True)
        dirs[:] = [d for d in dirs if d not in ("node_modules", "target", ".git")]
    return dest


def columns(text: str, characters: int, encoding: str) -> int:
    """The first `characters` code points of `text`, counted in `encoding`'s units."""
    prefix = text[:characters]
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    if encoding == "utf-16":
        return len(prefix.encode("utf-16-le")) // 2
    return len(prefix)


def characters(text: str, units: int, encoding: str) -> int:
    """How many code points of `text` the first `units` units of `encoding` cover (the inverse of columns)."""
    if encoding == "utf-8":
        return len(text.encode("utf-8")[:units].decode("utf-8", errors="ignore"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")[: units * 2].decode("utf-16-le", errors="ignore"))
    return min(units, len(text))


def position(root: Path, ask: Ask, encoding: str) -> dict[str, int]:
    """The LSP position of `ask.symbol` (as a whole word) on the first line containing `ask.line_contains`."""
    lines = (root / ask.file).read_text(encoding="utf-8").splitlines()
    for number, text in enumerate(lines):
        if ask.line_contains in text:
            found = re.compile(rf"(?<!\w){re.escape(ask.symbol)}").search(text, text.index(ask.line_contains))
            if found is None:
                raise ValueError(f"no {ask.symbol!r} on {text!r}")
            return {"line": number, "character": columns(text, found.start(), encoding)}
    raise ValueError(f"no line containing {ask.line_contains!r} in {ask.file}")
