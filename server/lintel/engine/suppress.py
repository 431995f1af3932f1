""" "Disable <rule> for this line": the edit that adds a tool's own suppression comment for one finding (docs/fixes.md,
Suppressions).

Each tool has its own syntax and its own idea of which line a comment covers: ruff's `# noqa` goes on the last
line of a multi-line string or a backslash-continued line, as `ruff check --add-noqa` puts it; eslint, tsc and
shellcheck read a comment on the line above; clippy and rustc read an attribute on the enclosing item. An
existing directive is extended rather than repeated. The fix is `unsafe`, so no fix-all ever applies it, and None
comes back whenever the place is not certain (an edit in the wrong place would suppress nothing, or change the
program). Text in, a Fix out: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lintel.core.fixes import Edit, Fix, TextPositions, make_fix
from lintel.core.issues import Issue
from lintel.core.positions import split_lines
from lintel.engine.suppress_scan import PythonLines, c_like_lines, item_line, python_lines, shell_blocked_lines
from lintel.languages.base import Suppression
from lintel.languages.sources import suppression_for, unit_for


@dataclass(frozen=True)
class Document:
    """One file's text split into lines, with each line's start offset and its own line end."""

    text: str
    lines: list[str]
    starts: list[int]

    @classmethod
    def of(cls, text: str) -> Document:
        lines = split_lines(text)
        starts, at = [], 0
        for line in lines:
            starts.append(at)
            at += len(line)
            at += 2 if text.startswith("\r\n", at) else (1 if at < len(text) else 0)
        return cls(text, lines, starts)

    def end_of_line(self, index: int) -> str:
        """The line end of line `index` (0-based); for a last line without one, that of the line before, else \\n."""
        for line in (index, index - 1):
            if 0 <= line < len(self.lines) - 1:
                after = self.starts[line] + len(self.lines[line])
                return "\r\n" if self.text.startswith("\r\n", after) else self.text[after]
        return "\n"

    def indent(self, index: int) -> str:
        line = self.lines[index]
        return line[: len(line) - len(line.lstrip(" \t"))]


@dataclass(frozen=True)
class Change:
    """Replace characters [start, end) of line `line` (0-based, in characters) by `new_text`."""

    line: int
    start: int
    end: int
    new_text: str


def _append(doc: Document, index: int, comment: str, gap: str = "  ") -> Change:
    """`comment` at the end of the line, its trailing blanks replaced by `gap` (as ruff's --add-noqa writes it)."""
    line = doc.lines[index]
    kept = len(line.rstrip())
    return Change(index, kept, len(line), gap + comment)


def _above(doc: Document, index: int, comment: str) -> Change:
    """`comment` on a new line above line `index`, indented like it, ended like it."""
    return Change(index, 0, 0, doc.indent(index) + comment + doc.end_of_line(index))


# --- Python: ruff, mypy, pyright ------------------------------------------------------------------------------

_RUFF_CODE = re.compile(r"[A-Z]+[0-9]+")
# ruff's directive: the word noqa (any case) after a hash, then, after a colon, codes separated by commas or
# blanks. Without the colon and codes it is bare, and already covers every rule of the line.
_NOQA = re.compile(r"#\s*(?i:noqa)(?:\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?")
_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?")
_PYRIGHT_IGNORE = re.compile(r"#\s*pyright:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?")


def _ruff(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    python = python_lines(doc.text)
    if python is None or not _RUFF_CODE.fullmatch(rule):
        return None
    row = python.noqa_line(index)
    for column, comment in python.comments.get(row, ()):
        found = _NOQA.search(comment)
        if found is None:
            continue
        if found.group("codes") is None:
            return None  # a bare directive already covers the rule
        codes = set(re.split(r"[\s,]+", found.group("codes").strip()))
        if rule in codes:
            return None
        codes.add(rule)
        # ruff rewrites the directive with its codes sorted (E402, E702, F401).
        return Change(row, column + found.start(), column + found.end(), "# noqa: " + ", ".join(sorted(codes)))
    return _append(doc, row, f"# noqa: {rule}")


def _merged_brackets(found: re.Match[str], rule: str, head: str) -> str | None:
    codes = [code.strip() for code in found.group("codes").split(",") if code.strip()]
    return None if rule in codes else f"{head}[{', '.join([*codes, rule])}]"


def _python_line(doc: Document, index: int) -> PythonLines | None:
    """The text's Python lines when a comment can end line `index` (not inside a string, not before a `\\`)."""
    python = python_lines(doc.text)
    if python is None or python.noqa_line(index) != index:
        return None
    return python


def _mypy(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    python = _python_line(doc, index)
    if python is None:
        return None
    comments = python.comments.get(index, ())
    if not comments:
        return _append(doc, index, f"# type: ignore[{rule}]")
    column, comment = comments[0]
    found = _TYPE_IGNORE.match(comment)
    if found is None:
        # mypy reads `# type: ignore` only at the start of a line's comment: it goes before the one there.
        return Change(index, column, column, f"# type: ignore[{rule}]  ")
    if found.group("codes") is None:
        return None  # a bare `# type: ignore` already covers every code
    merged = _merged_brackets(found, rule, "# type: ignore")
    return None if merged is None else Change(index, column, column + found.end(), merged)


def _pyright(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    python = _python_line(doc, index)
    if python is None:
        return None
    for column, comment in python.comments.get(index, ()):
        found = _PYRIGHT_IGNORE.search(comment)
        if found is None:
            continue
        if found.group("codes") is None:
            return None
        merged = _merged_brackets(found, rule, "# pyright: ignore")
        return None if merged is None else Change(index, column + found.start(), column + found.end(), merged)
    return _append(doc, index, f"# pyright: ignore[{rule}]")


# --- JavaScript and TypeScript: eslint, tsc --------------------------------------------------------------------

_ESLINT_NEXT_LINE = re.compile(
    r"^(?://|/\*|\{/\*)\s*eslint-disable-next-line(?P<rules>(?:\s+(?!--)[^\s,*]+(?:\s*,\s*(?!--)[^\s,*]+)*)?)"
)
_TS_DIRECTIVE = re.compile(r"^(?://|/\*|\{/\*)\s*@ts-(?:expect-error|ignore)\b")
_JSX_FILES = (".jsx", ".tsx")


def _in_jsx_children(doc: Document, index: int, file: str) -> bool:
    """Whether line `index` is a child of a JSX element, where `//` would be text: a .jsx/.tsx file, the line an
    element or `{expression}`, the code above it ending a tag (`>`, not an arrow's `=>`)."""
    if not file.endswith(_JSX_FILES) or not doc.lines[index].lstrip().startswith(("<", "{")):
        return False
    above = next((doc.lines[i].rstrip() for i in range(index - 1, -1, -1) if doc.lines[i].strip()), "")
    return above.endswith(">") and not above.endswith("=>")


def _comment_above(doc: Document, index: int, file: str, body: str) -> Change:
    if _in_jsx_children(doc, index, file):
        return _above(doc, index, "{/* " + body + " */}")
    return _above(doc, index, "// " + body)


def _usable_js_line(doc: Document, index: int) -> bool:
    """Whether a comment line can go above line `index`: its start is code, not inside a string or comment."""
    states = c_like_lines(doc.text, template_literals=True)
    return states is not None and states[index].starts_in_code


def _eslint(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    if not _usable_js_line(doc, index):
        return None
    if index > 0:
        above = doc.lines[index - 1]
        found = _ESLINT_NEXT_LINE.match(above.lstrip())
        if found is not None:
            rules = [r.strip() for r in found.group("rules").split(",") if r.strip()]
            if not rules or rule in rules:
                return None  # a directive without rules disables them all
            at = len(above) - len(above.lstrip()) + found.end()
            return Change(index - 1, at, at, f", {rule}")
    return _comment_above(doc, index, issue.file or "", f"eslint-disable-next-line {rule}")


def _tsc(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    if not _usable_js_line(doc, index):
        return None
    if index > 0 and _TS_DIRECTIVE.match(doc.lines[index - 1].lstrip()):
        return None  # the line above already silences every error of this line
    return _comment_above(doc, index, issue.file or "", "@ts-expect-error")


# --- Go: golangci-lint ------------------------------------------------------------------------------------------

_NOLINT = re.compile(r"^//nolint(?::(?P<linters>[\w-]+(?:,[\w-]+)*))?")


def _golangci(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    # typecheck findings are compile errors: golangci-lint never lets a //nolint hide them.
    if rule == "typecheck" or not re.fullmatch(r"[\w-]+", rule):
        return None
    states = c_like_lines(doc.text, template_literals=False)
    if states is None or not states[index].ends_in_code:
        return None
    comment = states[index].line_comment
    if comment is None:
        return _append(doc, index, f"//nolint:{rule}", gap=" ")
    line = doc.lines[index]
    found = _NOLINT.match(line[comment:])
    if found is None:
        # golangci-lint reads a directive only at the start of a comment: `//nolint:x // why`.
        return Change(index, comment, comment, f"//nolint:{rule} ")
    linters = (found.group("linters") or "").split(",")
    if found.group("linters") is None or "all" in linters or rule in linters:
        return None
    return Change(index, comment + found.end(), comment + found.end(), f",{rule}")


# --- Rust: clippy and rustc's lints ---------------------------------------------------------------------------

_RUSTC_ERROR = re.compile(r"E\d{4}")
_ALLOW = re.compile(r"^#\[allow\((?P<lints>[\w:]+(?:\s*,\s*[\w:]+)*)\s*\)\]\s*$")


def _rust(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    if _RUSTC_ERROR.fullmatch(rule) or not re.fullmatch(r"\w+(?:::\w+)*", rule):
        return None  # an error is no lint: nothing allows it
    if issue.source == "clippy" and not rule.startswith("clippy::"):
        return None
    item = item_line(doc.lines, index)
    if item is None:
        return None
    if item > 0:
        above = doc.lines[item - 1]
        found = _ALLOW.match(above.strip())
        if found is not None and doc.indent(item - 1) == doc.indent(item):
            lints = [lint.strip() for lint in found.group("lints").split(",")]
            if rule in lints:
                return None
            at = len(doc.indent(item - 1)) + found.end("lints")
            return Change(item - 1, at, at, f", {rule}")
    return _above(doc, item, f"#[allow({rule})]")


# --- shell: shellcheck ------------------------------------------------------------------------------------------

_SHELLCHECK_DISABLE = re.compile(r"^#\s*shellcheck\s+(?:\S+=\S+\s+)*disable=(?P<codes>[\w,-]+)")


def _shellcheck(issue: Issue, doc: Document, rule: str, index: int) -> Change | None:
    if not re.fullmatch(r"SC\d+", rule):
        return None
    blocked = shell_blocked_lines(doc.lines)
    if blocked is None or index in blocked:
        return None  # inside a here-document, a quoted string or a continued command: a comment would change it
    if index > 0:
        above = doc.lines[index - 1]
        found = _SHELLCHECK_DISABLE.match(above.lstrip())
        if found is not None:
            codes = found.group("codes").split(",")
            if rule in codes or "all" in codes:
                return None
            at = len(above) - len(above.lstrip()) + found.end()
            return Change(index - 1, at, at, f",{rule}")
    return _above(doc, index, f"# shellcheck disable={rule}")


def shellcheck_scope(text: str, line: int) -> str:
    """What a `# shellcheck disable` put above 1-based `line` covers: before the script's first command, shellcheck
    applies a directive to the whole file (measured, shellcheck 0.11), else to the command that follows."""
    for earlier in split_lines(text)[: line - 1]:
        stripped = earlier.strip()
        if stripped and not stripped.startswith("#"):
            return "line"
    return "file"


# --- the table ----------------------------------------------------------------------------------------------

Suppressor = Callable[[Issue, Document, str, int], Change | None]

# Which tool writes which is each language's to say (`IssueSource.suppression`, lintel.languages.sources).
SUPPRESSORS: Mapping[Suppression, Suppressor] = {
    "noqa": _ruff,
    "type-ignore": _mypy,
    "pyright-ignore": _pyright,
    "eslint-disable-next-line": _eslint,
    "ts-expect-error": _tsc,
    "nolint": _golangci,
    "rust-allow": _rust,
    "shellcheck-disable": _shellcheck,
}


def suppression(issue: Issue, text: str) -> Fix | None:
    """The fix that adds `issue`'s tool's suppression comment for it to `text` (the file's whole current text), in
    the issue's unit; None when the tool has none (go vet), the issue names no rule or line, or the place for the
    comment is not certain."""
    syntax = suppression_for(issue.source)
    suppressor = SUPPRESSORS.get(syntax) if syntax is not None else None
    if syntax is None or suppressor is None or not issue.rule or issue.line is None or issue.file is None:
        return None
    doc = Document.of(text)
    index = issue.line - 1
    if not 0 <= index < len(doc.lines) or (index == len(doc.lines) - 1 and not doc.lines[index] and index):
        return None
    change = suppressor(issue, doc, issue.rule, index)
    if change is None:
        return None
    places = TextPositions(text, unit_for(issue.source))
    start = places.position(doc.starts[change.line] + change.start)
    end = places.position(doc.starts[change.line] + change.end)
    edit = Edit(issue.file, *start, *end, change.new_text)
    return make_fix(_title(syntax, issue, text, issue.rule), "unsafe", [edit])


def _title(syntax: Suppression, issue: Issue, text: str, rule: str) -> str:
    if syntax == "rust-allow":
        return f"Disable {rule} for this item"
    if syntax == "shellcheck-disable" and shellcheck_scope(text, issue.line or 1) == "file":
        return f"Disable {rule} for this file"
    return f"Disable {rule} for this line"
