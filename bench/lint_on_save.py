"""Lint-on-save benchmarks: lintel through a real LSP client against the same tool run directly, a save storm,
and the server's startup cost against a bare pygls server. Every baseline is measured in the same run.

    python bench/lint_on_save.py [--saves N] [--json FILE]

Informational only: not part of the test suite, nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import harness
import workloads
from harness import Server
from lintel import __version__ as lintel_version
from lintel.engine.detect import nearest_project
from lsprotocol import types

TARGETS = {
    "overhead_ms": 15.0,
    "ratio": 1.2,
    "storm_processes": 3,
    "rss_mb": 80.0,
    "initialize_ms": 400.0,
}


# A command that does not exist: configured as every language's server, no child language server starts.
NO_LANGUAGE_SERVER = "lintel-bench-no-language-server"


def server_options(language_servers: bool, python: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """initializationOptions for the measured servers. Only lint runs on save: the format check (on by default)
    would add a second run and a second publish. Without `language_servers` no child language server starts
    (basedpyright, typescript-language-server): their analysis would compete with the tool for the CPU and
    their forwarded diagnostics would be extra publishes."""
    languages: dict[str, dict[str, Any]] = {}
    if not language_servers:
        languages = {language: {"server": [NO_LANGUAGE_SERVER]} for language in ("go", "rust", "node", "python")}
    if python:
        languages.setdefault("python", {}).update(python)
    return {"editor": {"formatCheck": False}, "languages": languages}


def direct_argv(work: workloads.Workload) -> tuple[list[str], dict[str, str], str]:
    """The command lintel runs to lint `work.file` on save, argv[0] resolved on PATH, its environment, and the
    tool's name (the source of its diagnostics)."""
    project = nearest_project(work.file, work.root)
    if project is None:
        raise SystemExit(f"no project detected for {work.file}")
    spec = project.spec.file_scope(project, "lint", work.file, False).spec
    argv = list(spec.argv)
    binary = shutil.which(argv[0])
    if binary is None:
        raise SystemExit(f"{argv[0]} is not on PATH (run scripts/setup-dev)")
    return [binary, *argv[1:]], harness.tool_env(spec.env), spec.tool


def ruff_findings(stdout: bytes) -> list[tuple[int, int, str]]:
    """(0-based line, 0-based column, code) of each finding in `ruff check --output-format=json`."""
    return sorted(
        (item["location"]["row"] - 1, item["location"]["column"] - 1, str(item["code"])) for item in json.loads(stdout)
    )


def eslint_findings(stdout: bytes) -> list[tuple[int, int, str]]:
    return sorted(
        (message["line"] - 1, message["column"] - 1, str(message.get("ruleId")))
        for result in json.loads(stdout)
        for message in result["messages"]
    )


def diagnostic_keys(diagnostics: Sequence[types.Diagnostic], source: str) -> list[tuple[int, int, str]]:
    """The tool's own diagnostics (a child language server's, with --language-servers, are left out)."""
    return sorted((d.range.start.line, d.range.start.character, str(d.code)) for d in diagnostics if d.source == source)


async def save_latency(
    work: workloads.Workload,
    language_id: str,
    findings: Callable[[bytes], list[tuple[int, int, str]]],
    saves: int,
    warmup: int,
    options: Mapping[str, Any],
) -> dict[str, Any]:
    """Alternating pairs: one didSave -> publishDiagnostics round trip and one direct run of the same command
    (the order flips every pair so neither side always runs on a cache the other just warmed)."""
    argv, env, tool = direct_argv(work)
    server = await harness.start_lintel(work.root, options)
    try:
        opened = server.recorder.expect_publish(lambda publish: publish.uri == work.uri)
        harness.open_document(server, work.file, language_id, work.file.read_text(encoding="utf-8"))
        await asyncio.wait_for(opened, 120)
        for _ in range(warmup):
            await harness.save_and_wait(server, work.uri)
            await harness.run_direct(argv, work.root, env)
        lintel_ms: list[float] = []
        direct_ms: list[float] = []
        last_publish: harness.Publish | None = None
        last_direct: harness.DirectRun | None = None
        for index in range(saves):
            for side in ("direct", "lintel") if index % 2 == 0 else ("lintel", "direct"):
                if side == "lintel":
                    ms, last_publish = await harness.save_and_wait(server, work.uri)
                    lintel_ms.append(ms)
                else:
                    last_direct = await harness.run_direct(argv, work.root, env)
                    direct_ms.append(last_direct.ms)
        rss_after = harness.proc_status(server.pid)
    finally:
        await harness.stop_server(server)
    assert last_publish is not None
    assert last_direct is not None
    expected = findings(last_direct.stdout)
    lintel = harness.summary(lintel_ms)
    direct = harness.summary(direct_ms)
    return {
        "argv": argv,
        "cwd": str(work.root),
        "lines": len(work.file.read_text(encoding="utf-8").splitlines()),
        "lintel_ms": lintel,
        "direct_ms": direct,
        "overhead_ms": round(lintel["median"] - direct["median"], 2),
        # Each save minus the direct run next to it: steadier than the difference of medians when the load moves.
        "paired_overhead_ms": round(statistics.median(a - b for a, b in zip(lintel_ms, direct_ms, strict=True)), 2),
        "ratio": round(lintel["median"] / direct["median"], 3),
        "p95_ratio": round(lintel["p95"] / direct["p95"], 3),
        "findings_direct": len(expected),
        "findings_lintel": len(diagnostic_keys(last_publish.diagnostics, tool)),
        "same_findings": diagnostic_keys(last_publish.diagnostics, tool) == expected,
        "server_rss_after_saves_mb": round(rss_after.get("VmRSS", 0) / 1024, 1),
    }


