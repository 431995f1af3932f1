"""The Issue record every tool's output is turned into (docs/architecture.md, Records), and the TestFailure record.

Parsers build issues with `make_issue`; `finalize_issues` later fills the edit-stable fingerprint from the
source text, the only step that reads files.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Literal, cast, get_args

from lintel.core.fixes import Fix
from lintel.core.positions import split_lines

IssueKind = Literal["test", "lint", "typecheck", "build", "format", "contract", "timeout", "custom"]
Severity = Literal["error", "warning", "info", "hint"]

SEVERITY_RANK: Mapping[Severity, int] = {"error": 3, "warning": 2, "info": 1, "hint": 0}
_SEVERITY_WORDS: Mapping[str, Severity] = {
    "error": "error",
    "err": "error",
    "fatal": "error",
    "failure": "error",
    "critical": "error",
    "2": "error",
    "warning": "warning",
    "warn": "warning",
    "1": "warning",
    "info": "info",
    "information": "info",
    "note": "info",
    "notice": "info",
    "help": "hint",
    "hint": "hint",
    "style": "info",
    "convention": "info",
    "refactor": "info",
}


def severity_from(word: str | int | None, default: Severity = "warning") -> Severity:
    """Map a tool's severity word (or eslint's 1/2) onto lintel's four levels."""
    if word is None:
        return default
    return _SEVERITY_WORDS.get(str(word).strip().lower(), default)


@dataclass(frozen=True, slots=True)  # slots: 100,000 findings take ~40% less memory
class Issue:
    kind: IssueKind
    signature: str
    message: str
    severity: Severity
    source: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    rule: str | None = None
    hint: str | None = None
    fingerprint: str = ""
    # The tool's own fixes (lintel.core.fixes), and the page documenting the rule where the tool names one.
    fixes: tuple[Fix, ...] = ()
    url: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The wire shape of docs/architecture.md, Records: camelCase keys, absent optionals left out."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "signature": self.signature,
            "fingerprint": self.fingerprint,
            "message": self.message,
            "severity": self.severity,
            "source": self.source,
        }
        optional = {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
            "rule": self.rule,
            "hint": self.hint,
            "url": self.url,
        }
        out.update({k: v for k, v in optional.items() if v is not None})
        if self.fixes:
            out["fixes"] = [fix.to_json() for fix in self.fixes]
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Issue:
        kind = data.get("kind")
        severity = data.get("severity")
        return cls(
            kind=cast(IssueKind, kind) if kind in get_args(IssueKind) else "custom",
            signature=str(data.get("signature", "")),
            fingerprint=str(data.get("fingerprint", "")),
            message=str(data.get("message", "")),
            severity=cast(Severity, severity) if severity in get_args(Severity) else "warning",
            source=str(data.get("source", "")),
            file=data.get("file"),
            line=data.get("line"),
            column=data.get("column"),
            end_line=data.get("endLine"),
            end_column=data.get("endColumn"),
            rule=data.get("rule"),
            hint=data.get("hint"),
            fixes=_fixes_from_json(data.get("fixes")),
            url=data.get("url") if isinstance(data.get("url"), str) else None,
        )


def _fixes_from_json(value: Any) -> tuple[Fix, ...]:
    if not isinstance(value, list):
        return ()
    fixes = (Fix.from_json(item) for item in value if isinstance(item, Mapping))
    return tuple(fix for fix in fixes if fix is not None)


@dataclass(frozen=True)
class TestFailure:
    __test__ = False  # not a pytest test class

    name: str
    message: str
    file: str | None = None
    line: int | None = None
    output: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "message": self.message}
        for key, value in (("file", self.file), ("line", self.line), ("output", self.output)):
            if value is not None:
                out[key] = value
        return out


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def make_signature(kind: str, file: str | None, line: int | None, message: str) -> str:
    """`<kind>:<file>:<line>:<message>`; without file and line, `custom:` + sha256(message)."""
    if file is None and line is None:
        return "custom:" + sha256_hex(message)
    return f"{kind}:{file or ''}:{line if line is not None else ''}:{message}"


# A path before a name (`std::string::String`): rustc run by clippy names types by their full path, by cargo check
# and cargo test by the shortest one (`String`), in errors and lints alike (measured, Rust 1.95; the captures
# `e0277-wordings`, `lint-wordings`).
_PATH_QUALIFIERS = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*::)+(?=[A-Za-z_])")


def comparable_signature(issue: Issue) -> str:
    """The signature with the message's path qualifiers dropped: two wordings of one finding compare equal."""
    if "::" not in issue.message:  # most tools' messages never hold one
        return issue.signature
    return make_signature(issue.kind, issue.file, issue.line, without_path_qualifiers(issue.message))


def without_path_qualifiers(text: str) -> str:
    """`std::string::String` -> `String`: rustc under clippy names types by full path, under cargo check not."""
    return _PATH_QUALIFIERS.sub("", text) if "::" in text else text


def _positive(value: int | None) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 1 else None


