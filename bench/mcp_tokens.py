"""What a large lint answer costs a model's context: a generated Python project with N ruff findings (500 by
default, over several files, of several rules) linted through `lintel mcp`'s run_lint with the official MCP SDK
client — under the default budget and with `max_issues` above N — and through `lintel check --format json`, the
baseline. Prints, in characters: the text content (the summary block, and the JSON text block clients without
structured output read) and the structured content.

    python bench/mcp_tokens.py [--findings 500] [--files 10]

Informational only: nothing here asserts on size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import harness
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, TextContent

# One finding each, a mix of rules (undefined name, lambda assigned, `== None`, bare except).
LINES = (
    "x{i} = undefined_{i}\n",
    "f{i} = lambda: {i}\n",
    "y{i} = None if x == None else 1\n",
    "try:\n    pass\nexcept:  # {i}\n    pass\n",
)


def generate(root: Path, findings: int, files: int) -> None:
    (root / "pyproject.toml").write_text(
        '[project]\nname = "tokens"\nversion = "0"\n\n[tool.ruff.lint]\nselect = ["E", "F"]\n', encoding="utf-8"
    )
    src = root / "src"
    src.mkdir()
    per_file = -(-findings // files)
    made = 0
    for n in range(files):
        count = min(per_file, findings - made)
        text = "x = 1\n" + "".join(LINES[i % len(LINES)].format(i=i) for i in range(made, made + count))
        (src / f"m{n:02d}.py").write_text(text, encoding="utf-8")
        made += count


def sizes(answer: CallToolResult) -> dict[str, int]:
    texts = [block.text for block in answer.content if isinstance(block, TextContent)]
    structured = answer.structured_content or {}
    return {
        "summary": len(texts[0]) if texts else 0,
        "json text": sum(len(t) for t in texts[1:]),
        "structured": len(json.dumps(structured)),
        "issues": len(structured.get("issues", [])),
        "total": structured.get("issuesTotal", len(structured.get("issues", []))),
    }


async def over_mcp(root: Path, calls: list[dict[str, Any]]) -> list[dict[str, int]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "lintel", "mcp", "--root", str(root)], env=harness.tool_env(), cwd=root
    )
    out = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for arguments in calls:
            out.append(sizes(await session.call_tool("run_lint", arguments)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--findings", type=int, default=500)
    parser.add_argument("--files", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lintel-tokens-") as scratch:
        root = Path(scratch)
        generate(root, args.findings, args.files)
        default, everything = asyncio.run(over_mcp(root, [{}, {"max_issues": args.findings * 2}]))
        check = subprocess.run(
            [sys.executable, "-m", "lintel", "check", "--only", "lint", "--format", "json", "."],
            cwd=root,
            env=harness.tool_env(),
            capture_output=True,
            text=True,
            check=False,
        )
    report = json.loads(check.stdout)
    print(f"{args.findings} findings asked for in {args.files} files; ruff found {everything['total']}")
    print("characters:")
    print(f"{'answer':<36}{'issues':>8}{'summary':>10}{'json text':>11}{'text, all':>11}{'structured':>12}")
    for name, row in (("run_lint, default budget", default), (f"run_lint, max_issues {args.findings * 2}", everything)):
        text = row["summary"] + row["json text"]
        print(
            f"{name:<36}{row['issues']:>8}{row['summary']:>10}{row['json text']:>11}{text:>11}{row['structured']:>12}"
        )
    print(
        f"{'lintel check --format json (stdout)':<36}{len(report['issues']):>8}{'':>10}{'':>11}{len(check.stdout):>11}"
    )


if __name__ == "__main__":
    main()
