from __future__ import annotations

import os

from tests.helpers import tool_path


def pytest_configure() -> None:
    # Tests (and the lintel processes they start) find the tools scripts/setup-dev installed.
    os.environ["PATH"] = tool_path()
