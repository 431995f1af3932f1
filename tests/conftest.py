from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings

from tests.helpers import missing_tool, tool_path

pytest_plugins = ["pytester"]  # tests/unit/test_require_tools.py runs pytest on the marker it implements

# No timed assertion in the suite, hypothesis's 200 ms deadline per example included: on a shared 2-core
# machine a slow example is load, not a bug.
settings.register_profile("lintel", deadline=None)
settings.load_profile("lintel")


_SESSION_CACHE: list[str] = []


def pytest_configure() -> None:
    # Tests (and the lintel processes they start) find the tools scripts/setup-dev installed.
    os.environ["PATH"] = tool_path()
    # Every lintel the suite starts runs in its own process unless a test asks for the warm lintel
    # (tests/integration/test_warm.py): no test depends on, or leaves behind, a warm lintel of the user's.
    os.environ.setdefault("LINTEL_NO_DAEMON", "1")
    # `lintel check` caches results; the suite's cache lasts the session (xdist workers each have theirs), so no
    # run reads what an earlier session or the user's own checks stored, and nothing is left in ~/.cache.
    if "LINTEL_CACHE_DIR" not in os.environ:
        folder = tempfile.mkdtemp(prefix="lintel-test-cache-")
        _SESSION_CACHE.append(folder)
        os.environ["LINTEL_CACHE_DIR"] = folder


def pytest_unconfigure() -> None:
    for folder in _SESSION_CACHE:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.tool("go", …)`: the test needs those programs; without one it is skipped, saying which (or,
    under LINTEL_REQUIRE_TOOLS=1, fails)."""
    for marker in item.iter_markers(name="tool"):
        for name in marker.args:
            if shutil.which(name, path=tool_path()) is None:
                missing_tool(f"{name} is not installed (run scripts/setup-dev; it installs what the tests drive)")
