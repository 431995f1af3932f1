"""The engine's side of a coverage run (docs/architecture.md, Coverage): the request, which is the `CoverageHost` each
language's coverage reader (`lintel.languages.<name>.coverage`) is given, its test runs planned like any check's."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lintel.core.results import RunResult
from lintel.engine.checks import plan_check, plan_spec, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.languages.base import Project, ToolSpec
from lintel.languages.coverage.base import (
    COVERAGE_CHECK,
    CoverageUnsupported,
    Measurement,
    Refined,
    blank_result,
    not_checked,
)


@dataclass(frozen=True)
class Request:
    """One coverage run: the project, where it lives, and the run's options."""

    project: Project
    workspace: Path
    config: LintelConfig
    timeout: float | None = None
    on_start: Callable[[int], None] | None = None

    @property
    def seconds(self) -> float:
        return timeout_for("test", self.config, self.timeout)

    async def run_tests(self, extra_args: Sequence[str], env: Mapping[str, str] | None = None) -> RunResult:
        workspace = self.workspace.resolve()
        planned = plan_check(self.project, "test", self.config, workspace)
        result = await run_planned(
            planned,
            workspace=workspace,
            timeout=self.seconds,
            env=env,
            on_start=self.on_start,
            extra_args=extra_args,
        )
        result.check = COVERAGE_CHECK
        return result

    async def run_spec(self, spec: ToolSpec) -> RunResult:
        workspace = self.workspace.resolve()
        planned = plan_spec(self.project, spec, self.config, workspace)
        result = await run_planned(planned, workspace=workspace, timeout=self.seconds, on_start=self.on_start)
        result.check = COVERAGE_CHECK
        return result

    def test_spec(self) -> ToolSpec:
        return plan_check(self.project, "test", self.config, self.workspace.resolve()).spec

    def test_binary(self) -> str | None:
        return plan_check(self.project, "test", self.config, self.workspace).binaries[0].path

    def binary_setting(self, name: str) -> str | None:
        return self.config.languages.get(self.project.language).binaries.get(name)


__all__ = [
    "COVERAGE_CHECK",
    "CoverageUnsupported",
    "Measurement",
    "Refined",
    "Request",
    "blank_result",
    "not_checked",
]
