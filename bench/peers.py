"""lintel next to its peers in one interleaved run: lint on save against the raw CLI, efm-langserver,
`ruff server`, eslint_d and vscode-eslint-language-server; start-up against a bare pygls server and the peers;
the RSS of each after 30 saves. Prints the tables and acceptance ratios (bench/README.md says what each
number is).

    bench/setup && python bench/peers.py [--saves N] [--js-saves N] [--starts N] [--only ...] [--json FILE]

Informational only: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import harness
import lint_on_save
import workloads
from lintel import __version__ as lintel_version
from peer_systems import (
    EFM,
    ESLINT_D,
    NPM_DIR,
    VSCODE_ESLINT,
    VSCODE_ESLINT_CUSTOM,
    Cli,
    EslintD,
    Lsp,
    Sample,
    System,
    SystemFailed,
    efm_eslint,
    efm_ruff,
    eslint_d_env,
    eslint_keys,
    ruff_keys,
    vscode_eslint_settings,
    write_efm_config,
)

SECTIONS = ("python", "js", "start")
T = TypeVar("T")
RSS_AFTER_SAVES = 30

# Formats one acceptance check (a TARGETS name, the measured value) and records it.
Check = Callable[[str, float | None], str]

# The acceptance targets: (relation, bound, unit). Ratios of medians measured in the same run, and one
# difference of medians in milliseconds. "Ahead of eslint_d" is a ratio strictly below 1.
TARGETS: dict[str, tuple[str, float, str]] = {
    "python.lintel/raw": ("≤", 0.5, ""),
    "python.lintel/ruff server": ("≤", 2.0, ""),
    "js.lintel/raw": ("≤", 0.25, ""),
    "js.lintel/eslint_d": ("<", 1.0, ""),
    "js.lintel/vscode-eslint": ("≤", 1.5, ""),
    "start.lintel initialize - bare pygls": ("≤", 50.0, "ms"),
}

# A trailing comment, there on every other save: each save has new content (a server that skips a save of
# unchanged text still lints), and the findings stay the same.
TAILS = {"python": "# touched by the save benchmark\n", "javascript": "// touched by the save benchmark\n"}

LINTEL = "lintel"
BASE = "lintel@base"  # --base-tree: lintel from another checkout, in the same interleaved rounds
THIS_TREE = Path(__file__).resolve().parents[1]
RUFF_RAW = "ruff check (raw CLI)"
ESLINT_RAW = "eslint, node_modules/.bin (raw CLI)"
ESLINT_NPX = "eslint, npx --no-install (raw CLI)"
EFM_NAME = "efm-langserver"
RUFF_SERVER = "ruff server"
ESLINT_D_NAME = "eslint_d"
VSCODE_NAME = "vscode-eslint"
BARE = "bare pygls"


@dataclass
class Plan:
    """One language's systems for the save rounds, the first being the raw CLI every ratio divides by."""

    language: str  # the LSP language id
    work: workloads.Workload
    systems: list[System]
    skipped: dict[str, str]  # name -> why it is not in the run (a peer not installed)
    expected: int  # findings the generated file has


def lintel_server(work: workloads.Workload, language: str, tree: Path | None = None, name: str = LINTEL) -> Lsp:
    """lintel as lint_on_save.py runs it: no child language server, no format check (one tool per save).
    `tree`: the checkout of lintel to run (its `server/` first on the import path), else the installed one."""
    options = lint_on_save.server_options(language_servers=False)
    command = harness.LINTEL_COMMAND
    if tree is not None:
        command = ["env", f"PYTHONPATH={tree / 'server'}", *harness.LINTEL_COMMAND]
    return Lsp(name, command, work.root, work.file, language, options=options, echo_stderr=True)


def with_base(work: workloads.Workload, language: str, base: Path | None) -> list[System]:
    """lintel, and the --base-tree lintel right after it when there is one. Both are then started the same way
    (each tree's `server/` first on the import path), so that how they start is no difference between them."""
    if base is None:
        return [lintel_server(work, language)]
    return [lintel_server(work, language, THIS_TREE), lintel_server(work, language, base, BASE)]


def efm_server(work: workloads.Workload, language: str, config: Path) -> Lsp:
    return Lsp(EFM_NAME, [str(EFM), "-c", str(config)], work.root, work.file, language)


