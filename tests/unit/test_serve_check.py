"""`lintel serve --check`: the VS Code extension's probe of a lintel before it starts it (docs/editors.md, Which lintel
runs). `--version` alone passed an install whose server could not import its dependencies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lintel
import pytest
from lintel.frontends import cli


def test_prints_the_version_when_the_server_can_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", "--check"]) == 0
    assert capsys.readouterr().out == f"lintel {lintel.__version__}\n"


def test_names_what_is_missing_and_starts_nothing(tmp_path: Path) -> None:
    """lintel alone on a Python's path (no pygls, no pydantic), as an install without its dependencies has it."""
    isolated = tmp_path / "site"
    isolated.mkdir()
    (isolated / "lintel").symlink_to(Path(lintel.__file__).parent, target_is_directory=True)
    code = "import sys; sys.path[:] = [sys.argv[1]] + [p for p in sys.path if 'site-packages' not in p]; " + (
        "from lintel.frontends.cli import main; sys.exit(main(['serve', '--check']))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(isolated)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"lintel {lintel.__version__} cannot serve: missing pygls, lsprotocol" in done.stderr
    assert "pydantic" in done.stderr
