"""The result cache's key and store: every input a check depends on changes the key (one mutation at a time), what
does not matter leaves it alone, and the store replays a result as it was stored."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.issues import make_issue
from lintel.core.results import RunResult
from lintel.engine.cachefiles import TreeHasher
from lintel.engine.cachekey import KeyInputs, cache_key
from lintel.engine.resultcache import ResultCache, default_cache_dir

VERSIONS: dict[str, str] = {}


async def probe(binary: str, args: Sequence[str]) -> str | None:
    return VERSIONS.get(binary, "1.0")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def make_repo(tmp: Path, *, with_git: bool = True) -> tuple[Path, KeyInputs]:
    repo = tmp / "repo"
    project = repo / "app"
    (project / "pkg").mkdir(parents=True)
    (repo / "bin").mkdir()
    tool = repo / "bin" / "ruff"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (project / "pyproject.toml").write_text("[tool.ruff]\n")
    (project / "pkg" / "a.py").write_text("import os\n")
    (project / "b.py").write_text("x = 1\n")
    (repo / ".gitignore").write_text("build/\n")
    if with_git:
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "init")
    run = KeyInputs(
        tool="ruff",
        check="lint",
        parser="ruff",
        codes=((0,), (1,)),
        argv=("ruff", "check", "--output-format=json"),
        binaries=(str(tool),),
        cwd=project,
        workspace=repo,
        env={"PATH": "/usr/bin", "HOME": str(tmp)},
        script=False,
        stdin=None,
    )
    return project, run


def key(run: KeyInputs) -> str | None:
    return asyncio.run(cache_key(run, TreeHasher(), probe))


def _edit(path: str, text: str) -> Callable[[Path, KeyInputs], KeyInputs]:
    def mutate(project: Path, run: KeyInputs) -> KeyInputs:
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
        return run

    return mutate


def _version(project: Path, run: KeyInputs) -> KeyInputs:
    VERSIONS[str(Path(run.binaries[0]).resolve())] = "2.0"
    return run


def _binary(project: Path, run: KeyInputs) -> KeyInputs:
    Path(run.binaries[0]).write_text("#!/bin/sh\n# another build\n")
    return run


def _rename(project: Path, run: KeyInputs) -> KeyInputs:
    (project / "b.py").rename(project / "c.py")
    return run


MUTATIONS: dict[str, Callable[[Path, KeyInputs], KeyInputs]] = {
    "file content": _edit("pkg/a.py", "import sys\n"),
    "new file": _edit("pkg/new.py", "y = 2\n"),
    "renamed file": _rename,
    "config file": _edit("pyproject.toml", "[tool.ruff]\nline-length = 10\n"),
    "config above": _edit("../ruff.toml", "line-length = 10\n"),
    "tool version": _version,
    "tool binary": _binary,
    "argv": lambda p, r: replace(r, argv=(*r.argv, "--select=F")),
    "env": lambda p, r: replace(r, env={**r.env, "RUFF_OUTPUT_FORMAT": "json"}),
    "exit codes": lambda p, r: replace(r, codes=((0,), (1, 2))),
    "argv file": lambda p, r: (_edit("cfg/extra.toml", "x")(p, r), replace(r, argv=(*r.argv, "cfg/extra.toml")))[1],
}


@pytest.fixture(autouse=True)
def _versions() -> None:
    VERSIONS.clear()


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_input_changes_the_key(tmp_path: Path, name: str, with_git: bool) -> None:
    project, run = make_repo(tmp_path, with_git=with_git)
    before = key(run)
    assert before is not None
    assert key(run) == before  # the same inputs: the same key
    after = key(MUTATIONS[name](project, run))
    assert after is not None
    assert after != before, name


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=4, unique=True))
def test_any_sequence_of_mutations_misses_every_time(
    tmp_path_factory: pytest.TempPathFactory, names: list[str]
) -> None:
    VERSIONS.clear()
    project, run = make_repo(tmp_path_factory.mktemp("seq"))
    seen = {key(run)}
    for name in names:
        run = MUTATIONS[name](project, run)
        current = key(run)
        assert current is not None
        assert current not in seen, name
        seen.add(current)


def test_what_does_not_matter_keeps_the_key(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    before = key(run)
    assert key(replace(run, env={**run.env, "LINTEL_TOKEN": "x", "UNRELATED": "1"})) == before
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text("import os\n")  # ignored: ruff skips it too
    assert key(run) == before


def test_an_ignored_file_counts_for_a_tool_that_reads_it(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    vet = replace(run, tool="go vet", check="typecheck", argv=("go", "vet", "./..."))
    before = key(vet)
    (project / "build").mkdir()
    (project / "build" / "gen.go").write_text("package gen\n")
    assert key(vet) != before


def test_staged_and_dirty_content_hash_alike(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    (project / "b.py").write_text("x = 2\n")
    dirty = key(run)
    git(project.parent, "add", "-A")
    assert key(run) == dirty


def test_uncached_runs_have_no_key(tmp_path: Path) -> None:
    _, run = make_repo(tmp_path)
    assert key(replace(run, tool="pytest", check="test")) is None
    assert key(replace(run, tool="some-linter")) is None
    assert key(replace(run, script=True)) is None
    assert key(replace(run, stdin=b"x")) is None
    (tmp_path / "repo" / "app" / "b.py").chmod(0)
    if (tmp_path / "repo" / "app" / "b.py").stat().st_mode & 0o400 == 0:
        with_unreadable = key(replace(run, tool="ruff"))
        (tmp_path / "repo" / "app" / "b.py").chmod(0o644)
        # An unreadable modified file cannot be hashed: no key; a committed one keeps its blob id.
        assert with_unreadable is None or with_unreadable == key(run)


def sample_result(root: Path) -> RunResult:
    issue = make_issue(kind="lint", message="unused", source="ruff", file="app/a.py", line=1, column=8, rule="F401")
    return RunResult(
        language="python",
        check="lint",
        tool="ruff",
        argv=["ruff", "check"],
        cwd=root,
        status="findings",
        exit_code=1,
        duration_ms=40,
        output="[...]\nexit: 1",
        issues=[replace(issue, fingerprint="abc")],
        binary="/bin/ruff",
        stdout="[...]",
    )


def test_store_replays_the_result(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    stored = sample_result(tmp_path)
    cache.save("ab" * 32, stored)
    replayed = cache.load("ab" * 32)
    assert replayed is not None
    assert replayed == replace(stored, duration_ms=0)
    assert cache.stats().entries == 1


def test_a_corrupt_entry_is_a_miss_and_goes(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    cache.save("cd" * 32, sample_result(tmp_path))
    entry = next((tmp_path / "cache" / "entries").glob("*/*.json.z"))
    entry.write_bytes(b"not zlib")
    assert cache.load("cd" * 32) is None
    assert not entry.exists()
    assert cache.load("ef" * 32) is None


def test_prune_drops_the_least_recently_used(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    for index, name in enumerate(("aa", "bb", "cc")):
        cache.save(name * 32, sample_result(tmp_path))
        entry = cache.entries_dir / name / f"{name * 32}.json.z"
        import os

        os.utime(entry, ns=(10**18 + index, 10**18 + index))
    assert cache.load("aa" * 32) is not None  # used now: the newest
    size = cache.stats().size_bytes
    cache.max_bytes = size * 2 // 3 + 1
    assert cache.prune() == 1
    assert cache.load("bb" * 32) is None
    assert cache.load("aa" * 32) is not None
    assert cache.load("cc" * 32) is not None
    assert cache.clear() >= 2
    assert cache.stats().entries == 0


def test_through_runs_once_and_replays(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    cache = ResultCache(tmp_path / "cache")
    calls: list[int] = []

    async def execute() -> RunResult:
        calls.append(1)
        return sample_result(project)

    async def twice() -> tuple[RunResult, RunResult]:
        cache.probe = probe  # type: ignore[method-assign]
        return await cache.through(run, execute), await cache.through(run, execute)

    first, second = asyncio.run(twice())
    assert len(calls) == 1
    assert second == replace(first, duration_ms=0)
    assert (cache.counts.hits, cache.counts.misses, cache.counts.stored) == (1, 1, 1)


def test_a_failed_run_is_not_stored(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    cache = ResultCache(tmp_path / "cache")

    async def execute() -> RunResult:
        return replace(sample_result(project), status="not_checked", reason="crashed")

    async def main() -> None:
        cache.probe = probe  # type: ignore[method-assign]
        await cache.through(run, execute)
        await cache.through(run, execute)

    asyncio.run(main())
    assert (cache.counts.hits, cache.counts.misses, cache.counts.stored) == (0, 2, 0)


def test_default_directory_follows_xdg() -> None:
    assert default_cache_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/lintel/results")
    assert default_cache_dir({"XDG_CACHE_HOME": "/x", "LINTEL_CACHE_DIR": "/ci/cache"}) == Path("/ci/cache")


def test_gitignore_rules_are_inputs_of_a_tool_that_honours_them(tmp_path: Path) -> None:
    _, run = make_repo(tmp_path)
    before = key(run)
    (tmp_path / "repo" / ".gitignore").write_text("build/\nb.py\n")
    assert key(run) != before


def test_respect_gitignore_off_makes_ignored_files_count(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    (project / "pyproject.toml").write_text("[tool.ruff]\nrespect-gitignore = false\n")
    before = key(run)
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text("import os\n")
    assert key(run) != before


def test_a_crate_without_a_lockfile_is_not_cached(tmp_path: Path) -> None:
    project, run = make_repo(tmp_path)
    clippy = replace(run, tool="clippy", argv=("cargo", "clippy", "--message-format=json"))
    (project / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n')
    assert key(clippy) is None
    (project / "Cargo.lock").write_text("version = 3\n")
    assert key(clippy) is not None


def test_another_checkout_of_the_same_files_has_the_same_key(tmp_path: Path) -> None:
    """A worktree of the repository at the same commit (the merge base's of `--new-from`) is the same check:
    paths inside a checkout count relative to it. Its own edits still change the key."""
    _, run = make_repo(tmp_path)
    tool = tmp_path / "tools" / "ruff"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    run = replace(run, binaries=(str(tool),))
    other = tmp_path / "elsewhere" / "repo"
    git(run.workspace, "worktree", "add", "-q", "--detach", str(other))
    there = replace(run, cwd=other / "app", workspace=other)
    assert key(run) is not None
    assert key(there) == key(run)
    (other / "app" / "b.py").write_text("x = 2\n")
    assert key(there) != key(run)
    assert key(replace(there, workspace=other.parent)) != key(run)  # not a checkout of its own: paths count


def test_a_replayed_result_names_the_checkout_it_is_replayed_in(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    here, there = tmp_path / "a" / "repo", tmp_path / "b" / "repo"
    stored = replace(sample_result(here), cwd=here / "app", output=f"{here}/app/x.py:1: F401\n{here}2 stays\n")
    cache.save("12" * 32, stored, here)
    replayed = cache.load("12" * 32, there)
    assert replayed is not None
    assert replayed.cwd == there / "app"
    assert replayed.output == f"{there}/app/x.py:1: F401\n{here}2 stays\n"
    assert cache.load("12" * 32, here) == replace(stored, duration_ms=0)
