"""The result cache: a check's RunResult stored under the hash of everything it depends on (engine.cachekey) and
replayed instead of running the tool again. A directory of compressed entries, size-bounded (least recently used
out first), written atomically; an entry that cannot be read is a miss."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import zlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from lintel.core.issues import Issue, TestFailure
from lintel.core.results import RunResult, Status
from lintel.engine.cachefiles import TreeHasher
from lintel.engine.cachekey import KeyInputs, cache_key, checkout_root, relocated, restored
from lintel.runtime.process import ProcessStartError, run_process

log = logging.getLogger(__name__)

ENTRY_FORMAT = 2
DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
_PROBE_TIMEOUT = 30.0
# Only a run that ended the way a run always ends for these inputs is stored: not a timeout, a missing binary,
# output cut short, or a tool that failed (a failure may be the machine's, not the inputs').
_STORED = frozenset({"clean", "findings", "passed"})


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$LINTEL_CACHE_DIR`, else `$XDG_CACHE_HOME/lintel/results`, else ~/.cache/lintel/results."""
    env = os.environ if env is None else env
    if env.get("LINTEL_CACHE_DIR"):
        return Path(env["LINTEL_CACHE_DIR"]).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lintel" / "results"


@dataclass
class CacheCounts:
    """What one run of lintel did with the cache."""

    hits: int = 0
    misses: int = 0
    stored: int = 0
    uncached: int = 0  # runs the cache does not hold (an unknown tool, a test run, an input it could not read)


@dataclass
class CacheStats:
    """What the cache directory holds."""

    directory: Path
    entries: int
    size_bytes: int
    tools: int  # version probes remembered


@dataclass
class ResultCache:
    """One lintel run's view of the cache directory (the memo of the repository's file listing lasts the run)."""

    directory: Path
    max_bytes: int = DEFAULT_MAX_BYTES
    counts: CacheCounts = field(default_factory=CacheCounts)
    hasher: TreeHasher = field(default_factory=TreeHasher)
    _versions: dict[str, str | None] = field(default_factory=dict)

    @property
    def entries_dir(self) -> Path:
        return self.directory / "entries"

    @property
    def tools_dir(self) -> Path:
        return self.directory / "tools"

    async def through(self, run: KeyInputs, execute: Callable[[], Awaitable[RunResult]]) -> RunResult:
        """The stored result of `run` when there is one, else `execute()`'s, stored when it may be."""
        try:
            key = await cache_key(run, self.hasher, self.probe)
        except Exception:  # the cache must never take a check down: no key, the tool runs
            log.exception("computing the cache key of %s failed", run.tool)
            key = None
        if key is None:
            self.counts.uncached += 1
            return await execute()
        root = checkout_root(run.workspace)
        stored = self.load(key, root)
        if stored is not None:
            self.counts.hits += 1
            log.info("%s %s: cached result replayed (%s)", run.tool, run.check, key[:12])
            return stored
        self.counts.misses += 1
        result = await execute()
        if storable(result):
            self.save(key, result, root)
        return result

    def load(self, key: str, root: Path | None = None) -> RunResult | None:
        """The result stored under `key`, its checkout's paths as `root`'s (the checkout it is replayed in)."""
        path = self._entry(key)
        try:
            data = json.loads(restored(zlib.decompress(path.read_bytes()).decode("ascii"), root))
            if data.get("format") != ENTRY_FORMAT or data.get("key") != key:
                raise ValueError("not this key's entry")
            result = result_from_json(data["result"])
        except FileNotFoundError:
            return None
        except Exception as exc:  # a corrupt or foreign entry is a miss, and goes
            log.info("cache entry %s unreadable (%r): removed", path, exc)
            with contextlib.suppress(OSError):  # not ours to remove either
                path.unlink(missing_ok=True)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: the last to go when the cache is pruned
        return result

    def save(self, key: str, result: RunResult, root: Path | None = None) -> None:
        """Store `result` under `key`, the paths inside its checkout `root` written relative to it."""
        document = {"format": ENTRY_FORMAT, "key": key, "result": result_to_json(result)}
        data = zlib.compress(relocated(json.dumps(document), root).encode("ascii"), 6)
        try:
            _write_atomic(self._entry(key), data)
        except OSError as exc:  # a full or read-only disk: the run's result stands, uncached
            log.warning("could not write the cache entry for %s: %s", result.tool, exc)
            return
        self.counts.stored += 1

    def _entry(self, key: str) -> Path:
        return self.entries_dir / key[:2] / f"{key}.json.z"

    async def probe(self, binary: str, args: Sequence[str]) -> str | None:
        """What `binary args` prints, remembered per binary file (path, size, mtime, inode) in the cache."""
        try:
            stat = os.stat(binary)
        except OSError:
            return None
        ident = f"{binary}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\0{' '.join(args)}"
        if ident in self._versions:
            return self._versions[ident]
        name = _sha(ident)
        path = self.tools_dir / f"{name}.json"
        with contextlib.suppress(OSError, ValueError, KeyError):
            self._versions[ident] = str(json.loads(path.read_text(encoding="utf-8"))["version"])
            return self._versions[ident]
        version = await _run_probe(binary, args)
        self._versions[ident] = version
        if version is not None:
            with contextlib.suppress(OSError):
                _write_atomic(path, json.dumps({"binary": binary, "version": version}).encode("utf-8"))
        return version

    def prune(self) -> int:
        """Remove the least recently used entries until the cache is under its size bound; how many went."""
        entries = _entries(self.entries_dir)
        total = sum(size for _, size, _ in entries)
        removed = 0
        for path, size, _ in sorted(entries, key=lambda e: e[2]):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
            total -= size
        return removed

    def stats(self) -> CacheStats:
        entries = _entries(self.entries_dir)
        tools = len(list(self.tools_dir.glob("*.json"))) if self.tools_dir.is_dir() else 0
        return CacheStats(self.directory, len(entries), sum(size for _, size, _ in entries), tools)

    def clear(self) -> int:
        """Remove every entry and remembered probe; how many files went."""
        removed = 0
        for folder in (self.entries_dir, self.tools_dir):
            for path in sorted(folder.rglob("*"), reverse=True) if folder.is_dir() else []:
                with contextlib.suppress(OSError):
                    if path.is_dir():
                        path.rmdir()
                    else:
                        path.unlink()
                        removed += 1
        return removed


