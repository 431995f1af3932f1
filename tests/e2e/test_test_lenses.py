"""Tests in the editor through a real client: "▶ Run test" lenses above a python fixture's tests, one lens's command
running exactly its test, the failure shown as a `lintel-test` diagnostic at the assertion line pointing back to the
test, cleared once the test is fixed and rerun (the lens then says it passed); real gopls's run-test lenses give way
to lintel's; cancelling a run kills the runner."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.conftest import Editor, Start
from tests.e2e.test_faults import REQUEST_CANCELLED, assert_gone, wait_for_pids
from tests.helpers import require_tool

T = TypeVar("T")
MODELS = "tests/test_models.py"
FAILING = "tests/test_models.py::test_total_value_counts_quantity"
PASSING = "tests/test_models.py::test_restock_adds_units"
TIMEOUT = 120.0


async def lenses(editor: Editor, uri: str) -> list[types.CodeLens]:
    params = types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    found = await asyncio.wait_for(editor.client.text_document_code_lens_async(params), 60)
    return list(found or [])


async def until(ask: Callable[[], Awaitable[T]], ready: Callable[[T], bool], what: str) -> T:
    deadline = time.monotonic() + TIMEOUT
    while True:
        answer = await ask()
        if ready(answer):
            return answer
        assert time.monotonic() < deadline, f"{what} never came; last: {answer!r}"
        await asyncio.sleep(0.25)


def titled(found: Sequence[types.CodeLens], line: int) -> list[str]:
    return [lens.command.title for lens in found if lens.command is not None and lens.range.start.line == line]


def _asked(command: types.Command) -> Any:
    """The `tests` a lens's lintel.runTests names."""
    first = command.arguments[0] if command.arguments else None
    return first.get("tests") if isinstance(first, dict) else None


def run_lens(found: Sequence[types.CodeLens], test_id: str) -> types.Command:
    [command] = [
        lens.command
        for lens in found
        if lens.command is not None and lens.command.title == "▶ Run test" and _asked(lens.command) == [test_id]
    ]
    return command


def line_of(path: Path, contains: str) -> int:
    """0-based line of the first line holding `contains`."""
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if contains in line)


def failures_shown(editor: Editor, uri: str) -> list[types.Diagnostic]:
    return editor.diagnostics(uri, source="lintel-test")


def refreshes_lenses(editor: Editor) -> bool:
    """Whether the client says it takes workspace/codeLens/refresh (pytest-lsp's VS Code does, its Neovim not)."""
    workspace = editor.client.capabilities.workspace if editor.client.capabilities is not None else None
    return bool(workspace is not None and workspace.code_lens is not None and workspace.code_lens.refresh_support)


async def test_a_lens_runs_its_test_and_shows_the_outcome(start: Start) -> None:
    require_tool("pytest")
    editor = await start("python")
    uri = editor.open(MODELS)
    path = editor.path(MODELS)
    failing_line = line_of(path, "def test_total_value_counts_quantity")
    assertion_line = line_of(path, "assert total_value(items)")

    found = await until(lambda: lenses(editor, uri), lambda ls: len(ls) >= 3, "lintel's test lenses")
    first_test = line_of(path, "def test_restock_adds_units")
    assert titled(found, first_test) == ["▶ Run file", "▶ Run test"]
    assert titled(found, failing_line) == ["▶ Run test"]
    [run_file] = [lens.command for lens in found if lens.command is not None and lens.command.title == "▶ Run file"]
    assert run_file.command == "lintel.runTests"
    assert list(run_file.arguments or ()) == [{"path": MODELS}]
    await until(
        lambda: asyncio.sleep(0, editor.client.tests_changed),
        lambda told: any(t.uri == uri for t in told),
        "lintel/testsChanged",
    )
    [told] = [t for t in editor.client.tests_changed if t.uri == uri]
    assert {FAILING, PASSING} <= {t.id for t in told.tests}

    command = run_lens(found, FAILING)
    refreshes = editor.client.code_lens_refreshes
    result = await editor.execute(command.command, *(command.arguments or []))

    # Exactly that test ran: one failure, nothing passed.
    assert [f["name"] for f in result["failures"]] == [FAILING]
    assert re.search(r"\b1 failed\b", result["output"]), result["output"]
    assert not re.search(r"\b\d+ passed\b", result["output"]), result["output"]
    [shown] = await editor.wait_for_diagnostics(uri, lambda ds: bool(failures_shown(editor, uri)))
    assert (shown.source, shown.code, shown.range.start.line) == ("lintel-test", "pytest", assertion_line)
    [related] = shown.related_information or []
    assert (related.location.uri, related.location.range.start.line) == (uri, failing_line)
    assert (editor.client.code_lens_refreshes > refreshes) == refreshes_lenses(editor)
    after = await lenses(editor, uri)
    assert titled(after, failing_line)[0] == "▶ Run test"
    assert titled(after, failing_line)[1].startswith("✗ failed: AssertionError")
    assert titled(after, first_test) == ["▶ Run file", "▶ Run test"]  # not run: no outcome

    # Fixed on disk, rerun by its lens: the diagnostic goes, the lens says it passed.
    text = path.read_text(encoding="utf-8")
    editor.save(uri, text.replace("expected = 2.5", "expected = 0.75"))
    rerun = await editor.execute(command.command, *(command.arguments or []))
    assert rerun["ok"] is True
    assert re.search(r"\b1 passed\b", rerun["output"]), rerun["output"]
    await editor.wait_for_diagnostics(uri, lambda ds: not failures_shown(editor, uri))
    fixed = await lenses(editor, uri)
    assert re.fullmatch(r"✓ passed \(\d+ ms\)", titled(fixed, failing_line)[1]), titled(fixed, failing_line)


