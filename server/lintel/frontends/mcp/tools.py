"""The MCP tools: lintel.engine.commandtable's commands by their MCP names, each call's report turned into the
JSON an agent parses and the short text it reads first. Nothing here knows the SDK (serve.py does).

Adding a tool is one `Command` with an MCP name in that table and its output schema in schemas.BY_TOOL. A tool
whose answers hold issues (by that schema) takes `max_issues` and `severity`, and its answer — summary and JSON —
keeps within that budget (lintel.core.budget); a tool of another module gets the same with `budgeted` and `answer`."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintel.core.budget import AGENT_MAX_ISSUES, Budget, budget_json
from lintel.core.issues import Issue
from lintel.engine import actions
from lintel.engine.actions import ActionError, CommandArgs, FileDiagnostics, Folder
from lintel.engine.checks import RunResult
from lintel.engine.commandtable import (
    MCP_TOOLS,
    Arguments,
    Command,
    CommandReport,
    CommandRequest,
    Covering,
    LastTestRun,
    OnStart,
    Ran,
    Restarted,
    Validation,
)
from lintel.engine.coverage import CoverageStore
from lintel.engine.detect_report import DetectReport
from lintel.engine.editcheck import EditCheck, OpenDocument
from lintel.engine.fixrun import FixOutcome
from lintel.engine.settled import partial_head
from lintel.engine.testdiscovery import TestIndex
from lintel.engine.testlist import TestList
from lintel.engine.validators import ValidateResult
from lintel.frontends.mcp.schemas import Schema, carries_issues, output_schema
from lintel.frontends.mcp.workspace import Host
from lintel.frontends.report.text import issue_line

DEFAULT_MAX_ISSUES = AGENT_MAX_ISSUES
SHOWN_FAILURES = 5
# The arguments every tool whose answers hold issues takes (CommandArgs' fields).
BUDGET_FIELDS = ("max_issues", "severity")


@dataclass(frozen=True)
class Answer:
    """A tool's result: the JSON an agent parses (an object, as structured content must be) and the text it reads
    first."""

    structured: dict[str, Any]
    summary: str


@dataclass(frozen=True)
class AgentTool:
    """A command of the table as an MCP tool: its MCP name, and the LSP command with the same arguments and
    result, if there is one."""

    entry: Command

    @property
    def name(self) -> str:
        assert self.entry.mcp is not None  # TOOLS holds only the commands with an MCP name
        return self.entry.mcp

    @property
    def command(self) -> str | None:
        return self.entry.lsp

    @property
    def description(self) -> str:
        return self.entry.description

    @property
    def arguments(self) -> Arguments:
        """The command's arguments, and the budget's where its answers hold issues."""
        return budgeted(self.entry.arguments, self.output_schema())

    @property
    def fields(self) -> tuple[str, ...]:
        return self.arguments.fields

    @property
    def required(self) -> tuple[str, ...]:
        return self.arguments.required

    def input_schema(self) -> dict[str, Any]:
        return self.arguments.input_schema()

    def output_schema(self) -> Schema:
        return output_schema(self.name)

    def parse(self, arguments: dict[str, Any] | None) -> CommandArgs:
        """The arguments validated as the LSP command validates them (same messages, the tool's name first);
        a field this tool does not take is refused as an unknown one."""
        return self.arguments.parse(self.name, [arguments] if arguments else [], only_listed=True)

    async def call(self, host: Host, args: CommandArgs, on_start: OnStart) -> Answer:
        report = await self.entry.action(AgentCall(host, on_start), CommandRequest(self.name, args))
        return answer(report, budget_of(args))


def budgeted(arguments: Arguments, schema: Schema) -> Arguments:
    """A tool's arguments with `max_issues` and `severity` added when its answers (by their schema) hold issues:
    any MCP tool, of this table or another module's, gets its budget so."""
    if not carries_issues(schema):
        return arguments
    return Arguments((*arguments.fields, *(f for f in BUDGET_FIELDS if f not in arguments.fields)), arguments.required)


def budget_of(args: CommandArgs, default: int | None = DEFAULT_MAX_ISSUES) -> Budget:
    """The budget a call asked for (`max_issues`, `severity`), `default` the cap when it gave none."""
    return Budget(args.max_issues if args.max_issues is not None else default, args.severity or "hint")


class AgentCall:
    """lintel.engine.commandtable.Front for one tool call: the host's workspace and trust; progress is the call's
    own (serve.py), and nothing is published (the agent reads the answer)."""

    def __init__(self, host: Host, on_start: OnStart) -> None:
        self.host = host
        self.on_start = on_start

    @property
    def folders(self) -> Sequence[Folder]:
        return self.host.folders

    @property
    def trusted(self) -> bool:
        return self.host.trusted

    @property
    def coverage(self) -> CoverageStore:
        return self.host.coverage

    @property
    def tests(self) -> TestIndex:
        return self.host.tests

    @property
    def fixes_need_a_target(self) -> bool:
        return False  # apply_fixes without `file` or `path` fixes the workspace's project

    def progress(self, title: str) -> AbstractAsyncContextManager[OnStart]:
        return self._progress()

    @asynccontextmanager
    async def _progress(self) -> AsyncIterator[OnStart]:
        yield self.on_start

    def publish(self, folder: Folder, result: RunResult, channel: str, scope: Path | Sequence[Path]) -> None:
        return None

    def publish_validation(self, folder: Folder, result: ValidateResult) -> None:
        return None

    async def restart_servers(self, language: str | None) -> Any:
        raise actions.failed("lintel mcp runs no language servers")

    async def server_diagnostics(self, folder: Folder, file: Path, text: str) -> RunResult | None:
        servers = self.host.servers
        return await servers.server_diagnostics(folder, file, text) if servers is not None else None

    def open_document(self, file: Path) -> OpenDocument | None:
        return None  # an agent has no open documents: the file on disk is the content


def answer(report: CommandReport, budget: Budget | None = None) -> Answer:
    """A command's report as a tool's answer: its JSON and the summary of its kind, both within the budget (the
    default cap without one)."""
    budget = budget or Budget(DEFAULT_MAX_ISSUES)
    found = _answer(report, budget)
    return Answer(budget_json(found.structured, budget), found.summary)


def _answer(report: CommandReport, budget: Budget) -> Answer:
    if isinstance(report, Ran):
        return Answer(report.to_json(), run_summary(report.result, budget))
    if isinstance(report, LastTestRun):
        if report.result is None:
            language = report.project.language
            nothing = {"recorded": False, "language": language, "root": report.where}
            return Answer(nothing, f"no test run recorded for the {language} project at {report.where} yet (run_tests)")
        return Answer(report.result.result_json(), f"last run: {run_summary(report.result, budget)}")
    if isinstance(report, Covering):
        return Answer(report.to_json(), covering_summary(report.answer))
    if isinstance(report, DetectReport):
        document = report.to_json()
        return Answer(document, detect_summary(document))
    if isinstance(report, FileDiagnostics):
        return Answer(report.to_json(), diagnostics_summary(report, budget))
    if isinstance(report, EditCheck):
        return Answer(report.to_json(), edit_summary(report, budget))
    if isinstance(report, FixOutcome):
        return Answer(report.to_json(), fixes_summary(report, budget))
    if isinstance(report, TestList):
        return Answer(report.agent_json(), report.summary())
    if isinstance(report, (Validation, Restarted)):  # editor commands: no tool answers them
        return Answer({"result": report.to_json()}, json.dumps(report.to_json()))
    raise AssertionError(f"no answer for {report!r}")


# -- summaries ------------------------------------------------------------------------------------------


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _seconds(ms: int) -> str:
    return f"{ms} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _counts(issues: Sequence[Issue]) -> str:
    if not issues:
        return "no issues"
    by = Counter(i.severity for i in issues)
    return ", ".join(_plural(by[s], s) for s in ("error", "warning", "info", "hint") if by[s])


def _issue_lines(issues: Sequence[Issue], budget: Budget) -> list[str]:
    """One line per issue the answer carries, most severe first, then what the budget left out."""
    selected = budget.issues(issues)
    more = budget.more(selected)
    return [issue_line(i) for i in selected.shown] + ([more] if more else [])


def run_summary(result: RunResult, budget: Budget | None = None) -> str:
    """`pytest: 1 failed (test_total) in 1.2 s`, `ruff: 2 errors in 0.1 s`, `mypy: not checked — <reason>`;
    then the first issues, one per line as `lintel check` prints them."""
    if result.status == "not_checked":
        return f"{result.tool}: not checked — {result.reason}"
    if result.status == "not_configured":
        return f"{result.tool}: not configured — {result.reason}; nothing ran"
    if result.check == "script":
        verdict = "ok" if result.exit_code == 0 else f"failed (exit {result.exit_code})"
        return f"{result.tool}: {verdict} in {_seconds(result.duration_ms)} (`{shlex.join(result.argv)}`)"
    if result.check == "test" and not result.argv:  # runFailingTests after a run that passed: nothing ran
        return f"{result.tool}: {result.reason}"
    if result.check == "test":
        names = [f.name for f in result.failures[:SHOWN_FAILURES]]
        more = ", …" if len(result.failures) > SHOWN_FAILURES else ""
        head = f"{len(result.failures)} failed ({', '.join(names)}{more})" if result.failures else "tests passed"
        others = [i for i in result.issues if i.kind != "test"]  # a test issue is a failure told again
        if others:
            head += f"; {_counts(others)}"
        shown = others
    else:
        head = "passed (output not parsed)" if result.status == "passed" else _counts(result.issues)
        shown = result.issues
    scope = f" — {result.scope}" if result.scope else ""
    lines = _issue_lines(shown, budget or Budget(DEFAULT_MAX_ISSUES))
    return "\n".join([f"{result.tool}: {head} in {_seconds(result.duration_ms)}{scope}", *lines])


def diagnostics_summary(found: FileDiagnostics, budget: Budget) -> str:
    """`file: 2 errors (ruff)`, or `partial: ruff lint timed_out (…); file: …` when a run is not complete (a
    timed-out run's note is not counted as a finding there); then the issues."""
    tools = ", ".join(dict.fromkeys(run.tool for run in found.runs)) or "no tool"
    issues = found.issues
    real = [i for i in issues if i.kind != "timeout"]
    others = _counts(real) if real else "0 issues"  # never "no issues" in an answer that is not complete
    partial = partial_head(found.runs, f"{found.file}: {others} from the other tools ({tools})")
    return "\n".join([partial or f"{found.file}: {_counts(issues)} ({tools})", *_issue_lines(issues, budget)])


def edit_summary(checked: EditCheck, budget: Budget) -> str:
    """`file: 1 new, 0 fixed, 3 unchanged (ruff, ruff format)` (or `partial: …`), then the new issues."""
    return "\n".join([checked.head(), *_issue_lines(checked.new, budget)])


def covering_summary(answer: dict[str, Any]) -> str:
    where = f"{answer['file']}:{answer['line']}"
    tests = answer["tests"]
    if tests:
        shown = ", ".join(tests[:SHOWN_FAILURES]) + (", …" if len(tests) > SHOWN_FAILURES else "")
        head = f"{where}: run by {_plural(len(tests), answer['granularity'])}: {shown}"
    else:
        head = f"{where}: no {answer['granularity']} runs it" + (f" ({answer['note']})" if answer.get("note") else "")
    return f"{head}\n({answer['source']})"


def detect_summary(document: dict[str, Any]) -> str:
    projects = document["projects"]
    listed = ", ".join(f"{p['language']} ({p['root']})" for p in projects) or "none"
    missing = sorted(
        {b["name"] for p in projects for check in p["checks"].values() for b in check["binaries"] if not b["found"]}
    )
    text = f"{_plural(len(projects), 'project')}: {listed}"
    return text + (f"; not found: {', '.join(missing)}" if missing else "")


def fixes_summary(outcome: FixOutcome, budget: Budget) -> str:
    """`fixed 9 findings in 2 files; 8 left` (`would fix` for a dry run), then the files and what is left."""
    verb = "would fix" if outcome.dry_run else "fixed"
    head = f"{verb} {_plural(outcome.applied, 'finding')} in {_plural(len(outcome.files), 'file')}"
    head += f"; {_counts(outcome.remaining)} left" if outcome.remaining else "; nothing left"
    lines = [head, *(f"{f.file}: {f.fixes} fixed" for f in outcome.files), *outcome.problems]
    return "\n".join([*lines, *_issue_lines(outcome.remaining, budget)])


TOOLS: tuple[AgentTool, ...] = tuple(AgentTool(entry) for entry in MCP_TOOLS.values())
BY_NAME = {tool.name: tool for tool in TOOLS}


def find(name: str) -> AgentTool:
    tool = BY_NAME.get(name)
    if tool is None:
        raise actions.invalid(f"unknown tool {name!r}; lintel offers: {', '.join(sorted(BY_NAME))}")
    return tool


__all__ = ["TOOLS", "ActionError", "AgentTool", "Answer", "answer", "budget_of", "budgeted", "find", "run_summary"]
