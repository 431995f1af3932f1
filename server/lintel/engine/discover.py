"""Project discovery (docs/architecture.md, Projects): the projects a folder holds, and the nearest one above a path.

Detection (`lintel.detect`) answers "which languages are rooted in this folder"; discovery answers "which
projects live under it": the folder's own markers, nested project roots below it, and the members workspace files
declare. A walk reads each folder once (its listing gives the markers without a stat each) and never enters
dependencies, build output, hidden folders or what git ignores.

A workspace's members are checked through the workspace's own tool where the ecosystem does so (its `covers`);
`Discovery.plan` turns that into the (project, check) runs, and `Discovery.groups` into the units a CI shard takes
whole, so a member never loses the run its root makes for it.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from lintel.core.gitignore import IgnoreRules
from lintel.engine.detect import detect
from lintel.languages import LANGUAGES, CheckName, LanguageSpec, Project, Registry, Workspace
from lintel.languages.base import SKIPPED_DIRS, is_example_dir

log = logging.getLogger(__name__)

# A walk stops reading after this many folders (a home directory opened as a workspace), and says so.
MAX_DIRS = 200_000


@dataclass(frozen=True)
class Found:
    """A discovered project, with what discovery learned about its place in the tree."""

    project: Project
    workspace: Workspace | None = None  # the workspace its root declares
    member_of: Path | None = None  # the root of the workspace that declares it a member
    files: int = 0  # files under its root outside nested projects (what a CI shard's share is balanced by)

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def language(self) -> str:
        return self.project.language


@dataclass
class Discovery:
    root: Path
    found: list[Found] = field(default_factory=list)
    dirs_read: int = 0
    truncated: bool = False  # the walk stopped at MAX_DIRS
    # Folders the walk could not read, with why: what they hold (a project, a project's files) is unknown.
    unreadable: list[tuple[Path, str]] = field(default_factory=list)

    @property
    def projects(self) -> list[Project]:
        return [f.project for f in self.found]

    def relative(self, path: Path) -> str:
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return path.as_posix()
        return rel.as_posix() if rel.parts else "."

    def label(self, found: Found) -> str:
        """`api: go` — how a project is named to users."""
        return f"{self.relative(found.root)}: {found.language}"

    def narrowed(self, keep: Callable[[Found], bool]) -> Discovery:
        return replace(self, found=[f for f in self.found if keep(f)])

    def workspace_root(self, found: Found) -> Found | None:
        """The workspace root `found` is a member of, if that root is in this discovery too."""
        if found.member_of is None:
            return None
        return next(
            (f for f in self.found if f.root == found.member_of and f.language == found.language and f is not found),
            None,
        )

    def groups(self) -> list[list[Found]]:
        """The units that are checked together: a workspace root with its members, every other project alone;
        in root order."""
        groups: dict[tuple[Path, str], list[Found]] = {}
        for found in self.found:
            head = self.workspace_root(found)
            key = (head.root, head.language) if head is not None else (found.root, found.language)
            groups.setdefault(key, []).append(found)
        return list(groups.values())

    def units(self) -> list[Found]:
        """The projects a command without `path` could mean: workspace roots and projects of no workspace."""
        return [f for f in self.found if self.workspace_root(f) is None]

    def plan(self, checks: Sequence[CheckName]) -> list[tuple[Project, CheckName]]:
        """Every (project, check) to run: a member skips what its workspace root's run covers, and a root that is
        only a container of members (`own` false) leaves to them what it does not cover."""
        pairs: list[tuple[Project, CheckName]] = []
        for found in self.found:
            head = self.workspace_root(found)
            for check in checks:
                if check not in found.project.spec.checks:
                    continue  # a language the user declared without this check
                if head is not None and head.workspace is not None and check in head.workspace.covers:
                    continue
                if self._left_to_members(found, check):
                    continue
                pairs.append((found.project, check))
        return pairs

    def _left_to_members(self, found: Found, check: CheckName) -> bool:
        workspace = found.workspace
        if workspace is None or workspace.own or check in workspace.covers:
            return False
        return any(f.member_of == found.root and f.language == found.language for f in self.found)


def discover(
    root: Path,
    languages: Registry = LANGUAGES,
    *,
    exclude: Iterable[str] = (),
    examples: bool = False,
    max_dirs: int = MAX_DIRS,
) -> Discovery:
    """The projects under `root` (included), in path order; each language's projects in the registry's order.
    Example folders below `root` are entered only with `examples` (their workspace members are found anyway)."""
    root = root.resolve()
    walk = _Walk(root, languages, tuple(exclude), max_dirs, examples=examples)
    walk.run()
    walk.finish()
    found = _with_members(walk.found, languages)
    found.sort(key=lambda f: (_sort_key(root, f.root), f.project.spec.order))
    return Discovery(
        root=root, found=found, dirs_read=walk.dirs_read, truncated=walk.truncated, unreadable=walk.unreadable
    )


def _sort_key(root: Path, path: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(root).parts
    except ValueError:
        return path.parts


class _Walk:
    def __init__(
        self, root: Path, languages: Registry, exclude: tuple[str, ...], max_dirs: int, *, examples: bool
    ) -> None:
        self.root = root
        self.examples = examples
        self.languages = languages
        self.exclude = [re.compile(fnmatch.translate(p.strip("/"))) for p in exclude if p.strip("/")]
        self.max_dirs = max_dirs
        # Most folders hold no marker: one set test rules them out before any language is asked.
        markers = [m for spec in languages for m in spec.markers]
        self.plain = frozenset(m for m in markers if not any(c in m for c in "*?["))
        self.patterned = len(self.plain) < len(markers)
        self.found: list[Found] = []
        self.files: dict[int, int] = {}  # index in found -> files counted for it
        self.dirs_read = 0
        self.truncated = False
        self.unreadable: list[tuple[Path, str]] = []

    def run(self) -> None:
        # (folder, its path from the root, the ignore rules above it, the index of the project that owns it)
        stack: list[tuple[Path, str, IgnoreRules, int | None]] = [(self.root, "", IgnoreRules.at_root(self.root), None)]
        while stack:
            if self.dirs_read >= self.max_dirs:
                self.truncated = True
                log.warning("project discovery stopped after %d folders under %s", self.dirs_read, self.root)
                return
            folder, rel, rules, owner = stack.pop()
            listing = self._list(folder)
            if listing is None:
                continue
            files, dirs = listing
            rules = rules.descend(folder, rel, files)
            owner = self._projects_in(folder, files, owner)
            if owner is not None:
                self.files[owner] = self.files.get(owner, 0) + len(files)
            # Reversed, so the stack pops them in name order: discovery's output does not depend on the disk's.
            for name in sorted(dirs, reverse=True):
                child_rel = f"{rel}/{name}" if rel else name
                if self._skipped(name, child_rel, rules):
                    continue
                stack.append((folder / name, child_rel, rules, owner))

    def _list(self, folder: Path) -> tuple[list[str], list[str]] | None:
        files: list[str] = []
        dirs: list[str] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        # A symlinked folder is not followed (it could loop, or lead out of the tree).
                        if entry.is_dir(follow_symlinks=False):
                            dirs.append(entry.name)
                        elif entry.is_file():
                            files.append(entry.name)
                    except OSError:
                        continue
        except OSError as exc:
            log.info("cannot read %s: %s", folder, exc)
            self.unreadable.append((folder, exc.strerror or str(exc)))
            return None
        self.dirs_read += 1
        return files, dirs

    def _skipped(self, name: str, rel: str, rules: IgnoreRules) -> bool:
        if name.startswith(".") or name in SKIPPED_DIRS:
            return True
        if not self.examples and is_example_dir(name):
            return True
        if any(pattern.match(rel) for pattern in self.exclude):
            return True
        return rules.ignored(rel, True)

    def _projects_in(self, folder: Path, files: list[str], owner: int | None) -> int | None:
        """Record the projects rooted in `folder`; the index of the one its files count towards."""
        if not self.patterned and self.plain.isdisjoint(files):
            return owner
        first: int | None = None
        for spec in self.languages:
            present = spec.markers_in(folder, files)
            if not present or self._test_data(spec, folder, owner):
                continue
            project = spec.inspect(spec, folder, present)
            self.found.append(Found(project, workspace=_workspace_of(project)))
            if first is None:
                first = len(self.found) - 1
        return first if first is not None else owner

    def _test_data(self, spec: LanguageSpec, folder: Path, owner: int | None) -> bool:
        """Whether `folder` sits in a test-data folder of the project of `spec`'s language that owns it."""
        if self.examples or owner is None or not spec.test_data_dirs:
            return False
        outer = self.found[owner].project
        if outer.spec is not spec:
            return False
        inside = folder.relative_to(outer.root).parts[:-1]
        if spec.test_data_dirs.isdisjoint(inside):
            return False
        log.info("%s is test data of %s (not a project of its own)", folder, outer.root)
        return True

    def finish(self) -> None:
        for index, count in self.files.items():
            self.found[index] = replace(self.found[index], files=count)


