"""One code-server and one browser per test session, a fresh VS Code window (and folder copy) per test.

Screenshots and each window's extension host logs go to `<pytest basetemp>/vscode-artifacts/<test>/` (CI: run pytest
with `--basetemp` and keep that folder).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.vscode.harness import BASE_SETTINGS, CodeServer, Driver, Window, package_vsix, require_vscode, slug

# The venv's lintel, as a user who set `lintel.server.path` has it (in the Remote settings: code-server's windows are
# remote); PYTHONPATH (a worktree's server/) carries through code-server and its extension host to it.
LINTEL = Path(sys.executable).with_name("lintel")
SESSION_MACHINE_SETTINGS = {"lintel.server.path": str(LINTEL)}

SESSION_SETTINGS = {
    **BASE_SETTINGS,
    # Only lintel's own checks in the Problems view: the rows are compared with `lintel check`.
    "lintel.editor.forwardServerDiagnostics": False,
}

OpenWindow = Callable[..., Window]


@pytest.fixture(scope="session")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_vscode()
    return package_vsix(tmp_path_factory.mktemp("vsix"))


@pytest.fixture(scope="session")
def code_server(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CodeServer]:
    server = CodeServer(
        tmp_path_factory.mktemp("code-server"), vsix, dict(SESSION_SETTINGS), dict(SESSION_MACHINE_SETTINGS)
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def driver(vsix: Path) -> Iterator[Driver]:
    browser = Driver()
    yield browser
    browser.close()


@pytest.fixture
def artifacts(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.getbasetemp() / "vscode-artifacts" / slug(request.node.name)


@pytest.fixture
def open_window(driver: Driver, artifacts: Path, request: pytest.FixtureRequest) -> Iterator[OpenWindow]:
    """Opens a VS Code window on a folder (in the session's code-server, started then, unless another is given); it
    is closed, with a last screenshot and its logs saved, at the end of the test."""
    opened: list[Window] = []

    def open_(folder: Path, server: CodeServer | None = None) -> Window:
        server = server or request.getfixturevalue("code_server")
        window = Window(driver, server, folder, artifacts).open()
        opened.append(window)
        return window

    yield open_
    for window in opened:
        window.close()
