"""`lintel check` on a workspace with a folder it may not read, run as a user that may not: the
folder is a check that did not run — reported, exit 3 when nothing else fails — never skipped as if the
workspace were clean."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import AnotherUser, require_tool

PYPROJECT = '[project]\nname = "{name}"\nversion = "0.1.0"\n'


@pytest.fixture
def other_user() -> Iterator[AnotherUser]:
    user = AnotherUser.find()
    yield user
    user.clean()


def workspace_with_a_secret(user: AnotherUser) -> Path:
    """A clean python project whose `secret/` (mode 000) holds a nested project with a finding."""
    root = user.folder()
    (root / "pyproject.toml").write_text(PYPROJECT.format(name="outer"), encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "clean.py").write_text("VALUE = 1\n", encoding="utf-8")
    nested = root / "secret" / "nested"
    nested.mkdir(parents=True)
    (nested / "pyproject.toml").write_text(PYPROJECT.format(name="nested"), encoding="utf-8")
    (nested / "bad.py").write_text("import os\n", encoding="utf-8")
    for current, dirs, files in os.walk(root):
        for name in dirs:
            (Path(current) / name).chmod(0o777)
        for name in files:
            (Path(current) / name).chmod(0o666)
    (root / "secret").chmod(0)
    return root


def check(user: AnotherUser, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        user.argv("-m", "lintel", "check", *args),
        cwd=root,
        env=user.env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_an_unreadable_folder_is_reported_not_checked_and_exits_3(other_user: AnotherUser) -> None:
    require_tool("ruff")
    root = workspace_with_a_secret(other_user)

    proc = check(other_user, root, ".", "--only", "lint", "--format", "json")

    assert proc.returncode == 3, proc.stderr
    report = json.loads(proc.stdout)
    [lint] = [r for r in report["runs"] if r["check"] == "lint"]
    assert lint["status"] == "clean", lint["reason"]  # ruff itself skips the folder, with a warning only
    [unread] = [r for r in report["runs"] if r["status"] == "not_checked"]
    assert (unread["check"], unread["language"], unread["cwd"]) == ("discover", None, "secret")
    assert unread["reason"] == "cannot read secret/: Permission denied; the projects and files in it were not checked"
    assert report["summary"]["notChecked"] == 1

    text = check(other_user, root, ".", "--only", "lint")
    assert text.returncode == 3, text.stderr
    assert "not checked: discover: cannot read secret/: Permission denied;" in text.stdout


def test_an_unreadable_path_given_is_a_usage_error(other_user: AnotherUser) -> None:
    root = workspace_with_a_secret(other_user)

    proc = check(other_user, root, "secret/nested/bad.py")

    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1] == "lintel: cannot read secret/nested/bad.py: Permission denied"
    assert "Traceback" not in proc.stderr