def storable(result: RunResult) -> bool:
    return (
        result.status in _STORED
        and not result.timed_out
        and not result.truncated
        and result.missing_binary is None
        and result.coverage is None
    )


def result_to_json(result: RunResult) -> dict[str, Any]:
    """Every field of a RunResult, for its replay."""
    return {
        "language": result.language,
        "check": result.check,
        "tool": result.tool,
        "argv": result.argv,
        "cwd": str(result.cwd),
        "status": result.status,
        "reason": result.reason,
        "exit_code": result.exit_code,
        "duration_ms": result.duration_ms,
        "output": result.output,
        "issues": [issue.to_json() for issue in result.issues],
        "failures": [failure.to_json() for failure in result.failures],
        "binary": result.binary,
        "stdout": result.stdout,
        "scope": result.scope,
    }


def result_from_json(data: Mapping[str, Any]) -> RunResult:
    """The stored result as it was, but for its duration: a replay takes no tool time."""
    status = data["status"]
    if status not in get_args(Status):
        raise ValueError(f"unknown status {status!r}")
    return RunResult(
        language=data["language"],
        check=str(data["check"]),
        tool=str(data["tool"]),
        argv=[str(a) for a in data["argv"]],
        cwd=Path(data["cwd"]),
        status=status,
        reason=data["reason"],
        exit_code=data["exit_code"],
        duration_ms=0,
        output=str(data["output"]),
        issues=[Issue.from_json(i) for i in data["issues"]],
        failures=[TestFailure(**f) for f in data["failures"]],
        binary=data["binary"],
        stdout=str(data["stdout"]),
        scope=data["scope"],
    )


async def _run_probe(binary: str, args: Sequence[str]) -> str | None:
    try:
        proc = await run_process([binary, *args], cwd=Path(binary).parent, timeout=_PROBE_TIMEOUT)
    except ProcessStartError:
        return None
    if proc.timed_out:
        return None
    return f"exit {proc.exit_code}\n{proc.stdout.strip()}\n{proc.stderr.strip()}"


def _entries(folder: Path) -> list[tuple[Path, int, int]]:
    """The stored entries (path, size, mtime); those lintel may not read are not its to count or prune."""
    out: list[tuple[Path, int, int]] = []
    try:
        paths = list(folder.glob("*/*.json.z")) if folder.is_dir() else []
    except OSError:  # a cache folder of another user's, or unreadable
        return out
    for path in paths:
        with contextlib.suppress(OSError):
            stat = path.stat()
            out.append((path, stat.st_size, stat.st_mtime_ns))
    return out


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
