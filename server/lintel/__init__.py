"""lintel: one engine for lint, typecheck and tests across Go, Rust, Node and Python, served over LSP and CLI."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lintel-lsp")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"
