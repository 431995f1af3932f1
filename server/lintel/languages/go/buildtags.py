"""Whether `go test` on this machine builds a `_test.go` file: its name's GOOS/GOARCH suffixes and its `//go:build`
line, evaluated as go's build context here would (the platform's tags, `unix`, `gc`, `cgo`, every `go1.N`)."""

from __future__ import annotations

import platform
import re
import sys
from collections.abc import Callable

_GOOS = frozenset(
    (
        *("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux", "nacl"),
        *("netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"),
    )
)
_GOARCH = frozenset(
    (
        *("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips", "mipsle", "mips64"),
        *("mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390", "s390x"),
        *("sparc", "sparc64", "wasm"),
    )
)
_UNIX = _GOOS - {"js", "nacl", "plan9", "wasip1", "windows", "zos"}
_ARCHES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i686": "386", "i386": "386"}
_BUILD_LINE = re.compile(r"^//go:build\s+(?P<expr>.+?)\s*$")
_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[\w.]+)")


def host() -> tuple[str, str]:
    """(GOOS, GOARCH) of this machine, as go names them."""
    goos = {"win32": "windows", "cygwin": "windows"}.get(sys.platform, sys.platform)
    goos = "linux" if goos.startswith("linux") else goos
    return goos, _ARCHES.get(platform.machine().lower(), platform.machine().lower())


def _has_tag(tag: str, goos: str, goarch: str) -> bool:
    if tag in (goos, goarch, "gc", "cgo"):
        return True
    if tag == "unix":
        return goos in _UNIX
    return re.fullmatch(r"go1\.\d+", tag) is not None


def name_matches(name: str, goos: str, goarch: str) -> bool:
    """go's rule for a file name's `_GOOS`, `_GOARCH` and `_GOOS_GOARCH` suffixes (the part before the first
    `_` is not one)."""
    stem = name.removesuffix(".go").removesuffix("_test")
    parts = stem.split("_")[1:]
    if len(parts) >= 2 and parts[-2] in _GOOS and parts[-1] in _GOARCH:
        return parts[-2] == goos and parts[-1] == goarch
    if parts and parts[-1] in _GOOS:
        return parts[-1] == goos
    if parts and parts[-1] in _GOARCH:
        return parts[-1] == goarch
    return True


def constraint(text: str) -> str | None:
    """The `//go:build` expression of a file (before its package clause), None without one."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("package "):
            return None
        match = _BUILD_LINE.match(stripped)
        if match:
            return match.group("expr")
    return None


def satisfied(expr: str, has: Callable[[str], bool]) -> bool:
    """A build expression (`linux && !race || go1.22`) evaluated; one go could not read builds nothing."""
    tokens = _TOKEN.findall(expr)
    if "".join(t.strip() for t in tokens) != re.sub(r"\s+", "", expr):
        return False
    reader = _Expression([t.strip() for t in tokens], has)
    try:
        value = reader.either()
    except (ValueError, IndexError):
        return False
    return value and reader.position == len(reader.tokens)


class _Expression:
    """A recursive descent over a build expression's tokens: `||` of `&&` of `!`, parentheses and tags."""

    def __init__(self, tokens: list[str], has: Callable[[str], bool]) -> None:
        self.tokens = tokens
        self.has = has
        self.position = 0

    def _peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _take(self) -> str:
        self.position += 1
        return self.tokens[self.position - 1]

    def either(self) -> bool:
        value = self._both()
        while self._peek() == "||":
            self._take()
            value = self._both() or value
        return value

    def _both(self) -> bool:
        value = self._single()
        while self._peek() == "&&":
            self._take()
            value = self._single() and value
        return value

    def _single(self) -> bool:
        token = self._take()
        if token == "!":
            return not self._single()
        if token == "(":
            value = self.either()
            if self._take() != ")":
                raise ValueError(token)
            return value
        if token in ("||", "&&", ")"):
            raise ValueError(token)
        return self.has(token)


def builds(name: str, text: str, target: tuple[str, str] | None = None) -> bool:
    """Whether go builds the file `name` with this text on the target (this machine by default)."""
    goos, goarch = target or host()
    if not name_matches(name, goos, goarch):
        return False
    expr = constraint(text)
    return expr is None or satisfied(expr, lambda tag: _has_tag(tag, goos, goarch))
