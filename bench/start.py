"""lintel's start-up and one-file latency beside its peers in one run, cold (`--no-daemon`) and warm (through
`lintel daemon`): spawn → initialize, spawn → first diagnostics, `lintel check FILE`, `lintel mcp`, `lintel hook
post-edit`, the imports that cost most, and RSS after 30 saves. Prints a table a section and the acceptance
lines of the start-up targets (bench/README.md says what each number is).

    python bench/start.py [--rounds N] [--only start,diag,check,mcp,hook,importtime,rss] [--json FILE]

Informational only: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import harness
import lint_on_save
import peers
import workloads
from peer_systems import (
    EFM,
    VSCODE_ESLINT,
    Cli,
    Lsp,
    System,
    SystemFailed,
    efm_eslint,
    efm_ruff,
    eslint_keys,
    write_efm_config,
)
from start_probes import (
    BARE_MCP_COMMAND,
    Lintel,
    importtime_check,
    importtime_serve,
    mcp_initialize,
    server_roots,
)

SECTIONS = ("start", "diag", "check", "mcp", "hook", "importtime", "rss")
TOP_IMPORTS = 15
GO_FIXTURE = workloads.REPO / "tests" / "workspaces" / "go"
GO_FILE = "greet.go"

# A measurement: milliseconds and a note (findings, exit code) counted over the rounds.
Measure = Callable[[], Awaitable[tuple[float, str | None]]]

# START33's targets: (name, the value's section/row, relation, bound, unit).
TARGETS = (
    ("warm: spawn → first Python diagnostics", "≤", 200.0, "ms"),
    ("warm: lintel check FILE --only lint / ruff check FILE", "≤", 3.0, "×"),
    ("warm: lintel hook post-edit (Python file with findings)", "≤", 100.0, "ms"),
    ("warm: lintel mcp spawn → initialize", "≤", 100.0, "ms"),
    ("cold: spawn → initialize / bare pygls", "≤", 1.0, "×"),
    ("cold: spawn → first Python diagnostics", "≤", 500.0, "ms"),
    ("Python save latency: lintel / ruff server", "≤", 1.25, "×"),
    ("JS save latency: lintel / vscode-eslint", "≤", 0.9, "×"),
)


@dataclass
class Row:
    name: str
    measure: Measure | None  # None: not run, `why` says why
    why: str = ""


class LintelLsp(Lsp):
    """lintel's server: a warm one is a child of the daemon, found by the stdin it was handed."""

    def pids(self) -> list[int]:
        return server_roots(self.server.pid) if self.server is not None else []


def lintel_lsp(lintel: Lintel, mode: str, work: workloads.Workload, language: str, file: bool = True) -> Lsp:
    """lintel as peers.py runs it (no child language server, no format check) in `mode`."""
    return LintelLsp(
        f"lintel {mode}",
        lintel.argv(mode, "serve"),
        work.root,
        work.file if file else None,
        language,
        options=lint_on_save.server_options(language_servers=False),
        echo_stderr=True,
        env=lintel.env(mode),
    )


def lintel_rows(lintel: Lintel, name: str, make: Callable[[str], Measure]) -> list[Row]:
    """One row a mode; the warm one says why it is left out when there is no daemon."""
    rows = [Row(f"{name} {mode}", make(mode)) for mode in lintel.modes()]
    if lintel.warm:
        rows.append(Row(f"{name} warm", None, lintel.warm))
    return rows


def lsp_measure(make: Callable[[], Lsp], first: bool) -> Measure:
    """A fresh server: spawn → initialize response, or spawn → first diagnostics with findings for the file
    opened right after `initialized` (Lsp.start)."""

    async def measure() -> tuple[float, str | None]:
        system = make()
        try:
            await system.start()
        finally:
            await system.stop()
        ms = system.first_ms if first else system.initialize_ms
        assert ms is not None
        return ms, f"{len(system.first_keys)} findings" if first else None

    return measure


