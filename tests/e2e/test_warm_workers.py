"""Warm lint workers through a real editor session (`lintel serve`, pytest-lsp) with the fixture's real eslint:
the diagnostics a save publishes are the same with the worker as without; a worker killed mid-request leaves
that save to the CLI and is replaced on the next; a config change restarts it with the new rules; an idle worker
and every worker at the end of the session are gone — all checked on the worker's process by PID."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.conftest import Editor, RecordingClient, Start
from tests.e2e.test_lint_diagnostics import keys, lint_only, require_linter

FILE = "src/util.js"
SCRIPT = "eslint_worker.cjs"
NO_FORMAT_CHECK = {"editor": {"formatCheck": False}}  # prettier's run is another tool this file does not look at
GONE_TIMEOUT = 60.0  # generous: a busy machine; never an assertion on speed


@pytest.fixture
def client_name() -> str:
    """One client: what a worker does does not depend on the editor's capabilities."""
    return "neovim"


def worker_pids(root: Path) -> list[int]:
    """The running eslint workers of the project at `root`, found by their command line."""
    pids = []
    wanted = str(root.resolve()).encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{entry}/status").read_text(encoding="utf-8")
        except OSError:
            continue
        if "\nState:\tZ" in status:
            continue
        if any(arg.endswith(SCRIPT.encode()) for arg in argv) and wanted in argv:
            pids.append(int(entry))
    return pids


def running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    return "\nState:\tZ" not in status


async def wait_gone(pid: int, timeout: float = GONE_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while running(pid):
        assert time.monotonic() < deadline, f"worker pid {pid} still runs after {timeout:g}s"
        await asyncio.sleep(0.05)


def the_worker(root: Path) -> int:
    pids = worker_pids(root)
    assert len(pids) == 1, f"expected one eslint worker for {root}, found {pids}"
    return pids[0]


async def save_and_wait(editor: Editor, uri: str, text: str) -> list[types.Diagnostic]:
    """Save `text`; the diagnostics published for that save."""
    seen = len(editor.client.published)
    editor.save(uri, text)
    return await editor.wait_for_publish(uri, seen)


async def open_and_wait(editor: Editor, relative: str) -> tuple[str, list[types.Diagnostic]]:
    uri = editor.open(relative)
    published = await editor.wait_for_diagnostics(uri, lambda ds: bool(lint_only(ds)))
    return uri, published


def described(diagnostics: Sequence[types.Diagnostic]) -> list[tuple[object, ...]]:
    """Everything a diagnostic says, in a comparable form."""
    return sorted(
        (
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            d.severity,
            str(d.code),
            d.source,
            d.message,
            repr(sorted(d.data.items())) if isinstance(d.data, dict) else repr(d.data),
        )
        for d in diagnostics
    )


async def test_save_publishes_the_same_diagnostics_warm_and_cold(start: Start) -> None:
    require_linter("node")
    editor = await start("node", init_options=NO_FORMAT_CHECK)
    uri, _ = await open_and_wait(editor, FILE)
    text = editor.path(FILE).read_text(encoding="utf-8")

    warm = await save_and_wait(editor, uri, text)
    pid = the_worker(editor.root)

    # Off (the client's settings win over initializationOptions): the CLI lints. The worker is killed first, so
    # a lint that went to a worker would have had to start a new one.
    cold_settings = {"editor": {"warmWorkers": False, "formatCheck": False}}
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams({"lintel": cold_settings}))
    os.kill(pid, signal.SIGKILL)
    await wait_gone(pid)
    cold = await save_and_wait(editor, uri, text)

    assert worker_pids(editor.root) == []
    assert lint_only(warm), "the fixture file has eslint findings"
    assert described(warm) == described(cold)


