#!/usr/bin/env bash
# Rust: cargo, clippy and rustfmt come from rustup's toolchain on the machine (rustup cannot download components
# here: its dist server is out of reach). Checks only; a missing component is added if rustup can, otherwise named —
# setup goes on and the Rust tests skip with that reason. Silent when everything is present.
set -uo pipefail
command -v say >/dev/null 2>&1 || say() { printf 'setup: %s\n' "$*" >&2; }
export PATH="$HOME/.cargo/bin:$PATH"

if ! command -v cargo >/dev/null 2>&1; then
  say "rust: cargo not found — install Rust with rustup (https://rustup.rs); Rust checks and tests will be skipped"
  exit 0
fi

# `cargo <sub> --version` rather than `command -v cargo-<sub>`: rustup puts proxies on PATH for components
# that are not installed.
have() { cargo "$1" --version >/dev/null 2>&1; }

for component in clippy fmt; do
  have "$component" && continue
  name="$component"; [ "$component" = fmt ] && name=rustfmt
  if command -v rustup >/dev/null 2>&1 && rustup component add "$name" >/dev/null 2>&1 && have "$component"; then
    say "rust: added the $name component"
  else
    say "rust: $name is missing and could not be added (rustup component add $name); its checks will be skipped"
  fi
done

# Navigation tests need rust-analyzer. rustup cannot download its component here, so when no working one is on
# PATH (rustup's proxy answers "Unknown binary 'rust-analyzer'" when the component is absent) the pinned
# release is compiled from crates.io (ra_ap_rust-analyzer, which has a rust-analyzer [[bin]]) into
# $LINTEL_TOOLS_DIR/rust/bin; scripts/toolpath puts that folder before ~/.cargo/bin.
# 0.0.349 and later do not build on stable 1.95 (unstable `assert_matches` in ra_ap_tt, then rust-version
# 1.98); 0.0.348 is the newest that does. Kept in step with tests/e2e/nav_support.py's skip hint.
RUST_ANALYZER_VERSION=0.0.348
tools="${LINTEL_TOOLS_DIR:-$HOME/.cache/lintel-tools}/rust"
ra_bin="$tools/bin/rust-analyzer"

# `rust-analyzer --version` prints "rust-analyzer 0.0.0 (…)" for crates.io builds, so the pinned version is
# read from cargo's own install record instead.
built_version() {
  [ -x "$ra_bin" ] && "$ra_bin" --version >/dev/null 2>&1 || return 0
  sed -n 's/^"ra_ap_rust-analyzer \([^ ]*\) .*/\1/p' "$tools/.crates.toml" 2>/dev/null
}

if [ "$(built_version)" = "$RUST_ANALYZER_VERSION" ]; then
  exit 0
fi
if [ ! -x "$ra_bin" ] && rust-analyzer --version >/dev/null 2>&1; then
  exit 0  # rustup's component (or another install) already works
fi
say "rust: building rust-analyzer $RUST_ANALYZER_VERSION from crates.io (15-25 minutes on 2 cores the first time)"
log="$(mktemp)"
# The target folder stays beside the binary until a build succeeds, so an interrupted build resumes.
if nice -n 15 cargo install --locked --root "$tools" --target-dir "$tools/target" \
  ra_ap_rust-analyzer --version "$RUST_ANALYZER_VERSION" >"$log" 2>&1 && "$ra_bin" --version >/dev/null 2>&1; then
  rm -rf "$tools/target"
else
  tail -n 30 "$log" >&2
  say "rust: building rust-analyzer $RUST_ANALYZER_VERSION failed; Rust navigation tests will be skipped"
fi
rm -f "$log"
exit 0