def run_measure(argv: Sequence[str], cwd: Path, env: Mapping[str, str], stdin: bytes | None = None) -> Measure:
    """The whole process, spawn → exit with all output read; the note is its exit code."""

    async def measure() -> tuple[float, str | None]:
        run = await harness.run_direct(argv, cwd, env, stdin)
        return run.ms, f"exit {run.exit_code}"

    return measure


def peer_row(name: str, installed: bool, make: Callable[[], Measure]) -> Row:
    return Row(name, make()) if installed else Row(name, None, "not installed (run bench/setup)")


async def interleave(rows: Sequence[Row], rounds: int) -> dict[str, Any]:
    """`rounds` timed rounds after one untimed one, every row once a round in peers.round_order's order. The
    first row is the baseline every ratio divides by."""
    runnable = [row for row in rows if row.measure is not None]
    samples: dict[str, list[float]] = {row.name: [] for row in runnable}
    notes: dict[str, Counter[str]] = {row.name: Counter() for row in runnable}
    failed: dict[str, str] = {}
    for index in range(rounds + 1):
        for row in peers.round_order(runnable, index) if runnable else []:
            if row.name in failed or row.measure is None:
                continue
            try:
                ms, note = await row.measure()
            except (SystemFailed, OSError, RuntimeError, ValueError, asyncio.TimeoutError, AssertionError) as error:
                failed[row.name] = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
                print(f"{row.name} failed: {error}", file=sys.stderr)
                continue
            if index > 0:
                samples[row.name].append(ms)
                if note is not None:
                    notes[row.name][note] += 1
    baseline = rows[0].name
    base = harness.summary(samples.get(baseline, []))
    out: dict[str, Any] = {"baseline": baseline, "rounds": rounds, "rows": {}}
    for row in rows:
        if row.measure is None or row.name in failed:
            out["rows"][row.name] = {"why": row.why or f"failed: {failed.get(row.name)}"}
            continue
        stats = harness.summary(samples[row.name])
        if stats["n"] and base.get("n"):
            stats["ratio"] = round(stats["median"] / base["median"], 3)
        stats["notes"] = dict(notes[row.name])
        out["rows"][row.name] = stats
    return out


# -- the sections ------------------------------------------------------------------------------------------


async def start_section(parent: Path, lintel: Lintel, rounds: int) -> dict[str, Any]:
    """Spawn → initialize response (nothing opened), every server in the Python workspace, vscode-eslint in
    the JS one; the bare pygls server is the baseline."""
    py = workloads.python_workspace(parent)
    js = workloads.node_workspace(parent)
    ruff = shutil.which("ruff")
    config = write_efm_config(parent / "efm.yaml", {"python": efm_ruff(lint_on_save.direct_argv(py)[0][:-1])})
    rows = [
        Row(peers.BARE, lsp_measure(lambda: Lsp(peers.BARE, harness.BARE_COMMAND, py.root, None), False)),
        *lintel_rows(
            lintel, "lintel", lambda mode: lsp_measure(lambda: lintel_lsp(lintel, mode, py, "", False), False)
        ),
        peer_row(
            peers.RUFF_SERVER,
            ruff is not None,
            lambda: lsp_measure(lambda: replace(peers.ruff_server(py, str(ruff)), file=None), False),
        ),
        peer_row(
            peers.EFM_NAME,
            peers.missing(EFM) is None,
            lambda: lsp_measure(lambda: replace(peers.efm_server(py, "python", config), file=None), False),
        ),
        peer_row(
            peers.VSCODE_NAME,
            peers.missing(VSCODE_ESLINT) is None,
            lambda: lsp_measure(lambda: replace(peers.vscode_eslint(js), file=None), False),
        ),
    ]
    return await interleave(rows, rounds)


def first_rows(lintel: Lintel, work: workloads.Workload, language: str) -> list[Row]:
    return lintel_rows(
        lintel, "lintel", lambda mode: lsp_measure(lambda: lintel_lsp(lintel, mode, work, language), True)
    )