HOLD_RULE = """
import fs from "node:fs";

// A fault hook for lintel's tests: in the warm worker only (never in the CLI), a file with the comment
// `lintel: hold` is held once: the rule writes its pid to MARKER and spins, so the test can kill it mid-request.
const hold = {
  meta: { type: "problem", schema: [] },
  create(context) {
    return {
      Program() {
        const inWorker = (process.argv[1] || "").endsWith("eslint_worker.cjs");
        if (inWorker && context.sourceCode.text.includes("lintel: hold") && !fs.existsSync(MARKER)) {
          fs.writeFileSync(MARKER, String(process.pid));
          const end = Date.now() + 300000;
          while (Date.now() < end) {}
        }
      },
    };
  },
};
"""


def add_hold_rule(root: Path, marker: Path) -> None:
    config = root / "eslint.config.js"
    text = config.read_text(encoding="utf-8")
    rule = HOLD_RULE.replace("MARKER", repr(str(marker)))
    hooked = text.replace(
        "export default [",
        'export default [\n  { files: ["**/*.js"], plugins: { lintel: { rules: { hold } } }, '
        'rules: { "lintel/hold": "error" } },',
    )
    config.write_text(rule + hooked, encoding="utf-8")


async def test_a_worker_killed_mid_request_leaves_the_save_to_the_cli_and_is_replaced(
    start: Start, tmp_path: Path
) -> None:
    require_linter("node")
    marker = tmp_path / "held-by"
    editor = await start("node", init_options=NO_FORMAT_CHECK)
    add_hold_rule(editor.root, marker)
    uri, opened = await open_and_wait(editor, FILE)
    first = the_worker(editor.root)

    text = editor.path(FILE).read_text(encoding="utf-8")
    seen = len(editor.client.published)
    editor.save(uri, text + "// lintel: hold\n")
    deadline = time.monotonic() + GONE_TIMEOUT
    while not marker.exists():
        assert time.monotonic() < deadline, "the worker never started on the held file"
        await asyncio.sleep(0.05)
    assert int(marker.read_text(encoding="utf-8")) == first  # held in the worker, mid-request
    os.kill(first, signal.SIGKILL)

    fallback = await editor.wait_for_publish(uri, seen)
    assert keys(lint_only(fallback)) == keys(lint_only(opened))  # the CLI's findings, nothing lost
    failure = await editor.wait_for_message("warm eslint worker")
    assert "CLI" in failure
    await wait_gone(first)

    again = await save_and_wait(editor, uri, text)
    assert keys(lint_only(again)) == keys(lint_only(opened))
    second = the_worker(editor.root)
    assert second != first


async def test_a_config_change_restarts_the_worker_with_the_new_rules(start: Start) -> None:
    require_linter("node")
    editor = await start("node", init_options=NO_FORMAT_CHECK)
    uri, opened = await open_and_wait(editor, FILE)
    assert "id-length" not in {d.code for d in opened}
    first = the_worker(editor.root)

    config = editor.path("eslint.config.js")
    rules = '"no-console": "warn",'
    stricter = config.read_text(encoding="utf-8").replace(rules, f'{rules}\n  "id-length": "error",')
    config.write_text(stricter, encoding="utf-8")
    text = editor.path(FILE).read_text(encoding="utf-8")
    published = await save_and_wait(editor, uri, text)

    assert "id-length" in {d.code for d in published}
    second = the_worker(editor.root)
    assert second != first
    await wait_gone(first)


async def test_an_idle_worker_is_stopped(start: Start) -> None:
    require_linter("node")
    editor = await start("node", init_options={"editor": {"formatCheck": False, "workerIdleSeconds": 1}})
    await open_and_wait(editor, FILE)
    pid = the_worker(editor.root)
    await wait_gone(pid)
    assert worker_pids(editor.root) == []


