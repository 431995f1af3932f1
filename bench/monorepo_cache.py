"""The result cache on a synthetic monorepo: N projects of each of four languages' lint (ruff, eslint, golangci-lint,
clippy), each with a finding, in one git repository. `lintel check --only lint` runs cold (empty cache), fully cached,
and after one Python file of one project is edited; each run's wall time, the tool processes it started and its report
compared with a `--no-cache` run of the same tree (durations aside).

    python bench/monorepo_cache.py [--projects 200] [--languages python,node,go,rust] [--keep DIR]

eslint comes from an installed node_modules (`--node-modules`, default: tests/workspaces/node/node_modules, which
scripts/setup-dev installs), linked at the monorepo's root where workspaces hoist it. Informational only: nothing here
asserts on time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# The child that runs `lintel check` and counts the processes lintel's checks start (tool runs, and the version
# probes of the cache apart), printed as the last line of stderr.
_COUNTING = """
import sys
from lintel.engine import checks, resultcache
from lintel.frontends import cli
counts = {"tools": 0, "probes": 0}
def spy(real, name):
    async def counting(argv, **kwargs):
        counts[name] += 1
        return await real(argv, **kwargs)
    return counting
checks.run_process = spy(checks.run_process, "tools")
resultcache.run_process = spy(resultcache.run_process, "probes")
code = cli.main(sys.argv[1:])
print(f"COUNTS {counts['tools']} {counts['probes']}", file=sys.stderr)
sys.exit(code)
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def generate(root: Path, projects: int, languages: list[str], node_modules: Path | None) -> None:
    """`projects` projects per language, each with one finding, committed."""
    for n in range(projects):
        if "python" in languages:
            _write(root / "py" / f"p{n:03d}" / "pyproject.toml", f'[project]\nname = "p{n:03d}"\nversion = "0"\n')
            _write(root / "py" / f"p{n:03d}" / "src" / "mod.py", f"import os\n\nVALUE = {n}\n")
        if "node" in languages:
            package = {"name": f"j{n:03d}", "version": "0.0.0", "type": "module", "devDependencies": {"eslint": "*"}}
            _write(root / "js" / f"j{n:03d}" / "package.json", json.dumps(package))
            _write(
                root / "js" / f"j{n:03d}" / "eslint.config.js",
                'export default [{ rules: { "no-unused-vars": "error" } }];\n',
            )
            _write(root / "js" / f"j{n:03d}" / "index.js", f"const unused = {n};\nexport const value = {n};\n")
        if "go" in languages:
            _write(root / "go" / f"g{n:03d}" / "go.mod", f"module example.com/g{n:03d}\n\ngo 1.21\n")
            _write(
                root / "go" / f"g{n:03d}" / ".golangci.yml",
                'version: "2"\nlinters:\n  default: none\n  enable: [unused]\n',
            )
            _write(
                root / "go" / f"g{n:03d}" / "main.go", f"package g{n:03d}\n\nfunc unused{n}() int {{ return {n} }}\n"
            )
        if "rust" in languages:
            _write(
                root / "rs" / f"r{n:03d}" / "Cargo.toml",
                f'[package]\nname = "r{n:03d}"\nversion = "0.1.0"\nedition = "2021"\n',
            )
            _write(root / "rs" / f"r{n:03d}" / "src" / "lib.rs", "pub fn f(x: &Vec<i32>) -> usize { x.len() }\n")
    _write(root / ".gitignore", "node_modules\ntarget/\n")
    if "node" in languages and node_modules is not None:
        (root / "node_modules").symlink_to(node_modules)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    commit = ["git", "-c", "user.email=bench@lintel", "-c", "user.name=bench", "commit", "-qm", "monorepo"]
    subprocess.run(commit, cwd=root, check=True)


def check(root: Path, *flags: str) -> tuple[float, int, int, dict[str, Any]]:
    """One `lintel check --only lint` of the monorepo: wall seconds, tool processes, version probes, the report."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "CARGO_TARGET_DIR": str(root.parent / "target")}
    argv = [sys.executable, "-c", _COUNTING, "check", str(root), "--only", "lint", "--format", "json", "-q", *flags]
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    counts = [line for line in proc.stderr.splitlines() if line.startswith("COUNTS ")]
    if not counts or proc.returncode not in (0, 1):
        raise SystemExit(f"lintel check failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    _, tools, probes = counts[-1].split()
    return elapsed, int(tools), int(probes), json.loads(proc.stdout)


def comparable(report: dict[str, Any]) -> str:
    for run in report["runs"]:
        run["durationMs"] = 0
    return json.dumps(report, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--projects", type=int, default=200, help="projects per language (default 200)")
    parser.add_argument("--languages", default="python,node,go,rust")
    parser.add_argument("--node-modules", type=Path, default=REPO / "tests" / "workspaces" / "node" / "node_modules")
    parser.add_argument("--keep", type=Path, help="build the monorepo here and keep it")
    args = parser.parse_args()
    languages = [name.strip() for name in args.languages.split(",") if name.strip()]
    node_modules = args.node_modules.resolve() if (args.node_modules / "eslint").is_dir() else None
    if "node" in languages and node_modules is None:
        print(f"no eslint in {args.node_modules}: node projects are left out (run scripts/setup-dev)")
        languages.remove("node")
    scratch = Path(tempfile.mkdtemp(prefix="lintel-mono-"))
    root = args.keep.resolve() if args.keep else scratch / "mono"
    root.mkdir(parents=True, exist_ok=True)
    try:
        generate(root, args.projects, languages, node_modules)
        cache = ["--cache-dir", str(scratch / "cache")]
        print(f"{args.projects} projects × {', '.join(languages)}: lint")
        print(f"{'run':<36}{'wall s':>9}{'tools':>8}{'probes':>8}  report == --no-cache")
        first = check(root, "--no-cache")  # also warms the tools' own caches (go, cargo) and writes Cargo.lock
        baseline = check(root, "--no-cache")
        reference = comparable(baseline[3])
        print(f"{'--no-cache (first, tool caches cold)':<36}{first[0]:>9.2f}{first[1]:>8}{first[2]:>8}")
        same = comparable(first[3]) == reference
        print(f"{'--no-cache (baseline)':<36}{baseline[0]:>9.2f}{baseline[1]:>8}{baseline[2]:>8}  {same}")
        rows = [("cold (empty cache)", check(root, *cache)), ("fully cached", check(root, *cache))]
        edited = root / "py" / "p000" / "src" / "mod.py" if "python" in languages else next(root.rglob("*.go"))
        edited.write_text(edited.read_text(encoding="utf-8") + "import sys\n", encoding="utf-8")
        rows.append((f"after editing {edited.relative_to(root)}", check(root, *cache)))
        after = comparable(check(root, "--no-cache")[3])
        for index, (label, (seconds, tools, probes, report)) in enumerate(rows):
            same = comparable(report) == (after if index == 2 else reference)
            print(f"{label:<36}{seconds:>9.2f}{tools:>8}{probes:>8}  {same}")
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
