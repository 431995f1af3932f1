"""Which server, rooted where, started how: the ecosystems' root rules and binary resolution."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lintel.engine.servers import resolve_command, server_root
from lintel.languages import LANGUAGES
from lintel.languages.go.tools import GOPLS_VERSION


def touch(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_go_work_above_go_mod_is_the_root(tmp_path: Path) -> None:
    touch(tmp_path / "go.work")
    file = touch(tmp_path / "svc" / "api" / "main.go")
    touch(tmp_path / "svc" / "go.mod")
    assert server_root(LANGUAGES["go"], file, tmp_path) == tmp_path
    (tmp_path / "go.work").unlink()
    assert server_root(LANGUAGES["go"], file, tmp_path) == tmp_path / "svc"


def test_the_cargo_workspace_root_owns_its_crates(tmp_path: Path) -> None:
    touch(tmp_path / "Cargo.toml", '[workspace]\nmembers = ["crates/*"]\n')
    touch(tmp_path / "crates" / "one" / "Cargo.toml", '[package]\nname = "one"\n')
    file = touch(tmp_path / "crates" / "one" / "src" / "lib.rs")
    assert server_root(LANGUAGES["rust"], file, tmp_path) == tmp_path
    touch(tmp_path / "Cargo.toml", '[package]\nname = "top"\n')  # no [workspace]: the crate is its own root
    assert server_root(LANGUAGES["rust"], file, tmp_path) == tmp_path / "crates" / "one"


def test_node_and_python_take_the_nearest_marker(tmp_path: Path) -> None:
    touch(tmp_path / "go.mod")
    touch(tmp_path / "web" / "package.json", "{}")
    touch(tmp_path / "web" / "app" / "tsconfig.json", "{}")
    assert (
        server_root(LANGUAGES["node"], touch(tmp_path / "web" / "app" / "src" / "a.ts"), tmp_path)
        == tmp_path / "web" / "app"
    )
    assert server_root(LANGUAGES["node"], touch(tmp_path / "web" / "b.js"), tmp_path) == tmp_path / "web"
    touch(tmp_path / "tools" / "pyproject.toml")
    assert server_root(LANGUAGES["python"], touch(tmp_path / "tools" / "pkg" / "m.py"), tmp_path) == tmp_path / "tools"


def test_without_a_marker_the_workspace_folder_is_the_root(tmp_path: Path) -> None:
    assert server_root(LANGUAGES["python"], touch(tmp_path / "loose" / "x.py"), tmp_path) == tmp_path
    outside = touch(tmp_path.parent / f"{tmp_path.name}-outside" / "y.py")
    assert server_root(LANGUAGES["python"], outside, tmp_path) == tmp_path.resolve()


def test_python_prefers_basedpyright_then_pyright(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / ".venv" / "bin"
    for name in ("pyright-langserver", "basedpyright-langserver"):
        touch(bin_dir / name, "#!/bin/sh\n").chmod(0o755)
    command = resolve_command(LANGUAGES["python"], project_root=tmp_path, workspace_root=tmp_path)
    assert command.argv == (str(bin_dir / "basedpyright-langserver"), "--stdio")
    (bin_dir / "basedpyright-langserver").unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-venv" / "python"))
    command = resolve_command(LANGUAGES["python"], project_root=tmp_path, workspace_root=tmp_path)
    assert command.argv == (str(bin_dir / "pyright-langserver"), "--stdio")


@pytest.mark.parametrize("bin_dir", [".venv/bin", "node_modules/.bin"])
def test_the_projects_own_pyright_wins_over_basedpyright_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bin_dir: str
) -> None:
    """lintel's environment ships basedpyright (on PATH); a project whose venv (or node_modules) has pyright gets
    its own pyright for navigation."""
    elsewhere = tmp_path / "lintel-env" / "bin"
    touch(elsewhere / "basedpyright-langserver", "#!/bin/sh\n").chmod(0o755)
    monkeypatch.setenv("PATH", str(elsewhere))
    project = tmp_path / "project"
    own = touch(project / bin_dir / "pyright-langserver", "#!/bin/sh\n")
    own.chmod(0o755)
    command = resolve_command(LANGUAGES["python"], project_root=project, workspace_root=project)
    assert command.argv == (str(own), "--stdio")
    own.unlink()
    command = resolve_command(LANGUAGES["python"], project_root=project, workspace_root=project)
    assert command.argv == (str(elsewhere / "basedpyright-langserver"), "--stdio")


def test_the_projects_own_typescript_language_server_wins_over_a_global_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "global" / "bin"
    touch(elsewhere / "typescript-language-server", "#!/bin/sh\n").chmod(0o755)
    monkeypatch.setenv("PATH", str(elsewhere))
    web = tmp_path / "repo" / "web"
    touch(tmp_path / "repo" / ".git" / "HEAD")
    hoisted = touch(tmp_path / "repo" / "node_modules" / ".bin" / "typescript-language-server", "#!/bin/sh\n")
    hoisted.chmod(0o755)
    command = resolve_command(LANGUAGES["node"], project_root=web, workspace_root=tmp_path / "repo")
    assert command.argv == (str(hoisted), "--stdio")


def test_a_configured_argv_wins_and_a_missing_binary_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr("sys.executable", str(tmp_path / "no-venv" / "python"))
    missing = resolve_command(LANGUAGES["go"], project_root=tmp_path, workspace_root=tmp_path)
    assert missing.argv is None
    assert missing.missing_message == (
        "navigation: gopls: not found on PATH — install it with: go install golang.org/x/tools/gopls@" + GOPLS_VERSION
    )
    own = touch(tmp_path / "bin" / "my-gopls", "#!/bin/sh\n")
    own.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    command = resolve_command(
        LANGUAGES["go"], project_root=tmp_path, workspace_root=tmp_path, override=["my-gopls", "-remote=auto"]
    )
    assert command.argv == (str(own), "-remote=auto")
    assert os.access(command.argv[0], os.X_OK)
