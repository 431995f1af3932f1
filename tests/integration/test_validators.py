"""Validators (CONTRACT §7), through the real engine and real tools: the scenarios validators were specified with."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from lintel.core.issues import sha256_hex
from lintel.engine.config import ValidatorConfig
from lintel.engine.validators import ValidateResult, run_validator, run_validators

from tests.helpers import WORKSPACES, lintel_json, require_path, tool_path


def node_copy(tmp_path: Path) -> Path:
    source = WORKSPACES / "node"
    require_path(source / "node_modules" / ".bin" / "tsc")
    root = tmp_path / "node"
    shutil.copytree(source, root, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
    (root / "node_modules").symlink_to(source / "node_modules", target_is_directory=True)
    return root


def run(validator: ValidatorConfig, root: Path) -> ValidateResult:
    os.environ["PATH"] = tool_path()
    return asyncio.run(run_validator(validator, root))


def test_tsc_validator_gives_typecheck_issues_with_signatures(tmp_path: Path) -> None:
    root = node_copy(tmp_path)
    validator = ValidatorConfig(id="tsc", run="npx --no-install tsc --noEmit --pretty false", parser="tsc")
    result = run(validator, root)
    assert not result.ok
    assert result.exit_code == 2
    api = [i for i in result.issues if i.file == "src/api.ts"]
    assert [(i.line, i.rule) for i in api] == [(26, "TS2322"), (31, "TS2741"), (47, "TS2322")]
    first = api[0]
    assert first.kind == "typecheck"
    assert first.source == "tsc"
    assert first.signature == f"typecheck:src/api.ts:26:{first.message}"
    assert "src/api.ts(26," in result.raw_output
    again = run(validator, root)
    assert [i.signature for i in again.issues] == [i.signature for i in result.issues]  # same failure, same signature


def test_eslint_validator_with_json_parser(tmp_path: Path) -> None:
    root = node_copy(tmp_path)
    validator = ValidatorConfig(id="lint-js", run="npx --no-install eslint src --format json", parser="eslint")
    result = run(validator, root)
    assert not result.ok
    assert {(i.file, i.line, i.rule) for i in result.issues} >= {("src/util.js", 10, "no-console")}
    assert all(i.source == "lint-js" for i in result.issues)


def test_unknown_parser_on_failing_command_is_one_custom_issue(tmp_path: Path) -> None:
    validator = ValidatorConfig(id="contract", run="echo 'contract v2 broken' >&2; exit 3", parser="no-such-parser")
    result = run(validator, tmp_path)
    assert not result.ok
    [issue] = result.issues
    assert issue.kind == "custom"
    assert issue.signature == "custom:" + sha256_hex(issue.message)
    assert "contract v2 broken" in issue.message
    assert run(validator, tmp_path).issues[0].signature == issue.signature


def test_passing_validator_is_ok(tmp_path: Path) -> None:
    result = run(ValidatorConfig(id="fine", run="true"), tmp_path)
    assert result.ok
    assert result.issues == []
    assert result.to_json()["rawOutput"] == "exit: 0"


def test_a_validator_sees_the_users_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No NO_COLOR / FORCE_COLOR / CLICOLOR of lintel's reaches the command (a contract test's own)."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    for name in ("NO_COLOR", "CLICOLOR", "CARGO_TERM_COLOR"):
        monkeypatch.delenv(name, raising=False)
    command = "echo $FORCE_COLOR ${NO_COLOR-unset} ${CLICOLOR-unset} ${CARGO_TERM_COLOR-unset} ${CI-unset}"
    monkeypatch.delenv("CI", raising=False)
    result = run(ValidatorConfig(id="env", run=command), tmp_path)
    assert result.raw_output.splitlines()[0] == "1 unset unset unset unset"


def test_timeout_kills_the_command_and_its_children(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f"sleep 60 & echo $! > {pids}; echo $$ >> {pids}; wait"
    result = run(ValidatorConfig(id="slow", run=script, timeout_seconds=1), tmp_path)
    assert not result.ok
    assert result.timed_out
    assert result.exit_code == 124
    assert [i.kind for i in result.issues] == ["timeout"]
    for pid in map(int, pids.read_text().split()):
        status = Path(f"/proc/{pid}/status")
        alive = status.exists() and "State:\tZ" not in status.read_text()
        assert not alive, f"process {pid} survived the timeout"


def test_validators_run_in_parallel_and_report_as_they_finish(tmp_path: Path) -> None:
    order: list[str] = []
    validators = [
        ValidatorConfig(id="slow", run="sleep 1"),
        ValidatorConfig(id="quick", run="true"),
    ]
    results = asyncio.run(run_validators(validators, tmp_path, concurrency=2, on_done=lambda r: order.append(r.id)))
    assert [r.id for r in results] == ["slow", "quick"]  # configuration order
    assert order == ["quick", "slow"]  # reported as each finished


def test_cli_runs_configured_validators_by_default(tmp_path: Path) -> None:
    (tmp_path / "lintel.toml").write_text(
        '[[validators]]\nid = "contract"\nrun = "echo broken; exit 1"\n\n'
        f'[[validators]]\nid = "py"\nrun = "{sys.executable} -c pass"\n'
    )
    code, report = lintel_json("check", str(tmp_path))  # no markers: validators still run
    assert code == 1
    assert {r["tool"]: r["status"] for r in report["runs"]} == {"contract": "findings", "py": "clean"}
    assert report["runs"][0]["check"] == "validators"
    [issue] = report["issues"]
    assert issue["source"] == "contract"
    assert issue["kind"] == "custom"


def test_the_progress_line_of_a_validator_names_it(tmp_path: Path) -> None:
    """It read `lintel: None validators (small) findings`."""
    from tests.helpers import run_lintel

    (tmp_path / "lintel.toml").write_text('[[validators]]\nid = "small"\nrun = "echo broken; exit 1"\n')
    proc = run_lintel("check", str(tmp_path), "--progress")
    assert proc.returncode == 1
    [line] = [line for line in proc.stderr.splitlines() if "small" in line and "running" not in line]
    assert line.startswith("lintel: validator small findings in "), line
    assert "None" not in proc.stderr


def test_bad_validator_config_is_exit_2_with_path(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "lintel.toml").write_text('[[validators]]\nid = "x"\nrun = 3\n')
    code, _ = lintel_json_or_code(tmp_path)
    assert code == 2


def lintel_json_or_code(root: Path) -> tuple[int, str]:
    from tests.helpers import run_lintel

    proc = run_lintel("check", str(root), "--only", "validators")
    assert "validators.0.run" in proc.stderr
    return proc.returncode, proc.stderr


def test_output_file_gets_json_while_stdout_gets_text(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    from tests.helpers import run_lintel

    proc = run_lintel("check", str(WORKSPACES / "python"), "--only", "lint", "--format", "json", "--output", str(out))
    assert proc.returncode == 1
    document = json.loads(out.read_text())
    assert document["version"] == 1
    assert proc.stdout.splitlines()[-1].startswith("lintel: ")
