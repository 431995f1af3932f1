"""The tools that have a warm worker, and how each is run: the one table the pool is given (tool -> kind)."""

from __future__ import annotations

from collections.abc import Mapping

from lintel.engine.workers import eslint, ruff
from lintel.engine.workers.pool import WorkerKind

# Keyed by the tool's name as its lint command gives it (ToolSpec.tool, the Issue source).
WORKERS: Mapping[str, WorkerKind] = {
    "eslint": WorkerKind(binary="node", factory=eslint.EslintWorker, declines=eslint.declines),
    "ruff": WorkerKind(binary="ruff", factory=ruff.RuffWorker),
}
