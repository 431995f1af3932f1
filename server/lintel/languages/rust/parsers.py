"""Parsers for cargo's tools: compiler messages (clippy, cargo check), cargo test's text, rustfmt's diffs.

Issue.source follows the diagnostic, not the command (as rust-analyzer does): `clippy` for `clippy::*` lints,
`rustc` for the compiler's own lints and errors, so the same rustc warning reported by both the clippy and the
cargo check run has one signature. rustc's lints are kind `lint`; rustc's errors are kind `build` whichever cargo
command hit them, because rustc does not separate type errors from the rest of "the crate does not compile".
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from lintel.core.issues import (
    Issue,
    IssueKind,
    ParseContext,
    ParseResult,
    Severity,
    TestFailure,
    make_issue,
    severity_from,
)
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import MAX_HINT, clean, first_time, json_int, json_lines, one_line
from lintel.languages.rust.rustfix import compiler_fixes, rule_url

_ERROR_CODE = re.compile(r"^E\d{4}$")
# rustc's closing tallies carry no finding of their own ("aborting due to 2 previous errors", "3 warnings emitted").
_SUMMARY = re.compile(r"^(aborting due to\b|\d+ (warning|error)s?\b.*\bemitted$)")


# --------------------------------------------------------------------------------------------------
# cargo --message-format=json (clippy, cargo check)


def parse_cargo_messages(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """cargo's `--message-format=json`: one JSON object per stdout line, for `cargo clippy` and `cargo check`.

        {"reason":"compiler-message","manifest_path":"/w/Cargo.toml","target":{"src_path":"/w/src/lib.rs",...},
         "message":{"level":"warning","message":"unneeded `return` statement",
                    "code":{"code":"clippy::needless_return"},
                    "spans":[{"file_name":"src/lib.rs","is_primary":true,"line_start":11,
                              "column_start":5,"line_end":11,"column_end":17,...}],
                    "children":[{"level":"help","message":"remove `return`","spans":[...]}]}}
        {"reason":"build-finished","success":true}

    With `--all-targets` the lib and its test harness compile the same files, so cargo prints each of their
    warnings twice; identical findings are kept once. Exit 0 (warnings included) or 101 with compile errors
    is understood, as is 101 for a Cargo.toml error cargo prints as text (`error: ...` / ` --> Cargo.toml:3:11`)
    on stderr; 101 without a located error (a failed build script, a missing dependency) is not.
    """
    issues: list[Issue] = []
    seen: set[tuple[Any, ...]] = set()
    finished = False
    for record in json_lines(output.stdout):
        reason = record.get("reason")
        if reason == "build-finished":
            finished = True
        elif reason == "compiler-message":
            issue = _compiler_issue(record, ctx)
            if issue is not None and first_time(issue, seen):
                issues.append(issue)
    if output.exit_code not in (0, None) and not any(issue.severity == "error" for issue in issues):
        # cargo's own failures (a broken Cargo.toml) are printed as text on stderr, not as JSON.
        issues.extend(i for i in _human_errors(clean(output.stderr), ctx) if first_time(i, seen))
    return ParseResult(issues=issues, recognized=_understood(output.exit_code, finished, issues))


def _understood(exit_code: int | None, finished: bool, issues: list[Issue]) -> bool:
    if not finished and not issues:
        return False
    if exit_code in (0, None):
        return True
    # A failing cargo run is explained only by an error with a location (rustc's, or cargo's for Cargo.toml).
    return any(issue.severity == "error" for issue in issues)


def _compiler_issue(record: Mapping[str, Any], ctx: ParseContext) -> Issue | None:
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    level = str(message.get("level") or "")
    text = str(message.get("message") or "").strip()
    # failure-note: "For more information about this error, try `rustc --explain E0308`."
    if level in ("", "failure-note") or _SUMMARY.match(text):
        return None
    code_field = message.get("code")
    code = code_field.get("code") if isinstance(code_field, dict) else None
    code = code if isinstance(code, str) and code else None
    kind, source = _classify(code)
    severity: Severity = "error" if level.startswith("error") else severity_from(level)
    span = _primary_span(message.get("spans"))
    file = line = column = end_line = end_column = None
    if span is not None:
        file = _span_file(span, record, ctx)
        if file is not None:
            line, column = json_int(span.get("line_start")), json_int(span.get("column_start"))
            end_line, end_column = json_int(span.get("line_end")), json_int(span.get("column_end"))
    return make_issue(
        kind=kind,
        message=text,
        source=source,
        severity=severity,
        file=file,
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
        rule=code,
        hint=_hint(message.get("children")),
        fixes=compiler_fixes(message.get("children"), lambda s: _span_file(s, record, ctx)),
        url=rule_url(message.get("children")),
    )


def _classify(code: str | None) -> tuple[IssueKind, str]:
    if code is not None and code.startswith("clippy::"):
        return "lint", "clippy"
    if code is not None and not _ERROR_CODE.match(code):
        return "lint", "rustc"  # one of rustc's own lints: unused_variables, dead_code, ...
    return "build", "rustc"


def _primary_span(spans: Any) -> Mapping[str, Any] | None:
    """The primary span, followed out of macro expansions into code the user wrote."""
    if not isinstance(spans, list):
        return None
    primary = [s for s in spans if isinstance(s, dict) and s.get("is_primary")]
    span: Mapping[str, Any] | None = primary[0] if primary else None
    for _ in range(32):  # expansion chains are short; the bound only guards against a cyclic input
        if span is None or not _is_foreign(str(span.get("file_name") or "")):
            break
        expansion = span.get("expansion")
        outer = expansion.get("span") if isinstance(expansion, dict) else None
        if not isinstance(outer, dict):
            break
        span = outer
    return span


def _is_foreign(file_name: str) -> bool:
    # `<anon>`-style pseudo files and absolute paths (std's /rustc/<hash>/library/..., the registry).
    return file_name.startswith("<") or file_name.startswith("/")


def _span_file(span: Mapping[str, Any], record: Mapping[str, Any], ctx: ParseContext) -> str | None:
    file_name = str(span.get("file_name") or "").replace("\\", "/")
    if not file_name or file_name.startswith("<"):
        return None
    if PurePosixPath(file_name).is_absolute():
        return ctx.relpath(file_name)
    return ctx.relpath(str(_workspace_root(file_name, record, ctx) / file_name))


def _workspace_root(file_name: str, record: Mapping[str, Any], ctx: ParseContext) -> PurePosixPath:
    """The directory cargo ran rustc in, which relative span paths are relative to: the workspace root.

    The message names only the package (manifest_path), so: the root is the package directory or the
    ancestor from which the path leads back into the package (`crates/foo/src/lib.rs` for /w/crates/foo).
    The target's own src_path settles the rare ambiguous layout; without a manifest, the cwd.
    """
    manifest = record.get("manifest_path")
    if not isinstance(manifest, str) or not manifest:
        return PurePosixPath(ctx.cwd.replace("\\", "/"))
    package = PurePosixPath(manifest.replace("\\", "/")).parent
    candidates = [package] + [
        ancestor for ancestor in package.parents if file_name.startswith(package.relative_to(ancestor).as_posix() + "/")
    ]
    target = record.get("target")
    src_path = target.get("src_path") if isinstance(target, dict) else None
    if isinstance(src_path, str):
        for candidate in candidates:
            if str(candidate / file_name) == src_path.replace("\\", "/"):
                return candidate
    return candidates[-1]


def _hint(children: Any) -> str | None:
    """rustc's `help:` children, each with its replacement when it suggests exactly one."""
    if not isinstance(children, list):
        return None
    helps: list[str] = []
    for child in children:
        if not isinstance(child, dict) or child.get("level") != "help":
            continue
        text = str(child.get("message") or "").strip()
        spans = child.get("spans")
        replacements = [
            s.get("suggested_replacement")
            for s in (spans if isinstance(spans, list) else [])
            if isinstance(s, dict) and s.get("suggested_replacement")
        ]
        if len(replacements) == 1:
            text = f"{text}: `{replacements[0]}`"
        if text:
            helps.append(text)
    # The suggestion first; clippy's "for further information visit <docs>" after it.
    helps.sort(key=lambda text: text.startswith("for further information"))
    hint = "\n".join(helps)
    return hint[:MAX_HINT] or None


