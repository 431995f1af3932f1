"""The workspace files each language reads (go.work, Cargo `[workspace]`, pnpm-workspace.yaml,
package.json#workspaces, `[tool.uv.workspace]`): their members, what the root covers, and what a broken file gives."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from lintel.engine.detect import detect, nearest_project
from lintel.languages import CHECKS, LANGUAGES, Project, Workspace, manifests
from lintel.languages.go import tools as go_language
from lintel.languages.members import expand_members

from tests.helpers import WORKSPACES, make_project, tool_for


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def folders(root: Path, *names: str, manifest: str | None = None) -> Path:
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
        if manifest is not None:
            write(root / name / manifest, "{}" if manifest == "package.json" else "")
    return root


def names(workspace: Workspace | None, root: Path) -> list[str]:
    assert workspace is not None
    return [m.relative_to(root.resolve()).as_posix() or "." for m in workspace.members]


def workspace_of(language: str, root: Path) -> Workspace | None:
    [project] = [p for p in detect(root) if p.language == language]
    return project.spec.workspace(project)


# --- members: globs and paths ---------------------------------------------------------------------------------


def test_a_glob_matches_folders_sorted_and_declared_patterns_keep_their_order(tmp_path: Path) -> None:
    folders(tmp_path, "libs/zeta", "libs/alpha", "apps/web", "apps/api")
    write(tmp_path / "libs" / "notes.txt")  # files never match
    found = expand_members(tmp_path, ["libs/*", "apps/*", "libs/alpha"])
    assert [p.relative_to(tmp_path.resolve()).as_posix() for p in found] == [
        "libs/alpha",
        "libs/zeta",
        "apps/api",
        "apps/web",
    ]


def test_double_star_descends_but_never_into_installed_or_hidden_folders(tmp_path: Path) -> None:
    folders(tmp_path, "pkgs/a/inner", "pkgs/node_modules/dep", "pkgs/.cache/x", "pkgs/b/target/debug", "pkgs/c")
    found = expand_members(tmp_path, ["pkgs/**"], manifest=None)
    rel = {p.relative_to(tmp_path.resolve()).as_posix() for p in found}
    assert rel == {"pkgs", "pkgs/a", "pkgs/a/inner", "pkgs/b", "pkgs/c"}
    # A folder named outright is taken as declared, hidden or not.
    assert expand_members(tmp_path, ["pkgs/.cache"]) == ((tmp_path / "pkgs/.cache").resolve(),)
    assert expand_members(tmp_path, ["pkgs/.*"]) == ((tmp_path / "pkgs/.cache").resolve(),)


def test_members_need_the_manifest_lie_inside_the_root_and_drop_excluded_folders(tmp_path: Path) -> None:
    root = folders(tmp_path / "repo", "a", "b", "b/nested", "c", manifest="Cargo.toml")
    (root / "empty").mkdir()
    folders(tmp_path, "outside", manifest="Cargo.toml")
    found = expand_members(root, ["*", "../outside", str(tmp_path / "outside"), "b/*"], ["b"], manifest="Cargo.toml")
    assert [p.name for p in found] == ["a", "c"]  # `empty` has no Cargo.toml; b and below are excluded
    assert expand_members(root, ["."], manifest="Cargo.toml") == ()
    assert expand_members(root, [".", "./a/"], manifest=None) == (root.resolve(), (root / "a").resolve())


def test_literal_paths_are_not_globs(tmp_path: Path) -> None:
    folders(tmp_path, "a*", "ab")
    assert [p.name for p in expand_members(tmp_path, ["a*"], globs=False)] == ["a*"]
    assert [p.name for p in expand_members(tmp_path, ["a*"])] == ["a*", "ab"]
    assert expand_members(tmp_path, ["missing", ""], globs=False) == ()


def test_a_symlink_loop_under_double_star_ends(tmp_path: Path) -> None:
    folders(tmp_path, "pkgs/a")
    os.symlink(tmp_path / "pkgs", tmp_path / "pkgs" / "a" / "loop")
    found = expand_members(tmp_path, ["pkgs/**"])
    assert {p.relative_to(tmp_path.resolve()).as_posix() for p in found} == {"pkgs", "pkgs/a"}


# --- go.work --------------------------------------------------------------------------------------------------


def test_go_work_use_lines_blocks_comments_and_quoted_paths() -> None:
    text = """// the workspace
go 1.25
toolchain go1.26.8

