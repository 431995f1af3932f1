"""The library's own tests: they pass in a shell or CI that does not set NO_COLOR, as most do not."""

from __future__ import annotations

import io
import json
import os

import pytest
from paint import green


def test_force_color_colours_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert green("ok", io.StringIO()) == "\x1b[32mok\x1b[0m"


def test_clicolor_force_colours_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("CLICOLOR_FORCE", "1")
    assert green("ok", io.StringIO()) == "\x1b[32mok\x1b[0m"


def test_the_environment_is_the_one_the_tests_were_started_in() -> None:
    """ENV_FIXTURE_EXPECT, set by lintel's own tests, names variables and the values (null: unset) the test
    runner was started with."""
    expected = json.loads(os.environ.get("ENV_FIXTURE_EXPECT", "{}"))
    assert {name: os.environ.get(name) for name in expected} == expected
