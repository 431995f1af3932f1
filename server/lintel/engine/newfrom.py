"""Hold the line against a git ref: `--new-from REF` checks the merge base in a temporary git worktree and keeps
only the findings whose fingerprint it lacks; `--only-changed-lines` keeps those on lines the diff added or changed.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType

from lintel.core.issues import Issue, SourceLines, finalize_issues
from lintel.core.results import RunResult
from lintel.engine.baseline import Baseline
from lintel.engine.checks import dedupe_issues, run_pairs, sort_issues
from lintel.engine.config import LintelConfig, load_config
from lintel.engine.discover import Discovery, discover
from lintel.engine.registry import registry_for
from lintel.engine.resultcache import ResultCache
from lintel.engine.validators import run_validators
from lintel.languages import CheckName, Project

GIT_TIMEOUT = 300
# Installed dependencies a check resolves its tools and imports from: never committed, so the checkout of the
# merge base borrows the working tree's (lintel.languages.binaries looks for tools in the same folders).
INSTALL_DIRS = ("node_modules", ".venv", "venv")
SHALLOW_HINT = "fetch the whole history (in GitHub Actions: actions/checkout with `fetch-depth: 0`)"
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")

# file (workspace-relative) -> the line numbers added or changed there; None: the whole file is new.
ChangedLines = Mapping[str, frozenset[int] | None]


class NewFromError(ValueError):
    """A ref that cannot be compared against (no repository, an unknown ref, a shallow history): exit code 2."""


@dataclass(frozen=True)
class MergeBase:
    """The commit `--new-from REF` compares against, and the work tree it belongs to."""

    ref: str
    commit: str
    top: Path  # the repository's work tree (resolved)

    @property
    def short(self) -> str:
        return self.commit[:12]


@dataclass
class BaseCheck:
    """What the merge base's own check said: its runs, and its issues as the working tree names them (renamed
    files under their new names, the checkout's paths in messages as the working tree's)."""

    base: MergeBase
    runs: list[RunResult] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def new_issues(self, issues: Sequence[Issue]) -> list[Issue]:
        """Those of `issues` whose fingerprint the merge base does not have (as many times: a second copy of an
        old finding is new)."""
        return Baseline(Counter(issue.fingerprint for issue in self.issues)).new_issues(issues)


def _git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=False, timeout=GIT_TIMEOUT, env=env
        )
    except FileNotFoundError as exc:
        raise NewFromError("needs git, which was not found on PATH") from exc
    except subprocess.TimeoutExpired as exc:
        raise NewFromError(f"git {args[0]} did not finish in {GIT_TIMEOUT}s") from exc


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    text = done.stderr.strip() or done.stdout.strip()
    return text.splitlines()[-1] if text else f"exit {done.returncode}"


def merge_base(root: Path, ref: str) -> MergeBase:
    """The merge base of `ref` and HEAD in the repository holding `root`. NewFromError saying what to do when
    `root` is in no repository, git does not know `ref`, or a shallow clone lacks the base."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise NewFromError(f"{root} is not in a git repository (it compares against a commit of one)")
    where = Path(top.stdout.strip()).resolve()
    shallow = _git(where, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    known = _git(where, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if known.returncode != 0 or ref.startswith("-"):  # an option is no ref
        hint = f"; this clone is shallow: {SHALLOW_HINT}" if shallow else ""
        raise NewFromError(f"git does not know {ref!r} (a branch, tag or commit; is it fetched?){hint}")
    found = _git(where, "merge-base", known.stdout.strip(), "HEAD")
    if found.returncode != 0:
        if shallow:
            raise NewFromError(f"the merge base of {ref} and HEAD is not in this shallow clone: {SHALLOW_HINT}")
        detail = _last_line(found) if found.stderr.strip() else "they share no history"
        raise NewFromError(f"no merge base of {ref} and HEAD: {detail}")
    return MergeBase(ref, found.stdout.strip(), where)


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """A CI job cancelled mid-check is sent SIGTERM: raised as SystemExit here, so the `finally` that removes the
    temporary worktree runs (SIGINT already raises KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@dataclass
class Checkout:
    """A temporary worktree of the merge base: its top, and the links into the working tree made in it."""

    top: Path
    links: list[Path] = field(default_factory=list)

    def borrow_installs(self, head_top: Path, roots: Sequence[Path]) -> None:
        """Link the working tree's installed dependencies (INSTALL_DIRS of each project root and of the folders
        above it in the repository) where the checkout has none, so the base is checked with the same tools."""
        folders: set[Path] = set()
        for root in roots:
            if root.is_relative_to(head_top):
                folders.update(f for f in (root, *root.parents) if f.is_relative_to(head_top))
        for folder in sorted(folders):
            target = self.top / folder.relative_to(head_top)
            for name in INSTALL_DIRS:
                source, link = folder / name, target / name
                if source.is_dir() and target.is_dir() and not link.exists() and not link.is_symlink():
                    link.symlink_to(source.resolve(), target_is_directory=True)
                    self.links.append(link)


@contextlib.contextmanager
def base_checkout(base: MergeBase) -> Iterator[Checkout]:
    """The merge base checked out (detached) in a temporary git worktree; removed afterwards, on error,
    interrupt and SIGTERM too. The folder keeps the repository's name (some tools name things by it)."""
    parent = Path(tempfile.mkdtemp(prefix="lintel-base-"))
    checkout = Checkout(parent / base.top.name)
    try:
        with _terminate_as_exit():
            # No hooks (a post-checkout hook is the user's, for their own checkouts) and no Git LFS downloads.
            quiet = ("-c", "core.hooksPath=/dev/null", "worktree", "add", "--detach", "--quiet")
            env = {**os.environ, "GIT_LFS_SKIP_SMUDGE": "1"}
            added = _git(base.top, *quiet, str(checkout.top), base.commit, env=env)
            if added.returncode != 0:
                raise NewFromError(f"could not check out the merge base {base.short}: {_last_line(added)}")
            yield checkout
    finally:
        remove_checkout(base.top, checkout, parent)


def remove_checkout(top: Path, checkout: Checkout, parent: Path) -> None:
    """The worktree gone from disk and from git's list; the borrowed install folders are unlinked first, so
    nothing the removal does can reach through them into the working tree."""
    for link in checkout.links:
        with contextlib.suppress(OSError):
            link.unlink()
    removed = _git(top, "worktree", "remove", "--force", "--force", str(checkout.top)).returncode == 0
    shutil.rmtree(parent, ignore_errors=True)
    if not removed:
        # Interrupted while being added, or removed by hand: git's record of it is stale (its folder is gone).
        _git(top, "worktree", "prune")


def base_scope(head: Discovery, config: LintelConfig, base_root: Path) -> tuple[Discovery, LintelConfig, list[str]]:
    """The merge base's projects matching the ones this run checks (same folder, same language), with the
    configuration the base itself had (its lintel.toml; the working tree's when the base's does not load)."""
    notes: list[str] = []
    loaded = load_config(base_root)
    base_config = loaded.config
    if loaded.problems:
        base_config = config
        notes.append("the merge base's lintel configuration does not load; it is checked with the working tree's")
    found = discover(
        base_root,
        registry_for(base_config),
        exclude=base_config.projects.exclude,
        examples=base_config.projects.examples,
    )
    wanted = {(head.relative(f.root), f.language) for f in head.found}
    narrowed = found.narrowed(lambda f: (found.relative(f.root), f.language) in wanted)
    fresh = sorted(wanted - {(narrowed.relative(f.root), f.language) for f in narrowed.found})
    if fresh:
        named = ", ".join(f"{root}: {language}" for root, language in fresh[:5])
        more = f" and {len(fresh) - 5} more" if len(fresh) > 5 else ""
        notes.append(f"projects new since the merge base (all their findings count as new): {named}{more}")
    return narrowed, base_config, notes


async def check_base(  # noqa: PLR0913 - the check's own parts, passed through by name
    base: MergeBase,
    head: Discovery,
    checks: Sequence[CheckName],
    *,
    config: LintelConfig,
    validators: Sequence[str] = (),
    timeout: float | None = None,
    on_begin: Callable[[Project, CheckName], None] | None = None,
    on_done: Callable[[RunResult], None] | None = None,
    cache: ResultCache | None = None,
) -> BaseCheck:
    """The same checks of the same projects at the merge base, and the validators of these ids it configures,
    through the engine's own paths (run_pairs, run_validators), in a temporary worktree removed before this
    returns. Issues come back as the working tree would name them. Through `cache` when given: a project the
    change left alone replays the working tree's result (keys name paths relative to the checkout)."""
    rel = head.root.resolve().relative_to(base.top).as_posix() if head.root.resolve() != base.top else ""
    renames = renamed_files(base, head.root)
    with base_checkout(base) as checkout:
        base_root = checkout.top / rel if rel else checkout.top
        outcome = BaseCheck(base)
        if not base_root.is_dir():
            outcome.notes.append(f"{rel} did not exist at the merge base: every finding is new")
            return outcome
        checkout.borrow_installs(base.top, [f.root for f in head.found])
        discovery, base_config, outcome.notes = base_scope(head, config, base_root)
        chosen = [v for v in base_config.validators if v.id in validators]
        missing = sorted(set(validators) - {v.id for v in chosen})
        if missing:
            outcome.notes.append(f"validators not configured at the merge base (their findings are new): {missing}")
        ran, validated = await asyncio.gather(
            run_pairs(
                discovery.plan(checks),
                workspace=base_root,
                config=base_config,
                timeout=timeout,
                on_begin=on_begin,
                on_done=on_done,
                cache=cache,
            ),
            run_validators(chosen, base_root, concurrency=base_config.validator_concurrency),
        )
        outcome.runs = [*ran, *(v.as_run_result(base_root) for v in validated)]
        outcome.notes += [_unchecked(run, discovery) for run in outcome.runs if run.status == "not_checked"]
        issues = dedupe_issues(sort_issues(issue for run in outcome.runs for issue in run.issues))
        outcome.issues = as_working_tree(issues, base_root, checkout.top, base.top, renames)
    return outcome


def _unchecked(run: RunResult, discovery: Discovery) -> str:
    what = f"{run.language} {run.check} in {discovery.relative(run.cwd)}" if run.language else f"validator {run.tool}"
    return f"at the merge base, {what} was not checked ({run.reason}): its findings there all count as new"


def as_working_tree(
    issues: Sequence[Issue], base_root: Path, checkout: Path, top: Path, renames: Mapping[str, str]
) -> list[Issue]:
    """The merge base's issues fingerprinted as the working tree names their files: a renamed file's under its
    new name (its lines read from the old one), the checkout's absolute paths as the working tree's."""
    old_name = {new: old for old, new in renames.items()}
    inside, outside = str(checkout), str(top)

    def rename(issue: Issue) -> Issue:
        file = issue.file
        if file is not None:
            file = renames.get(file, file)
            if file.startswith(f"{inside}/"):
                file = outside + file[len(inside) :]
        return replace(issue, file=file, message=issue.message.replace(inside, outside))

    lines = SourceLines(base_root)

    def read_line(file: str, line: int) -> str | None:
        if file.startswith(f"{outside}/"):
            file = inside + file[len(outside) :]
        return lines(old_name.get(file, file), line)

    return finalize_issues((rename(issue) for issue in issues), read_line)


def _top_relative(base: MergeBase, root: Path) -> Callable[[str], str | None]:
    """A git path (relative to the repository's top) as `root`-relative POSIX, None outside `root`."""
    here = root.resolve()

    def convert(name: str) -> str | None:
        try:
            return (base.top / name).relative_to(here).as_posix()
        except ValueError:
            return None

    return convert


def renamed_files(base: MergeBase, root: Path) -> dict[str, str]:
    """Files renamed since the merge base (git's rename detection), old name -> new name, `root`-relative."""
    done = _git(base.top, "diff", "--name-status", "-M", "-z", "--no-ext-diff", base.commit, "--")
    if done.returncode != 0:
        return {}
    relative = _top_relative(base, root)
    fields = done.stdout.split("\0")
    renames: dict[str, str] = {}
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        count = 2 if status[:1] in ("R", "C") else 1
        names = fields[index + 1 : index + 1 + count]
        index += 1 + count
        if status.startswith("R") and len(names) == 2:
            old, new = relative(names[0]), relative(names[1])
            if old is not None and new is not None:
                renames[old] = new
    return renames


def _unquote(path: str) -> str:
    """A path as git prints it in a diff header: C-quoted (octal bytes) when it holds unusual characters."""
    if not path.startswith('"'):
        return path
    raw = codecs.escape_decode(path[1:-1].encode("latin-1", "backslashreplace"))[0]
    return bytes(raw).decode("utf-8", "surrogateescape")


def changed_lines(base: MergeBase, root: Path) -> dict[str, frozenset[int] | None]:
    """The lines added or changed since the merge base in the working tree (committed, staged or not), from
    `git diff -U0` hunks, and untracked files whole; `root`-relative. Renamed files count only their edits."""
    args = ("diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", base.commit)
    done = _git(base.top, "-c", "core.quotePath=false", *args, "--")
    if done.returncode != 0:
        raise NewFromError(f"git diff failed: {_last_line(done)}")
    relative = _top_relative(base, root)
    found: dict[str, set[int]] = {}
    current: str | None = None
    for line in done.stdout.splitlines():
        if line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = relative(name[2:]) if name.startswith("b/") else None
            if current is not None:
                found.setdefault(current, set())
        elif current is not None and (hunk := _HUNK.match(line)):
            start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
            found[current].update(range(start, start + count))
    out: dict[str, frozenset[int] | None] = {name: frozenset(lines) for name, lines in found.items()}
    untracked = _git(base.top, "ls-files", "--others", "--exclude-standard", "-z", "--full-name")
    for name in untracked.stdout.split("\0") if untracked.returncode == 0 else ():
        rel = relative(name) if name else None
        if rel is not None:
            out[rel] = None
    return out


def on_changed_lines(issues: Sequence[Issue], changed: ChangedLines) -> list[Issue]:
    """The issues on a changed line. One in a changed file without a line is kept, and so is one naming no file
    (a tool that failed, a timeout): nothing says it is old. The blind spot: a finding an edit causes on a line
    it did not touch (an import left unused, a caller of a changed function) is dropped."""
    out: list[Issue] = []
    for issue in issues:
        if issue.file is None:
            out.append(issue)
            continue
        if issue.file not in changed:
            continue
        lines = changed[issue.file]
        if lines is None or issue.line is None or issue.line in lines:
            out.append(issue)
    return out
