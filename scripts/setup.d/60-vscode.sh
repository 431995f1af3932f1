#!/usr/bin/env bash
# The VS Code extension's build tools (editors/vscode): `npm ci` from its committed lock file when node_modules is
# missing or older than package-lock.json. Quiet when it is current; skipped (with a note) without node/npm.
set -euo pipefail

ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
declare -F say >/dev/null || say() { printf 'setup: %s\n' "$*" >&2; }

ext="$ROOT/editors/vscode"
[ -f "$ext/package-lock.json" ] || exit 0
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "node/npm not found: skipping the VS Code extension's tools (install Node.js 20+)"
  exit 0
fi

# npm writes node_modules/.package-lock.json on every install: its age is the install's.
stamp="$ext/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ "$ext/package-lock.json" -nt "$stamp" ]; then
  say "npm ci in editors/vscode"
  (cd "$ext" && npm ci --silent --no-audit --no-fund --no-update-notifier)
fi
