"""lintel: one engine for lint, typecheck and tests across Go, Rust, Node and Python, served over LSP and CLI."""

# The one place the version is written (pyproject.toml reads it from here): importlib.metadata would add to every server
# start before `initialize` can be answered (docs/architecture.md, A fast start).
__version__ = "0.1.0"
