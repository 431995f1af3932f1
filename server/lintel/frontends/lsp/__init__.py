"""The language server: pygls wiring around the engine (checks, parsers, toolchains)."""