def ruff_server(work: workloads.Workload, ruff: str) -> Lsp:
    return Lsp(RUFF_SERVER, [ruff, "server"], work.root, work.file, "python")


def vscode_eslint(work: workloads.Workload) -> Lsp:
    return Lsp(
        VSCODE_NAME,
        [str(VSCODE_ESLINT), "--stdio"],
        work.root,
        work.file,
        "javascript",
        pull=True,
        settings=vscode_eslint_settings(work.root),
        custom=VSCODE_ESLINT_CUSTOM,
    )


def eslint_tail(argv: Sequence[str]) -> list[str]:
    """The arguments after `eslint` in lintel's command (npx's or node_modules/.bin's form alike)."""
    for index, part in enumerate(argv):
        if Path(part).name == "eslint":
            return list(argv[index + 1 :])
    raise SystemExit(f"no eslint in lintel's command {argv}")


def missing(path: Path) -> str | None:
    return None if os.access(path, os.X_OK) else f"{path} not found: run bench/setup"


def python_plan(parent: Path, base: Path | None) -> Plan:
    work = workloads.python_workspace(parent)
    argv, env, _tool = lint_on_save.direct_argv(work)
    if argv[-1] != str(work.file.relative_to(work.root)):
        raise SystemExit(f"lintel's ruff command no longer ends with the file: {argv}")
    systems: list[System] = [Cli(RUFF_RAW, argv, work.root, env, ruff_keys), *with_base(work, "python", base)]
    skipped: dict[str, str] = {}
    if (why := missing(EFM)) is None:
        config = write_efm_config(parent / "efm-python.yaml", {"python": efm_ruff(argv[:-1])})
        systems.append(efm_server(work, "python", config))
    else:
        skipped[EFM_NAME] = why
    systems.append(ruff_server(work, argv[0]))
    return Plan("python", work, systems, skipped, workloads.PY_FINDINGS)


def js_plan(parent: Path, base: Path | None) -> Plan:
    work = workloads.node_workspace(parent)
    argv, env, _tool = lint_on_save.direct_argv(work)
    args = eslint_tail(argv)
    npx = shutil.which("npx")
    eslint = work.root / "node_modules" / ".bin" / "eslint"
    systems: list[System] = [Cli(ESLINT_RAW, [str(eslint), *args], work.root, env, eslint_keys)]
    skipped: dict[str, str] = {}
    if npx is not None:
        systems.append(Cli(ESLINT_NPX, [npx, "--no-install", "eslint", *args], work.root, env, eslint_keys))
    else:
        skipped[ESLINT_NPX] = "npx is not on PATH"
    systems.extend(with_base(work, "javascript", base))
    if (why := missing(EFM)) is None:
        config = write_efm_config(parent / "efm-javascript.yaml", {"javascript": efm_eslint(eslint, parent)})
        systems.append(efm_server(work, "javascript", config))
    else:
        skipped[EFM_NAME] = why
    if (why := missing(ESLINT_D)) is None:
        systems.append(EslintD(ESLINT_D_NAME, [str(ESLINT_D), *args], work.root, eslint_d_env(env), eslint_keys))
    else:
        skipped[ESLINT_D_NAME] = why
    if (why := missing(VSCODE_ESLINT)) is None:
        systems.append(vscode_eslint(work))
    else:
        skipped[VSCODE_NAME] = why
    return Plan("javascript", work, systems, skipped, workloads.JS_FINDINGS)


def rss_snapshot(systems: Sequence[System]) -> dict[str, dict[str, Any]]:
    """Each system's process trees, summed: lintel with its warm workers and any tool still running; `members`
    names each process and its own RSS."""
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        roots = system.pids()
        if not roots:
            continue
        members = [member for root in roots for member in harness.tree_members(root)]
        total = sum(kb for _pid, _name, kb in members)
        out[system.name] = {
            "rss_mb": round(total / 1024, 1),
            "processes": len(members),
            "members": [{"pid": pid, "command": name, "rss_mb": round(kb / 1024, 1)} for pid, name, kb in members],
        }
    return out


