"""`lintel hook post-edit` as a harness runs it: the payload on stdin, the answer in the exit code and on stderr
(2 and the findings; 0 and nothing; 1 and one line for a payload lintel cannot read)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, copy_workspace, require_tool, tool_path

CAPTURED = Path(__file__).parents[1] / "data" / "claude-code-post-tool-use-write.json"
CAPTURED_ROOT = "/home/dev/inventory"
PRICING = "src/inventory/pricing.py"
FINDINGS = [
    "src/inventory/pricing.py:8:5: error F841 Local variable `previous` is assigned to but never used [ruff]",
    "src/inventory/pricing.py:13:40: error E711 Comparison to `None` should be `cond is None` [ruff]",
]


def hook(stdin: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lintel", "hook", "post-edit", *args],
        input=stdin,
        cwd=cwd,
        env={**os.environ, "PATH": tool_path()},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def payload(root: Path, file: str, tool: str = "Write") -> str:
    """The captured PostToolUse payload, its paths moved to `root`."""
    text = CAPTURED.read_text(encoding="utf-8").replace(CAPTURED_ROOT, str(root))
    data = json.loads(text)
    data["tool_name"] = tool
    data["tool_input"]["file_path"] = data["tool_response"]["filePath"] = str(root / file)
    return json.dumps(data)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    require_tool("ruff")
    return copy_workspace("python", tmp_path / "inventory")


def test_a_captured_payload_with_findings_exits_2_with_them_on_stderr(root: Path) -> None:
    done = hook(payload(root, PRICING))
    assert (done.returncode, done.stdout) == (2, "")
    head, *lines = done.stderr.splitlines()
    assert head == "lintel: src/inventory/pricing.py: 2 errors (ruff)"
    assert lines == FINDINGS


def test_a_clean_file_exits_0_and_says_nothing(root: Path) -> None:
    done = hook(payload(root, "src/inventory/labels.py", tool="Edit"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_bare_path_is_checked_too(root: Path) -> None:
    relative = hook(f"{PRICING}\n", cwd=root)
    absolute = hook(str(root / PRICING))
    below = hook("pricing.py", cwd=root / "src" / "inventory")  # run from a folder below the project's root
    assert (relative.returncode, absolute.returncode, below.returncode) == (2, 2, 2)
    assert relative.stderr == absolute.stderr == below.stderr
    assert relative.stderr.splitlines()[1:] == FINDINGS


def test_what_lintel_does_not_check_exits_0_silently(root: Path, tmp_path: Path) -> None:
    (root / "NOTES.md").write_text("# notes\n", encoding="utf-8")
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "x.py").write_text("import os\n", encoding="utf-8")  # a finding, but in no project
    bash = json.dumps({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
    for stdin in (
        payload(root, "NOTES.md"),
        payload(root, "src/inventory/gone.py"),  # deleted since
        payload(root, PRICING, tool="Read"),  # a read-only tool's payload
        bash,
        str(loose / "x.py"),
    ):
        done = hook(stdin, cwd=loose)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), stdin


def test_a_payload_lintel_cannot_read_exits_1_with_one_line(root: Path) -> None:
    for stdin in ("{not json", "", "[1, 2]"):
        done = hook(stdin)
        assert done.returncode == 1, stdin
        assert done.stdout == ""
        [line] = done.stderr.splitlines()
        assert line.startswith("lintel hook post-edit: "), line


def test_the_budget_and_severity_floor_apply(root: Path) -> None:
    one = hook(payload(root, PRICING), "--max-issues", "1")
    assert one.returncode == 2
    assert one.stderr.splitlines()[1:] == [FINDINGS[0], "… and 1 more (max_issues 1, most severe first) not shown"]
    (root / "src" / "inventory" / "report.py").write_text("x = [ 1 ]\n", encoding="utf-8")  # a format warning
    report = json.dumps({"tool_name": "Edit", "tool_input": {"file_path": "src/inventory/report.py"}, "cwd": str(root)})
    assert hook(report).returncode == 2
    floor = hook(report, "--severity", "error")
    assert (floor.returncode, floor.stderr) == (0, "")
    assert hook("x", "--max-issues", "0").returncode == 2  # argparse's usage error, before any payload is read


def test_a_tool_that_timed_out_is_no_finding(root: Path) -> None:
    sleeper = json.dumps([sys.executable, "-c", "import time; time.sleep(30)"])
    (root / "lintel.toml").write_text(f"[languages.python]\nlint = {sleeper}\n", encoding="utf-8")
    clean = hook(payload(root, "src/inventory/labels.py"), "--timeout", "1")
    assert (clean.returncode, clean.stdout) == (0, "")
    [line] = clean.stderr.splitlines()
    assert line.startswith("lintel: src/inventory/labels.py: not checked: "), line
    assert "timed out" in line

    (root / "src" / "inventory" / "report.py").write_text("x = [ 1 ]\n", encoding="utf-8")
    partial = hook(payload(root, "src/inventory/report.py"), "--timeout", "1")
    assert partial.returncode == 2  # the format check's finding
    first, head, *_ = partial.stderr.splitlines()
    assert first.startswith("partial: "), first
    assert "timed out" in first
    assert head.startswith("lintel: src/inventory/report.py: 1 warning"), head