def _workspace_of(project: Project) -> Workspace | None:
    try:
        return project.spec.workspace(project)
    except Exception:  # a language's reader must not take discovery down; it reports its own problems
        log.exception("reading the workspace file of %s failed", project.root)
        return None


def _with_members(walk_found: list[Found], languages: Registry) -> list[Found]:
    """Mark the members each workspace declares; add the declared members the walk did not reach."""
    found = list(walk_found)
    by_key = {(f.root, f.language): i for i, f in enumerate(found)}
    for head in list(found):
        if head.workspace is None:
            continue
        for member in head.workspace.members:
            if member == head.root:
                continue  # the root is its own member (go.work `use .`): nothing to mark
            index = by_key.get((member, head.language))
            if index is None:
                spec = head.project.spec
                present = spec.markers_in(member)
                if not present:
                    continue
                found.append(Found(spec.inspect(spec, member, present), workspace=None))
                index = len(found) - 1
                by_key[(member, head.language)] = index
            if found[index].member_of is None:
                found[index] = replace(found[index], member_of=head.root)
    return found


def nearest_above(path: Path, languages: Registry = LANGUAGES, *, stop: Path | None = None) -> list[Project]:
    """The projects rooted in the nearest folder at or above `path` that has any; for a file of a known
    language, the nearest root of that language. Stops after `stop` (included) when given."""
    target = path.resolve()
    spec = languages.for_file(target) if target.is_file() else None
    if spec is not None:
        # A file's own language first (web/src/app.ts in a Go repository is web's); else whatever is nearest.
        own = _nearest(target.parent, languages, spec, stop)
        if own:
            return own
    return _nearest(target if target.is_dir() else target.parent, languages, None, stop)


def _nearest(folder: Path, languages: Registry, spec: LanguageSpec | None, stop: Path | None) -> list[Project]:
    while True:
        if spec is not None:
            present = spec.markers_in(folder)
            if present:
                return [spec.inspect(spec, folder, present)]
        else:
            projects = detect(folder, languages)
            if projects:
                return projects
        if folder == stop or folder.parent == folder:
            return []
        folder = folder.parent


def repository_root(path: Path) -> Path | None:
    """The top of the git work tree holding `path` (a folder with `.git`, directory or file), if any."""
    folder = path.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def describe(found: Sequence[Found], discovery: Discovery, limit: int = 8) -> str:
    """`api: go, web: node` (the first `limit`, then how many more)."""
    labels = [discovery.label(f) for f in found]
    shown = ", ".join(labels[:limit])
    return shown if len(labels) <= limit else f"{shown}, … and {len(labels) - limit} more"
