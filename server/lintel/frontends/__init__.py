"""The ways in: the CLI, the language server (lsp, relay to child servers), MCP, and the report writers."""