async def diag_section(parent: Path, lintel: Lintel, rounds: int) -> dict[str, Any]:
    """Spawn → first publishDiagnostics with findings for a file opened right after `initialized`: Python
    against `ruff server` (baseline) and efm, JS against vscode-eslint (baseline) and efm, Go against the
    command lintel runs for it (spawn → exit; no Go lint server among the peers)."""
    py = workloads.python_workspace(parent)
    js = workloads.node_workspace(parent)
    go_root = parent / "go"
    shutil.copytree(GO_FIXTURE, go_root)
    go = workloads.Workload(go_root, go_root / GO_FILE)
    ruff = shutil.which("ruff")
    efm = peers.missing(EFM) is None
    eslint = js.root / "node_modules" / ".bin" / "eslint"
    linters = {"python": efm_ruff(lint_on_save.direct_argv(py)[0][:-1]), "javascript": efm_eslint(eslint, parent)}
    config = write_efm_config(parent / "efm.yaml", linters)
    python = [
        peer_row(
            peers.RUFF_SERVER, ruff is not None, lambda: lsp_measure(lambda: peers.ruff_server(py, str(ruff)), True)
        ),
        *first_rows(lintel, py, "python"),
        peer_row(peers.EFM_NAME, efm, lambda: lsp_measure(lambda: peers.efm_server(py, "python", config), True)),
    ]
    javascript = [
        peer_row(
            peers.VSCODE_NAME,
            peers.missing(VSCODE_ESLINT) is None,
            lambda: lsp_measure(lambda: peers.vscode_eslint(js), True),
        ),
        *first_rows(lintel, js, "javascript"),
        peer_row(peers.EFM_NAME, efm, lambda: lsp_measure(lambda: peers.efm_server(js, "javascript", config), True)),
    ]
    argv, env, tool = lint_on_save.direct_argv(go)
    golang = [
        Row(f"{tool}, lintel's command (spawn → exit)", run_measure(argv, go.root, env)),
        *first_rows(lintel, go, "go"),
    ]
    return {
        "python": await interleave(python, rounds),
        "javascript": await interleave(javascript, rounds),
        "go": {**await interleave(golang, rounds), "command": argv},
    }


def ruff_check_row(work: workloads.Workload, file: str) -> Row:
    ruff = shutil.which("ruff")
    argv = [str(ruff), "check", file]
    return peer_row(f"ruff check {file}", ruff is not None, lambda: run_measure(argv, work.root, harness.tool_env()))


async def check_section(parent: Path, lintel: Lintel, rounds: int) -> dict[str, Any]:
    """`lintel check FILE --only lint`, the whole process, against `ruff check FILE` (ruff's cache on, as by
    default; lintel's result cache too, and once more with --no-cache)."""
    py = workloads.python_workspace(parent)
    file = str(py.file.relative_to(py.root))
    rows = [ruff_check_row(py, file)]
    for extra in ([], ["--no-cache"]):
        name = " ".join(["lintel check FILE --only lint", *extra])

        def make(mode: str, extra: list[str] = extra) -> Measure:
            return run_measure(lintel.argv(mode, "check", file, "--only", "lint", *extra), py.root, lintel.env(mode))

        rows += lintel_rows(lintel, name, make)
    return await interleave(rows, rounds)


async def mcp_section(parent: Path, lintel: Lintel, rounds: int) -> dict[str, Any]:
    """`lintel mcp` spawn → initialize result (raw JSON-RPC), against the MCP SDK's server with no tools."""
    py = workloads.python_workspace(parent)

    def measure(argv: Sequence[str], env: Mapping[str, str]) -> Measure:
        async def run() -> tuple[float, str | None]:
            return await mcp_initialize(argv, py.root, env), None

        return run

    rows = [
        Row("bare MCP server (SDK, no tools)", measure(BARE_MCP_COMMAND, harness.tool_env())),
        *lintel_rows(lintel, "lintel mcp", lambda mode: measure(lintel.argv(mode, "mcp"), lintel.env(mode))),
    ]
    return await interleave(rows, rounds)


