"""Coverage: run a project's tests with coverage, keep the per-line index, and answer which tests run a line
(docs/design.md, Coverage). The engine's entry points for the server, the CLI and `lintel mcp`."""

from __future__ import annotations

from lintel.coverage.base import CoverageUnsupported, Measurement, Request
from lintel.coverage.engine import CoverageFailed, coverage, measure, supported, tests_covering
from lintel.coverage.model import CoverageIndex, FileCoverage
from lintel.coverage.store import CoverageStore

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
