"""`lintel merge`: partial reports (lintel JSON and SARIF, mixed) read back and merged give the report one check of
everything gives; inputs it cannot read are usage errors."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lintel.core.issues import Issue, make_issue
from lintel.engine.checks import RunResult
from lintel.frontends import cli
from lintel.frontends.merge import merge_reports
from lintel.frontends.report import RENDERERS, CheckReport, ProjectEntry
from lintel.frontends.report.read import ReportError, parse_report

from tests.helpers import copy_workspace, require_tool

Document = dict[str, Any]


def lintel(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, document: Document) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def issue_keys(issues: list[Document]) -> Counter[tuple[Any, ...]]:
    return Counter((i["fingerprint"], i["signature"], i["severity"]) for i in issues)


@dataclass
class Checked:
    root: Path
    json: Document  # `check --format json` of everything
    sarif: Document  # `check --format sarif` of everything


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    require_tool("ruff")
    require_tool("mypy")
    base = tmp_path_factory.mktemp("merge")
    root = copy_workspace("python", base / "python")
    for fmt in ("json", "sarif"):
        code = cli.main(["check", str(root), "-q", "--format", fmt, "--output", str(base / f"all.{fmt}")])
        assert code == 1
    return Checked(
        root,
        json.loads((base / "all.json").read_text(encoding="utf-8")),
        json.loads((base / "all.sarif").read_text(encoding="utf-8")),
    )


def split_json(report: Document, lint: bool) -> Document:
    """The half of a JSON report the lint run (or every other run) made."""
    part = copy.deepcopy(report)
    part["runs"] = [r for r in report["runs"] if (r["check"] == "lint") == lint]
    tools = {r["tool"] for r in part["runs"]}
    part["issues"] = [i for i in report["issues"] if i["source"] in tools]
    return part


def split_sarif(log: Document, lint: bool) -> Document:
    part = copy.deepcopy(log)
    part["runs"] = [
        run for run in log["runs"] if any((i["properties"]["check"] == "lint") == lint for i in run["invocations"])
    ]
    return part


SPLITS: dict[str, Callable[[Checked, bool], Document]] = {
    "json": lambda c, lint: split_json(c.json, lint),
    "sarif": lambda c, lint: split_sarif(c.sarif, lint),
}


@pytest.mark.parametrize(("first", "second"), [("json", "json"), ("json", "sarif"), ("sarif", "sarif")])
def test_merging_the_halves_of_a_report_gives_the_report(
    checked: Checked, tmp_path: Path, first: str, second: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lint = write(tmp_path / f"lint.{first}", SPLITS[first](checked, True))
    other = write(tmp_path / f"other.{second}", SPLITS[second](checked, False))
    # A real split: each half holds a run.
    assert json.loads(lint.read_text())["runs"]
    assert json.loads(other.read_text())["runs"]
    code, out, err = lintel("merge", str(lint), str(other), "--format", "json", capsys=capsys)
    assert err == ""
    assert code == 1  # as `lintel check`: errors found
    merged = json.loads(out)
    whole = checked.json
    assert issue_keys(merged["issues"]) == issue_keys(whole["issues"])
    assert merged["summary"] == whole["summary"]
    assert merged["root"] == whole["root"]
    assert merged["projects"] == whole["projects"]
    assert sorted((r["check"], r["tool"], r["status"], r["cwd"], r["project"]) for r in merged["runs"]) == sorted(
        (r["check"], r["tool"], r["status"], r["cwd"], r["project"]) for r in whole["runs"]
    )
    assert merged["issues"] == whole["issues"]  # as sorted and deduplicated by check


def test_a_merged_report_is_a_baseline_for_the_next_check(
    checked: Checked, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lint = write(tmp_path / "lint.json", split_json(checked.json, True))
    other = write(tmp_path / "other.sarif", split_sarif(checked.sarif, False))
    merged = tmp_path / "merged.json"
    code, _, _ = lintel("merge", str(lint), str(other), "--output", str(merged), capsys=capsys)
    assert code == 1
    code, out, err = lintel(
        "check", str(checked.root), "-q", "--format", "json", "--baseline", str(merged), capsys=capsys
    )
    assert json.loads(out)["issues"] == []
    assert f"{len(checked.json['issues'])} issues are in the baseline, 0 are new" in err
    assert code == 0


def test_the_output_format_follows_the_inputs(
    checked: Checked, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = (write(tmp_path / f"{n}.sarif", split_sarif(checked.sarif, lint)) for n, lint in (("a", True), ("b", False)))
    _, out, _ = lintel("merge", str(a), str(b), capsys=capsys)
    assert json.loads(out)["version"] == "2.1.0"
    c = write(tmp_path / "c.json", split_json(checked.json, False))
    _, out, _ = lintel("merge", str(a), str(c), capsys=capsys)
    assert json.loads(out)["version"] == 1  # mixed: json
    _, out, _ = lintel("merge", str(a), str(c), "--format", "text", capsys=capsys)
    assert out.splitlines()[-1] == "lintel: 9 errors, 0 warnings, 0 infos from 2 checks"


def test_the_same_issue_from_two_shards_is_reported_once(
    checked: Checked, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write(tmp_path / "a.json", checked.json)
    b = write(tmp_path / "b.sarif", checked.sarif)
    _, out, _ = lintel("merge", str(a), str(b), "--format", "json", capsys=capsys)
    merged = json.loads(out)
    assert merged["issues"] == checked.json["issues"]
    assert merged["projects"] == checked.json["projects"]  # one project: the same root and language
    assert len(merged["runs"]) == 2 * len(checked.json["runs"])


# Reports built in the model: several projects, every kind of field.

ROOT = Path("/ci/checkout")


def shard(projects: list[ProjectEntry], issues: list[Issue], runs: list[RunResult], root: Path = ROOT) -> CheckReport:
    return CheckReport(root=root, projects=projects, runs=runs, issues=issues)


def monorepo_shards() -> tuple[CheckReport, CheckReport]:
    api, web = ProjectEntry("go", "api", ("go.mod",)), ProjectEntry("node", "web", ("package.json",), ".")
    go_issue = make_issue(kind="lint", message="unused x", source="golangci-lint", file="api/x.go", line=4, rule="U")
    web_issue = make_issue(
        kind="typecheck", message="bad\n  type", source="tsc", file="web/a.ts", line=2, column=3, hint="cast it"
    )
    go_run = RunResult("go", "lint", "golangci-lint", ["golangci-lint", "run"], ROOT / "api", "findings", exit_code=1)
    web_run = RunResult("node", "typecheck", "tsc", ["tsc"], ROOT / "web", "not_checked", reason="tsc: not found")
    return shard([api], [go_issue], [go_run]), shard([web], [web_issue], [web_run])


def roundtrip(report: CheckReport, fmt: str) -> CheckReport:
    parsed, read_as = parse_report(json.loads(RENDERERS[fmt](report)))
    assert read_as == fmt
    return parsed


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_shards_of_a_monorepo_merge_into_one_grouped_report(fmt: str) -> None:
    api, web = (roundtrip(s, fmt) for s in monorepo_shards())
    merged = merge_reports([web, api])
    assert [(p.root, p.language, p.markers, p.workspace) for p in merged.projects] == [
        ("web", "node", ("package.json",), "."),
        ("api", "go", ("go.mod",), None),
    ]
    assert [i.file for i in merged.issues] == ["api/x.go", "web/a.ts"]  # sorted
    assert merged.exit_code("error") == 1
    text = RENDERERS["text"](merged).splitlines()
    assert text[0] == "== api (go): 1 error, 0 warnings =="
    assert "== web (node): 1 error, 0 warnings; 1 not checked ==" in text
    assert "not checked: node typecheck: tsc: not found" in text
    data = json.loads(RENDERERS["json"](merged))
    assert [r["project"] for r in data["runs"]] == ["web", "api"]


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_reading_a_report_back_keeps_every_issue_and_run_field(fmt: str) -> None:
    api, web = monorepo_shards()
    whole = merge_reports([api, web])
    back = roundtrip(whole, fmt)
    assert back.root == whole.root
    assert back.projects == whole.projects
    assert back.issues == whole.issues
    assert [(r.language, r.check, r.tool, r.argv, r.cwd, r.status, r.reason, r.exit_code) for r in back.runs] == [
        (r.language, r.check, r.tool, r.argv, r.cwd, r.status, r.reason, r.exit_code) for r in whole.runs
    ]


_TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=30)
_NAME = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)


@st.composite
def issues(draw: st.DrawFn) -> Issue:
    """Issues as parsers make them: a place is a file, then maybe a line, then maybe a column and an end."""
    file = draw(st.none() | st.from_regex(r"(/abs/)?[a-z]{1,5}(/[a-z]{1,5}){0,2}\.(py|ts)", fullmatch=True))
    line = draw(st.none() | st.integers(1, 10_000)) if file else None
    column = draw(st.none() | st.integers(1, 200)) if line else None
    end_line = draw(st.none() | st.integers(line, line + 5)) if line and column else None
    end_column = draw(st.integers(column + 1, 300)) if column and end_line else None
    return make_issue(
        kind=draw(st.sampled_from(["lint", "typecheck", "test", "build", "format", "contract", "timeout", "custom"])),
        message=draw(_TEXT),
        source=draw(_NAME),
        severity=draw(st.sampled_from(["error", "warning", "info", "hint"])),
        file=file,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        rule=draw(st.none() | _NAME),
        hint=draw(st.none() | _TEXT),
    )


@given(st.lists(issues(), max_size=8), st.sampled_from(["json", "sarif"]))
def test_any_issue_survives_being_written_and_read_back(found: list[Issue], fmt: str) -> None:
    stamped = [replace(i, fingerprint=f"fp{n}") for n, i in enumerate(found)]
    report = shard([ProjectEntry("python", ".")], stamped, [])
    assert Counter(roundtrip(report, fmt).issues) == Counter(stamped)


def test_reports_made_in_other_folders_are_placed_in_the_first_ones_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api, web = monorepo_shards()
    web.root = Path("/elsewhere")
    web.runs[0].cwd = Path("/elsewhere/web")
    a = tmp_path / "a.json"
    a.write_text(RENDERERS["json"](api))
    b = tmp_path / "b.sarif"
    b.write_text(RENDERERS["sarif"](web))
    code, out, err = lintel("merge", str(a), str(b), "--format", "json", capsys=capsys)
    assert (
        err == f"lintel: merge: {b} was made in /elsewhere, {a} in {ROOT}; its paths are taken as relative to {ROOT}\n"
    )
    merged = json.loads(out)
    assert merged["root"] == str(ROOT)
    assert [(r["cwd"], r["project"]) for r in merged["runs"]] == [("api", "api"), ("web", "web")]
    assert code == 1


def test_exit_code_and_fail_level_as_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api, web = monorepo_shards()
    api.issues = [replace(api.issues[0], severity="warning")]
    web.issues = []
    files = []
    for name, part in (("a.json", api), ("b.json", web)):
        (tmp_path / name).write_text(RENDERERS["json"](part))
        files.append(str(tmp_path / name))
    assert lintel("merge", *files, capsys=capsys)[0] == 3  # a check did not run, nothing at error level
    assert lintel("merge", *files, "--fail-level", "warning", capsys=capsys)[0] == 1
    assert lintel("merge", files[0], capsys=capsys)[0] == 0


def test_baseline_filters_the_merged_issues(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api, web = monorepo_shards()
    (tmp_path / "a.json").write_text(RENDERERS["json"](api))
    (tmp_path / "b.json").write_text(RENDERERS["json"](web))
    code, out, err = lintel(
        "merge",
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
        "--baseline",
        str(tmp_path / "a.json"),
        capsys=capsys,
    )
    assert [i["file"] for i in json.loads(out)["issues"]] == ["web/a.ts"]
    assert err == "lintel: 1 issues are in the baseline, 1 are new\n"
    assert code == 1


def _sarif_from_another_tool(log: Document) -> Document:
    other = copy.deepcopy(log)
    del other["runs"][0]["tool"]["driver"]["properties"]
    return other


BAD_INPUTS: list[tuple[str, Callable[[Document, Document], str | Document], str]] = [
    ("not json", lambda j, s: "{", "not JSON (Expecting property name enclosed in double quotes"),
    ("a list", lambda j, s: [1], "not a lintel JSON report or SARIF log (expected a JSON object)"),  # type: ignore[return-value, list-item]
    ("some object", lambda j, s: {"issues": 3}, "not a lintel JSON report or SARIF log"),
    ("json v2", lambda j, s: {**j, "version": 2}, "unsupported lintel report version 2 (expected 1)"),
    ("sarif 2.0", lambda j, s: {**s, "version": "2.0.0"}, "unsupported SARIF version '2.0.0' (lintel writes 2.1.0)"),
    (
        "another tool's sarif",
        lambda j, s: _sarif_from_another_tool(s),
        "not a SARIF log written by lintel (the run of 'tsc')",
    ),
    ("no issues list", lambda j, s: {**j, "issues": [3]}, "a malformed lintel report"),
]


@pytest.mark.parametrize(("case", "make", "problem"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_an_unreadable_input_is_a_usage_error_naming_the_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    make: Callable[[Document, Document], Any],
    problem: str,
) -> None:
    _, web = monorepo_shards()
    good = tmp_path / "good.json"
    good.write_text(RENDERERS["json"](web))
    content = make(json.loads(RENDERERS["json"](web)), json.loads(RENDERERS["sarif"](web)))
    bad = tmp_path / "bad.json"
    bad.write_text(content if isinstance(content, str) else json.dumps(content))
    code, out, err = lintel("merge", str(good), str(bad), capsys=capsys)
    assert code == cli.EXIT_USAGE
    assert out == ""
    assert err.startswith(f"lintel: merge: {bad}: {problem}")
    assert err.count("\n") == 1


def test_a_missing_input_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = lintel("merge", str(tmp_path / "gone.json"), capsys=capsys)
    assert (code, err) == (cli.EXIT_USAGE, f"lintel: merge: {tmp_path / 'gone.json'}: not found\n")


def test_a_report_from_before_projects_had_markers_is_still_read() -> None:
    legacy = {
        "version": 1,
        "root": "/r",
        "projects": [{"language": "python", "root": "."}],
        "runs": [
            {"check": "lint", "language": "python", "tool": "ruff", "argv": ["ruff"], "cwd": ".", "status": "clean"}
        ],
        "issues": [],
        "summary": {"errors": 0, "warnings": 0, "infos": 0, "notChecked": 0},
    }
    report, fmt = parse_report(legacy)
    assert fmt == "json"
    assert report.projects == [ProjectEntry("python", ".")]
    assert report.runs[0].cwd == Path("/r")
    with pytest.raises(ReportError, match="expected a JSON object"):
        parse_report([legacy])


@given(st.lists(issues(), max_size=6))
def test_the_json_report_is_laid_out_as_one_indented_dump_of_it(found: list[Issue]) -> None:
    """The issues are written one by one (one dump of them all fills memory), byte for byte as
    json.dumps(indent=2) lays out the whole document."""
    text = RENDERERS["json"](shard([ProjectEntry("python", ".")], found, []))
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert [i["message"] for i in json.loads(text)["issues"]] == [i.message for i in found]
