"""examples/agent_client.py, the README's LSP-speaking agent, run against a copy of the python fixture."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from tests.helpers import REPO, copy_workspace, lintel_json

EXAMPLE = REPO / "examples" / "agent_client.py"


def test_agent_prints_the_diagnostics_and_the_failing_test(server_env: dict[str, str], tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    _, report = lintel_json("check", str(root), "--only", "lint")
    expected = {(i["line"], i["rule"]) for i in report["issues"] if i["file"] == "src/inventory/pricing.py"}
    assert expected

    proc = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            str(root),
            "src/inventory/pricing.py",
            "--server",
            f"{sys.executable} -m lintel serve",
        ],
        env=server_env,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )

    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = {(int(line), rule) for line, rule in re.findall(r"^  (\d+):\d+ \w+ \[ruff (\w+)\]", proc.stdout, re.M)}
    assert shown == expected, proc.stdout
    assert re.search(r"^tests \(pytest .*\): failed, exit 1", proc.stdout, re.M), proc.stdout
    assert (
        "FAILED tests/test_models.py::test_total_value_counts_quantity at tests/test_models.py:13: AssertionError"
        in proc.stdout
    )


def test_agent_needs_only_the_standard_library() -> None:
    tree = ast.parse(EXAMPLE.read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)
