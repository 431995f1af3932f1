"""`lintel check` and `lintel detect`: the engine run headless, for CI, agents and people (docs/cli.md).

Loaded by the command line only for these commands: `lintel serve` never imports it (cli.py)."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lintel.core.fsnames import json_text
from lintel.engine.checks import RunResult, dedupe_issues, run_pairs, sort_issues
from lintel.engine.config import LintelConfig, ValidatorConfig, load_config
from lintel.engine.discover import Discovery, Found, describe, discover, nearest_above, repository_root
from lintel.engine.registry import registry_for
from lintel.engine.resultcache import ResultCache, default_cache_dir
from lintel.engine.scope import ScopeError, affected, matching, parse_shard, shard
from lintel.engine.validators import ValidateResult, run_validators
from lintel.frontends.check_request import CheckRequest, DetectRequest
from lintel.frontends.checknotes import UsageError, note, progress, shows_progress
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry
from lintel.frontends.report.files import OutputError, writable, write
from lintel.frontends.report.publish import present
from lintel.languages import CHECKS, CheckName, Project
from lintel.languages.base import COVERAGE_CHECK

if TYPE_CHECKING:
    from lintel.engine.baseline import Baseline
    from lintel.engine.detect_report import ProjectEntry as DetectedProject
    from lintel.engine.fixrun import FixOutcome
    from lintel.engine.newfrom import MergeBase

# What only some flags use (--baseline, --fix/--diff, --only coverage, `detect`) is imported by the code that runs
# for them: a one-file lint pays for none of it (docs/architecture.md, A fast start).

EXIT_OK = 0
EXIT_USAGE = 2

# `coverage` runs the tests with coverage (lintel.coverage): totals in text, per file in json and sarif.
ONLY_CHOICES = (*CHECKS, "validators", COVERAGE_CHECK)
DEFAULT_ONLY = "lint,typecheck"


def run(args: argparse.Namespace) -> int:
    """`check` or `detect`; a usage error is one line on stderr and exit code 2. The command line becomes a typed
    request here, once: nothing below sees it."""
    # A file name that is not UTF-8 is printed as its bytes (lintel.core.fsnames), as ls or grep print it to a pipe.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="surrogateescape")
    try:
        if args.command == "check":
            return cmd_check(CheckRequest.from_namespace(args))
        return cmd_detect(DetectRequest.from_namespace(args))
    except (UsageError, ScopeError) as exc:
        print(f"lintel: {exc}", file=sys.stderr)
        return EXIT_USAGE


def parse_only(value: str) -> list[str]:
    items = [part.strip().lower() for part in value.split(",") if part.strip()]
    unknown = [item for item in items if item not in ONLY_CHOICES]
    if unknown or not items:
        raise UsageError(
            f"--only: unknown check {', '.join(unknown) or '(none given)'}; choose from {', '.join(ONLY_CHOICES)}"
        )
    return list(dict.fromkeys(items))


def _workspace(path: str) -> Path:
    root = Path(path).expanduser()
    if not root.exists():
        raise UsageError(f"path not found: {path}")
    if not root.is_dir():
        raise UsageError(f"not a directory: {path} (lintel detect looks in a folder)")
    return root.resolve()


@dataclass
class _Scope:
    """What one `lintel check PATH` covers: the projects, and the root the report is relative to."""

    root: Path
    config: LintelConfig
    discovery: Discovery
    whole: bool  # PATH is the report root: the workspace's own validators run too


def _scope(path: str) -> _Scope:
    """A folder holding projects: all of them, reported relative to it. A file, or a folder inside a project:
    the nearest project above it, reported relative to its repository (the enclosing git work tree), so the paths
    are the ones a check of the whole repository prints. A PATH lintel may not read is a usage error (a folder
    below it that cannot be read is reported as not checked, see _unread)."""
    try:
        return _find_scope(path)
    except PermissionError as exc:
        raise UsageError(f"cannot read {exc.filename or path}: {exc.strerror}") from exc


def _find_scope(path: str) -> _Scope:
    given = Path(path).expanduser()
    if not given.exists():
        raise UsageError(f"path not found: {path}")
    given = given.resolve()
    folder = given if given.is_dir() else given.parent
    config = _config(folder)
    if given.is_dir():
        discovery = discover(
            folder, registry_for(config), exclude=config.projects.exclude, examples=config.projects.examples
        )
        if discovery.found:
            return _Scope(folder, config, discovery, whole=True)
    repository = repository_root(folder)
    stop = repository if repository is not None else _below_home(folder)
    near = nearest_above(given, registry_for(config), stop=stop)
    if not near:
        return _Scope(folder, config, Discovery(folder), whole=True)
    root = repository if repository is not None else near[0].root
    if root != folder:
        config = _config(root)
        near = nearest_above(given, registry_for(config), stop=stop) or near
    return _Scope(root, config, Discovery(root, [Found(p) for p in near]), whole=False)


def _below_home(folder: Path) -> Path | None:
    """Without a repository, the search upwards stops below the home folder (a stray ~/package.json must not
    make every folder a node project)."""
    home = Path.home().resolve()
    if folder == home or not folder.is_relative_to(home):
        return None if folder != home else folder
    return home / folder.relative_to(home).parts[0]


def _config(root: Path) -> LintelConfig:
    loaded = load_config(root)
    if loaded.problems:
        raise UsageError("invalid configuration:\n" + "\n".join(f"  {problem}" for problem in loaded.problems))
    return loaded.config


async def _run_everything(
    pairs: list[tuple[Project, CheckName]],
    validators: list[ValidatorConfig],
    root: Path,
    config: LintelConfig,
    request: CheckRequest,
    covered: Sequence[Project] = (),
    cache: ResultCache | None = None,
) -> list[RunResult]:
    several = len({p.root for p, _ in pairs} | {p.root for p in covered}) > 1
    begin, done = progress(not shows_progress(request), root if several else None)
    check_runs = run_pairs(
        pairs, workspace=root, config=config, timeout=request.timeout, on_begin=begin, on_done=done, cache=cache
    )

    def validator_done(result: ValidateResult) -> None:
        done(result.as_run_result(root))

    validator_runs = run_validators(validators, root, concurrency=config.validator_concurrency, on_done=validator_done)
    ran, validated = await asyncio.gather(check_runs, validator_runs)
    measured = [await _coverage(p, root, config, request, done) for p in covered]
    return [*ran, *(v.as_run_result(root) for v in validated), *measured]


async def _coverage(project: Project, root: Path, config: LintelConfig, request: CheckRequest, done: Any) -> RunResult:
    """One project's tests with coverage, one project at a time (a test suite already uses the cores); the index
    is kept where lintel.testsCovering finds it (lintel.engine.coverage.store)."""
    from lintel.engine.coverage import CoverageStore, CoverageUnsupported, Request, coverage
    from lintel.engine.coverage.base import blank_result

    if shows_progress(request):
        print(f"lintel: running {project.language} coverage…", file=sys.stderr, flush=True)
    try:
        measurement = await coverage(Request(project, root, config, request.timeout), CoverageStore())
    except CoverageUnsupported as exc:
        result = blank_result(project, COVERAGE_CHECK, [], exc.message(COVERAGE_CHECK))
    else:
        result = measurement.result
    done(result)
    return result


def _baseline(path: str | None) -> Baseline | None:
    if not path:
        return None
    from lintel.engine.baseline import BaselineError, load_baseline

    try:
        return load_baseline(Path(path))
    except BaselineError as exc:
        raise UsageError(f"--baseline {exc}") from exc


def _projects(scope: _Scope, request: CheckRequest, validators: list[ValidatorConfig]) -> Discovery:
    if not scope.discovery.found and validators and request.language is None:
        return scope.discovery  # a workspace without markers can still run its validators
    return _narrow(scope, request)


def _narrow(scope: _Scope, request: CheckRequest) -> Discovery:
    """The projects this run checks: --language, --project, --changed-since, then --shard."""
    discovery = scope.discovery
    languages = registry_for(scope.config)
    if not discovery.found:
        raise UsageError(
            "no supported project detected in workspace root (found markers: none) "
            f"— lintel supports {', '.join(languages.names)}"
        )
    if request.language is not None:
        detected = ", ".join(dict.fromkeys(f.language for f in discovery.found))
        discovery = discovery.narrowed(lambda f: f.language == request.language)
        if not discovery.found:
            raise UsageError(f'language "{request.language}" not detected in workspace; detected: {detected}')
    if request.project:
        everything = discovery
        discovery = matching(discovery, request.project)
        if not discovery.found:
            raise UsageError(
                f"--project {' '.join(request.project)} matches no project; projects: "
                + describe(everything.found, everything, limit=20)
            )
    try:
        if request.changed_since:
            chosen = affected(discovery, request.changed_since)
            discovery = chosen.discovery
            note(
                request,
                f"{len(chosen.paths)} files changed since {request.changed_since}: {len(discovery.found)} projects"
                f" ({chosen.changed} changed, {chosen.dependents} dependents)",
            )
        if request.shard:
            k, n = parse_shard(request.shard)
            discovery = shard(discovery, k, n)
            note(request, f"shard {k}/{n}: {len(discovery.found)} projects")
    except ScopeError as exc:
        raise UsageError(str(exc)) from exc
    return discovery


def result_cache(request: CheckRequest) -> ResultCache | None:
    """The run's result cache: `--cache-dir`, else the user's cache folder; none with `--no-cache`."""
    if request.no_cache:
        return None
    return ResultCache(Path(request.cache_dir).expanduser() if request.cache_dir else default_cache_dir())


def _cache_note(request: CheckRequest, cache: ResultCache) -> None:
    """How many runs the cache answered."""
    counts = cache.counts
    if counts.hits or counts.misses:
        note(request, f"cache: {counts.hits} of {counts.hits + counts.misses} cacheable runs replayed")


def _list_projects(scope: _Scope, discovery: Discovery, fmt: str) -> int:
    entries = [
        {
            "root": discovery.relative(f.root),
            "language": f.language,
            "markers": list(f.project.markers),
            "workspace": discovery.relative(f.member_of) if f.member_of is not None else None,
            "files": f.files,
        }
        for f in discovery.found
    ]
    if fmt == "json":
        document = {"version": 1, "root": str(scope.root), "projects": entries}
        print(json_text(json.dumps(document, indent=2, ensure_ascii=False)))
    else:
        for entry in entries:
            print(f"{entry['root']}\t{entry['language']}\t{entry['files']} files")
    return EXIT_OK


def _checks_and_validators(request: CheckRequest, config: LintelConfig) -> tuple[list[CheckName], list[Any]]:
    only = parse_only(request.only if request.only is not None else DEFAULT_ONLY)
    if request.only is None and config.validators:
        only.append("validators")  # configured validators are part of the default set
    validators = list(config.validators) if "validators" in only else []
    if "validators" in only and not validators:
        print("lintel: --only validators: no validators configured", file=sys.stderr)
    return [c for c in CHECKS if c in only], validators


def _covered_projects(discovery: Discovery, request: CheckRequest) -> list[Project]:
    """The projects `--only coverage` measures: those whose tests a `test` check would run."""
    if request.only is None or COVERAGE_CHECK not in parse_only(request.only):
        return []
    unique = {(project.root, project.language): project for project, _ in discovery.plan(["test"])}
    return list(unique.values())


def _write(path: Path, text: str, flag: str) -> None:
    try:
        write(path, text, flag)
    except OutputError as exc:
        raise UsageError(str(exc)) from exc


def _runs_validators(scope: _Scope, request: CheckRequest) -> bool:
    return scope.whole and not request.project and (not request.shard or parse_shard(request.shard)[0] == 1)


def _unread(scope: _Scope, discovery: Discovery) -> list[RunResult]:
    """A folder discovery could not read as a check that did not run (CONTRACT: a check that did not run is
    never reported as clean): the projects in it, or a checked project's files in it, are unknown. Those in the
    projects this run checks, and, when it checks the whole folder, those outside every project."""
    whole = len(discovery.found) == len(scope.discovery.found)
    runs: list[RunResult] = []
    for folder, why in discovery.unreadable:
        if not (whole or any(folder.is_relative_to(f.root) for f in discovery.found)):
            continue
        where = discovery.relative(folder)
        runs.append(
            RunResult(
                language=None,
                check="discover",
                tool="lintel",
                argv=[],
                cwd=folder,
                status="not_checked",
                reason=f"cannot read {where}/: {why}; the projects and files in it were not checked",
            )
        )
    return runs


def _fix(scope: _Scope, discovery: Discovery, request: CheckRequest) -> FixOutcome:
    """`--fix` (or `--diff`: dry_run) over the lint runs the check would make; a PATH inside a project narrows it
    to that file or folder."""
    from lintel.engine.fixrun import FixScope, apply_fixes

    projects = list({(p.root, p.language): p for p, _ in discovery.plan(["lint"])}.values())
    paths = () if scope.whole else (Path(request.path).expanduser().resolve(),)
    begin, done = progress(not shows_progress(request), scope.root if len(projects) > 1 else None)
    fix_scope = FixScope(projects, paths, unsafe=request.unsafe_fixes, dry_run=request.diff)
    fixing = apply_fixes(
        fix_scope, workspace=scope.root, config=scope.config, timeout=request.timeout, on_begin=begin, on_done=done
    )
    outcome = asyncio.run(fixing)
    for problem in outcome.problems:
        print(f"lintel: {problem}", file=sys.stderr)
    return outcome


def _print_diff(outcome: FixOutcome) -> int:
    """`--diff`: the changes alone on stdout (for `git apply` or `patch -p1`); exit 1 when there is one, 3 when
    there is none but a linter could not run."""
    for fixed in outcome.files:
        sys.stdout.write(fixed.diff)
    count, files = _plural(outcome.applied, "finding"), _plural(len(outcome.files), "file")
    print(f"lintel: would fix {count} in {files}", file=sys.stderr)
    if outcome.files:
        return 1
    return 3 if outcome.problems else EXIT_OK


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _merge_base(root: Path, request: CheckRequest) -> MergeBase | None:
    """`--new-from`'s base (holdline.base_of), its modules imported only when it or its companion flag is given."""
    if not (request.new_from or request.only_changed_lines):
        return None
    from lintel.frontends.holdline import base_of

    return base_of(root, request)