use ./tools // a comment after a path
use (
\t./api
\t// a commented line inside the block
\t"./web app" // quoted: a space in the name

\t"./\\x65sc"
\t./a//b
)
use(
\t.
)
replace example.com/x => ./x
replace (
\texample.com/y => ./y
)
"""
    assert manifests.parse_go_work(text) == ("./tools", "./api", "./web app", "./esc", "./a", ".")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("use ./a ./b\n", "usage: use local/dir"),
        ("use (\n\t./a ./b\n)\n", "usage: use local/dir"),
        ("use ( ./a ./b )\n", "a block starts a line of its own"),
        ("use (\n\t./a\n", "unterminated use block"),
        ("use ./a /* old */\n", "must use // comments"),
        ('use "./a\n', "unterminated string"),
        ('use "./\\q"\n', "unknown escape"),
        ("use `./a`\n", "cannot contain quote"),
        ("use\n", "usage: use local/dir"),
    ],
)
def test_go_work_that_go_refuses_is_an_error(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        manifests.parse_go_work(text)


def test_go_work_members_are_the_used_modules_and_the_root_is_no_module_without_go_mod(tmp_path: Path) -> None:
    folders(tmp_path, "api", "web", manifest="go.mod")
    (tmp_path / "docs").mkdir()  # used, but no module: go refuses that, and it is no member
    write(tmp_path / "go.work", "go 1.25\n\nuse (\n\t./web\n\t./api\n\t./docs\n\t./gone\n\t../elsewhere\n)\n")
    [project] = detect(tmp_path)
    assert (project.language, project.markers) == ("go", ("go.work",))
    work = project.spec.workspace(project)
    assert work is not None
    assert (work.file, names(work, tmp_path), work.own) == ("go.work", ["web", "api"], False)
    assert work.covers == {"typecheck", "test", "format"}  # golangci-lint runs per module


def test_go_work_beside_go_mod_makes_the_root_a_module_of_its_own(tmp_path: Path) -> None:
    write(tmp_path / "go.mod", "module example.com/root\n")
    folders(tmp_path, "tools", manifest="go.mod")
    write(tmp_path / "go.work", "go 1.25\nuse .\nuse ./tools\n")
    [project] = detect(tmp_path)
    assert project.markers == ("go.mod", "go.work")
    work = project.spec.workspace(project)
    assert (names(work, tmp_path), work and work.own) == ([".", "tools"], True)


def test_a_go_work_root_runs_vet_test_and_gofmt_across_its_modules(tmp_path: Path) -> None:
    folders(tmp_path, "api", "svc/worker", manifest="go.mod")
    write(tmp_path / "go.work", "go 1.25\nuse (\n\t./api\n\t./svc/worker\n)\n")
    [project] = detect(tmp_path)
    assert tool_for(project, "typecheck").argv == ("go", "vet", "./api/...", "./svc/worker/...")
    assert tool_for(project, "test").argv == (
        "go",
        "test",
        "-json",
        "-count=1",
        "-fullpath",
        "./api/...",
        "./svc/worker/...",
    )
    assert tool_for(project, "format").argv == ("gofmt", "-l", "api", "svc/worker")
    assert tool_for(project, "lint") == go_language.GOLANGCI_LINT  # not across modules: see GO_WORK_COVERS
    # A module of the workspace, checked on its own, is checked as any module.
    [member] = detect(tmp_path / "api")
    assert tool_for(member, "typecheck").argv == ("go", "vet", "./...")
    assert nearest_project(tmp_path / "api" / "x.go", tmp_path) == member


def test_a_go_work_root_that_is_a_module_too_checks_itself_with_dot(tmp_path: Path) -> None:
    write(tmp_path / "go.mod", "module example.com/root\n")
    folders(tmp_path, "tools", manifest="go.mod")
    write(tmp_path / "go.work", "go 1.25\nuse (\n\t.\n\t./tools\n)\n")
    [project] = detect(tmp_path)
    assert tool_for(project, "typecheck").argv == ("go", "vet", "./...", "./tools/...")
    assert tool_for(project, "format").argv == ("gofmt", "-l", ".")  # gofmt's `.` walks into tools/ already


def test_a_go_work_without_modules_keeps_the_plain_commands(tmp_path: Path) -> None:
    write(tmp_path / "go.work", "go 1.25\n")
    [project] = detect(tmp_path)
    assert names(project.spec.workspace(project), tmp_path) == []
    assert tool_for(project, "typecheck").argv == ("go", "vet", "./...")


def test_a_broken_go_work_is_no_workspace_and_says_so_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folders(tmp_path, "api", manifest="go.mod")
    write(tmp_path / "go.work", "use (\n\t./api\n")
    [project] = detect(tmp_path)
    with caplog.at_level(logging.WARNING, logger="lintel.languages.manifests"):
        assert project.spec.workspace(project) is None
    assert [r.getMessage() for r in caplog.records] == [f"cannot read {tmp_path / 'go.work'}: unterminated use block"]
    assert tool_for(project, "typecheck").argv == ("go", "vet", "./...")  # go itself then reports the file


def test_an_unreadable_go_work_is_no_workspace(tmp_path: Path) -> None:
    write(tmp_path / "go.work").write_bytes(b"use ./\xff\n")
    project = make_project("go", tmp_path, ("go.work",))
    assert project.spec.workspace(project) is None


def test_a_go_module_without_go_work_has_no_workspace() -> None:
    [project] = detect(WORKSPACES / "go")
    assert project.spec.workspace(project) is None


# --- Cargo [workspace] ----------------------------------------------------------------------------------------


def test_cargo_members_globs_minus_exclude_and_path_dependencies(tmp_path: Path) -> None:
    write(
        tmp_path / "Cargo.toml",
        """
