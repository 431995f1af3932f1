"""Command line entry points: `lintel check`, `lintel detect` (docs/design.md). Thin: the engine does the work."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

from lintel import __version__, merge
from lintel.baseline import Baseline, BaselineError, load_baseline
from lintel.checks import RunResult, dedupe_issues, detect_document, run_checks, sort_issues
from lintel.config import LintelConfig, ValidatorConfig, load_config
from lintel.detect import DetectionError, detect, normalize_language, select_projects
from lintel.issues import Severity
from lintel.languages import CHECKS, CheckName, Project
from lintel.registry import registry_for
from lintel.report import RENDERERS, CheckReport, ProjectEntry
from lintel.validators import ValidateResult, run_validators

EXIT_OK = 0
EXIT_USAGE = 2

ONLY_CHOICES = (*CHECKS, "validators")
DEFAULT_ONLY = "lint,typecheck"


class UsageError(Exception):
    """Bad arguments or configuration: exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lintel", description="Lint, typecheck and test Go, Rust, Node and Python.")
    parser.add_argument("--version", action="version", version=f"lintel {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what lintel runs")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser("check", help="run checks headlessly (for CI and agents)")
    check.add_argument("path", nargs="?", default=".", help="workspace root (default: .)")
    check.add_argument(
        "--only",
        default=None,
        help=f"comma-separated checks: {','.join(ONLY_CHOICES)} "
        f"(default: {DEFAULT_ONLY}, plus validators when configured)",
    )
    check.add_argument(
        "--language", help="check only this project type (go, rust, node, python, or one lintel.toml declares)"
    )
    check.add_argument("--format", dest="fmt", default="text", choices=sorted(RENDERERS), help="output format")
    check.add_argument("--output", help="write the report (in --format) to this file and print text on stdout")
    check.add_argument(
        "--baseline", help="report only issues whose fingerprint is not in this lintel JSON or SARIF report"
    )
    check.add_argument("--write-baseline", help="record the current issues (lintel JSON) as a baseline file")
    check.add_argument(
        "--fail-level",
        default="error",
        choices=("error", "warning", "info"),
        help="lowest severity that makes the exit code 1 (default: error)",
    )
    check.add_argument("--timeout", type=float, help="seconds per tool run (clamped to 1–1800; default per check)")
    check.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")

    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen for one LSP client on HOST:PORT")

    det = commands.add_parser("detect", help="show project types, commands and binaries")
    det.add_argument("path", nargs="?", default=".", help="workspace root (default: .)")
    det.add_argument("--json", action="store_true", help="machine-readable output")
    merge.add_parser(commands)
    return parser


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
        raise UsageError(f"not a directory: {path} (lintel checks a workspace folder)")
    return root.resolve()


def _config(root: Path) -> LintelConfig:
    loaded = load_config(root)
    if loaded.problems:
        raise UsageError("invalid configuration:\n" + "\n".join(f"  {problem}" for problem in loaded.problems))
    return loaded.config


def _progress(quiet: bool) -> tuple[Any, Any]:
    def begin(project: Project, check: CheckName) -> None:
        if not quiet:
            print(f"lintel: running {project.language} {check}…", file=sys.stderr, flush=True)

    def done(result: Any) -> None:
        if quiet:
            return
        what = {"not_checked": f"not checked: {result.reason}", "passed": "passed (output not parsed)"}.get(
            result.status, result.status
        )
        print(
            f"lintel: {result.language} {result.check} ({result.tool}) {what} in {result.duration_ms / 1000:.1f}s",
            file=sys.stderr,
            flush=True,
        )

    return begin, done


async def _run_everything(
    projects: list[Project],
    checks: list[CheckName],
    validators: list[ValidatorConfig],
    root: Path,
    config: LintelConfig,
    args: argparse.Namespace,
) -> list[RunResult]:
    begin, done = _progress(args.quiet)
    check_runs = run_checks(
        projects, checks, workspace=root, config=config, timeout=args.timeout, on_begin=begin, on_done=done
    )

    def validator_done(result: ValidateResult) -> None:
        done(result.as_run_result(root))

    validator_runs = run_validators(validators, root, concurrency=config.validator_concurrency, on_done=validator_done)
    ran, validated = await asyncio.gather(check_runs, validator_runs)
    return [*ran, *(v.as_run_result(root) for v in validated)]