async def hook_section(parent: Path, lintel: Lintel, rounds: int) -> dict[str, Any]:
    """`lintel hook post-edit` with a PostToolUse payload naming the generated module (five findings: exit 2),
    the whole process, against `ruff check FILE`."""
    py = workloads.python_workspace(parent)
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(py.file)},
        "cwd": str(py.root),
    }
    stdin = json.dumps(payload).encode()
    rows = [
        ruff_check_row(py, str(py.file.relative_to(py.root))),
        *lintel_rows(
            lintel,
            "lintel hook post-edit",
            lambda mode: run_measure(lintel.argv(mode, "hook", "post-edit"), py.root, lintel.env(mode), stdin),
        ),
    ]
    return await interleave(rows, rounds)


async def importtime_section(parent: Path, lintel: Lintel) -> dict[str, Any]:
    py = workloads.python_workspace(parent)
    options = lint_on_save.server_options(language_servers=False)
    return {
        "check": await importtime_check(lintel, py, TOP_IMPORTS),
        "serve": await importtime_serve(lintel, py, options, TOP_IMPORTS),
    }


async def rss_section(parent: Path, lintel: Lintel) -> dict[str, Any]:
    """peers.py's save rounds (30 saves) with lintel in each mode beside `ruff server` (Python) and
    vscode-eslint (JS), each the baseline; the raw CLI when the peer is missing."""
    out: dict[str, Any] = {}
    for language, label in (("python", "python"), ("javascript", "js")):
        folder = parent / label
        folder.mkdir()
        work = workloads.python_workspace(folder) if language == "python" else workloads.node_workspace(folder)
        argv, env, _tool = lint_on_save.direct_argv(work)
        systems: list[System] = []
        if language == "python":
            systems.append(peers.ruff_server(work, argv[0]))
        elif peers.missing(VSCODE_ESLINT) is None:
            systems.append(peers.vscode_eslint(work))
        else:
            eslint = work.root / "node_modules" / ".bin" / "eslint"
            systems.append(Cli(peers.ESLINT_RAW, [str(eslint), *peers.eslint_tail(argv)], work.root, env, eslint_keys))
        systems += [lintel_lsp(lintel, mode, work, language) for mode in lintel.modes()]
        expected = workloads.PY_FINDINGS if language == "python" else workloads.JS_FINDINGS
        plan = peers.Plan(language, work, systems, {}, expected)
        try:
            out[label] = await peers.save_rounds(plan, peers.RSS_AFTER_SAVES, 3)
        except SystemExit as error:  # the baseline did not start
            out[label] = {"error": str(error)}
    return out


# -- the report --------------------------------------------------------------------------------------------


def ms(stats: Mapping[str, Any], key: str = "median") -> str:
    return f"{stats[key]:.1f} ms"


def interleaved_table(title: str, result: Mapping[str, Any]) -> str:
    baseline = result["baseline"]
    rows: list[list[str]] = []
    for name, stats in result["rows"].items():
        if "why" in stats:
            rows.append([name, "—", "—", "—", stats["why"]])
            continue
        notes = ", ".join(f"{note} ×{count}" for note, count in sorted(stats["notes"].items()))
        ratio = f"{stats['ratio']:.2f}" if "ratio" in stats else "—"
        rows.append([name, ms(stats), ms(stats, "p90"), ratio, notes])
    header = [f"{title} (n={result['rounds']})", "median", "p90", f"× {baseline}", "per run"]
    return peers.markdown(header, rows)


def import_table(title: str, summary: Mapping[str, Any]) -> str:
    rows = [[item["module"], f"{item['cumulative_ms']:.1f}", f"{item['self_ms']:.1f}"] for item in summary["top"]]
    header = [f"{title}: top {len(rows)} by cumulative", "cumulative ms", "self ms"]
    return (
        f"{title}: {summary['modules']} modules, {summary['total_ms']:.1f} ms of imports, "
        f"{summary['wall_ms']:.1f} ms wall\n\n" + peers.markdown(header, rows)
    )