[package]
name = "app"

[workspace]
members = ["crates/*", "tools/cli"]
exclude = ["crates/experimental"]

[dependencies]
shared = { path = "shared" }
serde = "1"
[target.'cfg(unix)'.dev-dependencies]
unixy = { path = "platform/unix" }
""",
    )
    folders(
        tmp_path, "crates/core", "crates/experimental", "tools/cli", "shared", "platform/unix", manifest="Cargo.toml"
    )
    (tmp_path / "crates" / "docs").mkdir()
    write(
        tmp_path / "shared" / "Cargo.toml", '[package]\nname = "shared"\n[dependencies]\nleaf = { path = "../leaf" }\n'
    )
    folders(tmp_path, "leaf", manifest="Cargo.toml")
    work = workspace_of("rust", tmp_path)
    assert names(work, tmp_path) == ["crates/core", "tools/cli", "shared", "platform/unix", "leaf"]
    assert work is not None
    assert (work.file, work.covers, work.own) == ("Cargo.toml", frozenset(CHECKS), True)


def test_a_virtual_cargo_manifest_is_no_crate_of_its_own(tmp_path: Path) -> None:
    write(tmp_path / "Cargo.toml", '[workspace]\nmembers = ["a"]\nresolver = "2"\n')
    folders(tmp_path, "a", manifest="Cargo.toml")
    work = workspace_of("rust", tmp_path)
    assert (names(work, tmp_path), work and work.own) == (["a"], False)


def test_an_empty_workspace_table_in_a_package_is_no_workspace(tmp_path: Path) -> None:
    write(tmp_path / "Cargo.toml", '[package]\nname = "solo"\n\n[workspace]\n')
    assert workspace_of("rust", tmp_path) is None
    write(tmp_path / "Cargo.toml", '[package]\nname = "solo"\n')
    assert workspace_of("rust", tmp_path) is None


def test_the_rust_workspace_fixture_covers_every_check() -> None:
    work = workspace_of("rust", WORKSPACES / "rust-workspace")
    assert names(work, WORKSPACES / "rust-workspace") == ["impl"]
    assert work is not None
    assert work.covers == frozenset(CHECKS)
    assert work.own  # the root is a package: `lintel-workspace-app`


@pytest.mark.parametrize(
    "manifest",
    [
        '[workspace]\nmembers = "a"\n',
        '[workspace]\nmembers = ["a", 1]\n',
        '[workspace]\nexclude = "a"\n',
        "[workspace\n",
    ],
)
def test_a_malformed_cargo_workspace_is_none(tmp_path: Path, caplog: pytest.LogCaptureFixture, manifest: str) -> None:
    write(tmp_path / "Cargo.toml", manifest)
    project = make_project("rust", tmp_path, ("Cargo.toml",))
    with caplog.at_level(logging.WARNING):
        assert project.spec.workspace(project) is None
    assert len([r for r in caplog.records if "cannot read" in r.getMessage()]) == 1


# --- pnpm-workspace.yaml --------------------------------------------------------------------------------------


def test_pnpm_packages_quoted_unquoted_negated_and_commented() -> None:
    text = """# the workspace
catalog:
  react: ^18
packages:
  # all packages in direct subdirs of packages/
  - 'packages/*'
  - "components/**" # and below
  - apps/web
  - '!**/test/**'
  - 'it''s'
  - "say \\"hi\\""
onlyBuiltDependencies:
  - esbuild
