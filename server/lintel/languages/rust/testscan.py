"""The tests a cargo project's sources declare, read without building: the packages and targets a file belongs
to, and in each file the `#[test]` functions and the inline modules around them, with their libtest names.

A test is a function under an attribute whose path ends in `test` (`#[test]`, `#[tokio::test]`,
`#[async_std::test]`, `#[rstest]`) at module level (libtest never collects a function nested in another), named
by its module path: the file's place in its target (`src/a/b.rs` is `a::b`), then the inline `mod x { … }`
blocks around it. `#[rstest]` with `#[case(…)]` attributes is a module of `case_1`, `case_2`… tests. Tests that
macros generate (`proptest! { … }`, `#[test_case(…)]`, rstest's `#[values]`) are not found: their names are
the macro's to choose.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lintel.core.tomlread import read_toml
from lintel.languages.base import Project
from lintel.languages.rust.tools import workspace as cargo_workspace

Target = tuple[str, ...]  # `--lib`, `--bin x`, `--test x`
Span = tuple[int, int, int, int]  # first line, first column, last line, end column (1-based, end exclusive)


@dataclass(frozen=True)
class RustModule:
    """An inline `mod x { … }` (or an rstest function with cases) that holds tests."""

    name: str  # its libtest path (`shapes::tests`)
    span: Span


@dataclass(frozen=True)
class RustTest:
    crate: str  # the package name (`-p`)
    target: Target
    name: str  # the libtest name: module path and function
    file: Path
    first: int  # the first attribute's line
    last: int  # the closing brace's line
    modules: tuple[tuple[str, int, int], ...] = ()  # inline modules around it: (name, first, last)
    columns: tuple[int, int] = (1, 1)  # the first attribute's column, the column after the closing brace
    suites: tuple[RustModule, ...] = ()  # the same modules with their libtest paths and whole spans

    @property
    def span(self) -> Span:
        return (self.first, self.columns[0], self.last, self.columns[1])


@dataclass(frozen=True)
class Crate:
    root: Path  # resolved
    package: str


def crates(project: Project) -> list[Crate]:
    """The project's packages: its own and, in a workspace, the members'."""
    root = project.root.resolve()
    work = cargo_workspace(project)
    found: list[Crate] = []
    for crate in [root, *(work.members if work is not None else ())]:
        manifest = read_toml(crate / "Cargo.toml") or {}
        package = manifest.get("package")
        name = package.get("name") if isinstance(package, dict) else None
        if isinstance(name, str):
            found.append(Crate(crate.resolve(), name))
    return found


def crate_tests(project: Project) -> Iterator[RustTest]:
    """Every test function of the project's packages (a workspace's members too)."""
    for crate in crates(project):
        for target, file, modules in targets(crate):
            yield from scan_file(crate.package, target, file, modules)


def targets(crate: Crate) -> Iterator[tuple[Target, Path, tuple[str, ...]]]:
    """(target flags, source file, module path of the file) for the crate's conventional layout: the targets
    `cargo test` builds tests of (benches and examples are not among them)."""
    for folder in (crate.root / "src", crate.root / "tests"):
        for file in sorted(folder.rglob("*.rs")) if folder.is_dir() else []:
            placed = place(crate, file)
            if placed is not None:
                yield placed[0], file.resolve(), placed[1]


def place(crate: Crate, file: Path) -> tuple[Target, tuple[str, ...]] | None:
    """The target a source file of the crate compiles into and its module path there; None for a file of no
    test target (a bench, an example, a helper module of integration tests)."""
    try:
        rel = file.relative_to(crate.root)
    except ValueError:
        return None
    if rel.parts[0] == "src" and len(rel.parts) > 1:
        return _in_src(crate, rel.relative_to("src"))
    if rel.parts[0] == "tests" and len(rel.parts) == 2:
        return ("--test", file.stem), ()
    if rel.parts[0] == "tests" and len(rel.parts) > 2 and (crate.root / "tests" / rel.parts[1] / "main.rs").is_file():
        return ("--test", rel.parts[1]), _module_path(rel.relative_to("tests", rel.parts[1]))
    return None


def _in_src(crate: Crate, rel: Path) -> tuple[Target, tuple[str, ...]]:
    if rel.parts[0] == "bin" and len(rel.parts) > 1:
        stem = rel.parts[1] if len(rel.parts) > 2 else rel.stem
        return ("--bin", stem), _module_path(rel.relative_to("bin", rel.parts[1])) if len(rel.parts) > 2 else ()
    if rel == Path("main.rs"):
        return ("--bin", crate.package), ()
    if not (crate.root / "src" / "lib.rs").is_file():
        return ("--bin", crate.package), _module_path(rel)
    return ("--lib",), _module_path(rel)


def _module_path(rel: Path) -> tuple[str, ...]:
    """`lib.rs` -> (); `a.rs`, `a/mod.rs` -> (a,); `a/b.rs` -> (a, b)."""
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] in ("mod", "lib", "main"):
        parts.pop()
    return tuple(parts)


def scan_file(crate: str, target: Target, file: Path, base: tuple[str, ...], text: str | None = None) -> list[RustTest]:
    """The tests of one source file (`text`: its unsaved content); none for a file that cannot be read."""
    if text is None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
    return [
        RustTest(
            crate, target, found.name, file, found.span[0], found.span[2], found.modules, found.columns, found.suites
        )
        for found in scan_text(text, base)
    ]


# --------------------------------------------------------------------------------------------------
# The reader: tokens that matter to items (identifiers and brackets), everything inside literals and comments
# skipped, so a brace in a string or a `#[test]` in a comment counts for nothing.

_TOKEN = re.compile(
    r"""(?P<skip>//[^\n]*|/\*)"""
    r"""|(?P<raw>[bc]?r(?P<hashes>\#*)")"""
    r"""|(?P<str>[bc]?")"""
    r"""|(?P<char>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]{1,6}\}|.)|[^\\'\n])')"""
    r"""|(?P<ident>r\#\w+|\w+)"""
    r"""|(?P<punct>[#!\[\](){};:,=<>]|')""",
)
_STRING_BODY = re.compile(r'(?:\\.|[^"\\])*"', re.DOTALL)
_BLOCK = re.compile(r"/\*|\*/")


