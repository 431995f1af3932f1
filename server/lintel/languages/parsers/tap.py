"""TAP (the Test Anything Protocol, versions 13 and 14), as node's test runner prints it with `--test-reporter=tap`
and as any other TAP producer does: failed test points become TestFailures and `test` issues.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from lintel.core.issues import ParseContext, ParseResult, TestFailure
from lintel.languages.parsers.base import ToolOutput
from lintel.languages.parsers.jscommon import failure_issue, frame_line, script_text, squeeze
from lintel.languages.parsers.jstests import NAME_SEPARATOR

_TAP_VERSION = re.compile(r"^TAP version \d+")
_TAP_POINT = re.compile(r"^(?P<indent> *)(?P<status>ok|not ok)\b(?: (?P<number>\d+))?(?: -)? ?(?P<description>.*)$")
_TAP_PLAN = re.compile(r"^ *\d+\.\.\d+")
_TAP_SUBTEST = re.compile(r"^(?P<indent> *)# Subtest: (?P<name>.*)$")
_TAP_COMMENT = re.compile(r"^ *# ?(?P<text>.*)$")
_TAP_SUMMARY = re.compile(r"^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$")
_TAP_DIRECTIVE = re.compile(r"\s+#\s*(?P<word>TODO|SKIP)\b.*$", re.IGNORECASE)
_YAML_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):(?: (?P<value>.*))?$")
_ERROR_LINE = re.compile(r"^(?:\w+)?Error\b.*:")
# Where bats (1.13, measured) says a test failed: in the comments after it (`--tap`) or its YAML message (tap13).
_BATS_PLACE = re.compile(r"^\(in test file (?P<file>.+), line (?P<line>\d+)\)$")
# The YAML keys that explain a failure: node's `error`, TAP 13's `message`.
_MESSAGE_KEYS = ("error", "message")
_LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?$")


def parse_node_tap(output: ToolOutput, ctx: ParseContext, source: str = "node --test") -> ParseResult:
    """node's test runner with `--test-reporter=tap` (the default reporter when stdout is not a TTY in node 20).

        # Subtest: cart
            # Subtest: takes the percentage off
            not ok 1 - takes the percentage off
              ---
              location: '/w/ui/cart.test.js:16:5'
              failureType: 'testCodeFailure'
              error: |-
                10% off 200 is 180

                181 !== 180
              stack: |-
                TestContext.<anonymous> (file:///w/ui/cart.test.js:17:14)
              ...
            1..1
        not ok 1 - cart
          ---
          failureType: 'subtestsFailed'
          ...

    Subtests are indented four spaces per level; a parent whose only failure is its failing children is
    not reported again, nor is a failing `# TODO` test. A failure's line is the first stack frame in the
    test's file (the assertion that failed), else the test's `location`. A file that fails to load is one
    failure named after the file, with the error node printed as `#` comments before it.

    Other TAP producers (a shell script, bats) explain a failure in `#` comments after it, or in a YAML block
    with `message:` and `at: file:line`; those are read when there is no node `error:`. bats 1.13 names the
    place inside that explanation (`(in test file test/math.bats, line 10)`), which then locates the failure.
    """
    reader = _TapReader(script_text(output.stdout).splitlines(), ctx)
    reader.read()
    failures = reader.failures
    issues = [failure_issue(failure, source) for failure in failures]
    recognized = reader.recognized and not (output.exit_code not in (0, None) and not failures)
    return ParseResult(issues=issues, failures=failures, recognized=recognized)


def parse_tap(output: ToolOutput, ctx: ParseContext) -> ParseResult:
    """TAP from any producer (a shell script, bats, prove): read as node's, its issues' source `tap`."""
    return parse_node_tap(output, ctx, source="tap")


@dataclass
class _TapReader:
    """One pass over TAP lines, keeping the subtest names in scope and the comments around test points."""

    lines: list[str]
    ctx: ParseContext
    failures: list[TestFailure] = field(default_factory=list)
    recognized: bool = False
    index: int = 0
    names: dict[int, str] = field(default_factory=dict)  # indent -> the subtest announced there
    child_failed: dict[int, bool] = field(default_factory=dict)  # indent -> a deeper test point failed
    comments: list[str] = field(default_factory=list)  # since the last test point (node: a file's load error)
    trailing: list[str] | None = None  # after a failure nothing has explained yet (other producers)

    def read(self) -> None:
        while self.index < len(self.lines):
            line = self.lines[self.index]
            self.index += 1
            self._line(line)
        self._close_failure()

    def _line(self, line: str) -> None:
        if _TAP_VERSION.match(line) or _TAP_PLAN.match(line):
            self.recognized = True
            self._close_failure()
            return
        subtest = _TAP_SUBTEST.match(line)
        if subtest:
            self._close_failure()
            depth = len(subtest.group("indent"))
            self.names = {d: n for d, n in self.names.items() if d < depth}
            self.names[depth] = _tap_unescape(subtest.group("name"))
            return
        point = _TAP_POINT.match(line)
        if point is None:
            comment = _TAP_COMMENT.match(line)
            if comment and not _TAP_SUMMARY.match(comment.group("text")):
                self.comments.append(comment.group("text"))
                if self.trailing is not None:
                    self.trailing.append(comment.group("text"))
            return
        self._close_failure()
        self.recognized = True
        self._point(point)
        self.comments = []

    def _point(self, point: re.Match[str]) -> None:
        depth = len(point.group("indent"))
        yaml, self.index = _tap_yaml(self.lines, self.index, depth)
        had_failing_children = self.child_failed.pop(depth, False)
        description = point.group("description")
        directive = _TAP_DIRECTIVE.search(description)
        if directive:
            description = description[: directive.start()]
        # A failing TODO is expected; bats 1.13's tap13 prints skipped tests as `not ok N name # SKIP reason`.
        if point.group("status") == "ok" or directive:
            return
        # node says why a test failed; other producers only nest, so a parent of failures is theirs.
        failure_type = yaml.get("failureType")
        if failure_type == "subtestsFailed" or (failure_type is None and had_failing_children):
            return
        ancestors = [self.names[d] for d in sorted(self.names) if d < depth]
        own = _tap_unescape(description.strip()) or "test"
        if own.startswith("/"):  # a file that failed as a whole is named by its absolute path
            own = self.ctx.relpath(own)
        name = NAME_SEPARATOR.join([*ancestors, own])
        self.failures.append(_tap_failure(name, yaml, self.comments, self.ctx))
        if not any(key in yaml for key in _MESSAGE_KEYS):
            self.trailing = []
        for level in range(depth):
            self.child_failed[level] = True

    def _close_failure(self) -> None:
        """The comments after the last failure, when its YAML said nothing, are its message."""
        trailing, self.trailing = self.trailing, None
        if not trailing or not self.failures:
            return
        failure = self.failures[-1]
        message, file, line = _placed(trailing, failure.file, failure.line, self.ctx)
        message = message or failure.message
        output = "\n".join(filter(None, [*trailing, failure.output]))
        self.failures[-1] = replace(failure, message=message, file=file, line=line, output=output or None)


def _tap_unescape(text: str) -> str:
    return text.replace("\\#", "#").replace("\\\\", "\\")


def _tap_yaml(lines: list[str], index: int, depth: int) -> tuple[dict[str, str], int]:
    """The YAML diagnostics block after a test point (`---` ... `...`), as flat key -> text."""
    if index >= len(lines) or lines[index].strip() != "---":
        return {}, index
    body: list[str] = []
    index += 1
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.strip() == "..." and len(line) - len(line.lstrip(" ")) <= depth + 2:
            break
        body.append(line)
    return _flat_yaml(body), index


def _flat_yaml(body: list[str]) -> dict[str, str]:
    """Just enough YAML for node's diagnostics: top-level scalars, quoted scalars and `|`/`|-` blocks."""
    if not body:
        return {}
    base = min(len(line) - len(line.lstrip(" ")) for line in body if line.strip())
    out: dict[str, str] = {}
    index = 0
    while index < len(body):
        line = body[index]
        index += 1
        if len(line) - len(line.lstrip(" ")) != base:
            continue
        match = _YAML_KEY.match(line[base:])
        if not match:
            continue
        value = (match.group("value") or "").strip()
        if value[:1] in ("|", ">"):
            block: list[str] = []
            while index < len(body) and (
                not body[index].strip() or len(body[index]) - len(body[index].lstrip(" ")) > base
            ):
                block.append(body[index])
                index += 1
            indents = [len(b) - len(b.lstrip(" ")) for b in block if b.strip()]
            cut = min(indents) if indents else 0
            joined = "\n".join(b[cut:] for b in block)
            out[match.group("key")] = joined.rstrip() if value.endswith("-") else joined
        else:
            out[match.group("key")] = _yaml_scalar(value)
    return out


def _yaml_scalar(value: str) -> str:
    if value == "~":
        return ""
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:
            return value[1:-1]
        return decoded if isinstance(decoded, str) else value[1:-1]
    return value


def _tap_failure(name: str, yaml: Mapping[str, str], comments: list[str], ctx: ParseContext) -> TestFailure:
    file: str | None = None
    line: int | None = None
    location = _LOCATION.match((yaml.get("location") or yaml.get("at") or "").strip())
    if location:
        file = ctx.relpath(location.group("file"))
        line = int(location.group("line"))
    line = frame_line(yaml.get("stack", ""), file, ctx) or line
    message, file, line = _placed((yaml.get("error") or yaml.get("message") or "").splitlines(), file, line, ctx)
    details = "\n".join(f"{key}: {value}" for key, value in yaml.items() if key != "duration_ms")
    # A file that crashed before its tests ran says only 'test failed'; node printed the cause as comments.
    if "exitCode" in yaml and comments:
        cause = next((c.strip() for c in comments if _ERROR_LINE.match(c.strip())), None)
        message = squeeze(cause) if cause else message
        details = "\n".join([*comments, details])
    return TestFailure(
        name=name,
        message=message or "test failed",
        file=file,
        line=line,
        output=details or None,
    )


def _placed(
    lines: list[str], file: str | None, line: int | None, ctx: ParseContext
) -> tuple[str, str | None, int | None]:
    """A failure's explanation without bats' `(in test file F, line N)`, which places it when nothing else did."""
    kept: list[str] = []
    for text in lines:
        place = _BATS_PLACE.match(text.strip())
        if place is None:
            kept.append(text)
        elif file is None:
            file, line = ctx.relpath(place.group("file")), int(place.group("line"))
    return squeeze("\n".join(kept)), file, line