def counting_wrapper(directory: Path, binary: str) -> tuple[Path, Path]:
    """A script that appends `<pid> <uptime s> <subcommand>` to a log for every start, then execs the real
    binary: each line is one tool process, whether it finished or was killed mid-run. The time comes from
    /proc/uptime (CLOCK_BOOTTIME, 10 ms steps) through the shell's own `read`, so counting starts no process."""
    log = directory / "tool-starts.log"
    wrapper = directory / f"counting-{Path(binary).name}"
    wrapper.write_text(
        "#!/bin/sh\n"
        "read up _ < /proc/uptime\n"
        f'echo "$$ $up $1" >> {shlex.quote(str(log))}\n'
        f'exec {shlex.quote(binary)} "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    log.touch()
    return wrapper, log


def spawn_lines(server: Server) -> list[str]:
    """`lintel -v` logs `python lint: <argv> (binary ...)` right before each spawn, with no await between."""
    return [line for line in server.recorder.stderr if "python lint: " in line and "(binary " in line]


def tool_starts(path: Path) -> list[float]:
    """CLOCK_BOOTTIME seconds of each start logged by the counting wrapper."""
    return [float(line.split()[1]) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_atomically(path: Path, text: str) -> None:
    """As editors save: a complete new file renamed over the old, so no run reads a half-written one."""
    scratch = path.with_name(f".{path.name}.saving")
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, path)


async def quiet(server: Server, uri: str, after: float, still: float = 1.0, limit: float = 30.0) -> None:
    """Until a publish for `uri` later than `after` arrived and `still` seconds passed without another."""
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        last = max((p.at for p in server.recorder.publishes if p.uri == uri), default=0.0)
        if last > after and time.perf_counter() - last >= still:
            return
        await asyncio.sleep(0.05)


async def save_storm(parent: Path, saves: int, interval: float, language_servers: bool) -> dict[str, Any]:
    """`saves` x (didChange + write + didSave) every `interval` seconds, each with different content. The
    server's ruff is a counting wrapper set through `languages.python.binaries`, so the per-file argv
    stays exactly the default one."""
    work = workloads.python_workspace(parent / "storm")
    ruff = shutil.which("ruff")
    if ruff is None:
        raise SystemExit("ruff is not on PATH (run scripts/setup-dev)")
    wrapper, log = counting_wrapper(parent / "storm", ruff)
    options = server_options(language_servers, {"binaries": {"ruff": str(wrapper)}})
    base = work.file.read_text(encoding="utf-8")
    server = await harness.start_lintel(work.root, options, verbose=True)
    try:
        opened = server.recorder.expect_publish(lambda publish: publish.uri == work.uri)
        harness.open_document(server, work.file, "python", base)
        await asyncio.wait_for(opened, 60)
        starts_before = len(tool_starts(log))
        spawns_before = len(spawn_lines(server))
        publishes_before = len(server.recorder.publishes)
        began = time.perf_counter()
        began_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        last_save = began
        version = 1
        for step in range(saves):
            text = workloads.storm_variant(base, step)
            version += 1
            write_atomically(work.file, text)
            harness.change_document(server, work.uri, version, text)
            harness.save_document(server, work.uri)
            last_save = time.perf_counter()
            await asyncio.sleep(max(0.0, began + (step + 1) * interval - time.perf_counter()))
        await quiet(server, work.uri, last_save)
        starts = tool_starts(log)[starts_before:]
        spawns = len(spawn_lines(server)) - spawns_before
        storm_publishes = [p for p in server.recorder.publishes[publishes_before:] if p.uri == work.uri]
    finally:
        await harness.stop_server(server)
    argv, env, tool = direct_argv(work)
    direct = await harness.run_direct(argv, work.root, env)
    expected = ruff_findings(direct.stdout)
    final = storm_publishes[-1] if storm_publishes else None
    final_keys = diagnostic_keys(final.diagnostics, tool) if final else []
    last_name = f"storm_value_{saves - 1}"
    after_last = [p for p in storm_publishes if p.at > last_save]
    return {
        "saves": saves,
        "interval_ms": round(interval * 1000, 1),
        "storm_duration_ms": round((last_save - began) * 1000, 1),
        "tool_processes": max(len(starts), spawns),
        "wrapper_starts": len(starts),
        "server_log_spawns": spawns,
        "publishes": len(storm_publishes),
        "final_version": final.version if final else None,
        "last_version": version,
        "final_matches_last_content": final is not None
        and final_keys == expected
        and final.version == version
        and any(last_name in d.message for d in final.diagnostics),
        "final_findings": len(final_keys),
        "expected_findings": len(expected),
        "last_save_to_final_publish_ms": round((after_last[0].at - last_save) * 1000, 1) if after_last else None,
        # When each tool process started (10 ms steps) and each publish arrived, in ms from the first save.
        "timeline": {
            "tool_starts_ms": [round((at - began_boot) * 1000) for at in starts],
            "publishes_ms_version": [[round((p.at - began) * 1000, 1), p.version] for p in storm_publishes],
        },
    }


async def one_start(kind: str, mode: str, root: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """One fresh server. `at-spawn`: initialize is sent as soon as the process exists (what editors do), so
    the round trip includes the interpreter's start and imports. `idle`: initialize waits until the server
    sleeps on its stdin, so the round trip is the initialize handling alone."""
    lintel = kind == "lintel"
    params = harness.initialize_params(root, options if lintel else None)
    server = await harness.start_server(harness.LINTEL_COMMAND if lintel else harness.BARE_COMMAND)
    try:
        idle_ms = None
        if mode == "idle":
            idle_ms = (await harness.wait_idle(server.pid) - server.spawn_started) * 1000
        detected = server.recorder.expect_log(lambda message: "detected" in message) if lintel else None
        sent = time.perf_counter()
        await asyncio.wait_for(server.client.initialize_session(params), 60)
        answered = time.perf_counter()
        if detected is not None:
            await asyncio.wait_for(detected, 30)
        else:
            await asyncio.sleep(0.05)  # let it handle `initialized`
        status = harness.proc_status(server.pid)
    finally:
        await harness.stop_server(server)
    return {
        "kind": kind,
        "mode": mode,
        "initialize_ms": (answered - sent) * 1000,
        "spawn_to_response_ms": (answered - server.spawn_started) * 1000,
        "spawn_to_idle_ms": idle_ms,
        "rss_kb": status.get("VmRSS", 0),
        "hwm_kb": status.get("VmHWM", 0),
    }


async def startup(root: Path, starts: int, options: Mapping[str, Any]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for index in range(starts):
        kinds = ("lintel", "bare") if index % 2 == 0 else ("bare", "lintel")
        for mode in ("at-spawn", "idle"):
            for kind in kinds:
                runs.append(await one_start(kind, mode, root, options))

    def pick(kind: str, key: str, mode: str | None = None) -> dict[str, Any]:
        values = [r[key] for r in runs if r["kind"] == kind and (mode is None or r["mode"] == mode)]
        return harness.summary([v for v in values if v is not None])

    out: dict[str, Any] = {"starts_per_mode": starts}
    for kind in ("lintel", "bare"):
        rss = pick(kind, "rss_kb")
        out[kind] = {
            "rss_mb": round(rss["median"] / 1024, 1),
            "peak_rss_mb": round(pick(kind, "hwm_kb")["median"] / 1024, 1),
            "initialize_at_spawn_ms": pick(kind, "initialize_ms", "at-spawn"),
            "spawn_to_response_ms": pick(kind, "spawn_to_response_ms", "at-spawn"),
            "initialize_idle_ms": pick(kind, "initialize_ms", "idle"),
            "spawn_to_idle_ms": pick(kind, "spawn_to_idle_ms", "idle"),
        }
    return out


def eslint_version() -> str | None:
    try:
        manifest = json.loads((workloads.fixture_node_modules() / "eslint" / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return str(manifest.get("version"))


def ruff_version() -> str | None:
    ruff = shutil.which("ruff")
    if ruff is None:
        return None
    return subprocess.run([ruff, "--version"], capture_output=True, text=True, check=False).stdout.strip()


def verdict(passed: bool) -> str:
    return "PASS" if passed else "MISS"


def rows(results: Mapping[str, Any]) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """The table's rows and the target checks (name, value, target, pass)."""
    table: list[list[str]] = []
    checks: list[dict[str, Any]] = []

    def check(name: str, value: Any, target: str, passed: bool) -> str:
        checks.append({"name": name, "value": value, "target": target, "pass": passed})
        return verdict(passed)

    for tool in ("ruff", "eslint"):
        r = results.get(tool)
        if r is None:
            continue
        lm, dm = r["lintel_ms"], r["direct_ms"]
        ratio_ok = r["ratio"] <= TARGETS["ratio"]
        table.append(
            [
                f"{tool} save->publish median ms (n={lm['n']})",
                f"{lm['median']:.1f}",
                f"{dm['median']:.1f}",
                f"{r['ratio']:.3f}",
                f"ratio <= {TARGETS['ratio']}",
                check(f"{tool}.ratio", r["ratio"], f"<= {TARGETS['ratio']}", ratio_ok),
            ]
        )
        table.append([f"{tool} save->publish p95 ms", f"{lm['p95']:.1f}", f"{dm['p95']:.1f}", f"{r['p95_ratio']:.3f}"])
        overhead = [f"{tool} median overhead ms (paired: {r['paired_overhead_ms']:.1f})", f"{r['overhead_ms']:.1f}"]
        if tool == "ruff":
            # eslint's runs vary by hundreds of milliseconds: a 15 ms bound on it would only measure noise.
            limit = f"<= {TARGETS['overhead_ms']:g}"
            ok = r["overhead_ms"] <= TARGETS["overhead_ms"]
            overhead += ["", "", f"{limit} ms", check(f"{tool}.overhead_ms", r["overhead_ms"], limit, ok)]
        table.append(overhead)
        table.append(
            [
                f"{tool} findings (lintel / direct)",
                str(r["findings_lintel"]),
                str(r["findings_direct"]),
                "",
                "identical",
                check(f"{tool}.same_findings", r["same_findings"], "identical", r["same_findings"]),
            ]
        )
    storm = results.get("storm")
    if storm is not None:
        ok = storm["tool_processes"] <= TARGETS["storm_processes"]
        table.append(
            [
                f"storm: ruff processes for {storm['saves']} saves in {storm['storm_duration_ms'] / 1000:.2f} s",
                str(storm["tool_processes"]),
                "",
                "",
                f"<= {TARGETS['storm_processes']}",
                check("storm.tool_processes", storm["tool_processes"], f"<= {TARGETS['storm_processes']}", ok),
            ]
        )
        table.append(["storm: publishes", str(storm["publishes"])])
        table.append(["storm: last save -> final publish ms", str(storm["last_save_to_final_publish_ms"])])
        matches = storm["final_matches_last_content"]
        table.append(
            [
                "storm: final diagnostics = last content",
                "yes" if matches else "no",
                "",
                "",
                "yes",
                check("storm.final_matches_last_content", matches, "yes", matches),
            ]
        )
    start = results.get("startup")
    if start is not None:
        lintel, bare = start["lintel"], start["bare"]
        rss_ok = lintel["rss_mb"] <= TARGETS["rss_mb"]
        table.append(
            [
                "RSS after initialize + detection MB",
                f"{lintel['rss_mb']:.1f}",
                f"{bare['rss_mb']:.1f}",
                f"{lintel['rss_mb'] / bare['rss_mb']:.2f}",
                f"<= {TARGETS['rss_mb']:g} MB",
                check("startup.rss_mb", lintel["rss_mb"], f"<= {TARGETS['rss_mb']:g}", rss_ok),
            ]
        )
        for key, label, targeted in (
            ("initialize_at_spawn_ms", "initialize round trip, sent at spawn", True),
            ("initialize_idle_ms", "initialize round trip, server idle first", True),
            ("spawn_to_response_ms", "process start -> initialize response", False),
            ("spawn_to_idle_ms", "process start -> idle on stdin", False),
        ):
            lv, bv = lintel[key]["median"], bare[key]["median"]
            row = [f"{label} median ms (n={lintel[key]['n']})", f"{lv:.1f}", f"{bv:.1f}", f"{lv / bv:.2f}"]
            if targeted:
                ok = lv <= TARGETS["initialize_ms"]
                limit = f"<= {TARGETS['initialize_ms']:g} ms"
                row += [limit, check(f"startup.{key}", round(lv, 1), limit, ok)]
            table.append(row)
    return table, checks


def print_table(table: list[list[str]]) -> None:
    header = ["metric", "lintel", "baseline", "ratio", "target", "result"]
    widths = [max(len(r[i]) if i < len(r) else 0 for r in [header, *table]) for i in range(len(header))]
    for row in [header, *table]:
        cells = [*row, *[""] * (len(header) - len(row))]
        print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(cells)))


def tool_path() -> None:
    """Put the development tools (ruff, npx, ...) on PATH the way `make` does."""
    script = workloads.REPO / "scripts" / "toolpath"
    if script.is_file():
        result = subprocess.run([str(script)], capture_output=True, text=True, check=False)
        if result.returncode == 0 and result.stdout.strip():
            os.environ["PATH"] = result.stdout.strip()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    sections = set(args.only.split(",")) if args.only else {"ruff", "eslint", "storm", "startup"}
    results: dict[str, Any] = {
        "environment": {
            "lintel": lintel_version,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "ruff": ruff_version(),
            "eslint": eslint_version(),
            "loadavg_before": harness.loadavg(),
            "language_servers": args.language_servers,
        }
    }
    timings: dict[str, float] = {}
    options = server_options(args.language_servers)
    with tempfile.TemporaryDirectory(prefix="lintel-bench-") as scratch:
        parent = Path(scratch).resolve()
        python_work = workloads.python_workspace(parent)
        steps: dict[str, Callable[[], Awaitable[dict[str, Any]]]] = {
            "ruff": lambda: save_latency(python_work, "python", ruff_findings, args.saves, args.warmup, options),
            "eslint": lambda: save_latency(
                workloads.node_workspace(parent),
                "javascript",
                eslint_findings,
                args.eslint_saves,
                args.eslint_warmup,
                options,
            ),
            "storm": lambda: save_storm(parent, args.storm_saves, args.storm_interval_ms / 1000, args.language_servers),
            "startup": lambda: startup(python_work.root, args.starts, options),
        }
        for name, step in steps.items():
            if name not in sections:
                continue
            print(f"[{name}] ...", file=sys.stderr, flush=True)
            began = time.perf_counter()
            results[name] = await step()
            timings[name] = round(time.perf_counter() - began, 1)
    results["environment"]["loadavg_after"] = harness.loadavg()
    results["section_seconds"] = timings
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--saves", type=int, default=40, help="timed saves (and direct runs) for ruff (default 40)")
    parser.add_argument(
        "--eslint-saves", type=int, default=15, help="timed saves for eslint (default 15: a pair costs ~4 s)"
    )
    parser.add_argument("--warmup", type=int, default=3, help="untimed saves and direct runs first, ruff (default 3)")
    parser.add_argument("--eslint-warmup", type=int, default=1, help="the same for eslint (default 1)")
    parser.add_argument("--storm-saves", type=int, default=50)
    parser.add_argument("--storm-interval-ms", type=float, default=20.0)
    parser.add_argument("--starts", type=int, default=10, help="fresh server starts per mode and server (default 10)")
    parser.add_argument(
        "--language-servers",
        action="store_true",
        help="leave the child language servers on (default: off, so only the lint path is measured)",
    )
    parser.add_argument("--only", help="comma-separated sections: ruff,eslint,storm,startup")
    parser.add_argument("--json", type=Path, help="write every number (and the raw samples) here")
    args = parser.parse_args(argv)
    tool_path()
    began = time.perf_counter()
    results = asyncio.run(run(args))
    results["total_seconds"] = round(time.perf_counter() - began, 1)
    table, checks = rows(results)
    results["checks"] = checks
    print_table(table)
    env = results["environment"]
    print(
        f"\n{env['cpus']} cpus, load {env['loadavg_before']} -> {env['loadavg_after']}; {env['ruff']}, "
        f"eslint {env['eslint']}; {results['total_seconds']} s ({results['section_seconds']})"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
