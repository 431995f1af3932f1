"""A package.json script's exit code is the floor of its verdict (docs/architecture.md, Detection): a script that
exits non-zero is never clean or passed and never leaves `lintel check` at exit 0, whatever lintel understood of
its output. A CI gate that is red in the project's own CI is red in lintel.

The script runs as written, so which of its steps failed is read from the output: each step's own findings
(its tool's parser), and where the output says nothing, the steps that may not have run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from lintel.core.issues import Issue, IssueKind, ParseContext, TestFailure, make_issue
from lintel.languages import ScriptStep, ToolSpec
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import clean

# The kind of the error issue a failed script gets when its output explains nothing, by the check it ran for.
_FLOOR_KIND: dict[str, IssueKind] = {"lint": "lint", "typecheck": "typecheck", "test": "test"}
# The shell's own codes: the command was not found (127) or could not be executed (126).
_COULD_NOT_START = frozenset({126, 127})


@dataclass(frozen=True)
class ScriptVerdict:
    status: Literal["findings", "not_checked"]
    reason: str
    issues: list[Issue]


def failed_script(
    spec: ToolSpec,
    check: str,
    output: ToolOutput,
    ctx: ParseContext,
    *,
    issues: Sequence[Issue],
    failures: Sequence[TestFailure],
    tail: str,
) -> ScriptVerdict | None:
    """The verdict of a script that exited non-zero, or None when what was parsed already fails it (a failing
    test, an error). `tail` is the end of its output, which the issue quotes when the output explains nothing.

    - the shell could not start a step (126, 127), or the step that failed is a tool lintel knows and nothing
      of its own was read (it could not run: eslint's or prettier's exit 2; or lintel could not read what it
      printed): `not_checked` (exit 3);
    - the failing step's own findings were parsed (prettier's `[warn] file` lines, eslint's warnings under
      `--max-warnings 0`): they are raised to errors, as the script treats them;
    - otherwise one error issue of the check's kind names the step that failed (the whole script when lintel
      cannot tell) and carries the output's end.
    """
    if failures or any(i.severity == "error" for i in issues):
        return None
    code = output.exit_code
    parsed: dict[str, list[Issue]] = {}  # each parser reads the output once, however many steps it reads for
    found = [_own_issues(step, output, ctx, parsed) for step in spec.steps]
    text = clean(f"{output.stdout}\n{output.stderr}")
    ran = [bool(own) or _printed_banner(step, text) for step, own in zip(spec.steps, found, strict=True)]
    index = _failing_step(spec.steps, found, ran)
    step = spec.steps[index] if index is not None else None
    what = _quoted(step, spec)
    exited = f"the `{spec.check}` script exited {code}"
    own = found[index] if index is not None else []
    if code in _COULD_NOT_START or (step is not None and step.tool and not own):
        exited_with_findings = step is not None and code not in _COULD_NOT_START and code in step.finding_codes
        how = "failed with output lintel could not read" if exited_with_findings else "could not run"
        return ScriptVerdict("not_checked", f"{what} {how} ({exited}): {tail}", list(issues))
    if own:
        keys = {_key(i) for i in own}
        kept = [i for i in issues if _key(i) not in keys]
        raised = [replace(i, severity="error") for i in own]
        reason = f"{what} failed ({exited}): its findings fail the script"
        return ScriptVerdict("findings", reason, [*kept, *raised])
    floor = make_issue(
        kind=_FLOOR_KIND.get(check, "custom"),
        message=f"{what} failed: {exited}",
        source=spec.tool,
        severity="error",
        hint=tail or None,
    )
    return ScriptVerdict("findings", f"{what} failed ({exited})", [*issues, floor])


def _own_issues(step: ScriptStep, output: ToolOutput, ctx: ParseContext, parsed: dict[str, list[Issue]]) -> list[Issue]:
    """What the step's tool printed, read by that tool's parser (a test script's lint step is read as lint)."""
    if step.parser is None:
        return []
    if step.parser not in parsed:
        parsed[step.parser] = get_parser(step.parser)(output, ctx).issues
    return [i for i in parsed[step.parser] if i.source in step.sources]


def _printed_banner(step: ScriptStep, text: str) -> bool:
    return step.banner is not None and re.search(step.banner, text, re.MULTILINE) is not None


def _failing_step(steps: Sequence[ScriptStep], found: Sequence[Sequence[Issue]], ran: Sequence[bool]) -> int | None:
    """Which step of an `a && b && c` chain failed (the chain stops there): the first whose findings fail it;
    else, of the steps from the last one that shows it ran (findings, its banner) on, the only one, or the only
    one lintel does not know (a known tool that fails prints what lintel reads). None when the output does not
    tell."""
    for index, own in enumerate(found):
        if any(i.severity == "error" or i.kind == "format" for i in own):
            return index
    shown = [index for index, yes in enumerate(ran) if yes]
    first = shown[-1] if shown else 0
    candidates = range(first, len(steps))
    if len(candidates) == 1:
        return candidates[0]
    unknown = [index for index in candidates if steps[index].tool is None]
    return unknown[0] if len(unknown) == 1 else None


def _quoted(step: ScriptStep | None, spec: ToolSpec) -> str:
    if step is None:
        return f"`{spec.script}`" if spec.script else f"`{spec.tool}`"
    return f"`{step.text}` (of `{step.script}`)" if step.script else f"`{step.text}`"


def _key(issue: Issue) -> tuple[str | None, int | None, int | None, str, str]:
    return (issue.file, issue.line, issue.column, issue.source, issue.message)
