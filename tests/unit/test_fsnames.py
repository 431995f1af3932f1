"""File names that are not UTF-8: printed as U+FFFD in every format, now kept exact: recovered from
the disk where a tool printed the lossy form, then written as each format can carry them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote_to_bytes

import pytest
from lintel.core.fsnames import backslashed, json_text, lossy, recover, recover_issues, uri_path
from lintel.core.issues import make_issue

from tests.helpers import require_tool, tool_path

BAD = os.fsdecode(b"bad\xff.py")  # 'bad\udcff.py'


def test_a_lossy_name_is_recovered_from_the_disk(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"d\xfe")).mkdir()
    (tmp_path / os.fsdecode(b"d\xfe") / BAD).write_text("")
    (tmp_path / "ok.py").write_text("")
    exact = os.fsdecode(b"d\xfe/bad\xff.py")
    assert recover(tmp_path, "d\ufffd/bad\ufffd.py") == exact
    assert recover(tmp_path, str(tmp_path / "d\ufffd" / "bad\ufffd.py")) == str(tmp_path / exact)
    assert recover(tmp_path, "ok.py") == "ok.py"
    assert recover(tmp_path, "nothing\ufffd.py") == "nothing\ufffd.py"  # not on disk: as printed
    (tmp_path / os.fsdecode(b"d\xfe") / os.fsdecode(b"bad\xfe.py")).write_text("")
    assert recover(tmp_path, "d\ufffd/bad\ufffd.py") == "d\ufffd/bad\ufffd.py"  # two candidates: no guess


def test_the_issue_s_file_and_signature_name_the_exact_file(tmp_path: Path) -> None:
    (tmp_path / BAD).write_text("import os\n")
    printed = make_issue(kind="lint", message="unused", source="ruff", file=lossy(BAD), line=1, rule="F401")
    [issue] = recover_issues([printed], tmp_path)
    assert issue.file == BAD
    assert issue.signature == f"lint:{BAD}:1:unused"


def test_each_format_writes_the_exact_name_its_own_way() -> None:
    text = json_text(json.dumps({"file": BAD, "plain": "é"}, ensure_ascii=False))
    assert text == '{"file": "bad\\udcff.py", "plain": "é"}'
    text.encode("utf-8")  # valid UTF-8
    assert os.fsencode(json.loads(text)["file"]) == b"bad\xff.py"
    assert backslashed(BAD) == "bad\\xff.py"
    assert backslashed("é.py") == "é.py"
    assert uri_path(BAD) == "bad%FF.py"
    assert unquote_to_bytes(uri_path(BAD)) == b"bad\xff.py"
    assert uri_path("src/a b.py") == "src/a b.py"  # UTF-8 names as before


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_lintel_check_reports_the_exact_name_in_every_format(tmp_path: Path) -> None:
    require_tool("ruff")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n')
    (tmp_path / BAD).write_text("import os\n")
    outputs: dict[str, bytes] = {}
    for form in ("text", "json", "sarif", "github"):
        # Bytes, not text: the text report on stdout carries the name's raw bytes.
        argv = [sys.executable, "-m", "lintel", "check", str(tmp_path), "--only", "lint", "--format", form, "-q"]
        proc = subprocess.run(argv, env={**os.environ, "PATH": tool_path()}, capture_output=True, check=False)
        assert proc.returncode == 1, proc.stderr
        outputs[form] = proc.stdout
    assert b"bad\xff.py:1:8: error F401" in outputs["text"]
    [issue] = json.loads(outputs["json"])["issues"]
    assert os.fsencode(issue["file"]) == b"bad\xff.py"
    assert issue["signature"].startswith(f"lint:{BAD}:1:")
    sarif = json.loads(outputs["sarif"])
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.py"
    assert b"::error file=bad\\xff.py,line=1" in outputs["github"]
    for form in ("json", "sarif", "github"):
        outputs[form].decode("utf-8")  # the formats that must be UTF-8 are
