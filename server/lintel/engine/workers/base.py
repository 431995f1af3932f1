"""The contract between the worker pool and each tool's warm worker (eslint's Node worker, `ruff server`)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from lintel.core.issues import Issue


@dataclass(frozen=True)
class WorkerKey:
    """One worker per tool and project root (the folder the CLI run of that tool starts in)."""

    tool: str  # the Issue source the CLI run gives: "eslint", "ruff"
    root: Path


class WorkerError(Exception):
    """The worker could not answer this request: it crashed, timed out, answered something unreadable, or cannot
    load the tool. The caller lints with the CLI instead; the pool starts a fresh worker on a later request."""


class WorkerUnsupported(WorkerError):
    """This installation of the tool has no warm path lintel reads (a ruff older than its first stable `ruff
    server`): not a fault — the CLI lints, quietly, until the tool's installation changes."""


class FixingWorker(Protocol):
    """A worker that also fixes a text as the tool's own fix mode does (eslint's: `lintText` with `fix: true`)."""

    async def fix(self, file: Path, text: str) -> str | None:
        """`text` (the file `file`, saved or not) with the tool's safe fixes applied, as its fix mode applies them;
        None when it changes nothing. WorkerError when it cannot answer."""


class LintWorker(Protocol):
    """A warm tool. One request at a time; a request superseded by a newer one may be cancelled (the awaiting
    task is cancelled: the worker must stay usable, or say it is not through `alive`)."""

    key: WorkerKey

    async def start(self) -> None:
        """Start the tool and wait until it can lint; WorkerError when it cannot."""

    def lint(self, file: Path, text: str, *, workspace: Path) -> Awaitable[list[Issue]]:
        """The findings for `file` (absolute, inside `key.root`) with content `text`, as lintel's parser for the
        same tool reads them from the CLI's output, before finalizing: `file` relative to `workspace`, 1-based
        line and column as the CLI prints them, same rule, message and severity. The caller finalizes
        (fingerprints), keeps the file's own and sorts, as for a CLI run. WorkerError when it cannot answer
        (raised at the call or by the awaitable). A worker may send the request at the call, before the awaitable
        is awaited (ruff's does: a lint ahead is then under way before the next message is read)."""

    def watched(self) -> Sequence[Path]:
        """Files whose change (created, removed, modified) means the tool's configuration or installation changed
        and the worker must be restarted (`eslint.config.*`, `package.json`, the lock file,
        `node_modules/eslint/package.json`; `pyproject.toml`, `ruff.toml`, `.ruff.toml`)."""

    @property
    def alive(self) -> bool:
        """Whether it can take another request (False once its process ended)."""

    async def stop(self) -> None:
        """End it and every process it started; idempotent."""
