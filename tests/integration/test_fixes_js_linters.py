"""The fix modes lintel declares for `lint` scripts on oxlint and biome, run for real on copies of
tests/workspaces/node-linters: the script with its fix flags writes what the linter run by hand writes, and biome's
one-text mode (`--stdin-file-path` with `--write`) prints what its `--write` writes to the file. Neither linter's
JSON carries fixes (tests/unit/test_fixes_node.py), so these modes are their only fixes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from lintel.engine.detect import nearest_project
from lintel.languages.base import FILE_PLACEHOLDER, FixMode

from tests.helpers import WORKSPACES, copy_workspace, require_path, run_tool, tool_path

FIXTURE = WORKSPACES / "node-linters"
FILES = ("src/cart.js", "src/util.js")

pytestmark = pytest.mark.tool("node")


def linters_copy(dest: Path, script: str) -> Path:
    for binary in ("oxlint", "biome"):
        require_path(
            FIXTURE / "node_modules" / ".bin" / binary, "run scripts/setup-dev (tests/workspaces/node-linters)"
        )
    root = copy_workspace("node-linters", dest)
    package = json.loads((root / "package.json").read_text(encoding="utf-8"))
    package["scripts"] = {"lint": script}
    (root / "package.json").write_text(json.dumps(package), encoding="utf-8")
    return root


def fix_mode(root: Path) -> FixMode:
    project = nearest_project(root, root, language="node")
    assert project is not None
    mode = project.spec.tool_for(project, "lint").fix_mode
    assert mode is not None
    return mode


def texts(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in FILES}


@pytest.mark.parametrize("unsafe", [False, True])
def test_oxlint_script_fix_mode_is_oxlint_fix(tmp_path: Path, unsafe: bool) -> None:
    ours = linters_copy(tmp_path / "ours", "oxlint src")
    by_hand = linters_copy(tmp_path / "by-hand", "oxlint src")
    mode = fix_mode(ours)
    run_tool([*mode.argv, *(mode.unsafe_args if unsafe else ())], cwd=ours)
    flags = ["--fix", "--fix-suggestions"] if unsafe else ["--fix"]
    run_tool([str(by_hand / "node_modules" / ".bin" / "oxlint"), *flags, "src"], cwd=by_hand)
    assert texts(ours) == texts(by_hand)
    if unsafe:  # the fixture's findings have suggestions (an unused import, a debugger statement) to apply
        assert texts(ours) != texts(FIXTURE)


@pytest.mark.parametrize("unsafe", [False, True])
def test_biome_script_fix_mode_and_its_one_text_mode_agree_with_biome_write(tmp_path: Path, unsafe: bool) -> None:
    ours = linters_copy(tmp_path / "ours", "biome lint src")
    by_hand = linters_copy(tmp_path / "by-hand", "biome lint src")
    mode = fix_mode(ours)
    run_tool([*mode.argv, *(mode.unsafe_args if unsafe else ())], cwd=ours)
    flags = ["--write", "--unsafe"] if unsafe else ["--write"]
    run_tool([str(by_hand / "node_modules" / ".bin" / "biome"), "lint", *flags, "src"], cwd=by_hand)
    assert texts(ours) == texts(by_hand)
    if unsafe:
        assert texts(ours) != texts(FIXTURE)
    for rel, before in texts(FIXTURE).items():
        argv = [rel if word == FILE_PLACEHOLDER else word for word in mode.stdin_argv]
        argv += mode.stdin_unsafe_args if unsafe else ()
        proc = subprocess.run(
            argv, cwd=ours, input=before, capture_output=True, timeout=300, check=False,
            env={**os.environ, "PATH": tool_path()},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr.decode()
        assert proc.stdout == texts(by_hand)[rel], rel
