"""Reports within GitHub's limits: SARIF runs and results (most severe first, what was left out noted), the
gzipped size of an uploaded log, annotations per step and per job, and the job summary."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev dependencies
import pytest
from lintel.core.issues import Issue, Severity, make_issue
from lintel.engine.checks import RunResult, Status
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry
from lintel.frontends.report.github import github_annotations
from lintel.frontends.report.limits import (
    ANNOTATIONS_PER_JOB,
    ANNOTATIONS_PER_TYPE,
    SARIF_GZIP_BYTES,
    SARIF_RESULTS_PER_RUN,
    SARIF_RUNS_PER_LOG,
    SUMMARY_BUDGET,
)
from lintel.frontends.report.publish import present
from lintel.frontends.report.sarif import sarif_log
from lintel.frontends.report.summary import escape, job_summary

ROOT = Path("/repo")
SCHEMA = Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json"
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info", "hint")
RANK = {"error": 2, "warning": 1, "note": 0}


def finding(n: int, tool: str, severity: Severity, message: str = "") -> Issue:
    return make_issue(
        kind="lint",
        message=message or f"finding {n}",
        source=tool,
        file=f"p{n % 50}/m{n % 997}.py",
        line=n % 400 + 1,
        rule=f"R{n % 40}",
        severity=severity,
    )


def ran(tool: str, status: Status = "findings", reason: str | None = None, language: str = "python") -> RunResult:
    return RunResult(language, "lint", tool, [tool], ROOT, status, reason=reason)


def report_of(issues: list[Issue], runs: list[RunResult], projects: int = 50) -> CheckReport:
    entries = [ProjectEntry("python", f"p{n}") for n in range(projects)]
    return CheckReport(ROOT, entries, runs, issues)


def sixty_thousand() -> CheckReport:
    """54,000 ruff findings of every severity and 21 more tools' 6,000, two of them with notes only: 22 runs."""
    issues = [finding(n, "ruff", SEVERITIES[n % 4]) for n in range(54_000)]
    tools = [f"tool{t:02}" for t in range(21)]
    for n in range(6_000):
        tool = tools[n % 21]
        severity: Severity = "info" if tool in ("tool19", "tool20") else SEVERITIES[n % 3]
        issues.append(finding(n, tool, severity))
    return report_of(issues, [ran("ruff"), *(ran(t) for t in tools)])


def levels(run: dict[str, Any]) -> list[str]:
    return [r["level"] for r in run["results"]]


def test_a_sarif_log_of_60000_findings_validates_and_keeps_within_every_limit() -> None:
    log = sarif_log(sixty_thousand(), SARIF_GZIP_BYTES)
    document = json.loads(log.text)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(document)
    runs = document["runs"]
    assert len(runs) == SARIF_RUNS_PER_LOG
    assert len(gzip.compress(log.text.encode("utf-8"))) <= SARIF_GZIP_BYTES
    for run in runs:
        assert len(run["results"]) <= SARIF_RESULTS_PER_RUN
        assert len(run["tool"]["driver"]["rules"]) <= SARIF_RESULTS_PER_RUN  # rules per run
        assert len(run["tool"].get("extensions", [])) <= 100
        assert all(len(rule.get("properties", {}).get("tags", [])) <= 20 for rule in run["tool"]["driver"]["rules"])
        assert all(len(r.get("locations", [])) <= 1000 and "codeFlows" not in r for r in run["results"])
        ranks = [RANK[level] for level in levels(run)]
        assert ranks == sorted(ranks, reverse=True), "most severe first"
        rules = run["tool"]["driver"]["rules"]
        assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])

    ruff = next(run for run in runs if run["tool"]["driver"]["name"] == "ruff")
    assert len(ruff["results"]) == SARIF_RESULTS_PER_RUN
    assert levels(ruff).count("error") == 13_500  # every error kept, the least severe left out
    left = ruff["properties"]["leftOut"]
    assert left["results"] == 54_000 - SARIF_RESULTS_PER_RUN
    assert left["byLevel"] == {"warning": 13_500 - (SARIF_RESULTS_PER_RUN - 13_500), "note": 27_000}
    dropped = document["properties"]["lintel"]["leftOut"]
    assert dropped["tools"] == ["tool19", "tool20"]  # the runs with the least severe findings
    assert dropped["byLevel"] == {"note": 285 + 285}
    kept = sum(len(run["results"]) for run in runs)
    assert kept + left["results"] + dropped["results"] == 60_000
    assert any("ruff: 29,000 of 54,000 results left out" in note for note in log.notes)
    assert any("2 tools left out" in note and "tool19, tool20" in note for note in log.notes)


