"""The baselines: each tool run by hand on a workspace copy, its findings for one file as (line, code) pairs.

Lines are 1-based as the tools print them; codes are what lintel puts in `Diagnostic.code`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tests.helpers import lintel_json, run_tool

Findings = Counter[tuple[int, str | None]]

GOLANGCI = [
    "golangci-lint",
    "run",
    "--output.json.path=stdout",
    "--show-stats=false",
    "--path-mode=abs",
    "--issues-exit-code=1",
    "--allow-parallel-runners",
    "--max-issues-per-linter=0",
    "--max-same-issues=0",
]


def ruff(root: Path, file: str) -> Findings:
    proc = run_tool(["ruff", "check", "--output-format=json", "--no-cache", file], cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    return Counter((v["location"]["row"], v["code"]) for v in json.loads(proc.stdout))


def eslint(root: Path, file: str) -> Findings:
    proc = run_tool(["npx", "--no-install", "eslint", "--format", "json", file], cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    [result] = json.loads(proc.stdout)
    return Counter((m["line"], m["ruleId"]) for m in result["messages"])


def golangci_lint(root: Path, file: str) -> Findings:
    package = Path(file).parent.as_posix()
    target = "." if package == "." else f"./{package}"
    proc = run_tool([*GOLANGCI, target], cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    wanted = (root / file).resolve()
    return Counter(
        (i["Pos"]["Line"], i["FromLinter"])
        for i in json.loads(proc.stdout)["Issues"]
        if Path(i["Pos"]["Filename"]).resolve() == wanted
    )


def clippy(root: Path, file: str, env: Mapping[str, str]) -> Findings:
    """Distinct compiler messages for `file` (cargo prints a file's findings once per target that compiles it)."""
    proc = run_tool(["cargo", "clippy", "--all-targets", "--message-format=json"], cwd=root, env=env)
    assert proc.returncode in (0, 101), proc.stderr
    distinct: set[tuple[int, int, str | None, str]] = set()
    for line in proc.stdout.splitlines():
        record = json.loads(line)
        if record["reason"] != "compiler-message" or record["message"]["level"] not in ("error", "warning"):
            continue
        message = record["message"]
        primary = [s for s in message["spans"] if s["is_primary"]]
        if not primary or primary[0]["file_name"] != file:
            continue
        code = (message["code"] or {}).get("code")
        distinct.add((primary[0]["line_start"], primary[0]["column_start"], code, message["message"]))
    return Counter((line, code) for line, _, code, _ in distinct)


def lint(language: str, root: Path, file: str, env: Mapping[str, str]) -> Findings:
    if language == "python":
        return ruff(root, file)
    if language == "node":
        return eslint(root, file)
    if language == "go":
        return golangci_lint(root, file)
    if language == "rust":
        return clippy(root, file, env)
    raise ValueError(language)


def cli_issues(root: Path, language: str, check: str, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """`lintel check --only <check>`: the CLI is proven against each tool in tests/integration."""
    _, report = lintel_json("check", str(root), "--language", language, "--only", check, env=env)
    [run] = report["runs"]
    assert run["status"] in ("findings", "clean"), run
    issues: list[dict[str, Any]] = report["issues"]
    return issues


Edit = tuple[str, str, str]  # (file, old text, new text), the old text occurring once


def apply_edits(root: Path, edits: tuple[Edit, ...]) -> None:
    for file, old, new in edits:
        path = root / file
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} should occur once in {file}"
        path.write_text(text.replace(old, new), encoding="utf-8")


class Baselines:
    """What the tools report for a fixture (optionally edited), computed once per session on a copy of its
    own: both client capability sets compare against the same by-hand run."""

    def __init__(self, scratch: Path, env: Mapping[str, str], copy: Callable[[str, Path], Path]) -> None:
        self._scratch = scratch
        self._env = env
        self._copy = copy
        self._roots: dict[tuple[str, tuple[Edit, ...]], Path] = {}
        self._results: dict[tuple[Any, ...], Any] = {}

    def workspace(self, name: str, edits: tuple[Edit, ...] = ()) -> Path:
        key = (name, edits)
        if key not in self._roots:
            root = self._copy(name, self._scratch / f"{name}-{len(self._roots)}")
            apply_edits(root, edits)
            self._roots[key] = root
        return self._roots[key]

    def lint(self, language: str, file: str, edits: tuple[Edit, ...] = ()) -> Findings:
        key = ("lint", language, file, edits)
        if key not in self._results:
            self._results[key] = lint(language, self.workspace(language, edits), file, self._env)
        found: Findings = self._results[key]
        return Counter(found)

    def cli(self, language: str, check: str, edits: tuple[Edit, ...] = ()) -> list[dict[str, Any]]:
        key = ("cli", language, check, edits)
        if key not in self._results:
            self._results[key] = cli_issues(self.workspace(language, edits), language, check, self._env)
        issues: list[dict[str, Any]] = self._results[key]
        return issues
