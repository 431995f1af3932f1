"""A baseline that cannot be used is the baseline module's error, and the CLI's usage error (exit code 2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lintel.engine.baseline import BaselineError, load_baseline
from lintel.frontends import cli


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[1, 2]", "expected a JSON object"),
        ('{"neither": 1}', "neither a lintel JSON report (no `issues` list) nor a SARIF log (no `runs` list)"),
        ('{"version": 1}', "neither a lintel JSON report (no `issues` list) nor a SARIF log (no `runs` list)"),
        ('{"version": 1, "issues": {}}', "`issues` is not a list"),
        ('{"issues": [1]}', "issues[0] is not an object"),
        ('{"issues": [{"file": "a.py"}]}', "issues[0] has no fingerprint"),
        ('{"runs": [{"results": [{}]}]}', "runs[0].results[0] has no partialFingerprints.lintel/v1"),
        ('{"runs": [7]}', "runs[0] is not a SARIF run"),
        ("{", "Expecting property name enclosed in double quotes"),
    ],
)
def test_an_unusable_baseline_is_a_baseline_error_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(BaselineError, match=f"^{re.escape(f'{bad}: {problem}')}"):
        load_baseline(bad)


def test_a_missing_baseline_is_a_baseline_error(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="No such file"):
        load_baseline(tmp_path / "missing.json")


def test_the_cli_reports_it_as_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    assert cli.main(["check", str(tmp_path), "--only", "lint", "--baseline", str(bad)]) == cli.EXIT_USAGE
    assert (
        capsys.readouterr().err
        == f"lintel: --baseline {bad}: expected a JSON object (a lintel JSON report or SARIF log)\n"
    )