def make_issue(  # noqa: PLR0913 - the Issue record's optional fields, by keyword
    *,
    kind: IssueKind,
    message: str,
    source: str,
    severity: Severity = "error",
    file: str | None = None,
    line: int | None = None,
    column: int | None = None,
    end_line: int | None = None,
    end_column: int | None = None,
    rule: str | None = None,
    hint: str | None = None,
    fixes: Iterable[Fix | None] = (),
    url: str | None = None,
) -> Issue:
    """Build an Issue with its signature. `file` must already be root-relative (see ParseContext)."""
    message = message.strip() or "(no message)"
    line = _positive(line)
    return Issue(
        kind=kind,
        signature=make_signature(kind, file, line, message),
        message=message,
        severity=severity,
        source=source,
        file=file,
        line=line,
        column=_positive(column),
        end_line=_positive(end_line),
        end_column=_positive(end_column),
        rule=rule or None,
        hint=hint,
        fixes=tuple(fix for fix in fixes if fix is not None),
        url=url or None,
    )


_WS = re.compile(r"\s+")


def make_fingerprint(kind: str, file: str | None, rule: str | None, line_text: str) -> str:
    """Hash of what survives edits elsewhere: kind, file, rule and the flagged line's normalised text."""
    normalised = _WS.sub(" ", line_text).strip()
    return sha256_hex("\x1f".join((kind, file or "", rule or "", normalised)))


LineReader = Callable[[str, int], str | None]


SOURCE_LINES_MAX_BYTES = 5 * 1024 * 1024


class SourceLines:
    """Reads (and caches) source lines of root-relative files for fingerprints."""

    def __init__(self, root: Path, max_bytes: int = SOURCE_LINES_MAX_BYTES) -> None:
        self._root = root
        self._max_bytes = max_bytes
        self._cache: dict[str, list[str] | None] = {}

    def __call__(self, file: str, line: int) -> str | None:
        if file not in self._cache:
            self._cache[file] = self._load(file)
        lines = self._cache[file]
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]

    def _load(self, file: str) -> list[str] | None:
        path = self._root / file
        try:
            if path.stat().st_size > self._max_bytes:
                return None
            return split_lines(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return None


TextReader = Callable[[str], "str | None"]


class SourceTexts:
    """Reads (and caches) the whole text of root-relative files, as they are on disk: no newline translation, so
    a tool's offsets into the file still count from its start. None for a file too large, unreadable or not UTF-8."""

    def __init__(self, root: Path, max_bytes: int = SOURCE_LINES_MAX_BYTES) -> None:
        self._root = root
        self._max_bytes = max_bytes
        self._cache: dict[str, str | None] = {}

    def __call__(self, file: str) -> str | None:
        if file not in self._cache:
            self._cache[file] = self._load(file)
        return self._cache[file]

    def _load(self, file: str) -> str | None:
        path = self._root / file
        try:
            if path.stat().st_size > self._max_bytes:
                return None
            return path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def finalize_issues(issues: Iterable[Issue], read_line: LineReader) -> list[Issue]:
    """Fill each issue's fingerprint; without a readable line the message stands in for its text.

    The fingerprints of one line are made once per kind and rule: a file of one long line (20 MB of `x = 1; `
    gives ruff an E702 every 7 bytes) would otherwise normalise and hash the whole line for each finding."""
    out: list[Issue] = []
    made: dict[tuple[str, str, str | None, int], str] = {}
    for issue in issues:
        key = (issue.kind, issue.file, issue.rule, issue.line) if issue.file is not None and issue.line else None
        fingerprint = made.get(key) if key is not None else None
        if fingerprint is None:
            text: str | None = None
            if issue.file is not None and issue.line is not None:
                text = read_line(issue.file, issue.line)
            if text is None:
                key = None  # the message stands in: it differs between the line's findings
                text = issue.message
            fingerprint = make_fingerprint(issue.kind, issue.file, issue.rule, text)
            if key is not None:
                made[key] = fingerprint
        out.append(replace(issue, fingerprint=fingerprint))
    return out


@dataclass(frozen=True)
class ParseContext:
    """Where a tool ran and which root its paths are reported against. Path arithmetic only, no I/O."""

    cwd: str
    root: str
    # The text of a root-relative file, for a tool whose fixes are offsets into it (golangci-lint): the caller
    # passes a reader in, so parsers do no I/O of their own. None: no text at hand, such fixes are left out.
    read_text: TextReader | None = field(default=None, compare=False)

    def relpath(self, printed: str) -> str:
        """Turn a path as the tool printed it into a root-relative POSIX path.

        Paths outside the root stay absolute (with `/`), so nothing is silently misattributed.
        """
        # A tool names the same file once per finding: tens of thousands of times in a large report.
        return _relpath(self.cwd, self.root, printed)


@functools.lru_cache(maxsize=8192)
def _relpath(cwd: str, root: str, printed: str) -> str:
    text = printed.strip()
    if text.startswith("file://"):
        text = text[len("file://") :]
    text = text.replace("\\", "/")
    base = PurePosixPath(cwd.replace("\\", "/"))
    path = PurePosixPath(text)
    if not path.is_absolute():
        path = base / path
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if len(parts) > 1:
                parts.pop()
        elif part != ".":
            parts.append(part)
    normal = PurePosixPath(*parts) if parts else PurePosixPath("/")
    top = PurePosixPath(root.replace("\\", "/"))
    try:
        rel = normal.relative_to(top)
    except ValueError:
        return str(normal)
    return str(rel) if str(rel) != "." else ""


@dataclass
class ParseResult:
    """What a parser made of one run: issues, test failures, and whether it recognised the output at all.

    `recognized` lets the check layer tell "the tool said nothing is wrong" from "the tool printed
    something we could not read" (which is not_checked, never clean).
    """

    issues: list[Issue] = field(default_factory=list)
    failures: list[TestFailure] = field(default_factory=list)
    recognized: bool = False
