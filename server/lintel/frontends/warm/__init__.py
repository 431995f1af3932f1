"""The warm lintel: a per-user process that has paid lintel's imports once and forks a ready lintel for each command
(docs/architecture.md, "The warm lintel"). Its client is the `lintel` entry point; it imports almost nothing."""
