"""Shared test helpers: where fixtures live, running the real CLI, loading captured tool output."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

import pytest
from lintel.core.issues import ParseContext
from lintel.languages import LANGUAGES, CheckName, FileCheckName, FileScope, Project, ToolSpec
from lintel.languages.parsers.base import ToolOutput

REPO = Path(__file__).resolve().parent.parent
WORKSPACES = REPO / "tests" / "workspaces"
CAPTURES = REPO / "tests" / "captures"
TOOLS_DIR = Path(os.environ.get("LINTEL_TOOLS_DIR", Path.home() / ".cache" / "lintel-tools"))


# Build output, installed packages and caches stay behind; node_modules are symlinked back (copy_workspace).
_NOT_COPIED = shutil.ignore_patterns("target", "node_modules", ".ruff_cache", ".pytest_cache", ".mypy_cache")


class MessageRecorder:
    """A pygls Writer keeping each message it is given (set with `include_headers=False`)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.messages.append(json.loads(data))

    def close(self) -> None:
        return None


def copy_workspace(name: str, dest: Path) -> Path:
    """A private copy of tests/workspaces/<name>; node_modules are symlinked back so eslint, tsc and typescript's
    language server resolve."""
    source = WORKSPACES / name
    # shutil.copy, not copy2: fresh mtimes. Every rust copy shares one CARGO_TARGET_DIR, and cargo trusts mtimes:
    # a copy with the fixture's old mtimes would be "fresh" against a build of another test's edited copy.
    shutil.copytree(source, dest, symlinks=True, ignore=_NOT_COPIED, copy_function=shutil.copy)
    for current, dirs, _ in os.walk(source):
        if "node_modules" in dirs:
            modules = Path(current) / "node_modules"
            (dest / modules.relative_to(source)).symlink_to(modules, target_is_directory=True)
        dirs[:] = [d for d in dirs if d not in ("node_modules", "target", ".git")]
    return dest


def column_in(text: str, characters: int, encoding: str) -> int:
    """The first `characters` code points of `text`, counted in the LSP position encoding (the tests' own
    arithmetic, not lintel's)."""
    prefix = text[:characters]
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    if encoding == "utf-16":
        return len(prefix.encode("utf-16-le")) // 2
    return len(prefix)


def tool_path() -> str:
    """PATH with the dev tools (venv, go/npm/rust caches filled by scripts/setup-dev) in front, as scripts/toolpath."""
    extra = [
        REPO / ".venv" / "bin",
        TOOLS_DIR / "go" / "bin",
        TOOLS_DIR / "npm" / "bin",
        TOOLS_DIR / "rust" / "bin",  # before ~/.cargo/bin: the built rust-analyzer shadows rustup's proxy
        Path.home() / ".cargo" / "bin",
        Path("/usr/local/go/bin"),
    ]
    parts = [str(p) for p in extra if p.is_dir()]
    return os.pathsep.join([*parts, os.environ.get("PATH", "")])


REQUIRE_TOOLS = "LINTEL_REQUIRE_TOOLS"  # set to 1 (.ci/run does): a missing tool fails its test instead of skipping it


def missing_tool(reason: str, *, module: bool = False) -> NoReturn:
    """Skip a test (a whole module, with `module`) whose tool is not installed, saying which and how to get it;
    under LINTEL_REQUIRE_TOOLS=1 fail it instead, so a set-up that did not install a tool can never leave CI green."""
    if os.environ.get(REQUIRE_TOOLS) == "1":
        pytest.fail(f"{reason} — {REQUIRE_TOOLS}=1 requires every tool the tests drive", pytrace=False)
    pytest.skip(reason, allow_module_level=module)


def require_tool(name: str, hint: str = "run scripts/setup-dev") -> str:
    """The tool's path, or skip (fail under LINTEL_REQUIRE_TOOLS=1) saying which tool is missing and how to get it."""
    found = shutil.which(name, path=tool_path())
    if not found:
        missing_tool(f"{name} is not installed ({hint})")
    return found


def require_path(path: Path, hint: str = "run scripts/setup-dev") -> Path:
    if not path.exists():
        missing_tool(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path} is missing ({hint})")
    return path


