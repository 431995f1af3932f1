#!/usr/bin/env bash
# Rust: cargo, clippy and rustfmt come from rustup's toolchain on the machine (rustup cannot download here,
# see /work/shared/TOOLCHAINS.md). Checks only; a missing component is added if rustup can, otherwise named —
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

# Navigation tests need rust-analyzer; it is only ever used if already installed (no download here).
if command -v rustup >/dev/null 2>&1; then
  if ! rustup component list --installed 2>/dev/null | grep -q '^rust-analyzer'; then
    say "rust: rust-analyzer is not installed (rustup component add rust-analyzer); Rust navigation tests will be skipped"
  fi
elif ! command -v rust-analyzer >/dev/null 2>&1; then
  say "rust: rust-analyzer not found; Rust navigation tests will be skipped"
fi
exit 0
