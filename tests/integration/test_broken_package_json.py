"""A package.json that is not JSON: `lintel detect`, `lintel check` and runScript say so, naming the
file and the JSON error, instead of treating the project as one without scripts."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lintel.core.errors import BadArgument
from lintel.engine.checks import run_check, run_file_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.scripts import script_command

from tests.helpers import run_lintel

BROKEN = '{\n  "scripts": {\n    "test": "node -e 1",\n  }\n}\n'
WHY = "Expecting property name enclosed in double quotes: line 4 column 3"


def broken(tmp_path: Path) -> Path:
    (tmp_path / "package.json").write_text(BROKEN, encoding="utf-8")
    return tmp_path


def test_detect_names_the_file_and_the_json_error(tmp_path: Path) -> None:
    root = broken(tmp_path)
    text = run_lintel("detect", str(root))
    assert text.returncode == 0
    assert f"NOT CHECKED: cannot read {root / 'package.json'}: {WHY}" in text.stdout
    document = json.loads(run_lintel("detect", str(root), "--json").stdout)
    [project] = document["projects"]
    assert project["problem"].startswith(f"cannot read {root / 'package.json'}: {WHY}")


def test_check_reports_each_check_not_run_with_the_json_error(tmp_path: Path) -> None:
    root = broken(tmp_path)
    proc = run_lintel("check", str(root), "--only", "lint,test", "--format", "json")
    assert proc.returncode == 3  # nothing ran: never clean
    runs = json.loads(proc.stdout)["runs"]
    assert [(r["check"], r["status"]) for r in runs] == [("lint", "not_checked"), ("test", "not_checked")]
    assert all(r["reason"].startswith(f"cannot read {root / 'package.json'}: {WHY}") for r in runs)
    [project] = detect(root)
    result = asyncio.run(run_check(project, "typecheck", workspace=root, config=LintelConfig()))
    assert result.status == "not_checked"
    assert WHY in (result.reason or "")
    # The editor's lint of one file (on open, on save) takes the same path, and tells the reason.
    (root / "app.js").write_text("let x = 1\n", encoding="utf-8")
    one = asyncio.run(run_file_check(project, "lint", root / "app.js", workspace=root, config=LintelConfig()))
    assert one is not None
    assert one.status == "not_checked"
    assert WHY in (one.reason or "")


def test_run_script_is_refused_with_the_json_error(tmp_path: Path) -> None:
    [project] = detect(broken(tmp_path))
    with pytest.raises(BadArgument, match=f"lintel.runScript: cannot read .*package.json: {WHY}"):
        script_command(project, "test")
