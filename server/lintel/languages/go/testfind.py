"""go test's tests found without building: the Test, Benchmark, Fuzz and Example (with an `// Output:` comment)
functions of the `_test.go` files go builds here, with the right signatures, and the `t.Run` subtests named by a
string literal, named as go names them (`<import path>.TestX/sub_case`: go's rewrite of the subtest's name)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lintel.core.testitems import FoundTest
from lintel.languages.base import Project
from lintel.languages.go.buildtags import builds
from lintel.languages.go.testselect import import_path
from lintel.languages.testselect.base import relative

_FUNC = re.compile(r"^func[ \t]+(?P<name>\w+)[ \t]*\((?P<params>[^()]*)\)(?P<results>[^{\n]*)\{", re.MULTILINE)
_IMPORT = re.compile(r'(?:^|[\s(])(?:import\s+)?(?P<alias>[\w.]+\s+)?"testing"', re.MULTILINE)
_OUTPUT = re.compile(r"//[ \t]*(?:unordered[ \t]+)?output:", re.IGNORECASE)
# The kinds `go test -list` lists, by the type of their one parameter (Example: none).
_KINDS = {"Test": "T", "Benchmark": "B", "Fuzz": "F", "Example": None}
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"', "'": "'"}
_QUOTED = {7: "\\a", 8: "\\b"}


def discover(project: Project, files: Sequence[Path], texts: Mapping[Path, str]) -> list[FoundTest]:
    """LanguageSpec.tests.discover for go test: each `_test.go` file go would build, its tests and their literal
    subtests, in source order."""
    root = project.root.resolve()
    found: list[FoundTest] = []
    packages: dict[Path, str | None] = {}
    for file in files:
        if not file.name.endswith("_test.go") or _hidden(file, root):
            continue
        try:
            text = texts[file] if file in texts else file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not builds(file.name, text):
            continue
        if file.parent not in packages:
            packages[file.parent] = import_path(file.parent, root)
        package = packages[file.parent]
        if package is not None:
            found += file_tests(project, file, text, package)
    return found


def _hidden(file: Path, root: Path) -> bool:
    """go skips files and folders whose names start with `.` or `_`."""
    try:
        parts = file.relative_to(root).parts
    except ValueError:
        return True
    return any(part.startswith((".", "_")) for part in parts)


def file_tests(project: Project, file: Path, text: str, package: str) -> list[FoundTest]:
    source = _Source(text)
    file_id = relative(project, file)
    end_line, end_column = source.position(len(text))
    found = [FoundTest(file_id, file.name, file, 1, 1, end_line, end_column, "file")]
    testing = _testing_name(text)
    if testing is None:
        return found
    for match in _FUNC.finditer(source.masked):
        kind = _kind(match, testing, source)
        if kind is None:
            continue
        name = match.group("name")
        end = source.closing(match.end() - 1)
        test_id = f"{package}.{name}"
        found.append(source.record(test_id, name, file, match.start(), end, file_id))
        if kind == "Test":
            variable = _variable(match.group("params"))
            if variable is not None:
                found += _Subtests(source, file, testing).within(match.end(), end, variable, test_id)
    return found


def _testing_name(text: str) -> str | None:
    """The name the file gives the `testing` package (`.` for a dot import), None when it does not import it."""
    match = _IMPORT.search(text)
    if match is None:
        return None
    alias = (match.group("alias") or "").strip()
    return None if alias == "_" else alias or "testing"


def _type(testing: str, letter: str) -> str:
    qualified = letter if testing == "." else re.escape(testing) + r"\s*\.\s*" + letter
    return r"\*\s*" + qualified


def _kind(match: re.Match[str], testing: str, source: _Source) -> str | None:
    name, params, results = match.group("name", "params", "results")
    if results.strip():
        return None
    for prefix, letter in _KINDS.items():
        if not name.startswith(prefix) or (len(name) > len(prefix) and name[len(prefix)].islower()):
            continue
        if letter is None:
            body = source.text[match.end() : source.closing(match.end() - 1)]
            return prefix if not params.strip() and _OUTPUT.search(body) else None
        if name == "TestMain":
            return None
        return prefix if re.fullmatch(rf"\s*(?:\w+\s+)?{_type(testing, letter)}\s*", params) else None
    return None


def _variable(params: str) -> str | None:
    words = params.split()
    return words[0] if len(words) > 1 and words[0] != "_" else None


def rewrite(name: str) -> str:
    """go's testing.rewrite: white space as `_`, a rune it cannot print as its escape."""
    out: list[str] = []
    for char in name:
        code = ord(char)
        if _is_space(code):
            out.append("_")
        elif not char.isprintable():
            out.append(_quote(code))
        else:
            out.append(char)
    return "".join(out)