def round_order(items: Sequence[T], index: int) -> list[T]:
    """Round `index`'s order: rotated by one every round, and reversed every other cycle, so that each runs in
    each place and right after each other one alike (rotation alone keeps who follows whom: two lintels of the
    same code measured apart, the second always ahead)."""
    shift = index % len(items)
    rotated = [*items[shift:], *items[:shift]]
    return rotated if (index // len(items)) % 2 == 0 else rotated[::-1]


async def save_rounds(plan: Plan, saves: int, warmup: int) -> dict[str, Any]:
    """Every round writes the file (the trailing comment on, then off) and gives each system one save of it,
    in the order of `round_order`, so that a change of load hits every system alike."""
    base = plan.work.file.read_text(encoding="utf-8")
    samples: dict[str, dict[int, Sample]] = {}  # by round
    failed: dict[str, str] = {}
    started: list[System] = []
    rss: dict[str, dict[str, Any]] = {}
    rss_saves = 0
    try:
        for system in plan.systems:
            try:
                await system.start()
            except SystemFailed as error:
                failed[system.name] = str(error)
                await system.stop()
                continue
            started.append(system)
            samples[system.name] = {}
        baseline = plan.systems[0].name
        if baseline not in samples:
            raise SystemExit(f"the raw CLI did not run: {failed.get(baseline)}")
        for index in range(warmup + saves):
            text = base + TAILS[plan.language] if index % 2 == 0 else base
            lint_on_save.write_atomically(plan.work.file, text)
            for system in round_order(started, index):
                if system.name in failed:
                    continue
                try:
                    sample = await system.save(text)
                except SystemFailed as error:
                    failed[system.name] = str(error)
                    continue
                if index >= warmup:
                    samples[system.name][index - warmup] = sample
            if index + 1 - warmup == min(saves, RSS_AFTER_SAVES):
                rss, rss_saves = rss_snapshot([s for s in started if s.name not in failed]), index + 1
    finally:
        for system in started:
            await system.stop()
        lint_on_save.write_atomically(plan.work.file, base)
    for name, why in failed.items():
        print(f"[{plan.language}] {name} dropped: {why}", file=sys.stderr)
    return summarize_saves(plan, samples, failed, rss, rss_saves, warmup)


def findings_check(samples: Mapping[int, Sample], baseline: Mapping[int, Sample]) -> dict[str, Any]:
    """Round by round, the system's findings against the raw CLI's on the same content."""
    pairs = [(sample, baseline[index]) for index, sample in samples.items() if index in baseline]
    same = sum(1 for a, b in pairs if a.keys == b.keys)
    same_count = sum(1 for a, b in pairs if len(a.keys) == len(b.keys))
    counts = Counter(len(sample.keys) for sample in samples.values())
    return {
        "rounds": len(pairs),
        "same_positions": same,
        "same_count": same_count,
        "counts": dict(counts),
    }


def summarize_saves(
    plan: Plan,
    samples: Mapping[str, Mapping[int, Sample]],
    failed: Mapping[str, str],
    rss: Mapping[str, Any],
    rss_saves: int,
    warmup: int,
) -> dict[str, Any]:
    baseline_name = plan.systems[0].name
    baseline = samples[baseline_name]
    raw = harness.summary([s.ms for s in baseline.values()])
    rows: dict[str, Any] = {}
    for name, taken in samples.items():
        if not taken:
            continue
        stats = harness.summary([s.ms for s in taken.values()])
        rows[name] = {
            **stats,
            "ratio": round(stats["median"] / raw["median"], 3),
            "findings": findings_check(taken, baseline),
        }
    return {
        "file": str(plan.work.file.relative_to(plan.work.root)),
        "lines": len(plan.work.file.read_text(encoding="utf-8").splitlines()),
        "expected_findings": plan.expected,
        "baseline": baseline_name,
        "warmup_rounds": warmup,
        "rows": rows,
        "rss_after_saves": rss_saves - warmup if rss_saves else None,
        "rss": dict(rss),
        "skipped": dict(plan.skipped),
        "failed": dict(failed),
    }


# -- start-up ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartKind:
    server: str  # the column
    language: str | None  # None: initialize only
    make: Callable[[], Lsp]


def start_kinds(parent: Path, base: Path | None) -> list[StartKind]:
    py = workloads.python_workspace(parent)
    js = workloads.node_workspace(parent)
    ruff = shutil.which("ruff")
    kinds = [
        StartKind(BARE, None, lambda: Lsp(BARE, harness.BARE_COMMAND, py.root, None)),
        StartKind(LINTEL, "python", lambda: lintel_server(py, "python")),
        StartKind(LINTEL, "javascript", lambda: lintel_server(js, "javascript")),
    ]
    if base is not None:
        kinds[1:3] = [
            StartKind(LINTEL, "python", lambda: lintel_server(py, "python", THIS_TREE)),
            StartKind(LINTEL, "javascript", lambda: lintel_server(js, "javascript", THIS_TREE)),
            StartKind(BASE, "python", lambda: lintel_server(py, "python", base, BASE)),
            StartKind(BASE, "javascript", lambda: lintel_server(js, "javascript", base, BASE)),
        ]
    if ruff is not None:
        kinds.append(StartKind(RUFF_SERVER, "python", lambda: ruff_server(py, ruff)))
    if missing(EFM) is None:
        argv, _env, _tool = lint_on_save.direct_argv(py)
        eslint = js.root / "node_modules" / ".bin" / "eslint"
        linters = {"python": efm_ruff(argv[:-1]), "javascript": efm_eslint(eslint, parent)}
        config = write_efm_config(parent / "efm-start.yaml", linters)
        kinds.append(StartKind(EFM_NAME, "python", lambda: efm_server(py, "python", config)))
        kinds.append(StartKind(EFM_NAME, "javascript", lambda: efm_server(js, "javascript", config)))
    if missing(VSCODE_ESLINT) is None:
        kinds.append(StartKind(VSCODE_NAME, "javascript", lambda: vscode_eslint(js)))
    return kinds


async def start_rounds(parent: Path, starts: int, base: Path | None) -> dict[str, Any]:
    """Fresh servers, one of each kind per round (rotated), after one untimed round that fills the page cache
    and compiles what is compiled on first use. initialize is sent as soon as the process exists, as editors
    do, and didOpen as soon as the answer is in."""
    kinds = start_kinds(parent, base)
    taken: dict[tuple[str, str | None], list[dict[str, Any]]] = {(k.server, k.language): [] for k in kinds}
    failed: dict[str, str] = {}
    for index in range(starts + 1):
        for kind in round_order(kinds, index):
            system = kind.make()
            try:
                await system.start()
            except SystemFailed as error:
                failed[f"{kind.server} ({kind.language})"] = str(error)
                continue
            finally:
                await system.stop()
            if index > 0:
                run = {"initialize_ms": system.initialize_ms, "first_ms": system.first_ms}
                if system.first_ms is not None and system.initialize_ms is not None:
                    run["open_ms"] = system.first_ms - system.initialize_ms
                run["findings"] = len(system.first_keys)
                run["empty_pulls"] = system.empty_pulls
                taken[(kind.server, kind.language)].append(run)
    out: dict[str, Any] = {"starts": starts, "servers": {}, "failed": failed}
    for (server, language), runs in taken.items():
        entry = out["servers"].setdefault(
            server,
            {"initialize_ms": [], "initialize_ms_by_workspace": {}, "first_ms": {}, "open_ms": {}, "findings": {}},
        )
        entry["initialize_ms"].extend(r["initialize_ms"] for r in runs)
        entry["initialize_ms_by_workspace"][language or "python"] = harness.summary([r["initialize_ms"] for r in runs])
        if language is not None:
            entry["first_ms"][language] = harness.summary([r["first_ms"] for r in runs])
            # initialize response -> first diagnostics, start by start: what opening the file costs
            entry["open_ms"][language] = harness.summary([r["open_ms"] for r in runs])
            entry["findings"][language] = dict(Counter(r["findings"] for r in runs))
    for entry in out["servers"].values():
        entry["initialize_ms"] = harness.summary(entry["initialize_ms"])
    out["expected_findings"] = {"python": workloads.PY_FINDINGS, "javascript": workloads.JS_FINDINGS}
    out["runs"] = {f"{server} ({language or 'initialize only'})": runs for (server, language), runs in taken.items()}
    return out


# -- the report --------------------------------------------------------------------------------------------


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def findings_cell(row: Mapping[str, Any], expected: int) -> str:
    check = row["findings"]
    counts = "/".join(str(count) for count in sorted(check["counts"]))
    if check["same_positions"] == check["rounds"]:
        return f"{counts} = raw" + ("" if counts == str(expected) else f" (expected {expected})")
    if check["same_count"] == check["rounds"]:
        return f"{counts} = raw count, positions differ in {check['rounds'] - check['same_positions']} rounds"
    return f"MISMATCH in {check['rounds'] - check['same_count']}/{check['rounds']} rounds ({counts})"


def save_table(results: Mapping[str, Any]) -> str:
    rows: list[list[str]] = []
    for section, label in (("python", "python"), ("js", "js")):
        result = results.get(section)
        if result is None:
            continue
        for name, row in result["rows"].items():
            rows.append(
                [
                    f"{label}, {name}",
                    f"{row['median']:.1f} ms",
                    f"{row['p90']:.1f} ms",
                    f"{row['ratio']:.2f}",
                    findings_cell(row, result["expected_findings"]),
                ]
            )
        rows.extend([f"{label}, {name}", "—", "—", "—", f"not run: {why}"] for name, why in result["skipped"].items())
        rows.extend([f"{label}, {name}", "—", "—", "—", "failed (see stderr)"] for name in result["failed"])
    return markdown(["lint on save", "median", "p90", "× raw CLI", "findings (per save, vs raw CLI)"], rows)


def start_table(start: Mapping[str, Any]) -> str:
    servers = [s for s in (LINTEL, BARE, EFM_NAME, RUFF_SERVER, VSCODE_NAME) if s in start["servers"]]

    def cell(server: str, language: str | None) -> str:
        entry = start["servers"][server]
        stats = entry["initialize_ms"] if language is None else entry["first_ms"].get(language)
        return "—" if not stats or not stats.get("n") else f"{stats['median']:.1f} ms"

    rows = [
        ["spawn → initialize response", *(cell(s, None) for s in servers)],
        ["spawn → first diagnostics (python)", *(cell(s, "python") for s in servers)],
        ["spawn → first diagnostics (js)", *(cell(s, "javascript") for s in servers)],
    ]
    return markdown([f"start (median of {start['starts']})", *servers], rows)


def rss_table(results: Mapping[str, Any]) -> str:
    rows: list[list[str]] = []
    for section, label in (("python", "python"), ("js", "js")):
        result = results.get(section)
        if result is None or not result["rss"]:
            continue
        for name, rss in result["rss"].items():
            rows.append([f"{label}, {name}", f"{rss['rss_mb']:.1f} MB", str(rss["processes"])])
    saves = {results[s]["rss_after_saves"] for s in ("python", "js") if s in results}
    return markdown([f"RSS after {'/'.join(str(s) for s in sorted(saves))} saves", "process tree", "processes"], rows)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def ratio(result: Mapping[str, Any] | None, top: str, bottom: str) -> float | None:
    if result is None or top not in result["rows"] or bottom not in result["rows"]:
        return None
    return float(result["rows"][top]["median"]) / float(result["rows"][bottom]["median"])


def save_lines(results: Mapping[str, Any], check: Check) -> list[str]:
    lines = []
    py, js = results.get("python"), results.get("js")
    if py is not None:
        parts = [
            check("python.lintel/raw", ratio(py, LINTEL, RUFF_RAW)),
            check("python.lintel/ruff server", ratio(py, LINTEL, RUFF_SERVER)),
        ]
        lines.append("python: " + "; ".join(parts))
    if js is not None:
        parts = [
            check("js.lintel/raw", ratio(js, LINTEL, ESLINT_RAW)),
            check("js.lintel/eslint_d", ratio(js, LINTEL, ESLINT_D_NAME)),
            check("js.lintel/vscode-eslint", ratio(js, LINTEL, VSCODE_NAME)),
        ]
        lines.append("js: " + "; ".join(parts))
    return lines


def start_lines(start: Mapping[str, Any], check: Check) -> list[str]:
    lines = []
    servers = start["servers"]
    lintel, bare = servers.get(LINTEL), servers.get(BARE)
    if lintel and bare and lintel["initialize_ms"].get("n") and bare["initialize_ms"].get("n"):
        extra = lintel["initialize_ms"]["median"] - bare["initialize_ms"]["median"]
        shown = check("start.lintel initialize - bare pygls", extra)
        lines.append(
            f"start: {shown} (spawn → initialize response: lintel {lintel['initialize_ms']['median']:.1f} ms, "
            f"bare pygls {bare['initialize_ms']['median']:.1f} ms)"
        )
    if lintel:
        firsts = []
        for language, label in (("python", "python"), ("javascript", "js")):
            first, opened = lintel["first_ms"].get(language), lintel["open_ms"].get(language)
            if first and first.get("n"):
                firsts.append(
                    f"{label} {first['median']:.1f} ms ({opened['median']:.1f} ms after the initialize response)"
                )
        lines.append("start: lintel spawn → first diagnostics: " + ", ".join(firsts))
    wrong = [
        f"{server} ({language}): {counts}"
        for server, entry in servers.items()
        for language, counts in entry["findings"].items()
        if {int(count) for count in counts} != {start["expected_findings"][language]}  # int: also from --json
    ]
    lines.append(
        "start: every first answer carried the file's findings"
        if not wrong
        else "start: first answers with other findings counts: " + "; ".join(wrong)
    )
    return lines


def rss_lines(results: Mapping[str, Any]) -> list[str]:
    lines = []
    for section, label in (("python", "python"), ("js", "js")):
        result = results.get(section)
        if result is None or LINTEL not in result["rss"]:
            continue
        peers = ", ".join(f"{n} {r['rss_mb']:.1f} MB" for n, r in result["rss"].items() if n != LINTEL)
        own = result["rss"][LINTEL]
        lines.append(
            f"rss ({label}, after {result['rss_after_saves']} saves): lintel + workers {own['rss_mb']:.1f} MB "
            f"({own['processes']} processes); {peers}"
        )
    return lines


def acceptance(results: Mapping[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """The issue's acceptance lines: each ratio (or difference), its target and PASS/MISS."""
    checks: list[dict[str, Any]] = []

    def check(name: str, value: float | None) -> str:
        label = name.split(".", 1)[1]
        if value is None:
            return f"{label} = n/a"
        relation, bound, unit = TARGETS[name]
        ok = value < bound if relation == "<" else value <= bound
        limit = f"{relation} {bound:+g} {unit}" if unit else f"{relation} {bound:g}"
        checks.append({"name": name, "value": round(value, 3), "target": limit, "pass": ok})
        shown = f"{value:+.1f} {unit}" if unit else f"{value:.2f}"
        return f"{label} = {shown} (target {limit}: {verdict(ok)})"

    lines = save_lines(results, check)
    if "start" in results:
        lines += start_lines(results["start"], check)
    lines += rss_lines(results)
    lines += base_lines(results)
    return lines, checks


def base_lines(results: Mapping[str, Any]) -> list[str]:
    """This tree against --base-tree, each ratio of medians from the same interleaved rounds (below 1: faster)."""
    parts = []
    for section, label in (("python", "python save"), ("js", "js save")):
        if (value := ratio(results.get(section), LINTEL, BASE)) is not None:
            parts.append(f"{label} ×{value:.2f}")
    servers = results.get("start", {}).get("servers", {})
    ours, base = servers.get(LINTEL), servers.get(BASE)
    if ours and base and ours["initialize_ms"].get("n") and base["initialize_ms"].get("n"):
        parts.append(f"initialize ×{ours['initialize_ms']['median'] / base['initialize_ms']['median']:.2f}")
        for language in ("python", "javascript"):
            mine, theirs = ours["first_ms"].get(language), base["first_ms"].get(language)
            if mine and theirs and mine.get("n") and theirs.get("n"):
                parts.append(f"first diagnostics ({language}) ×{mine['median'] / theirs['median']:.2f}")
    return [f"A/B, this tree / {BASE}: " + ", ".join(parts)] if parts else []


# -- the run -----------------------------------------------------------------------------------------------


def command_output(argv: Sequence[str]) -> str | None:
    try:
        result = subprocess.run(list(argv), capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (result.stdout or result.stderr).strip().splitlines()[0] if (result.stdout or result.stderr) else None


def package_version(path: Path) -> str | None:
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("version"))
    except (OSError, ValueError):
        return None


def environment() -> dict[str, Any]:
    project_eslint = package_version(workloads.fixture_node_modules() / "eslint" / "package.json")
    daemon_eslint = package_version(NPM_DIR / "node_modules" / "eslint" / "package.json")
    if project_eslint and daemon_eslint and project_eslint != daemon_eslint:
        print(f"warning: eslint_d lints with eslint {daemon_eslint}, the project has {project_eslint}", file=sys.stderr)
    return {
        "lintel": lintel_version,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "node": command_output(["node", "--version"]),
        "ruff": lint_on_save.ruff_version(),
        "eslint": project_eslint,
        "eslint_d": command_output([str(ESLINT_D), "--version"]) if missing(ESLINT_D) is None else None,
        "efm_langserver": command_output([str(EFM), "-v"]) if missing(EFM) is None else None,
        "vscode_langservers_extracted": package_version(
            NPM_DIR / "node_modules" / "vscode-langservers-extracted" / "package.json"
        ),
        "loadavg_before": harness.loadavg(),
    }


def environment_line(results: Mapping[str, Any]) -> str:
    """The machine, its load before and after, the peers' versions and how long each section took."""
    env = results["environment"]
    return (
        f"{env['cpus']} cpus, load {env['loadavg_before']} -> {env['loadavg_after']}; node {env['node']}, "
        f"{env['ruff']}, eslint {env['eslint']}, {env['eslint_d']}, {env['efm_langserver']}, "
        f"vscode-langservers-extracted {env['vscode_langservers_extracted']}; "
        f"{results['total_seconds']} s {results['section_seconds']}"
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    sections = args.only.split(",") if args.only else list(SECTIONS)
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        raise SystemExit(f"unknown sections {sorted(unknown)} (known: {', '.join(SECTIONS)})")
    results: dict[str, Any] = {"environment": environment()}
    seconds: dict[str, float] = {}

    async def one(section: str, folder: Path) -> dict[str, Any]:
        if section == "python":
            return await save_rounds(python_plan(folder, args.base_tree), args.saves, args.warmup)
        if section == "js":
            return await save_rounds(js_plan(folder, args.base_tree), args.js_saves, args.js_warmup)
        return await start_rounds(folder, args.starts, args.base_tree)

    with tempfile.TemporaryDirectory(prefix="lintel-peers-") as scratch:
        await run_sections(Path(scratch).resolve(), [s for s in SECTIONS if s in sections], one, results, seconds)
    results["environment"]["loadavg_after"] = harness.loadavg()
    results["section_seconds"] = seconds
    return results


async def run_sections(
    parent: Path,
    sections: Sequence[str],
    one: Callable[[str, Path], Awaitable[dict[str, Any]]],
    results: dict[str, Any],
    seconds: dict[str, float],
) -> None:
    """Each section in a folder of its own under `parent`, its result into `results` and its duration into
    `seconds` as it ends (what ran is kept when a later section fails)."""
    for section in sections:
        print(f"[{section}] ...", file=sys.stderr, flush=True)
        began = time.perf_counter()
        folder = parent / section
        folder.mkdir()
        results[section] = await one(section, folder)
        seconds[section] = round(time.perf_counter() - began, 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--saves", type=int, default=40, help="timed python save rounds (default 40)")
    parser.add_argument("--js-saves", type=int, default=30, help="timed js save rounds (default 30: ~3 s a round)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed python rounds first (default 3)")
    parser.add_argument("--js-warmup", type=int, default=2, help="untimed js rounds first (default 2)")
    parser.add_argument("--starts", type=int, default=10, help="timed fresh starts of each server (default 10)")
    parser.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    parser.add_argument("--json", type=Path, help="also write every number and raw sample here")
    parser.add_argument(
        "--base-tree",
        type=Path,
        help="another lintel checkout (say, the commit before a change) run as lintel@base in the same rounds",
    )
    args = parser.parse_args(argv)
    if min(args.saves, args.js_saves, args.starts) < 1 or min(args.warmup, args.js_warmup) < 0:
        parser.error("--saves, --js-saves and --starts must be at least 1, the warm-ups at least 0")
    if args.base_tree is not None:
        args.base_tree = args.base_tree.resolve()
        if not (args.base_tree / "server" / "lintel" / "__main__.py").is_file():
            parser.error(f"--base-tree {args.base_tree}: no server/lintel/__main__.py there")
    lint_on_save.tool_path()
    began = time.perf_counter()
    results = asyncio.run(run(args))
    results["total_seconds"] = round(time.perf_counter() - began, 1)
    lines, checks = acceptance(results)
    results["acceptance"] = {"lines": lines, "checks": checks}
    if "python" in results or "js" in results:
        print(save_table(results), end="\n\n")
    if "start" in results:
        print(start_table(results["start"]), end="\n\n")
    if "python" in results or "js" in results:
        print(rss_table(results), end="\n\n")
    print("\n".join(lines))
    print("\n" + environment_line(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
