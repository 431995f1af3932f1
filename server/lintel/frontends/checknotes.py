"""What `lintel check` says besides its report: usage errors, notes and progress lines on stderr."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lintel.frontends.check_request import CheckRequest
from lintel.frontends.report.text import short_reason
from lintel.languages import CheckName, Project


class UsageError(Exception):
    """Bad arguments or configuration: exit code 2."""


def note(request: CheckRequest, message: str) -> None:
    if not request.quiet:
        print(f"lintel: {message}", file=sys.stderr, flush=True)


def shows_progress(request: CheckRequest) -> bool:
    """Progress lines on stderr on a terminal, or when asked (`--progress`, `-v`); never with `--quiet`. A CI log
    or an agent reading the output gets the report alone."""
    if request.quiet:
        return False
    return request.progress or request.verbose or sys.stderr.isatty()


def progress(quiet: bool, root: Path | None, prefix: str = "") -> tuple[Any, Any]:
    """Progress lines on stderr; with several projects (`root` given) each line names the project."""

    def where(path: Path) -> str:
        if root is None:
            return ""
        rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        return f"{rel or '.'} "

    def begin(project: Project, check: CheckName) -> None:
        if not quiet:
            print(
                f"lintel: {prefix}running {where(project.root)}{project.language} {check}…", file=sys.stderr, flush=True
            )

    def done(result: Any) -> None:
        if quiet:
            return
        what = {
            "not_checked": f"not checked: {short_reason(result.reason)}",
            "not_configured": f"not configured: {short_reason(result.reason)}",
            "passed": "passed (output not parsed)",
        }.get(result.status, result.status)
        # A validator belongs to no language: it is named by its id.
        name = f"{result.language} {result.check} ({result.tool})" if result.language else f"validator {result.tool}"
        print(
            f"lintel: {prefix}{where(result.cwd)}{name} {what} in {result.duration_ms / 1000:.1f}s",
            file=sys.stderr,
            flush=True,
        )

    return begin, done
