"""pytest's reports: the junit XML (`--junitxml`) and, when no report was written, the terminal summary.

Positions follow docs/architecture.md, Records: 1-based lines; a failure sits at the failing line of the test.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from lintel.core.issues import Issue, ParseContext, ParseResult, TestFailure, make_issue
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import MAX_HINT, clean, split_message

_MAX_OUTPUT = 10_000

# A traceback entry's location, flush left: `tests/test_x.py:12: in test_x` (--tb=short),
# `tests/test_x.py:12: AssertionError` (long/auto), `/abs/tests/test_x.py:12: AssertionError: msg` (line).
_TB_LOCATION = re.compile(r"^(?!E\s)(?P<file>(?:[A-Za-z]:)?[^\s:][^:\n]*?):(?P<line>\d+):(?: |$)")
# --tb=native: `  File "/abs/tests/test_x.py", line 12, in test_x`
_TB_NATIVE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')
_GENERIC_MESSAGES = frozenset({"", "collection failure"})
_DRIVE = re.compile(r"^[A-Za-z]:/")
# Installed packages (a venv's, a conda environment's, Debian's) and an environment's own standard library.
_ENVIRONMENT = re.compile(r"(?:^|/)(?:site-packages|dist-packages|lib/python\d+(?:\.\d+)?)/", re.IGNORECASE)


@dataclass(frozen=True)
class _Frame:
    file: str  # root-relative, or absolute when outside the root
    line: int


def parse_pytest_junit(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """pytest's junit XML (`--junitxml`); without a readable report, pytest's terminal summary.

        <testcase classname="tests.test_models" name="test_total" file="tests/test_models.py" line="9">
          <failure message="AssertionError: stock of 2 items should be worth 2.5&#10;assert 0.75 == 2.5">
        tests/test_models.py:13: in test_total
            assert total_value(items) == expected, f"stock of ..."
        E   AssertionError: stock of 2 items should be worth 2.5</failure></testcase>

    Each `<failure>`/`<error>` is a TestFailure and an Issue at the failing line of the test: the last
    traceback entry in the test's own file (the test called code that raised further down); without one
    (a fixture raised, pytest raised an unraisable exception's warning), the last entry in the project's own
    code (not under site-packages); then the test's definition. The test's file is the
    `file` attribute (junit_family=xunit1, 0-based `line`) or, in xunit2 reports, the traceback entry whose
    module path starts the `classname`. Collection errors (`classname=""`) name the module.
    """
    report = output.report
    if report is None and output.stdout.lstrip().startswith("<"):
        report = output.stdout
    if report is not None and report.strip():
        try:
            root = ET.fromstring(report.strip())
        except (ET.ParseError, ValueError):  # a report cut short, or not XML at all
            root = None
        if root is not None and root.tag in ("testsuites", "testsuite"):
            return _parse_junit(root, ctx)
    return _parse_pytest_text(clean(output.stdout), ctx)


def _parse_junit(root: ET.Element, ctx: ParseContext) -> ParseResult:
    failures: list[TestFailure] = []
    issues: list[Issue] = []
    outcomes = [
        (case, outcome) for case in root.iter("testcase") for outcome in case if outcome.tag in ("failure", "error")
    ]
    # Every test module any traceback passes through, by dotted name: xunit2 reports carry no `file`,
    # and a test whose own traceback never enters its module (a fixture raised) is placed by its neighbours'.
    modules = {
        _dotted(frame.file): frame.file
        for _, outcome in outcomes
        for frame in _frames(outcome.text or "", ctx)
        if frame.file.endswith(".py") and _in_project(frame.file)
    }
    for case, outcome in outcomes:
        failure, issue = _junit_failure(case, outcome, modules, ctx)
        failures.append(failure)
        issues.append(issue)
    return ParseResult(issues=issues, failures=failures, recognized=True)


def _junit_failure(
    case: ET.Element, outcome: ET.Element, modules: Mapping[str, str], ctx: ParseContext
) -> tuple[TestFailure, Issue]:
    classname = case.get("classname") or ""
    name = case.get("name") or "(unnamed test)"
    text = outcome.text or ""
    frames = _frames(text, ctx)
    collection = not classname
    attr_file = case.get("file")
    # A collection error's `name` is the module's dotted path; a test's `classname` starts with it.
    module_path = name if collection else classname
    test_file = ctx.relpath(attr_file) if attr_file else _file_from_classname(module_path, modules)
    def_line = _int_or_none(case.get("line"))
    fallback_line = def_line + 1 if def_line is not None else None  # xunit1 writes pytest's 0-based line

    # Named as pytest names it (its node id, relative to the project root where it ran), as lintel.discoverTests
    # names it too; `file` stays relative to the workspace, as every record's does.
    node_file = _node_path(test_file, ctx) if test_file is not None else None
    if collection:
        test_id = node_file or name
    elif node_file is not None:
        test_id = "::".join([node_file, *_class_path(classname, node_file), name])
    else:
        test_id = f"{classname}::{name}"

    file, line = _failing_location(frames, test_file, fallback_line)
    message = (outcome.get("message") or "").strip()
    if message in _GENERIC_MESSAGES:
        message = _exception_lines(text) or message or outcome.tag
    first, _ = split_message(message)
    short = "collection failed" if collection else test_id.split("::", 1)[-1]
    issue = make_issue(
        kind="test",
        message=f"{short}: {first}",
        source="pytest",
        severity="error",
        file=file,
        line=line,
        hint=message[:MAX_HINT] if message != first else None,
    )
    failure = TestFailure(
        name=test_id,
        message=message,
        file=file,
        line=line,
        output=text[-_MAX_OUTPUT:] or None,
    )
    return failure, issue


def _frames(text: str, ctx: ParseContext) -> list[_Frame]:
    frames: list[_Frame] = []
    for line in text.splitlines():
        match = _TB_LOCATION.match(line) or _TB_NATIVE.match(line)
        if match:
            frames.append(_Frame(ctx.relpath(match.group("file")), int(match.group("line"))))
    return frames


def _in_project(file: str) -> bool:
    """Whether a frame is the project's own code: inside the root (ParseContext.relpath leaves paths outside it
    absolute: `/usr/lib/...`, `C:/Python/...`) and not an environment's installed packages or standard library
    kept there (`.venv/lib/python3.11/site-packages/_pytest/...`: pytest's own frames under every failure it
    raises itself, such as a PytestUnraisableExceptionWarning turned into an error)."""
    return not (file.startswith("/") or _DRIVE.match(file) or _ENVIRONMENT.search(file))


def _node_path(test_file: str, ctx: ParseContext) -> str:
    """A test file (relative to the workspace) as pytest's node ids name it: relative to the folder it ran in."""
    full = PurePosixPath(ctx.root.replace("\\", "/")) / test_file
    try:
        return full.relative_to(PurePosixPath(ctx.cwd.replace("\\", "/"))).as_posix()
    except ValueError:
        return test_file


