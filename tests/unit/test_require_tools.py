"""A test whose tool is missing is skipped with the reason, or fails under LINTEL_REQUIRE_TOOLS=1 (as in CI)."""

from __future__ import annotations

import pytest

from tests.helpers import REQUIRE_TOOLS, missing_tool, require_tool


def test_a_missing_tool_skips_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_TOOLS, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no-such-tool-lintel is not installed"):
        require_tool("no-such-tool-lintel", "install it")


def test_a_missing_tool_fails_when_tools_are_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_TOOLS, "1")
    with pytest.raises(pytest.fail.Exception, match="LINTEL_REQUIRE_TOOLS=1 requires every tool"):
        require_tool("no-such-tool-lintel", "install it")
    with pytest.raises(pytest.fail.Exception, match="nvim is not installed"):
        missing_tool("nvim is not installed")


def test_the_tool_marker_checks_its_programs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest(
        "from tests.conftest import pytest_runtest_setup\n"
        "def pytest_configure(config):\n"
        "    config.addinivalue_line('markers', 'tool(name): needs a program')\n"
    )
    pytester.makepyfile(
        "import pytest\n"
        "@pytest.mark.tool('sh')\n"
        "def test_has_sh():\n    assert True\n"
        "@pytest.mark.tool('no-such-tool-lintel')\n"
        "def test_lacks_it():\n    raise AssertionError('must not run')\n"
    )
    monkeypatch.delenv(REQUIRE_TOOLS, raising=False)
    pytester.runpytest("-p", "no:randomly", "-p", "no:asyncio").assert_outcomes(passed=1, skipped=1)
    monkeypatch.setenv(REQUIRE_TOOLS, "1")
    pytester.runpytest("-p", "no:randomly", "-p", "no:asyncio").assert_outcomes(
        passed=1, errors=1
    )  # fails in setup: a red run
