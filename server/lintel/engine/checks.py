"""Run one check for one project: toolchain + runner + parser -> RunResult. Shared by the CLI and the server."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from lintel.core.fsnames import recover_issues
from lintel.core.issues import (
    Issue,
    ParseContext,
    SourceLines,
    SourceTexts,
    comparable_signature,
    finalize_issues,
    make_issue,
    without_path_qualifiers,
)
from lintel.core.results import RunResult as RunResult
from lintel.core.results import Status as Status
from lintel.core.results import relative as _relative
from lintel.core.runenv import run_environment
from lintel.engine.cachekey import KeyInputs
from lintel.engine.config import LintelConfig, clamp_timeout
from lintel.engine.registry import project_files, scope_to_file
from lintel.engine.resultcache import ResultCache
from lintel.engine.scriptfloor import failed_script
from lintel.languages import (
    FILES_PLACEHOLDER,
    NPX_NO_INSTALL,
    REPORT_PLACEHOLDER,
    CheckName,
    FileScope,
    Project,
    ToolSpec,
)
from lintel.languages.binaries import Resolved, not_found_message, override_argv, resolve_binary
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.runtime.process import PARSE_CAP_BYTES, ProcessResult, ProcessStartError, cap_text, run_process

log = logging.getLogger(__name__)

_REASON_CHARS = 600


def compose_output(stdout: str, stderr: str, exit_code: int | None, timed_out: bool, timeout: float) -> str:
    """docs/architecture.md, Records: stdout, `--- stderr ---` + stderr, `timed out after Ns`, and `exit: N` last."""
    parts = [stdout.rstrip("\n")] if stdout else []
    if stderr.strip():
        parts.append("--- stderr ---")
        parts.append(stderr.rstrip("\n"))
    if timed_out:
        parts.append(f"timed out after {timeout:g}s")
    parts.append(f"exit: {exit_code if exit_code is not None else 'none'}")
    return "\n".join(parts)


def failure_tail(text: str) -> str:
    """The end of a failed tool's output, where tools put the error that made them stop: its last lines that fit
    in _REASON_CHARS, cut at a line (else a word) boundary, never mid-word."""
    text = text.strip()
    if len(text) <= _REASON_CHARS:
        return text
    cut = text[-_REASON_CHARS:]
    start = cut.find("\n") + 1 or cut.find(" ") + 1
    return "… " + cut[start:].lstrip()


def dedupe_issues(issues: Iterable[Issue]) -> list[Issue]:
    """One issue per (signature, column, rule), paths in messages aside: the same finding reported by two runs
    (rustc's in both clippy and cargo check, in either wording) is shown once. A compile error (kind `build`) is
    one problem whichever tool hit it — go test's build, go vet, golangci-lint's `typecheck` rule — so its rule
    does not count; and a `build` issue at the place and in the words of a `typecheck` one is that one (go test
    fails its build on vet's findings, printed as compile errors)."""
    issues = list(issues)
    # A type checker's finding that another tool's build also stopped on (go test runs vet's checks and fails its
    # build on them, printed as compile errors): one problem, the type checker's.
    checked = {_located(i) for i in issues if i.kind == "typecheck" and i.file is not None}
    seen: dict[tuple[str, int | None, str | None], int] = {}
    out: list[Issue] = []
    for issue in issues:
        if issue.kind == "build" and _located(issue) in checked:
            continue
        key = (comparable_signature(issue), issue.column, None if issue.kind == "build" else issue.rule)
        if key not in seen:
            seen[key] = len(out)
            out.append(issue)
        elif issue.fixes and not out[seen[key]].fixes:  # the run that gave a fix for it keeps its fix
            out[seen[key]] = replace(out[seen[key]], fixes=issue.fixes)
    return out


def _located(issue: Issue) -> tuple[str | None, int | None, int | None, str]:
    return (issue.file, issue.line, issue.column, without_path_qualifiers(issue.message))


def sort_issues(issues: Iterable[Issue]) -> list[Issue]:
    return sorted(
        issues,
        key=lambda i: (
            i.file or "",
            i.line or 0,
            i.column or 0,
            i.source,
            i.rule or "",
            i.message,
        ),
    )


@dataclass(frozen=True)
class PlannedCheck:
    """What a check would run, with every binary it needs resolved (what `lintel detect` shows)."""

    project: Project
    spec: ToolSpec
    binaries: tuple[Resolved, ...]
    # Why the project does not use this check's tool (LanguageSpec.not_configured); then nothing runs.
    not_configured: str | None = None

    @property
    def missing(self) -> Resolved | None:
        return next((b for b in self.binaries if not b.found), None)


def plan_check(project: Project, check: CheckName, config: LintelConfig, workspace: Path) -> PlannedCheck:
    """The project-wide command for `check`, with the user's argv override applied."""
    settings = config.languages.get(project.language)
    override = settings.argv_for(check)
    spec = override_argv(project.spec.tool_for(project, check), override)
    planned = plan_spec(project, spec, config, workspace)
    unused = None if override else unused_tool(project, check)
    return replace(planned, not_configured=unused) if unused else planned


def unused_tool(project: Project, check: CheckName) -> str | None:
    """Why the project does not use `check`'s tool, or None (a language's reader must not take a check down)."""
    try:
        return project.spec.not_configured(project, check)
    except Exception:
        log.exception("reading whether %s uses its %s tool failed", project.root, check)
        return None


def not_configured_result(planned: PlannedCheck, check: str) -> RunResult:
    """The result of a check whose tool the project does not use: nothing ran, nothing is wrong."""
    project = planned.project
    log.info("%s %s not configured: %s", project.language, check, planned.not_configured)
    return RunResult(
        language=project.language,
        check=check,
        tool=planned.spec.tool,
        argv=[],
        cwd=project.root,
        status="not_configured",
        reason=planned.not_configured,
        output=f"not configured: {planned.not_configured}",
    )


def plan_spec(project: Project, spec: ToolSpec, config: LintelConfig, workspace: Path) -> PlannedCheck:
    """Resolve every binary `spec` needs: argv[0] and, for `npx --no-install`, the package binaries
    it runs, which must be installed in the project (npx ignores PATH and would run something else).

    lintel's own `npx --no-install <tool> …` runs the project's tool directly when it is installed (its
    node_modules/.bin, or one above it where workspaces hoist it; or the user's `binaries` setting for it): the
    file npx would run, without npx's own Node start on every run. npx stays the command only when
    the tool is not there, and that run is reported not found before anything starts."""
    settings = config.languages.get(project.language)

    def resolve(name: str, *, local_only: bool) -> Resolved:
        return resolve_binary(
            name,
            project_root=project.root,
            workspace_root=workspace,
            setting=settings.binaries.get(name),
            local_only=local_only,
            install_dirs=project.spec.install_dirs(),
        )

    package = _npx_package(spec)
    if package is not None:
        tool = resolve(package, local_only=True)
        if tool.path is not None:
            direct = replace(spec, argv=(tool.path, *spec.argv[len(NPX_NO_INSTALL) + 1 :]), requires=spec.requires[1:])
            return PlannedCheck(project, direct, (tool, *(resolve(n, local_only=True) for n in direct.requires)))
    via_npx = Path(spec.binary).name == "npx"
    binaries = tuple(
        resolve(name, local_only=via_npx and index > 0) for index, name in enumerate((spec.binary, *spec.requires))
    )
    return PlannedCheck(project, spec, binaries)


def _npx_package(spec: ToolSpec) -> str | None:
    """The tool of a command lintel itself wrote as `npx --no-install <tool> …` (it `requires` that tool); None
    for any other command, a user's own argv included (it runs as the user wrote it)."""
    argv = spec.argv
    if argv[: len(NPX_NO_INSTALL)] != NPX_NO_INSTALL or len(argv) <= len(NPX_NO_INSTALL):
        return None
    package = argv[len(NPX_NO_INSTALL)]
    return package if spec.requires[:1] == (package,) else None


def timeout_for(check: CheckName, config: LintelConfig, override: float | None, *, builds: bool = False) -> float:
    """The run's timeout: the caller's, else the configured one for `check`; a tool that `builds` the project first
    (clippy, golangci-lint: a cold build takes minutes) gets the typecheck's when the user set none for `check`."""
    if override is not None:
        return clamp_timeout(override)
    seconds = getattr(config.timeouts, check)
    if builds and check not in config.timeouts.model_fields_set:
        seconds = max(seconds, config.timeouts.typecheck)
    return clamp_timeout(seconds)


async def run_check(  # noqa: PLR0913 - keyword options of one call, passed through by name
    project: Project,
    check: CheckName,
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
    extra_args: Sequence[str] = (),
    cache: ResultCache | None = None,
) -> RunResult:
    """Run `check` for `project` and interpret the outcome (through `cache` when given). Never raises for tool
    problems: a check that could not run comes back as `not_checked` with the reason."""
    workspace = workspace.resolve()
    planned = plan_check(project, check, config, workspace)
    return await run_planned(
        planned,
        workspace=workspace,
        timeout=timeout_for(check, config, timeout, builds=planned.spec.builds),
        env=env,
        on_start=on_start,
        extra_args=extra_args,
        cache=cache,
    )


async def run_file_check(  # noqa: PLR0913 - keyword options of one call, passed through by name
    project: Project,
    check: Literal["lint", "format"],
    file: Path,
    *,
    workspace: Path,
    config: LintelConfig,
    text: str | None = None,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
    require_stdin: bool = False,
) -> RunResult | None:
    """`check` scoped to one file (docs/editors.md, What the server does): on the file where the tool allows it, else on
    its package, crate or project keeping only that file's findings. With `text`, the unsaved content goes on stdin
    when the tool reads stdin; with `require_stdin` a tool that cannot read it is not run (None), nor is a
    check the project's language has no command for, nor one whose tool the project does not use."""
    scope = file_scope(project, check, file, config, buffered=text is not None)
    if scope is None:
        return None
    workspace = workspace.resolve()
    if require_stdin and not scope.stdin:
        return None  # the tool cannot see unsaved text: checking the saved file would describe other content
    result = await run_planned(
        plan_spec(project, scope.spec, config, workspace),
        workspace=workspace,
        timeout=timeout_for(check, config, timeout, builds=scope.spec.builds),
        on_start=on_start,
        stdin=text.encode("utf-8") if scope.stdin and text is not None else None,
    )
    if scope.filter_to_file or result.issues:
        result.issues = keep_file_issues(result.issues, file, workspace)
    return result


def file_scope(
    project: Project, check: Literal["lint", "format"], file: Path, config: LintelConfig, *, buffered: bool
) -> FileScope | None:
    """How `check` runs for one file (`buffered`: its text goes on stdin where the tool reads stdin); None for a
    check the project's language has no command for, or whose tool the project does not use."""
    if check not in project.spec.checks:
        return None  # a language the user declared without this check
    override = config.languages.get(project.language).argv_for(check)
    if not override and project.problem is None and unused_tool(project, check):
        return None  # a tool the project does not use (no prettier): nothing to say about the file
    if override:
        # The user's command: given the file where it says `{files}`, else run whole for the file's findings.
        return scope_to_file(override_argv(project.spec.tool_for(project, check), override), project, file)
    return project.spec.file_scope(project, check, file, buffered)


def keep_file_issues(issues: Iterable[Issue], file: Path, workspace: Path) -> list[Issue]:
    """The findings of `file` (absolute) among a run's, whose paths are relative to `workspace` (resolved)."""
    wanted = issue_file_name(file, workspace)
    return [i for i in issues if i.file == wanted]


def issue_file_name(file: Path, workspace: Path) -> str:
    """How a run's findings name `file` (absolute): relative to `workspace` (resolved), else absolute."""
    return _relative(file, workspace)


async def run_planned(  # noqa: PLR0913 - keyword options of one call, passed through by name
    planned: PlannedCheck,
    *,
    workspace: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
    extra_args: Sequence[str] = (),
    stdin: bytes | None = None,
    check: str | None = None,
    cache: ResultCache | None = None,
) -> RunResult:
    """Run a planned command and turn what it did into a RunResult (status, reason, issues, failures). `check`
    names the run where it is not one of the checks (`script`, lintel.runScript). With `cache`, the one place
    results are cached (lintel.engine.resultcache): a run whose inputs it has seen replays that result."""
    project, spec = planned.project, planned.spec
    argv = [*spec.argv, *extra_args]
    label = check or spec.check
    if planned.not_configured and project.problem is None:  # what a project unread uses cannot be known
        return not_configured_result(planned, label)
    result = RunResult(
        language=project.language, check=label, tool=spec.tool, argv=argv, cwd=project.root, status="not_checked"
    )
    if project.problem is not None:
        result.reason = result.output = project.problem
        log.info("%s %s not checked: %s", project.language, spec.check, project.problem)
        return result
    missing = planned.missing
    if missing is not None:
        result.reason = not_found_message(label, missing.name, spec.install_hint, proxy_only=missing.proxy_only)
        result.output = result.reason
        result.missing_binary = missing.name
        log.info("%s %s not checked: %s (tried %s)", project.language, spec.check, result.reason, missing.tried)
        return result
    if FILES_PLACEHOLDER in argv:
        files = project_files(project)
        if not files:
            result.status, result.reason = "clean", f"no {project.language} files in {project.root}"
            return result
        argv = [part for arg in argv for part in (files if arg == FILES_PLACEHOLDER else [arg])]
    result.binary = planned.binaries[0].path
    log.info(
        "%s %s: %s (binary %s via %s)",
        project.language,
        label,
        " ".join(argv),
        result.binary,
        planned.binaries[0].via,
    )
    # The user's environment as it is, with the spec's defaults where it has none (lintel.core.runenv).
    run_env = run_environment(spec.env_defaults, spec.env, env)
    if cache is None:
        return await _execute(result, planned, argv, run_env, workspace, timeout, on_start, stdin)
    key = _key_inputs(planned, label, argv, run_env, workspace, stdin)
    return await cache.through(
        key, lambda: _execute(result, planned, argv, run_env, workspace, timeout, on_start, stdin)
    )


def _key_inputs(
    planned: PlannedCheck, label: str, argv: Sequence[str], env: Mapping[str, str], workspace: Path, stdin: bytes | None
) -> KeyInputs:
    """What the result cache keys a run on, as run_planned is about to start it."""
    spec = planned.spec
    return KeyInputs(
        tool=spec.tool,
        check=label,
        parser=spec.parser,
        codes=(tuple(sorted(spec.ok_codes)), tuple(sorted(spec.finding_codes))),
        argv=tuple(argv),
        binaries=tuple(b.path for b in planned.binaries if b.path is not None),
        cwd=planned.project.root,
        workspace=workspace,
        env=env,
        script=spec.script is not None,
        stdin=stdin,
    )


async def _execute(
    result: RunResult,
    planned: PlannedCheck,
    argv: list[str],
    run_env: Mapping[str, str],
    workspace: Path,
    timeout: float,
    on_start: Callable[[int], None] | None,
    stdin: bytes | None,
) -> RunResult:
    """Start the planned command and read what it did into `result`."""
    project, spec, label = planned.project, planned.spec, result.check
    # A scratch directory only for tools that write a report file (pytest's junit XML): making one costs time measurable
    # on every lint-on-save.
    wants_report = REPORT_PLACEHOLDER in argv
    with tempfile.TemporaryDirectory(prefix="lintel-") if wants_report else contextlib.nullcontext("") as scratch:
        report_path = Path(scratch) / "report"
        # What ran, as the user would type it: the placeholder becomes the report path it stood for.
        argv = [str(report_path) if a == REPORT_PLACEHOLDER else a for a in argv]
        result.argv = argv
        try:
            proc = await run_process(
                [result.binary or argv[0], *argv[1:]],
                cwd=project.root,
                env=run_env,
                timeout=timeout,
                on_start=on_start,
                stdin=stdin,
                cap_bytes=PARSE_CAP_BYTES,
            )
        except ProcessStartError as exc:
            # Resolution found the binary, so this is a race (removed since) or a broken file/cwd.
            result.reason = f"{label}: {exc}"
            if exc.errno == errno.ENOENT:
                result.missing_binary = result.binary or argv[0]
                if spec.install_hint:
                    result.reason += f" — install it with: {spec.install_hint}"
            result.output = result.reason
            return result
        report = _read_report(report_path) if wants_report else None
    _interpret(result, proc, report, planned, workspace, timeout)
    return result


def _interpret(
    result: RunResult, proc: ProcessResult, report: str | None, planned: PlannedCheck, workspace: Path, seconds: float
) -> None:
    """What the run said: its output parsed into issues and failures, and the status its exit code gives."""
    project, spec = planned.project, planned.spec
    result.exit_code = proc.exit_code
    result.stdout = proc.stdout
    result.timed_out = proc.timed_out
    result.duration_ms = proc.duration_ms
    # The parser reads the streams whole (up to PARSE_CAP_BYTES); the text kept in `output` is capped.
    shown_out, cut_out = cap_text(proc.stdout)
    shown_err, cut_err = cap_text(proc.stderr)
    result.truncated = proc.truncated or cut_out or cut_err
    result.output = compose_output(shown_out, shown_err, proc.exit_code, proc.timed_out, seconds)
    output = ToolOutput(proc.stdout, proc.stderr, proc.exit_code, report)
    ctx = ParseContext(cwd=str(spec.paths_from or project.root), root=str(workspace), read_text=SourceTexts(workspace))
    parsed = get_parser(spec.parser)(output, ctx)
    issues = list(parsed.issues)
    result.failures = list(parsed.failures)
    if proc.timed_out:
        result.status = "not_checked"
        result.reason = f"{spec.tool} timed out after {seconds:g}s"
        message = f"{result.check}: {spec.tool} timed out after {seconds:g}s"
        issues.append(make_issue(kind="timeout", message=message, source=spec.tool, severity="error"))
    elif proc.exit_code in spec.ok_codes:
        # The tool's own verdict: it ran and exited as it does when all is well.
        result.status = "findings" if issues or result.failures else "clean"
        if result.status == "clean" and not parsed.recognized and (proc.stdout.strip() or proc.stderr.strip()):
            result.status = "passed"
            result.reason = f"{spec.tool} exited {proc.exit_code}; its output was not parsed (see the output)"
            log.info("%s exited %s but its output was not understood", spec.tool, proc.exit_code)
    elif issues or result.failures:
        result.status = "findings"
        if proc.exit_code not in spec.finding_codes:
            result.reason = f"{spec.tool} exited with {proc.exit_code}"
    else:
        result.status = "not_checked"
        detail = failure_tail(f"{proc.stdout.strip()}\n{proc.stderr.strip()}") or "no output"
        what = "reported findings that could not be parsed" if (proc.exit_code in spec.finding_codes) else "failed"
        result.reason = f"{spec.tool} {what} (exit {proc.exit_code}): {detail}"
    if spec.script is not None and not proc.timed_out and proc.exit_code not in spec.ok_codes:
        # A package.json script: its exit code is the floor of the verdict (lintel.engine.scriptfloor).
        tail = failure_tail(f"{proc.stdout.strip()}\n{proc.stderr.strip()}")
        floor = failed_script(spec, result.check, output, ctx, issues=issues, failures=result.failures, tail=tail)
        if floor is not None:
            result.status, result.reason, issues = floor.status, floor.reason, floor.issues
    if proc.truncated and result.status != "not_checked":
        # Beyond what the parser may read (PARSE_CAP_BYTES): say so in the result, not only in a log.
        result.reason = f"{spec.tool} printed more than {PARSE_CAP_BYTES // 2**20} MiB; findings may be incomplete"
        log.warning("%s output was truncated; findings may be incomplete", spec.tool)
    result.issues = sort_issues(finalize_issues(recover_issues(issues, workspace), SourceLines(workspace)))


def _read_report(path: Path, limit: int = PARSE_CAP_BYTES) -> str | None:
    try:
        if path.stat().st_size > limit:
            log.warning("report %s is larger than %d bytes; ignored", path, limit)
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


async def run_checks(  # noqa: PLR0913 - keyword options of one call, passed through by name
    projects: Sequence[Project],
    checks: Sequence[CheckName],
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    concurrency: int | None = None,
    on_begin: Callable[[Project, CheckName], None] | None = None,
    on_done: Callable[[RunResult], None] | None = None,
    cache: ResultCache | None = None,
) -> list[RunResult]:
    """Every (project, check) pair, a few at a time; results in project-then-check order. A check a language
    declares no command for (a user's language without `typecheck`) is not run."""
    pairs = [(p, c) for p in projects for c in checks if c in p.spec.checks]
    return await run_pairs(
        pairs,
        workspace=workspace,
        config=config,
        timeout=timeout,
        concurrency=concurrency,
        on_begin=on_begin,
        on_done=on_done,
        cache=cache,
    )


async def run_pairs(
    pairs: Sequence[tuple[Project, CheckName]],
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    concurrency: int | None = None,
    on_begin: Callable[[Project, CheckName], None] | None = None,
    on_done: Callable[[RunResult], None] | None = None,
    cache: ResultCache | None = None,
) -> list[RunResult]:
    """The planned (project, check) runs, a few at a time (the cores); results in the order given; through
    `cache` when given."""
    limit = asyncio.Semaphore(max(1, concurrency or os.cpu_count() or 2))

    async def one(project: Project, check: CheckName) -> RunResult:
        async with limit:
            if on_begin is not None:
                on_begin(project, check)
            try:
                result = await run_check(
                    project, check, workspace=workspace, config=config, timeout=timeout, cache=cache
                )
            except Exception as exc:  # one broken check must not take the others down
                log.exception("%s %s crashed", project.language, check)
                result = RunResult(
                    language=project.language,
                    check=check,
                    tool=check,
                    argv=[],
                    cwd=project.root,
                    status="not_checked",
                    reason=f"internal error in lintel: {exc!r}",
                )
            if on_done is not None:
                on_done(result)
            return result

    return list(await asyncio.gather(*(one(p, c) for p, c in pairs)))
