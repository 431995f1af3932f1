"""`textDocument/codeAction` latency on a Python file with ~100 ruff findings: lintel beside `ruff server`, in one
interleaved run. Each round asks both servers for the quick fixes of every diagnostic (one request each, as an
editor does when the cursor lands on a finding) and the fix-all of the whole file (the request, and the resolve
of its edit); prints the medians and the ratio lintel / ruff server.

    python bench/code_actions.py [--rounds N]

Informational only: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import harness
import lint_on_save
from lsprotocol import types
from peer_systems import Lsp

FINDINGS_BLOCK = """
def block_{n}(value: Optional[int]) -> List[int]:
    if value == None:
        return list([1, 2])
    return [f"{{value}}", f"plain"]  # noqa-free: F541 on the second
"""


def workload(parent: Path) -> tuple[Path, Path]:
    """A project whose one file has ~100 ruff findings, most of them fixable."""
    root = parent / "project"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["F", "E7", "UP", "C4"]\n',
        encoding="utf-8",
    )
    body = "import os\nimport sys\nfrom typing import List, Optional\n" + "".join(
        FINDINGS_BLOCK.format(n=n) for n in range(20)
    )
    file = root / "src" / "many.py"
    file.write_text(body, encoding="utf-8")
    return root, file


async def ask(system: Lsp, diagnostics: Sequence[types.Diagnostic], only: list[str] | None) -> tuple[float, int]:
    """Milliseconds for one codeAction request (the first diagnostic's range, or the whole file with `only`)."""
    assert system.server is not None
    client = system.server.client
    rng = diagnostics[0].range if diagnostics else types.Range(start=types.Position(0, 0), end=types.Position(0, 0))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=system.uri),
        range=rng,
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
    )
    started = time.perf_counter()
    answer = await asyncio.wait_for(client.text_document_code_action_async(params), 60)
    if only and "quickfix" not in only:
        # Fix-all: the edit itself, resolved when the answer left it for later (both servers do for VS Code).
        for action in answer or []:
            if isinstance(action, types.CodeAction) and action.edit is None and action.data is not None:
                await asyncio.wait_for(client.code_action_resolve_async(action), 60)
    return (time.perf_counter() - started) * 1000, len(answer or [])


async def diagnostics_of(system: Lsp) -> list[types.Diagnostic]:
    if system.pull:
        return await system.pull_diagnostics()
    assert system.server is not None
    latest = [p for p in system.server.recorder.publishes if p.uri == system.uri]
    return list(latest[-1].diagnostics) if latest else []


async def run(rounds: int) -> dict[str, Any]:
    parent = Path(tempfile.mkdtemp(prefix="lintel-bench-actions-"))
    try:
        root, file = workload(parent)
        ruff = shutil.which("ruff", path=harness.tool_env()["PATH"])
        if ruff is None:
            raise SystemExit("ruff is not installed (run scripts/setup-dev)")
        options = lint_on_save.server_options(language_servers=False)
        systems = [
            Lsp("lintel", harness.LINTEL_COMMAND, root, file, "python", options=options, echo_stderr=True),
            Lsp("ruff server", [ruff, "server"], root, file, "python"),
        ]
        for system in systems:
            await system.start()
        found = {s.name: await diagnostics_of(s) for s in systems}
        quick: dict[str, list[float]] = {s.name: [] for s in systems}
        fix_all: dict[str, list[float]] = {s.name: [] for s in systems}
        offered: dict[str, int] = {s.name: 0 for s in systems}
        kinds = {"lintel": ["source.fixAll.lintel"], "ruff server": ["source.fixAll.ruff"]}
        for _ in range(rounds):
            for system in systems:  # interleaved: both see the same machine load
                for diagnostic in found[system.name]:
                    ms, count = await ask(system, [diagnostic], ["quickfix"])
                    quick[system.name].append(ms)
                    offered[system.name] += count
                ms, _ = await ask(system, [], kinds[system.name])
                fix_all[system.name].append(ms)
        for system in systems:
            if system.server is not None:
                await harness.stop_server(system.server)
        return {
            "findings": {name: len(diagnostics) for name, diagnostics in found.items()},
            "quickfix": {name: harness.summary(sorted(samples)) for name, samples in quick.items()},
            "fixAll": {name: harness.summary(sorted(samples)) for name, samples in fix_all.items()},
            "actionsOffered": offered,
        }
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    results = asyncio.run(run(args.rounds))
    print(f"findings: {results['findings']}")
    for what in ("quickfix", "fixAll"):
        rows = results[what]
        for name, stats in rows.items():
            print(f"{what:8} {name:12} median {stats['median']:7.2f} ms  p90 {stats['p90']:7.2f} ms  n={stats['n']}")
        lintel, ruff = rows["lintel"]["median"], rows["ruff server"]["median"]
        print(f"{what:8} lintel / ruff server (median): {lintel / ruff:.2f}" if ruff else "")
    print(f"quick-fix actions offered: {results['actionsOffered']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
