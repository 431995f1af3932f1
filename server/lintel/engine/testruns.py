"""lintel.runTests {tests} and lintel.runFailingTests without the protocol: a project's tests narrowed to the
identities asked for, or to the failures of its last run, run as the test check runs (docs/agents.md, Running a
subset of tests). The LSP commands and `lintel mcp` call these; errors are `lintel.core.errors` exceptions whose
message is what the user sees.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from lintel.core.errors import BadArgument, NothingToRun, NotSupported
from lintel.engine.checks import RunResult, Status, plan_spec, run_check, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.languages import Project, ToolSpec
from lintel.languages.binaries import override_argv
from lintel.languages.testselect import Selection, TestRef, TestSelection, parse_identity, recorded_ref
from lintel.languages.testselect.base import Expected, no_test

TestIdentity = str | Mapping[str, object]


def _tests(project: Project) -> TestSelection:
    """The language's test selection (base_spec has refused a language without one)."""
    tests = project.spec.tests
    if tests is None:
        raise NotSupported(f"running a subset of tests is not supported for {project.language} projects yet")
    return tests


def base_spec(project: Project, config: LintelConfig, command: str) -> ToolSpec:
    """The project's test command (the user's override applied), which a subset narrows."""
    if "test" not in project.spec.checks or project.spec.tests is None:
        raise NotSupported(f"{command} is not supported for {project.language} projects yet")
    settings = config.languages.get(project.language)
    return override_argv(project.spec.tool_for(project, "test"), settings.argv_for("test"))


def select_tests(
    project: Project,
    tests: Sequence[TestIdentity],
    *,
    workspace: Path,
    config: LintelConfig,
    command: str = "lintel.runTests",
) -> Selection:
    """What runs for `tests` (names, files, `file:line`, or TestFailure objects). Raises BadArgument for an
    identity that matches no test: a subset never silently becomes the whole suite."""
    base = base_spec(project, config, command)
    if not tests:
        raise BadArgument(f"{command}: `tests` is empty; name at least one test, or leave `tests` out to run all")
    workspace = workspace.resolve()
    refs = [parse_identity(entry, project, workspace) for entry in tests]
    return _tests(project).select(project, refs, base, workspace)


def path_selection(
    project: Project, path: Path, *, workspace: Path, config: LintelConfig, command: str = "lintel.runTests"
) -> Selection | None:
    """runTests {path}: the tests in the test file or folder `path` names (resolved, inside the project); None
    when it names the project root, a file that is not a test file or a folder without tests, or the language
    has no runner lintel can narrow — the whole suite runs then, and the result's `scope` says so."""
    path = path.resolve()
    if path == project.root.resolve() or project.spec.tests is None or "test" not in project.spec.checks:
        return None
    base = base_spec(project, config, command)
    return _tests(project).select_path(project, path, base, workspace.resolve())


def failing_selection(
    project: Project,
    last: RunResult | None,
    *,
    workspace: Path,
    config: LintelConfig,
    command: str = "lintel.runFailingTests",
) -> Selection | None:
    """What reruns the failures of `last` (the project's last test run); None when that run had none. Raises
    NothingToRun when no run is recorded or the last one did not finish."""
    base = base_spec(project, config, command)
    if last is None:
        raise NothingToRun(
            f"no test run recorded for the {project.language} project at {project.root} yet: "
            "run lintel.runTests first (lintel.runFailingTests never runs the whole suite)"
        )
    if not last.failures:
        if last.status == "not_checked":
            raise NothingToRun(f"the last test run did not finish ({last.reason}); there are no failures to rerun")
        return None
    workspace = workspace.resolve()
    refs: list[TestRef] = [recorded_ref(f.name, f.file, f.line, project, workspace) for f in last.failures]
    return _tests(project).select(project, refs, base, workspace)


