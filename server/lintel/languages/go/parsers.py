"""Parsers for the Go tools' findings: golangci-lint's JSON, go vet's text, `gofmt -l`; go test's events are read
by `gotests`, with the located-line reading shared from here.

Paths: golangci-lint (run with --path-mode=abs) and `go test -fullpath` print absolute paths; go vet, gofmt and
the go command's build output print them relative to the directory the tool ran in, sometimes as `./x.go`.
Compile errors are issues of kind `build` whichever tool hit them: the package does not compile, so no
analysis of it happened.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lintel.core.issues import Issue, IssueKind, ParseContext, ParseResult, make_issue, severity_from
from lintel.languages.go.gofix import golangci_fixes
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.common import clean, first_time, json_int

# `file.go:12:5: message` as the go command, vet and gofmt print it; vet prefixes the errors of its own type
# check with `vet: `. These paths are relative to the cwd, so no whitespace: that keeps prose which merely
# contains a location ("could not import x (setup/setup.go:3:8: ...)") from passing for one. The optional
# drive letter keeps Windows paths whole.
LOCATED = re.compile(
    r"^(?P<vet>vet: )?(?P<file>(?:[A-Za-z]:)?[^\s:]*\.go):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<message>.*)$"
)


@dataclass
class Located:
    """One `file:line:col: message` line plus the tab-indented lines that continue it."""

    file: str
    line: int
    column: int | None
    message: str
    vet_error: bool


def located_issues(
    located: Iterable[Located],
    source: str,
    ctx: ParseContext,
    kind: Callable[[Located], IssueKind] = lambda _: "build",
) -> list[Issue]:
    """One error issue per distinct located line (the go command repeats a compile error per package)."""
    issues: list[Issue] = []
    seen: set[tuple[Any, ...]] = set()
    for loc in located:
        issue = make_issue(
            kind=kind(loc),
            message=loc.message,
            source=source,
            severity="error",
            file=ctx.relpath(loc.file),
            line=loc.line,
            column=loc.column,
        )
        if first_time(issue, seen):
            issues.append(issue)
    return issues


def located_lines(lines: Iterable[str], unknown: list[str] | None = None) -> list[Located]:
    """Located lines in go-command style output; `# pkg` headers are skipped, anything else is `unknown`."""
    found: list[Located] = []
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("# "):
            continue
        match = LOCATED.match(line)
        if match:
            found.append(
                Located(
                    file=match.group("file"),
                    line=int(match.group("line")),
                    column=int(match.group("col")) if match.group("col") else None,
                    message=match.group("message").strip(),
                    vet_error=match.group("vet") is not None,
                )
            )
        elif line.startswith("\t") and found:  # "to add it:\n\tgo get example.net/x", "have (...)\n\twant (...)"
            found[-1].message = f"{found[-1].message}\n{line.strip()}"
        elif unknown is not None:
            unknown.append(line)
    return found


# --------------------------------------------------------------------------------------------------
# The go command's errors about the module itself (go.mod, go.sum, vendor/), printed before any package is
# loaded, so no tool of the project got to run (measured, go 1.26; tests/captures/README.md):
#
#   go: updates to go.mod needed; to update it:
#   \tgo mod tidy
#   go: golang.org/x/text@v0.21.0: missing go.sum entry for go.mod file; to add it:
#   \tgo mod download golang.org/x/text
#   go: inconsistent vendoring in /w/m:
#   \texample.com/a@v1.0.0: is explicitly required in go.mod, but not marked as explicit in vendor/modules.txt
#   <blank>
#   \tTo sync the vendor directory, run:
#   \t\tgo mod vendor
#   go: errors parsing go.mod:
#   go.mod:5: unknown directive: requirez
#
# Each is an error issue of kind `build` at go.mod, in the go command's words: the module is broken as code that
# does not compile is, something to fix in the project (its own CI fails the same way), not a tool lintel could
# not run. `go: go.mod requires go >= 1.99 (running go 1.26.8; GOTOOLCHAIN=local)` is not one of them: the
# machine's toolchain is too old for the project, so the check stays not_checked.
_MODULE_ERROR = re.compile(
    r"^go: (?P<message>.*?\b(?:updates to go\.(?:mod|sum) needed|missing go\.sum entry|inconsistent vendoring"
    r"|errors parsing go\.(?:mod|work)).*?)\s*$"
)
# `inconsistent vendoring in /w/m:` names the module's folder; the issue goes to its go.mod instead.
_MODULE_FOLDER = re.compile(r" in (?P<folder>\S+?):$")
_MODFILE_LINE = re.compile(r"^(?P<file>\S*go\.(?:mod|work)):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<message>.+)$")


def module_errors(lines: list[str], source: str, ctx: ParseContext) -> tuple[list[Issue], list[str]]:
    """The go command's module errors among `lines` as `build` issues at go.mod, and the lines left over."""
    issues: list[Issue] = []
    rest: list[str] = []
    index = 0
    while index < len(lines):
        head = _MODULE_ERROR.match(lines[index])
        index += 1
        if head is None:
            rest.append(lines[index - 1])
            continue
        block: list[str] = []
        while index < len(lines) and _continues(lines, index):
            block.append(lines[index])
            index += 1
        issues.extend(_module_issues(head.group("message"), block, source, ctx))
    return issues, rest