def cmd_check(request: CheckRequest) -> int:
    if request.unsafe_fixes and not (request.fix or request.diff):
        raise UsageError("--unsafe-fixes goes with --fix or --diff")
    scope = _scope(request.path)
    base = _merge_base(scope.root, request)
    root, config = scope.root, scope.config
    checks, validators = _checks_and_validators(request, config)
    if validators and not _runs_validators(scope, request):
        # The workspace's validators run once: in a check of the whole workspace (its first shard).
        note(request, "validators skipped: they run in a check of the whole workspace (its first shard)")
        validators = []
    discovery = _projects(scope, request, validators)
    if request.list_projects:
        return _list_projects(scope, discovery, request.fmt)
    baseline = _baseline(request.baseline)
    try:
        output = writable(request.output, "--output") if request.output else None
        record = writable(request.write_baseline, "--write-baseline") if request.write_baseline else None
    except OutputError as exc:
        raise UsageError(str(exc)) from exc

    fixed = _fix(scope, discovery, request) if request.fix or request.diff else None
    if request.diff and fixed is not None:
        return _print_diff(fixed)

    pairs = discovery.plan(checks)
    cache = result_cache(request)
    covered = _covered_projects(discovery, request)
    runs = asyncio.run(_run_everything(pairs, validators, root, config, request, covered, cache))
    if cache is not None:
        _cache_note(request, cache)
    runs += _unread(scope, discovery)
    issues = dedupe_issues(sort_issues(issue for run in runs for issue in run.issues))
    projects = [ProjectEntry.of(f.project, root, f.member_of) for f in discovery.found]
    if record is not None:
        everything = CheckReport(root=root, projects=projects, runs=runs, issues=issues)
        _write(record, RENDERERS["json"](everything), "--write-baseline")
        print(f"lintel: wrote a baseline of {len(issues)} issues to {request.write_baseline}", file=sys.stderr)
    if baseline is not None:
        known = len(issues)
        issues = baseline.new_issues(issues)
        print(f"lintel: {known - len(issues)} issues are in the baseline, {len(issues)} are new", file=sys.stderr)
    if base is not None:
        from lintel.frontends.holdline import hold_the_line

        issues = hold_the_line(
            base,
            request,
            root=root,
            config=config,
            discovery=discovery,
            checks=checks,
            validators=validators,
            issues=issues,
            cache=cache,
        )
    if cache is not None:
        cache.prune()  # back under its bound, the merge base's entries counted
    report = CheckReport(root=root, projects=projects, runs=runs, issues=issues)
    if fixed is not None:
        count, files = _plural(fixed.applied, "finding"), _plural(len(fixed.files), "file")
        print(f"lintel: fixed {count} in {files}", file=sys.stderr)
    _publish(report, request, output)
    return report.exit_code(request.fail_level)


