"""Command line entry points: `lintel check`, `lintel detect`, `lintel merge`, `lintel serve`, `lintel mcp`,
`lintel hook` (docs/cli.md).

Thin, and light: it parses the arguments and imports only what the command needs — the engine for `check` and
`detect` (lintel.frontends.headless), the server for `serve`, the MCP SDK for `mcp` alone — so an editor starting
`lintel serve` pays for no engine import before `initialize` is answered (docs/architecture.md, A fast start)."""

from __future__ import annotations

import argparse
import functools
import importlib.util
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from lintel import __version__

if TYPE_CHECKING:
    from lintel.runtime.orphans import Watchdog

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2

# Written out rather than imported, which would load the languages and the report writers for every command;
# tests/unit/test_cli_start.py checks them against lintel.languages.CHECKS and lintel.frontends.report.RENDERERS.
ONLY_CHOICES = ("lint", "typecheck", "test", "format", "validators", "coverage")
DEFAULT_ONLY = "lint,typecheck"
FORMATS = ("github", "json", "rdjsonl", "sarif", "text")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


@functools.cache  # built once a process (and once in the warm lintel, for every command it forks)
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="lintel", description="Lint, typecheck and test Go, Rust, Node and Python.")
    parser.add_argument("--version", action="version", version=f"lintel {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what lintel runs")
    # Read by the entry point (lintel.frontends.warm.client) before this parser; listed here for --help.
    parser.add_argument(
        "--no-daemon", action="store_true", help="run in this process, not through the warm lintel (also anywhere)"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = commands.add_parser("check", help="run checks headlessly (for CI and agents)")
    check.add_argument(
        "path",
        nargs="?",
        default=".",
        help="a folder: every project under it; a file or folder inside a project: that project (default: .)",
    )
    check.add_argument(
        "--only",
        default=None,
        help=f"comma-separated checks: {','.join(ONLY_CHOICES)} "
        f"(default: {DEFAULT_ONLY}, plus validators when configured)",
    )
    check.add_argument(
        "--language", help="check only this project type (go, rust, node, python, or one lintel.toml declares)"
    )
    check.add_argument("--format", dest="fmt", default="text", choices=FORMATS, help="output format")
    check.add_argument("--output", help="write the report (in --format) to this file and print text on stdout")
    check.add_argument(
        "--baseline", help="report only issues whose fingerprint is not in this lintel JSON or SARIF report"
    )
    check.add_argument("--write-baseline", help="record the current issues (lintel JSON) as a baseline file")
    _add_fail_level(check)
    check.add_argument("--timeout", type=float, help="seconds per tool run (clamped to 1–1800; default per check)")
    check.add_argument("-q", "--quiet", action="store_true", help="no progress lines or notes on stderr")
    check.add_argument(
        "--progress",
        action="store_true",
        help="a line on stderr as each check starts and ends (the default only when stderr is a terminal)",
    )
    _add_scope(check)
    _add_fix(check)
    _add_cache_options(check)
    _add_cache(commands)

    _add_serve(commands)
    mcp = commands.add_parser("mcp", help="serve lintel's checks and test runs to agents as MCP tools (stdio)")
    mcp.add_argument("--root", default=".", help="the workspace the tools act on (default: the current directory)")
    mcp.add_argument(
        "--untrusted", action="store_true", help="run no tool in the workspace (detection and results only)"
    )

    _add_hook(commands)

    det = commands.add_parser("detect", help="show the projects, their commands and binaries")
    det.add_argument("path", nargs="?", default=".", help="the folder to look in (default: .)")
    det.add_argument("--json", action="store_true", help="machine-readable output")
    _add_merge(commands)
    _add_daemon(commands)
    return parser


def _add_scope(check: argparse.ArgumentParser) -> None:
    """Which projects a check covers and which of its findings it reports: a CI matrix's and a PR's options."""
    check.add_argument(
        "--project",
        action="append",
        metavar="GLOB",
        help="check only projects whose root (relative, `.` for the top) matches; repeatable",
    )
    check.add_argument(
        "--list-projects",
        action="store_true",
        help="print the projects that would be checked (with --format json: for a CI job matrix) and exit",
    )
    check.add_argument("--shard", metavar="K/N", help="check shard K of N (deterministic, balanced by size)")
    check.add_argument(
        "--changed-since",
        metavar="REF",
        help="check only the projects holding files changed since git REF and the projects depending on them",
    )
    check.add_argument(
        "--new-from",
        metavar="REF",
        help="report only issues new since the merge base of git REF and HEAD (by fingerprint: checks the base too)",
    )
    check.add_argument(
        "--only-changed-lines",
        action="store_true",
        help="with --new-from REF: report only issues on lines changed since its merge base (no check of the base)",
    )


def _add_cache_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep the result cache here (default: $LINTEL_CACHE_DIR, else $XDG_CACHE_HOME/lintel/results, "
        "else ~/.cache/lintel/results)",
    )
    check.add_argument("--no-cache", action="store_true", help="run every tool; neither read nor write the cache")


def _add_cache(commands: argparse._SubParsersAction[_Parser]) -> None:
    cache = commands.add_parser(
        "cache", help="the result cache of `lintel check`: `stats` shows it, `clear` empties it"
    )
    cache.add_argument("action", choices=("stats", "clear"), help="what to do")
    cache.add_argument("--cache-dir", metavar="DIR", help="the cache's folder (default: as `lintel check`'s)")
    cache.add_argument("--json", action="store_true", help="with stats: machine-readable output")


def _add_hook(commands: argparse._SubParsersAction[_Parser]) -> None:
    hook = commands.add_parser(
        "hook",
        help="an agent harness's hook: `post-edit` checks the file its payload (stdin) names; exit 2 and the "
        "findings on stderr when there are any",
    )
    hook.add_argument("event", choices=("post-edit",), help="the hook event")
    hook.add_argument(
        "--severity",
        choices=("error", "warning", "info", "hint"),
        default="hint",
        help="report only findings at or above this severity (default: hint, all)",
    )
    hook.add_argument(
        "--max-issues", type=_positive, help="report at most this many findings, most severe first (default 50)"
    )
    hook.add_argument("--timeout", type=float, help="seconds per tool run (clamped to 1–1800; default per check)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {text!r}")
    return value


def _add_serve(commands: argparse._SubParsersAction[_Parser]) -> None:
    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (default)")
    transport.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen for one LSP client on HOST:PORT (loopback only unless --allow-remote). Any local user can "
        "connect to a port, and an LSP session runs the workspace's commands: the client must send the server's "
        "token as initializationOptions.token: $LINTEL_TOKEN when set, else the --token-file, else a new one "
        "in a 0600 file whose path is printed on stderr",
    )
    transport.add_argument(
        "--check",
        action="store_true",
        help="print `lintel <version>` if the server's dependencies can be found, else say which cannot (exit 1)",
    )

    serve.add_argument(
        "--token-file",
        metavar="FILE",
        help="with --tcp: the token clients must present, read from FILE (0600), or made there when it does not exist",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --tcp: allow a HOST that is not loopback (other machines can then reach the port)",
    )


