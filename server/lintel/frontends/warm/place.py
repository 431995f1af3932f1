"""Where the warm lintel listens, and whether a command may use it: shared by the client (which must stay light:
the standard library's os, sys, stat and zlib only) and the warm lintel itself."""

from __future__ import annotations

import os
import stat
import sys
import zlib

import lintel

TYPE_CHECKING = False  # typing's own costs an import this entry point does without
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# The commands a warm lintel runs; the rest are cheap already, or (serve --tcp) long-lived listeners of their own.
WARM_COMMANDS = frozenset({"check", "detect", "serve", "mcp", "hook"})
NO_DAEMON_FLAG = "--no-daemon"
PROTOCOL = b"LINTEL-WARM 1"


# What the interpreter reads at its start: a client that sets one is not served by an interpreter started without.
_INTERPRETER_VARIABLES = (
    "PYTHONPROFILEIMPORTTIME",
    "PYTHONDEVMODE",
    "PYTHONTRACEMALLOC",
    "PYTHONMALLOC",
    "PYTHONASYNCIODEBUG",
    "PYTHONHASHSEED",
    "PYTHONWARNINGS",
    "PYTHONSAFEPATH",
)


def identity(env: Mapping[str, str]) -> str:
    """One warm lintel per lintel version, Python executable, installed copy of the package and PYTHONPATH (two
    checkouts of lintel, or two virtualenvs, never share one)."""
    package = os.path.dirname(os.path.abspath(lintel.__file__))
    key = f"{sys.executable}\0{package}\0{env.get('PYTHONPATH', '')}"
    stamp = zlib.adler32(key.encode("utf-8", "surrogateescape"))
    return f"{lintel.__version__}-{stamp:08x}"


def run_folder(env: Mapping[str, str]) -> str:
    """The user's private folder for the socket: `$XDG_RUNTIME_DIR/lintel`, else `<tmp>/lintel-<uid>`."""
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "lintel")
    return os.path.join(env.get("TMPDIR") or "/tmp", f"lintel-{os.getuid()}")


def socket_path(env: Mapping[str, str]) -> str:
    return os.path.join(run_folder(env), f"warm-{identity(env)}.sock")


def private_folder(folder: str, *, create: bool) -> bool:
    """Whether `folder` is this user's alone (a directory, not a link, owned by us, no access for others); with
    `create`, made so when missing. Another user's folder, or a loose one, is never used."""
    if create:
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return False
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false", "no", "off")


def wanted(argv: Sequence[str], env: Mapping[str, str]) -> bool:
    """Whether this command line goes to the warm lintel: a warm command, on Linux, not turned off
    (`--no-daemon`, LINTEL_NO_DAEMON), and outside CI unless LINTEL_DAEMON asks for it."""
    if not sys.platform.startswith("linux") or NO_DAEMON_FLAG in argv or _truthy(env.get("LINTEL_NO_DAEMON")):
        return False
    asked = env.get("LINTEL_DAEMON")
    if asked is not None and not _truthy(asked):
        return False
    if _truthy(env.get("CI")) and not _truthy(asked):
        return False
    # An interpreter option (-X importtime, -X dev) or variable is for this process: the warm one has its own.
    if sys._xoptions or sys.flags.dev_mode or any(env.get(name) for name in _INTERPRETER_VARIABLES):
        return False
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if command not in WARM_COMMANDS:
        return False
    # `serve --tcp` listens for its own clients and `serve --check` probes this very installation.
    return not (command == "serve" and any(a.startswith(("--tcp", "--check")) for a in argv))


def start_zygote(env: Mapping[str, str]) -> bool:
    """Start a warm lintel, detached (its own session, no terminal, cwd `/`), in its private folder; whether it
    could be started. It leaves by itself when another one already runs."""
    if not private_folder(run_folder(env), create=True):
        return False
    import subprocess  # only on this path: the entry point's usual one does without

    try:
        subprocess.Popen(
            zygote_command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            env=dict(env),
            start_new_session=True,
        )
    except OSError:
        return False
    return True


def zygote_command() -> list[str]:
    """How to start the warm lintel: this interpreter, in isolated mode when this one is (the bundled lintel of
    the VS Code extension), with the folder holding this lintel first on its path (which is how the bundle finds
    it: not through PYTHONPATH)."""
    home = os.path.dirname(os.path.dirname(os.path.abspath(lintel.__file__)))
    program = (
        f"import sys; sys.path.insert(0, {home!r}); import runpy; "
        "runpy.run_module('lintel.frontends.warm.zygote', run_name='__main__', alter_sys=True)"
    )
    return [sys.executable, *(["-I"] if sys.flags.isolated else []), "-c", program]
