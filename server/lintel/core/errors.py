"""Errors of the agent commands' engine (runTests {tests}, runFailingTests, runScript) that the caller shows as
they are: the LSP commands answer them as ResponseErrors, `lintel mcp` as tool errors."""

from __future__ import annotations


class BadArgument(ValueError):
    """The request names something that is not there (a test, a script) or is malformed."""


class NotSupported(ValueError):
    """The command has no meaning for the project's language: `<command> is not supported for <language>
    projects yet`."""


class NothingToRun(ValueError):
    """The request is valid but there is nothing it could run (no test run recorded to rerun)."""
