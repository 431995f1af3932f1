"""What bench/navigation.py asks each language server: the fixture workspace it serves and the positions of
the definition, hover and references requests, each named by (file, text on the line, symbol) as in
tests/e2e/test_navigation.py. One position per method sits after é and 🍰, where UTF-8 and UTF-16 columns differ."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


# -- the relayed method classes (bench/navigation.py --sections methods) ----------------------------------------

RELAYED_METHODS = (
    "textDocument/codeLens",
    "textDocument/foldingRange",
    "textDocument/selectionRange",
    "textDocument/documentLink",
    "textDocument/inlayHint",
    "textDocument/prepareCallHierarchy",
)
# The child capability each of them needs (its ServerCapabilities member, as JSON).
PROVIDERS = {
    "textDocument/codeLens": "codeLensProvider",
    "textDocument/foldingRange": "foldingRangeProvider",
    "textDocument/selectionRange": "selectionRangeProvider",
    "textDocument/documentLink": "documentLinkProvider",
    "textDocument/inlayHint": "inlayHintProvider",
    "textDocument/prepareCallHierarchy": "callHierarchyProvider",
    "textDocument/semanticTokens/full": "semanticTokensProvider",
}


@dataclass(frozen=True)
class DocAsk:
    """A request about a whole document (code lenses, folding, links, inlay hints over all of it) or, with a
    symbol, at a position in it (selection ranges, call hierarchy)."""

    method: str
    file: str
    line_contains: str = ""
    symbol: str = ""

    @property
    def label(self) -> str:
        return f"{self.method.rsplit('/', 1)[1]} {self.file}" + (f":{self.symbol}" if self.symbol else "")

    def params(self, root: Path, encoding: str) -> dict[str, Any]:
        path = root / self.file
        params: dict[str, Any] = {"textDocument": {"uri": path.as_uri()}}
        where = Ask(self.method, self.file, self.line_contains, self.symbol)
        if self.method == "textDocument/inlayHint":
            lines = path.read_text(encoding="utf-8").count("\n")
            params["range"] = {"start": {"line": 0, "character": 0}, "end": {"line": lines + 1, "character": 0}}
        elif self.method == "textDocument/selectionRange":
            params["positions"] = [position(root, where, encoding)]
        elif self.symbol:
            params["position"] = position(root, where, encoding)
        return params


RELAYED_ASKS: dict[str, tuple[DocAsk, ...]] = {
    "gopls": (
        DocAsk("textDocument/codeLens", "greet_test.go"),
        DocAsk("textDocument/foldingRange", "greet.go"),
        DocAsk("textDocument/selectionRange", "label.go", "é 🍰", "Greeting"),
        DocAsk("textDocument/documentLink", "greet.go"),
        DocAsk("textDocument/inlayHint", "greet.go"),
        DocAsk("textDocument/prepareCallHierarchy", "label.go", "é 🍰", "Greeting"),
    ),
    "tsserver": (
        DocAsk("textDocument/codeLens", "src/api.ts"),
        DocAsk("textDocument/foldingRange", "src/api.ts"),
        DocAsk("textDocument/selectionRange", "src/labels.ts", "é 🍰", "describe"),
        DocAsk("textDocument/documentLink", "src/api.ts"),
        DocAsk("textDocument/inlayHint", "src/labels.ts"),
        DocAsk("textDocument/prepareCallHierarchy", "src/labels.ts", "é 🍰", "describe"),
    ),
}

# What the editor answers the servers' workspace/configuration with, by section, on both sides (lintel relays a
# child's question to the editor). gopls leaves code lenses, inlay hints and semantic tokens off without them.
SETTINGS: dict[str, Any] = {
    "gopls": {
        "codelenses": {"test": True, "generate": True, "tidy": True},
        "hints": {
            "assignVariableTypes": True,
            "compositeLiteralFields": True,
            "compositeLiteralTypes": True,
            "constantValues": True,
            "functionTypeParameters": True,
            "parameterNames": True,
            "rangeVariableTypes": True,
        },
        "semanticTokens": True,
    },
}


# -- semantic tokens of a generated file (bench/navigation.py --sections tokens) ---------------------------------


@dataclass(frozen=True)
class TokenWorkload:
    name: str
    workspace: str
    language: str
    binary: str
    file: str  # the generated file, relative to the workspace copy
    edit_line: int  # the line a round with an edit changes: "é 🍰" on it becomes "é 🍰 edited", and back


TOKEN_WORKLOADS: dict[str, TokenWorkload] = {
    "tsserver": TokenWorkload("tsserver", "node", "node", "typescript-language-server", "src/generated.ts", 8),
    "rust-analyzer": TokenWorkload("rust-analyzer", "rust", "rust", "rust-analyzer", "src/generated.rs", 9),
}


def typescript_source(lines: int) -> str:
    """About `lines` lines of TypeScript: interfaces, classes, functions and calls, one line in five with é or 🍰
    before more tokens on it (columns differ between UTF-8 and UTF-16 there)."""
    out = ["// Generated by bench/nav_workloads.py: semantic tokens of a long file.", ""]
    block = 0
    while len(out) + 14 <= lines:
        n = block
        out += [
            f"export interface Record{n} {{",
            "  id: number;",
            "  readonly name: string;",
            "}",
            f"export class Store{n} {{",
            f"  private items: Record{n}[] = [];",
            f'  label = "é 🍰 {n}"; count = this.items.length; static shared = Math.max(1, {n});',
            f"  add(item: Record{n}): number {{ return this.items.push(item); }}",
            "}",
            f"export function make{n}(id: number, name: string): Record{n} {{",
            '  const prefix = "café"; const record = { id, name: `${prefix} ${name}` }; return record;',
            "}",
            f'export const store{n} = new Store{n}(); store{n}.add(make{n}({n}, "é"));',
            "",
        ]
        block += 1
    out += [""] * (lines - len(out))
    return "\n".join(out) + "\n"


def rust_source(lines: int) -> str:
    """About `lines` lines of Rust in the same spirit: structs, impls, functions, macros, non-ASCII strings."""
    out = ["//! Generated by bench/nav_workloads.py: semantic tokens of a long file.", ""]
    block = 0
    while len(out) + 15 <= lines:
        n = block
        out += [
            "#[derive(Debug, Clone, PartialEq)]",
            f"pub struct Record{n} {{",
            "    pub id: u32,",
            "    pub name: String,",
            "}",
            "",
            f"impl Record{n} {{",
            '    pub fn label(&self) -> String { let cake = "é 🍰"; format!("{cake} {}", self.name) }',
            "    pub fn bump(&mut self, by: u32) -> u32 {",
            "        self.id += by;",
            "        self.id",
            "    }",
            "}",
            f'pub fn make{n}(id: u32) -> Record{n} {{ Record{n} {{ id, name: String::from("café") }} }}',
            "",
        ]
        block += 1
    out += [""] * (lines - len(out))
    return "\n".join(out) + "\n"


def generate_token_file(workload: TokenWorkload, root: Path, lines: int) -> Path:
    """The generated file written into the workspace copy (a Rust module declared in lib.rs)."""
    path = root / workload.file
    if workload.name == "rust-analyzer":
        path.write_text(rust_source(lines), encoding="utf-8")
        lib = root / "src" / "lib.rs"
        text = lib.read_text(encoding="utf-8")
        if "pub mod generated;" not in text:
            lib.write_text(text.replace("pub mod shapes;", "pub mod shapes;\npub mod generated;", 1), encoding="utf-8")
    else:
        path.write_text(typescript_source(lines), encoding="utf-8")
    return path
