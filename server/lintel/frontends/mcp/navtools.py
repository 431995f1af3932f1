"""The MCP navigation tools: definition, references, rename, hover and symbols answered by the workspace's language
servers (lintel.frontends.mcp.servers). Positions are 1-based, columns in code points, as Issue records count
them; a symbol's name may stand for the position. Answers are `file:line:column` and the source line."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pygls.uris import to_fs_path

from lintel.engine import actions
from lintel.frontends.mcp.navedit import plan_workspace_edit, unified_diff, write_changes
from lintel.frontends.mcp.tools import Answer
from lintel.frontends.mcp.workspace import Workspace

if TYPE_CHECKING:
    from lintel.frontends.mcp.servers import AgentServers

SHOWN = 20  # items listed in a summary
KEPT = 500  # items kept in a structured answer
HOVER_CHARS = 2000
DIFF_LINES = 120  # of a dry run's diff, in the summary

# The methods asked, by name: lsprotocol (with the relay) loads with the first tool call, not with the tool list.
_DOCUMENT_SYMBOL = "textDocument/documentSymbol"
_DEFINITION = "textDocument/definition"
_REFERENCES = "textDocument/references"
_HOVER = "textDocument/hover"
_RENAME = "textDocument/rename"

__all__ = ["NAV_BY_NAME", "NAV_TOOLS", "NavArgs", "NavTool", "find_symbol", "word_occurrence"]


@dataclass(frozen=True)
class NavArgs:
    values: dict[str, Any]

    def get(self, name: str) -> Any:
        return self.values.get(name)


@dataclass(frozen=True)
class Where:
    """A resolved position: the file, its folder, the 0-based line and code-point column."""

    folder: Workspace
    path: Path
    line: int
    column: int


_FILE = {"type": "string", "description": "the file, relative to the workspace root or absolute"}
_LINE = {"type": "integer", "minimum": 1, "description": "1-based line"}
_COLUMN = {"type": "integer", "minimum": 1, "description": "1-based column, in characters (code points)"}
_SYMBOL = {
    "type": "string",
    "description": "a name in the file standing for the position (instead of line and column): the symbol the "
    "file declares with that name, else its first whole-word occurrence",
}
_POSITION = {"file": _FILE, "line": _LINE, "column": _COLUMN, "symbol": _SYMBOL}
_LOCATION_SCHEMA = {
    "type": "object",
    "properties": {
        "file": {"type": "string"},
        "line": {"type": "integer"},
        "column": {"type": "integer"},
        "endLine": {"type": "integer"},
        "endColumn": {"type": "integer"},
        "text": {"type": "string"},
    },
    "required": ["file", "line", "column"],
}
_SYMBOL_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "kind": {"type": "string"},
        "file": {"type": "string"},
        "line": {"type": "integer"},
        "column": {"type": "integer"},
        "container": {"type": "string"},
    },
    "required": ["name", "kind", "file", "line", "column"],
}


def _list_schema(key: str, item: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": item}, "total": {"type": "integer"}},
        "required": [key, "total"],
    }


Run = Callable[["AgentServers", NavArgs], Awaitable[Answer]]


@dataclass(frozen=True)
class NavTool:
    name: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...]
    output: dict[str, Any]
    run: Run

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties, "additionalProperties": False}
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def output_schema(self) -> dict[str, Any]:
        return self.output

    def parse(self, arguments: dict[str, Any] | None) -> NavArgs:
        """Unknown, missing or mistyped arguments refused with the tool's name first (an `invalid` error)."""
        values = dict(arguments or {})
        problems = [f"{name}: Extra inputs are not permitted" for name in sorted(values) if name not in self.properties]
        problems += [f"{name}: Field required" for name in self.required if values.get(name) is None]
        for name, value in values.items():
            expected = self.properties.get(name, {}).get("type")
            if value is None or expected is None:
                continue
            if not _typed(value, expected):
                problems.append(f"{name}: must be {'an' if expected == 'integer' else 'a'} {expected}")
            elif expected == "integer" and value < self.properties[name].get("minimum", value):
                problems.append(f"{name}: must be at least {self.properties[name]['minimum']}")
        if problems:
            raise actions.invalid(f"{self.name}: {'; '.join(problems)}")
        return NavArgs(values)

    async def call(self, servers: AgentServers, args: NavArgs) -> Answer:
        return await self.run(servers, args)


def _typed(value: Any, expected: str) -> bool:
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "boolean":
        return isinstance(value, bool)
    return isinstance(value, str)


# -- positions ------------------------------------------------------------------------------------------------


def _lines(servers: AgentServers, path: Path) -> list[str]:
    return servers.lines(path.as_uri()) or [""]