async def test_no_worker_is_left_after_shutdown(start: Start, lsp: RecordingClient) -> None:
    require_linter("node")
    editor = await start("node", init_options=NO_FORMAT_CHECK)
    await open_and_wait(editor, FILE)
    pid = the_worker(editor.root)
    await asyncio.wait_for(lsp.shutdown_async(None), 60)
    assert not running(pid)  # stopped (and reaped) before shutdown was answered
    lsp.exit(None)
    server = lsp._server
    assert server is not None
    assert await asyncio.wait_for(server.wait(), 30) == 0


async def test_no_worker_is_left_when_the_server_is_terminated(start: Start, lsp: RecordingClient) -> None:
    """SIGTERM (an editor that quits without shutdown): the worker goes with lintel."""
    require_linter("node")
    editor = await start("node", init_options=NO_FORMAT_CHECK)
    await open_and_wait(editor, FILE)
    pid = the_worker(editor.root)
    server = lsp._server
    assert server is not None
    server.send_signal(signal.SIGTERM)
    await asyncio.wait_for(server.wait(), 60)
    await wait_gone(pid)


# -- ruff's worker (`ruff server`) --------------------------------------------------------------------------------

PY_FILE = "src/inventory/pricing.py"


def ruff_servers(root: Path) -> list[int]:
    """The running `ruff server` workers of the project at `root` (their working directory)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            cwd = Path(os.readlink(f"/proc/{entry}/cwd"))
        except OSError:
            continue
        ours = len(argv) > 1 and argv[0].endswith(b"ruff") and argv[1] == b"server" and cwd == root.resolve()
        if ours and running(int(entry)):
            pids.append(int(entry))
    return pids


def the_ruff_server(root: Path) -> int:
    pids = ruff_servers(root)
    assert len(pids) == 1, f"expected one ruff server for {root}, found {pids}"
    return pids[0]


async def test_python_saves_publish_the_same_diagnostics_warm_and_cold(start: Start) -> None:
    """ruff's warm worker publishes exactly what the ruff CLI run does (rule, range, message, data)."""
    require_linter("python")
    editor = await start("python", init_options=NO_FORMAT_CHECK)
    uri, _ = await open_and_wait(editor, PY_FILE)
    text = editor.path(PY_FILE).read_text(encoding="utf-8")
    warm = await save_and_wait(editor, uri, text)
    pid = the_ruff_server(editor.root)

    cold_settings = {"editor": {"warmWorkers": False, "formatCheck": False}}
    editor.client.workspace_did_change_configuration(types.DidChangeConfigurationParams({"lintel": cold_settings}))
    os.kill(pid, signal.SIGKILL)
    await wait_gone(pid)
    cold = await save_and_wait(editor, uri, text)

    assert ruff_servers(editor.root) == []
    assert lint_only(warm), "the fixture file has ruff findings"
    assert described(warm) == described(cold)


async def test_a_killed_ruff_worker_leaves_no_save_without_diagnostics_and_is_replaced(start: Start) -> None:
    require_linter("python")
    editor = await start("python", init_options=NO_FORMAT_CHECK)
    uri, opened = await open_and_wait(editor, PY_FILE)
    first = the_ruff_server(editor.root)
    os.kill(first, signal.SIGKILL)
    await wait_gone(first)
    text = editor.path(PY_FILE).read_text(encoding="utf-8")

    after = await save_and_wait(editor, uri, text)

    assert keys(lint_only(after)) == keys(lint_only(opened))
    again = await save_and_wait(editor, uri, text)
    assert keys(lint_only(again)) == keys(lint_only(opened))
    second = the_ruff_server(editor.root)
    assert second != first


async def test_a_ruff_config_change_restarts_its_worker_with_the_new_rules(start: Start) -> None:
    require_linter("python")
    editor = await start("python", init_options=NO_FORMAT_CHECK)
    uri, opened = await open_and_wait(editor, PY_FILE)
    assert not any(str(d.code).startswith("D1") for d in opened)
    first = the_ruff_server(editor.root)

    pyproject = editor.path("pyproject.toml")
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('select = ["E", "F", "B"]', 'select = ["E", "F", "B", "D1"]'),
        encoding="utf-8",
    )
    published = await save_and_wait(editor, uri, editor.path(PY_FILE).read_text(encoding="utf-8"))

    assert any(str(d.code).startswith("D1") for d in published)
    second = the_ruff_server(editor.root)
    assert second != first
    await wait_gone(first)