def test_an_uploaded_log_leaves_out_the_least_severe_results_to_fit_its_gzipped_size() -> None:
    report = report_of(
        [finding(n, "ruff" if n % 2 else "eslint", SEVERITIES[n % 4]) for n in range(3_000)],
        [ran("ruff"), ran("eslint", language="node")],
    )
    whole = sarif_log(report)
    assert whole.notes == ()
    bound = len(gzip.compress(whole.text.encode("utf-8"))) // 3
    log = sarif_log(report, bound)
    document = json.loads(log.text)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(document)
    assert len(gzip.compress(log.text.encode("utf-8"), compresslevel=6)) <= bound
    kept = [RANK[level] for run in document["runs"] for level in levels(run)]
    shed: dict[str, int] = {}
    for run in document["runs"]:
        for level, n in run.get("properties", {}).get("leftOut", {}).get("byLevel", {}).items():
            shed[level] = shed.get(level, 0) + n
    assert kept
    assert shed
    assert min(kept) >= max(RANK[level] for level in shed), "only results less severe than every kept one"
    assert sum(len(run["results"]) for run in document["runs"]) + sum(shed.values()) == 3_000
    assert any("the gzipped log must stay under" in note for note in log.notes)


def test_a_bound_no_log_can_meet_leaves_out_every_result_and_says_so() -> None:
    log = sarif_log(report_of([finding(n, "ruff", "error") for n in range(20)], [ran("ruff")]), 100)
    assert json.loads(log.text)["runs"][0]["results"] == []
    assert log.notes[-1].startswith("sarif: still ")
    assert log.notes[-1].endswith(" bytes gzipped with every result left out, over 100")


def test_a_report_within_the_limits_is_whole_and_written_to_stdout_unbounded() -> None:
    report = report_of([finding(n, "ruff", SEVERITIES[n % 4]) for n in range(40)], [ran("ruff")])
    shown = present("sarif", report, to_file=False, env={})
    assert shown.notes == ()
    document = json.loads(shown.text)
    assert len(document["runs"][0]["results"]) == 40
    assert "leftOut" not in document["runs"][0].get("properties", {})
    assert "leftOut" not in document["properties"]["lintel"]


def annotated_report() -> CheckReport:
    issues = [finding(n, "ruff", SEVERITIES[n % 3]) for n in range(75)]
    runs = [
        ran("ruff"),
        ran("mypy", "not_checked", "mypy crashed"),
        ran("pyright", "not_checked", "pyright missing"),
        ran("eslint", "not_configured", "no eslint config", "node"),
    ]
    return report_of(issues, runs)


def commands(text: str, kind: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"::{kind} ")]


def test_annotations_keep_to_ten_of_each_type_most_severe_first_and_list_the_rest() -> None:
    out = github_annotations(annotated_report())
    assert [len(commands(out.text, k)) for k in ("error", "warning", "notice")] == [ANNOTATIONS_PER_TYPE] * 3
    warnings = commands(out.text, "warning")
    assert "not checked::python lint: mypy crashed" in warnings[0]  # before the findings
    assert "not checked::python lint: pyright missing" in warnings[1]
    assert out.printed == 3 * ANNOTATIONS_PER_TYPE
    # 25 findings of each severity and 3 checks: 15 errors, 17 warnings, 15 + 1 notices not annotated.
    assert out.not_annotated == 15 + 17 + 16
    line = "28 annotated, 47 not annotated, 1 check not annotated (GitHub shows 10 per type a step, 50 a job):"
    assert line in out.text
    tail = out.text.splitlines()[-48:]
    assert all(line.startswith("  ") for line in tail)
    assert "  not configured: node lint: no eslint config" in tail