def _dotted(file: str) -> str:
    return file[: -len(".py")].replace("/", ".") if file.endswith(".py") else file


def _file_from_classname(classname: str, modules: Mapping[str, str]) -> str | None:
    """The test module whose dotted path starts the classname (`tests.test_a.TestGroup` → tests/test_a.py);
    pytest derives both from the node id. The longest match wins (`tests.a` vs `tests.a.b`)."""
    matches = [m for m in modules if classname == m or classname.startswith(m + ".")]
    return modules[max(matches, key=len)] if matches else None


def _class_path(classname: str, test_file: str) -> list[str]:
    """The classes between module and test (`tests.test_a.TestGroup` in tests/test_a.py → [TestGroup])."""
    module = _dotted(test_file)
    if classname.startswith(module + "."):
        return classname[len(module) + 1 :].split(".")
    return []


def _failing_location(
    frames: list[_Frame], test_file: str | None, fallback_line: int | None
) -> tuple[str | None, int | None]:
    in_test = [f for f in frames if test_file is not None and f.file == test_file]
    if in_test:
        return in_test[-1].file, in_test[-1].line
    in_project = [f for f in frames if _in_project(f.file)]
    if in_project:
        return in_project[-1].file, in_project[-1].line
    return test_file, fallback_line if test_file is not None else None


def _exception_lines(text: str) -> str:
    """The `E   ...` lines pytest prints under the failing entry: the exception and assertion detail."""
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ") or line == "E"]
    return "\n".join(line for line in lines if line)


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


# pytest's terminal output, for reports that never got written (validators running plain `pytest`).
_SUMMARY_ENTRY = re.compile(r"^(?P<outcome>FAILED|ERROR) (?P<id>.+?)(?: - (?P<msg>.*))?$")
_SECTION = re.compile(r"^_{3,} (?P<title>.+?) _{3,}$")
_RESULT_LINE = re.compile(
    r"^=*\s*(?:no tests ran|\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun)"
    r"(?:, \d+ \w+)*) in [\d.]+s\b"
)


def _parse_pytest_text(stdout: str, ctx: ParseContext) -> ParseResult:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    entries: list[re.Match[str]] = []
    finished = False
    for line in stdout.splitlines():
        section = _SECTION.match(line)
        if section:
            current = sections.setdefault(section.group("title"), [])
            continue
        if line.startswith("="):
            current = None
        entry = _SUMMARY_ENTRY.match(line)
        if entry:
            entries.append(entry)
            current = None
            continue
        finished = finished or bool(_RESULT_LINE.match(line))
        if current is not None:
            current.append(line)
    failures: list[TestFailure] = []
    issues: list[Issue] = []
    for entry in entries:
        test_id = entry.group("id").strip()
        test_file = ctx.relpath(test_id.split("::", 1)[0])
        inner = test_id.split("::", 1)[1] if "::" in test_id else ""
        titles = (
            [f"ERROR collecting {test_id}"]
            if not inner
            else [
                inner.replace("::", "."),
                f"ERROR at setup of {inner.split('::')[-1]}",
                f"ERROR at teardown of {inner.split('::')[-1]}",
            ]
        )
        body = "\n".join(next((sections[t] for t in titles if t in sections), []))
        file, line_number = _failing_location(_frames(body, ctx), test_file, None)
        message = (entry.group("msg") or "").strip()
        if not message or message.endswith("..."):  # the summary line is cut to the terminal's width
            message = _exception_lines(body) or message or entry.group("outcome").lower()
        failures.append(TestFailure(name=test_id, message=message, file=file, line=line_number))
        first, _ = split_message(message)
        short = inner or "collection failed"
        issues.append(
            make_issue(kind="test", message=f"{short}: {first}", source="pytest", file=file, line=line_number)
        )
    return ParseResult(issues=issues, failures=failures, recognized=finished or bool(entries))
