from __future__ import annotations

import json
from pathlib import Path

import pytest
from lintel.engine.detect import DetectionError, choose_project, detect, is_inside, nearest_project, select_projects
from lintel.languages.node.tools import node_package_manager

from tests.helpers import WORKSPACES


def make(tmp_path: Path, *files: str, content: str = "") -> Path:
    for name in files:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content or ("{}" if name.endswith(".json") else ""))
    return tmp_path


@pytest.mark.parametrize(
    ("marker", "language"),
    [
        ("go.mod", "go"),
        ("Cargo.toml", "rust"),
        ("package.json", "node"),
        ("pyproject.toml", "python"),
        ("setup.py", "python"),
    ],
)
def test_each_marker(tmp_path: Path, marker: str, language: str) -> None:
    projects = detect(make(tmp_path, marker))
    assert [p.language for p in projects] == [language]
    assert projects[0].markers == (marker,)
    assert choose_project(projects).language == language


def test_every_marker_detected_in_default_order(tmp_path: Path) -> None:
    make(tmp_path, "setup.py", "package.json", "Cargo.toml", "go.mod", "pyproject.toml")
    projects = detect(tmp_path)
    assert [p.language for p in projects] == ["go", "rust", "node", "python"]
    assert projects[3].markers == ("pyproject.toml", "setup.py")


def test_only_root_markers_count(tmp_path: Path) -> None:
    make(tmp_path, "web/package.json", "svc/go.mod")
    assert detect(tmp_path) == []


def test_polyglot_needs_language(tmp_path: Path) -> None:
    projects = detect(make(tmp_path, "go.mod", "package.json"))
    with pytest.raises(DetectionError) as err:
        choose_project(projects)
    assert str(err.value) == ("polyglot workspace: 2 project types detected (go, node) — pass `language` to pick one")


def test_language_not_detected(tmp_path: Path) -> None:
    projects = detect(make(tmp_path, "go.mod", "package.json"))
    with pytest.raises(DetectionError) as err:
        choose_project(projects, "Rust")
    assert str(err.value) == 'language "rust" not detected in workspace; detected: go, node'


def test_nothing_detected() -> None:
    with pytest.raises(DetectionError) as err:
        choose_project(detect(WORKSPACES / "no-markers"))
    assert str(err.value) == (
        "no supported project detected in workspace root (found markers: none) — lintel supports go, rust, node, python"
    )
    with pytest.raises(DetectionError):
        select_projects([], None)


def test_language_is_case_insensitive_and_trimmed(tmp_path: Path) -> None:
    projects = detect(make(tmp_path, "go.mod", "package.json"))
    assert choose_project(projects, "  NODE ").language == "node"
    assert [p.language for p in select_projects(projects, " Go")] == ["go"]
    assert [p.language for p in select_projects(projects, None)] == ["go", "node"]
    assert [p.language for p in select_projects(projects, "  ")] == ["go", "node"]


@pytest.mark.parametrize(
    ("locks", "manager"),
    [
        ((), "npm"),
        (("package-lock.json",), "npm"),
        (("yarn.lock",), "yarn"),
        (("pnpm-lock.yaml",), "pnpm"),
        (("bun.lockb",), "bun"),
        (("bun.lock",), "bun"),
        (("yarn.lock", "pnpm-lock.yaml", "package-lock.json"), "pnpm"),
        (("yarn.lock", "package-lock.json"), "yarn"),
    ],
)
def test_package_manager_from_lock_file(tmp_path: Path, locks: tuple[str, ...], manager: str) -> None:
    make(tmp_path, "package.json", *locks)
    assert node_package_manager(tmp_path) == manager
    assert detect(tmp_path)[0].package_manager == manager


def test_package_scripts(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"lint": "eslint .", "test": "jest", "weird": 3}}))
    project = detect(tmp_path)[0]
    assert dict(project.scripts) == {"lint": "eslint .", "test": "jest"}


def test_unreadable_package_json_is_a_problem_not_a_project_without_scripts(tmp_path: Path) -> None:
    """It was read as "no scripts", and each check ran as if package.json were empty."""
    (tmp_path / "package.json").write_text('{"scripts": {"test": "jest",}}')
    project = detect(tmp_path)[0]
    assert project.language == "node"
    assert dict(project.scripts) == {}
    assert project.problem == (
        f"cannot read {tmp_path / 'package.json'}: Expecting property name enclosed in double quotes: "
        "line 1 column 29 (char 28)"
    )
    (tmp_path / "package.json").write_text("[]")
    not_object = f"cannot read {tmp_path / 'package.json'}: a JSON object was expected, not list"
    assert detect(tmp_path)[0].problem == not_object
    (tmp_path / "package.json").write_text("{}")
    assert detect(tmp_path)[0].problem is None


def test_nearest_project_inside_workspace(tmp_path: Path) -> None:
    make(tmp_path, "go.mod", "main.go", "web/package.json", "web/src/app.ts", "tools/x.py")
    web = nearest_project(tmp_path / "web/src/app.ts", tmp_path)
    assert web is not None
    assert (web.language, web.root) == ("node", (tmp_path / "web").resolve())
    go = nearest_project(tmp_path / "main.go", tmp_path)
    assert go is not None
    assert go.root == tmp_path.resolve()
    assert nearest_project(tmp_path / "tools/x.py", tmp_path) is None  # no python marker up to the root


def test_nearest_project_refuses_outside_and_symlinks_out(tmp_path: Path) -> None:
    inside = make(tmp_path / "ws", "go.mod")
    outside = make(tmp_path / "other", "go.mod", "x.go")
    assert nearest_project(outside / "x.go", inside) is None
    (inside / "link").symlink_to(outside, target_is_directory=True)
    assert not is_inside(inside / "link" / "x.go", inside)
    assert nearest_project(inside / "link" / "x.go", inside) is None
