"""`lintel merge`: one report from the partial ones CI shards wrote (lintel JSON reports and SARIF logs, mixed),
rendered and judged like `lintel check`'s own (docs/cli.md, Shards and `lintel merge`)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import cast

from lintel.core.issues import Severity
from lintel.engine.baseline import BaselineError, load_baseline
from lintel.engine.checks import RunResult, dedupe_issues, sort_issues
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry
from lintel.frontends.report.files import OutputError, writable, write
from lintel.frontends.report.publish import present
from lintel.frontends.report.read import ReportError, read_report

EXIT_USAGE = 2


def _rebased(run: RunResult, old: Path, new: Path) -> RunResult:
    """A run of a report made in another folder (another CI machine's checkout), placed under `new`."""
    try:
        return replace(run, cwd=new / run.cwd.relative_to(old))
    except ValueError:
        return run


def _union(projects: list[ProjectEntry]) -> list[ProjectEntry]:
    """One entry per (root, language), in first-seen order, with every report's markers."""
    merged: dict[tuple[str, str], ProjectEntry] = {}
    for project in projects:
        key = (project.root, project.language)
        seen = merged.get(key)
        if seen is None:
            merged[key] = project
            continue
        markers = tuple(dict.fromkeys((*seen.markers, *project.markers)))
        merged[key] = replace(seen, markers=markers, workspace=seen.workspace or project.workspace)
    return list(merged.values())


def merge_reports(reports: list[CheckReport]) -> CheckReport:
    """The reports as one, in the first one's root: projects united, runs one after another, issues deduplicated
    and sorted as `lintel check` does."""
    root = reports[0].root
    return CheckReport(
        root=root,
        projects=_union([p for report in reports for p in report.projects]),
        runs=[_rebased(run, report.root, root) for report in reports for run in report.runs],
        issues=dedupe_issues(sort_issues(i for report in reports for i in report.issues)),
    )


def _read_all(files: list[str]) -> tuple[list[CheckReport], set[str]]:
    reports: list[CheckReport] = []
    formats: set[str] = set()
    for name in files:
        report, fmt = read_report(Path(name))
        if reports and report.root != reports[0].root:
            print(
                f"lintel: merge: {name} was made in {report.root}, {files[0]} in {reports[0].root}; "
                f"its paths are taken as relative to {reports[0].root}",
                file=sys.stderr,
            )
        reports.append(report)
        formats.add(fmt)
    return reports, formats


def run(args: argparse.Namespace) -> int:
    try:
        output = writable(args.output, "--output") if args.output else None
        reports, formats = _read_all(args.files)
        baseline = load_baseline(Path(args.baseline)) if args.baseline else None
    except (ReportError, OutputError) as exc:
        print(f"lintel: merge: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BaselineError as exc:
        print(f"lintel: merge: --baseline {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = merge_reports(reports)
    if baseline is not None:
        known = len(report.issues)
        report.issues = baseline.new_issues(report.issues)
        print(
            f"lintel: {known - len(report.issues)} issues are in the baseline, {len(report.issues)} are new",
            file=sys.stderr,
        )
    fmt = args.fmt or (formats.pop() if len(formats) == 1 else "json")
    rendered = present(fmt, report, to_file=output is not None, env=os.environ)
    for note in rendered.notes:
        print(f"lintel: merge: {note}", file=sys.stderr)
    if output is not None:
        # As `lintel check --output`: the chosen format to the file, readable text on stdout.
        try:
            write(output, rendered.text, "--output")
        except OutputError as exc:
            print(f"lintel: merge: {exc}", file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write(RENDERERS["text"](report))
    else:
        sys.stdout.write(rendered.text)
    return report.exit_code(cast(Severity, args.fail_level))