def _is_space(code: int) -> bool:
    if code < 0x2000:
        return code in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680)
    return code <= 0x200A or code in (0x2028, 0x2029, 0x202F, 0x205F, 0x3000)


def _quote(code: int) -> str:
    """strconv.QuoteRune's escape of a rune it cannot print, without the quotes."""
    if code in _QUOTED:
        return _QUOTED[code]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _literal(text: str) -> str | None:
    """The value of a Go string literal (raw or interpreted), None when it is not one."""
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text[1:-1].replace("\r", "")
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        return None
    out: list[str] = []
    body, index = text[1:-1], 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        kind = body[index + 1 : index + 2]
        if kind in _ESCAPES:
            out.append(_ESCAPES[kind])
            index += 2
        elif kind in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[kind]
            out.append(chr(int(body[index + 2 : index + 2 + width], 16)))
            index += 2 + width
        else:
            out.append(chr(int(body[index + 1 : index + 4], 8)))
            index += 4
    return "".join(out)


@dataclass
class _Source:
    """A file's text and the same text with its comments blanked and its literals' contents blanked (structure is
    read there), and its line starts."""

    text: str
    masked: str = ""
    literals: dict[int, int] = field(default_factory=dict)  # a literal's start -> its end (exclusive)
    starts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.masked = self._mask()
        self.starts = [0, *(m.end() for m in re.finditer("\n", self.text))]

    def _mask(self) -> str:
        text, out, index = self.text, list(self.text), 0
        pattern = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"?|`[^`]*`?|\'(?:[^\'\\\n]|\\.)*\'?', re.S)
        while True:
            match = pattern.search(text, index)
            if match is None:
                return "".join(out)
            start, end = match.span()
            inner = (start, end) if text[start] == "/" else (start + 1, end - 1)
            for position in range(*inner):
                if out[position] != "\n":
                    out[position] = " "
            if text[start] != "/":
                self.literals[start] = end
            index = max(end, start + 1)

    def closing(self, opening: int) -> int:
        """The index after the bracket that closes the one at `opening` (the end of the text when none does)."""
        pairs = {"{": "}", "(": ")"}
        want, depth = self.masked[opening], 0
        for index in range(opening, len(self.masked)):
            char = self.masked[index]
            if char == want:
                depth += 1
            elif char == pairs[want]:
                depth -= 1
                if depth == 0:
                    return index + 1
        return len(self.masked)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based line and character column of an offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def record(self, test_id: str, label: str, file: Path, start: int, end: int, parent: str) -> FoundTest:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return FoundTest(test_id, label, file, line, column, end_line, end_column, "test", parent)


class _Subtests:
    """The literal `t.Run("name", …)` calls of a test's body, nested as they run."""

    def __init__(self, source: _Source, file: Path, testing: str) -> None:
        self.source = source
        self.file = file
        self.literal_func = re.compile(rf"\s*,\s*func\s*\(\s*(?P<var>\w+)\s+{_type(testing, 'T')}\s*\)\s*\{{")

    def within(self, start: int, end: int, variable: str, parent: str) -> Iterator[FoundTest]:
        source, seen = self.source, dict[str, int]()
        call = re.compile(rf"\b{re.escape(variable)}\s*\.\s*Run\s*\(\s*")
        index = start
        while (match := call.search(source.masked, index, end)) is not None:
            call_end = source.closing(match.start() + match.group().index("("))
            index = call_end
            literal_end = source.literals.get(match.end())
            value = _literal(source.text[match.end() : literal_end]) if literal_end is not None else None
            if value is None:
                continue
            name = _unique(seen, f"{parent}/{rewrite(value)}")
            yield source.record(name, value, self.file, match.start(), call_end, parent)
            body = self.literal_func.match(source.masked, literal_end or 0, call_end)
            if body is not None:
                yield from self.within(body.end(), source.closing(body.end() - 1), body.group("var"), name)


def _unique(seen: dict[str, int], name: str) -> str:
    """go's matcher.unique: a name used again gets `#01`, `#02`…; an empty one is `#00`."""
    count = seen.get(name, 0)
    seen[name] = count + 1
    if count == 0 and not name.endswith("/"):
        return name
    return f"{name}#{count:02d}"
