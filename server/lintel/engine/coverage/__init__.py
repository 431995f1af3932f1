"""Coverage: run a project's tests with coverage, keep the per-line index, and answer which tests run a line
(docs/architecture.md, Coverage). The engine's entry points for the server, the CLI and `lintel mcp`."""

from __future__ import annotations

from lintel.engine.coverage.base import CoverageUnsupported, Measurement, Request
from lintel.engine.coverage.engine import CoverageFailed, coverage, measure, supported, tests_covering
from lintel.engine.coverage.store import CoverageStore
from lintel.languages.coverage.model import CoverageIndex, FileCoverage

__all__ = [
    "CoverageFailed",
    "CoverageIndex",
    "CoverageStore",
    "CoverageUnsupported",
    "FileCoverage",
    "Measurement",
    "Request",
    "coverage",
    "measure",
    "supported",
    "tests_covering",
]