def _add_fix(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--fix",
        action="store_true",
        help="first apply the linters' safe fixes (their own fix mode), then report what is left",
    )
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix or --diff: the unsafe fixes too (the tool's opt-in)"
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="print what --fix would change as a unified diff and write nothing (exit 1 when there is a change)",
    )


def _add_fail_level(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fail-level",
        default="error",
        choices=("error", "warning", "info"),
        help="lowest severity that makes the exit code 1 (default: error)",
    )


def _add_daemon(subcommands: argparse._SubParsersAction[_Parser]) -> None:
    daemon = subcommands.add_parser(
        "daemon",
        help="the warm lintel that check, detect, serve, mcp and hook go through (started on demand): "
        "start, stop, status, or run it in the foreground",
    )
    daemon.add_argument("action", choices=("start", "stop", "status", "run"))


def _add_merge(subcommands: argparse._SubParsersAction[_Parser]) -> None:
    merge = subcommands.add_parser("merge", help="merge lintel JSON reports and SARIF logs (CI shards) into one")
    merge.add_argument("files", nargs="+", metavar="FILE", help="lintel JSON reports and SARIF logs lintel wrote")
    merge.add_argument(
        "--format",
        dest="fmt",
        default=None,
        choices=FORMATS,
        help="output format (default: the inputs' format when they all share one, else json)",
    )
    merge.add_argument("--output", help="write the report (in --format) to this file and print text on stdout")
    _add_fail_level(merge)
    merge.add_argument(
        "--baseline", help="report only issues whose fingerprint is not in this lintel JSON or SARIF report"
    )


def _watchdog() -> Watchdog | None:
    """The watchdog that ends what lintel started once lintel has ended, even by SIGKILL (orphans.py)."""
    from lintel.runtime import orphans

    return orphans.guard()