# -- linting ahead: the change starts the lint, the save of that text takes it ----------------------------------------

# Passes `ruff server`'s input through `tee`, so the test can count the requests lintel sent it; any other ruff
# command (the CLI) runs as it is.
RUFF_TAP = """#!/bin/sh
if [ "$1" = server ]; then
  tee -a {log} | {ruff} "$@" | tee -a {out}
  exit $?
fi
exec {ruff} "$@"
"""


def tapped_ruff(tmp_path: Path) -> tuple[Path, Path]:
    """A ruff whose server's input is logged, and its output next to it (`answers`): (the program, its log)."""
    real = shutil.which("ruff")
    assert real is not None
    log = tmp_path / "ruff-server-input.log"
    log.touch()
    out = _output_log(log)
    program = tmp_path / "bin" / "ruff"
    program.parent.mkdir()
    tap = RUFF_TAP.format(log=shlex.quote(str(log)), ruff=shlex.quote(real), out=shlex.quote(str(out)))
    program.write_text(tap, encoding="utf-8")
    program.chmod(0o755)
    return program, log


def _output_log(log: Path) -> Path:
    return log.with_name("ruff-server-output.log")


def requests_sent(log: Path) -> int:
    return log.read_text(encoding="utf-8", errors="replace").count('"textDocument/diagnostic"')


def answers(log: Path) -> int:
    """The lint requests the tapped ruff server has answered (its reports, written to lintel)."""
    out = _output_log(log)
    text = out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""
    return text.count('"kind":"full"') + text.count('"kind":"unchanged"')


async def wait_answers(log: Path, count: int) -> None:
    deadline = time.monotonic() + GONE_TIMEOUT
    while answers(log) < count:
        assert time.monotonic() < deadline, f"ruff server answered {answers(log)} lint requests, not {count}"
        await asyncio.sleep(0.02)


async def wait_requests(log: Path, count: int) -> None:
    deadline = time.monotonic() + GONE_TIMEOUT
    while requests_sent(log) < count:
        assert time.monotonic() < deadline, f"ruff server got {requests_sent(log)} lint requests, not {count}"
        await asyncio.sleep(0.02)


def cli_findings(root: Path, relative: str) -> set[tuple[object, ...]]:
    """(rule, line) of the ruff CLI's findings on the file as it is on disk (its columns count characters, the
    client's UTF-16 units: other tests check the columns)."""
    argv = ["ruff", "check", "--output-format", "json", "--no-cache", relative]
    run = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=False, timeout=60)
    return {(f["code"], f["location"]["row"] - 1) for f in json.loads(run.stdout)}


def ruff_findings(diagnostics: Sequence[types.Diagnostic]) -> set[tuple[object, ...]]:
    return {(d.code, d.range.start.line) for d in lint_only(diagnostics)}


