"""vitest's and jest's default reporters, read from output captured from the real runners on
tests/workspaces/node-tests: what a `test` script that chains steps (`npm run lint && npm run build && vitest
run`) prints, which lintel cannot give a JSON reporter."""

from __future__ import annotations

from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.jstests import MochaTally, mocha_tally

from tests.helpers import load_capture

auto = get_parser("node-test-auto")


def test_vitests_default_reporter() -> None:
    output, ctx, meta = load_capture("vitest", "default-reporter")
    result = auto(output, ctx)
    assert result.recognized
    assert meta["exit_code"] == 1
    assert [(f.name, f.file, f.line) for f in result.failures] == [
        ("add > adds to five", "test/math.test.js", 10),
        ("average > of nothing is zero", "test/math.test.js", 16),
    ]
    assert result.failures[0].message == (
        "AssertionError: 2 + 2 should make five here: expected 4 to be 5 // Object.is equality"
    )
    assert {i.source for i in result.issues} == {"vitest"}


def test_a_chained_script_with_vitest_last() -> None:
    output, ctx, _ = load_capture("vitest", "chained-script")
    assert output.stdout.startswith("lint: ok\nbuild: ok\n")  # the steps before the runner
    result = auto(output, ctx)
    assert [(f.file, f.line) for f in result.failures] == [("test/math.test.js", 10), ("test/math.test.js", 16)]


def test_jests_default_reporter() -> None:
    output, ctx, _ = load_capture("jest", "default-reporter")
    result = auto(output, ctx)
    assert result.recognized
    assert sorted((f.name, f.file, f.line) for f in result.failures) == [
        ("a thrown error", "jest/calc.test.cjs", 16),
        ("multiply > two by three", "jest/calc.test.cjs", 11),  # jest's `›` as the JSON reports' ` > `
    ]
    thrown = next(f for f in result.failures if f.name == "a thrown error")
    assert thrown.message == "the café is closed"
    assert {i.source for i in result.issues} == {"jest"}


def test_both_runners_in_one_stream() -> None:
    vitest, ctx, _ = load_capture("vitest", "default-reporter")
    jest, _, _ = load_capture("jest", "default-reporter")
    both = ToolOutput(vitest.stdout + jest.stdout, (vitest.stderr or "") + (jest.stderr or ""), 1)
    result = auto(both, ctx)
    assert len(result.failures) == 4
    assert {i.source for i in result.issues} == {"vitest", "jest"}


def test_a_failing_exit_with_failures_shown_is_never_unread() -> None:
    output, ctx, _ = load_capture("jest", "default-reporter")
    # The summary cut off (a capped stream) still leaves the failures to read.
    truncated = ToolOutput(output.stdout, (output.stderr or "").split("Test Suites:")[0], 1)
    assert auto(truncated, ctx).recognized


def test_pnpms_per_script_prefixes_are_taken_off() -> None:
    """`pnpm run "/^test:.*/"` (pnpm 9.15): vitest and jest at once, every line `. test:jest: `-prefixed,
    blank lines dropped; pnpm stopped vitest when jest failed first, so only jest's failures were printed."""
    output, ctx, _ = load_capture("jest", "pnpm-pattern")
    assert ". test:jest:   ● multiply › two by three" in output.stdout
    result = auto(output, ctx)
    assert result.recognized
    assert sorted((f.name, f.file, f.line) for f in result.failures) == [
        ("a thrown error", "jest/calc.test.cjs", 16),
        ("multiply > two by three", "jest/calc.test.cjs", 11),
    ]


def test_mochas_json_report_and_spec_reporter_agree() -> None:
    spec, ctx, meta = load_capture("mocha", "spec-reporter")
    report, _, _ = load_capture("mocha", "json")
    assert meta["exit_code"] == 1  # mocha exits with the number of failed tests
    from_spec, from_json = auto(spec, ctx), auto(report, ctx)
    assert from_spec.recognized
    assert from_json.recognized
    expected = [("restock > never goes below zero", "mocha/stock.test.cjs", 13)]
    assert [(f.name, f.file, f.line) for f in from_spec.failures] == expected
    assert [(f.name, f.file, f.line) for f in from_json.failures] == expected
    assert from_json.failures[0].message.startswith("stock cannot be negative")
    assert from_spec.failures[0].message == "AssertionError [ERR_ASSERTION]: stock cannot be negative"


