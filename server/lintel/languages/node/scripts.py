"""Running one of a node project's package.json scripts with its package manager (`lintel.runScript`): the
command, each caller argument reaching the script as given or refused (an argument pnpm would change on its way)."""

from __future__ import annotations

from collections.abc import Sequence

from lintel.core.errors import BadArgument
from lintel.core.runenv import defaults_for
from lintel.languages.base import Project, ToolSpec
from lintel.languages.node.tools import is_yarn_berry, pnpm_changes, run_script_argv

# CI=true unless the user's environment says otherwise, as for the test check (lintel.core.runenv).
_SCRIPT_ENV = defaults_for("node", "script")
_INSTALL_HINTS = {
    "npm": "npm ships with Node.js (https://nodejs.org)",
    "yarn": "npm install -g yarn",
    "pnpm": "npm install -g pnpm",
    "bun": "npm install -g bun",
}


def script_command(project: Project, script: str, args: Sequence[str], command: str) -> ToolSpec:
    """The command that runs package.json's `script` with `args` through the project's package manager;
    BadArgument for a script package.json does not define (the message lists the ones it does), or one the
    manager would not run as asked (`command` names the request in the message)."""
    if not script.strip():
        raise BadArgument(f"{command}: `script` is empty")
    if project.problem is not None:
        raise BadArgument(f"{command}: {project.problem}")
    if script not in project.scripts:
        available = ", ".join(sorted(project.scripts)) or "none"
        raise BadArgument(f"no script {script!r} in {project.root / 'package.json'}; available scripts: {available}")
    manager = project.package_manager or "npm"
    if script.startswith("-"):
        # `npm run --help` prints npm's help and exits 0: the script would never run, and the run would pass.
        raise BadArgument(
            f"{command}: cannot run the script {script!r}: {manager} reads a name starting with `-` as an option"
        )
    for arg in args:
        changed = pnpm_changes(arg) if manager == "pnpm" else None
        if changed is not None:
            raise BadArgument(f"{command}: pnpm cannot pass the argument {arg!r} to a script unchanged: {changed}")
    return ToolSpec(
        check="test",  # the timeout class of a script; the result is labelled `script`
        tool=f"{manager} run {script}",
        argv=run_script_argv(manager, script, tuple(args), berry=is_yarn_berry(project.root)),
        parser="custom",
        ok_codes=frozenset({0}),
        finding_codes=frozenset(),
        install_hint=_INSTALL_HINTS.get(manager, "see the package manager's documentation"),
        env_defaults=_SCRIPT_ENV,
    )
