"""The warm eslint worker against the eslint CLI, with the project's real eslint: for every file, saved or as an
unsaved buffer, the worker's findings are the CLI run's, field for field (signature, fingerprint, positions, rule,
severity, message); and what the pool does when eslint cannot be loaded. The pool's rules on their own, with
fake workers: tests/unit/test_worker_pool.py."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lintel.engine.checks import RunResult, run_file_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import nearest_project
from lintel.engine.workers.base import WorkerKey
from lintel.engine.workers.eslint import EslintWorker
from lintel.engine.workers.kinds import WORKERS
from lintel.engine.workers.pool import MAX_FAILURES, WorkerPool
from lintel.engine.workers.warm import warm_file_lint
from lintel.languages import Project

from tests.helpers import copy_workspace, require_path, require_tool

CONFIG = LintelConfig()
# A file with a few hundred findings of every kind the fixture's config reports, and characters outside ASCII and
# the BMP before some of them (eslint counts columns in UTF-16 code units; nothing may recount them).
GENERATED_LINES = [
    "// Generated: a few hundred eslint findings.",
    *(
        line
        for n in range(60)
        for line in (
            f"export function same{n}(a, b) {{ return a == b; }}",
            f'export function label{n}() {{ let text = "é🙂{n}"; return text + missing{n}; }}',
            f"const unused{n} = {n};",
            f'console.log("🙂🙂", same{n}(1, 2));',
        )
    ),
]


def node_project(root: Path) -> Project:
    project = nearest_project(root, root, language="node")
    assert project is not None
    assert project.language == "node"
    return project


def reported() -> tuple[list[tuple[str, str]], WorkerPool]:
    told: list[tuple[str, str]] = []
    return told, WorkerPool(WORKERS, report=lambda cause, message: told.append((cause, message)))


@pytest.fixture
def node_copy(tmp_path: Path) -> Path:
    require_tool("node", "install Node.js 20+")
    require_path(Path(__file__).parents[1] / "workspaces" / "node" / "node_modules" / "eslint")
    return copy_workspace("node", tmp_path / "node")


@pytest_asyncio.fixture
async def pool() -> AsyncIterator[WorkerPool]:
    workers = WorkerPool(WORKERS, report=lambda cause, message: None)
    yield workers
    await workers.stop_all()


async def both(
    pool: WorkerPool, project: Project, file: Path, workspace: Path, text: str | None = None
) -> tuple[RunResult, RunResult]:
    """The CLI run's result and the worker's, for `file` (with `text` as an unsaved buffer)."""
    cli = await run_file_check(project, "lint", file, workspace=workspace, config=CONFIG, text=text)
    warm = await warm_file_lint(pool, project, file, workspace=workspace, config=CONFIG, text=text)
    assert cli is not None
    assert warm is not None, "the worker did not answer"
    return cli, warm


def assert_same(cli: RunResult, warm: RunResult) -> None:
    assert cli.status in ("clean", "findings"), cli.output
    assert warm.status == cli.status
    # Issue is a frozen dataclass: equality is every field (kind, file, positions, severity, source, rule,
    # message, hint, signature, fingerprint), and the lists are in report order.
    assert warm.issues == cli.issues


async def test_every_fixture_file_gets_the_clis_findings(node_copy: Path, pool: WorkerPool) -> None:
    project = node_project(node_copy)
    # A file no config matches (eslint's "File ignored because no matching configuration" notice) and a
    # file its ignores name: neither is a finding, from the CLI or from the worker.
    (node_copy / "src" / "view.vue").write_text("<template><p>{{ a == b }}</p></template>\n", encoding="utf-8")
    config = node_copy / "eslint.config.js"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("export default [", 'export default [\n  { ignores: ["dist/"] },'), encoding="utf-8")
    (node_copy / "dist").mkdir()
    (node_copy / "dist" / "bundle.js").write_text("var x = 1 == 2;\n", encoding="utf-8")
    files = [*sorted(node_copy.glob("src/*.*")), node_copy / "dist" / "bundle.js"]
    with_findings = set()
    for file in files:
        cli, warm = await both(pool, project, file, node_copy)
        assert_same(cli, warm)
        if cli.issues:
            with_findings.add(file.relative_to(node_copy).as_posix())
    # The comparison saw real findings, of JavaScript and TypeScript (typescript-eslint's parser) alike.
    assert {"src/util.js", "src/api.ts"} <= with_findings
    worker = pool.worker(WorkerKey("eslint", project.root))
    assert isinstance(worker, EslintWorker)
    assert worker.alive  # one worker served every file


async def test_hundreds_of_findings_and_unsaved_text_match_the_cli(node_copy: Path, pool: WorkerPool) -> None:
    project = node_project(node_copy)
    generated = node_copy / "src" / "generated.js"
    generated.write_text("\n".join(GENERATED_LINES) + "\n", encoding="utf-8")
    cli, warm = await both(pool, project, generated, node_copy)
    assert_same(cli, warm)
    assert len(cli.issues) >= 300
    assert {i.rule for i in cli.issues} >= {"eqeqeq", "prefer-const", "no-unused-vars", "no-undef", "no-console"}

    # An unsaved buffer (lint on change): the CLI reads it on stdin, the worker gets the text.
    util = node_copy / "src" / "util.js"
    buffer = util.read_text(encoding="utf-8").replace("return a == b;", "return a != b;\n  var late = 1;")
    cli, warm = await both(pool, project, util, node_copy, text=buffer)
    assert_same(cli, warm)
    assert "no-var" not in {i.rule for i in cli.issues}  # not in the fixture's config: the same config is read
    assert any(i.rule == "eqeqeq" and "!=" in i.message for i in cli.issues)


async def test_a_pnpm_workspace_member_uses_its_own_eslint(tmp_path: Path, pool: WorkerPool) -> None:
    require_tool("node", "install Node.js 20+")
    require_path(Path(__file__).parents[1] / "workspaces" / "mono-pnpm" / "node_modules" / ".pnpm")
    root = copy_workspace("mono-pnpm", tmp_path / "mono")
    member = root / "packages" / "count"
    project = node_project(member)
    files = sorted(member.glob("src/*.js"))
    assert files
    for file in files:
        cli, warm = await both(pool, project, file, root)
        assert_same(cli, warm)


async def test_no_eslint_installed_means_the_cli_run(tmp_path: Path, pool: WorkerPool) -> None:
    """Without eslint in the project the worker is not even started: the CLI run says eslint is missing."""
    require_tool("node", "install Node.js 20+")
    root = tmp_path / "bare"
    root.mkdir()
    (root / "package.json").write_text('{"name": "bare", "version": "1.0.0"}\n', encoding="utf-8")
    (root / "index.js").write_text("var a = 1;\n", encoding="utf-8")
    project = node_project(root)
    assert await warm_file_lint(pool, project, root / "index.js", workspace=root, config=CONFIG, text=None) is None
    assert pool.worker(WorkerKey("eslint", project.root)) is None


async def test_a_worker_that_cannot_load_eslint_fails_over_reports_once_and_rests(tmp_path: Path) -> None:
    """The worker itself, started where eslint cannot be loaded: its start fails with eslint's words; the pool
    reports each failure under one cause, and after MAX_FAILURES it stops trying (said once, under another)."""
    node = Path(require_tool("node", "install Node.js 20+"))
    root = tmp_path / "broken"
    (root / "node_modules" / "eslint").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "broken"}\n', encoding="utf-8")
    # An eslint whose entry point throws: installed (so the CLI plan finds nothing missing), but unloadable.
    (root / "node_modules" / "eslint" / "package.json").write_text(
        json.dumps({"name": "eslint", "version": "0.0.0", "main": "index.js"}), encoding="utf-8"
    )
    (root / "node_modules" / "eslint" / "index.js").write_text("throw new Error('broken eslint');\n", encoding="utf-8")
    told, pool = reported()
    key = WorkerKey("eslint", root)
    try:
        for _ in range(MAX_FAILURES + 2):
            answer = await pool.lint(
                key,
                root / "a.js",
                "var a = 1;\n",
                workspace=root,
                binary=node,
                env=dict(os.environ),
                timeout=60,
                idle_seconds=300,
            )
            assert answer is None
        causes = [cause for cause, _ in told]
        assert causes.count(f"worker:eslint:{root}") == MAX_FAILURES  # the later requests did not even try
        assert causes.count(f"worker-resting:eslint:{root}") == 1
        assert "broken eslint" in told[0][1]
        assert "CLI" in told[0][1]

        # Its installation changes (a new eslint version): it is tried again at once.
        (root / "node_modules" / "eslint" / "package.json").write_text(
            json.dumps({"name": "eslint", "version": "0.0.1", "main": "index.js"}), encoding="utf-8"
        )
        await pool.lint(
            key, root / "a.js", "", workspace=root, binary=node, env=dict(os.environ), timeout=60, idle_seconds=300
        )
        assert [cause for cause, _ in told].count(f"worker:eslint:{root}") == MAX_FAILURES + 1
    finally:
        await pool.stop_all()


async def test_the_worker_runs_in_its_own_process_group_and_stop_ends_it(node_copy: Path) -> None:
    node = Path(require_tool("node", "install Node.js 20+"))
    worker = EslintWorker(WorkerKey("eslint", node_copy), node, dict(os.environ))
    await worker.start()
    pid = worker.pid
    assert pid is not None
    assert os.getpgid(pid) == pid
    assert worker.version
    assert node_copy / "eslint.config.js" in worker.watched()
    await worker.stop()
    assert not worker.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
