"""Just enough lexing to place a suppression comment (lintel.engine.suppress): which lines are code, where a line's
comment
starts, which lines a Python string or backslash joins, where the Rust item around a line begins, which shell lines
a comment must not precede. Pure text; None where the text cannot be read with confidence.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field

# --- Python ---------------------------------------------------------------------------------------------------

_STRING_STARTS = {"FSTRING_START", "TSTRING_START"}  # Python 3.12+ splits f-strings (3.14: t-strings) into tokens
_STRING_ENDS = {"FSTRING_END", "TSTRING_END"}


@dataclass
class PythonLines:
    """A Python text's comments by 0-based line (column in characters, text), and the spans of lines that a
    multi-line string or a backslash joins into one (first, last), merged where they touch."""

    comments: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    joined: list[tuple[int, int]] = field(default_factory=list)

    def noqa_line(self, index: int) -> int:
        """The line a `# noqa` for a finding on line `index` goes on: the last line of the string or continued
        line it is part of (ruff's own mapping), else the line itself."""
        for first, last in self.joined:
            if first <= index <= last:
                return last
        return index


@functools.lru_cache(maxsize=2)
def python_lines(text: str) -> PythonLines | None:
    """Python's own tokenizer's view of `text`; None when it cannot tokenize it (a syntax error). Kept for the last
    texts (read only): the editor asks for a line's actions finding by finding, on one text."""
    result = PythonLines()
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    previous: tokenize.TokenInfo | None = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            name = tokenize.tok_name[token.type]
            start, end = token.start[0] - 1, token.end[0] - 1
            if name == "COMMENT":
                result.comments.setdefault(start, []).append((token.start[1], token.string))
            elif name in _STRING_STARTS:
                opened.append(start)
            elif name in _STRING_ENDS and opened:
                spans.append((opened.pop(), end))
            elif name == "STRING" and end > start:
                spans.append((start, end))
            if previous is not None and _joined_by_backslash(previous, token):
                spans.append((previous.end[0] - 1, start))
            previous = token
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    result.joined = _merged(spans)
    return result


def _joined_by_backslash(previous: tokenize.TokenInfo, token: tokenize.TokenInfo) -> bool:
    """Two tokens on different lines with no line end between them: a `\\` joins their lines."""
    if token.start[0] <= previous.end[0]:
        return False
    names = {tokenize.tok_name[previous.type], tokenize.tok_name[token.type]}
    return not names & {"NEWLINE", "NL", "INDENT", "DEDENT", "ENDMARKER", "COMMENT"}


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


# --- C-like languages: Go, JavaScript/TypeScript --------------------------------------------------------------


@dataclass
class LineState:
    starts_in_code: bool = True  # not inside a block comment, string or template literal at its first character
    ends_in_code: bool = True  # a comment may be added at its end (code or a line comment there)
    line_comment: int | None = None  # the column (characters) of the `//` that starts its line comment


_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


@dataclass
class _Scanner:
    text: str
    template_literals: bool  # JavaScript: backquotes open template literals with ${...}; Go: raw strings
    states: list[LineState] = field(default_factory=list)
    at: int = 0
    line_start: int = 0
    # What is open: "/*", "`" (template or raw string), "${" (code inside a template literal).
    stack: list[str] = field(default_factory=list)
    last_code: str = ""

    def in_code(self) -> bool:
        return not self.stack or self.stack[-1] == "${"

    def run(self) -> list[LineState]:
        self.states.append(LineState())
        while self.at < len(self.text):
            char = self.text[self.at]
            if char in "\r\n":
                self._newline(char)
            elif not self.in_code():
                self._inside()
            else:
                self._code(char)
        self.states[-1].ends_in_code = self.in_code()
        return self.states

    def _newline(self, char: str) -> None:
        self.states[-1].ends_in_code = self.in_code()
        self.at += 2 if self.text.startswith("\r\n", self.at) else 1
        self.line_start = self.at
        self.states.append(LineState(starts_in_code=self.in_code()))

    def _inside(self) -> None:
        top = self.stack[-1]
        if top == "/*":
            end = self.text.find("*/", self.at)
            self._advance_within(end, 2)
            return
        # a template literal or raw string: ends at an unescaped backquote, or opens ${ (JavaScript only)
        char = self.text[self.at]
        if char == "\\" and self.template_literals:
            self.at += 1 if self.text[self.at + 1 : self.at + 2] in ("\r", "\n") else 2
        elif char == "`":
            self.stack.pop()
            self.at += 1
            self.last_code = "`"
        elif self.template_literals and self.text.startswith("${", self.at):
            self.stack.append("${")
            self.at += 2
        else:
            self.at += 1

    def _advance_within(self, end: int, width: int) -> None:
        """Up to a block comment's end, one line at a time so each line's state is recorded."""
        newline = min((i for i in (self.text.find("\n", self.at), self.text.find("\r", self.at)) if i >= 0), default=-1)
        if end >= 0 and (newline < 0 or end < newline):
            self.at = end + width
            self.stack.pop()
        else:
            self.at = newline if newline >= 0 else len(self.text)

    def _code(self, char: str) -> None:
        text, at = self.text, self.at
        if text.startswith("//", at):
            self.states[-1].line_comment = at - self.line_start
            eol = re.compile(r"[\r\n]").search(text, at)
            self.at = eol.start() if eol else len(text)
        elif text.startswith("/*", at):
            self.stack.append("/*")
            self.at += 2
        elif char in "\"'":
            self._quoted(char)
        elif char == "`":
            self.stack.append("`")
            self.at += 1
        elif char == "}" and self.stack and self.stack[-1] == "${":
            self.stack.pop()
            self.at += 1
        elif char == "/" and self.template_literals and self.last_code in _REGEX_BEFORE:
            self._regex()
        else:
            self.at += 1
            if not char.isspace():
                self.last_code = char

    def _quoted(self, quote: str) -> None:
        """A one-line string or rune; an unclosed one ends at the line's end."""
        at = self.at + 1
        while at < len(self.text) and self.text[at] not in (quote, "\r", "\n"):
            at += 2 if self.text[at] == "\\" else 1
        self.at = min(at + 1, len(self.text)) if at < len(self.text) and self.text[at] == quote else at
        self.last_code = quote

    def _regex(self) -> None:
        found = re.compile(r"/(?:\\.|\[(?:\\.|[^\]\\\r\n])*\]|[^/\\\r\n\[])+/[a-z]*").match(self.text, self.at)
        self.at = found.end() if found else self.at + 1
        self.last_code = "/" if found else self.last_code


@functools.lru_cache(maxsize=2)
def c_like_lines(text: str, *, template_literals: bool) -> list[LineState] | None:
    """Each line's state in Go (`template_literals` False: backquotes are raw strings) or JavaScript/TypeScript;
    None when a comment, string or template literal is still open at the end (the text is not read right). Kept
    for the last texts, like python_lines (read only)."""
    scanner = _Scanner(text, template_literals)
    states = scanner.run()
    return None if scanner.stack else states


# --- Rust -------------------------------------------------------------------------------------------------------

_RUST_ITEM = re.compile(
    r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?(?:(?:const|async|unsafe|default|extern(?:\s+\"[^\"]*\")?)\s+)*"
    r"(?:fn|impl|struct|enum|trait|mod|static|const|type|union|use|macro_rules!)\b"
)
_CLOSING = re.compile(r"^\s*[}\])]")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def item_line(lines: Sequence[str], index: int) -> int | None:
    """The line starting the item (fn, impl, struct…) that holds line `index`, as indentation shows it in rustfmt'd
    code: `index` itself when it starts one, else the nearest line above that is less indented than every line
    between, repeated until one starts an item. Checked: the first line below the item that is not more indented
    closes it (`}`), below `index`. None otherwise, or when the file mixes tabs and spaces in its indentation."""
    indents = {line[: _indent(line)] for line in lines if line.strip()}
    if any(" " in piece for piece in indents) and any("\t" in piece for piece in indents):
        return None
    if _RUST_ITEM.match(lines[index]):
        return index
    level = _indent(lines[index]) if lines[index].strip() else None
    for candidate in range(index - 1, -1, -1):
        line = lines[candidate]
        if not line.strip() or line.lstrip().startswith(("//", "#[", "#![")):
            continue
        if level is not None and _indent(line) >= level:
            continue
        level = _indent(line)
        if _RUST_ITEM.match(line):
            return candidate if _closes_below(lines, candidate, index) else None
        if level == 0:
            return None
    return None


def _closes_below(lines: Sequence[str], item: int, index: int) -> bool:
    level = _indent(lines[item])
    for below in range(item + 1, len(lines)):
        line = lines[below]
        if line.strip() and _indent(line) <= level:
            return below > index and bool(_CLOSING.match(line))
    return False


# --- shell ------------------------------------------------------------------------------------------------------

_HEREDOC = re.compile(r"<<(?!<)(?P<dash>-?)\s*(?P<quote>['\"]?)\\?(?P<word>[A-Za-z_][\w-]*)(?P=quote)")


def shell_blocked_lines(lines: Sequence[str]) -> set[int] | None:
    """The lines above which a comment line would change the script: here-document bodies and their end words,
    lines that start inside a quoted string, and lines continued from a `\\` on the line above. None when a
    quote is still open at the end (the script is not read right)."""
    blocked: set[int] = set()
    quote = ""
    heredocs: list[tuple[str, bool]] = []
    continued = False
    for index, line in enumerate(lines):
        if heredocs:
            blocked.add(index)
            word, dash = heredocs[0]
            if (line.lstrip("\t") if dash else line) == word:
                heredocs.pop(0)
            continue
        if quote or continued:
            blocked.add(index)
        quote, continued, opened = _shell_line(line, quote)
        heredocs.extend(opened)
    return None if quote else blocked


def _shell_line(line: str, quote: str) -> tuple[str, bool, list[tuple[str, bool]]]:
    """(the quote open at the line's end, whether a `\\` continues it, the here-documents it opens)."""
    at = 0
    opened: list[tuple[str, bool]] = []
    while at < len(line):
        char = line[at]
        if quote:
            if char == "\\" and quote == '"':
                at += 2
                continue
            quote = "" if char == quote else quote
        elif char == "\\":
            if at == len(line) - 1:
                return quote, True, opened
            at += 2
            continue
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in " \t;&|("):
            break
        elif char == "<":
            found = _HEREDOC.match(line, at)
            if found:
                opened.append((found.group("word"), found.group("dash") == "-"))
                at = found.end()
                continue
        at += 1
    return quote, False, opened
