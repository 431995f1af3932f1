"""eslint's own fixes, carried on lintel's Issues, against eslint's own fix mode on tests/workspaces/fix-node (real
eslint 9.39): the safe fixes applied round after round give byte for byte what `eslint --fix` writes; the warm
worker's Issues carry the CLI's fixes and rule pages for the same text; the worker's fix request and the
one-text fix mode (`--fix-dry-run --stdin`) give what eslint's fix mode gives. Files with emoji, CJK and tabs
(UTF-16 offsets) and one with CRLF line ends are among them."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lintel.core.fixes import Fix, chosen_fix, fix_all
from lintel.core.issues import Issue
from lintel.engine.checks import run_check, run_file_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import nearest_project
from lintel.engine.fixdoc import fixed_document_text
from lintel.engine.workers.base import WorkerKey
from lintel.engine.workers.eslint import EslintWorker
from lintel.languages import Project

from tests.helpers import WORKSPACES, copy_workspace, require_path, require_tool, run_tool, tool_path

CONFIG = LintelConfig()

pytestmark = pytest.mark.tool("node")
FILES = ("src/cart.js", "src/crlf.js", "src/unicode.js")
ROUNDS = 10  # eslint's own fix mode makes at most 10 passes over a file


def node_project(root: Path) -> Project:
    project = nearest_project(root, root, language="node")
    assert project is not None
    return project


@pytest.fixture
def fix_copy(tmp_path: Path) -> Path:
    require_tool("node", "install Node.js 20+")
    require_path(WORKSPACES / "fix-node" / "node_modules" / "eslint")
    return copy_workspace("fix-node", tmp_path / "ours")


@pytest_asyncio.fixture
async def worker(fix_copy: Path) -> AsyncIterator[EslintWorker]:
    node = Path(require_tool("node", "install Node.js 20+"))
    started = EslintWorker(WorkerKey("eslint", fix_copy), node, dict(os.environ))
    await started.start()
    yield started
    await started.stop()


def read(path: Path) -> str:
    """A file's text with its line ends as they are (CRLF stays CRLF)."""
    return path.read_bytes().decode("utf-8")


