#!/usr/bin/env bash
# Go tools for lintel's tests: golangci-lint, gopls and reviewdog, compiled from source (the Go module proxy is all
# these machines reach) into $LINTEL_TOOLS_DIR/go/bin. The build and module caches live beside them, so a
# later run (or a rebuild after a version bump) reuses what the first one compiled.
# Quiet when both binaries already have the pinned versions. go, go vet and gofmt come with Go itself.
set -euo pipefail

# Kept in step with server/lintel/toolchains/go.py (its install hints name the same versions).
GOLANGCI_LINT_VERSION=v2.15.0
GOPLS_VERSION=v0.23.0
# reviewdog reads `lintel check --format rdjsonl` in the tests.
REVIEWDOG_VERSION=v0.20.3

if ! declare -F say >/dev/null; then say() { printf 'setup: %s\n' "$*" >&2; }; fi

tools="${LINTEL_TOOLS_DIR:-$HOME/.cache/lintel-tools}/go"
go_bin="$(command -v go || true)"
if [ -z "$go_bin" ] && [ -x /usr/local/go/bin/go ]; then go_bin=/usr/local/go/bin/go; fi
if [ -z "$go_bin" ]; then
  say "go not found: skipping golangci-lint and gopls (install Go from https://go.dev/dl/)"
  exit 0
fi

export GOBIN="$tools/bin" GOCACHE="$tools/cache" GOMODCACHE="$tools/mod"
# local: never let a go.mod elsewhere trigger a toolchain download; -modcacherw: the module cache stays
# deletable (go makes it read-only by default).
export GOTOOLCHAIN=local GOFLAGS=-modcacherw
mkdir -p "$GOBIN"

# The module version a binary was built from, as `go version -m` records it (no need to run the binary).
built_version() {
  [ -x "$1" ] || return 0
  "$go_bin" version -m "$1" 2>/dev/null | awk -v mod="$2" '$1 == "mod" && $2 == mod { print $3 }'
}

build_tool() {
  local name="$1" module="$2" package="$3" version="$4"
  if [ "$(built_version "$GOBIN/$name" "$module")" = "$version" ]; then
    return 0
  fi
  say "building $name $version (a few minutes the first time)"
  local log
  log="$(mktemp)"
  if ! (cd "$tools" && "$go_bin" install "$package@$version") >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    say "building $name $version failed"
    return 1
  fi
  rm -f "$log"
}

build_tool golangci-lint github.com/golangci/golangci-lint/v2 \
  github.com/golangci/golangci-lint/v2/cmd/golangci-lint "$GOLANGCI_LINT_VERSION"
build_tool gopls golang.org/x/tools/gopls golang.org/x/tools/gopls "$GOPLS_VERSION"
# One of reviewdog's dependencies (a golang.org/x/build pseudo-version) has no entry in the checksum database the
# proxy serves (404): that module alone is not looked up there.
GONOSUMDB=golang.org/x/build build_tool reviewdog github.com/reviewdog/reviewdog \
  github.com/reviewdog/reviewdog/cmd/reviewdog "$REVIEWDOG_VERSION"
