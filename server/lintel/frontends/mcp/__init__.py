"""`lintel mcp`: the agent commands served as MCP tools over stdio (docs/architecture.md, Commands and MCP tools).

`tools` says what each tool is (its arguments, the engine call in lintel.engine.actions, its one-line summary) and
knows nothing of the SDK; `serve` is the SDK's stdio server wired to that table."""
