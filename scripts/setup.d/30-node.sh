#!/usr/bin/env bash
# Node tools for lintel's tests: yarn 1, pnpm and typescript-language-server in $LINTEL_TOOLS_DIR/npm, and the
# node fixtures' own node_modules from their committed lock files. Each step runs only when it is needed.
set -euo pipefail

: "${ROOT:?run through scripts/setup-dev}" "${LINTEL_TOOLS_DIR:?run through scripts/setup-dev}"
declare -F say >/dev/null || say() { printf 'setup: %s\n' "$*" >&2; }

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "node/npm not found: skipping the node tools (install Node.js 20+)"
  exit 0
fi

NPM_PREFIX="$LINTEL_TOOLS_DIR/npm"
export PATH="$NPM_PREFIX/bin:$PATH"
quiet_npm=(--silent --no-audit --no-fund --no-update-notifier)

# yarn 1 runs the polyglot fixture's scripts. typescript-language-server 5.x is the last line that runs on
# node 20 (6.x wants node 22); it needs TypeScript 5's tsserver.js, which TypeScript 7 no longer ships.
# They go into a package folder of their own and only yarn and the language server are linked onto PATH:
# a `tsc` on PATH would make lintel believe `npx --no-install tsc` can run in projects without typescript.
PKG_DIR="$NPM_PREFIX/packages"
# pnpm 9 is the last line that runs on node 20 (10.33+ needs node 22.13): the pnpm tests' package manager.
packages=(yarn@1.22.22 typescript-language-server@5.3.0 typescript@5.9.3 pnpm@9.15.9)
linked=(yarn yarnpkg typescript-language-server pnpm)
if [ ! -x "$PKG_DIR/node_modules/.bin/typescript-language-server" ] || [ ! -x "$PKG_DIR/node_modules/.bin/yarn" ] \
  || [ ! -x "$PKG_DIR/node_modules/.bin/pnpm" ] || [ ! -f "$PKG_DIR/node_modules/typescript/lib/tsserver.js" ]; then
  say "installing ${packages[*]} into $PKG_DIR"
  mkdir -p "$PKG_DIR"
  [ -f "$PKG_DIR/package.json" ] || echo '{"name": "lintel-tools", "private": true}' > "$PKG_DIR/package.json"
  npm install --prefix "$PKG_DIR" "${quiet_npm[@]}" --no-package-lock "${packages[@]}"
fi
mkdir -p "$NPM_PREFIX/bin"
for bin in "${linked[@]}"; do
  target="$PKG_DIR/node_modules/.bin/$bin"
  [ "$(readlink "$NPM_PREFIX/bin/$bin" 2>/dev/null)" = "$target" ] || ln -sfn "$target" "$NPM_PREFIX/bin/$bin"
done

# node_modules is current when the package manager's own record of the install is newer than the lock file.
# node-chained locks the same eslint and prettier as node (npm's cache holds them once), fix-node the same eslint.
# node-linters and node-tests depend on packages with a native binary per platform (biome, oxlint, esbuild,
# rollup): npm 11 writes their lock files without the other platforms' optional packages and then refuses them
# in `npm ci` ("Missing: @biomejs/cli-darwin-arm64 from lock file"). `npm install --no-save` installs the locked
# versions all the same and leaves the lock file as committed.
for name in node node-chained fix-node node-linters node-tests; do
  node_ws="$ROOT/tests/workspaces/$name"
  if [ -f "$node_ws/package-lock.json" ] && { [ ! -f "$node_ws/node_modules/.package-lock.json" ] \
    || [ "$node_ws/package-lock.json" -nt "$node_ws/node_modules/.package-lock.json" ]; }; then
    if [ "$name" = node ] || [ "$name" = node-chained ] || [ "$name" = fix-node ]; then
      say "npm ci in tests/workspaces/$name"
      (cd "$node_ws" && npm ci "${quiet_npm[@]}")
    else
      say "npm install --no-save in tests/workspaces/$name"
      (cd "$node_ws" && npm install --no-save "${quiet_npm[@]}")
    fi
  fi
done

poly_ws="$ROOT/tests/workspaces/polyglot"
if [ -f "$poly_ws/yarn.lock" ] && { [ ! -f "$poly_ws/node_modules/.yarn-integrity" ] \
  || [ "$poly_ws/yarn.lock" -nt "$poly_ws/node_modules/.yarn-integrity" ]; }; then
  say "yarn install in tests/workspaces/polyglot"
  (cd "$poly_ws" && yarn install --frozen-lockfile --silent --non-interactive --no-progress)
fi

# The pnpm workspace fixture: pnpm's record of the install is node_modules/.modules.yaml.
mono_ws="$ROOT/tests/workspaces/mono-pnpm"
if [ -f "$mono_ws/pnpm-lock.yaml" ] && { [ ! -f "$mono_ws/node_modules/.modules.yaml" ] \
  || [ "$mono_ws/pnpm-lock.yaml" -nt "$mono_ws/node_modules/.modules.yaml" ]; }; then
  say "pnpm install --frozen-lockfile in tests/workspaces/mono-pnpm"
  (cd "$mono_ws" && pnpm install --frozen-lockfile --silent)
fi
