"""Many findings: a generated project with N ruff findings through `lintel check --format json` and
through the server's `lintel.lint` command. Prints whether every finding was reported, the wall time and the peak
RSS of lintel next to ruff's own run of the same project (the baseline, measured in the same run).

    python bench/many_findings.py [--files 100] [--per-file 1000]     # 100,000 findings by default

Informational only: nothing here asserts on time or memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import harness
from lsprotocol import types

HERE = Path(__file__).resolve().parent


def generate(root: Path, files: int, per_file: int) -> int:
    """A python project whose every line is one F821 (undefined name); the number of findings."""
    (root / "pyproject.toml").write_text('[project]\nname = "many"\nversion = "0"\n', encoding="utf-8")
    src = root / "src"
    src.mkdir()
    for n in range(files):
        lines = "".join(f"x{i} = undefined_{i}\n" for i in range(per_file))
        (src / f"m{n:04d}.py").write_text(lines, encoding="utf-8")
    return files * per_file


def run_measured(argv: list[str], cwd: Path) -> tuple[int, float, int]:
    """A child run to its end: its exit code, wall seconds and peak RSS in MB (wait4's: the largest of the child
    and the processes it waited for, so a tool lintel ran counts if it was bigger, never added to it)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=harness.tool_env())
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.perf_counter() - started, usage.ru_maxrss // 1024


async def through_the_server(root: Path) -> tuple[int, float, int]:
    """`lintel.lint` on the project: issues in its RunResult, seconds, the server's peak RSS (VmHWM) in MB."""
    server = await harness.start_lintel(root, {"languages": {"python": {"server": ["lintel-bench-no-server"]}}})
    try:
        started = time.perf_counter()
        result = await asyncio.wait_for(
            server.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="lintel.lint", arguments=[{"timeout": 600}])
            ),
            900,
        )
        elapsed = time.perf_counter() - started
        peak = harness.proc_status(server.pid)["VmHWM"] // 1024
    finally:
        await harness.stop_server(server)
    if not isinstance(result, dict):
        raise SystemExit(f"lintel.lint answered {result!r}")
    return len(result["issues"]), elapsed, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--per-file", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lintel-many-") as scratch:
        root = Path(scratch)
        expected = generate(root, args.files, args.per_file)
        print(f"generated {args.files} files, {expected:,} findings")

        ruff = [sys.executable, "-m", "ruff", "check", "--output-format=json", "."]
        _, ruff_s, ruff_mb = run_measured(ruff, root)
        print(f"{'ruff alone (baseline)':<34} {ruff_s:7.1f} s  peak RSS {ruff_mb:5d} MB")

        report = root / "report.json"
        check = [sys.executable, "-m", "lintel", "check", ".", "--only", "lint", "--format", "json"]
        code, check_s, check_mb = run_measured([*check, "--output", str(report)], root)
        reported = len(json.loads(report.read_text(encoding="utf-8"))["issues"])
        verdict = "all reported" if reported == expected else f"MISSING {expected - reported:,}"
        print(
            f"{'lintel check --format json':<34} {check_s:7.1f} s  peak RSS {check_mb:5d} MB  "
            f"{reported:,} issues ({verdict}), exit {code}"
        )

        served, served_s, served_mb = asyncio.run(through_the_server(root))
        verdict = "all reported" if served == expected else f"MISSING {expected - served:,}"
        print(
            f"{'lintel.lint over LSP':<34} {served_s:7.1f} s  peak RSS {served_mb:5d} MB  {served:,} issues ({verdict})"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