"""
    assert manifests.parse_pnpm_packages(text) == [
        "packages/*",
        "components/**",
        "apps/web",
        "!**/test/**",
        "it's",
        'say "hi"',
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("packages:\n- a\n- b # two\n", ["a", "b"]),  # items at the key's own indentation
        ("packages: ['a', \"b\", c]\n", ["a", "b", "c"]),
        ("packages: [\n  'a', # one\n  'b#2'\n]\n", ["a", "b#2"]),
        ("packages: []\n", []),
        ("packages:\n", []),
        ("packages:\n  - a\n---\n- b\n", ["a"]),
        ("'packages':\n  - a\n", ["a"]),
        ("onlyBuiltDependencies:\n  - esbuild\n", None),  # pnpm 10 keeps settings here: no workspace
        ("", None),
        ("workspace:\n  packages:\n    - nested\n", None),  # not the top-level key
        (
            "  packages:\n    - indented\n",
            ["indented"],
        ),  # an indented document is still the top level, as pnpm reads it
    ],
)
def test_pnpm_packages_shapes(text: str, expected: list[str] | None) -> None:
    assert manifests.parse_pnpm_packages(text) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("packages: packages/*\n", "not a list"),
        ("packages: [1, 2]\n", "not a list of paths"),
        (
            "packages: [a, b\n",
            r"not valid YAML: while parsing a flow sequence: expected ',' or '\]'.*\(line 2, column 1\)",
        ),
        (
            "packages:\n  - a\n  b\n",
            r"not valid YAML: while scanning a simple key: could not find expected ':' \(line 4",
        ),
        ("packages:\n  - 'a\n", r"not valid YAML: while scanning a quoted scalar: found unexpected end of stream"),
    ],
)
def test_malformed_pnpm_packages_are_an_error(text: str, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        manifests.parse_pnpm_packages(text)


def pnpm_root(tmp_path: Path, scripts: dict[str, str], yaml: str = "packages:\n  - 'packages/*'\n") -> Path:
    write(tmp_path / "package.json", json.dumps({"name": "root", "private": True, "scripts": scripts}))
    write(tmp_path / "pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    write(tmp_path / "pnpm-workspace.yaml", yaml)
    return folders(tmp_path, "packages/b", "packages/a", manifest="package.json")


def test_a_pnpm_root_covers_the_checks_it_has_a_script_for_and_is_no_package(tmp_path: Path) -> None:
    root = pnpm_root(tmp_path, {"test": "pnpm -r test", "typecheck": "pnpm -r exec tsc --noEmit", "build": "x"})
    (root / "packages" / "drafts").mkdir()  # no package.json: pnpm passes over it
    work = workspace_of("node", root)
    assert names(work, root) == ["packages/a", "packages/b"]
    assert work is not None
    assert (work.file, set(work.covers), work.own) == ("pnpm-workspace.yaml", {"test", "typecheck"}, False)


def test_a_pnpm_negation_excludes_members(tmp_path: Path) -> None:
    root = pnpm_root(tmp_path, {}, "packages:\n  - 'packages/*'\n  - '!packages/b'\n")
    work = workspace_of("node", root)
    assert names(work, root) == ["packages/a"]
    assert work is not None
    assert work.covers == frozenset()


def test_pnpm_reads_only_its_own_file(tmp_path: Path) -> None:
    root = pnpm_root(tmp_path, {})
    (root / "pnpm-workspace.yaml").unlink()
    data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    write(root / "package.json", json.dumps({**data, "workspaces": ["packages/*"]}))
    assert workspace_of("node", root) is None
    # Without a lock file, pnpm-workspace.yaml alone says pnpm.
    (root / "pnpm-lock.yaml").unlink()
    write(root / "pnpm-workspace.yaml", "packages:\n  - packages/a\n")
    write(root / "package.json", json.dumps(data))
    assert names(workspace_of("node", root), root) == ["packages/a"]


def test_a_pnpm_settings_file_without_packages_is_no_workspace(tmp_path: Path) -> None:
    root = pnpm_root(tmp_path, {"test": "node --test"}, "onlyBuiltDependencies:\n  - esbuild\n")
    assert workspace_of("node", root) is None


@pytest.mark.parametrize(
    ("workspaces", "expected"),
    [
        (["packages/*"], ["packages/a", "packages/b"]),
        ({"packages": ["packages/b"], "nohoist": ["**/react"]}, ["packages/b"]),  # yarn 1's object form
        (["packages/*", "!packages/a"], ["packages/b"]),
        ([], []),
    ],
)
def test_package_json_workspaces_for_npm_yarn_and_bun(tmp_path: Path, workspaces: object, expected: list[str]) -> None:
    folders(tmp_path, "packages/a", "packages/b", manifest="package.json")
    manifest = {"name": "root", "workspaces": workspaces, "scripts": {"lint": "eslint .", "format": "prettier ."}}
    write(tmp_path / "package.json", json.dumps(manifest))
    write(tmp_path / "yarn.lock")
    write(tmp_path / "pnpm-workspace.yaml", "packages:\n  - nowhere\n")  # yarn's lock file: not pnpm's to say
    work = workspace_of("node", tmp_path)
    assert names(work, tmp_path) == expected
    assert work is not None
    assert (work.file, set(work.covers), work.own) == ("package.json", {"lint"}, False)


@pytest.mark.parametrize("workspaces", ["packages/*", [1], {"packages": "packages/*"}])
def test_malformed_package_json_workspaces_are_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, workspaces: object
) -> None:
    write(tmp_path / "package.json", json.dumps({"name": "root", "workspaces": workspaces}))
    with caplog.at_level(logging.WARNING, logger="lintel.languages.manifests"):
        assert workspace_of("node", tmp_path) is None
    assert len(caplog.records) == 1


def test_a_broken_pnpm_file_or_package_json_is_none(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = pnpm_root(tmp_path, {}, "packages: [a\n")
    with caplog.at_level(logging.WARNING, logger="lintel.languages.manifests"):
        assert workspace_of("node", root) is None
    assert len(caplog.records) == 1
    project = Project(LANGUAGES["node"], tmp_path / "nothing", ("package.json",))
    assert project.spec.workspace(project) is None  # no package.json at all: logged, never raised


def test_a_plain_package_has_no_workspace() -> None:
    [project] = detect(WORKSPACES / "node")
    assert project.spec.workspace(project) is None


# --- [tool.uv.workspace] --------------------------------------------------------------------------------------


def test_uv_members_globs_minus_exclude(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        """
[project]
name = "root"

