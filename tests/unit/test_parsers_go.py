"""The Go parsers against output captured from the real tools (go 1.26.8, golangci-lint v2.15.0).

Captures live in tests/captures/{golangci-lint,go-vet,go-test,gofmt}/; their meta.json records the command and
the directory it ran in. `findings` is tests/workspaces/go and `polyglot` tests/workspaces/polyglot; the other
cases ran in scratch modules under /tmp: `clean` (the fixture with every finding fixed), `compile-error` (the
fixture plus sub/broken.go using an undefined name), `syntax-error` (a file that does not parse),
`missing-module` (an import no module provides), `varied` (subtests, t.Fatal, two errors, a panic, a test that
does not compile, a package without tests, a nested package), `odd` (a timeout, TestMain exiting 1, a
missing module).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lintel.core.issues import Issue, ParseContext, ParseResult
from lintel.engine.checks import dedupe_issues
from lintel.languages.go.gotests import parse_go_test
from lintel.languages.go.parsers import parse_go_vet, parse_gofmt_list, parse_golangci_lint
from lintel.languages.parsers import get_parser
from lintel.languages.parsers.base import Parser, ToolOutput

from tests.helpers import load_capture

CTX = ParseContext(cwd="/ws", root="/ws")

# (file, line, rule) of what golangci-lint reports on the fixture: five linters across three files in two packages.
GOLANGCI_FIXTURE = Counter(
    {
        ("greet.go", 22, "errcheck"): 1,
        ("sub/calc.go", 17, "errcheck"): 1,
        ("greet.go", 17, "govet"): 1,
        ("sub/calc.go", 11, "govet"): 1,
        ("store.go", 11, "ineffassign"): 1,
        ("store.go", 21, "staticcheck"): 1,
        ("store.go", 6, "unused"): 1,
    }
)
VET_FIXTURE = Counter({("greet.go", 17, None): 1, ("sub/calc.go", 11, None): 1})


def keys(issues: list[Issue]) -> Counter[tuple[str | None, int | None, str | None]]:
    return Counter((i.file, i.line, i.rule) for i in issues)


def parsed(parser: Parser, tool: str, case: str) -> tuple[ParseResult, int]:
    output, ctx, meta = load_capture(tool, case)
    return parser(output, ctx), meta["exit_code"]


# --- golangci-lint ------------------------------------------------------------------------------------


def test_golangci_fixture_findings() -> None:
    result, exit_code = parsed(parse_golangci_lint, "golangci-lint", "findings")
    assert exit_code == 1
    assert result.recognized
    assert keys(result.issues) == GOLANGCI_FIXTURE
    assert {i.kind for i in result.issues} == {"lint"}
    assert {i.source for i in result.issues} == {"golangci-lint"}
    # No `severity` section in the fixture's config: golangci-lint fails the run, so they are errors.
    assert {i.severity for i in result.issues} == {"error"}


def test_golangci_messages_keep_the_linters_own_code_and_columns() -> None:
    result, _ = parsed(parse_golangci_lint, "golangci-lint", "findings")
    by_rule = {(i.file, i.rule): i for i in result.issues}
    staticcheck = by_rule[("store.go", "staticcheck")]
    assert staticcheck.message == "S1003: should use strings.Contains(s, sub) instead"
    assert staticcheck.column == 9
    assert staticcheck.hint == "Simplify use of strings.Index"
    assert by_rule[("sub/calc.go", "govet")].message == "assign: self-assignment of x"
    errcheck = by_rule[("greet.go", "errcheck")]
    assert errcheck.message == "Error return value of `os.Remove` is not checked"
    assert (errcheck.line, errcheck.column, errcheck.hint) == (22, 11, None)
    assert errcheck.signature == "lint:greet.go:22:Error return value of `os.Remove` is not checked"
    # Go tools count columns in bytes: `\tétiquette, total` puts total at byte 14, character 13.
    ineffassign = by_rule[("store.go", "ineffassign")]
    assert (ineffassign.line, ineffassign.column) == (11, 14)


def test_golangci_clean_run_is_recognized() -> None:
    result, exit_code = parsed(parse_golangci_lint, "golangci-lint", "clean")
    assert exit_code == 0
    assert result.recognized
    assert result.issues == []


def test_golangci_compile_error_is_a_build_issue_at_the_real_position() -> None:
    # golangci-lint points Pos at line 1 column 0 and puts the go command's lines in Text.
    output, ctx, meta = load_capture("golangci-lint", "compile-error")
    assert '"Line":1,"Column":0' in output.stdout
    result = parse_golangci_lint(output, ctx)
    assert meta["exit_code"] == 1
    assert result.recognized
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.column) == ("build", "sub/broken.go", 5, 9)
    assert (issue.rule, issue.message, issue.severity) == ("typecheck", "undefined: missing", "error")


def test_golangci_syntax_error_issues() -> None:
    result, _ = parsed(parse_golangci_lint, "golangci-lint", "syntax-error")
    assert result.recognized
    assert {(i.kind, i.file, i.line, i.column) for i in result.issues} == {
        ("build", "broken.go", 3, 14),
        ("build", "broken.go", 4, 1),
    }
    assert len(result.issues) == 3  # the go command's and the type checker's wording of the first error


def test_golangci_could_not_import_is_the_go_commands_error_as_go_vet_prints_it() -> None:
    # golangci-lint wraps the go command's line: "could not import x (setup/setup.go:3:8: no required ...)".
    result, _ = parsed(parse_golangci_lint, "golangci-lint", "missing-module")
    [issue] = result.issues
    [from_vet] = parsed(parse_go_vet, "go-vet", "missing-module")[0].issues
    assert (issue.kind, issue.file, issue.line, issue.column) == ("build", "setup/setup.go", 3, 8)
    assert issue.message.startswith("no required module provides package example.net/nowhere/pkg; to add it:")
    assert (issue.kind, issue.signature) == (from_vet.kind, from_vet.signature)  # one issue once deduplicated


@pytest.mark.parametrize(("case", "code"), [("config-error", 3), ("no-go-files", 5)])
def test_golangci_failures_are_not_recognized(case: str, code: int) -> None:
    result, exit_code = parsed(parse_golangci_lint, "golangci-lint", case)
    assert exit_code == code
    assert not result.recognized
    assert result.issues == []


def test_golangci_polyglot_has_one_finding() -> None:
    result, _ = parsed(parse_golangci_lint, "golangci-lint", "polyglot")
    assert keys(result.issues) == Counter({("server.go", 15, "errcheck"): 1})


def test_golangci_json_after_text_output_and_with_stats() -> None:
    output, ctx, _ = load_capture("golangci-lint", "findings")
    noisy = ToolOutput(
        "greet.go:22:11: Error return value is not checked (errcheck)\n"
        + output.stdout.strip()
        + "\n7 issues:\n* errcheck: 2\n",
        "",
        1,
    )
    assert keys(parse_golangci_lint(noisy, ctx).issues) == GOLANGCI_FIXTURE


def test_golangci_configured_severity_and_relative_paths() -> None:
    stdout = (
        '{"Issues":[{"FromLinter":"revive","Text":"exported: comment","Severity":"warning",'
        '"Pos":{"Filename":"pkg/a.go","Line":3,"Column":1},"LineRange":{"From":3,"To":5}},'
        '{"FromLinter":"misspell","Text":"`teh` is a misspelling","Severity":"info",'
        '"Pos":{"Filename":"./b.go","Line":7,"Column":2}}],"Report":{}}'
    )
    first, second = parse_golangci_lint(ToolOutput(stdout, "", 1), CTX).issues
    assert (first.file, first.line, first.end_line, first.severity) == ("pkg/a.go", 3, 5, "warning")
    assert (second.file, second.severity, second.rule) == ("b.go", "info", "misspell")


def test_golangci_null_issues_and_reported_error() -> None:
    assert parse_golangci_lint(ToolOutput('{"Issues":null,"Report":{}}', "", 0), CTX).recognized
    failed = ToolOutput('{"Issues":[],"Report":{"Error":"context loading failed"}}', "", 3)
    assert not parse_golangci_lint(failed, CTX).recognized


# --- go vet --------------------------------------------------------------------------------------------


def test_vet_fixture_findings() -> None:
    output, ctx, meta = load_capture("go-vet", "findings")
    assert meta["exit_code"] == 1
    assert output.stdout == ""  # vet reports on stderr
    result = parse_go_vet(output, ctx)
    assert result.recognized
    assert keys(result.issues) == VET_FIXTURE
    assert {(i.kind, i.source, i.severity) for i in result.issues} == {("typecheck", "go vet", "error")}
    messages = {(i.file, i.line, i.column): i.message for i in result.issues}
    assert messages == {("greet.go", 17, 2): "unreachable code", ("sub/calc.go", 11, 2): "self-assignment of x"}


def test_vet_clean_run() -> None:
    result, exit_code = parsed(parse_go_vet, "go-vet", "clean")
    assert exit_code == 0
    assert result.recognized
    assert result.issues == []


def test_vet_compile_error_is_a_build_issue_beside_other_findings() -> None:
    result, exit_code = parsed(parse_go_vet, "go-vet", "compile-error")
    assert exit_code == 1
    assert result.recognized
    assert {(i.kind, i.file, i.line, i.column, i.message) for i in result.issues} == {
        ("typecheck", "greet.go", 17, 2, "unreachable code"),
        ("build", "sub/broken.go", 5, 9, "undefined: missing"),
    }


def test_vet_syntax_error_with_dot_slash_path() -> None:
    output, ctx, _ = load_capture("go-vet", "syntax-error")
    assert "vet: ./broken.go:3:14:" in output.stderr
    [issue] = parse_go_vet(output, ctx).issues
    assert (issue.kind, issue.file, issue.line, issue.column) == ("build", "broken.go", 3, 14)
    assert issue.message == "expected ')', found '{' (and 1 more errors)"


def test_vet_continuation_lines_join_their_message() -> None:
    result, _ = parsed(parse_go_vet, "go-vet", "missing-module")
    [issue] = result.issues
    assert (issue.file, issue.line, issue.column) == ("setup/setup.go", 3, 8)
    assert issue.message.endswith("; to add it:\ngo get example.net/nowhere/pkg")


def test_vet_with_nothing_to_vet_is_not_recognized() -> None:
    result, exit_code = parsed(parse_go_vet, "go-vet", "no-packages")
    assert exit_code == 1
    assert not result.recognized


def test_vet_polyglot_has_one_finding() -> None:
    result, _ = parsed(parse_go_vet, "go-vet", "polyglot")
    assert keys(result.issues) == Counter({("server.go", 9, None): 1})


def test_vet_older_go_headers_every_package() -> None:
    stderr = "# example.com/m\n./main.go:8:2: fmt.Printf format %d has arg s of wrong type string\n"
    [issue] = parse_go_vet(ToolOutput("", stderr, 1), CTX).issues
    assert (issue.file, issue.line, issue.column, issue.kind) == ("main.go", 8, 2, "typecheck")


# --- go test -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["findings", "findings-bare-names"])
def test_go_test_fixture_failure(case: str) -> None:
    # -fullpath prints /abs/sub/calc_test.go:13; without it the bare calc_test.go:13 is placed in its
    # package directory by inferring the module path.
    result, exit_code = parsed(parse_go_test, "go-test", case)
    assert exit_code == 1
    assert result.recognized
    [failure] = result.failures
    assert failure.name == "example.com/lintelgo/sub.TestScale"
    assert (failure.file, failure.line) == ("sub/calc_test.go", 13)
    assert failure.message == "Scale(2, 3) = 6, want 7"
    assert failure.output is not None
    assert "--- FAIL: TestScale" in failure.output
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.severity, issue.source) == (
        "test",
        "sub/calc_test.go",
        13,
        "error",
        "go test",
    )
    assert issue.message == "TestScale failed: Scale(2, 3) = 6, want 7"


def test_go_test_clean_run() -> None:
    result, exit_code = parsed(parse_go_test, "go-test", "clean")
    assert exit_code == 0
    assert result.recognized
    assert result.issues == []
    assert result.failures == []


@pytest.mark.parametrize("case", ["varied", "varied-bare-names"])
def test_go_test_varied_failures(case: str) -> None:
    result, _ = parsed(parse_go_test, "go-test", case)
    assert result.recognized
    failures = {f.name: (f.file, f.line, f.message) for f in result.failures}
    assert failures == {
        # only the failing subtest, not its parent
        "example.org/gotests/table.TestAbs/minus_three": ("table/table_test.go", 12, "Abs(-3) = -3, want 3"),
        "example.org/gotests/table.TestTwoErrors": (
            "table/table_test.go",
            19,
            "first problem\nsecond problem:\nspans two lines",
        ),
        "example.org/gotests/table.TestFatal": ("table/table_test.go", 24, "stopped here"),
        # a panic is placed at the innermost frame in the root: the code under test
        "example.org/gotests/boom.TestPanics": (
            "boom/boom.go",
            5,
            "panic: runtime error: index out of range [5] with length 2",
        ),
        "example.org/gotests/deep/inner.TestFour": ("deep/inner/inner_test.go", 7, "Four() = 4, want 5"),
    }
    builds = [i for i in result.issues if i.kind == "build"]
    assert [(i.file, i.line, i.column, i.message) for i in builds] == [
        ("nobuild/nobuild_test.go", 6, 14, "undefined: undefinedThing")
    ]
    tests = Counter((i.file, i.line) for i in result.issues if i.kind == "test")
    assert sum(tests.values()) == 5
    assert "TestAbs/minus_three failed: Abs(-3) = -3, want 3" in {i.message for i in result.issues}


def test_go_test_a_panic_beside_parallel_tests_is_one_failure_not_theirs() -> None:
    """tests/workspaces/go-many: TestIndexOutOfRange panics while TestSlowButFine (t.Parallel, sleeping) runs;
    the panic ends the test binary. go test marks only TestIndexOutOfRange and TestWrongCount failed."""
    result, exit_code = parsed(parse_go_test, "go-test", "parallel-panic")
    assert exit_code == 1
    assert result.recognized
    failures = {f.name: (f.file, f.line) for f in result.failures}
    assert failures == {
        "example.com/lintelmany.TestIndexOutOfRange": ("many_test.go", 20),
        "example.com/lintelmany.TestWrongCount": ("many_test.go", 26),
    }
    [panicked] = [f for f in result.failures if f.name.endswith("TestIndexOutOfRange")]
    assert panicked.message == (
        "panic: runtime error: index out of range [3] with length 0\n"
        "(the panic ended the test binary: TestSlowButFine did not finish)"
    )
    assert sorted((i.file, i.line) for i in result.issues) == [("many_test.go", 20), ("many_test.go", 26)]


def test_go_test_compile_error_is_a_build_issue_and_no_failure() -> None:
    result, _ = parsed(parse_go_test, "go-test", "compile-error")
    assert result.recognized
    assert result.failures == []
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.column) == ("build", "sub/broken.go", 5, 9)


def test_go_test_syntax_error() -> None:
    result, _ = parsed(parse_go_test, "go-test", "syntax-error")
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.message) == (
        "build",
        "broken.go",
        3,
        "syntax error: unexpected {, expected )",
    )


def test_go_test_timeout_testmain_and_setup_failure() -> None:
    result, _ = parsed(parse_go_test, "go-test", "odd")
    assert result.recognized
    failures = {f.name: f for f in result.failures}
    assert set(failures) == {"example.net/odd/slow.TestSlow", "example.net/odd/mainexit"}
    # The timed-out test never gets a fail event: it was still running when the package failed.
    slow = failures["example.net/odd/slow.TestSlow"]
    assert (slow.file, slow.line, slow.message) == ("slow/slow_test.go", 9, "panic: test timed out after 1s")
    main = failures["example.net/odd/mainexit"]
    assert (main.file, main.line, main.message) == (None, None, "setup failed: no database")
    [build] = [i for i in result.issues if i.kind == "build"]
    assert (build.file, build.line) == ("setup/setup.go", 3)
    assert "no required module provides package example.net/nowhere/pkg" in build.message
    package_issue = next(i for i in result.issues if i.kind == "test" and i.file is None)
    assert package_issue.signature.startswith("custom:")  # no file and line: signed by the message hash


def test_go_test_nothing_to_test_is_not_recognized() -> None:
    result, exit_code = parsed(parse_go_test, "go-test", "no-packages")
    assert exit_code == 1
    assert not result.recognized


@pytest.mark.parametrize("case", ["polyglot", "polyglot-bare-names"])
def test_go_test_polyglot_root_package(case: str) -> None:
    result, _ = parsed(parse_go_test, "go-test", case)
    [failure] = result.failures
    assert (failure.name, failure.file, failure.line) == ("example.com/polyglot.TestPort", "server_test.go", 7)


def test_go_test_old_go_build_errors_on_stderr() -> None:
    stdout = (
        '{"Action":"start","Package":"example.com/m/a"}\n'
        '{"Action":"output","Package":"example.com/m/a","Output":"FAIL\\texample.com/m/a [build failed]\\n"}\n'
        '{"Action":"fail","Package":"example.com/m/a","Elapsed":0}\n'
    )
    stderr = "# example.com/m/a\na/a.go:4:2: undefined: x\n"
    result = parse_go_test(ToolOutput(stdout, stderr, 1), CTX)
    assert result.recognized
    assert result.failures == []
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.column) == ("build", "a/a.go", 4, 2)


def test_go_test_bare_name_uses_the_module_path_a_panic_frame_shows() -> None:
    # Every package lives under pkg/, so the common prefix alone would take example.com/m/pkg for the module;
    # the panic frame of example.com/m/pkg/b shows it is example.com/m.
    def event(package: str, test: str, action: str, text: str | None = None) -> str:
        record: dict[str, Any] = {"Action": action, "Package": package, "Test": test}
        if text is not None:
            record["Output"] = text
        return json.dumps(record)

    lines = [
        event("example.com/m/pkg/a", "TestA", "run"),
        event("example.com/m/pkg/a", "TestA", "output", "    a_test.go:9: wrong\n"),
        event("example.com/m/pkg/a", "TestA", "fail"),
        event("example.com/m/pkg/b", "TestB", "run"),
        event("example.com/m/pkg/b", "TestB", "output", "panic: boom\n"),
        event("example.com/m/pkg/b", "TestB", "output", "example.com/m/pkg/b.TestB(0xc0)\n"),
        event("example.com/m/pkg/b", "TestB", "output", "\t/ws/pkg/b/b_test.go:5 +0x1d\n"),
        event("example.com/m/pkg/b", "TestB", "fail"),
    ]
    result = parse_go_test(ToolOutput("\n".join(lines), "", 1), CTX)
    located = {f.name: (f.file, f.line) for f in result.failures}
    assert located == {
        "example.com/m/pkg/a.TestA": ("pkg/a/a_test.go", 9),
        "example.com/m/pkg/b.TestB": ("pkg/b/b_test.go", 5),
    }


# --- gofmt -l ------------------------------------------------------------------------------------------


def test_gofmt_lists_the_fixture_file() -> None:
    result, exit_code = parsed(parse_gofmt_list, "gofmt", "findings")
    assert exit_code == 0  # gofmt -l exits 0 whether or not it lists files
    assert result.recognized
    [issue] = result.issues
    assert (issue.kind, issue.file, issue.line, issue.severity, issue.source) == (
        "format",
        "double.go",
        None,
        "warning",
        "gofmt",
    )
    assert issue.hint == "gofmt -w double.go"
    assert issue.signature == "format:double.go::gofmt would reformat this file"


def test_gofmt_clean() -> None:
    result, _ = parsed(parse_gofmt_list, "gofmt", "clean")
    assert result.recognized
    assert result.issues == []


def test_gofmt_syntax_errors_are_build_issues() -> None:
    result, exit_code = parsed(parse_gofmt_list, "gofmt", "syntax-error")
    assert exit_code == 2
    assert result.recognized
    assert {(i.kind, i.file, i.line) for i in result.issues} == {
        ("format", "spaced.go", None),
        ("build", "broken.go", 3),
        ("build", "broken.go", 4),
    }


def test_gofmt_unreadable_file_is_not_recognized() -> None:
    output = ToolOutput("", "open secret.go: permission denied\n", 2)
    assert not parse_gofmt_list(output, CTX).recognized


# --- robustness -----------------------------------------------------------------------------------------

# Called undecorated (not through get_parser's never_raises), so an exception fails the test instead of
# quietly becoming "not recognized".
GO_PARSERS: dict[str, Parser] = {
    "golangci-lint": parse_golangci_lint,
    "go-vet": parse_go_vet,
    "go-test": parse_go_test,
    "gofmt": parse_gofmt_list,
}
CAPTURES = [
    ("golangci-lint", "findings"),
    ("golangci-lint", "fix-go"),
    ("golangci-lint", "compile-error"),
    ("go-vet", "compile-error"),
    ("go-test", "varied"),
    ("go-test", "odd"),
    ("go-test", "findings-bare-names"),
    ("gofmt", "syntax-error"),
]


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(), st.one_of(st.none(), st.integers(-5, 300)))
def test_go_parsers_never_raise_on_random_text(stdout: str, stderr: str, code: int | None) -> None:
    for parser in GO_PARSERS.values():
        result = parser(ToolOutput(stdout, stderr, code), CTX)
        assert isinstance(result.issues, list)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(CAPTURES), st.floats(0, 1), st.sampled_from(sorted(GO_PARSERS)))
def test_go_parsers_survive_truncated_captures(capture: tuple[str, str], fraction: float, name: str) -> None:
    output, ctx, _ = load_capture(*capture)
    cut_out = output.stdout[: int(len(output.stdout) * fraction)]
    cut_err = output.stderr[: int(len(output.stderr) * fraction)]
    result = GO_PARSERS[name](ToolOutput(cut_out, cut_err, output.exit_code), ctx)
    assert all(issue.signature and issue.message for issue in result.issues)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "Action": st.sampled_from(["run", "output", "pass", "fail", "skip", "build-output", "start"]),
                "Package": st.sampled_from(["example.com/m", "example.com/m/a", "", "x"]),
            },
            optional={
                "Test": st.sampled_from(["TestA", "TestA/sub", "TestB", ""]),
                "Output": st.text(max_size=80),
                "FailedBuild": st.text(max_size=10),
                "ImportPath": st.text(max_size=20),
            },
        ),
        max_size=30,
    )
)
def test_go_test_survives_random_event_streams(events: list[dict[str, str]]) -> None:
    stdout = "\n".join(json.dumps(e) for e in events)
    result = parse_go_test(ToolOutput(stdout, "", 1), CTX)
    assert all(f.name for f in result.failures)


@pytest.mark.parametrize("name", ["golangci-lint", "go-vet", "go vet", "govet", "go-test", "gotest", "gofmt"])
def test_registry_names_reach_the_go_parsers(name: str) -> None:
    output, ctx, _ = load_capture("go-vet", "findings")
    result = get_parser(name)(output, ctx)
    assert isinstance(result, ParseResult)
    if name in ("go-vet", "go vet", "govet"):
        assert keys(result.issues) == VET_FIXTURE


# --- the go command's module errors (go.mod, go.sum, vendor/) -------------------------------------------
# /tmp/lintel-go-modules/<case> (tests/captures/README.md), each run with go vet, go test and golangci-lint.

GO_TOOLS: list[tuple[str, Parser]] = [
    ("go-vet", parse_go_vet),
    ("go-test", parse_go_test),
    ("golangci-lint", parse_golangci_lint),
]
MODULE_ERRORS = {
    "tidy": ("go.mod", None, "updates to go.mod needed; to update it: go mod tidy"),
    "gosum": (
        "go.mod",
        None,
        "golang.org/x/text@v0.21.0: missing go.sum entry for go.mod file; to add it: go mod download golang.org/x/text",
    ),
    "vendoring": (
        "go.mod",
        None,
        "inconsistent vendoring: example.com/a@v1.0.0: is explicitly required in go.mod, but not marked as explicit"
        " in vendor/modules.txt; example.com/a@v1.0.1: is marked as explicit in vendor/modules.txt, but not"
        " explicitly required in go.mod",
    ),
    "syntax": ("go.mod", 5, "unknown directive: requirez"),
    "gosum-package": (
        "main.go",
        6,
        "missing go.sum entry for module providing package golang.org/x/text/language (imported by"
        " example.com/sum); to add:\ngo get example.com/sum",
    ),
}


@pytest.mark.parametrize(
    ("tool", "parser", "case"),
    # golangci-lint hides the go command's words for a module that needs tidying (below).
    [(t, p, c) for t, p in GO_TOOLS for c in sorted(MODULE_ERRORS) if (t, c) != ("golangci-lint", "tidy")],
)
def test_a_broken_module_is_one_build_error_in_the_go_commands_words(tool: str, parser: Parser, case: str) -> None:
    result, exit_code = parsed(parser, tool, f"module-{case}")
    assert exit_code != 0
    assert result.recognized
    assert result.failures == []
    [issue] = result.issues
    assert (issue.kind, issue.severity) == ("build", "error")
    assert (issue.file, issue.line, issue.message) == MODULE_ERRORS[case]


def test_the_three_go_tools_report_a_broken_module_with_one_signature() -> None:
    for case in ("vendoring", "gosum", "syntax", "gosum-package"):
        signatures = {parsed(parser, tool, f"module-{case}")[0].issues[0].signature for tool, parser in GO_TOOLS}
        assert len(signatures) == 1, case


def test_vendorings_advice_is_the_hint() -> None:
    result, _ = parsed(parse_go_vet, "go-vet", "module-vendoring")
    assert result.issues[0].hint == (
        "To ignore the vendor directory, use -mod=readonly or -mod=mod.\nTo sync the vendor directory, run:\n"
        "go mod vendor"
    )


def test_golangci_lints_no_go_files_is_not_a_module_error() -> None:
    """golangci-lint 2.15 says only "no go files to analyze: running `go mod tidy` may solve the problem" for a
    module that needs tidying, as for one with no Go file at all: nothing to place, not checked (go vet and go
    test, run beside it, report the module's error)."""
    for case in ("module-tidy", "no-go-files"):
        result, _ = parsed(parse_golangci_lint, "golangci-lint", case)
        assert (result.recognized, result.issues) == (False, [])


@pytest.mark.parametrize(("tool", "parser"), GO_TOOLS)
def test_a_go_toolchain_older_than_the_module_asks_is_not_checked(tool: str, parser: Parser) -> None:
    """`go 1.99` in go.mod with go 1.26 and GOTOOLCHAIN=local: the machine cannot check the project."""
    result, _ = parsed(parser, tool, "module-newgo")
    assert (result.recognized, result.issues) == (False, [])


def test_a_vet_finding_that_fails_go_tests_build_is_go_vets_issue() -> None:
    """go test runs vet first and fails the build on a finding (under `# [pkg]`): the same issue go vet reports,
    so `lintel check` shows it once (a Printf misuse was reported twice)."""
    from_test, _ = parsed(parse_go_test, "go-test", "vet-failure")
    from_vet, _ = parsed(parse_go_vet, "go-vet", "printf")
    [issue] = from_test.issues
    [vet_issue] = from_vet.issues
    assert (issue.kind, issue.source, issue.file, issue.line, issue.column) == ("typecheck", "go vet", "v.go", 6, 22)
    assert issue.signature == vet_issue.signature
    assert dedupe_issues([vet_issue, issue]) == [vet_issue]
    assert not from_test.failures