# --------------------------------------------------------------------------------------------------
# cargo test


_BLOCK_START = re.compile(r"^running \d+ tests?$")
_TEST_LINE = re.compile(r"^test (?P<name>.+?)(?: - should panic)? \.\.\. (?P<status>\S+)")
_SECTION = re.compile(r"^---- (?P<name>.+) (?:stdout|stderr) ----$")
_FAILURES_LIST = re.compile(r"^failures:$")
_RESULT = re.compile(r"^test result: (?:ok|FAILED)\. \d+ passed; \d+ failed")
# Rust >= 1.73: `thread 'NAME' (TID) panicked at FILE:LINE:COL:` then the message on the next lines;
# the `(TID)` arrived in 1.91.
_PANIC = re.compile(
    r"^thread '(?P<thread>[^'\n]*)'(?: \(\d+\))? panicked at (?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+):$",
    re.M,
)
# Older: `thread 'NAME' panicked at 'MESSAGE', FILE:LINE:COL` where MESSAGE may span lines; its start and
# its end are found separately and paired, which keeps a flood of panics linear.
_PANIC_OLD_START = re.compile(r"^thread '(?P<thread>[^'\n]*)'(?: \(\d+\))? panicked at '", re.M)
_PANIC_OLD_END = re.compile(r"', (?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+)$", re.M)
_NO_PANIC = re.compile(r"^note: test did not panic as expected(?: at (?P<file>.+?):(?P<line>\d+):\d+)?", re.M)
_ERR_RETURN = re.compile(r"^Error: (?P<message>.+)$", re.M)
_PANIC_TAIL = re.compile(r"^(note: run with `RUST_BACKTRACE|stack backtrace:)", re.M)
_DOCTEST = re.compile(r"^(?P<file>.+?) - .*\(line (?P<line>\d+)\)$")
# cargo's last progress line of a build: `    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.17s`
# (before Rust 1.77: `Finished test [unoptimized + debuginfo] target(s) in 0.17s`).
_FINISHED = re.compile(r"^\s*Finished\b.*\btarget\(s\) in ", re.M)
# rustc's human format, which cargo test prints for compile errors.
_RUSTC_HEADER = re.compile(r"^error(?:\[(?P<code>[^\]]+)\])?: (?P<message>.+)$")
_RUSTC_LOCATION = re.compile(r"^\s*--> (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)$")


