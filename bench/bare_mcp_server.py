"""The MCP start-up baseline: the SDK's low-level server with no tools of its own, on stdio as `lintel mcp` runs."""

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server


async def main() -> None:
    server: Server = Server("bare")
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
