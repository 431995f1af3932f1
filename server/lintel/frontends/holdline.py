"""`lintel check --new-from REF`: only the issues new since REF's merge base (lintel.engine.newfrom), or with
`--only-changed-lines` those on the lines changed since it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lintel.core.issues import Issue
from lintel.engine.config import LintelConfig, ValidatorConfig
from lintel.engine.discover import Discovery
from lintel.engine.newfrom import MergeBase, NewFromError, changed_lines, check_base, merge_base, on_changed_lines
from lintel.engine.resultcache import ResultCache
from lintel.frontends.check_request import CheckRequest
from lintel.frontends.checknotes import UsageError, note, progress, shows_progress
from lintel.languages import CheckName


def base_of(root: Path, request: CheckRequest) -> MergeBase | None:
    """The commit `--new-from REF` compares against, found before anything runs (a wrong REF fails fast)."""
    if request.only_changed_lines and not request.new_from:
        raise UsageError("--only-changed-lines goes with --new-from REF (the lines changed since its merge base)")
    if not request.new_from:
        return None
    try:
        return merge_base(root, request.new_from)
    except NewFromError as exc:
        raise UsageError(f"--new-from: {exc}") from exc


def hold_the_line(  # noqa: PLR0913 - the check's own parts, passed through by name
    base: MergeBase,
    request: CheckRequest,
    *,
    root: Path,
    config: LintelConfig,
    discovery: Discovery,
    checks: list[CheckName],
    validators: list[ValidatorConfig],
    issues: list[Issue],
    cache: ResultCache | None,
) -> list[Issue]:
    """`--new-from`: the issues the merge base's own check (the same checks and validators of the same projects)
    does not have; with `--only-changed-lines`, those on lines changed since it. Coverage does not run at the
    base: its findings all count as new."""
    where = f"the merge base {base.short} of {base.ref}"
    try:
        if request.only_changed_lines:
            kept = on_changed_lines(issues, changed_lines(base, root))
            note(request, f"on lines changed since {where}: {len(kept)} of {len(issues)} issues")
            return kept
        note(request, f"checking {where} in a temporary worktree")
        begin, done = progress(not shows_progress(request), None, prefix="merge base: ")
        checking = check_base(
            base,
            discovery,
            checks,
            config=config,
            cache=cache,
            validators=[v.id for v in validators],
            timeout=request.timeout,
            on_begin=begin,
            on_done=done,
        )
        hits, misses = (cache.counts.hits, cache.counts.misses) if cache is not None else (0, 0)
        outcome = asyncio.run(checking)
        if cache is not None and cache.counts.misses + cache.counts.hits > hits + misses:
            replayed, cacheable = cache.counts.hits - hits, cache.counts.hits + cache.counts.misses - hits - misses
            note(request, f"merge base: cache: {replayed} of {cacheable} cacheable runs replayed")
    except NewFromError as exc:
        raise UsageError(f"--new-from: {exc}") from exc
    for message in outcome.notes:
        note(request, message)
    kept = outcome.new_issues(issues)
    note(request, f"new since {where}: {len(kept)} of {len(issues)} issues (the others were there already)")
    return kept