def _baseline(path: str | None) -> Baseline | None:
    if not path:
        return None
    try:
        return load_baseline(Path(path))
    except BaselineError as exc:
        raise UsageError(f"--baseline {exc}") from exc


def cmd_check(args: argparse.Namespace) -> int:
    root = _workspace(args.path)
    config = _config(root)
    only = parse_only(args.only if args.only is not None else DEFAULT_ONLY)
    if args.only is None and config.validators:
        only.append("validators")  # configured validators are part of the default set
    validators = list(config.validators) if "validators" in only else []
    if "validators" in only and not validators:
        print("lintel: --only validators: no validators configured", file=sys.stderr)
    checks = [c for c in CHECKS if c in only]
    try:
        languages = registry_for(config)
        projects = select_projects(detect(root, languages), args.language, languages) if checks else []
    except DetectionError as exc:
        if validators and args.language is None:
            projects = []  # a workspace without markers can still run its validators
        else:
            raise UsageError(str(exc)) from exc
    baseline = _baseline(args.baseline)

    runs = asyncio.run(_run_everything(projects, checks if projects else [], validators, root, config, args))
    issues = dedupe_issues(sort_issues(issue for run in runs for issue in run.issues))
    if args.write_baseline:
        everything = CheckReport(
            root=root, projects=[ProjectEntry.of(p, root) for p in projects], runs=runs, issues=issues
        )
        Path(args.write_baseline).write_text(RENDERERS["json"](everything), encoding="utf-8")
        print(f"lintel: wrote a baseline of {len(issues)} issues to {args.write_baseline}", file=sys.stderr)
    if baseline is not None:
        known = len(issues)
        issues = baseline.new_issues(issues)
        print(f"lintel: {known - len(issues)} issues are in the baseline, {len(issues)} are new", file=sys.stderr)
    report = CheckReport(root=root, projects=[ProjectEntry.of(p, root) for p in projects], runs=runs, issues=issues)
    rendered = RENDERERS[args.fmt](report)
    if args.output:
        # One run, two audiences: the chosen format to the file, readable text on stdout.
        Path(args.output).write_text(rendered, encoding="utf-8")
        sys.stdout.write(RENDERERS["text"](report))
    else:
        sys.stdout.write(rendered)
    return report.exit_code(cast(Severity, args.fail_level))


def cmd_detect(args: argparse.Namespace) -> int:
    root = _workspace(args.path)
    config = _config(root)
    document = detect_document(root, config)
    if args.json:
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return EXIT_OK
    if not document["projects"]:
        print(
            "no supported project detected in workspace root (found markers: none) "
            f"— lintel supports {', '.join(registry_for(config).names)}"
        )
        return EXIT_OK
    for project in document["projects"]:
        extra = f", package manager {project['packageManager']}" if "packageManager" in project else ""
        print(f"{project['language']} (root {project['root']}, markers {', '.join(project['markers'])}{extra})")
        for check, info in project["checks"].items():
            print(f"  {check:<9} {' '.join(info['argv'])}")
            for binary in info["binaries"]:
                where = f"{binary['path']} ({binary['via']})" if binary["found"] else "NOT FOUND"
                print(f"  {'':<9}   {binary['name']}: {where}")
        server = project["navigation"]
        found = " ".join(server["argv"]) if server["found"] else "NOT FOUND: " + server["reason"].split(": ", 1)[1]
        print(f"  navigation {found}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from lintel.server.wiring import create_server

    server = create_server()
    if args.tcp:
        host, sep, port = args.tcp.rpartition(":")
        if not sep or not port.isdigit():
            raise UsageError(f"--tcp: expected HOST:PORT, got {args.tcp!r}")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="lintel: %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if getattr(args, "language", None) is not None:
        args.language = normalize_language(args.language)
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "detect":
            return cmd_detect(args)
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "merge":
            return merge.run(args)
    except UsageError as exc:
        print(f"lintel: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    raise AssertionError(f"unhandled command {args.command}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
