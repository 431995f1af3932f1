"""lintel: one engine for lint, typecheck and tests across Go, Rust, Node and Python, served over LSP and CLI."""

# The one place the version is written (pyproject.toml reads it from here): importlib.metadata would cost ~30 ms
# of every server start before `initialize` can be answered (docs/design.md, A fast start).
__version__ = "0.1.0"
