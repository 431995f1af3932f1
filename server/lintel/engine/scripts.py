"""lintel.runScript without the protocol: one `package.json` script run with the project's package manager (the
lock file's, as detection picks it), its output as a RunResult (docs/agents.md, Running scripts).

The script runs as written, with the caller's arguments after it (`npm run --silent build -- --watch=false`;
pnpm, yarn and bun forward them without `--`), each reaching the script as given or refused: a script named like
an option (`--help`, which npm would answer with its own help), and an argument pnpm would change on its way
(`~`, lintel.languages.node.scripts). Its output is not read for findings: a script is anything, so the verdict is
its exit code (a failing script is one `custom` issue with the end of its output).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lintel.core.errors import NotSupported
from lintel.engine.checks import RunResult, plan_spec, run_planned, timeout_for
from lintel.engine.config import LintelConfig
from lintel.languages import Project, ToolSpec


def script_command(
    project: Project, script: str, args: Sequence[str] = (), *, command: str = "lintel.runScript"
) -> ToolSpec:
    """The command that runs `script`, as the project's language runs its scripts (`LanguageSpec.script_command`);
    NotSupported for a language that has none, BadArgument for a script the project does not define."""
    if project.spec.script_command is None:
        raise NotSupported(f"{command} is not supported for {project.language} projects yet")
    return project.spec.script_command(project, script, tuple(args), command)


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
