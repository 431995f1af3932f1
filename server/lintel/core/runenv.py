"""The environment of every tool, test and script lintel runs: the user's, with only the defaults below added
(docs/architecture.md, Processes).

No colour variable is added anywhere: a test run or a package.json script runs the project's own code, and a
CLI library's FORCE_COLOR tests or an app printing through `rich` must see what the user's shell gives them
(lintel's NO_COLOR=1 / FORCE_COLOR=0 / CLICOLOR=0 failed such tests). Plain text for the parsers
comes from the tools' machine formats (JSON, junit XML, TAP, `--message-format=json`) and from
`lintel.languages.parsers.common.clean`, which every text parser reads through.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# Variables set only where the user's environment has none, by (language, run); a run not listed gets nothing.
# `run` is a check, or `script` (lintel.runScript). A coverage run and a subset of tests are test runs.
DEFAULTS: Mapping[tuple[str, str], Mapping[str, str]] = {
    # A test script may start a runner that watches for changes until it is stopped unless CI is set
    # (react-scripts' jest: it adds --watch when CI is unset, whatever the terminal), and jest writes new
    # snapshots unless CI is set. The project's own CI sets it too; a user's CI=false is kept.
    ("node", "test"): {"CI": "true"},
    # lintel.runScript: the same for a script that runs tests or a bundler's watch mode.
    ("node", "script"): {"CI": "true"},
}


def defaults_for(language: str, run: str) -> Mapping[str, str]:
    return DEFAULTS.get((language, run), {})


def run_environment(
    defaults: Mapping[str, str], *overrides: Mapping[str, str] | None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The user's environment (`environ`, lintel's own by default) with `defaults` where it has none, and a run's
    own `overrides` on top (a script's `NAME=value` prefix, a coverage run's data file)."""
    env = {**defaults, **(os.environ if environ is None else environ)}
    for more in overrides:
        env.update(more or {})
    return env