@dataclass(frozen=True)
class _Panic:
    message: str
    file: str | None
    line: int | None


def parse_cargo_test(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`cargo test --no-fail-fast`: libtest's report per test binary on stdout, cargo's progress on stderr.

        running 3 tests
        test tests::adds_wrong ... FAILED
        failures:

        ---- tests::adds_wrong stdout ----

        thread 'tests::adds_wrong' (18758) panicked at src/lib.rs:40:9:
        assertion `left == right` failed: add(2, 2) should be 5
          left: 4
         right: 5
        note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

        test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

    Each failed test becomes a TestFailure and a `test` issue at its (first) panic's location; doc tests
    (`src/lib.rs - add (line 7)`) at their code block. Compile errors (`error[E0308]: ...` / ` --> file:l:c`)
    become `build` issues; compile warnings are left to the lint and typecheck runs.
    """
    stdout = clean(output.stdout)
    stderr = clean(output.stderr)
    failures: list[TestFailure] = []
    saw_result = False
    for block in _test_blocks(stdout):
        saw_result = saw_result or any(_RESULT.match(line) for line in block)
        failures.extend(_block_failures(block, ctx))
    seen: set[tuple[Any, ...]] = set()
    builds = [i for i in _human_errors(stderr, ctx) if first_time(i, seen)]
    for record in json_lines(stdout):  # `cargo test --message-format=json` prints them on stdout
        if record.get("reason") == "compiler-message":
            issue = _compiler_issue(record, ctx)
            if issue is not None and issue.severity == "error" and first_time(issue, seen):
                builds.append(issue)
    issues = [_failure_issue(failure) for failure in failures] + builds
    # A failing run is explained only by a failed test or a compile error; a passing one by libtest's tally
    # (`running 0 tests` / `test result: ok. 0 passed` for a crate without tests), or by cargo building and
    # running nothing at all (no target to test: `[lib] test = false`, `doctest = false`).
    explained = bool(failures) or bool(builds)
    ran_nothing = not stdout.strip() and _FINISHED.search(stderr) is not None
    recognized = saw_result or explained or ran_nothing if output.exit_code in (0, None) else explained
    return ParseResult(issues=issues, failures=failures, recognized=recognized)


def _test_blocks(stdout: str) -> Iterator[list[str]]:
    """The output of each test binary, from its `running N tests` line to the next one."""
    block: list[str] | None = None
    for line in stdout.splitlines():
        if _BLOCK_START.match(line):
            if block is not None:
                yield block
            block = []
        elif block is not None:
            block.append(line)
    if block is not None:
        yield block


def _block_failures(block: list[str], ctx: ParseContext) -> list[TestFailure]:
    failed: list[str] = []
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in block:
        test = _TEST_LINE.match(line)
        section = _SECTION.match(line)
        if section:
            current = sections.setdefault(section.group("name"), [])
        elif _FAILURES_LIST.match(line) or _RESULT.match(line):
            current = None
        elif current is not None:
            current.append(line)
        elif test and test.group("status") == "FAILED":
            failed.append(test.group("name"))
    # Without captured sections (`--nocapture`) the panics are inline in the block, named by their thread.
    inline: dict[str, _Panic] | None = None
    out: list[TestFailure] = []
    for name in dict.fromkeys(failed):
        text: str | None = None
        if name in sections:
            text = "\n".join(sections[name]).strip("\n")
            panic = _explain(text, ctx)
        else:
            if inline is None:
                inline = {}
                for thread, found in _panics("\n".join(block), ctx):
                    inline.setdefault(thread, found)
            panic = inline.get(name, _Panic("test failed", None, None))
        doctest = _DOCTEST.match(name)
        if doctest:  # rustdoc's remapped panic lines are approximate; the code block's line is not
            file = ctx.relpath(doctest.group("file"))
            panic = _Panic(panic.message, file, int(doctest.group("line")))
        out.append(TestFailure(name=name, message=panic.message, file=panic.file, line=panic.line, output=text))
    return out


def _explain(section: str, ctx: ParseContext) -> _Panic:
    """Why a test failed, from its captured output: the first panic (the root cause when a spawned thread
    panicked before the test's own thread), a should_panic test that did not, or a returned Err."""
    panics = _panics(section, ctx)
    if panics:
        return panics[0][1]
    no_panic = _NO_PANIC.search(section)
    if no_panic:
        file = ctx.relpath(no_panic.group("file")) if no_panic.group("file") else None
        line = int(no_panic.group("line")) if no_panic.group("line") else None
        return _Panic("test did not panic as expected", file, line)
    err = _ERR_RETURN.search(section)
    if err:  # a test returning Err(...) prints it with Debug formatting and no location
        return _Panic(f"Error: {err.group('message').strip()}", None, None)
    return _Panic("test failed", None, None)


def _panics(text: str, ctx: ParseContext) -> list[tuple[str, _Panic]]:
    """Every panic in `text` as (thread name, panic), in the order printed."""
    found: list[tuple[int, str, _Panic]] = []
    headers = list(_PANIC.finditer(text))
    # A new-style message runs to the backtrace note or the next panic.
    stops = sorted([m.start() for m in headers] + [m.start() for m in _PANIC_TAIL.finditer(text)])
    for header in headers:
        index = bisect.bisect_right(stops, header.end())
        stop = stops[index] if index < len(stops) else len(text)
        found.append((header.start(), header.group("thread"), _located(text[header.end() : stop], header, ctx)))
    starts = list(_PANIC_OLD_START.finditer(text))
    ends = list(_PANIC_OLD_END.finditer(text))
    end_positions = [m.start() for m in ends]
    for number, start in enumerate(starts):
        index = bisect.bisect_left(end_positions, start.end())
        limit = starts[number + 1].start() if number + 1 < len(starts) else len(text)
        if index < len(ends) and ends[index].start() < limit:
            message = text[start.end() : ends[index].start()]
            found.append((start.start(), start.group("thread"), _located(message, ends[index], ctx)))
    found.sort(key=lambda item: item[0])
    return [(thread, panic) for _, thread, panic in found]


def _located(message: str, match: re.Match[str], ctx: ParseContext) -> _Panic:
    return _Panic(message.strip() or "panicked", ctx.relpath(match.group("file")), int(match.group("line")))


def _failure_issue(failure: TestFailure) -> Issue:
    return make_issue(
        kind="test",
        message=f"{failure.name} failed: {one_line(failure.message)}",
        source="cargo test",
        severity="error",
        file=failure.file,
        line=failure.line,
    )


def _human_errors(text: str, ctx: ParseContext) -> Iterator[Issue]:
    """`error[E0308]: mismatched types` followed by its ` --> src/lib.rs:3:5` line.

    Errors without a location are cargo's own tallies ("could not compile", "test failed, to rerun pass").
    """
    lines = text.splitlines()
    for index, line in enumerate(lines):
        header = _RUSTC_HEADER.match(line)
        if not header or _SUMMARY.match(header.group("message")):
            continue
        for following in lines[index + 1 : index + 4]:
            location = _RUSTC_LOCATION.match(following)
            if location:
                code = header.group("code")
                file = ctx.relpath(location.group("file"))
                yield make_issue(
                    kind=_classify(code)[0],
                    message=header.group("message"),
                    # cargo reports manifest errors in rustc's format; the file tells them apart.
                    source="cargo" if file.endswith((".toml", ".lock")) else "rustc",
                    severity="error",
                    file=file,
                    line=int(location.group("line")),
                    column=int(location.group("col")),
                    rule=code,
                )
                break
            if not following.strip():
                break


# --------------------------------------------------------------------------------------------------
# rustfmt --check


_DIFF_HEADER = re.compile(r"^Diff in (?P<file>.+?)(?::(?P<line>\d+)| at line (?P<old_line>\d+)):\s*$")
_FORMAT_MESSAGE = "rustfmt would reformat this code"


def parse_rustfmt_check(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`cargo fmt --check` / `rustfmt --check`: a diff per hunk, headed by the file and its first line.

        Diff in /w/src/main.rs:2:

         fn main() {
             let values = vec![1, 2, 3];
        -    let total = add(values.len() as i32,1);
        +    let total = add(values.len() as i32, 1);

    (older rustfmt: `Diff in /w/src/main.rs at line 2:`). The header's line is the hunk's first context line;
    the issue points at the first changed line. Exit 0 with no diff is clean; exit 1 with diffs is findings;
    anything else (rustfmt's `error:` for a file it cannot parse) is not understood.
    """
    hunks: list[tuple[re.Match[str], list[str]]] = []
    for line in clean(output.stdout).splitlines():
        header = _DIFF_HEADER.match(line)
        if header:
            hunks.append((header, []))
        elif hunks:
            hunks[-1][1].append(line)
    issues = [_format_issue(header, hunk, ctx) for header, hunk in hunks]
    stderr_errors = any(line.startswith("error") for line in clean(output.stderr).splitlines())
    clean_exit = output.exit_code in (0, None)
    recognized = not stderr_errors and (clean_exit or bool(issues))
    return ParseResult(issues=issues, recognized=recognized)


def _format_issue(header: re.Match[str], hunk: list[str], ctx: ParseContext) -> Issue:
    # Walk the hunk with the original file's line numbers: context and removed lines advance them.
    original = int(header.group("line") or header.group("old_line"))
    changed: list[int] = []  # where lines go or come, in the original's numbering
    removed: list[int] = []
    for line in hunk:
        if line.startswith("+"):
            changed.append(original)
        elif line.startswith("-"):
            changed.append(original)
            removed.append(original)
            original += 1
        else:
            original += 1
    first = changed[0] if changed else int(header.group("line") or header.group("old_line"))
    changes = "\n".join(line for line in hunk if line.startswith(("-", "+")))
    return make_issue(
        kind="format",
        message=_FORMAT_MESSAGE,
        source="rustfmt",
        severity="warning",
        file=ctx.relpath(header.group("file")),
        line=first,
        end_line=max(removed) if removed else None,
        hint=changes[:MAX_HINT] or None,
    )