def test_annotations_keep_to_what_the_job_has_left_errors_first() -> None:
    out = github_annotations(annotated_report(), job_left=15)
    assert len(commands(out.text, "error")) == 10
    assert len(commands(out.text, "warning")) == 5
    assert commands(out.text, "notice") == []
    assert out.printed == 15


def test_steps_of_one_job_print_at_most_fifty_annotations_in_all(tmp_path: Path) -> None:
    env = {"GITHUB_ACTIONS": "true", "RUNNER_TEMP": str(tmp_path), "GITHUB_RUN_ID": "7", "GITHUB_JOB": "lint"}
    present("github", annotated_report(), to_file=True, env=env)  # to --output: not the log's, counts nothing
    printed = []
    for _ in range(3):
        text = present("github", annotated_report(), to_file=False, env=env).text
        printed.append(sum(len(commands(text, k)) for k in ("error", "warning", "notice")))
    assert printed == [30, ANNOTATIONS_PER_JOB - 30, 0]
    other_job = {**env, "GITHUB_JOB": "test"}  # a runner temp folder left over from another job counts nothing
    assert len(commands(present("github", annotated_report(), to_file=False, env=other_job).text, "error")) == 10
    off_github = present("github", annotated_report(), to_file=False, env={"RUNNER_TEMP": str(tmp_path)})
    assert len(commands(off_github.text, "error")) == 10


def test_the_job_summary_counts_per_project_and_tool_and_tables_the_most_severe(tmp_path: Path) -> None:
    summary_file = tmp_path / "step_summary.md"
    summary_file.write_text("earlier step output\n")
    report = annotated_report()
    report.issues.append(finding(3, "ruff", "error", "bad <script>alert(1)</script> | *x* [l](u) `c`\nsecond"))
    present("github", report, to_file=False, env={"GITHUB_STEP_SUMMARY": str(summary_file)})
    text = summary_file.read_text()
    assert text.startswith("earlier step output\n## lintel check\n")  # appended, not replaced
    assert "**26 errors, 25 warnings, 25 infos** in 50 projects" in text
    assert "- not checked: python lint: mypy crashed" in text
    assert "| p3 \\(python\\) | ruff | 2 | 0 | 1 |" in text  # finding 3, the one added, and 53
    table = text.split("### Most severe findings")[1]
    rows = [line for line in table.splitlines() if line.startswith("| ")][2:]
    assert len(rows) == 30
    assert [row.split(" | ")[0] for row in rows] == ["| error"] * 26 + ["| warning"] * 4  # most severe first
    assert "bad \\<script\\>alert\\(1\\)\\</script\\> \\| \\*x\\* \\[l\\]\\(u\\) \\`c\\` second" in text
    assert "<script>" not in text
    assert "_46 findings are not in the table above" in text
    assert "were not annotated: GitHub keeps 10 annotations of each type a step and 50 a job._" in text


def test_escape_leaves_no_markdown_or_html_and_keeps_one_line() -> None:
    assert escape("a|b\n<i>*c*</i> & $x$ @team") == "a\\|b \\<i\\>\\*c\\*\\</i\\> \\& \\$x\\$ \\@team"


def test_the_job_summary_of_a_huge_monorepo_stays_within_its_budget() -> None:
    issues = [finding(n, f"tool{n % 4}", SEVERITIES[n % 4], "m" * 300) for n in range(4_000)]
    report = report_of(issues, [ran(f"tool{t}") for t in range(4)], projects=1_000)
    text = job_summary(report, budget=4_000)
    assert len(text.encode("utf-8")) <= 4_000
    assert text.startswith("## lintel check\n\n**1,000 errors, 1,000 warnings, 2,000 infos** in 1,000 projects")
    assert "more project and tool pairs with findings are not listed" in text
    assert "are not in the table above" in text
    assert len(job_summary(report).encode("utf-8")) <= SUMMARY_BUDGET


@pytest.mark.parametrize("fmt", ["text", "json", "rdjsonl"])
def test_other_formats_are_unchanged_by_the_limits(fmt: str) -> None:
    report = annotated_report()
    assert present(fmt, report, to_file=True, env={}).text == RENDERERS[fmt](report)