@dataclass(frozen=True)
class _Token:
    text: str
    start: int  # offset in the text
    end: int


def tokens(text: str) -> list[_Token]:
    """Identifiers and the punctuation items are made of, in order."""
    out: list[_Token] = []
    index = 0
    size = len(text)
    while index < size:
        match = _TOKEN.search(text, index)
        if match is None:
            break
        kind = match.lastgroup if match.lastgroup != "hashes" else "raw"
        if match.group("raw") is not None:
            closing = text.find('"' + match.group("hashes"), match.end())
            index = size if closing < 0 else closing + 1 + len(match.group("hashes"))
        elif kind == "str":
            body = _STRING_BODY.match(text, match.end())
            index = body.end() if body else size
        elif kind == "skip":
            index = _block_end(text, match.end()) if match.group().startswith("/*") else match.end()
        elif kind == "char":
            index = match.end()
        else:
            out.append(_Token(match.group(), match.start(), match.end()))
            index = match.end()
    return out


def _block_end(text: str, index: int) -> int:
    """Past the `*/` closing a block comment opened just before `index` (Rust's nest)."""
    depth = 1
    for mark in _BLOCK.finditer(text, index):
        depth += 1 if mark.group() == "/*" else -1
        if depth == 0:
            return mark.end()
    return len(text)


@dataclass(frozen=True)
class Found:
    name: str
    span: Span
    modules: tuple[tuple[str, int, int], ...]
    suites: tuple[RustModule, ...]

    @property
    def columns(self) -> tuple[int, int]:
        return (self.span[1], self.span[3])


@dataclass
class _Frame:
    kind: str  # "mod", "test" or "other"
    name: str = ""
    start: int = 0  # the offset the item starts at (its first attribute)
    cases: tuple[tuple[str, int, int], ...] = ()  # an rstest function's cases: name, start and end offsets


@dataclass
class _Item:
    """What the tokens since the last item boundary have said about the item being read."""

    start: int | None = None
    test: bool = False
    cases: list[tuple[str, int, int]] | None = None  # rstest's `#[case]`: description, start and end offsets
    skipped: bool = False  # a test whose names a macro chooses
    keyword: str = ""  # "mod" or "fn" once seen
    name: str = ""


