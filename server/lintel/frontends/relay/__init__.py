"""Child language servers behind lintel: one typed client per (language, project root), started lazily,
with document sync, request routing and position-encoding conversion (docs/editors.md, Navigation)."""