async def run_selection(
    project: Project,
    selection: Selection,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
) -> RunResult:
    """Run each command of the selection in turn; several make one result (see `merge`)."""
    workspace = workspace.resolve()
    seconds = timeout_for("test", config, timeout)
    results: list[RunResult] = []
    for index, spec in enumerate(selection.runs):
        result = await run_planned(
            plan_spec(project, spec, config, workspace), workspace=workspace, timeout=seconds, on_start=on_start
        )
        expected = selection.expected[index] if index < len(selection.expected) else ()
        _check_started(project, selection, expected, result)
        results.append(result)
    return merge(results)


def _check_started(project: Project, selection: Selection, expected: Sequence[Expected], result: RunResult) -> None:
    """A run that passed without starting a test it was asked for matched no such test (go test passes when its
    `-run` matches nothing): BadArgument, as for an identity refused before running, never an ok answer."""
    if selection.started is None or not expected or not result.ok or result.truncated:
        return  # a failed run is its own answer; a cut output may have lost the events
    started = selection.started(result.stdout)
    for wanted in expected:
        if not any(name == wanted.name or name.startswith(f"{wanted.name}/") for name in started):
            raise no_test(wanted.ref, project, f"{result.tool} ran no test named {wanted.name!r}")


async def run_tests(
    project: Project,
    tests: Sequence[TestIdentity] | None,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
    command: str = "lintel.runTests",
) -> RunResult:
    """The whole suite (`tests` None), or the tests named. `command` names the request in refusals."""
    if tests is None:
        return await run_check(project, "test", workspace=workspace, config=config, timeout=timeout, on_start=on_start)
    selection = select_tests(project, tests, workspace=workspace, config=config, command=command)
    return await run_selection(
        project, selection, workspace=workspace, config=config, timeout=timeout, on_start=on_start
    )


async def run_failing_tests(
    project: Project,
    last: RunResult | None,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
    command: str = "lintel.runFailingTests",
) -> RunResult:
    """Exactly the failures of `last` rerun. When `last` passed, nothing runs: an ok result whose `argv` is empty
    says so (the caller keeps its record then; otherwise this result replaces it)."""
    selection = failing_selection(project, last, workspace=workspace, config=config, command=command)
    if selection is None:
        assert last is not None
        return nothing_to_rerun(project, last)
    return await run_selection(
        project, selection, workspace=workspace, config=config, timeout=timeout, on_start=on_start
    )


def nothing_to_rerun(project: Project, last: RunResult) -> RunResult:
    """runFailingTests after a run that passed: ok, nothing ran (empty `argv`), and the message says why."""
    message = f"nothing to rerun: the last test run ({shlex.join(last.argv)}) had no failures"
    return RunResult(
        language=project.language,
        check="test",
        tool=last.tool,
        argv=[],
        cwd=project.root,
        status="clean",
        reason=message,
        output=message,
    )


def merge(results: Sequence[RunResult]) -> RunResult:
    """One result for commands run in turn (a Go subset spanning packages that one `-run` cannot say): `argv` is
    the commands joined by `;`, `output` each command's under a `$ command` line, then the overall `exit: N`."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    argv: list[str] = []
    for result in results:
        argv += [*([";"] if argv else []), *result.argv]
    exit_code = next((r.exit_code for r in results if r.exit_code not in (0, None)), first.exit_code)
    statuses = {r.status for r in results}
    worst_first: tuple[Status, ...] = ("not_checked", "findings", "passed", "clean", "not_configured")
    status = next(s for s in worst_first if s in statuses)
    sections = [f"$ {shlex.join(r.argv)}\n{r.output}" for r in results]
    reasons = [r.reason for r in results if r.reason]
    return RunResult(
        language=first.language,
        check=first.check,
        tool=first.tool,
        argv=argv,
        cwd=first.cwd,
        status=status,
        reason="; ".join(reasons) or None,
        exit_code=exit_code,
        timed_out=any(r.timed_out for r in results),
        duration_ms=sum(r.duration_ms for r in results),
        truncated=any(r.truncated for r in results),
        output="\n\n".join([*sections, f"exit: {exit_code if exit_code is not None else 'none'}"]),
        issues=[i for r in results for i in r.issues],
        failures=[f for r in results for f in r.failures],
        binary=first.binary,
        stdout="".join(r.stdout for r in results),
    )
