"""The MCP tools: for each, its arguments (CommandArgs fields, as the LSP command takes them), the lintel.engine.actions
call it makes, and the short text an agent reads first. Nothing here knows the SDK (serve.py does).

Adding a tool backed by an engine function is one `AgentTool` entry in TOOLS."""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lintel.core.issues import Issue
from lintel.engine import actions
from lintel.engine.actions import ActionError, CommandArgs, FileDiagnostics, Folder
from lintel.engine.checks import RunResult
from lintel.engine.fixrun import FixOutcome
from lintel.frontends.mcp.workspace import Host
from lintel.frontends.report.text import issue_line
from lintel.languages import CheckName, Project

# Issue lines shown in a summary; the structured result has them all.
SHOWN_ISSUES = 10
SHOWN_FAILURES = 5


@dataclass(frozen=True)
class Answer:
    """A tool's result: the JSON an agent parses (None: nothing to return) and the text it reads first."""

    structured: dict[str, Any] | None
    summary: str


OnStart = Callable[[int], None]


class ProjectRun(Protocol):
    """The shape of lintel.engine.actions' runs: (command, folder, project, args, trusted=, on_start=) -> RunResult."""

    def __call__(
        self,
        command: str,
        folder: Folder,
        project: Project,
        args: CommandArgs,
        *,
        trusted: bool,
        on_start: OnStart | None = None,
    ) -> Awaitable[RunResult]: ...


Call = Callable[[Host, CommandArgs, "AgentTool", OnStart], Awaitable[Answer]]


@dataclass(frozen=True)
class AgentTool:
    name: str
    command: str | None  # the LSP command with the same arguments and result, if there is one
    description: str
    fields: tuple[str, ...]  # the CommandArgs fields it takes
    call: Call
    required: tuple[str, ...] = ()

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of its arguments, with CommandArgs' descriptions (what agents read)."""
        full = CommandArgs.model_json_schema()
        properties = _inline(full["properties"], full.get("$defs", {}))
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {name: _plain(properties[name]) for name in self.fields},
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def parse(self, arguments: dict[str, Any] | None) -> CommandArgs:
        """The arguments validated as the LSP command validates them (same messages, the tool's name first);
        a field this tool does not take is refused as an unknown one."""
        args = actions.parse_args(self.name, [arguments] if arguments else [])
        unknown = sorted(args.model_fields_set - {*self.fields})
        problems = [f"{name}: Extra inputs are not permitted" for name in unknown]
        problems += [f"{name}: Field required" for name in self.required if getattr(args, name) is None]
        if problems:
            raise actions.invalid(f"{self.name}: {'; '.join(problems)}")
        return args


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """`{"$ref": "#/$defs/X"}` replaced by X itself: each tool's schema stands alone (no shared `$defs`)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """pydantic's `anyOf [T, null]` for an optional field as the plain type: the field is simply left out."""
    out = {k: v for k, v in schema.items() if k not in ("anyOf", "default", "title")}
    choices = [c for c in schema.get("anyOf", ()) if c.get("type") != "null"]
    if len(choices) == 1:
        out = {**choices[0], **out}
    return out


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


def _issue_lines(issues: Sequence[Issue]) -> list[str]:
    lines = [issue_line(i) for i in issues[:SHOWN_ISSUES]]
    if len(issues) > SHOWN_ISSUES:
        lines.append(f"… and {len(issues) - SHOWN_ISSUES} more (see the structured result)")
    return lines


def run_summary(result: RunResult) -> str:
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
    return "\n".join([f"{result.tool}: {head} in {_seconds(result.duration_ms)}{scope}", *_issue_lines(shown)])


def diagnostics_summary(found: FileDiagnostics) -> str:
    tools = ", ".join(dict.fromkeys(run.tool for run in found.runs)) or "no tool"
    issues = found.issues
    return "\n".join([f"{found.file}: {_counts(issues)} ({tools})", *_issue_lines(issues)])


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


# -- the calls ------------------------------------------------------------------------------------------


