"""The warm eslint worker: `node eslint_worker.cjs <root>` (shipped with lintel) loads the project's own eslint
once and lints each text through its API; its answer is what `eslint --format json-with-metadata` prints (fixes,
suggestions and rule pages included), read by the same parser as the CLI's output (docs/architecture.md, "Warm
workers"). It also gives a text as eslint's fix mode leaves it (`fix`), for the editor's fix-all."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from lintel.core.issues import Issue, ParseContext
from lintel.engine.workers.base import WorkerError, WorkerKey
from lintel.engine.workers.lines import JsonLinesChild
from lintel.languages.node.parsers import parse_eslint
from lintel.languages.node.tools import LOCK_FILES
from lintel.languages.parsers.base import ToolOutput

log = logging.getLogger(__name__)

SCRIPT = Path(__file__).with_name("eslint_worker.cjs")

# The files eslint reads its configuration from, by the kind of configuration the project's eslint uses.
FLAT_CONFIGS = tuple(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts"))
ESLINTRC_CONFIGS = (
    *(f".eslintrc.{ext}" for ext in ("js", "cjs", "yaml", "yml", "json")),
    ".eslintrc",
    "package.json",  # its `eslintConfig`
)
# The eslint CLI applies bulk suppressions from this file (in its cwd) to a run on files; the API does not.
SUPPRESSIONS_FILE = "eslint-suppressions.json"


def declines(root: Path) -> str | None:
    """Why a project's lint must stay with the eslint CLI, or None: the worker lints through eslint's API, which
    does not apply the bulk suppressions (`eslint-suppressions.json`) the CLI applies."""
    if (root / SUPPRESSIONS_FILE).exists():
        return f"{SUPPRESSIONS_FILE}: eslint's bulk suppressions are applied by the eslint CLI only"
    return None


def _lock_file(root: Path) -> Path:
    """The lock file the project's installs follow: the nearest one at or above its root (a workspace member's
    is the workspace root's), as node.py finds the package manager; package-lock.json at the root if none."""
    for folder in (root, *root.parents):
        for name, _ in LOCK_FILES:
            if (folder / name).is_file():
                return folder / name
        if (folder / ".git").exists() or (folder / "pnpm-workspace.yaml").is_file():
            break
    return root / "package-lock.json"


class EslintWorker:
    """One project's eslint, warm. Restart it when `watched()` changes: eslint reads its configuration once."""

    def __init__(self, key: WorkerKey, binary: Path, env: Mapping[str, str]) -> None:
        self.key = key
        self.binary = binary  # node
        self.env = env
        self.version: str | None = None
        self._child: JsonLinesChild | None = None
        self._config_names: tuple[str, ...] = (*FLAT_CONFIGS, *ESLINTRC_CONFIGS)
        root = key.root
        self._installation: list[Path] = [
            root / "package.json",
            _lock_file(root),
            root / "tsconfig.json",  # typescript-eslint's typed rules read it
            root / "node_modules" / "eslint" / "package.json",
        ]
        self._configs: set[Path] = {root / name for name in self._config_names}
        self._config_folders: set[Path] = {root}

    @property
    def pid(self) -> int | None:
        return self._child.pid if self._child is not None else None

    @property
    def alive(self) -> bool:
        return self._child is not None and self._child.alive

    async def start(self) -> None:
        label = f"eslint worker for {self.key.root}"
        child = await JsonLinesChild.spawn(
            [str(self.binary), str(SCRIPT), str(self.key.root)], cwd=self.key.root, env=self.env, label=label
        )
        self._child = child
        try:
            hello = await child.receive()
        except BaseException:
            await child.stop()
            raise
        if hello.get("ready") is not True:
            await child.stop()
            raise WorkerError(_first_line(hello.get("error")) or f"{label} did not start: {hello!r:.200}")
        self.version = str(hello.get("version") or "") or None
        if hello.get("configType") == "flat":
            self._config_names = FLAT_CONFIGS
        elif hello.get("configType") == "eslintrc":
            self._config_names = ESLINTRC_CONFIGS
        package = hello.get("packageJson")
        if isinstance(package, str):
            self._installation[-1] = Path(package)
        log.info("%s: eslint %s (%s config)", label, self.version, hello.get("configType"))

    async def lint(self, file: Path, text: str, *, workspace: Path) -> list[Issue]:
        child = self._child
        if child is None:
            raise WorkerError("the eslint worker is not started")
        answer = await child.request({"file": str(file), "text": text})
        if "error" in answer:
            raise WorkerError(f"eslint failed: {_first_line(answer['error'])}")
        output = answer.get("output")
        if not isinstance(output, str):
            raise WorkerError(f"the eslint worker answered without output: {answer!r:.200}")
        config = answer.get("configFile")
        self._watch_configs(file, Path(config) if isinstance(config, str) else None)
        parsed = parse_eslint(
            ToolOutput(output, "", 0, None), ParseContext(cwd=str(self.key.root), root=str(workspace))
        )
        if not parsed.recognized:
            raise WorkerError(f"the eslint worker's output is not eslint's JSON: {output[:200]!r}")
        return list(parsed.issues)

    async def fix(self, file: Path, text: str) -> str | None:
        """`text` (the file `file`, saved or not) as `eslint --fix-dry-run` leaves it: every fix eslint's fix mode
        applies (never a suggestion), in its own passes; None when eslint changed nothing (or ignores the file)."""
        child = self._child
        if child is None:
            raise WorkerError("the eslint worker is not started")
        answer = await child.request({"fix": True, "file": str(file), "text": text})
        if "error" in answer:
            raise WorkerError(f"eslint --fix failed: {_first_line(answer['error'])}")
        fixed = answer.get("fixed")
        if fixed is not None and not isinstance(fixed, str):
            raise WorkerError(f"the eslint worker's fix answer is not text: {answer!r:.200}")
        return fixed

    def _watch_configs(self, file: Path, config: Path | None) -> None:
        """Config files that would take over for `file` if they appeared: those of the folders from the file's
        up to the one holding the config eslint used (eslint 10 looks up from each file; 9 from its cwd, and a
        nested one is harmless to watch), else up to the root."""
        stop = config.parent if config is not None else self.key.root
        if config is not None:
            self._configs.add(config)
        folder = file.parent
        while folder not in self._config_folders:
            self._config_folders.add(folder)
            self._configs.update(folder / name for name in self._config_names)
            if folder == stop or folder == folder.parent or not folder.is_relative_to(stop):
                break
            folder = folder.parent

    def watched(self) -> Sequence[Path]:
        return [*self._installation, *sorted(self._configs)]

    async def stop(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            await child.stop()

    def kill(self) -> None:
        if self._child is not None:
            self._child.kill()


def _first_line(text: object) -> str:
    """An error's message without its stack trace (the whole of it is in the log)."""
    if not isinstance(text, str):
        return ""
    if "\n" in text:
        log.info("eslint worker error: %s", text)
    return text.strip().splitlines()[0] if text.strip() else ""