def _continues(lines: list[str], index: int) -> bool:
    """Tab-indented detail, a go.mod line of a parse error, or a blank line between two tab-indented ones."""
    line = lines[index]
    if line.startswith("\t") or _MODFILE_LINE.match(line):
        return True
    return not line.strip() and index + 1 < len(lines) and lines[index + 1].startswith("\t")


def _module_issues(message: str, block: list[str], source: str, ctx: ParseContext) -> Iterator[Issue]:
    located = [m for m in map(_MODFILE_LINE.match, block) if m]
    for where in located:  # `errors parsing go.mod:` then one line per error, at its place
        column = where.group("col")
        yield make_issue(
            kind="build",
            message=where.group("message"),
            source=source,
            file=ctx.relpath(where.group("file")),
            line=int(where.group("line")),
            column=int(column) if column else None,
        )
    if located:
        return
    folder = _MODULE_FOLDER.search(message)
    if folder is not None:
        message = message[: folder.start()] + ":"
    # The first paragraph says what is wrong (and how to fix it, for tidy and go.sum); vendoring's advice
    # follows a blank line and becomes the hint.
    paragraphs = "\n".join(line.strip() for line in block).split("\n\n")
    yield make_issue(
        kind="build",
        message=" ".join([message, "; ".join(paragraphs[0].split("\n"))]).strip(),
        source=source,
        file=ctx.relpath(f"{folder.group('folder')}/go.mod" if folder else "go.mod"),
        hint="\n".join(paragraphs[1:]).strip() or None,
    )


# --------------------------------------------------------------------------------------------------
# golangci-lint


