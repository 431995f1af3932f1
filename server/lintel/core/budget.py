"""How many issues an answer carries, for a model's context: a severity floor first, then the most severe first
(then file, line, column) up to a cap. Works on Issue records (listed most severe first) and on their wire JSON
(kept in the tool's order)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from lintel.core.issues import SEVERITY_RANK, Issue, Severity

T = TypeVar("T")
# The issues an agent's answer carries when the call does not say (MCP `max_issues`, `lintel hook --max-issues`):
# enough for a round of fixes, and the answer stays well inside what harnesses accept from one tool call.
AGENT_MAX_ISSUES = 50
# A capped answer's `output` (the tool's own text, whose findings are the issues already): its last characters,
# where tools print their summary and the error that stopped them.
OUTPUT_CHARS = 8000


def _issue_key(issue: Issue) -> tuple[int, str, int, int]:
    return (-SEVERITY_RANK[issue.severity], issue.file or "", issue.line or 0, issue.column or 0)


def _json_key(issue: Mapping[str, Any]) -> tuple[int, str, int, int]:
    word = issue.get("severity")
    rank = next((rank for name, rank in SEVERITY_RANK.items() if name == word), 0)
    return (-rank, str(issue.get("file") or ""), int(issue.get("line") or 0), int(issue.get("column") or 0))


@dataclass(frozen=True)
class Selected(Generic[T]):
    """The issues kept, in order, and what was left out: below the floor, and over the cap."""

    shown: list[T]
    total: int
    below_floor: int

    @property
    def omitted(self) -> int:
        return self.total - len(self.shown)

    @property
    def over_cap(self) -> int:
        return self.omitted - self.below_floor


@dataclass(frozen=True)
class Budget:
    """`max_issues` (None: no cap) and the `severity` floor (hint: every issue)."""

    max_issues: int | None = None
    severity: Severity = "hint"

    @property
    def unlimited(self) -> bool:
        return self.max_issues is None and self.severity == "hint"

    def _select(self, issues: Sequence[T], key: Callable[[T], tuple[int, str, int, int]]) -> Selected[T]:
        floor = -SEVERITY_RANK[self.severity]
        kept = sorted((i for i in issues if key(i)[0] <= floor), key=key)
        shown = kept if self.max_issues is None else kept[: self.max_issues]
        return Selected(shown, len(issues), len(issues) - len(kept))

    def issues(self, issues: Sequence[Issue]) -> Selected[Issue]:
        return self._select(issues, _issue_key)

    def json_issues(self, issues: Sequence[Mapping[str, Any]]) -> Selected[Mapping[str, Any]]:
        """The wire issues kept, in the order the tool gave them (as an answer without a budget has them)."""
        selected = self._select(issues, _json_key)
        chosen = {id(i) for i in selected.shown}
        return Selected([i for i in issues if id(i) in chosen], selected.total, selected.below_floor)

    def more(self, selected: Selected[Any]) -> str | None:
        """The line saying what was left out, None when nothing was."""
        parts = []
        if selected.over_cap:
            parts.append(f"{selected.over_cap} more (max_issues {self.max_issues}, most severe first)")
        if selected.below_floor:
            parts.append(f"{selected.below_floor} below severity {self.severity}")
        return f"… and {'; '.join(parts)} not shown" if parts else None


# The lists of issues an answer may carry (a RunResult's `issues`, apply_fixes' `remaining`, check_edit's `new`
# and `fixed`); each cut one says `<key>Total` and `<key>Omitted` beside it.
ISSUE_LISTS = ("issues", "remaining", "new", "fixed")


def _identity(issue: Mapping[str, Any]) -> tuple[Any, ...]:
    return (issue.get("signature"), issue.get("fingerprint"), issue.get("source"), issue.get("column"))


def _cut(document: dict[str, Any], budget: Budget) -> set[tuple[Any, ...]] | None:
    """Each issue list of `document` cut to the budget in place; the identities kept, None without a list."""
    kept: set[tuple[Any, ...]] | None = None
    for key in ISSUE_LISTS:
        issues = document.get(key)
        if not isinstance(issues, list):
            continue
        selected = budget.json_issues(issues)
        document[key] = selected.shown
        if selected.omitted:
            document[f"{key}Total"] = selected.total
            document[f"{key}Omitted"] = selected.omitted
        kept = (kept or set()) | {_identity(i) for i in selected.shown}
    return kept


def budget_json(document: dict[str, Any], budget: Budget) -> dict[str, Any]:
    """An answer's JSON with its issue lists cut to the budget (a copy; the counts of what was left out beside
    each cut list) and, under a cap, its `output` to its end. The `runs` of a per-file answer repeat its issues:
    each keeps only those the answer kept."""
    if budget.unlimited:
        return document
    out = dict(document)
    if budget.max_issues is not None:
        _cut_output(out)
    kept = _cut(out, budget)
    runs = out.get("runs")
    if isinstance(runs, list):
        out["runs"] = [_run_cut(run, budget, kept) for run in runs]
    return out


def _cut_output(document: dict[str, Any]) -> None:
    """`output` to its last OUTPUT_CHARS characters from a line's start; `outputOmitted` says how many went."""
    output = document.get("output")
    if not isinstance(output, str) or len(output) <= OUTPUT_CHARS:
        return
    tail = output[-OUTPUT_CHARS:]
    start = tail.find("\n") + 1  # a whole first line, unless the tail is one line
    tail = tail[start:] if 0 < start < len(tail) else tail
    document["output"] = tail
    document["outputOmitted"] = len(output) - len(tail)


def _run_cut(run: Any, budget: Budget, kept: set[tuple[Any, ...]] | None) -> Any:
    if not isinstance(run, dict):
        return run
    out = dict(run)
    if budget.max_issues is not None:
        _cut_output(out)
    if not isinstance(run.get("issues"), list):
        return out
    if kept is None:
        _cut(out, budget)
        return out
    issues = [i for i in run["issues"] if isinstance(i, Mapping) and _identity(i) in kept]
    if len(issues) < len(run["issues"]):
        out.update(issues=issues, issuesTotal=len(run["issues"]), issuesOmitted=len(run["issues"]) - len(issues))
    return out


__all__ = ["AGENT_MAX_ISSUES", "ISSUE_LISTS", "OUTPUT_CHARS", "Budget", "Selected", "budget_json"]
