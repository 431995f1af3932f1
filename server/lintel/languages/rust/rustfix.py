"""rustc's and clippy's own fixes, read from a compiler message of `--message-format=json`: the children whose spans
carry a `suggested_replacement` (what `cargo fix` and `cargo clippy --fix` apply), and clippy's rule page.

A child is one fix (its message the title, its spans the edits, applied whole); its applicability is the weakest
of its spans': MachineApplicable is `safe` (cargo's fix mode applies it), MaybeIncorrect `unsafe`, HasPlaceholders
and Unspecified `display`. Span columns are 1-based characters with an exclusive end, the unit of rustc's issues.
A fix with a span outside the checked root (a registry crate, std's sources) is dropped whole: cargo fix too
rejects a suggestion that changes more than one file or one outside the workspace.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from lintel.core.fixes import Applicability, Edit, Fix, make_fix
from lintel.languages.parsers.common import json_int

log = logging.getLogger(__name__)

# A span's file as an Issue names it (root-relative), None when the span has no file of its own.
SpanLocator = Callable[[Mapping[str, Any]], "str | None"]

_APPLICABILITY: Mapping[str, Applicability] = {
    "MachineApplicable": "safe",
    "MaybeIncorrect": "unsafe",
    "HasPlaceholders": "display",
    "Unspecified": "display",
}
_STRENGTH: Mapping[Applicability, int] = {"safe": 0, "unsafe": 1, "display": 2}
# clippy's help child: "for further information visit https://rust-lang.github.io/rust-clippy/rust-1.95.0/index.html#len_zero"
_DOCS = re.compile(r"\bfor further information visit (?P<url>https?://\S+)")


def compiler_fixes(children: Any, locate: SpanLocator) -> tuple[Fix, ...]:
    """The fixes a compiler message's children suggest, in the order rustc gives them."""
    fixes: list[Fix] = []
    for child in children if isinstance(children, list) else []:
        if not isinstance(child, dict):
            continue
        spans = child.get("spans")
        suggested = [
            span
            for span in (spans if isinstance(spans, list) else [])
            if isinstance(span, dict) and isinstance(span.get("suggested_replacement"), str)
        ]
        if suggested:
            fix = _child_fix(str(child.get("message") or ""), suggested, locate)
            if fix is not None:
                fixes.append(fix)
    return tuple(fixes)


def _child_fix(title: str, spans: list[dict[str, Any]], locate: SpanLocator) -> Fix | None:
    edits: list[Edit] = []
    applicability: Applicability = "safe"
    for span in spans:
        file = locate(span)
        if file is None or file.startswith("/"):
            log.info("rustc's fix %r dropped: it edits %s, outside the checked root", title, span.get("file_name"))
            return None
        where = [json_int(span.get(key)) for key in ("line_start", "column_start", "line_end", "column_end")]
        if any(value is None or value < 1 for value in where):
            return None
        line, column, end_line, end_column = (value or 1 for value in where)
        edits.append(Edit(file, line, column, end_line, end_column, span["suggested_replacement"]))
        own = _APPLICABILITY.get(str(span.get("suggestion_applicability")), "display")
        applicability = max(applicability, own, key=_STRENGTH.__getitem__)
    return make_fix(title, applicability, edits)


def rule_url(children: Any) -> str | None:
    """The page clippy names for its lint in a `help` child; rustc's own lints name none."""
    for child in children if isinstance(children, list) else []:
        if isinstance(child, dict) and child.get("level") == "help":
            found = _DOCS.search(str(child.get("message") or ""))
            if found:
                return found.group("url").rstrip(".")
    return None