def word_occurrence(lines: Sequence[str], name: str) -> tuple[int, int] | None:
    """The first whole-word occurrence of `name`: 0-based line and code-point column."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    for number, text in enumerate(lines):
        found = word.search(text)
        if found is not None:
            return number, found.start()
    return None


def _flatten(symbols: Any, container: str | None = None) -> list[tuple[dict[str, Any], str | None]]:
    """(symbol, its container's name) of a DocumentSymbol tree or a SymbolInformation list."""
    out: list[tuple[dict[str, Any], str | None]] = []
    for symbol in symbols if isinstance(symbols, list) else []:
        if not isinstance(symbol, dict) or not isinstance(symbol.get("name"), str):
            continue
        out.append((symbol, container if container is not None else symbol.get("containerName")))
        out.extend(_flatten(symbol.get("children"), symbol["name"]))
    return out


def _start(symbol: dict[str, Any]) -> tuple[int, int] | None:
    span = symbol.get("selectionRange") or (symbol.get("location") or {}).get("range") or symbol.get("range")
    start = span.get("start") if isinstance(span, dict) else None
    if isinstance(start, dict) and isinstance(start.get("line"), int) and isinstance(start.get("character"), int):
        return start["line"], start["character"]
    return None


def _bare(name: str) -> str:
    """gopls names methods `(*T).Name` or `T.Name`, some servers `name()`; a bare name matches them."""
    return re.sub(r"\(.*\)$", "", name).rsplit(".", 1)[-1]


def find_symbol(symbols: Any, lines: Sequence[str], name: str, shown: str) -> tuple[int, int]:
    """The position `name` stands for: the one symbol of that name the file declares, else its first whole-word
    occurrence. Several declarations: an error listing them (`shown`: the file as the agent names it)."""
    matches = {
        position
        for symbol, _ in _flatten(symbols)
        if symbol["name"] == name or _bare(symbol["name"]) == name
        if (position := _start(symbol)) is not None
    }
    if len(matches) == 1:
        return next(iter(matches))
    if matches:
        listed = ", ".join(f"{shown}:{line + 1}:{column + 1}" for line, column in sorted(matches))
        raise actions.invalid(f"{name!r} is declared {len(matches)} times in {shown}: {listed}; pass line and column")
    found = word_occurrence(lines, name)
    if found is None:
        raise actions.invalid(f"{name!r} does not occur in {shown}")
    return found


async def _where(servers: AgentServers, args: NavArgs) -> Where:
    """The position the arguments name, checked against the file's text."""
    folder, path = actions.inside(servers.host.folders, args.get("file"), what="file")
    if not path.is_file():
        raise actions.invalid(f"file {args.get('file')!r} is not a file")
    await servers.child(path)
    lines = _lines(servers, path)
    shown = _shown(folder, path)
    symbol, line, column = args.get("symbol"), args.get("line"), args.get("column")
    if symbol is not None:
        if line is not None or column is not None:
            raise actions.invalid("pass either symbol, or line and column, not both")
        found = await servers.request(path, _DOCUMENT_SYMBOL, {})
        at_line, at_column = find_symbol(found, lines, symbol, shown)
        return Where(folder, path, at_line, at_column)
    if line is None or column is None:
        raise actions.invalid("pass line and column (1-based), or symbol")
    if line > len(lines):
        raise actions.invalid(f"line {line} is past the end of {shown} ({len(lines)} lines)")
    if column > len(lines[line - 1]) + 1:
        raise actions.invalid(
            f"column {column} is past the end of line {line} of {shown} ({len(lines[line - 1])} chars)"
        )
    return Where(folder, path, line - 1, column - 1)


def _position(where: Where) -> dict[str, Any]:
    return {"position": {"line": where.line, "character": where.column}}


# -- answers ---------------------------------------------------------------------------------------------------


def _shown(folder: Workspace, path: Path) -> str:
    try:
        return path.relative_to(folder.root).as_posix()
    except ValueError:
        return str(path)


def _uri_shown(servers: AgentServers, uri: str) -> tuple[str, Path | None]:
    fs = to_fs_path(uri)
    path = Path(fs) if fs else None
    if path is None:
        return uri, None
    folder = actions.folder_for(servers.host.folders, path)
    return (_shown(folder, path) if folder is not None else str(path)), path


def _location(servers: AgentServers, uri: str, span: Any) -> dict[str, Any] | None:
    start = span.get("start") if isinstance(span, dict) else None
    end = span.get("end") if isinstance(span, dict) else None
    if not isinstance(start, dict) or not isinstance(end, dict):
        return None
    shown, path = _uri_shown(servers, uri)
    lines = servers.lines(uri) if path is not None else None
    line = start.get("line", 0)
    text = lines[line].strip() if lines is not None and 0 <= line < len(lines) else ""
    return {
        "file": shown,
        "line": line + 1,
        "column": start.get("character", 0) + 1,
        "endLine": end.get("line", 0) + 1,
        "endColumn": end.get("character", 0) + 1,
        "text": text,
    }


def locations(servers: AgentServers, result: Any) -> list[dict[str, Any]]:
    """Location, Location[] or LocationLink[] as location records (a link's target selection)."""
    items = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
    out: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri", item.get("targetUri"))
        span = item.get("range", item.get("targetSelectionRange"))
        found = _location(servers, uri, span) if isinstance(uri, str) else None
        if found is not None and found not in out:
            out.append(found)
    return out


def _line_of(item: dict[str, Any]) -> str:
    text = item.get("text") or ""
    head = f"{item['file']}:{item['line']}:{item['column']}"
    if "name" in item:
        head += f" {item['kind']} {item['name']}"
    return f"{head}  {text}" if text else head


def _listing(head: str, key: str, items: list[dict[str, Any]]) -> Answer:
    lines = [head, *(_line_of(i) for i in items[:SHOWN])]
    if len(items) > SHOWN:
        lines.append(f"… {len(items) - SHOWN} more (see the structured result)")
    return Answer({key: items[:KEPT], "total": len(items)}, "\n".join(lines))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _at(where: Where) -> str:
    return f"{_shown(where.folder, where.path)}:{where.line + 1}:{where.column + 1}"


# -- the tools -----------------------------------------------------------------------------------------------


async def find_definition(servers: AgentServers, args: NavArgs) -> Answer:
    where = await _where(servers, args)
    result = await servers.request(where.path, _DEFINITION, _position(where))
    found = locations(servers, result)
    head = f"{_plural(len(found), 'definition')} of {_at(where)}" if found else f"no definition found at {_at(where)}"
    return _listing(head, "locations", found)


async def find_references(servers: AgentServers, args: NavArgs) -> Answer:
    where = await _where(servers, args)
    include = args.get("include_declaration")
    params = {**_position(where), "context": {"includeDeclaration": True if include is None else include}}
    result = await servers.request(where.path, _REFERENCES, params)
    found = locations(servers, result)
    return _listing(f"{_plural(len(found), 'reference')} to {_at(where)}", "locations", found)


def hover_text(contents: Any) -> str:
    if isinstance(contents, str):
        return contents
    if isinstance(contents, dict):
        value = contents.get("value")
        return value if isinstance(value, str) else ""
    if isinstance(contents, list):
        return "\n\n".join(t for t in (hover_text(c) for c in contents) if t)
    return ""


async def hover(servers: AgentServers, args: NavArgs) -> Answer:
    where = await _where(servers, args)
    result = await servers.request(where.path, _HOVER, _position(where))
    text = hover_text(result.get("contents")) if isinstance(result, dict) else ""
    structured: dict[str, Any] = {"file": _shown(where.folder, where.path), "line": where.line + 1}
    structured.update(column=where.column + 1, contents=text)
    if not text:
        return Answer(structured, f"nothing to show at {_at(where)}")
    shown = text if len(text) <= HOVER_CHARS else text[:HOVER_CHARS] + "…"
    return Answer(structured, f"{_at(where)}:\n{shown.strip()}")


def _symbol_record(servers: AgentServers, symbol: dict[str, Any], container: str | None, uri: str) -> dict[str, Any]:
    from lsprotocol.types import SymbolKind  # loaded already: the relay that answered imports it

    location = symbol.get("location") if isinstance(symbol.get("location"), dict) else None
    own_uri = location.get("uri", uri) if location is not None else uri
    start = _start(symbol) or (0, 0)
    shown, _ = _uri_shown(servers, own_uri)
    kind = symbol.get("kind")
    kinds = {k.value: k.name for k in SymbolKind}
    record: dict[str, Any] = {
        "name": symbol["name"],
        "kind": kinds.get(kind, str(kind)) if isinstance(kind, int) else str(kind),
        "file": shown,
        "line": start[0] + 1,
        "column": start[1] + 1,
    }
    if isinstance(container, str) and container:
        record["container"] = container
    return record


async def document_symbols(servers: AgentServers, args: NavArgs) -> Answer:
    folder, path = actions.inside(servers.host.folders, args.get("file"), what="file")
    result = await servers.request(path, _DOCUMENT_SYMBOL, {})
    uri = path.as_uri()
    found = [_symbol_record(servers, s, c, uri) for s, c in _flatten(result)]
    return _listing(f"{_plural(len(found), 'symbol')} in {_shown(folder, path)}", "symbols", found)


async def workspace_symbols(servers: AgentServers, args: NavArgs) -> Answer:
    if not servers.host.trusted:
        raise actions.failed(actions.NOT_TRUSTED)
    query, language = args.get("query"), args.get("language")
    result = await servers.workspace_symbol(query, language)
    found = [_symbol_record(servers, s, s.get("containerName"), "") for s in result if isinstance(s, dict)]
    found = [s for s in found if s["file"]]
    return _listing(f"{_plural(len(found), 'symbol')} matching {query!r}", "symbols", found)


async def rename_symbol(servers: AgentServers, args: NavArgs) -> Answer:
    where = await _where(servers, args)
    new_name, dry_run = args.get("new_name"), bool(args.get("dry_run"))
    edit = await servers.request(where.path, _RENAME, {**_position(where), "newName": new_name})
    if not isinstance(edit, dict):
        raise actions.failed(f"the language server renames nothing at {_at(where)}")
    changes = plan_workspace_edit(edit, [f.root for f in servers.host.folders])
    files: list[dict[str, Any]] = []
    for change in changes:
        shown = _uri_shown(servers, change.path.as_uri())[0]
        files.append({"file": shown, "edits": change.edits, "diff": unified_diff(change, shown)})
    if not dry_run:
        write_changes(changes)
        servers.written([c.path for c in changes])
    edits = sum(c.edits for c in changes)
    verb = "would change" if dry_run else "changed"
    head = f"rename to {new_name!r} at {_at(where)}: {verb} {_plural(edits, 'place')} in {_plural(len(files), 'file')}"
    lines = [head, *(f"{f['file']}: {f['edits']} edits" for f in files[:SHOWN])]
    if dry_run:
        diff = "".join(str(f["diff"]) for f in files).splitlines()
        lines.extend(diff[:DIFF_LINES])
        if len(diff) > DIFF_LINES:
            lines.append(f"… {len(diff) - DIFF_LINES} more diff lines (see the structured result)")
    return Answer({"applied": not dry_run, "dryRun": dry_run, "files": files}, "\n".join(lines))


_NAV_OUTPUT = _list_schema("locations", _LOCATION_SCHEMA)
NAV_TOOLS: tuple[NavTool, ...] = (
    NavTool(
        "find_definition",
        "Where the symbol at a position (or named by `symbol`) is defined, by the file's language server: "
        "file:line:column and the source line.",
        _POSITION,
        ("file",),
        _NAV_OUTPUT,
        find_definition,
    ),
    NavTool(
        "find_references",
        "Every reference to the symbol at a position (or named by `symbol`) across the workspace, by the file's "
        "language server.",
        {**_POSITION, "include_declaration": {"type": "boolean", "description": "list the declaration too (default)"}},
        ("file",),
        _NAV_OUTPUT,
        find_references,
    ),
    NavTool(
        "rename_symbol",
        "Rename the symbol at a position (or named by `symbol`) everywhere, as the file's language server does it, "
        "and write the files; `dry_run` returns the change as unified diffs and writes nothing. Refused when it "
        "would touch a file outside the workspace.",
        {
            **_POSITION,
            "new_name": {"type": "string", "description": "the new name"},
            "dry_run": {"type": "boolean", "description": "show the diff, write nothing"},
        },
        ("file", "new_name"),
        {
            "type": "object",
            "properties": {
                "applied": {"type": "boolean"},
                "dryRun": {"type": "boolean"},
                "files": {"type": "array", "items": {"type": "object"}},
            },
            "required": ["applied", "dryRun", "files"],
        },
        rename_symbol,
    ),
    NavTool(
        "hover",
        "The type and documentation of the symbol at a position (or named by `symbol`), by the file's language server.",
        _POSITION,
        ("file",),
        {
            "type": "object",
            "properties": {
                "file": {"type": "string"},
                "line": {"type": "integer"},
                "column": {"type": "integer"},
                "contents": {"type": "string"},
            },
            "required": ["file", "line", "column", "contents"],
        },
        hover,
    ),
    NavTool(
        "document_symbols",
        "The symbols a file declares (functions, types, methods, variables), one per line with their position.",
        {"file": _FILE},
        ("file",),
        _list_schema("symbols", _SYMBOL_SCHEMA),
        document_symbols,
    ),
    NavTool(
        "workspace_symbols",
        "Symbols matching a query across the workspace, from every language server of its projects (of `language`).",
        {
            "query": {"type": "string", "description": "the name or part of it"},
            "language": {"type": "string", "description": "only this language's symbols (go, rust, node, python)"},
        },
        ("query",),
        _list_schema("symbols", _SYMBOL_SCHEMA),
        workspace_symbols,
    ),
)
NAV_BY_NAME = {tool.name: tool for tool in NAV_TOOLS}
