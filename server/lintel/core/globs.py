"""Globs as regular expressions over `/`-separated paths: LSP's (file operation filters) and the JS runners'
picomatch dialect (test file patterns), which adds extglobs."""

from __future__ import annotations

import re

# picomatch's extglobs: `?(a|b)` zero or one, `*(…)` any number, `+(…)` one or more, `@(…)` exactly one.
_EXTGLOB = re.compile(r"([?*+@])\(([^()]*)\)")
_QUANTIFIERS = {"?": "?", "*": "*", "+": "+", "@": ""}


def glob_pattern(glob: str, *, extglob: bool = False) -> str:
    """The regex (unanchored: the caller anchors it) of `glob`: `*` within a segment, `**` across segments, `?`,
    `{a,b}`, `[…]` (`[!…]` negated), and with `extglob` picomatch's `?(…)`/`*(…)`/`+(…)`/`@(…)`."""
    out: list[str] = []
    i = 0
    depth = 0
    while i < len(glob):
        found = _EXTGLOB.match(glob, i) if extglob else None
        if found is not None:
            inner = "|".join(glob_pattern(part, extglob=True) for part in found.group(2).split("|"))
            out.append(f"(?:{inner}){_QUANTIFIERS[found.group(1)]}")
            i = found.end()
            continue
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        c = glob[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{":
            out.append("(?:")
            depth += 1
        elif c == "}" and depth:
            out.append(")")
            depth -= 1
        elif c == "," and depth:
            out.append("|")
        elif c == "[" and (end := glob.find("]", i + 1)) != -1:
            body = glob[i + 1 : end]
            negated = body.startswith("!")
            body = body[1:] if negated else body
            out.append(f"[{'^' if negated else ''}{body.replace(chr(92), chr(92) * 2)}]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)