def _project_run(run: ProjectRun) -> Call:
    """A tool that runs something for the project its arguments choose (actions.project)."""

    async def call(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
        folder, project = actions.project(host.folders, args)
        result = await run(tool.name, folder, project, args, trusted=host.trusted, on_start=on_start)
        return Answer(result.result_json(), run_summary(result))

    return call


async def _run_tests(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
    """run_tests: its `path` also says what to run when it names a test file or folder."""
    folder, project = actions.project(host.folders, args)
    _, where = actions.target(host.folders, args)
    result = await actions.run_tests(
        tool.name, folder, project, args, where=where, trusted=host.trusted, on_start=on_start
    )
    return Answer(result.result_json(), run_summary(result))


def _check(check: CheckName) -> Call:
    async def call(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
        folder, project = actions.project(host.folders, args)
        result = await actions.run_project_check(
            tool.name, folder, project, check, args, trusted=host.trusted, on_start=on_start
        )
        return Answer(result.result_json(), run_summary(result))

    return call


async def _last_test_failures(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
    folder, project = actions.project(host.folders, args)
    last = actions.last_test_run(folder, project)
    if last is None:
        where = project.relative_root(folder.root)
        return Answer(None, f"no test run recorded for the {project.language} project at {where} yet (run_tests)")
    return Answer(last.result_json(), f"last run: {run_summary(last)}")


async def _tests_covering(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
    folder, project, file = actions.covering_target(tool.name, host.folders, args)
    answer = await actions.covering_tests(
        tool.name, folder, project, file, args, host.coverage, trusted=host.trusted, on_start=on_start
    )
    return Answer(answer, covering_summary(answer))


async def _detect(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
    folder, where = actions.target(host.folders, args)
    document = actions.detect(folder, where)
    return Answer(document, detect_summary(document))


async def _diagnostics(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
    found = await actions.file_diagnostics(tool.name, host.folders, args, trusted=host.trusted, on_start=on_start)
    return Answer(found.to_json(), diagnostics_summary(found))


def fixes_summary(outcome: FixOutcome) -> str:
    """`fixed 9 findings in 2 files; 8 left` (`would fix` for a dry run), then the files and what is left."""
    verb = "would fix" if outcome.dry_run else "fixed"
    head = f"{verb} {_plural(outcome.applied, 'finding')} in {_plural(len(outcome.files), 'file')}"
    head += f"; {_counts(outcome.remaining)} left" if outcome.remaining else "; nothing left"
    lines = [head, *(f"{f.file}: {f.fixes} fixed" for f in outcome.files), *outcome.problems]
    return "\n".join([*lines, *_issue_lines(outcome.remaining)])


async def _apply_fixes(host: Host, args: CommandArgs, tool: AgentTool, on_start: OnStart) -> Answer:
    outcome = await actions.fix_findings(tool.name, host.folders, args, trusted=host.trusted)
    return Answer(outcome.to_json(), fixes_summary(outcome))


_TARGET = ("language", "path")
_RUN = (*_TARGET, "timeout")
_RESULT = (
    " Returns a RunResult: ok, argv, cwd, exitCode, timedOut, durationMs, output (capped), issues"
    " (file/line/column/severity/rule/message)"
)

TOOLS: tuple[AgentTool, ...] = (
    AgentTool(
        "run_tests",
        "lintel.runTests",
        "Run the project's tests (pytest, go test, cargo test, the package.json test script): all of them, only"
        " `tests`, or those in the test file or folder `path` names (a `path` naming the project or a source file"
        " runs the whole suite); `scope` in the result says which." + _RESULT + " and failures (name, file, line,"
        " message). Failing tests are a result (ok: false), not an error.",
        (*_RUN, "tests"),
        _run_tests,
    ),
    AgentTool(
        "run_failing_tests",
        "lintel.runFailingTests",
        "Rerun exactly the tests that failed in the project's last run_tests (or run_failing_tests); the rerun"
        " becomes the last run. An error when no run was recorded: it never runs the whole suite." + _RESULT + ".",
        _RUN,
        _project_run(actions.run_failing_tests),
    ),
    AgentTool(
        "last_test_failures",
        "lintel.lastTestFailures",
        "The last run_tests result of the project (its failures), without running anything; nothing when no run"
        " was recorded since lintel started.",
        _TARGET,
        _last_test_failures,
    ),
    AgentTool(
        "run_lint",
        "lintel.lint",
        "Lint the whole project (ruff, eslint or the lint script, golangci-lint, clippy)." + _RESULT + ".",
        _RUN,
        _check("lint"),
    ),
    AgentTool(
        "run_typecheck",
        "lintel.typecheck",
        "Type-check the project (mypy/pyright, tsc or the typecheck script, go vet, cargo check)." + _RESULT + ".",
        _RUN,
        _check("typecheck"),
    ),
    AgentTool(
        "run_format_check",
        "lintel.format",
        "Check formatting without changing files (ruff format --diff, prettier --check, gofmt -l, rustfmt --check)."
        + _RESULT
        + ": one per file that is not formatted.",
        _RUN,
        _check("format"),
    ),
    AgentTool(
        "run_script",
        "lintel.runScript",
        "Run a package.json script with the project's package manager (from its lock file: npm, pnpm, yarn, bun)."
        " An unknown script is an error listing the available ones." + _RESULT + "; a failing script is ok: false"
        " with one issue holding the end of its output.",
        ("script", "args", *_RUN),
        _project_run(actions.run_package_script),
        required=("script",),
    ),
    AgentTool(
        "tests_covering",
        "lintel.testsCovering",
        "The tests that execute `file`:`line` (1-based), from the project's last coverage run (run first when there"
        " is none or the file changed since): call it before editing a function, then run_tests with those tests."
        " Returns {file, line, tests, granularity (test where the tool can tell, else file or package), covered,"
        " executable, source, note?}.",
        ("file", "line", "language", "timeout"),
        _tests_covering,
        required=("file", "line"),
    ),
    AgentTool(
        "detect",
        "lintel.detect",
        "The projects under the workspace (or under `path`): language, root, the command each check would run,"
        " and whether every binary it needs was found. Runs nothing.",
        ("path",),
        _detect,
    ),
    AgentTool(
        "apply_fixes",
        "lintel.fixAll",
        "Apply the linters' own fixes (ruff --fix, eslint --fix, clippy --fix, golangci-lint --fix) to the project"
        " `file` or `path` names, only in that file or folder when it is inside the project, and only for `rules`"
        " when given; `unsafe` adds the tools' unsafe fixes; `dry_run` writes nothing. Returns {applied, files"
        " [{file, diff, fixes}], remaining (the issues left), dryRun}.",
        ("file", "path", "language", "rules", "unsafe", "dry_run", "timeout"),
        _apply_fixes,
    ),
    AgentTool(
        "diagnostics",
        None,
        "The lint and format findings for one file, as the editor shows them after a save: call it right after"
        " writing a file. Returns {ok, language, file, issues, runs} (runs: the RunResult of each tool).",
        ("file", "language", "timeout"),
        _diagnostics,
        required=("file",),
    ),
)

BY_NAME = {tool.name: tool for tool in TOOLS}


def find(name: str) -> AgentTool:
    tool = BY_NAME.get(name)
    if tool is None:
        raise actions.invalid(f"unknown tool {name!r}; lintel offers: {', '.join(sorted(BY_NAME))}")
    return tool


__all__ = ["TOOLS", "ActionError", "AgentTool", "Answer", "find", "run_summary"]
