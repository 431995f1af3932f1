"""lintel.runScript without the protocol: one `package.json` script run with the project's package manager (the
lock file's, as detection picks it), its output as a RunResult (docs/design.md, Running a script).

The script runs as written, with the caller's arguments after it (`npm run --silent build -- --watch=false`;
pnpm, yarn and bun forward them without `--`), each reaching the script as given or refused: a script named like
an option (`--help`, which npm would answer with its own help), and an argument pnpm would change on its way
(`~`, languages.node.pnpm_changes). Its output is not read for findings: a script is anything, so the verdict is
its exit code (a failing script is one `custom` issue with the end of its output).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lintel.core.errors import BadArgument, NotSupported
from lintel.core.runenv import defaults_for
from lintel.engine.checks import RunResult, plan_spec, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.languages import Project, ToolSpec
from lintel.languages.node.tools import is_yarn_berry, pnpm_changes, run_script_argv

# CI=true unless the user's environment says otherwise, as for the test check (lintel.core.runenv).
_SCRIPT_ENV = defaults_for("node", "script")
_INSTALL_HINTS = {
    "npm": "npm ships with Node.js (https://nodejs.org)",
    "yarn": "npm install -g yarn",
    "pnpm": "npm install -g pnpm",
    "bun": "npm install -g bun",
}


def script_command(
    project: Project, script: str, args: Sequence[str] = (), *, command: str = "lintel.runScript"
) -> ToolSpec:
    """The command that runs `script`; NotSupported for a project that has no package.json scripts (not node),
    BadArgument for a script package.json does not define (the message lists the ones it does)."""
    if project.language != "node":
        raise NotSupported(f"{command} is not supported for {project.language} projects yet")
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


async def run_script(
    project: Project,
    script: str,
    args: Sequence[str] = (),
    *,
    workspace: Path,
    config: LintelConfig,
    timeout: float | None = None,
    on_start: Callable[[int], None] | None = None,
    command: str = "lintel.runScript",
) -> RunResult:
    """Run `script` (with `args`) in the project root; the timeout is the test check's unless one is given.
    `command` names the request in refusals."""
    spec = script_command(project, script, args, command=command)
    workspace = workspace.resolve()
    return await run_planned(
        plan_spec(project, spec, config, workspace),
        workspace=workspace,
        timeout=timeout_for("test", config, timeout),
        on_start=on_start,
        check="script",
    )
