"""The fallback parser: a failing command whose output no parser knows becomes one `custom` issue."""

from __future__ import annotations

from lintel.core.issues import ParseContext, ParseResult, make_issue
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import clean

_MAX_MESSAGE = 4000


def clean_text(text: str) -> str:
    return clean(text).strip()


def parse_custom(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """Exit 0 is clean; any other exit is one issue whose message is the output's tail.

    The message leaves out volatile things (durations) only by taking what the tool printed, so the same
    failure in two runs keeps the same `custom:<sha256>` signature as long as the tool prints the same.
    """
    if output.exit_code == 0:
        return ParseResult(recognized=True)
    text = "\n".join(clean_text(p) for p in (output.stdout, output.stderr) if clean_text(p))
    if len(text) > _MAX_MESSAGE:
        text = text[-_MAX_MESSAGE:]
    message = text or f"command failed with exit code {output.exit_code}"
    issue = make_issue(kind="custom", message=message, source="custom", severity="error")
    return ParseResult(issues=[issue], recognized=True)