def rss_tables(result: Mapping[str, Any]) -> str:
    parts = []
    for label, section in result.items():
        if "error" in section:
            parts.append(f"{label}: not measured: {section['error'].splitlines()[0]}")
            continue
        baseline = section["baseline"]
        rows = []
        for name, stats in section["rows"].items():
            rss = section["rss"].get(name, {})
            memory = f"{rss['rss_mb']:.1f} MB ({rss['processes']})" if rss else "—"
            rows.append([name, ms(stats), ms(stats, "p90"), f"{stats['ratio']:.2f}", memory])
        rows += [[name, "—", "—", "—", f"failed: {why.splitlines()[0]}"] for name, why in section["failed"].items()]
        header = [f"{label}: save → diagnostics (n={len(section['rows'][baseline]['samples'])})", "median", "p90"]
        header += [f"× {baseline}", f"RSS after {section['rss_after_saves']} saves (processes)"]
        parts.append(peers.markdown(header, rows))
        for name, rss in section["rss"].items():
            if name.startswith("lintel"):
                members = "; ".join(f"{m['command']} {m['rss_mb']:.1f} MB" for m in rss["members"])
                parts.append(f"{label}, {name}: {members}")
    return "\n\n".join(parts)


def median_of(result: Mapping[str, Any] | None, *path: str) -> float | None:
    node: Any = result
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return float(node["median"]) if isinstance(node, Mapping) and node.get("n") else None


def divided(top: float | None, bottom: float | None) -> float | None:
    return None if top is None or not bottom else top / bottom


def save_ratio(results: Mapping[str, Any], label: str, peer: str) -> tuple[float | None, str]:
    """The warm lintel's save latency over the peer's (the cold one's without a daemon)."""
    section = results.get("rss", {}).get(label)
    if section is None or "error" in section:
        return None, ""
    mode = "lintel warm" if "lintel warm" in section["rows"] else "lintel cold"
    return divided(median_of(section, "rows", mode), median_of(section, "rows", peer)), mode


def measured(results: Mapping[str, Any]) -> list[tuple[float | None, str]]:
    """Each target's value, in TARGETS's order, and which row it comes from."""
    diag_py = results.get("diag", {}).get("python")
    check, start = results.get("check"), results.get("start")
    ruff_check = check["baseline"] if check else ""
    py_save, py_mode = save_ratio(results, "python", peers.RUFF_SERVER)
    js_save, js_mode = save_ratio(results, "js", peers.VSCODE_NAME)
    return [
        (median_of(diag_py, "rows", "lintel warm"), "diag"),
        (
            divided(
                median_of(check, "rows", "lintel check FILE --only lint warm"), median_of(check, "rows", ruff_check)
            ),
            "check",
        ),
        (median_of(results.get("hook"), "rows", "lintel hook post-edit warm"), "hook"),
        (median_of(results.get("mcp"), "rows", "lintel mcp warm"), "mcp"),
        (divided(median_of(start, "rows", "lintel cold"), median_of(start, "rows", peers.BARE)), "start"),
        (median_of(diag_py, "rows", "lintel cold"), "diag"),
        (py_save, f"rss ({py_mode})"),
        (js_save, f"rss ({js_mode})"),
    ]


def acceptance(results: Mapping[str, Any], lintel: Lintel) -> tuple[list[str], list[dict[str, Any]]]:
    lines, checks = [], []
    for (name, relation, bound, unit), (value, source) in zip(TARGETS, measured(results), strict=True):
        target = f"{relation} {bound:g}{' ms' if unit == 'ms' else '×'}"
        if value is None:
            section = source.split(" ", 1)[0]
            why = lintel.warm if name.startswith("warm") and lintel.warm else f"not measured (needs --only {section})"
            lines.append(f"- {name}: {target}: {why}")
            continue
        met = value <= bound
        shown = f"{value:.1f} ms" if unit == "ms" else f"{value:.2f}×"
        lines.append(f"- {name}: {shown} (target {target}: {'met' if met else 'not met'}) [{source}]")
        checks.append({"name": name, "value": round(value, 3), "target": target, "met": met})
    for label in ("python", "js"):
        section = results.get("rss", {}).get(label)
        if section and "error" not in section:
            memory = ", ".join(f"{name} {rss['rss_mb']:.1f} MB" for name, rss in section["rss"].items())
            lines.append(f"- RSS after {section['rss_after_saves']} {label} saves, beside each peer: {memory}")
    return lines, checks


