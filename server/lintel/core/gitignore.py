"""git's ignore rules for the project discovery walk: which folders it must not enter (`man gitignore`).

The semantics are git's own (its `dir.c` and `wildmatch`), checked against `git check-ignore` by the tests: the
root's `.gitignore` and `.git/info/exclude`, each nested `.gitignore` as the walk reaches its folder, the last
matching pattern wins and a deeper file outranks a shallower one. No global `core.excludesFile`: discovery must
answer the same on every machine.

Patterns become regular expressions once per file, all of a file's patterns joined into one alternation (last
line first, so the first alternative that matches is the one that wins): a path costs one or two regex calls per
`.gitignore` above it, and nothing when there are none.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger(__name__)

GITIGNORE = ".gitignore"

# git's character classes are ASCII-only (its own ctype table), whatever the locale.
_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "blank": " \t",
    "cntrl": "\x00-\x1f\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \t\n\r",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}

# What ends the literal start of a pattern (git's "simple length").
_WILDCARDS = frozenset("*?[\\")


@dataclass(frozen=True)
class Pattern:
    """One line of a `.gitignore`, ready to match."""

    regex: str  # for the name (`basename`) or for the path below the file's folder
    negated: bool  # `!`: re-includes what an earlier line excluded
    dir_only: bool  # a trailing `/`
    basename: bool  # no `/` but a trailing one: matches the name at any depth
    literal: str | None = None  # the name itself, for a name pattern without wildcards or escapes


def parse_line(line: str) -> Pattern | None:
    """A `.gitignore` line as git reads it; None for blanks, comments and patterns that can never match."""
    if not line or line.startswith("#"):
        return None
    line = _trim_trailing_spaces(line)
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
    if not line:
        return None
    basename = "/" not in line
    if not basename and line.startswith("/"):
        line = line[1:]  # a leading `/` only anchors: every path pattern is relative to its file's folder
    regex = translate(line, pathname=not basename)
    if regex is None:
        return None
    literal = line if basename and not any(char in line for char in _WILDCARDS) else None
    return Pattern(regex, negated, dir_only, basename, literal)


def parse(text: str) -> list[Pattern]:
    if text.startswith("\ufeff"):
        text = text[1:]  # git skips a UTF-8 byte order mark
    patterns: list[Pattern] = []
    for line in text.split("\n"):
        pattern = parse_line(line[:-1] if line.endswith("\r") else line)
        if pattern is not None:
            patterns.append(pattern)
    return patterns


def _trim_trailing_spaces(line: str) -> str:
    """Trailing spaces go, unless a backslash quotes one (`a\\ ` keeps its space); tabs stay, as in git."""
    if not line.endswith(" "):
        return line
    first_space: int | None = None
    index = 0
    while index < len(line):
        char = line[index]
        if char == " ":
            if first_space is None:
                first_space = index
        else:
            if char == "\\":
                index += 1
                if index == len(line):
                    return line
            first_space = None
        index += 1
    return line if first_space is None else line[:first_space]


def translate(pattern: str, *, pathname: bool) -> str | None:
    """git's wildmatch as a regular expression, or None when the pattern can never match (a trailing backslash,
    an unclosed `[`, an unknown `[:class:]`).

    With `pathname` (the pattern holds a `/`), `*`, `?` and `[...]` stop at `/`, and a `**` that fills a whole
    path segment crosses them: a leading `**/` and an inner `/**/` match zero or more folders, a trailing `/**`
    everything below. Any other `**` is a `*`, except one right after the pattern's literal start: git compares
    that start on its own and matches the rest as a pattern of its own, where the `**` leads (`a**/b` matches
    `ab` and `ax/y/b`).
    """
    out: list[str] = []
    index, end = 0, len(pattern)
    while index < end:
        char = pattern[index]
        if char == "\\":
            if index + 1 == end:
                return None
            out.append(re.escape(pattern[index + 1]))
            index += 2
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "*":
            leads = all(c not in _WILDCARDS for c in pattern[:index])
            expression, index = _stars(pattern, index, pathname, leads)
            out.append(expression)
        elif char == "[":
            bracket = _bracket(pattern, index)
            if bracket is None:
                return None
            expression, index = bracket
            out.append(expression)
        else:
            out.append(re.escape(char))
            index += 1
    return "".join(out)


def _stars(pattern: str, start: int, pathname: bool, leads: bool) -> tuple[str, int]:
    """A run of `*` from `start` as a regex, and the index after what it consumed. `leads`: no wildcard before it."""
    stop = start
    while stop < len(pattern) and pattern[stop] == "*":
        stop += 1
    # git decides on the raw characters around the run, an escaped `\/` included.
    if pathname and stop - start >= 2 and (leads or pattern[start - 1] == "/"):
        if stop == len(pattern):
            return ".*", stop
        if pattern[stop] == "/":
            return "(?:.*/)?", stop + 1  # zero or more folders, the slash after them included
        if pattern.startswith("\\/", stop):
            return ".*", stop
    return "[^/]*", stop


def _bracket(pattern: str, start: int) -> tuple[str, int] | None:
    """`[...]` from `start` as a regex class and the index after it (wildmatch's rules: `!` or `^` negates, a `]`
    right after the opening is a member, `a-z` ranges, `\\` quotes, `[:alpha:]`-style classes)."""
    index, end = start + 1, len(pattern)
    negated = index < end and pattern[index] in "!^"
    if negated:
        index += 1
    members: list[str] = []
    previous: str | None = None  # the last single character, which a `-` makes the start of a range
    first = True
    while index < end and (first or pattern[index] != "]"):
        first = False
        member = _member(pattern, index, previous)
        if member is None:
            return None
        expression, index, previous = member
        members.append(expression)
    if index >= end:
        return None
    body = "".join(members)
    if negated:
        return f"[^{body}/]", index + 1
    expression = f"[{body}]"
    # Under a path a class never matches the `/` between folders, even one it names.
    return (f"(?!/){expression}" if re.fullmatch(expression, "/") else expression), index + 1


def _member(pattern: str, index: int, previous: str | None) -> tuple[str, int, str | None] | None:
    """The bracket member at `index`: its regex, the index after it, and the character a `-` after it would start
    a range from."""
    end = len(pattern)
    char = pattern[index]
    if char == "\\":
        if index + 1 >= end:
            return None
        char = pattern[index + 1]
        return re.escape(char), index + 2, char
    if char == "-" and previous is not None and index + 1 < end and pattern[index + 1] != "]":
        high, index = pattern[index + 1], index + 2
        if high == "\\":
            if index >= end:
                return None
            high, index = pattern[index], index + 1
        # A reversed range matches nothing (its start already counted on its own).
        return (f"{re.escape(previous)}-{re.escape(high)}" if previous <= high else ""), index, None
    if char == "[" and pattern.startswith(":", index + 1):
        close = pattern.find("]", index + 2)
        if close == -1:
            return None
        if close - 1 < index + 2 or pattern[close - 1] != ":":
            return re.escape(char), index + 1, char  # no `:]` before the next `]`: an ordinary `[`
        posix = _POSIX_CLASSES.get(pattern[index + 2 : close - 1])
        return None if posix is None else (posix, close + 1, None)
    return re.escape(char), index + 1, char


def _alternation(numbered: Sequence[tuple[int, Pattern]]) -> tuple[re.Pattern[str] | None, tuple[int, ...]]:
    """The patterns as one regex, last line first, and which line each alternative is: the first alternative that
    matches is the line that wins, and `lastindex` names it (the patterns' own groups are all non-capturing)."""
    if not numbered:
        return None, ()
    ordered = list(reversed(numbered))
    source = "|".join(f"({pattern.regex})" for _, pattern in ordered)
    return re.compile(source, re.DOTALL), (-1, *(line for line, _ in ordered))


class _Side(NamedTuple):
    """What one file's patterns need to judge a file, or a folder (which the trailing-`/` patterns match too)."""

    literals: dict[str, int]  # a name -> the last line that is exactly that name (most lines of a typical file)
    names: re.Pattern[str] | None  # the other name patterns, matched against the name
    name_lines: tuple[int, ...]
    paths: re.Pattern[str] | None  # the path patterns, matched against the path below the file's folder
    path_lines: tuple[int, ...]

    @classmethod
    def of(cls, numbered: Sequence[tuple[int, Pattern]]) -> _Side:
        literals = {p.literal: line for line, p in numbered if p.literal is not None}
        names = _alternation([(line, p) for line, p in numbered if p.basename and p.literal is None])
        paths = _alternation([(line, p) for line, p in numbered if not p.basename])
        return cls(literals, *names, *paths)


class _RuleFile:
    """One `.gitignore` (or `info/exclude`), compiled."""

    __slots__ = ("dirs", "files", "negated", "offset")

    def __init__(self, base: str, patterns: Sequence[Pattern]) -> None:
        # `base`: the file's folder from the root ("" for the root); a path below it starts at `offset` in a root path.
        self.offset = len(base) + 1 if base else 0
        self.negated = tuple(p.negated for p in patterns)
        numbered = list(enumerate(patterns))
        self.dirs = _Side.of(numbered)
        self.files = _Side.of([(line, p) for line, p in numbered if not p.dir_only])

    def verdict(self, rel: str, name_start: int, is_dir: bool) -> bool | None:
        """True (ignored) or False (re-included) by this file's last matching line; None when no line matches."""
        # Inlined on purpose: this runs for every entry of a walk.
        literals, names, name_lines, paths, path_lines = self.dirs if is_dir else self.files
        line = literals.get(rel[name_start:], -1) if literals else -1
        if names is not None:
            match = names.fullmatch(rel, name_start)
            if match is not None and name_lines[match.lastindex or 0] > line:
                line = name_lines[match.lastindex or 0]
        if paths is not None and len(rel) > self.offset:
            match = paths.fullmatch(rel, self.offset)
            if match is not None and path_lines[match.lastindex or 0] > line:
                line = path_lines[match.lastindex or 0]
        return None if line < 0 else not self.negated[line]


def _read(path: Path, base: str) -> _RuleFile | None:
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None  # no such file (`.git` may be a file: a linked worktree's exclude file is elsewhere)
    except OSError as exc:
        log.warning("skipping %s, which cannot be read: %s", path, exc.strerror or exc)
        return None
    # Patterns and names are compared as bytes by git; decoded the way os.scandir decodes names, a non-UTF-8
    # pattern still matches the very name it was written for.
    patterns = parse(os.fsdecode(data))
    return _RuleFile(base, patterns) if patterns else None


class IgnoreRules:
    """The ignore rules in force inside one folder of a walk from the root. Immutable: `descend` returns the
    rules for a subfolder (itself when that folder adds nothing)."""

    __slots__ = ("_files", "_root_read")

    def __init__(self, files: tuple[_RuleFile, ...] = (), *, root_read: bool = False) -> None:
        self._files = files  # deepest first: the first file with a matching line decides
        self._root_read = root_read

    @classmethod
    def at_root(cls, root: Path) -> IgnoreRules:
        """`root/.gitignore`, over `root/.git/info/exclude` (a `.gitignore` outranks the exclude file)."""
        files: list[_RuleFile] = []
        for rule_file in (_read(root / GITIGNORE, ""), _read(root / ".git" / "info" / "exclude", "")):
            if rule_file is not None:
                files.append(rule_file)
        return cls(tuple(files), root_read=True)

    def descend(self, directory: Path, rel: str, names: Collection[str]) -> IgnoreRules:
        """The rules inside `directory` (`rel` its path from the root, "" for the root), given its listing:
        its `.gitignore` is read only when the listing has one."""
        if GITIGNORE not in names or (not rel and self._root_read):
            return self
        rule_file = _read(directory / GITIGNORE, rel)
        if rule_file is None:
            return self
        return IgnoreRules((rule_file, *self._files), root_read=self._root_read or not rel)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether git ignores the entry `rel` (its path from the root) of the folder these rules are for.

        Only the entry's own name and path are matched: a walk never asks about the inside of a folder it did not
        enter, so an ignored folder's contents stay ignored, as in git. Pass `is_dir` False for a symlink to a
        folder (git does not treat it as a folder)."""
        if not self._files:
            return False
        name_start = rel.rfind("/") + 1
        for rule_file in self._files:
            verdict = rule_file.verdict(rel, name_start, is_dir)
            if verdict is not None:
                return verdict
        return False


def is_ignored(root: Path, rel: str, is_dir: bool) -> bool:
    """Whether git ignores `rel` under the work tree `root`, as `git check-ignore` answers for one path: a path
    inside an ignored folder is ignored whatever the deeper files say."""
    rules = IgnoreRules.at_root(root)
    parts = rel.split("/")
    folder = ""
    for part in parts[:-1]:
        folder = f"{folder}/{part}" if folder else part
        if rules.ignored(folder, True):
            return True
        rules = rules.descend(root / folder, folder, (GITIGNORE,))
    return rules.ignored(rel, is_dir)