async def test_run_file_marks_every_test(start: Start) -> None:
    require_tool("pytest")
    editor = await start("python")
    uri = editor.open(MODELS)
    path = editor.path(MODELS)
    await until(lambda: lenses(editor, uri), lambda ls: len(ls) >= 3, "lintel's test lenses")

    result = await editor.execute("lintel.runTests", {"path": MODELS})

    assert [f["name"] for f in result["failures"]] == [FAILING]
    after = await lenses(editor, uri)
    assert titled(after, line_of(path, "def test_restock_adds_units"))[2] == "✓ passed"
    assert titled(after, line_of(path, "def test_total_value_counts_quantity"))[1].startswith("✗ failed: ")

    # Fixed, and the failures rerun: that test passed, the other keeps the file run's outcome.
    editor.save(uri, path.read_text(encoding="utf-8").replace("expected = 2.5", "expected = 0.75"))
    rerun = await editor.execute("lintel.runFailingTests")
    assert rerun["ok"] is True
    await editor.wait_for_diagnostics(uri, lambda ds: not failures_shown(editor, uri))
    fixed = await lenses(editor, uri)
    assert titled(fixed, line_of(path, "def test_restock_adds_units"))[2] == "✓ passed"
    assert titled(fixed, line_of(path, "def test_total_value_counts_quantity"))[1].startswith("✓ passed")


# A test runner that never finishes: records its pid and its child's, so the test can check both are gone.
HANGING_RUNNER = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {child.pid}")
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


async def test_cancelling_a_lens_run_kills_the_runner(start: Start, tmp_path: Path) -> None:
    script = tmp_path / "hang_runner.py"
    script.write_text(HANGING_RUNNER, encoding="utf-8")
    pid_file = tmp_path / "runner-pids"
    options = {"languages": {"python": {"test": [sys.executable, str(script), str(pid_file)]}}}
    editor = await start("python", init_options=options)
    uri = editor.open(MODELS)
    command = run_lens(await until(lambda: lenses(editor, uri), bool, "lintel's test lenses"), FAILING)

    msg_id, request = editor.send_command(command.command, *(command.arguments or []))
    runner_pid, child_pid = await wait_for_pids(pid_file)
    editor.client.cancel_request(types.CancelParams(id=msg_id))

    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(request, 30)
    assert caught.value.code == REQUEST_CANCELLED
    await assert_gone(runner_pid, child_pid)
    await editor.alive()


BENCHMARK = """package lintelgo

import "testing"

func BenchmarkDouble(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Double(2)
	}
}
"""


def _command_of(lens: types.CodeLens) -> str | None:
    return lens.command.command if lens.command is not None else None


async def test_gopls_run_test_lenses_give_way_to_lintels(start: Start) -> None:
    require_tool("gopls")
    require_tool("go")
    editor = await start("go", real_language_servers=True)
    editor.client.set_configuration({"codelenses": {"test": True}}, section="gopls")
    editor.path("bench_test.go").write_text(BENCHMARK, encoding="utf-8")
    uri = editor.open("bench_test.go")

    # gopls's "run file benchmarks" (on the package clause, no test of lintel's there) shows it answered.
    found = await until(
        lambda: lenses(editor, uri),
        lambda ls: any(_command_of(lens) == "gopls.run_tests" for lens in ls),
        "gopls's code lenses",
    )
    bench_line = line_of(editor.path("bench_test.go"), "func BenchmarkDouble")
    assert titled(found, bench_line) == ["▶ Run file", "▶ Run test"]
    kept = [lens for lens in found if _command_of(lens) == "gopls.run_tests"]
    assert [lens.range.start.line for lens in kept] == [0], [lens.command for lens in kept]
    assert any(_command_of(lens) == "lintel.runTests" for lens in found)

    tests_uri = editor.open("greet_test.go")
    greet = await lenses(editor, tests_uri)
    greet_path = editor.path("greet_test.go")
    assert titled(greet, line_of(greet_path, "func TestGreeting")) == ["▶ Run file", "▶ Run test"]
    assert titled(greet, line_of(greet_path, "func TestDouble")) == ["▶ Run test"]
    assert not [lens for lens in greet if _command_of(lens) == "gopls.run_tests"]
