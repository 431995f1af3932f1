"""What every parser receives and returns. Parsers are pure: captured output in, ParseResult out, never raising."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lintel.core.issues import ParseContext, ParseResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolOutput:
    """Everything a run produced: both streams, the exit code, and a report file's text when the
    check asked the tool for one (pytest's junit XML)."""

    stdout: str
    stderr: str = ""
    exit_code: int | None = 0
    report: str | None = None


Parser = Callable[[ToolOutput, ParseContext], ParseResult]


@dataclass(frozen=True)
class ParserFamily:
    """A language's parsers: the names users and toolchains refer to (read without importing anything), and the
    function that imports the parsers and maps each name to one, called on first use so a server that never runs
    a go tool never loads go's parsers."""

    names: tuple[str, ...]
    load: Callable[[], Mapping[str, Parser]]


def never_raises(func: Parser) -> Parser:
    """Parsers must never take a check down: an unexpected exception means 'output not recognised'."""

    @functools.wraps(func)
    def wrapper(output: ToolOutput, ctx: ParseContext) -> ParseResult:
        try:
            return func(output, ctx)
        except Exception:  # a parser bug must not become a crash of the check
            log.exception("parser %s failed", getattr(func, "__name__", func))
            return ParseResult(recognized=False)

    return wrapper
