"""The ruff warm worker (lintel.engine.workers.ruff, `ruff server` behind it) against the ruff CLI on the same text.

    .venv/bin/python bench/ruff_worker.py [--samples 30] [--json FILE]

On the generated ~2,000-line module of lint_on_save.py (bench/workloads.py), interleaved, the order flipping every
pair: `RuffWorker.lint(file, text)` (the LSP round trip, conversion to Issues included) and lintel's own
`ruff check --output-format=json … --stdin-filename <file> -` with the text on stdin (spawn to exit, all output
read). Twice: with the text unchanged between lints (a save of an open, unedited file) and with a different text
each time (a save after an edit: the worker sends the whole new text). Every worker answer is checked against
parse_ruff's reading of the CLI's. Also the worker's start (spawn to `initialize` answered) and its first lint.
Informational: nothing asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import workloads
from lintel.core.issues import Issue, ParseContext
from lintel.engine.workers.base import WorkerKey
from lintel.engine.workers.ruff import RuffWorker
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.python.parsers import parse_ruff
from lintel.languages.python.tools import RUFF_LINT


async def run_cli(ruff: str, root: Path, rel: str, text: str) -> tuple[float, str]:
    """The CLI on stdin: seconds from spawn to exit with both streams read, and its stdout."""
    argv = [ruff, *RUFF_LINT.argv[1:], "--stdin-filename", rel, "-"]
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    stdout, _ = await proc.communicate(text.encode("utf-8"))
    return time.perf_counter() - started, stdout.decode("utf-8")


async def timed(call: Callable[[], Awaitable[list[Issue]]]) -> tuple[float, list[Issue]]:
    started = time.perf_counter()
    issues = await call()
    return time.perf_counter() - started, issues


async def compare(worker: RuffWorker, ruff: str, root: Path, file: Path, texts: list[str]) -> dict[str, list[float]]:
    """Worker and CLI on each text in turn (the order flipping every pair); the answers must agree."""
    rel = file.relative_to(root).as_posix()
    ctx = ParseContext(cwd=str(root), root=str(root))
    samples: dict[str, list[float]] = {"worker": [], "cli": []}
    for index, text in enumerate(texts):
        pair: dict[str, Any] = {}
        for side in ("worker", "cli") if index % 2 == 0 else ("cli", "worker"):
            if side == "worker":
                pair["worker"] = await timed(functools.partial(worker.lint, file, text, workspace=root))
            else:
                pair["cli"] = await run_cli(ruff, root, rel, text)
        worker_seconds, issues = pair["worker"]
        cli_seconds, stdout = pair["cli"]
        expected = parse_ruff(ToolOutput(stdout, "", 1), ctx).issues
        if issues != expected:
            raise SystemExit(f"the worker's findings differ from the CLI's on sample {index}")
        samples["worker"].append(worker_seconds * 1000)
        samples["cli"].append(cli_seconds * 1000)
    return samples


def report(name: str, samples: dict[str, list[float]]) -> dict[str, float]:
    worker, cli = statistics.median(samples["worker"]), statistics.median(samples["cli"])
    print(
        f"{name:<22} worker median {worker:7.2f} ms   ruff CLI median {cli:7.2f} ms   "
        f"ratio {worker / cli:5.3f}   (worker p90 {statistics.quantiles(samples['worker'], n=10)[-1]:.2f} ms)"
    )
    return {"worker_ms": worker, "cli_ms": cli, "ratio": worker / cli}


def tool_path() -> None:
    """Put the development tools on PATH the way `make` does (ruff from .venv/bin)."""
    script = workloads.REPO / "scripts" / "toolpath"
    if script.is_file():
        result = subprocess.run([str(script)], capture_output=True, text=True, check=False)
        if result.returncode == 0 and result.stdout.strip():
            os.environ["PATH"] = result.stdout.strip()


async def main(samples: int, output: Path | None) -> None:
    tool_path()
    ruff = shutil.which("ruff")
    if ruff is None:
        raise SystemExit("ruff is not on PATH (run scripts/setup-dev; use scripts/toolpath)")
    results: dict[str, Any] = {"samples": samples}
    with tempfile.TemporaryDirectory(prefix="lintel-bench-ruff-worker-") as temp:
        workload = workloads.python_workspace(Path(temp))
        root, file = workload.root, workload.file
        base = workloads.python_module()
        starts, firsts = [], []
        for _ in range(5):
            worker = RuffWorker(WorkerKey("ruff", root), Path(ruff), dict(os.environ))
            started = time.perf_counter()
            await worker.start()
            starts.append((time.perf_counter() - started) * 1000)
            first, _ = await timed(functools.partial(worker.lint, file, base, workspace=root))
            firsts.append(first * 1000)
            await worker.stop()
        print(f"worker start (spawn → initialize answered): median {statistics.median(starts):.2f} ms")
        print(f"worker first lint (open + diagnostics):      median {statistics.median(firsts):.2f} ms")
        results["start_ms"], results["first_lint_ms"] = statistics.median(starts), statistics.median(firsts)
        worker = RuffWorker(WorkerKey("ruff", root), Path(ruff), dict(os.environ))
        await worker.start()
        try:
            await compare(worker, ruff, root, file, [base] * 4)  # warm-up, untimed
            unchanged = await compare(worker, ruff, root, file, [base] * samples)
            changed = await compare(
                worker, ruff, root, file, [workloads.storm_variant(base, i) for i in range(samples)]
            )
        finally:
            await worker.stop()
        lines = base.count("\n")
        print(f"{lines} lines, {samples} samples each, interleaved; the same findings every time")
        results["unchanged"] = report("unchanged text", unchanged) | {"raw": unchanged}
        results["changed"] = report("text changed each time", changed) | {"raw": changed}
    if output is not None:
        output.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None, help="also write every number and raw sample here")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.samples, arguments.json))
