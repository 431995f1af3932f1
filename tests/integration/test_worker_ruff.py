"""The ruff warm worker (`ruff server`, lintel.engine.workers.ruff) against the CLI it stands in for.

On the python and fix-python fixtures and on generated files with hundreds of findings of many rules (non-ASCII and
emoji before findings, CRLF line endings, form feed lines, a syntax error, `noqa` comments, preview on and off,
UTF-16 as well as UTF-32 positions), the worker's Issues equal, field by field (fixes and rule pages included) and
in order, what parse_ruff reads from
`ruff check --output-format=json` run on the same text as lint on save runs it (the file on disk); the same set
as the stdin run (`--stdin-filename`, lint on change). Faults: a killed server and one that never answers are
WorkerErrors; stop() leaves no process behind.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from lintel.core.issues import Issue, ParseContext
from lintel.core.positions import Unit
from lintel.engine.workers.base import LintWorker, WorkerError, WorkerKey, WorkerUnsupported
from lintel.engine.workers.ruff import RuffWorker
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.python.parsers import parse_ruff
from lintel.languages.python.tools import RUFF_LINT

from tests.helpers import REPO, copy_workspace, require_tool

pytestmark = [pytest.mark.tool("ruff"), pytest.mark.timeout(120)]

MUTE_SERVER = REPO / "tests" / "faults" / "mute_ruff_server.py"

Start = Callable[..., Coroutine[Any, Any, RuffWorker]]


@pytest.fixture
async def start_worker() -> AsyncIterator[Start]:
    """Start a RuffWorker on a root (real ruff unless `binary=`); every one is stopped, and checked gone, after."""
    started: list[RuffWorker] = []

    async def start(root: Path, binary: Path | None = None, **options: Any) -> RuffWorker:
        ruff = binary or Path(require_tool("ruff"))
        worker = RuffWorker(WorkerKey("ruff", root), ruff, dict(os.environ), **options)
        started.append(worker)
        await worker.start()
        return worker

    yield start
    for worker in started:
        await worker.stop()
        assert worker.pid is None or not running(worker.pid)


def running(pid: int) -> bool:
    """Whether the process runs (a zombie waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (ProcessLookupError, FileNotFoundError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def cli_issues(root: Path, file: Path, text: str, *, stdin: bool) -> list[Issue]:
    """parse_ruff on lintel's own `ruff check` argv for `file` with content `text`: on the file on disk (written
    first, as a save does), or on stdin with `--stdin-filename` (lint on change)."""
    rel = file.relative_to(root).as_posix()
    if not stdin:
        file.write_bytes(text.encode("utf-8"))
    argv = [require_tool("ruff"), *RUFF_LINT.argv[1:], *(("--stdin-filename", rel, "-") if stdin else (rel,))]
    proc = subprocess.run(
        argv, cwd=root, input=text.encode("utf-8") if stdin else None, capture_output=True, check=False, timeout=60
    )
    stdout, stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert proc.returncode in (0, 1), stderr
    result = parse_ruff(ToolOutput(stdout, stderr, proc.returncode), ParseContext(cwd=str(root), root=str(root)))
    assert result.recognized
    return result.issues


async def assert_same_as_cli(worker: RuffWorker, root: Path, file: Path, text: str) -> list[Issue]:
    found = await worker.lint(file, text, workspace=root)
    assert found == cli_issues(root, file, text, stdin=False)
    assert Counter(found) == Counter(cli_issues(root, file, text, stdin=True))
    return found


async def lint_once(worker: RuffWorker, root: Path, file: Path) -> list[Issue]:
    return await worker.lint(file, "import os\n", workspace=root)


def write_project(root: Path, *, preview: bool = False, extra: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "generated"\nversion = "0"\n\n[tool.ruff]\nline-length = 60\ntarget-version = "py39"\n'
        f"{extra}\n[tool.ruff.lint]\n"
        'select = ["E", "W", "F", "B", "UP", "RUF", "I", "SIM", "C4", "ERA", "PLC", "FA", "DOC"]\n'
        f"preview = {'true' if preview else 'false'}\n",
        encoding="utf-8",
    )
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    return root


def generated_source(blocks: int, newline: str, *, syntax_error: bool = False) -> str:
    """About ten findings a block of many rules, the non-ASCII text before them on their lines. With a syntax error
    ruff runs only its token-based rules (E501, E702, ERA001, W293…) besides reporting it."""
    lines = ["import os, sys", "import json", "from typing import List, Optional", ""]
    for i in range(blocks):
        if i % 7 == 0:
            lines.append("\x0c")  # a form feed line: no line break for ruff or LSP
        lines += [
            f"# 😀 ünïcode block {i}: emoji take two UTF-16 units",
            f"café_{i} = '😀é' ; x{i} = undefined_{i}  # F821 after emoji",
            f"def f{i}(a, b=[]) -> Optional[List[int]]:",
            f"    l = {i}",
            "    if a == None:",
            f"        return '{'é' * 40}'  # E501 counted in characters",
            "    import os",
            "    print('%s' % a)",
            "    return [x for x in b]",
            f"# print(f{i}(1))",
            f"y{i} = dict(a=1)  # noqa: E501",
            "",
        ]
    if syntax_error:
        lines.append("def broken(:  # a syntax error at the end")
    return newline.join(lines) + newline


# -- equivalence ---------------------------------------------------------------------------------------------


async def test_fixture_files_equal_the_cli(tmp_path: Path, start_worker: Start) -> None:
    root = copy_workspace("python", tmp_path / "python")
    worker = await start_worker(root)
    files = sorted(root.rglob("*.py"))
    found = [issue for file in files for issue in await assert_same_as_cli(worker, root, file, file.read_text())]
    assert len(found) == 5  # the fixture's deliberate ruff findings (test_check_python counts them too)
    assert {i.rule for i in found} >= {"F401", "B006"}


@pytest.mark.parametrize("encoding", ["utf-32", "utf-16"])
async def test_fixes_equal_the_cli(tmp_path: Path, start_worker: Start, encoding: Unit) -> None:
    """On the fix fixture (tabs, emoji, CJK text, a CRLF file), each finding's fixes and rule page from `ruff
    server` (`data.edits` in the negotiated encoding, `data.is_preferred`, `data.title`, `codeDescription`) equal
    what parse_ruff reads from the CLI's JSON: safe, unsafe and display-only ones."""
    root = copy_workspace("fix-python", tmp_path / "fixes")
    worker = await start_worker(root, encodings=(encoding,))
    assert worker.encoding == encoding
    found: list[Issue] = []
    for file in sorted((root / "src" / "fixme").glob("*.py")):
        text = file.read_bytes().decode("utf-8")
        issues = await assert_same_as_cli(worker, root, file, text)
        assert [(i.fixes, i.url) for i in issues] == [
            (i.fixes, i.url) for i in cli_issues(root, file, text, stdin=False)
        ]
        found += issues
    kinds = Counter(fix.applicability for issue in found for fix in issue.fixes)
    assert kinds["safe"] >= 5
    assert kinds["unsafe"] >= 5
    assert kinds["display"] >= 1
    assert {i.rule for i in found if i.fixes} >= {"F401", "E711", "E712", "F541", "UP032", "ERA001", "I001"}
    assert any(not i.fixes for i in found)
    assert all(i.url for i in found)
    crlf = [i for i in found if i.file == "src/fixme/windows.py" and i.fixes]
    assert crlf  # fixes in the CRLF file


@pytest.mark.parametrize(
    ("newline", "encoding", "preview"),
    [
        ("\n", "utf-32", False),
        ("\r\n", "utf-32", False),
        ("\n", "utf-16", False),
        ("\n", "utf-32", True),
        ("\r\n", "utf-16", True),
    ],
)
async def test_generated_findings_equal_the_cli(
    tmp_path: Path, start_worker: Start, newline: str, encoding: Unit, preview: bool
) -> None:
    root = write_project(tmp_path / "gen", preview=preview)
    worker = await start_worker(root, encodings=(encoding,))
    assert worker.encoding == encoding
    file = root / "pkg" / "generated.py"
    found = await assert_same_as_cli(worker, root, file, generated_source(40, newline))
    assert len(found) > 300
    rules = Counter(i.rule for i in found)
    assert len(rules) > 15
    for rule in ("F401", "F821", "E501", "E711", "E741", "B006", "RUF100", "ERA001", "UP031"):
        assert rules[rule] > 0, rule
    assert any(i.hint and not i.hint.endswith("(unsafe fix)") for i in found)  # safe fixes
    assert any(i.hint and i.hint.endswith("(unsafe fix)") for i in found)  # unsafe and display-only ones
    emoji_line = next(i for i in found if i.rule == "F821")
    assert emoji_line.column == 22  # `café_0 = '😀é' ; x0 = ` is 21 characters (22 UTF-16 units)


@pytest.mark.parametrize(("newline", "encoding", "preview"), [("\n", "utf-16", False), ("\r\n", "utf-32", True)])
async def test_generated_findings_with_a_syntax_error_equal_the_cli(
    tmp_path: Path, start_worker: Start, newline: str, encoding: Unit, preview: bool
) -> None:
    root = write_project(tmp_path / "gen", preview=preview)
    worker = await start_worker(root, encodings=(encoding,))
    file = root / "pkg" / "generated.py"
    found = await assert_same_as_cli(worker, root, file, generated_source(40, newline, syntax_error=True))
    assert len(found) > 100
    rules = Counter(i.rule for i in found)
    assert rules[None if preview else "invalid-syntax"] == 2
    assert rules["E501"] == rules["E702"] == 40


@pytest.mark.parametrize("preview", [False, True])
async def test_syntax_errors_alone(tmp_path: Path, start_worker: Start, preview: bool) -> None:
    """An answer with syntax errors only: the CLI's JSON names them `invalid-syntax`, or nothing under preview."""
    root = write_project(tmp_path / "syntax", preview=preview)
    worker = await start_worker(root)
    found = await assert_same_as_cli(worker, root, root / "pkg" / "broken.py", "def broken(:\n    pass\n")
    rule = None if preview else "invalid-syntax"
    assert [(i.line, i.column, i.rule) for i in found] == [(1, 12, rule), (1, 13, rule)]


async def test_findings_at_one_place_keep_the_cli_order(tmp_path: Path, start_worker: Start) -> None:
    """Three findings of one rule at one place: the server lists them as found, the CLI by message."""
    root = write_project(tmp_path / "order", preview=True)
    worker = await start_worker(root)
    text = (
        "class InvalidVersionError(ValueError):\n"
        '    """Bad."""\n\n\n'
        "def raises(a):\n"
        '    """Raise.\n\n    Args:\n        a: a thing.\n    """\n'
        "    try:\n        int(a)\n    except ValueError:\n        raise InvalidVersionError(a) from None\n"
        "    if a:\n        raise ValueError(a)\n    raise AttributeError(a)\n"
    )
    found = await assert_same_as_cli(worker, root, root / "pkg" / "order.py", text)
    assert [i.message.split("`")[1] for i in found] == ["AttributeError", "InvalidVersionError", "ValueError"]


async def test_noqa_comments(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "noqa")
    worker = await start_worker(root)
    text = "import os  # noqa: F401\nimport sys  # noqa\nimport json\nvalue = 1  # noqa: E501\nprint(json, value)\n"
    found = await assert_same_as_cli(worker, root, root / "pkg" / "noqa.py", text)
    # F401 on lines 1-3 is silenced (by code, by a blanket noqa, by json's use); the unused E501 noqa is RUF100.
    assert [(i.line, i.rule) for i in found] == [(1, "I001"), (4, "RUF100")]


async def test_edits_between_lints(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "edits")
    worker = await start_worker(root)
    file = root / "pkg" / "edited.py"
    first = await assert_same_as_cli(worker, root, file, "import os\n")
    assert [i.rule for i in first] == ["F401"]
    second = await assert_same_as_cli(worker, root, file, "import os\n\nprint(os, missing)\n")
    assert [i.rule for i in second] == ["F821"]
    assert await assert_same_as_cli(worker, root, file, "import os\n") == first
    assert await worker.lint(file, "import os\n", workspace=root) == first  # unchanged text: no change sent


async def test_changes_are_sent_as_edits_and_the_server_copy_stays_exact(
    tmp_path: Path, start_worker: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed text goes to the server as the edit between its copy and the new text (positions in code points);
    after a dozen random edits (emoji, accents, whole lines, at the start, the end, anywhere) every lint still
    equals the CLI's on that text. A text with CR line ends is sent whole (LSP lines also end at a lone CR)."""
    root = write_project(tmp_path / "edited")
    worker = await start_worker(root)
    assert worker.encoding == "utf-32"
    changes: list[dict[str, Any]] = []
    notify = worker._notify

    def recording(method: str, params: Any) -> None:
        if method == "textDocument/didChange":
            changes.extend(params["contentChanges"])
        notify(method, params)

    monkeypatch.setattr(worker, "_notify", recording)
    file = root / "pkg" / "big.py"
    text = generated_source(30, "\n")
    await assert_same_as_cli(worker, root, file, text)
    rng = random.Random(14)
    snippets = ["x = 😀\n", "é", "import os\n", "", "def g(:\n", "    return None\n", "# 😀é\n"]
    for step in range(12):
        at = (0, len(text))[step] if step < 2 else rng.randrange(len(text))
        removed = rng.randrange(0, 40) if step % 3 else 0
        text = text[:at] + rng.choice(snippets) + text[at + removed :]
        await assert_same_as_cli(worker, root, file, text)
    assert len(changes) == 12
    assert all("range" in change and len(change["text"]) < 20 for change in changes)
    changes.clear()
    await assert_same_as_cli(worker, root, file, text.replace("\n", "\r\n"))
    assert [sorted(change) for change in changes] == [["text"]]


async def test_byte_order_mark(tmp_path: Path, start_worker: Start) -> None:
    """ruff does not count a byte order mark: columns on the first line are the same with and without one."""
    root = write_project(tmp_path / "bom")
    worker = await start_worker(root)
    found = await assert_same_as_cli(worker, root, root / "pkg" / "bom.py", "\ufeffimport os; x = é\n")
    assert [(i.line, i.column, i.rule) for i in found] == [
        (1, 1, "I001"),
        (1, 8, "F401"),
        (1, 10, "E702"),
        (1, 16, "F821"),
    ]


async def test_excluded_file_has_no_findings(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "excluded", extra='extend-exclude = ["pkg/generated_*.py"]')
    worker = await start_worker(root)
    assert await assert_same_as_cli(worker, root, root / "pkg" / "generated_api.py", "import os\n") == []


async def test_paths_are_relative_to_the_workspace(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "repo" / "service")
    worker = await start_worker(root)
    found = await worker.lint(root / "pkg" / "mod.py", "import os\n", workspace=tmp_path / "repo")
    assert [(i.file, i.signature) for i in found] == [
        ("service/pkg/mod.py", "lint:service/pkg/mod.py:1:`os` imported but unused")
    ]


# -- configuration -------------------------------------------------------------------------------------------


async def test_a_configuration_ruff_cannot_read_is_refused(tmp_path: Path, start_worker: Start) -> None:
    """The CLI fails on it (exit 2); the server would lint with defaults, so the worker answers nothing."""
    root = write_project(tmp_path / "broken", extra='line-length = "long"')
    ruff = require_tool("ruff")
    check = await asyncio.create_subprocess_exec(ruff, "check", "pkg", cwd=root, stdout=subprocess.DEVNULL)
    assert await check.wait() == 2
    with pytest.raises(WorkerError, match="settings"):
        await lint_once(await start_worker(root), root, root / "pkg" / "mod.py")


async def test_watched_files(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "watched")
    (root / "pkg" / "sub").mkdir()
    worker: LintWorker = await start_worker(root)
    watched = set(worker.watched())
    assert {root / "pyproject.toml", root / "ruff.toml", root / ".ruff.toml", tmp_path / "ruff.toml"} <= watched
    assert Path("/pyproject.toml") in watched
    assert Path(require_tool("ruff")) in watched
    assert root / "pkg" / "sub" / "ruff.toml" not in watched
    await worker.lint(root / "pkg" / "sub" / "mod.py", "x = 1\n", workspace=root)
    assert {root / "pkg" / "sub" / "ruff.toml", root / "pkg" / "pyproject.toml"} <= set(worker.watched())


async def test_configuration_written_since_start_in_a_new_folder(tmp_path: Path, start_worker: Start) -> None:
    """The server reads the configuration files once: one written since, where nothing was linted yet (so not
    watched), ends the worker; a fresh one reads it as the CLI does."""
    root = write_project(tmp_path / "later")
    worker = await start_worker(root)
    await worker.lint(root / "pkg" / "mod.py", "import os\n", workspace=root)
    (root / "pkg" / "new").mkdir()
    (root / "pkg" / "new" / "ruff.toml").write_text('[lint]\nselect = ["E"]\n', encoding="utf-8")
    file = root / "pkg" / "new" / "mod.py"
    with pytest.raises(WorkerError, match="was written after ruff server started"):
        await worker.lint(file, "import os\n", workspace=root)
    assert not worker.alive
    found = await assert_same_as_cli(await start_worker(root), root, file, "import os\nx = 1 ;\n")
    assert [i.rule for i in found] == ["E703"]  # the new ruff.toml's rules, not the project's


# -- faults and the process ----------------------------------------------------------------------------------


async def test_killed_server_is_a_worker_error(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "killed")
    worker = await start_worker(root)
    file = root / "pkg" / "mod.py"
    assert await worker.lint(file, "import os\n", workspace=root)
    assert worker.pid is not None
    os.kill(worker.pid, signal.SIGKILL)
    with pytest.raises(WorkerError, match="ruff server"):
        await worker.lint(file, "import sys\n", workspace=root)
    assert not worker.alive
    with pytest.raises(WorkerError):
        await worker.lint(file, "import sys\n", workspace=root)


async def test_stop_leaves_no_process(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "stopped")
    worker = await start_worker(root)
    await worker.lint(root / "pkg" / "mod.py", "import os\n", workspace=root)
    pid = worker.pid
    assert pid is not None
    assert running(pid)
    await worker.stop()
    assert not running(pid)
    assert not worker.alive
    await worker.stop()  # idempotent
    with pytest.raises(WorkerError):
        await worker.lint(root / "pkg" / "mod.py", "import os\n", workspace=root)


async def test_unanswered_request_times_out(tmp_path: Path, start_worker: Start) -> None:
    """A server that never answers (and ignores exit and SIGTERM): a WorkerError after the timeout, its process
    killed."""
    root = write_project(tmp_path / "mute")
    worker = await start_worker(root, binary=MUTE_SERVER, request_timeout=0.5)
    pid = worker.pid
    assert pid is not None
    with pytest.raises(WorkerError, match=r"did not answer textDocument/diagnostic within 0\.5s"):
        await worker.lint(root / "pkg" / "mod.py", "import os\n", workspace=root)
    assert not worker.alive
    await worker.stop()
    assert not running(pid)


async def test_older_ruff_is_refused(tmp_path: Path) -> None:
    """ruff before 0.17 has no server whose answers lintel reads (a project's pin): `ruff --version` says so before
    any server starts, and the worker declines (WorkerUnsupported: the pool lets the CLI lint, quietly)."""
    env = {**os.environ, "FAKE_RUFF_VERSION": "0.12.12"}
    worker = RuffWorker(WorkerKey("ruff", write_project(tmp_path / "old")), MUTE_SERVER, env)
    with pytest.raises(WorkerUnsupported, match=r"ruff 0\.12\.12 is older than the warm worker reads \(0\.17\)"):
        await worker.start()
    assert not worker.alive
    assert worker.pid is None  # no server was started


async def test_a_server_older_than_its_cli_says_is_refused_too(tmp_path: Path) -> None:
    """The version the server itself reports is checked as well (a `ruff` wrapper that runs another ruff)."""
    env = {**os.environ, "FAKE_RUFF_VERSION": "0.12.12"}
    wrapper = tmp_path / "ruff"
    wrapper.write_text(
        '#!/bin/sh\n[ "$1" = --version ] && { echo "ruff 0.17.6"; exit 0; }\n'
        f'exec {sys.executable} {MUTE_SERVER} "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    worker = RuffWorker(WorkerKey("ruff", write_project(tmp_path / "old")), wrapper, env)
    with pytest.raises(WorkerUnsupported, match=r"ruff 0\.12\.12 is older"):
        await worker.start()
    assert worker.pid is not None
    assert not running(worker.pid)


async def test_cancelled_lint_leaves_the_worker_usable(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "cancelled")
    worker = await start_worker(root)
    file = root / "pkg" / "mod.py"
    superseded = asyncio.ensure_future(worker.lint(file, "import os\n", workspace=root))  # sent at the call
    await asyncio.sleep(0)  # not answered yet
    superseded.cancel()
    with pytest.raises(asyncio.CancelledError):
        await superseded
    assert worker.alive
    await assert_same_as_cli(worker, root, file, "import sys\n")


async def test_missing_binary_is_a_worker_error(tmp_path: Path) -> None:
    worker = RuffWorker(WorkerKey("ruff", tmp_path), tmp_path / "no-ruff", dict(os.environ))
    with pytest.raises(WorkerError, match="cannot run"):
        await worker.start()
    assert not worker.alive
    await worker.stop()


async def test_notebooks_are_left_to_the_cli(tmp_path: Path, start_worker: Start) -> None:
    root = write_project(tmp_path / "notebook")
    worker = await start_worker(root)
    with pytest.raises(WorkerError, match="notebooks"):
        await worker.lint(root / "pkg" / "book.ipynb", "{}", workspace=root)
    assert worker.alive
