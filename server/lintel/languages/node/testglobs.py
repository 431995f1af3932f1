"""Which files a project's JS test runner runs, where its configuration says so literally: vitest's `test.include`
(in `vitest.config.*`, else `vite.config.*`) and jest's `testMatch` (package.json's `jest`, `jest.config.json`).

Without such a list, or with one lintel cannot read as literal strings, the runners' usual names stand
(`testselect.is_test_file`). Read without running anything: a config that computes its patterns is not evaluated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from lintel.core.globs import glob_pattern
from lintel.languages.base import Project

_EXTENSIONS = ("ts", "mts", "cts", "js", "mjs", "cjs")
_VITEST_CONFIGS = tuple(f"{stem}.config.{ext}" for stem in ("vitest", "vite") for ext in _EXTENSIONS)
# Strings, comments and the brackets that nest, and the `test:` / `include:` keys, in config source.
_TOKEN = re.compile(
    r"""(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\$])*`)"""
    r"""|(?P<comment>//[^\n]*|/\*.*?\*/)"""
    r"""|(?P<key>\b(?:test|include)\b)\s*:"""
    r"""|(?P<open>[{\[(])|(?P<close>[}\])])|(?P<other>`)""",
    re.DOTALL,
)


def runner_matcher(project: Project, runner: str) -> Callable[[str], bool] | None:
    """A test of a file's path (relative to the project root, `/`-separated) against the runner's own patterns;
    None when the runner's configuration lists none lintel can read."""
    readers = {"vitest": _vitest_include, "jest": _jest_test_match}
    patterns = readers[runner](project.root) if runner in readers else None
    if not patterns:
        return None
    compiled = [re.compile(glob_regex(p)) for p in patterns]
    return lambda relative: any(c.fullmatch(relative) for c in compiled)


def glob_regex(pattern: str) -> str:
    """A runner's glob (picomatch, with extglobs) as a regex matched against the whole relative path; jest's
    `<rootDir>/` and a leading `./` are the project root."""
    for prefix in ("<rootDir>/", "./"):
        if pattern.startswith(prefix):
            pattern = pattern[len(prefix) :]
    return glob_pattern(pattern, extglob=True)


def _vitest_include(root: Path) -> list[str] | None:
    for name in _VITEST_CONFIGS:
        try:
            text = (root / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        return _literal_include(text)
    return None


def _literal_include(text: str) -> list[str] | None:
    """The strings of the `include: [...]` directly inside `test: {...}`; None when there is none or it holds
    anything but string literals."""
    depth = 0
    test_depth: int | None = None
    pending_test = False
    tokens = iter(_TOKEN.finditer(text))
    for match in tokens:
        kind = match.lastgroup
        if kind == "key":
            word = match.group("key")
            if word == "test":
                pending_test = True
            elif word == "include" and test_depth is not None and depth == test_depth:
                return _string_list(text, tokens)
        elif kind == "open":
            depth += 1
            if pending_test and match.group("open") == "{":
                test_depth = depth
            pending_test = False
        elif kind == "close":
            if test_depth is not None and depth == test_depth:
                test_depth = None
            depth -= 1
    return None


def _string_list(text: str, tokens: Iterator[re.Match[str]]) -> list[str] | None:
    opened = next(tokens, None)
    if opened is None or opened.group("open") != "[":
        return None
    strings: list[str] = []
    last = opened.end()
    for match in tokens:
        if text[last : match.start()].strip(" \t\r\n,"):
            return None  # a spread, a name, a call: not a list of literals
        last = match.end()
        if match.lastgroup == "str":
            literal = match.group("str")
            if literal.startswith("`") and "${" in literal:
                return None
            strings.append(literal[1:-1])
        elif match.lastgroup == "close":
            return strings or None
        elif match.lastgroup != "comment":
            return None
    return None


def _jest_test_match(root: Path) -> list[str] | None:
    for name, key in (("package.json", "jest"), ("jest.config.json", None)):
        try:
            data = json.loads((root / name).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        config = data.get(key) if key is not None and isinstance(data, dict) else data
        if not isinstance(config, dict):
            continue
        match = config.get("testMatch")
        # A rootDir or roots elsewhere would move what the patterns are relative to: the usual names stand.
        if not isinstance(match, list) or not all(isinstance(p, str) for p in match):
            continue
        if match and not config.get("rootDir") and not config.get("roots"):
            return [p for p in match if not p.startswith("!")]
    return None
