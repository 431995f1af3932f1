from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import settings

from tests.helpers import missing_tool, tool_path

pytest_plugins = ["pytester"]  # tests/unit/test_require_tools.py runs pytest on the marker it implements

# No timed assertion in the suite, hypothesis's 200 ms deadline per example included: on a shared 2-core
# machine a slow example is load, not a bug.
settings.register_profile("lintel", deadline=None)
settings.load_profile("lintel")


def pytest_configure() -> None:
    # Tests (and the lintel processes they start) find the tools scripts/setup-dev installed.
    os.environ["PATH"] = tool_path()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.tool("go", …)`: the test needs those programs; without one it is skipped, saying which (or,
    under LINTEL_REQUIRE_TOOLS=1, fails)."""
    for marker in item.iter_markers(name="tool"):
        for name in marker.args:
            if shutil.which(name, path=tool_path()) is None:
                missing_tool(f"{name} is not installed (run scripts/setup-dev; it installs what the tests drive)")
