#!/usr/bin/env bash
# Python tools for lintel's tests: ruff, mypy, basedpyright, pytest, coverage (with pytest-cov) and the MCP SDK all come with lintel's `dev` extra,
# which scripts/setup-dev installs into the venv. This only checks that each one actually runs there
# (basedpyright also needs the Node.js its wheel brings) and says how to repair it. Silent when all run.
set -uo pipefail

: "${VENV:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv}"
declare -F say >/dev/null || say() { printf 'setup: %s\n' "$*" >&2; }

missing=()
for tool in ruff mypy basedpyright pytest coverage; do
  if ! "$VENV/bin/$tool" --version >/dev/null 2>&1; then
    missing+=("$tool")
  fi
done

# The MCP SDK (tests/e2e/test_mcp.py drives `lintel mcp` with its client): a library, not a binary.
if ! "$VENV/bin/python" -c "import mcp.server.lowlevel, mcp.client.stdio" >/dev/null 2>&1; then
  missing+=("mcp")
fi

if [ "${#missing[@]}" -gt 0 ]; then
  say "python: ${missing[*]} not runnable from $VENV/bin — reinstall with:" \
    "$VENV/bin/python -m pip install -e '.[dev]' (or delete $VENV/.lintel-dev-stamp and rerun scripts/setup-dev);" \
    "the Python checks' tests will be skipped until then"
fi
exit 0