[tool.uv.workspace]
members = ["packages/*", "tools/cli"]
exclude = ["packages/seeds"]
""",
    )
    folders(tmp_path, "packages/core", "packages/seeds", "tools/cli", manifest="pyproject.toml")
    (tmp_path / "packages" / "notes").mkdir()
    work = workspace_of("python", tmp_path)
    assert names(work, tmp_path) == ["packages/core", "tools/cli"]
    assert work is not None
    assert (work.file, set(work.covers), work.own) == ("pyproject.toml", {"lint", "format"}, True)


def test_a_virtual_uv_root_is_no_project_of_its_own(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.uv.workspace]\nmembers = ["libs/*"]\n')
    folders(tmp_path, "libs/a", manifest="pyproject.toml")
    work = workspace_of("python", tmp_path)
    assert (names(work, tmp_path), work and work.own) == (["libs/a"], False)


def test_a_python_project_without_a_uv_workspace_has_none(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n[tool.uv]\ndev-dependencies = []\n')
    assert workspace_of("python", tmp_path) is None
    write(tmp_path / "setup.py")
    (tmp_path / "pyproject.toml").unlink()
    assert workspace_of("python", tmp_path) is None


@pytest.mark.parametrize(
    "text",
    [
        '[tool.uv.workspace]\nmembers = "libs/*"\n',
        "[tool.uv.workspace]\nexclude = [1]\n",
        "[tool.uv]\nworkspace = true\n",
        "[tool.uv.workspace\n",
    ],
)
def test_a_malformed_uv_workspace_is_none(tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str) -> None:
    write(tmp_path / "pyproject.toml", text)
    project = make_project("python", tmp_path, ("pyproject.toml",))
    with caplog.at_level(logging.WARNING):
        assert project.spec.workspace(project) is None
    assert len([r for r in caplog.records if "cannot read" in r.getMessage()]) == 1


# --- the fixtures ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "language", "file", "members", "covers", "own"),
    [
        ("mono-gowork", "go", "go.work", ["api", "worker"], {"typecheck", "test", "format"}, False),
        ("mono-pnpm", "node", "pnpm-workspace.yaml", ["packages/count", "packages/greet"], {"test"}, False),
        ("mono-uv", "python", "pyproject.toml", ["packages/cli", "packages/core"], {"lint", "format"}, True),
    ],
)
def test_the_monorepo_fixtures_declare_their_members(
    fixture: str, language: str, file: str, members: list[str], covers: set[str], own: bool
) -> None:
    root = WORKSPACES / fixture
    work = workspace_of(language, root)
    assert names(work, root) == members
    assert work is not None
    assert (work.file, set(work.covers), work.own) == (file, covers, own)


def test_the_services_fixture_has_no_workspace_file_and_no_root_project() -> None:
    root = WORKSPACES / "mono-services"
    assert detect(root) == []
    for name, language in (("api", "go"), ("web", "node"), ("tools", "python")):
        assert workspace_of(language, root / name) is None
