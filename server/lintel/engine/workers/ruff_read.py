"""Reading a `ruff server` pull diagnostic back into the Issue parse_ruff makes of `ruff check --output-format=json`
for the same text (lintel.engine.workers.ruff runs the server).

What the server says differently from the CLI's JSON, and how each difference is read back (measured, ruff 0.17.6):

- severity: Error for syntax errors and F821, Warning for the rest; the CLI's JSON says `error` for every one;
- message: the CLI's message, then `\\n\\nhelp: <suggestion>` when the rule has a suggestion (fix or not);
- code: the noqa code (`F401`), but the rule's name (`unused-import`) under `lint.preview`, read back through
  `ruff rule --all` (a preview rule without a code has `code: null` in the CLI's JSON); syntax errors are
  `invalid-syntax`, as in the CLI's JSON except under preview, where it has null (an answer holding only syntax
  errors does not tell whether preview is on: the settings the server prints for the document do);
- fix: `data.edits` holds the fix's edits (LSP TextEdits: 0-based, in the negotiated position encoding) when the
  CLI's JSON has a fix (safe, unsafe or display-only; none for `unfixable` rules: `edits` is then empty and
  `title` is the rule's name), `data.is_preferred` is true for a safe one, `data.title` is the fix's message, with
  ` (suggestion)` after it for a display-only fix; an unsafe fix has neither mark. Checked against the CLI's
  `fix.applicability` on every finding of 345 standard-library modules with every rule (~200,000 findings);
- url: `codeDescription.href` is the CLI's `url` (the page of the rule; syntax errors have none in either).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from lintel.core.fixes import Applicability, Edit, Fix, make_fix
from lintel.core.issues import Issue, make_issue
from lintel.core.positions import Unit, convert_column
from lintel.engine.workers.base import WorkerError

_NOQA_CODE = re.compile(r"^[A-Z]+[0-9]+$")
SYNTAX_ERROR = "invalid-syntax"
_HELP = "\n\nhelp: "
_DISPLAY_ONLY = " (suggestion)"  # the server's mark on the title of a fix ruff only shows (never applies)


def diagnostic_issue(
    diagnostic: Mapping[str, Any], *, file: str, lines: Sequence[str] | None, encoding: Unit, rule: str | None
) -> Issue:
    """One `ruff server` diagnostic as the Issue parse_ruff makes of the CLI's JSON for it (see the module's
    docstring for what differs and why). `rule`: the CLI's code for it; `lines`: the document's, needed unless
    `encoding` is utf-32."""
    data = json_object(diagnostic.get("data"))
    span = json_object(diagnostic.get("range"))
    line, column = _position(span.get("start"), lines, encoding)
    end_line, end_column = _position(span.get("end"), lines, encoding)
    message = str(diagnostic.get("message") or "")
    title = data.get("title") if isinstance(data.get("title"), str) else None
    display_only = False
    if title is not None and title.endswith(_DISPLAY_ONLY) and message.endswith(_HELP + title[: -len(_DISPLAY_ONLY)]):
        title = title[: -len(_DISPLAY_ONLY)]  # a display-only fix: the CLI's message has no mark
        display_only = True
    applicability: Applicability = "safe" if data.get("is_preferred") else "display" if display_only else "unsafe"
    edits = data.get("edits")
    # A fix without a message of its own has the rule's name for its title (the CLI's JSON: null).
    fix_title = title if edits and title != rule_name(diagnostic) else None
    hint = None
    if fix_title is not None:
        hint = fix_title if applicability == "safe" else f"{fix_title} (unsafe fix)"
    href = json_object(diagnostic.get("codeDescription")).get("href")
    return make_issue(
        kind="lint",
        message=_cli_message(message, title),
        source="ruff",
        severity="error",  # the CLI's JSON says `error` for every violation; the server grades them
        file=file,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        rule=rule,
        hint=hint,
        fixes=(_fix(edits, fix_title, applicability, file, lines, encoding, rule),),
        url=href if isinstance(href, str) else None,
    )


def _fix(
    raw_edits: Any,
    title: str | None,
    applicability: Applicability,
    file: str,
    lines: Sequence[str] | None,
    encoding: Unit,
    rule: str | None,
) -> Fix | None:
    """The Fix parse_ruff reads from the CLI's `fix` for the same finding: its edits, 1-based in characters."""
    if not isinstance(raw_edits, list) or not raw_edits:
        return None  # no fix (an unfixable rule), or none the server gives
    edits: list[Edit] = []
    for raw in raw_edits:
        edit = json_object(raw)
        span = json_object(edit.get("range"))
        start = _position(span.get("start"), lines, encoding)
        end = _position(span.get("end"), lines, encoding)
        new_text = edit.get("newText")
        if None in (*start, *end) or not isinstance(new_text, str):
            return None
        edits.append(Edit(file, *start, *end, new_text))  # type: ignore[arg-type]  # no None, checked above
    return make_fix(title or f"Fix {rule or 'this finding'}", applicability, edits)


def _cli_message(message: str, title: str | None) -> str:
    """The message without the suggestion the server appends (`\\n\\nhelp: <suggestion>`)."""
    if title is not None and message.endswith(_HELP + title):
        return message[: -len(_HELP + title)]
    cut = message.rfind(_HELP)
    return message[:cut] if cut >= 0 else message


def needs_rule_codes(code: str) -> bool:
    """Whether the server named the rule (`unused-import`, under preview) instead of giving its noqa code."""
    return code != SYNTAX_ERROR and not _NOQA_CODE.match(code)


def cli_code(code: str | None, rule_codes: Mapping[str, str | None] | None) -> str | None:
    """The CLI's `code` for a diagnostic the server gave `code`; `rule_codes` (name -> noqa code) under preview."""
    if code is None or rule_codes is None:
        return code
    if code == SYNTAX_ERROR:
        return None
    if code not in rule_codes:
        raise WorkerError(f"ruff server named a rule `ruff rule --all` does not list: {code}")
    return rule_codes[code]


def _position(position: Any, lines: Sequence[str] | None, encoding: Unit) -> tuple[int | None, int | None]:
    """An LSP position as the CLI's 1-based line and Unicode-scalar column."""
    point = json_object(position)
    line, character = point.get("line"), point.get("character")
    if not isinstance(line, int) or not isinstance(character, int) or line < 0 or character < 0:
        return None, None
    if encoding != "utf-32":
        text = lines[line] if lines is not None and 0 <= line < len(lines) else None
        character = convert_column(text, character, encoding, "utf-32")
    return line + 1, character + 1


def rule_name(diagnostic: Mapping[str, Any]) -> str:
    """The rule's name (`unused-import`): the code itself under preview, else the end of its documentation's
    address; `invalid-syntax` for syntax errors."""
    code = diagnostic.get("code")
    if isinstance(code, str) and needs_rule_codes(code):
        return code
    href = json_object(diagnostic.get("codeDescription")).get("href")
    if isinstance(href, str) and "/rules/" in href:
        return href.rstrip("/").rsplit("/", 1)[-1]
    return code if isinstance(code, str) else SYNTAX_ERROR


def json_object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