async def test_a_save_takes_the_lint_its_change_started_only_for_that_text(start: Start, tmp_path: Path) -> None:
    """The change's text goes to the worker at once and nothing is published for it; the save of that
    text publishes its answer without asking again; a save of other content (written by something else) is
    linted itself. Each time, exactly the CLI's findings on the saved file."""
    require_linter("python")
    program, log = tapped_ruff(tmp_path)
    settings = {**NO_FORMAT_CHECK, "languages": {"python": {"binaries": {"ruff": str(program)}}}}
    editor = await start("python", init_options=settings)
    uri, opened = await open_and_wait(editor, PY_FILE)
    await wait_requests(log, 1)
    original = editor.path(PY_FILE).read_text(encoding="utf-8")
    with_import = "import os\n" + original

    published = len(editor.client.published)
    editor.change(uri, with_import)
    await wait_requests(log, 2)  # linted ahead...
    await wait_answers(log, 2)  # ...answered, and a later request answered by lintel...
    await editor.alive()
    assert [p for p in editor.client.published[published:] if p.uri == uri] == []  # ...and not published
    editor.path(PY_FILE).write_text(with_import, encoding="utf-8")
    saved = len(editor.client.published)
    editor.did_save(uri)
    after_save = ruff_findings(await editor.wait_for_publish(uri, saved))
    await editor.alive()  # a round trip: whatever the answer published has reached the client
    # ...and not published: since the change, the save's is the file's only publish.
    assert len([p for p in editor.client.published[published:] if p.uri == uri]) == 1

    assert ("F401", 0) in after_save
    assert after_save == cli_findings(editor.root, PY_FILE)
    assert requests_sent(log) == 2  # the save asked nothing more

    # The buffer changes again, but the file is written by something else with other content: that is linted.
    editor.change(uri, "import sys\n" + original)
    await wait_requests(log, 3)
    editor.path(PY_FILE).write_text(original, encoding="utf-8")
    saved = len(editor.client.published)
    editor.did_save(uri)
    other = ruff_findings(await editor.wait_for_publish(uri, saved))

    assert other == ruff_findings(opened) == cli_findings(editor.root, PY_FILE)
    assert requests_sent(log) == 4


async def test_a_config_change_after_the_lint_ahead_is_the_saves_config(start: Start, tmp_path: Path) -> None:
    """The lint ahead ran with the old rules; ruff's configuration changes before the save: the save's findings
    are the new rules' (the worker restarts), never the lint ahead's."""
    require_linter("python")
    program, log = tapped_ruff(tmp_path)
    settings = {**NO_FORMAT_CHECK, "languages": {"python": {"binaries": {"ruff": str(program)}}}}
    editor = await start("python", init_options=settings)
    uri, opened = await open_and_wait(editor, PY_FILE)
    await wait_answers(log, 1)
    first = the_ruff_server(editor.root)
    text = editor.path(PY_FILE).read_text(encoding="utf-8") + "\n"
    editor.change(uri, text)
    await wait_answers(log, 2)  # the lint ahead is answered

    pyproject = editor.path("pyproject.toml")
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('select = ["E", "F", "B"]', 'select = ["E", "F", "B", "D1"]'),
        encoding="utf-8",
    )
    published = await save_and_wait(editor, uri, text)

    assert not any(str(d.code).startswith("D1") for d in opened)
    assert any(str(d.code).startswith("D1") for d in published)
    assert ruff_findings(published) == cli_findings(editor.root, PY_FILE)
    assert the_ruff_server(editor.root) != first


async def test_saves_on_a_warm_worker_are_not_debounced(start: Start) -> None:
    """A lint on a warm worker is a request, not a process: saves in quick succession are each linted, where the
    CLI's runs would wait `saveDebounceMs` (here 10 s) from the third save in that window on. That they wait no
    debounce at all is checked on the scheduler's fake clock (tests/unit/test_save_debounce.py); here, that each
    save's own findings are published, as the CLI's."""
    require_linter("python")
    editor = await start("python", init_options={**NO_FORMAT_CHECK, "editor": {"saveDebounceMs": 10_000}})
    uri, _ = await open_and_wait(editor, PY_FILE)
    original = editor.path(PY_FILE).read_text(encoding="utf-8")
    for i in range(6):
        editor.save(uri, f"{original}\nvalue_{i} = undefined_{i}\n")
        name = f"undefined_{i}"
        await editor.wait_for_diagnostics(uri, lambda ds: any(name in d.message for d in ds))  # noqa: B023
    assert ruff_findings(editor.diagnostics(uri, "ruff")) == cli_findings(editor.root, PY_FILE)
