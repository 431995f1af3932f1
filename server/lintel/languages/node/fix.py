"""The fix modes of the JavaScript linters lintel runs (docs/fixes.md, JavaScript and TypeScript): eslint's
`--fix` (and `--fix-dry-run --stdin` for one text), and in a `lint` script that is a bare call of it, oxlint's
`--fix` and biome's `--write`. Data only; node/tools.py puts them on the ToolSpecs it builds.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from lintel.languages.base import FILE_PLACEHOLDER, NPX_NO_INSTALL, FixMode

# What lintel asks eslint for: its JSON report plus each reported rule's metadata (the rule's page), in eslint 8,
# 9 and 10 alike. A script that names another format keeps it (the plain `json` reads the same, without pages).
ESLINT_FORMAT = ("--format", "json-with-metadata")

# One text's fixed form: eslint prints it as the `output` of its JSON report (absent when nothing changed).
# `--fix` itself refuses `--stdin`; `--fix-dry-run` applies the same fixes and writes nothing.
_ESLINT_STDIN = (
    *NPX_NO_INSTALL,
    "eslint",
    "--fix-dry-run",
    "--stdin",
    "--stdin-filename",
    FILE_PLACEHOLDER,
    "--format",
    "json",
)


def eslint_fix_mode(targets: tuple[str, ...]) -> FixMode:
    """`eslint --fix <targets>`. Suggestions are never applied by eslint's fix mode, so it has no unsafe mode."""
    return FixMode(
        argv=(*NPX_NO_INSTALL, "eslint", "--fix", *targets), stdin_argv=_ESLINT_STDIN, stdin_output="eslint-json"
    )


@dataclass(frozen=True)
class ScriptFix:
    """What a bare linter script needs to fix instead of report: words appended to the script's own command line
    (`npm run lint -- --fix`), those that add the unsafe fixes, and the tool's own one-text mode."""

    args: tuple[str, ...]
    unsafe_args: tuple[str, ...] = ()
    stdin_argv: tuple[str, ...] = ()
    stdin_unsafe_args: tuple[str, ...] = ()
    stdin_output: Literal["text", "eslint-json"] = "text"


def script_fix(tool: str, script_text: str) -> ScriptFix | None:
    """The fix mode of a script that is one call of `tool` (node.known_tool said so), or None."""
    if tool == "eslint":
        return ScriptFix(("--fix",), stdin_argv=_ESLINT_STDIN, stdin_output="eslint-json")
    if tool == "oxlint":
        # oxlint reads no stdin: one text's fixes are not to be had from it.
        return ScriptFix(("--fix",), ("--fix-suggestions",))
    if tool == "biome":
        command = _biome_command(script_text)
        if command not in ("lint", "check"):
            return None  # `biome ci` cannot write; `biome format` is a formatter
        # With --stdin-file-path and --write biome prints the fixed text (biome 2.6, measured).
        stdin = (*NPX_NO_INSTALL, "biome", command, "--write", "--stdin-file-path", FILE_PLACEHOLDER)
        return ScriptFix(("--write",), ("--unsafe",), stdin, ("--unsafe",))
    return None


def _biome_command(script_text: str) -> str | None:
    """biome's subcommand in a script (`biome lint src`, `npx biome check .`)."""
    try:
        words = shlex.split(script_text)
    except ValueError:
        return None
    names = [word.rsplit("/", 1)[-1] for word in words]
    if "biome" not in names:
        return None
    following = [word for word in words[names.index("biome") + 1 :] if not word.startswith("-")]
    return following[0] if following else None
