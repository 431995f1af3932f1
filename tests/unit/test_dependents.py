"""`--changed-since`'s dependents: what each ecosystem's manifest says a project depends on, the reverse graph
over a discovery (names inside a workspace, paths anywhere; transitive; cycles end), and the selection on copies
of the mono-* fixtures committed to tmp git repositories."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from lintel.engine.dependents import reach, reverse_graph
from lintel.engine.discover import Discovery, discover
from lintel.engine.scope import affected
from lintel.languages.manifests import parse_go_mod
from lintel.languages.requires import Requires, read_requires

from tests.helpers import WORKSPACES


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def repo_of(fixture: str, tmp_path: Path) -> Path:
    root = tmp_path / fixture
    shutil.copytree(WORKSPACES / fixture, root, ignore=shutil.ignore_patterns("node_modules", "target", ".venv"))
    return root


def commit_all(root: Path, message: str) -> None:
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def selected(root: Path, ref: str = "HEAD~1") -> tuple[list[str], int, int]:
    everything = discover(root)
    chosen = affected(everything, ref)
    return [everything.relative(f.root) for f in chosen.discovery.found], chosen.changed, chosen.dependents


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


# --- the manifests ---------------------------------------------------------------------------------------------


def test_go_mod_gives_its_module_requires_and_local_replacements() -> None:
    text = (
        "module example.com/w // the worker\ngo 1.25\nrequire example.com/a v0.0.0\n"
        'require (\n\texample.com/b v1.2.3 // indirect\n\t"example.com/c" v1.0.0\n)\n'
        "replace example.com/a => ../a\n"
        "replace (\n\texample.com/b v1.2.3 => ./b\n\texample.com/c => example.com/d v1\n)\n"
    )
    mod = parse_go_mod(text)
    assert mod.module == "example.com/w"
    assert mod.requires == ("example.com/a", "example.com/b", "example.com/c")
    assert mod.local_replaces == ("../a", "./b")  # a replacement by another module path is no folder


def test_package_json_names_workspace_siblings_and_folders(tmp_path: Path) -> None:
    write_json(
        tmp_path / "app/package.json",
        {
            "name": "@x/app",
            "dependencies": {"@x/a": "workspace:*", "alias": "workspace:@x/b@^1", "@x/c": "^1", "left": "npm:pad@1"},
            "devDependencies": {"d": "file:../d", "e": "link:./e", "f": "workspace:../f", "g": "git+https://h/g.git"},
            "peerDependencies": {"@x/h": "*"},
        },
    )
    got = read_requires("node", tmp_path / "app", tmp_path)
    assert got.name == "@x/app"
    assert got.names == {"@x/a", "@x/b", "@x/c", "@x/h"}
    assert got.paths == {(tmp_path / n).resolve() for n in ("d", "app/e", "f")}


def test_fixture_manifests_name_their_members() -> None:
    uv = read_requires("python", WORKSPACES / "mono-uv")
    assert uv.name == "mono-uv"
    assert uv.names == {"mono-core", "mono-cli"}
    cargo = read_requires("rust", WORKSPACES / "rust-workspace")
    assert cargo.name == "lintel-workspace-app"
    assert cargo.paths == {(WORKSPACES / "rust-workspace/impl").resolve()}
    assert read_requires("node", WORKSPACES / "mono-pnpm/packages/greet").name == "@mono/greet"
    assert read_requires("go", WORKSPACES / "mono-gowork/api").name == "example.com/mono/api"


def test_cargo_workspace_dependencies_and_uv_root_sources_are_inherited(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["crates/*"]\n[workspace.dependencies]\ncore = { path = "crates/core" }\nserde = "1"\n'
    )
    (tmp_path / "crates/app").mkdir(parents=True)
    (tmp_path / "crates/app/Cargo.toml").write_text(
        '[package]\nname = "app"\n[dependencies]\ncore = { workspace = true }\nserde = { workspace = true }\n'
        "[target.'cfg(unix)'.dev-dependencies]\nutil = { path = \"../util\" }\n"
    )
    got = read_requires("rust", tmp_path / "crates/app", tmp_path)
    assert got.paths == {(tmp_path / "crates/core").resolve(), (tmp_path / "crates/util").resolve()}

    (tmp_path / "pyproject.toml").write_text(
        '[tool.uv.workspace]\nmembers = ["py/*"]\n[tool.uv.sources]\nMono_Lib = { workspace = true }\n'
        'vendored = { path = "third/vendored" }\nunused = { workspace = true }\n'
    )
    (tmp_path / "py/app").mkdir(parents=True)
    (tmp_path / "py/app/pyproject.toml").write_text(
        '[project]\nname = "App"\ndependencies = ["mono-lib>=1", "vendored ; python_version > \'3\'"]\n'
        '[tool.uv.sources]\nlocal = [{ path = "../local", marker = "sys_platform == \'linux\'" }]\n'
    )
    got = read_requires("python", tmp_path / "py/app", tmp_path)
    assert got.name == "app"
    assert got.names == {"mono-lib"}  # `unused` is no dependency of app's
    assert got.paths == {(tmp_path / "third/vendored").resolve(), (tmp_path / "py/local").resolve()}


def test_an_unreadable_manifest_names_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert read_requires("go", tmp_path) == Requires()  # a go.work folder without go.mod: nothing, quietly
    assert read_requires("node", tmp_path) == Requires()
    assert not caplog.records
    (tmp_path / "package.json").write_text("{ not json")
    (tmp_path / "go.mod").write_text("module /* no */ x\n")
    assert read_requires("node", tmp_path) == Requires()
    assert read_requires("go", tmp_path) == Requires()
    assert read_requires("elm", tmp_path) == Requires()
    assert len(caplog.records) == 2  # the two that exist and do not read are logged


# --- the graph -------------------------------------------------------------------------------------------------


def graph_of(root: Path, edges: dict[str, Requires]) -> tuple[Discovery, list[frozenset[int]]]:
    everything = discover(root)
    return everything, reverse_graph(everything.found, lambda f: edges.get(everything.relative(f.root), Requires()))


def names(discovery: Discovery, indexes: set[int]) -> set[str]:
    return {discovery.relative(discovery.found[i].root) for i in indexes}


def test_reach_is_transitive_and_ends_on_cycles(tmp_path: Path) -> None:
    for name in ("a", "b", "c", "d", "lone"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Cargo.toml").write_text("")
    folder = {n: (tmp_path / n).resolve() for n in ("a", "b", "c", "d")}
    everything, graph = graph_of(
        tmp_path,
        {  # b -> a, c -> b, a -> c (a cycle), d -> c; lone depends on nothing and nothing on it
            "b": Requires(paths=frozenset({folder["a"]})),
            "c": Requires(paths=frozenset({folder["b"]})),
            "a": Requires(paths=frozenset({folder["c"], folder["a"]})),  # itself too: no edge
            "d": Requires(paths=frozenset({folder["c"]})),
        },
    )
    index = {everything.relative(f.root): i for i, f in enumerate(everything.found)}
    assert names(everything, set(graph[index["a"]])) == {"b"}
    assert names(everything, reach(graph, [index["a"]])) == {"a", "b", "c", "d"}
    assert names(everything, reach(graph, [index["d"]])) == set()
    assert names(everything, reach(graph, [index["lone"]])) == set()


def test_names_resolve_only_inside_a_workspace(tmp_path: Path) -> None:
    write_json(tmp_path / "ws/package.json", {"name": "ws", "workspaces": ["p/*"]})
    for name in ("lib", "app"):
        write_json(tmp_path / f"ws/p/{name}/package.json", {"name": name})
    for name in ("lib-copy", "outside"):
        write_json(tmp_path / name / "package.json", {"name": name})
    everything, graph = graph_of(
        tmp_path,
        {
            "ws/p/app": Requires("app", names=frozenset({"lib"})),
            "ws/p/lib": Requires("lib"),
            "lib-copy": Requires("lib"),  # the same name outside the workspace: no sibling of app's
            "outside": Requires("outside", names=frozenset({"lib"})),  # a registry package to npm
        },
    )
    index = {everything.relative(f.root): i for i, f in enumerate(everything.found)}
    assert names(everything, set(graph[index["ws/p/lib"]])) == {"ws/p/app"}
    assert graph[index["lib-copy"]] == frozenset()


# --- --changed-since on the fixtures, in git ---------------------------------------------------------------------


def test_pnpm_a_changed_library_selects_its_dependents_and_not_its_siblings(tmp_path: Path) -> None:
    root = repo_of("mono-pnpm", tmp_path)
    greet = json.loads((root / "packages/greet/package.json").read_text())
    write_json(root / "packages/greet/package.json", {**greet, "dependencies": {"@mono/count": "workspace:*"}})
    write_json(root / "packages/banner/package.json", {"name": "@mono/banner", "dependencies": {"@mono/greet": "1"}})
    write_json(root / "packages/clock/package.json", {"name": "@mono/clock"})
    commit_all(root, "one")
    (root / "packages/count/src/count.js").write_text("export const count = (xs) => xs.length;\n")
    commit_all(root, "two")
    assert selected(root) == (["packages/banner", "packages/count", "packages/greet"], 1, 2)
    (root / "packages/clock/index.js").write_text("export {};\n")  # untracked: clock is changed too
    assert selected(root) == (["packages/banner", "packages/clock", "packages/count", "packages/greet"], 2, 2)


def test_pnpm_a_dependency_cycle_ends(tmp_path: Path) -> None:
    root = repo_of("mono-pnpm", tmp_path)
    for name, other in (("count", "greet"), ("greet", "count")):
        data = json.loads((root / f"packages/{name}/package.json").read_text())
        write_json(root / f"packages/{name}/package.json", {**data, "dependencies": {f"@mono/{other}": "workspace:^"}})
    write_json(root / "packages/clock/package.json", {"name": "@mono/clock"})
    commit_all(root, "one")
    (root / "packages/greet/src/greet.js").write_text("export const greet = () => 'hi';\n")
    commit_all(root, "two")
    assert selected(root) == (["packages/count", "packages/greet"], 1, 1)


def test_gowork_a_required_module_selects_the_modules_requiring_it(tmp_path: Path) -> None:
    root = repo_of("mono-gowork", tmp_path)
    worker = (root / "worker/go.mod").read_text()
    (root / "worker/go.mod").write_text(worker + "\nrequire example.com/mono/api v0.0.0\n")
    (root / "cron").mkdir()
    (root / "cron/go.mod").write_text("module example.com/mono/cron\n\nrequire example.com/mono/worker v0.0.0\n")
    (root / "clock").mkdir()
    (root / "clock/go.mod").write_text("module example.com/mono/clock\n\ngo 1.25\n")
    (root / "go.work").write_text((root / "go.work").read_text().replace("\n)", "\n\t./cron\n\t./clock\n)"))
    members = [f.root.name for f in discover(root).found if f.member_of is not None]
    assert sorted(members) == ["api", "clock", "cron", "worker"]  # the go.work siblings (names resolve among them)
    commit_all(root, "one")
    (root / "api/route.go").write_text((root / "api/route.go").read_text() + "\n// changed\n")
    commit_all(root, "two")
    assert selected(root) == (["api", "cron", "worker"], 1, 2)
    (root / "go.work").write_text((root / "go.work").read_text() + "\n// the workspace file: every module\n")
    assert selected(root) == ([".", "api", "clock", "cron", "worker"], 5, 0)


def test_uv_a_changed_member_selects_the_root_depending_on_it_not_the_other_member(tmp_path: Path) -> None:
    root = repo_of("mono-uv", tmp_path)
    commit_all(root, "one")
    (root / "packages/core/src/core/__init__.py").write_text('"""core, changed."""\n')
    commit_all(root, "two")
    assert selected(root) == ([".", "packages/core"], 1, 1)  # the root's [tool.uv.sources] names mono-core


def test_cargo_path_dependencies_outside_the_workspace_and_root_changes(tmp_path: Path) -> None:
    root = repo_of("rust-workspace", tmp_path)
    (root / "tools/report").mkdir(parents=True)  # outside the workspace's members: a crate of its own
    (root / "tools/report/Cargo.toml").write_text(
        '[package]\nname = "report"\n[workspace]\n'
        '[dependencies]\napp = { path = "../..", package = "lintel-workspace-app" }\n'
    )
    (root / "tools/clock").mkdir()
    (root / "tools/clock/Cargo.toml").write_text('[package]\nname = "clock"\n[workspace]\n')
    commit_all(root, "one")
    (root / "impl/src/lib.rs").write_text((root / "impl/src/lib.rs").read_text() + "\n// changed\n")
    commit_all(root, "two")
    assert selected(root) == ([".", "impl", "tools/report"], 1, 2)  # impl <- the root package <- report
    (root / "Cargo.lock").write_text((root / "Cargo.lock").read_text() + "\n")
    assert selected(root, "HEAD") == ([".", "impl", "tools/report"], 2, 1)  # the root's file: its members too


def test_a_path_through_a_symlink_or_dots_reaches_its_project(tmp_path: Path) -> None:
    for name in ("real/lib", "app", "other"):
        (tmp_path / name).mkdir(parents=True)
        (tmp_path / name / "Cargo.toml").write_text(f'[package]\nname = "{name[-3:]}"\n')
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    (tmp_path / "app/Cargo.toml").write_text(
        '[package]\nname = "app"\n[dependencies]\nlib = { path = "../linked/lib" }\n'
    )
    (tmp_path / "other/Cargo.toml").write_text(
        '[package]\nname = "o"\n[dependencies]\nlib = { path = "../app/../real/lib" }\n'
    )
    everything = discover(tmp_path)
    graph = reverse_graph(everything.found)
    lib = next(i for i, f in enumerate(everything.found) if f.root.name == "lib")
    assert sorted(everything.found[i].root.name for i in graph[lib]) == ["app", "other"]