class _Reader:
    def __init__(self, text: str, base: tuple[str, ...]) -> None:
        self.text = text
        self.base = base
        self.toks = tokens(text)
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.frames: list[_Frame] = []
        self.found: list[Found] = []
        self.spans: dict[int, tuple[str, Span]] = {}  # a module's start offset -> its path and span
        self.open: list[tuple[Found, list[int]]] = []  # tests whose modules' spans are not known yet

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def run(self) -> list[Found]:
        item = _Item()
        index = 0
        while index < len(self.toks):
            index = self.step(index, item)
            if index < 0:
                index = -index
                item = _Item()
        return [self._finish(found, starts) for found, starts in self.open]

    def step(self, index: int, item: _Item) -> int:
        """Read the token at `index` into `item`; the next index, negative when an item boundary was crossed."""
        tok = self.toks[index]
        text = tok.text
        if text == "#":
            return self._attribute(index, item)
        if text in ("{", "}", ";"):
            if text == "{":
                self._open(tok, item)
            elif text == "}":
                self._close(tok)
            return -(index + 1)
        if item.start is None:
            item.start = tok.start
        if not item.keyword and text in ("mod", "fn") and index + 1 < len(self.toks):
            item.keyword, item.name = text, self.toks[index + 1].text.removeprefix("r#")
            return index + 2
        return index + 1

    def _attribute(self, index: int, item: _Item) -> int:
        """`#[path…]` (before the item: its first line; a test's marker) or `#![…]` (the enclosing item's)."""
        toks = self.toks
        inner = index + 1 < len(toks) and toks[index + 1].text == "!"
        opening = index + (2 if inner else 1)
        if opening >= len(toks) or toks[opening].text != "[":
            return index + 1
        closing = self._matching(opening)
        if inner:
            return closing + 1
        path = ""
        for tok in toks[opening + 1 : closing]:
            if tok.text not in (":",) and not tok.text[0].isalnum() and tok.text[0] != "_":
                break
            path += tok.text
        if item.keyword:  # an attribute inside the signature (a parameter's)
            item.skipped = item.skipped or (path == "values" and item.cases is not None)
            return closing + 1
        if item.start is None:
            item.start = toks[index].start
        segment = path.rsplit("::", 1)[-1]
        if segment.endswith("test"):
            item.test = True
            if segment == "rstest":
                item.cases = item.cases if item.cases is not None else []
        elif path == "case" or path.startswith("case::"):
            described = path.removeprefix("case").removeprefix("::")
            item.cases = [*(item.cases or []), (described, toks[index].start, toks[closing].end)]
        return closing + 1

    def _matching(self, opening: int) -> int:
        depth = 0
        for position in range(opening, len(self.toks)):
            text = self.toks[position].text
            if text in "([{":
                depth += 1
            elif text in ")]}":
                depth -= 1
                if depth == 0:
                    return position
        return len(self.toks) - 1

    def _open(self, tok: _Token, item: _Item) -> None:
        at_module_level = all(frame.kind == "mod" for frame in self.frames)
        start = item.start if item.start is not None else tok.start
        if item.keyword == "mod" and at_module_level:
            self.frames.append(_Frame("mod", item.name, start))
        elif item.keyword == "fn" and item.test and at_module_level and not item.skipped:
            cases = tuple(_case_names(item.cases)) if item.cases else ()
            self.frames.append(_Frame("test", item.name, start, cases))
        else:
            self.frames.append(_Frame("other"))

    def _close(self, tok: _Token) -> None:
        if not self.frames:
            return
        frame = self.frames.pop()
        line, column = self.position(frame.start)
        end_line, end_column = self.position(tok.end)
        span = (line, column, end_line, end_column)
        path = [*self.base, *(f.name for f in self.frames)]
        if frame.kind == "mod":
            self.spans[frame.start] = ("::".join([*path, frame.name]), span)
        elif frame.kind == "test":
            starts = [f.start for f in self.frames]
            if frame.cases:
                starts.append(frame.start)
                self.spans[frame.start] = ("::".join([*path, frame.name]), span)
            for name, first, end in frame.cases or (("", frame.start, tok.end),):
                full = "::".join([*path, frame.name, *((name,) if name else ())])
                case_span = (*self.position(first), *self.position(end)) if name else span
                self.open.append((Found(full, case_span, (), ()), starts))

    def _finish(self, found: Found, starts: list[int]) -> Found:
        """The test with the modules around it, whose spans are known once the file is read."""
        last = len(self.starts)
        suites: list[RustModule] = []
        modules: list[tuple[str, int, int]] = []
        for start in starts:
            name, span = self.spans.get(start, ("", (*self.position(start), last, 1)))
            suites.append(RustModule(name, span))
            modules.append((name.rsplit("::", 1)[-1], span[0], span[2]))
        return Found(found.name, found.span, tuple(modules), tuple(suites))


def _case_names(cases: Sequence[tuple[str, int, int]]) -> Iterator[tuple[str, int, int]]:
    """rstest's names for its cases: `case_1`, … (`case_01` from ten on), `case_2_description`; each case's
    range is its attribute."""
    width = len(str(len(cases)))
    for number, (description, first, end) in enumerate(cases, 1):
        yield f"case_{number:0{width}d}" + (f"_{description}" if description else ""), first, end


def scan_text(text: str, base: tuple[str, ...] = ()) -> list[Found]:
    """The tests declared in a Rust source's text, in source order, each with the modules around it; `base` is
    the file's own module path."""
    return _Reader(text, base).run()
