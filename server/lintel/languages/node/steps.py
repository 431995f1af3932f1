"""How a package.json script chains commands: `a && b && c` split into its steps, a step that runs another of
the project's scripts (`npm run lint:js`) standing for that script's steps (docs/architecture.md, Detection). Which
tool a step calls is the caller's (`node.tools._step`); lintel.engine.scriptfloor reads the steps to name the one that
failed.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Callable, Mapping

from lintel.languages.base import ScriptStep


def chain_steps(
    script_text: str, scripts: Mapping[str, str], step: Callable[[str], ScriptStep], depth: int = 0
) -> tuple[ScriptStep, ...]:
    """The commands of a script that runs them one after another with `&&`, each a plain command made a step by
    `step`; one that runs another of `scripts` stands for that script's steps. () for a script that is more
    than that (`;`, `||`, pipes, redirections, subshells, variables): lintel does not take it apart."""
    parts = _chain_parts(script_text)
    if parts is None:
        return ()
    steps: list[ScriptStep] = []
    for part in parts:
        inner = _runs_script(scripts, part)
        nested = chain_steps(scripts[inner], scripts, step, depth + 1) if inner and depth < _MAX_DEPTH else ()
        if nested:
            steps.extend(dataclasses.replace(s, script=s.script or part) for s in nested)
        else:
            steps.append(step(part))
    return tuple(steps)


# Shell operators other than `&&` (as shlex splits them into runs of these characters), and what makes a word
# more than a word (variables, command substitution).
_OPERATOR_CHARS = frozenset("();<>|&")
_EXPANSION = re.compile(r"[$`\n]")
_MAX_DEPTH = 3  # scripts running scripts running scripts: deep enough for real chains, bounded against cycles


def _chain_parts(script_text: str) -> list[str] | None:
    """The commands of `a && b && c` as the script writes them; None for anything else."""
    if _EXPANSION.search(script_text):
        return None
    lexer = shlex.shlex(script_text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    if any(t != "&&" and set(t) <= _OPERATOR_CHARS for t in tokens):
        return None
    parts = _split_outside_quotes(script_text, "&&")
    if len(parts) != tokens.count("&&") + 1:
        return None
    return parts if all(parts) else None


def _split_outside_quotes(text: str, separator: str) -> list[str]:
    """`text` split at `separator` where it is not quoted or escaped, each part stripped."""
    parts: list[str] = []
    start, index, quote = 0, 0, ""
    while index < len(text):
        char = text[index]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif text.startswith(separator, index):
            parts.append(text[start:index].strip())
            start = index = index + len(separator)
            continue
        index += 1
    return [*parts, text[start:].strip()]


_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})


def _runs_script(scripts: Mapping[str, str], command: str) -> str | None:
    """The project's script a step runs (`npm run lint:js`, `npm test`, `pnpm lint`, `yarn run lint`); None for
    any other command."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] not in _PACKAGE_MANAGERS:
        return None
    rest = [w for w in words[1:] if not w.startswith("-")]
    if rest[:1] in (["run"], ["run-script"]):
        rest = rest[1:]
    return rest[0] if len(rest) == 1 and rest[0] in scripts else None