def _publish(report: CheckReport, request: CheckRequest, output: Path | None) -> None:
    """The report in the chosen format, within the platform's limits, to stdout or `--output`."""
    rendered = present(request.fmt, report, to_file=output is not None, env=os.environ)
    for message in rendered.notes:
        print(f"lintel: {message}", file=sys.stderr)
    if output is not None:
        # One run, two audiences: the chosen format to the file, readable text on stdout.
        _write(output, rendered.text, "--output")
        sys.stdout.write(RENDERERS["text"](report))
    else:
        sys.stdout.write(rendered.text)


def cmd_detect(request: DetectRequest) -> int:
    from lintel.engine.detect_report import detect_report

    root = _workspace(request.path)
    config = _config(root)
    report = detect_report(root, config)
    if request.json:
        print(json_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False)))
        return EXIT_OK
    if not report.projects:
        print(
            "no supported project detected in workspace root (found markers: none) "
            f"— lintel supports {', '.join(registry_for(config).names)}"
        )
        return EXIT_OK
    roots = [p.root for p in report.projects]
    for project in report.projects:
        # Indented under the projects it sits in: the tree of the repository.
        depth = sum(1 for r in dict.fromkeys(roots) if r != project.root and _inside(project.root, r))
        _print_project(project, "  " * depth)
    return EXIT_OK


def _print_project(project: DetectedProject, pad: str) -> None:
    extra = f", package manager {project.package_manager}" if project.package_manager is not None else ""
    print(f"{pad}{project.language} (root {project.root}, markers {', '.join(project.markers)}{extra})")
    if project.problem is not None:
        print(f"{pad}  NOT CHECKED: {project.problem}")
    if project.members is not None:
        covers = project.members.covers
        covered = f"; checks {', '.join(covers)} for all of them" if covers else ""
        print(f"{pad}  workspace of {', '.join(project.members.members) or 'no members'}{covered}")
    for check, info in project.checks.items():
        print(f"{pad}  {check:<9} {' '.join(info.argv)}")
        for binary in info.binaries:
            where = f"{binary.path} ({binary.via})" if binary.found else "NOT FOUND"
            print(f"{pad}  {'':<9}   {binary.name}: {where}")
    server = project.navigation
    if server.argv is not None:
        found = " ".join(server.argv)
    else:
        found = "NOT FOUND: " + (server.reason or "").split(": ", 1)[1]
    print(f"{pad}  navigation {found}")


def _inside(root: str, outer: str) -> bool:
    return outer == "." or root.startswith(f"{outer}/")
