"""`lintel check` and `lintel detect` as typed requests: made once from the command line (`from_namespace`), the
only form lintel.frontends.headless reads below its entry point."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import cast

from lintel.core.issues import Severity
from lintel.engine.detect import normalize_language


@dataclass(frozen=True)
class CheckRequest:
    """What `lintel check` was asked (CONTRACT §2), every flag of the command line typed."""

    path: str = "."
    only: str | None = None  # as given: parsed (and refused) where the configuration is known
    language: str | None = None  # normalized (lower case, trimmed)
    fmt: str = "text"
    output: str | None = None
    baseline: str | None = None
    write_baseline: str | None = None
    fail_level: Severity = "error"
    timeout: float | None = None
    quiet: bool = False
    progress: bool = False
    verbose: bool = False
    project: tuple[str, ...] = ()  # --project globs, in order
    list_projects: bool = False
    shard: str | None = None
    changed_since: str | None = None
    new_from: str | None = None
    only_changed_lines: bool = False
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    cache_dir: str | None = None
    no_cache: bool = False

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> CheckRequest:
        return cls(
            path=args.path,
            only=args.only,
            language=normalize_language(args.language) if args.language is not None else None,
            fmt=args.fmt,
            output=args.output,
            baseline=args.baseline,
            write_baseline=args.write_baseline,
            fail_level=cast(Severity, args.fail_level),
            timeout=args.timeout,
            quiet=args.quiet,
            progress=args.progress,
            verbose=bool(getattr(args, "verbose", False)),
            project=tuple(args.project or ()),
            list_projects=args.list_projects,
            shard=args.shard,
            changed_since=args.changed_since,
            new_from=getattr(args, "new_from", None),
            only_changed_lines=bool(getattr(args, "only_changed_lines", False)),
            fix=args.fix,
            unsafe_fixes=args.unsafe_fixes,
            diff=args.diff,
            cache_dir=getattr(args, "cache_dir", None),
            no_cache=bool(getattr(args, "no_cache", False)),
        )


@dataclass(frozen=True)
class DetectRequest:
    """What `lintel detect` was asked: the folder, and whether as JSON."""

    path: str = "."
    json: bool = False

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> DetectRequest:
        return cls(path=args.path, json=args.json)
