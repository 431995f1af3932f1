"""The one async process runner (CONTRACT §5). PLACEHOLDER: the runner helper replaces this file."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

STREAM_CAP_BYTES = 500 * 1024
TRUNCATED_MARKER = "[TRUNCATED]"
TIMEOUT_EXIT_CODE = 124


class ProcessStartError(OSError):
    """The process could not be started (missing or non-executable binary, bad cwd)."""


@dataclass(frozen=True)
class ProcessResult:
    argv: tuple[str, ...]
    cwd: str
    exit_code: int
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    duration_ms: int
    pid: int

    @property
    def truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated


async def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    stdin: bytes | None = None,
    cap_bytes: int = STREAM_CAP_BYTES,
    kill_grace: float = 2.0,
    on_start: Callable[[int], None] | None = None,
) -> ProcessResult:
    raise NotImplementedError
