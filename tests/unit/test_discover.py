"""Project discovery (docs/architecture.md, Projects): nested roots, skipped folders, workspace members and the plan."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lintel.engine.discover import Discovery, discover, nearest_above, repository_root
from lintel.languages import LANGUAGES, Project, Registry, Workspace


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n" if name.endswith(".json") else "")


def roots(discovery: Discovery) -> list[tuple[str, str]]:
    return [(discovery.relative(f.root), f.language) for f in discovery.found]


def test_finds_the_roots_own_markers_and_nested_projects_in_path_order(tmp_path: Path) -> None:
    touch(tmp_path, "go.mod", "package.json", "web/package.json", "tools/cli/pyproject.toml", "api/go.mod")
    found = discover(tmp_path)
    assert roots(found) == [
        (".", "go"),
        (".", "node"),
        ("api", "go"),
        ("tools/cli", "python"),
        ("web", "node"),
    ]


def test_dependencies_build_output_hidden_and_excluded_folders_are_not_entered(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "package.json",
        "node_modules/left-pad/package.json",
        "vendor/x/go.mod",
        "target/debug/Cargo.toml",
        ".venv/lib/pyproject.toml",
        ".git/pyproject.toml",
        "dist/package.json",
        "build/setup.py",
        "pkg/testdata/mod/go.mod",
        "contrib/demo/package.json",
        "services/api/go.mod",
    )
    found = discover(tmp_path, exclude=["contrib/*"])
    assert roots(found) == [(".", "node"), ("services/api", "go")]
    assert found.dirs_read == len(["", "contrib", "pkg", "services", "services/api"])


def test_each_folder_is_read_once_and_files_count_towards_the_nearest_project(tmp_path: Path) -> None:
    touch(tmp_path, "pyproject.toml", "a.py", "src/b.py", "web/package.json", "web/x.js", "web/y.js")
    found = discover(tmp_path)
    files = {found.relative(f.root): f.files for f in found.found}
    assert files == {".": 3, "web": 3}  # pyproject.toml, a.py, src/b.py | package.json, x.js, y.js
    assert found.dirs_read == 3


def test_the_walk_stops_at_its_limit_and_says_so(tmp_path: Path) -> None:
    touch(tmp_path, *(f"d{i}/go.mod" for i in range(5)))
    found = discover(tmp_path, max_dirs=3)
    assert found.truncated
    assert found.dirs_read == 3


def with_workspace(language: str, make: object) -> Registry:
    spec = dataclasses.replace(LANGUAGES[language], workspace=make)  # type: ignore[arg-type]
    return Registry([*(s for s in LANGUAGES if s.name != language), spec])


def test_members_are_marked_and_the_plan_skips_what_the_root_covers(tmp_path: Path) -> None:
    touch(tmp_path, "go.mod", "a/go.mod", "b/go.mod", "c/go.mod")

    def workspace(project: Project) -> Workspace | None:
        if project.root != tmp_path:
            return None
        return Workspace("go.work", (tmp_path / "a", tmp_path / "b"), covers=frozenset({"typecheck", "test"}))

    found = discover(tmp_path, with_workspace("go", workspace))
    members = {found.relative(f.root): f.member_of for f in found.found}
    assert members == {".": None, "a": tmp_path, "b": tmp_path, "c": None}
    plan = [(found.relative(p.root), check) for p, check in found.plan(["lint", "typecheck"])]
    assert plan == [(".", "lint"), (".", "typecheck"), ("a", "lint"), ("b", "lint"), ("c", "lint"), ("c", "typecheck")]
    assert [[found.relative(f.root) for f in g] for g in found.groups()] == [[".", "a", "b"], ["c"]]
    assert [found.relative(f.root) for f in found.units()] == [".", "c"]


def test_a_member_checked_without_its_root_runs_every_check(tmp_path: Path) -> None:
    touch(tmp_path, "go.mod", "a/go.mod")

    def workspace(project: Project) -> Workspace | None:
        return (
            Workspace("go.work", (tmp_path / "a",), covers=frozenset({"typecheck"}))
            if project.root == tmp_path
            else None
        )

    found = discover(tmp_path, with_workspace("go", workspace)).narrowed(lambda f: f.root != tmp_path)
    assert [(found.relative(p.root), c) for p, c in found.plan(["lint", "typecheck"])] == [
        ("a", "lint"),
        ("a", "typecheck"),
    ]


def test_a_root_that_only_holds_members_leaves_uncovered_checks_to_them(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", "packages/x/package.json", "packages/y/package.json")

    def workspace(project: Project) -> Workspace | None:
        if project.root != tmp_path:
            return None
        members = (tmp_path / "packages/x", tmp_path / "packages/y")
        return Workspace("pnpm-workspace.yaml", members, covers=frozenset({"test"}), own=False)

    found = discover(tmp_path, with_workspace("node", workspace))
    plan = [(found.relative(p.root), c) for p, c in found.plan(["lint", "test"])]
    assert plan == [(".", "test"), ("packages/x", "lint"), ("packages/y", "lint")]


def test_a_declared_member_the_walk_skips_is_still_found(tmp_path: Path) -> None:
    touch(tmp_path, "go.mod", "vendor/forked/go.mod")

    def workspace(project: Project) -> Workspace | None:
        return Workspace("go.work", (tmp_path / "vendor/forked",)) if project.root == tmp_path else None

    found = discover(tmp_path, with_workspace("go", workspace))
    assert roots(found) == [(".", "go"), ("vendor/forked", "go")]
    assert found.found[1].member_of == tmp_path


def test_a_failing_workspace_reader_does_not_stop_discovery(tmp_path: Path) -> None:
    touch(tmp_path, "go.mod", "a/go.mod")

    def broken(project: Project) -> Workspace | None:
        raise RuntimeError("bad file")

    assert roots(discover(tmp_path, with_workspace("go", broken))) == [(".", "go"), ("a", "go")]


def test_nearest_above_prefers_the_files_own_language(tmp_path: Path) -> None:
    touch(tmp_path, "go.mod", "web/package.json", "web/src/app.ts", "web/README.md", "api/deep/x.go")
    app = nearest_above(tmp_path / "web/src/app.ts", stop=tmp_path)
    assert [(p.language, p.root) for p in app] == [("node", tmp_path / "web")]
    readme = nearest_above(tmp_path / "web/README.md", stop=tmp_path)
    assert [(p.language, p.root) for p in readme] == [("node", tmp_path / "web")]
    deep = nearest_above(tmp_path / "api/deep", stop=tmp_path)
    assert [(p.language, p.root) for p in deep] == [("go", tmp_path)]
    assert nearest_above(tmp_path / "api/deep", stop=tmp_path / "api") == []


def test_repository_root_is_the_folder_with_git(tmp_path: Path) -> None:
    touch(tmp_path, "repo/.git/HEAD", "repo/a/b/c.txt")
    assert repository_root(tmp_path / "repo/a/b/c.txt") == tmp_path / "repo"
    assert repository_root(tmp_path / "repo") == tmp_path / "repo"


def test_folders_git_ignores_are_not_entered(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", "generated/x/package.json", "apps/web/package.json", "apps/web/out/package.json")
    (tmp_path / ".gitignore").write_text("/generated/\n")
    (tmp_path / "apps/web/.gitignore").write_text("out\n")
    found = discover(tmp_path)
    assert roots(found) == [(".", "node"), ("apps/web", "node")]
    (tmp_path / "apps/web/.gitignore").write_text("out\n!out\n")  # re-included: a project again
    assert roots(discover(tmp_path)) == [(".", "node"), ("apps/web", "node"), ("apps/web/out", "node")]


def test_crates_under_a_crates_tests_folder_are_its_test_data(tmp_path: Path) -> None:
    """xshell's `tests/data/*` crates, built by its own tests: checking them beside those tests raced the tests'
    builds in the same folders. Another language's project there still counts, and so
    does a crate named as a workspace member or with `projects.examples`."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    touch(tmp_path, "tests/data/baseline/Cargo.toml", "tests/e2e/package.json", "crates/a/Cargo.toml")
    assert roots(discover(tmp_path)) == [(".", "rust"), ("crates/a", "rust"), ("tests/e2e", "node")]
    assert ("tests/data/baseline", "rust") in roots(discover(tmp_path, examples=True))
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "x"\nversion = "0.1.0"\n\n[workspace]\nmembers = ["tests/data/baseline"]\n'
    )
    assert ("tests/data/baseline", "rust") in roots(discover(tmp_path))