# -- the run -----------------------------------------------------------------------------------------------


async def run_section(section: str, folder: Path, lintel: Lintel, rounds: int) -> dict[str, Any]:
    interleaved: dict[str, Callable[[Path, Lintel, int], Awaitable[dict[str, Any]]]] = {
        "start": start_section,
        "diag": diag_section,
        "check": check_section,
        "mcp": mcp_section,
        "hook": hook_section,
    }
    if section in interleaved:
        return await interleaved[section](folder, lintel, rounds)
    if section == "importtime":
        return await importtime_section(folder, lintel)
    return await rss_section(folder, lintel)


async def run(sections: Sequence[str], rounds: int, lintel: Lintel) -> dict[str, Any]:
    results: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="lintel-start-") as scratch:
        parent = Path(scratch).resolve()
        # lintel's result cache in the scratch folder: where it is does not change what it does.
        os.environ["LINTEL_CACHE_DIR"] = str(parent / "lintel-cache")
        lintel.start_daemon()
        try:
            chosen = [section for section in SECTIONS if section in sections]

            async def one(section: str, folder: Path) -> dict[str, Any]:
                return await run_section(section, folder, lintel, rounds)

            await peers.run_sections(parent, chosen, one, results, seconds)
        finally:
            lintel.stop_daemon()
    results["section_seconds"] = seconds
    return results


def report(results: Mapping[str, Any], lintel: Lintel) -> list[str]:
    parts = []
    titles = {
        "start": "spawn → initialize response",
        "check": "lintel check, whole process",
        "mcp": "MCP spawn → initialize result",
        "hook": "hook post-edit, whole process",
    }
    for section in ("start", "diag", "check", "mcp", "hook"):
        if section == "diag" and section in results:
            for language, result in results["diag"].items():
                parts.append(interleaved_table(f"spawn → first diagnostics ({language})", result))
        elif section in results:
            parts.append(interleaved_table(titles[section], results[section]))
    if "importtime" in results:
        parts.append(import_table("lintel check FILE --only lint (cold)", results["importtime"]["check"]))
        parts.append(import_table("lintel serve up to initialize (cold)", results["importtime"]["serve"]))
    if "rss" in results:
        parts.append(rss_tables(results["rss"]))
    return parts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=10, help="timed interleaved rounds a section (default 10)")
    parser.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    parser.add_argument("--json", type=Path, help="also write every number and raw sample here")
    parser.add_argument("--lintel", help="the lintel command (default: this checkout's `lintel` console script)")
    args = parser.parse_args(argv)
    sections = args.only.split(",") if args.only else list(SECTIONS)
    if unknown := set(sections) - set(SECTIONS):
        parser.error(f"unknown sections {sorted(unknown)} (known: {', '.join(SECTIONS)})")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    lint_on_save.tool_path()
    # This interpreter's scripts (ruff) last, for a checkout without its own .venv.
    os.environ["PATH"] = f"{os.environ['PATH']}{os.pathsep}{Path(sys.executable).parent}"
    lintel = Lintel.find(shlex.split(args.lintel) if args.lintel else None)
    began = time.perf_counter()
    results: dict[str, Any] = {"environment": peers.environment()}
    results.update(asyncio.run(run(sections, args.rounds, lintel)))
    results["environment"]["loadavg_after"] = harness.loadavg()
    results["total_seconds"] = round(time.perf_counter() - began, 1)
    lines, checks = acceptance(results, lintel)
    results["acceptance"] = {"lines": lines, "checks": checks}
    results["lintel"] = {"command": lintel.prefix, "cold_flag": lintel.cold_flag, "warm": lintel.warm or "daemon"}
    cold = "LINTEL_NO_DAEMON=1" + (" and --no-daemon" if lintel.cold_flag else " (no --no-daemon in the help)")
    print(f"cold: {cold}; warm: {lintel.warm or 'through `lintel daemon start`'}\n")
    print("\n\n".join(report(results, lintel)), end="\n\n")
    print("acceptance (START33 targets; informational):\n" + "\n".join(lines))
    print("\n" + peers.environment_line(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