def dry_run(root: Path, rel: str, text: str) -> str | None:
    """`eslint --fix-dry-run --stdin`'s `output` for `text` as the file `rel`: None when eslint changed nothing."""
    eslint = root / "node_modules" / ".bin" / "eslint"
    argv = [str(eslint), "--fix-dry-run", "--stdin", "--stdin-filename", rel, "--format", "json"]
    proc = subprocess.run(
        argv, cwd=root, input=text.encode("utf-8"), capture_output=True, timeout=300, check=False,
        env={**os.environ, "PATH": tool_path()},
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr.decode()
    (result,) = json.loads(proc.stdout)
    output = result.get("output")
    return output if isinstance(output, str) else None


def wire(issue: Issue) -> str:
    return json.dumps({key: value for key, value in issue.to_json().items() if key != "fingerprint"})


def safe_fixes(issues: list[Issue], rel: str) -> list[Fix]:
    return [fix for issue in issues if issue.file == rel and (fix := chosen_fix(issue.fixes)) is not None]


async def test_safe_fixes_until_stable_are_byte_equal_to_eslint_fix(fix_copy: Path, tmp_path: Path) -> None:
    """(a) Each round: `lintel check`'s eslint run, then every file's safe fixes applied (lintel.core.fixes.fix_all)
    until none is left; a copy is fixed by the eslint spec's own fix mode (`eslint --fix .`). Same bytes."""
    theirs = copy_workspace("fix-node", tmp_path / "theirs")
    project = node_project(fix_copy)
    applied: Counter[str] = Counter()
    for _ in range(ROUNDS):
        result = await run_check(project, "lint", workspace=fix_copy, config=CONFIG)
        assert result.status == "findings", result.reason
        changed = False
        for rel in FILES:
            fixes = safe_fixes(result.issues, rel)
            text = read(fix_copy / rel)
            fixed, count = fix_all(text, rel, fixes, "utf-16")
            if count:
                (fix_copy / rel).write_bytes(fixed.encode("utf-8"))
                applied.update(fix.title for fix in fixes)
                changed = True
        if not changed:
            break
    else:
        pytest.fail(f"fixes still applied after {ROUNDS} rounds")
    mode = node_project(theirs).spec.tool_for(node_project(theirs), "lint").fix_mode
    assert mode is not None
    run_tool(list(mode.argv), cwd=theirs)
    for rel in FILES:
        assert read(theirs / rel) != read(WORKSPACES / "fix-node" / rel), f"eslint --fix left {rel} as it was"
        assert read(fix_copy / rel).encode("utf-8") == read(theirs / rel).encode("utf-8"), rel
    assert "\r\n" in read(fix_copy / "src/crlf.js")
    assert "🌍" in read(fix_copy / "src/unicode.js")
    # Fixes of many rules took part, not one.
    assert len({title for title in applied}) >= 8, applied


async def test_rounds_against_eslint_fix_dry_run(fix_copy: Path) -> None:
    """(b) Each file's text against `eslint --fix-dry-run --stdin`, which makes up to 10 passes over it. One round
    of the safe fixes falls short of it on every file of the fixture: a fix can make a new finding (`var` becomes
    `let`, which prefer-const then makes `const`), and overlapping fixes wait for the next round. Rounds until
    stable (each linting the round's text through stdin) reach it; lintel.engine.fixdoc's one-text fix (the eslint
    spec's stdin fix mode) is it."""
    project = node_project(fix_copy)
    one_round_equal: dict[str, bool] = {}
    for rel in FILES:
        original = read(fix_copy / rel)
        eslints = dry_run(fix_copy, rel, original)
        assert eslints is not None
        text, rounds = original, 0
        while rounds < ROUNDS:
            result = await run_file_check(project, "lint", fix_copy / rel, workspace=fix_copy, config=CONFIG, text=text)
            assert result is not None
            assert result.status in ("findings", "clean"), result
            if rounds == 0:
                ours = await fixed_document_text(
                    project, fix_copy / rel, text, workspace=fix_copy, config=CONFIG, issues=result.issues
                )
                assert ours == eslints, rel
            text, count = fix_all(text, rel, safe_fixes(result.issues, rel), "utf-16")
            if not count:
                break
            rounds += 1
            if rounds == 1:
                one_round_equal[rel] = text == eslints
        assert text == eslints, rel
        assert rounds > 1, rel
    assert one_round_equal == dict.fromkeys(FILES, False)


async def test_the_workers_fixes_and_pages_are_the_clis(fix_copy: Path, worker: EslintWorker) -> None:
    """(c) The worker's Issues for a text, fixes and rule pages included, are the CLI's (`--stdin`) for it, saved
    files and an unsaved buffer whose offsets all moved (two lines added above)."""
    project = node_project(fix_copy)
    cases = [(rel, read(fix_copy / rel)) for rel in FILES]
    cases.append(("src/unicode.js", "// 🎉 an unsaved line\r\nvar extra = '✓'\n" + read(fix_copy / "src/unicode.js")))
    for rel, text in cases:
        cli = await run_file_check(project, "lint", fix_copy / rel, workspace=fix_copy, config=CONFIG, text=text)
        assert cli is not None
        assert cli.status == "findings", cli
        warm = await worker.lint(fix_copy / rel, text, workspace=fix_copy)
        # The fingerprint and the order of findings at one place are the check run's (the pool's warm_file_lint
        # gives the worker's Issues both).
        assert sorted(map(wire, warm)) == sorted(map(wire, cli.issues)), rel
        assert any(i.fixes for i in warm), rel
        assert all(i.url for i in warm if i.rule), rel
    suggested = [f for i in warm for f in i.fixes if f.applicability == "unsafe"]
    assert suggested  # eslint's suggestions came along, as unsafe fixes


async def test_the_workers_fix_is_eslint_fix_dry_run(fix_copy: Path, worker: EslintWorker) -> None:
    """(d) worker.fix(file, text) is `eslint --fix-dry-run --stdin`'s output for the same text; None for a text
    eslint has nothing to fix in, as the CLI's report then has no `output`."""
    for rel in FILES:
        text = read(fix_copy / rel)
        fixed = await worker.fix(fix_copy / rel, text)
        assert fixed is not None
        assert fixed != text
        assert fixed == dry_run(fix_copy, rel, text), rel
        again = await worker.fix(fix_copy / rel, fixed)
        assert again == dry_run(fix_copy, rel, fixed) is None, rel
