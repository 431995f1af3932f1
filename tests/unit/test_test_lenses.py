"""The test lenses' parts without a server: the merge with a child's lenses, and the store of test outcomes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lintel.core.issues import TestFailure
from lintel.core.results import RunResult, Status
from lintel.core.testitems import FoundTest
from lintel.frontends.lsp.testlenses import merge_lenses, outcome_title
from lintel.frontends.lsp.testresults import Outcome, TestResults, ancestors_of, asked_ids, first_line, within

ROOT = Path("/work/project")
FILE = ROOT / "tests" / "test_x.py"
FILE_RECORD = FoundTest("tests/test_x.py", "test_x.py", FILE, 1, 1, 30, 1, kind="file")
SUITE = FoundTest("tests/test_x.py::TestA", "TestA", FILE, 3, 1, 10, 1, kind="suite", parent="tests/test_x.py")
IN_SUITE = FoundTest("tests/test_x.py::TestA::test_b", "test_b", FILE, 4, 5, 6, 1, parent="tests/test_x.py::TestA")
ALONE = FoundTest("tests/test_x.py::test_c", "test_c", FILE, 12, 1, 14, 1, parent="tests/test_x.py")
OTHER = FoundTest("tests/test_x.py::test_d", "test_d", FILE, 16, 1, 18, 1, parent="tests/test_x.py")
TESTS = [FILE_RECORD, SUITE, IN_SUITE, ALONE, OTHER]
BY_ID = {t.id: t for t in TESTS}


def lens(line: int, command: str, title: str = "") -> dict[str, Any]:
    at = {"line": line, "character": 0}
    return {"range": {"start": at, "end": at}, "command": {"title": title, "command": command}}


def result(
    *failures: TestFailure, status: Status = "findings", timed_out: bool = False, duration_ms: int = 40
) -> RunResult:
    return RunResult(
        language="python",
        check="test",
        tool="pytest",
        argv=["pytest"],
        cwd=ROOT,
        status=status,
        failures=list(failures),
        timed_out=timed_out,
        duration_ms=duration_ms,
    )


def outcome(results: TestResults, test: FoundTest) -> Outcome | None:
    return results.outcome(ROOT, test, ancestors_of(test, BY_ID))


# -- the merge ----------------------------------------------------------------------------------------------


def test_a_childs_runner_lenses_give_way_where_lintel_has_a_test() -> None:
    own = [lens(11, "lintel.runTests", "▶ Run test")]
    run_test = lens(11, "gopls.run_tests", "run test")
    debug = lens(4, "rust-analyzer.debugSingle", "⚙︎ Debug")  # inside the suite's declaration
    package = lens(0, "gopls.run_tests", "run file benchmarks")  # no test of lintel's on the package clause
    references = lens(11, "rust-analyzer.showReferences", "3 references")
    unresolved = {"range": {"start": {"line": 11, "character": 0}, "end": {"line": 11, "character": 0}}, "data": 1}
    elsewhere = lens(25, "rust-analyzer.runSingle", "▶︎ Run")  # a main function, say

    merged = merge_lenses(own, TESTS, [run_test, debug, package, references, unresolved, elsewhere])

    assert merged == [*own, package, references, unresolved, elsewhere]


def test_the_file_record_keeps_no_lens_of_a_child_away() -> None:
    package = lens(0, "gopls.run_tests", "run file benchmarks")
    assert merge_lenses([], [FILE_RECORD], [package]) == [package]


def test_titles_of_outcomes() -> None:
    assert outcome_title(Outcome("failed", "AssertionError: 1 != 2")) == "✗ failed: AssertionError: 1 != 2"
    assert outcome_title(Outcome("passed", duration_ms=12)) == "✓ passed (12 ms)"
    assert outcome_title(Outcome("passed")) == "✓ passed"


# -- the outcomes -----------------------------------------------------------------------------------------


def test_a_test_run_alone_fails_then_passes_with_its_duration() -> None:
    results = TestResults()
    failure = TestFailure(ALONE.id, "\nAssertionError: 1 != 2\nmore", file="tests/test_x.py", line=13)
    results.record(ROOT, result(failure), [FILE], frozenset({ALONE.id}))

    assert outcome(results, ALONE) == Outcome("failed", "AssertionError: 1 != 2")
    assert outcome(results, OTHER) is None  # in the file, but not asked for
    assert outcome(results, SUITE) is None

    results.record(ROOT, result(status="clean", duration_ms=7), [FILE], frozenset({ALONE.id}))
    assert outcome(results, ALONE) == Outcome("passed", duration_ms=7)


def test_a_file_run_marks_every_test_of_it() -> None:
    results = TestResults()
    failure = TestFailure(IN_SUITE.id, "boom")
    results.record(ROOT, result(failure), [FILE], None)

    assert outcome(results, IN_SUITE) == Outcome("failed", "boom")
    assert outcome(results, SUITE) == Outcome("failed", "boom")  # a test in it failed
    assert outcome(results, ALONE) == Outcome("passed")  # several ran: no duration
    assert outcome(results, OTHER) == Outcome("passed")


def test_a_suite_asked_for_covers_its_tests() -> None:
    results = TestResults()
    results.record(ROOT, result(status="passed"), [FILE], frozenset({SUITE.id}))
    assert outcome(results, IN_SUITE) == Outcome("passed")
    assert outcome(results, SUITE) == Outcome("passed")
    assert outcome(results, ALONE) is None


def test_a_whole_suite_run_covers_the_project_folder() -> None:
    results = TestResults()
    results.record(ROOT, result(TestFailure(f"{ALONE.id}[2-3]", "case failed")), ROOT, None)
    assert outcome(results, ALONE) == Outcome("failed", "case failed")  # a parameter set of it failed
    assert outcome(results, OTHER) == Outcome("passed")
    elsewhere = FoundTest("t.py::test_e", "test_e", Path("/work/other/t.py"), 1, 1, 2, 1)
    assert results.outcome(ROOT, elsewhere, []) is None


def test_a_timed_out_run_marks_nothing_passed() -> None:
    results = TestResults()
    results.record(ROOT, result(status="clean"), [FILE], None)
    results.record(ROOT, result(TestFailure(ALONE.id, "slow"), status="findings", timed_out=True), [FILE], None)
    assert outcome(results, ALONE) == Outcome("failed", "slow")
    assert outcome(results, OTHER) == Outcome("passed")  # the earlier completed run's
    results.record(ROOT, result(status="not_checked"), [FILE], frozenset({OTHER.id}))
    assert outcome(results, OTHER) == Outcome("passed")


def test_what_a_rerun_of_failures_reruns_is_the_last_runs_failures_there() -> None:
    results = TestResults()
    results.record(ROOT, result(TestFailure(ALONE.id, "x"), TestFailure(OTHER.id, "y")), [FILE], None)
    assert results.failed_before(ROOT, [FILE]) == {ALONE.id, OTHER.id}
    results.record(ROOT, result(TestFailure(OTHER.id, "y")), [FILE], frozenset({OTHER.id}))
    assert results.failed_before(ROOT, [FILE]) == {OTHER.id}  # ALONE's failure is older: not rerun
    assert results.failed_before(ROOT, [ROOT / "tests" / "test_y.py"]) == frozenset()
    assert results.failed_before(Path("/elsewhere"), [FILE]) == frozenset()


def test_names_of_a_tests_cases() -> None:
    assert within("pkg.TestX/case_1", "pkg.TestX")
    assert within("t.py::test_p[1-2]", "t.py::test_p")
    assert within("t.py::A::test_b", "t.py::A")
    assert within("outer inner", "outer")
    assert not within("pkg.TestXY", "pkg.TestX")
    assert not within("t.py::test_pq", "t.py::test_p")


def test_asked_ids_of_a_run_tests_call() -> None:
    assert asked_ids([{"path": "t.py", "tests": ["a", {"name": "b", "message": "m"}, 3]}]) == frozenset({"a", "b"})
    assert asked_ids([{"path": "t.py"}]) is None
    assert asked_ids(None) is None
    assert first_line("\n  \nfirst\nsecond") == "first"