def test_nodes_spec_reporter_the_default_from_node_23() -> None:
    """node 24's `node --test` on tests/workspaces/node prints its spec reporter even into a pipe."""
    output, ctx, meta = load_capture("node-test", "spec-reporter")
    assert meta["tool_version"].startswith("v24.")
    result = auto(output, ctx)
    assert result.recognized
    [failure] = result.failures
    assert (failure.name, failure.file, failure.line) == ("multiply multiplies two numbers", "src/math.test.js", 11)
    assert failure.message == "AssertionError [ERR_ASSERTION]: multiply(3, 4) should be 12"
    # What node 20 prints into a pipe (TAP) gives the same failure.
    tap, tap_ctx, _ = load_capture("node-test", "node-tap")
    [from_tap] = auto(tap, tap_ctx).failures
    assert (from_tap.file, from_tap.line) == (failure.file, failure.line)


def test_mochas_spec_reporter_on_a_passing_run_with_pending_tests_is_clean() -> None:
    """mocha 12's spec reporter in /tmp/lintel-node-scratch/mocha-spec (tests/captures/README.md): three
    passing tests and three pending ones (no function, `describe.skip`, `this.skip()`), exit 0; run bare and
    through a chained npm script."""
    for case in ("spec-pending", "spec-pending-npm-chained"):
        output, ctx, meta = load_capture("mocha", case)
        assert meta["exit_code"] == 0
        result = auto(output, ctx)
        assert result.recognized, case  # clean, not `passed (output not parsed)`
        assert (result.issues, result.failures) == ([], [])


def test_mochas_tally_counts_what_ran() -> None:
    passed, _, _ = load_capture("mocha", "spec-pending")
    failed, _, _ = load_capture("mocha", "spec-failures")
    assert mocha_tally(passed.stdout) == MochaTally(passing=3, pending=3, failing=0)
    assert mocha_tally(failed.stdout) == MochaTally(passing=1, pending=0, failing=6)
    assert mocha_tally("3 passing tests in the prose of a log\n") is None


def test_a_tally_with_failures_or_a_failing_exit_is_not_a_clean_run() -> None:
    output, ctx, _ = load_capture("mocha", "spec-pending")
    # The tally names failures the reporter's blocks do not show (the stream was cut): not understood.
    cut = ToolOutput(output.stdout.replace("  3 pending", "  3 pending\n  2 failing"), "", 0)
    assert not auto(cut, ctx).recognized
    # A passing tally from a script that then failed in a later step is not the script's verdict.
    assert not auto(ToolOutput(output.stdout, "", 1), ctx).recognized


def test_mochas_spec_reporter_places_each_failure_at_the_tests_own_line() -> None:
    """Failures of every shape mocha 12 prints (mocha failing/): an error thrown inside src/cart.js, an async
    rejection, nested describes, a `beforeEach` hook, an ES module (`file://` frames). Each sits at the test's
    line in its file (the `Context.<anonymous>` frame), as the JSON report of the same run says."""
    spec, ctx, meta = load_capture("mocha", "spec-failures")
    report, _, _ = load_capture("mocha", "json-failures")
    assert meta["exit_code"] == 6
    result = auto(spec, ctx)
    assert result.recognized
    assert [(f.name, f.file, f.line) for f in result.failures] == [
        ("cart > reads a cart from JSON", "failing/cart.test.js", 22),
        ("cart > rejects asynchronously", "failing/cart.test.js", 27),
        ("cart > discount > takes the percentage off", "failing/cart.test.js", 11),
        ("cart > discount > edge cases > keeps zero at zero", "failing/cart.test.js", 16),
        ('stock > "before each" hook for "counts what is left"', "failing/cart.test.js", 33),
        ("esm > compares strings", "failing/esm.test.mjs", 5),
    ]
    from_json = auto(report, ctx).failures
    assert [(f.file, f.line) for f in from_json] == [(f.file, f.line) for f in result.failures]
    assert result.failures[0].message == "SyntaxError: Expected property name or '}' in JSON at position 1"
    assert {i.source for i in result.issues} == {"mocha"}
