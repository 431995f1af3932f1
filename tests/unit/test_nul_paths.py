"""A path or test name with a NUL byte from a client is said to be invalid, not "outside the workspace": no file can
have that name, and the confinement check could only fail on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintel.core.errors import BadArgument
from lintel.engine.actions import ActionError, inside
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect
from lintel.engine.testruns import select_tests
from lintel.frontends.mcp.workspace import Workspace


@pytest.mark.parametrize("path", ["src/a\0b.py", "\0", "a.py\0/../../etc/passwd"])
def test_a_command_path_with_a_nul_byte_is_invalid_not_outside(tmp_path: Path, path: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "a.py").write_text("", encoding="utf-8")
    with pytest.raises(ActionError, match="contains a NUL byte") as raised:
        inside([Workspace(tmp_path)], path)
    assert raised.value.invalid
    assert "outside" not in str(raised.value)


@pytest.mark.parametrize("test", ["tests/test_a.py\0", "test_a\0", "tests/test_a.py\0:3"])
def test_a_test_identity_with_a_nul_byte_is_refused(tmp_path: Path, test: str) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n', encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    [project] = detect(tmp_path)
    with pytest.raises(BadArgument, match="contains a NUL byte"):
        select_tests(project, [test], workspace=tmp_path, config=LintelConfig())


def test_a_document_uri_with_a_nul_byte_names_no_file() -> None:
    from lintel.frontends.lsp.shared import uri_path

    assert uri_path("file:///work/a%00b.py") is None
    assert uri_path("file:///work/ab.py") == Path("/work/ab.py")