def run_lintel(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 900,
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI (`python -m lintel ...`) as a user would."""
    full_env = dict(os.environ)
    full_env["PATH"] = tool_path()
    if env is not None:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "lintel", *args],
        cwd=cwd or REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def lintel_json(*args: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    """`lintel check ... --format json`: the exit code and the parsed report."""
    proc = run_lintel(*args, "--format", "json", **kwargs)
    try:
        data = json.loads(proc.stdout)
    except ValueError as exc:  # pragma: no cover - shown on failure only
        raise AssertionError(f"not JSON (exit {proc.returncode}):\n{proc.stdout[:2000]}\n{proc.stderr[:2000]}") from exc
    return proc.returncode, data


def run_tool(
    argv: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 900, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a real tool by hand, the baseline lintel's results are compared against (`stdin`: its input)."""
    full_env = dict(os.environ)
    full_env["PATH"] = tool_path()
    if env is not None:
        full_env.update(env)
    return subprocess.run(
        argv, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout, check=False, input=stdin
    )


def load_capture(tool: str, case: str) -> tuple[ToolOutput, ParseContext, dict[str, Any]]:
    """A captured real run: tests/captures/<tool>/<case>.{stdout,stderr,report,meta.json}.

    meta.json records the command, its cwd (absolute at capture time, so paths in the output resolve),
    the root issues are reported against, the exit code and the tool's version.
    """
    base = CAPTURES / tool
    meta = json.loads((base / f"{case}.meta.json").read_text(encoding="utf-8"))

    def read(ext: str) -> str | None:
        path = base / f"{case}.{ext}"
        return path.read_text(encoding="utf-8") if path.exists() else None

    output = ToolOutput(
        stdout=read("stdout") or "",
        stderr=read("stderr") or "",
        exit_code=meta.get("exit_code"),
        report=read("report"),
    )
    ctx = ParseContext(cwd=meta["cwd"], root=meta.get("root", meta["cwd"]))
    return output, ctx, meta


def truncated_capture(
    case: tuple[str, str], cut_out: float, cut_err: float, code: int | None
) -> tuple[ToolOutput, ParseContext]:
    """A captured run cut short as the runner's cap would cut it: stdout ends in `[TRUNCATED]`."""
    output, ctx, _ = load_capture(*case)
    truncated = ToolOutput(
        output.stdout[: int(len(output.stdout) * cut_out)] + "\n[TRUNCATED]",
        output.stderr[: int(len(output.stderr) * cut_err)],
        code,
    )
    return truncated, ctx


def finding_keys(issues: Iterable[Mapping[str, Any]]) -> Counter[tuple[Any, ...]]:
    """A multiset of (file, line, rule) for comparing lintel's findings with a tool's own."""
    return Counter((i.get("file"), i.get("line"), i.get("rule")) for i in issues)


def write_source(root: Path, name: str, text: str) -> Path:
    """`text` (dedented, its leading newline dropped) written as `root/name`, folders made; the file, resolved."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path.resolve()


def make_project(language: str, root: Path, markers: tuple[str, ...] = (), **facts: Any) -> Project:
    """A built-in language's project at `root`, without detection (package_manager=, scripts= for node)."""
    return Project(LANGUAGES[language], root, markers, **facts)


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    return project.spec.tool_for(project, check)


def file_scope(project: Project, check: FileCheckName, file: Path, *, use_stdin: bool) -> FileScope:
    return project.spec.file_scope(project, check, file, use_stdin)


def formatter_for(project: Project, file: Path) -> ToolSpec | None:
    return project.spec.formatter_for(project, file)


_COPIES: list[str] = []

# Imports every lintel module and prints the file of each module then loaded.
_LOADED = """
import importlib, pkgutil, sys, lintel
for found in pkgutil.walk_packages(lintel.__path__, "lintel."):
    if not found.name.endswith("__main__"):  # that one runs the CLI
        try:
            importlib.import_module(found.name)
        except Exception:
            pass
print("\\n".join(str(getattr(module, "__file__", None)) for module in list(sys.modules.values())))
"""


def _readable_copies() -> list[str]:
    """lintel and the installed packages its modules import, copied into a folder of /tmp any user can read: made
    once per session, for a checkout another user cannot enter."""
    if _COPIES:
        return _COPIES
    stage = Path(tempfile.mkdtemp(prefix="lintel-readable-", dir="/tmp"))
    atexit.register(shutil.rmtree, stage, True)
    purelib = Path(sysconfig.get_paths()["purelib"])
    env = {**os.environ, "PYTHONPATH": str(REPO / "server")}
    loaded = subprocess.run([sys.executable, "-c", _LOADED], env=env, capture_output=True, text=True, timeout=120)
    tops = {Path(f).relative_to(purelib).parts[0] for f in loaded.stdout.splitlines() if f.startswith(f"{purelib}/")}
    shutil.copytree(REPO / "server" / "lintel", stage / "lintel")
    for top in tops:
        source = purelib / top
        if source.is_dir():
            shutil.copytree(source, stage / top)
        else:
            shutil.copy(source, stage / top)
    for current, dirs, files in os.walk(stage):
        for name in dirs:
            (Path(current) / name).chmod(0o755)
        for name in files:
            (Path(current) / name).chmod(0o644)
    # ruff is a binary in the venv's bin: that user runs a copy (the other tools the tests give it are on /usr/bin).
    ruff = Path(sys.executable).parent / "ruff"
    if ruff.is_file():
        (stage / "bin").mkdir(mode=0o755)
        shutil.copy(ruff, stage / "bin" / "ruff")
        (stage / "bin" / "ruff").chmod(0o755)
    stage.chmod(0o755)
    _COPIES.append(str(stage))
    return _COPIES


class AnotherUser:
    """Runs lintel as a user that may not read a folder: root reads everything, so as root the command is dropped
    to `nobody` (setpriv) on a Python that user can run (one in a folder of root's may not be), with lintel and this
    venv's packages on PYTHONPATH; as any other user, as that user. `folder()` makes a folder that user can enter."""

    DROP = ("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups")

    def __init__(self, python: str, prefix: tuple[str, ...], paths: list[str] | None = None) -> None:
        self.python = python
        self.prefix = prefix
        # Where lintel and its packages are imported from: this checkout and venv, or copies of them that user
        # can read (a checkout inside a folder only its owner may enter, as `mktemp -d` makes).
        self.paths = paths if paths is not None else [str(REPO / "server"), sysconfig.get_paths()["purelib"]]
        self.made: list[Path] = []

    @classmethod
    def find(cls) -> AnotherUser:
        if os.geteuid() != 0:
            return cls(sys.executable, ())
        if shutil.which("setpriv") is None:
            missing_tool("setpriv is not installed (util-linux): permission tests need another user")
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        pythons = list(
            dict.fromkeys([os.path.realpath(sys.executable), f"/usr/bin/{version}", f"/usr/local/bin/{version}"])
        )
        for paths in (None, "staged"):
            for python in pythons:
                user = cls(python, cls.DROP, _readable_copies() if paths == "staged" else None)
                probe = subprocess.run(
                    [*user.argv("-c", "import lintel, pydantic, pygls")],
                    env=user.env(),
                    capture_output=True,
                    timeout=60,
                )
                if probe.returncode == 0:
                    return user
        missing_tool(f"no {version} that the user nobody can run, with lintel importable")

    def argv(self, *args: str) -> list[str]:
        return [*self.prefix, self.python, *args]

    def env(self) -> dict[str, str]:
        path = tool_path()
        if self.paths is _COPIES:
            path = os.pathsep.join([str(Path(_COPIES[0]) / "bin"), path])
        return {**os.environ, "PATH": path, "PYTHONPATH": os.pathsep.join(self.paths), "HOME": "/tmp"}

    def folder(self) -> Path:
        """A fresh folder that user can read, write and enter (tmp_path, under a 0700 folder of root's, is not)."""
        made = Path(tempfile.mkdtemp(prefix="lintel-other-user-", dir="/tmp"))
        made.chmod(0o777)
        self.made.append(made)
        return made

    def clean(self) -> None:
        for made in self.made:
            for current, dirs, _ in os.walk(made):
                for name in dirs:
                    (Path(current) / name).chmod(0o755)
            shutil.rmtree(made, ignore_errors=True)
