"""Test names in JavaScript and TypeScript test files, read from the source: the `describe`/`it`/`test` calls
(and `suite`, `context`, `specify`, jest's `fit`/`xit`/`xtest`/`fdescribe`/`xdescribe`, with `.only`/`.skip`/
`.todo`/`.concurrent`…) whose title is a literal — a string or a template without `${}` — with the spans of their
calls. A tokenizer skips strings, template literals, comments and regular expressions, so none of those can open
or close a call. Enough to turn `file:line` into a test's name, to check that a name exists (runTests) and to list
a file's tests (lintel.discoverTests, `testfind`).

Not found: `.each`/`.for` tables and `.skipIf(…)`/`.runIf(…)`, titles computed at run time (`${}`, concatenation,
variables), subtests through a context (`t.test(…)`), tests a helper function declares; a `/` after `)` is read
as a division (a regular expression there is rare).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

SUITES = frozenset({"describe", "suite", "context", "fdescribe", "xdescribe", "xcontext"})
TESTS = frozenset({"it", "test", "specify", "fit", "xit", "xtest", "xspecify"})
_MODIFIERS = frozenset({"only", "skip", "todo", "concurrent", "sequential", "fails", "failing", "shuffle"})
# A project's own name for a conditional suite (`describeOrSkipOnWindows = win ? describe.skip : describe`).
_SUITE_ALIAS = re.compile(r"^(?:describe[A-Z_]\w*|[a-z]\w*Describe(?:[A-Z_]\w*)?)$")
_TABLES = frozenset({"each", "for", "skipIf", "runIf"})  # a call that returns the runner function
SOURCES = frozenset({".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx"})
# After these a `/` starts a regular expression, not a division.
_BEFORE_REGEX = frozenset("(,=:[!&|?{};+-*%<>~^")
_KEYWORDS_BEFORE_EXPRESSION = frozenset(
    {
        "return",
        "typeof",
        "instanceof",
        "in",
        "of",
        "new",
        "delete",
        "void",
        "throw",
        "case",
        "do",
        "else",
        "yield",
        "await",
    }
)
_NAME = re.compile(r"[\w$\u0080-\U0010ffff]+")
# Spaces and comments, then the next token: its kind is the group that matched.
_NEXT = re.compile(
    r"(?:\s+|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z))*"
    r"(?:(?P<name>[\w$\u0080-\U0010ffff]+)|(?P<quote>['\"])|(?P<tick>`)|(?P<slash>/)|(?P<punct>[\s\S])|\Z)"
)
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class Tok(NamedTuple):
    kind: str  # "name", "str" (a literal title: `value` set), "dyn" (a template with `${}`), "regex", "punct"
    text: str
    start: int
    end: int
    value: str | None = None


def tokenize(text: str) -> list[Tok]:
    out: list[Tok] = []
    _lex(text, 0, out, nested=False)
    return out


def _lex(text: str, index: int, out: list[Tok], *, nested: bool) -> int:
    """Tokens from `index`; with `nested` (a template's `${…}`), up to and past the `}` that closes it."""
    depth = 0
    size = len(text)
    while index < size:
        match = _NEXT.match(text, index)
        assert match is not None  # the last alternative matches anything, the end included
        kind = match.lastgroup
        start = match.start(kind) if kind is not None else size
        if kind == "name":
            out.append(Tok("name", match.group(kind), start, match.end()))
            index = match.end()
        elif kind == "punct":
            char = match.group(kind)
            if nested and char == "}" and depth == 0:
                return start + 1
            depth += 1 if char == "{" else -1 if char == "}" else 0
            out.append(Tok("punct", char, start, start + 1))
            index = start + 1
        elif kind == "quote":
            index = _quoted(text, start, out)
        elif kind == "tick":
            index = _template(text, start, out)
        elif kind == "slash" and _regex_may_start(out):
            index = _regex(text, start, out)
        elif kind == "slash":
            out.append(Tok("punct", "/", start, start + 1))
            index = start + 1
        else:
            return size
    return size


def _regex_may_start(out: list[Tok]) -> bool:
    if not out:
        return True
    last = out[-1]
    if last.kind == "punct":
        return last.text in _BEFORE_REGEX
    return last.kind == "name" and last.text in _KEYWORDS_BEFORE_EXPRESSION


def _quoted(text: str, start: int, out: list[Tok]) -> int:
    """A '…' or "…" string (it cannot span lines: an unclosed one ends at the line's end)."""
    quote = text[start]
    index = start + 1
    while index < len(text) and text[index] not in (quote, "\n"):
        index += 2 if text[index] == "\\" else 1
    end = min(index + 1, len(text))
    out.append(Tok("str", text[start:end], start, end, _unescape(text[start + 1 : index])))
    return end


def _template(text: str, start: int, out: list[Tok]) -> int:
    index = start + 1
    dynamic = False
    while index < len(text) and text[index] != "`":
        if text[index] == "\\":
            index += 2
        elif text.startswith("${", index):
            dynamic = True
            index = _lex(text, index + 2, [], nested=True)
        else:
            index += 1
    end = min(index + 1, len(text))
    value = None if dynamic else _unescape(text[start + 1 : index])
    out.append(Tok("dyn" if dynamic else "str", text[start:end], start, end, value))
    return end


def _regex(text: str, start: int, out: list[Tok]) -> int:
    """A regular expression literal, its classes (`[/]`) and flags included; a `/` whose line ends first is a
    division after all."""
    index = start + 1
    in_class = False
    while index < len(text) and text[index] != "\n":
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            flags = _NAME.match(text, index + 1)
            end = flags.end() if flags else index + 1
            out.append(Tok("regex", text[start:end], start, end))
            return end
        index += 1
    out.append(Tok("punct", "/", start, start + 1))
    return start + 1


def _unescape(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        if code[0] in "ux" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""  # a line continuation
        return _SIMPLE_ESCAPES.get(code, code)

    return _ESCAPE.sub(one, body)


@dataclass(frozen=True)
class JsCall:
    """A titled suite or test: its titles (suites first), offsets of its call (callee through `)`)."""

    path: tuple[str, ...]
    suite: bool
    start: int
    end: int


def scan_text(text: str) -> list[JsCall]:
    """Every suite and test with a literal title, in source order (a suite before what is inside it). What a call
    with a title computed at run time (or an `.each` table) holds is left out too: its names are not known."""
    toks = tokenize(text)
    closing = _closing_brackets(toks)
    found: list[JsCall] = []
    around: list[JsCall] = []  # the calls whose parentheses are still open
    opaque = -1  # the end offset of the last call whose titles are unknown
    for index, tok in enumerate(toks):
        suite = tok.kind == "name" and (tok.text in SUITES or _SUITE_ALIAS.match(tok.text) is not None)
        if tok.kind != "name" or (not suite and tok.text not in TESTS) or tok.start < opaque:
            continue
        call = _titled_call(toks, index, closing)
        if call is None:
            continue
        title, end = call
        if title is None:
            opaque = end
            continue
        while around and around[-1].end <= tok.start:
            around.pop()
        parents = around[-1].path if around else ()
        found.append(JsCall((*parents, title), suite, tok.start, end))
        around.append(found[-1])
    return found


def _titled_call(toks: Sequence[Tok], index: int, closing: Mapping[int, int]) -> tuple[str | None, int] | None:
    """(title, end offset) when the name at `index` calls a runner: the title None when it is not a literal
    (or the call is a table's, `.each(…)(…)`); None when this is no such call."""
    if index > 0 and toks[index - 1].text in (".", "function"):
        return None
    position = index + 1
    while position + 1 < len(toks) and toks[position].text == "." and toks[position + 1].text in _MODIFIERS:
        position += 2
    if position + 1 < len(toks) and toks[position].text == "." and toks[position + 1].text in _TABLES:
        return _table_call(toks, position + 2, closing)
    if position + 2 >= len(toks) or toks[position].text != "(":
        return None
    end = closing.get(position)
    if end is None:
        return None
    title = toks[position + 1]
    literal = title.kind == "str" and title.value is not None and toks[position + 2].text in (",", ")")
    return (title.value if literal else None, toks[end].end)


def _table_call(toks: Sequence[Tok], position: int, closing: Mapping[int, int]) -> tuple[None, int] | None:
    """`.each(table)(title, fn)` or `.each`table`(title, fn)`: the end of the second call, its titles unknown."""
    if position < len(toks) and toks[position].kind in ("str", "dyn"):
        position += 1  # a tagged template table
    elif position < len(toks) and toks[position].text == "(" and position in closing:
        position = closing[position] + 1
    else:
        return None
    if position < len(toks) and toks[position].text == "(" and position in closing:
        return None, toks[closing[position]].end
    return None


def _closing_brackets(toks: Sequence[Tok]) -> dict[int, int]:
    """The index of the token closing each `(`, `[` or `{`."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for index, tok in enumerate(toks):
        if tok.kind != "punct":
            continue
        if tok.text in "([{":
            stack.append(index)
        elif tok.text in ")]}" and stack:
            pairs[stack.pop()] = index
    return pairs


@dataclass(frozen=True)
class JsTest:
    path: tuple[str, ...]  # suite titles, then the test's (or the suite's own) title
    suite: bool
    first: int
    last: int


def scan(file: Path) -> list[JsTest]:
    """Every titled suite and test in the file, outermost first."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    out: list[JsTest] = []
    for call in scan_text(text):
        first = text.count("\n", 0, call.start) + 1
        out.append(JsTest(call.path, call.suite, first, first + text.count("\n", call.start, call.end)))
    return out


def at_line(file: Path, line: int) -> JsTest | None:
    """The innermost test (or suite) whose call spans the line."""
    around = [t for t in scan(file) if t.first <= line <= t.last]
    return max(around, key=lambda t: (len(t.path), t.first)) if around else None


def declares(file: Path, path: tuple[str, ...]) -> bool:
    """Whether the file declares a test or suite with these titles (suites first)."""
    return any(t.path == path for t in scan(file))
