"""A new user's first run of the extension in a real VS Code: a fresh user-data folder, no lintel settings, and the
extension host's PATH from a login shell, as VS Code sets it up (nothing of the test run's environment makes lintel
importable). The server is found in the project's .venv; when nothing is installed the user is told once; the
self-contained linux-x64 .vsix brings its own lintel."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import copy_workspace, lintel_json, require_tool, tool_path
from tests.vscode.conftest import OpenWindow
from tests.vscode.harness import BASE_SETTINGS, EXTENSION, CodeServer, Window, problem_rows, require_vscode

pytestmark = [pytest.mark.vscode, pytest.mark.timeout(900)]

PRICING = "src/inventory/pricing.py"
NOT_FOUND = "no lintel server could be started"
LINTEL_LOG = "lintel.lintel/Lintel.log"
# What the test run has and a user's machine would not: the worktree's lintel on PYTHONPATH, the dev venv.
NOT_A_USERS = ("PYTHONPATH", "VIRTUAL_ENV", "LINTEL_REQUIRE_TOOLS")

NewUser = Callable[..., CodeServer]


@pytest.fixture
def new_user(tmp_path: Path) -> Iterator[NewUser]:
    """Starts a code-server as a new user has it: the given .vsix installed, no lintel settings, PATH from a login
    shell."""
    started: list[CodeServer] = []

    def start(vsix: Path, machine: dict[str, Any] | None = None) -> CodeServer:
        root = tmp_path / f"code-server-{len(started)}"
        server = CodeServer(root, vsix, dict(BASE_SETTINGS), machine or {}, own_env=False)
        server.unset = NOT_A_USERS
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def self_contained_vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The linux-x64 .vsix that carries lintel and its dependencies, built by the release script (pip reaches PyPI)."""
    require_vscode()
    out = tmp_path_factory.mktemp("vsix-linux-x64")
    argv = [sys.executable, str(EXTENSION / "tools" / "package.py"), "--out", str(out), "--only", "linux-x64"]
    env = {**os.environ, "PATH": tool_path()}
    done = subprocess.run(argv, cwd=EXTENSION, env=env, capture_output=True, text=True, timeout=1500, check=False)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    (built,) = out.glob("lintel-linux-x64-*.vsix")
    return built


def ruff_rows(root: Path) -> list[tuple[str, str, int]]:
    code, report = lintel_json("check", str(root), "--only", "lint,format")
    assert code in (0, 1), report
    return sorted((i["source"], i.get("rule") or "", i["line"]) for i in report["issues"] if i.get("file") == PRICING)


def project_venv(root: Path) -> Path:
    """`.venv` in the project with lintel (this checkout's) and ruff, as `pip install lintel-lsp ruff` would leave
    it: a real venv whose site-packages point at the checkout and at the dev venv's packages."""
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    [site] = venv.glob("lib/python*/site-packages")
    server = Path(__file__).resolve().parents[2] / "server"
    (site / "lintel-checkout.pth").write_text(f"{server}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
    (venv / "bin" / "ruff").symlink_to(require_tool("ruff"))
    return venv


def find_pricing_rows(window: Window, expected: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    window.open_file(PRICING)
    return window.wait(
        f"the Problems rows of {PRICING} to be lintel check's {expected}",
        lambda: problem_rows(window.problems(), PRICING),
        lambda rows: rows == expected,
        timeout=120,
    )


def test_lintel_only_in_the_project_venv_is_found(
    open_window: OpenWindow, new_user: NewUser, vsix: Path, tmp_path: Path
) -> None:
    root = copy_workspace("python", tmp_path / "python")
    venv = project_venv(root)
    expected = ruff_rows(root)

    window = open_window(root, new_user(vsix))
    shown = find_pricing_rows(window, expected)

    window.screenshot("found-in-venv")
    assert shown == expected
    assert f".venv in {root}" in window.log_text(LINTEL_LOG)
    assert str(venv / "bin" / "python") in window.log_text(LINTEL_LOG)


def test_nothing_installed_says_so_once(open_window: OpenWindow, new_user: NewUser, vsix: Path, tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    window = open_window(root, new_user(vsix))

    window.wait(
        "the one notification that lintel was not found",
        window.notifications,
        lambda shown: any(NOT_FOUND in n["message"] for n in shown),
        timeout=120,
    )
    window.open_file(PRICING)  # more activation events and documents: nothing may start a search again
    window.wait(
        "the status bar to say the server is not running",
        window.status_items,
        lambda items: any(i["id"].endswith("lintel.status") and "not running" in i["label"] for i in items),
    )
    # A retry loop shows within seconds (vscode-languageclient restarts at once): watch for ten.
    time.sleep(10)
    window.driver.call("notificationCenter")
    shown = [n for n in window.notifications() if NOT_FOUND in n["message"]]
    window.screenshot("not-found")

    assert len(shown) == 1, shown
    assert {"Open Settings", "How to install"} <= set(shown[0]["buttons"])
    assert "project venv" in shown[0]["message"]
    # code-server's windows are remote: where lintel.server.path is read from is said with what was tried.
    assert "This is a remote window" in shown[0]["message"]
    assert window.log_text(LINTEL_LOG).count(NOT_FOUND) == 1
    host_log = window.log_text("remoteexthost.log")
    assert "Client is not running" not in host_log
    assert "startFailed" not in host_log


def test_the_self_contained_vsix_brings_its_own_lintel(
    open_window: OpenWindow, new_user: NewUser, self_contained_vsix: Path, tmp_path: Path
) -> None:
    root = copy_workspace("python", tmp_path / "python")
    expected = ruff_rows(root)

    window = open_window(root, new_user(self_contained_vsix))
    shown = find_pricing_rows(window, expected)

    window.screenshot("self-contained")
    assert shown == expected
    assert "via the bundled lintel" in window.log_text(LINTEL_LOG)


def test_the_server_path_in_the_remote_settings_is_used_on_the_first_launch(
    open_window: OpenWindow, new_user: NewUser, vsix: Path, tmp_path: Path
) -> None:
    """A fresh user-data folder whose Remote settings name the server. code-server's windows are remote: VS Code
    reads machine settings (`lintel.server.*`) from the Remote settings only. The same value in the User settings is
    there when the extension activates and gone a second later (6 runs in 6), which the extension follows: it says so
    (test_nothing_installed_says_so_once checks the note)."""
    root = copy_workspace("python", tmp_path / "python")
    expected = ruff_rows(root)
    lintel = Path(sys.executable).with_name("lintel")
    # PYTHONPATH is not passed to a user's code-server: a wrapper carries the checkout's lintel to the venv's.
    wrapper = tmp_path / "bin" / "lintel"
    wrapper.parent.mkdir()
    server_dir = Path(__file__).resolve().parents[2] / "server"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{server_dir}" exec "{lintel}" "$@"\n')
    wrapper.chmod(0o755)

    window = open_window(root, new_user(vsix, machine={"lintel.server.path": str(wrapper)}))
    shown = find_pricing_rows(window, expected)
    time.sleep(3)  # the settings that vanish do so within 3 s of activation: these must stay

    log = window.log_text(LINTEL_LOG)
    assert shown == expected
    assert "via lintel.server.path" in log
    assert log.count("looking for lintel") == 1, log
