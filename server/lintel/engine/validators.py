"""User-defined validators (docs/configuration.md, Validators): a shell command in the workspace root, read by any named
parser, run through the same runner (process group, timeout, capped output) as every other tool."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lintel.core.issues import Issue, ParseContext, SourceLines, finalize_issues, make_issue
from lintel.core.runenv import run_environment
from lintel.engine.checks import RunResult, Status, compose_output
from lintel.engine.config import ValidatorConfig, clamp_timeout
from lintel.languages.parsers import get_parser, is_known_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.runtime.process import SHELL, ProcessStartError, run_shell

log = logging.getLogger(__name__)


@dataclass
class ValidateResult:
    id: str
    ok: bool
    raw_output: str
    issues: list[Issue] = field(default_factory=list)
    duration_ms: int = 0
    exit_code: int | None = None
    timed_out: bool = False
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        """docs/configuration.md, Validators: `{id, ok, rawOutput, issues, durationMs}` (plus exitCode and timedOut)."""
        return {
            "id": self.id,
            "ok": self.ok,
            "rawOutput": self.raw_output,
            "issues": [i.to_json() for i in self.issues],
            "durationMs": self.duration_ms,
            "exitCode": self.exit_code,
            "timedOut": self.timed_out,
        }

    def as_run_result(self, root: Path) -> RunResult:
        """The validator's outcome as a RunResult beside the checks' (`runs[]` of `lintel check`, the server's
        diagnostics); `root` is where it ran."""
        if self.timed_out or self.exit_code is None:
            status: Status = "not_checked"
        else:
            status = "clean" if self.ok and not self.issues else "findings"
        return RunResult(
            language=None,
            check="validators",
            tool=self.id,
            argv=[SHELL, "-c", self.command],
            cwd=root,
            status=status,
            reason=None if status != "not_checked" else (self.issues[-1].message if self.issues else "did not run"),
            exit_code=self.exit_code,
            timed_out=self.timed_out,
            duration_ms=self.duration_ms,
            output=self.raw_output,
            issues=self.issues,
        )


async def run_validator(
    validator: ValidatorConfig,
    root: Path,
    *,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> ValidateResult:
    """Run one validator; its issues carry the validator's id as their source. Never raises for the command's
    own problems: a command that cannot start or times out is `ok: false` with an issue saying so."""
    seconds = clamp_timeout(validator.timeout_seconds)
    if not is_known_parser(validator.parser):
        log.warning("validator %s: unknown parser %r, using custom", validator.id, validator.parser)
    run_env = run_environment({}, env)
    result = ValidateResult(id=validator.id, ok=False, raw_output="", command=validator.run)
    try:
        proc = await run_shell(validator.run, cwd=root, env=run_env, timeout=seconds, on_start=on_start)
    except ProcessStartError as exc:
        result.raw_output = str(exc)
        result.issues = _own([make_issue(kind="custom", message=f"{validator.id}: {exc}", source=validator.id)], root)
        return result
    result.exit_code = proc.exit_code
    result.timed_out = proc.timed_out
    result.duration_ms = proc.duration_ms
    result.raw_output = compose_output(proc.stdout, proc.stderr, proc.exit_code, proc.timed_out, seconds)
    parsed = get_parser(validator.parser)(
        ToolOutput(proc.stdout, proc.stderr, proc.exit_code), ParseContext(cwd=str(root), root=str(root))
    )
    # On a timeout the `custom` parser's "the command failed" would only restate the timeout issue below.
    found = [i for i in parsed.issues if not (proc.timed_out and i.kind == "custom")]
    issues = [replace(i, source=validator.id) for i in found]
    if proc.timed_out:
        issues.append(
            make_issue(
                kind="timeout",
                message=f"validator {validator.id} timed out after {seconds:g}s",
                source=validator.id,
            )
        )
    elif proc.exit_code != 0 and not issues:
        # A failing command whose output the parser could not read is still a failure: say so with the
        # output, the way the `custom` parser does.
        issues = [
            replace(i, source=validator.id)
            for i in get_parser("custom")(
                ToolOutput(proc.stdout, proc.stderr, proc.exit_code), ParseContext(cwd=str(root), root=str(root))
            ).issues
        ]
    result.issues = _own(issues, root)
    result.ok = proc.exit_code == 0 and not proc.timed_out
    return result


def _own(issues: Sequence[Issue], root: Path) -> list[Issue]:
    return finalize_issues(issues, SourceLines(root))


async def run_validators(
    validators: Sequence[ValidatorConfig],
    root: Path,
    *,
    concurrency: int | None = None,
    on_done: Callable[[ValidateResult], None] | None = None,
) -> list[ValidateResult]:
    """Run validators in parallel (at most `concurrency`, default the number of cores); each reports
    through `on_done` as it finishes; results come back in configuration order."""
    limit = asyncio.Semaphore(max(1, concurrency or os.cpu_count() or 2))

    async def one(validator: ValidatorConfig) -> ValidateResult:
        async with limit:
            result = await run_validator(validator, root)
        if on_done is not None:
            on_done(result)
        return result

    return list(await asyncio.gather(*(one(v) for v in validators)))


def select(validators: Sequence[ValidatorConfig], ids: Sequence[str] | None) -> list[ValidatorConfig]:
    """The validators named by `ids` (all when None); an unknown id is a ValueError naming the known ones."""
    if ids is None:
        return list(validators)
    known = {v.id: v for v in validators}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise ValueError(f"unknown validator {', '.join(map(repr, unknown))}; configured: {', '.join(known) or 'none'}")
    return [known[i] for i in ids]