# What `serve` imports beyond the standard library: `serve --check` looks for them without importing them.
_SERVER_MODULES = ("pygls", "lsprotocol", "cattrs", "attrs", "pydantic", "pydantic_core")


def cmd_serve_check() -> int:
    """The VS Code extension's probe of a lintel before it starts it: `--version` alone passes an install missing its
    dependencies (it imports none), which then dies in `serve`. find_spec is cheap, where an import of the server is
    not."""
    missing = [name for name in _SERVER_MODULES if importlib.util.find_spec(name) is None]
    if sys.version_info < (3, 11) and importlib.util.find_spec("tomli") is None:
        missing.append("tomli")
    if missing:
        print(f"lintel {__version__} cannot serve: missing {', '.join(missing)} ({sys.executable})", file=sys.stderr)
        return EXIT_ERROR
    print(f"lintel {__version__}")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    if args.check:
        return cmd_serve_check()
    from lintel.frontends.lsp.wiring import create_server

    address: tuple[str, int] | None = None
    token = None
    if args.tcp:
        from lintel.frontends.lsp.tcp import TokenError, check_host, obtain_token

        host, sep, port = args.tcp.rpartition(":")
        if not sep or not port.isdigit():
            print(f"lintel: --tcp: expected HOST:PORT, got {args.tcp!r}", file=sys.stderr)
            return EXIT_USAGE
        host = (host or "127.0.0.1").strip("[]")
        refusal = check_host(host, allow_remote=args.allow_remote)
        if refusal is not None:
            print(f"lintel: --tcp: {refusal}", file=sys.stderr)
            return EXIT_USAGE
        try:
            token = obtain_token(args.token_file)
        except (TokenError, OSError) as exc:
            print(f"lintel: --tcp: {exc}", file=sys.stderr)
            return EXIT_USAGE
        address = (host, int(port))
    elif args.token_file or args.allow_remote:
        print("lintel: --token-file and --allow-remote go with --tcp", file=sys.stderr)
        return EXIT_USAGE
    watchdogs: list[Watchdog] = []

    def guard() -> None:
        # Started with the features, which start every process the server runs: not before `initialize` is
        # answered (spawning the watchdog costs a fork and a Python start beside lintel's own).
        watchdog = _watchdog()
        if watchdog is not None:
            watchdogs.append(watchdog)

    server = create_server(before_features=guard)
    try:
        if address is not None and token is not None:
            server.listen_tcp(*address, token)
        else:
            server.start_io()
    finally:
        for watchdog in watchdogs:
            watchdog.release()
        if token is not None and token.written is not None:
            token.written.unlink(missing_ok=True)
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    import asyncio
    import importlib.util
    from pathlib import Path

    root = Path(args.root).expanduser()
    if not root.is_dir():
        print(f"lintel: --root: not a directory: {args.root}", file=sys.stderr)
        return EXIT_USAGE
    if importlib.util.find_spec("mcp") is None:  # the SDK is the `mcp` extra: nothing else in lintel needs it
        print("lintel mcp needs the MCP SDK: pip install 'lintel-lsp[mcp]'", file=sys.stderr)
        return EXIT_USAGE
    from lintel.frontends.mcp.serve import serve

    # An untrusted workspace runs nothing: no process to guard.
    watchdog = None if args.untrusted else _watchdog()
    try:
        asyncio.run(serve(root.resolve(), trusted=not args.untrusted))
    finally:
        if watchdog is not None:
            watchdog.release()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="lintel: %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # What lintel starts must not outlive it, even a SIGKILL of lintel (orphans.py); `detect` and `merge` start
    # nothing that runs on, `serve` guards itself (cmd_serve).
    watchdog = _watchdog() if args.command in ("check", "hook") else None
    try:
        if args.command == "serve":
            return cmd_serve(args)
        if args.command == "mcp":
            return cmd_mcp(args)
        if args.command == "hook":
            from lintel.frontends import hook

            return hook.run(args)
        if args.command == "cache":
            from lintel.frontends import cachecmd

            return cachecmd.run(args)
        if args.command == "daemon":
            from lintel.frontends.warm import control

            return control.run(args)
        if args.command == "merge":
            from lintel.frontends import merge

            return merge.run(args)
        if args.command in ("check", "detect"):
            from lintel.frontends import headless

            return headless.run(args)
    except KeyboardInterrupt:
        return 130
    finally:
        if watchdog is not None:
            watchdog.release()
    raise AssertionError(f"unhandled command {args.command}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