def parse_golangci_lint(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """golangci-lint v2 `run --output.json.path=stdout`: one JSON document on stdout.

        {"Issues":[{"FromLinter":"staticcheck","Text":"S1003: should use strings.Contains(s, sub) instead",
                    "Severity":"","SourceLines":["\\treturn strings.Index(s, sub) != -1"],
                    "Pos":{"Filename":"/w/store.go","Offset":420,"Line":20,"Column":9},
                    "SuggestedFixes":[{"Message":"Simplify use of strings.Index","TextEdits":[...]}]}],
         "Report":{"Linters":[{"Name":"errcheck","Enabled":true},...]}}

    rule is FromLinter (what `//nolint:staticcheck` and `linters.enable` name); the linter's own code
    (`S1003`, govet's `printf:`) stays at the head of the message, as golangci-lint prints it. An empty
    Severity (the default, unless the config's `severity` section sets one) is an error: golangci-lint
    fails the run for it. `typecheck` issues are compile errors (kind `build`); for a package that does
    not load at all golangci-lint puts the go command's `file:line:col: message` lines in Text and points
    Pos at line 1, so each of those lines becomes an issue at its own position. A module the go command
    refuses to load (go.mod, go.sum, vendor/) leaves no JSON, only golangci-lint's error on stderr quoting the
    go command's: read as go vet reads it (`module_errors`).
    """
    report = _golangci_report(clean(output.stdout))
    if report is None:
        # A module the go command refused to load: golangci-lint quotes the go command's stderr in its own.
        module, _ = module_errors(_quoted_go_stderr(clean(output.stderr)), "golangci-lint", ctx)
        return ParseResult(issues=module, recognized=bool(module))
    raw_issues = report.get("Issues")
    issues: list[Issue] = []
    seen: set[tuple[Any, ...]] = set()
    for raw in raw_issues if isinstance(raw_issues, list) else []:
        if isinstance(raw, dict):
            for issue in _golangci_issues(raw, ctx):
                if first_time(issue, seen):
                    issues.append(issue)
    meta = report.get("Report")
    error = meta.get("Error") if isinstance(meta, dict) else None
    # A run golangci-lint itself calls failed (Report.Error) is explained only by issues it still found.
    recognized = bool(issues) or not error
    return ParseResult(issues=issues, recognized=recognized)


# `level=error msg="Running error: context loading failed: failed to load packages: ... stderr: go: inconsistent
# vendoring in /w/m:\n\texample.com/a@v1.0.0: ..."` (golangci-lint 2.15): the message is a Go-quoted string.
_LOGFMT_MESSAGE = re.compile(r'\bmsg="(?P<text>(?:[^"\\]|\\.)*)"')
_GO_ESCAPE = re.compile(r"\\(.)")
_GO_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _quoted_go_stderr(stderr: str) -> list[str]:
    """The go command's stderr that golangci-lint quoted in its error message, as lines; [] without one."""
    for found in _LOGFMT_MESSAGE.finditer(stderr):
        text = _GO_ESCAPE.sub(lambda m: _GO_ESCAPES.get(m.group(1), m.group(0)), found.group("text"))
        start = text.find("stderr: go: ")
        if start >= 0:
            return text[start + len("stderr: ") :].splitlines()
    return []


def _golangci_report(stdout: str) -> Mapping[str, Any] | None:
    """The `{"Issues": ...}` document, wherever it starts (a config may add a text output before it)."""
    decoder = json.JSONDecoder()
    start = stdout.find('{"Issues"')
    while start != -1:
        try:
            document, _ = decoder.raw_decode(stdout, start)
        except ValueError:
            document = None
        if isinstance(document, dict) and "Issues" in document:
            return document
        start = stdout.find('{"Issues"', start + 1)
    return None


_COULD_NOT_IMPORT = re.compile(r"^could not import \S+ \((?P<inner>.*)\)$", re.DOTALL)


def _golangci_issues(raw: Mapping[str, Any], ctx: ParseContext) -> Iterator[Issue]:
    linter = str(raw.get("FromLinter") or "") or None
    text = str(raw.get("Text") or "")
    pos = raw.get("Pos")
    pos = pos if isinstance(pos, dict) else {}
    filename = str(pos.get("Filename") or "")
    file = ctx.relpath(filename) if filename else None
    line, column = json_int(pos.get("Line")), json_int(pos.get("Column"))
    line_range = raw.get("LineRange")
    end_line = json_int(line_range.get("To")) if isinstance(line_range, dict) else None
    if linter == "typecheck":
        # The go command's lines in Text are relative to the directory golangci-lint ran in; a package that
        # could not be imported wraps the go command's error (`could not import P (main.go:6:2: missing go.sum
        # entry ...)`), which is read as go vet and go test print it, so the three tools agree on it.
        wrapped = _COULD_NOT_IMPORT.match(text)
        located = located_lines((wrapped.group("inner") if wrapped else text).splitlines())
        if located:
            for loc in located:
                yield make_issue(
                    kind="build",
                    message=loc.message,
                    source="golangci-lint",
                    severity="error",
                    file=ctx.relpath(loc.file),
                    line=loc.line,
                    column=loc.column,
                    rule=linter,
                )
            return
        yield make_issue(
            kind="build",
            message=text.lstrip(": "),
            source="golangci-lint",
            severity="error",
            file=file,
            line=line,
            column=column,
            rule=linter,
        )
        return
    yield make_issue(
        kind="lint",
        message=text,
        source="golangci-lint",
        severity=severity_from(str(raw.get("Severity") or "") or None, default="error"),
        file=file,
        line=line,
        column=column,
        end_line=end_line if end_line is not None and line is not None and end_line > line else None,
        rule=linter,
        hint=_golangci_hint(raw),
        fixes=golangci_fixes(raw, file, ctx),
    )


def _golangci_hint(raw: Mapping[str, Any]) -> str | None:
    fixes = raw.get("SuggestedFixes")
    messages = [
        str(fix.get("Message")).strip()
        for fix in (fixes if isinstance(fixes, list) else [])
        if isinstance(fix, dict) and fix.get("Message")
    ]
    return "; ".join(messages) or None


# --------------------------------------------------------------------------------------------------
# go vet


def parse_go_vet(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`go vet ./...` (text, on stderr), paths relative to the cwd. go 1.26 prints findings bare and puts
    `# pkg` headers only above a package that failed to type-check (older versions head every package):

        # example.com/lintelgo/sub
        # [example.com/lintelgo/sub]
        vet: sub/broken.go:5:9: undefined: missing
        greet.go:17:2: unreachable code
        setup/setup.go:3:8: no required module provides package example.net/x; to add it:
        \tgo get example.net/x

    Findings are kind `typecheck`; `vet: ` lines (the package did not type-check), imports no module
    provides and the go command's module errors (`module_errors`) are `build`. The text does not name the
    analyzer, so there is no rule. A failing run is recognised only when it printed at
    least one located line ("matched no packages" is not a clean run).
    """
    unknown: list[str] = []
    lines = [*clean(output.stdout).splitlines(), *clean(output.stderr).splitlines()]
    module, lines = module_errors(lines, "go vet", ctx)
    issues = module + located_issues(located_lines(lines, unknown), "go vet", ctx, kind=vet_kind)
    recognized = bool(issues) or (output.exit_code in (0, None) and not unknown)
    return ParseResult(issues=issues, recognized=recognized)


# An import the module cannot provide: the go command's words, printed where the import is, before vet runs.
_IMPORT_NOT_PROVIDED = re.compile(
    r"^(?:no required module provides|missing go\.sum entry for module providing) package"
)


def vet_kind(loc: Located) -> IssueKind:
    """vet's findings are `typecheck`; what stopped a package from loading or type-checking is `build`, as go
    test and golangci-lint report the same line."""
    return "build" if loc.vet_error or _IMPORT_NOT_PROVIDED.match(loc.message) else "typecheck"


# --------------------------------------------------------------------------------------------------
# gofmt -l

_FORMAT_MESSAGE = "gofmt would reformat this file"


def parse_gofmt_list(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """`gofmt -l .`: one path per line (relative to the cwd) for every file gofmt would change, exit 0;
    syntax errors go to stderr as `broken.go:3:14: expected ')', found '{'` with exit 2.

        double.go
        sub/legacy.go

    A listed file is a `format` issue with no line (gofmt -l says only which files); a syntax error is a
    `build` issue at its position.
    """
    issues: list[Issue] = []
    unknown: list[str] = []
    for raw in clean(output.stdout).splitlines():
        printed = raw.strip()
        if not printed:
            continue
        if not printed.endswith(".go"):
            unknown.append(printed)
            continue
        issues.append(
            make_issue(
                kind="format",
                message=_FORMAT_MESSAGE,
                source="gofmt",
                severity="warning",
                file=ctx.relpath(printed),
                hint=f"gofmt -w {printed}",
            )
        )
    issues += located_issues(located_lines(clean(output.stderr).splitlines(), unknown), "gofmt", ctx)
    recognized = not unknown and (output.exit_code in (0, None) or bool(issues))
    return ParseResult(issues=issues, recognized=recognized)
