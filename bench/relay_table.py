"""Every method the default language servers advertise, and whether lintel relays it: a Markdown table per server.

    python bench/relay_table.py [--servers gopls,basedpyright,rust-analyzer,tsls] [--client NAME] [--matrix]

Not a test. Each server is started directly, as lintel starts its child (same command line, root, capabilities with
UTF-16 offered, initializationOptions and settings; tests/e2e/relay_support.start_direct) on a copy of its fixture
workspace, and its `initialize` answer and the registrations it sends in the next seconds are read. A method's
"lintel" column comes from lintel.frontends.relay.methods.RELAYED and the routes of advertised.ROUTES
(tests/e2e/relay_methods.py). A server whose binary is missing is reported and left out.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "server")]

from _pytest.outcomes import Skipped  # noqa: E402 - after the path is set: the harness lives in tests/

from tests.e2e.relay_methods import ServerTable, probe  # noqa: E402
from tests.e2e.relay_support import SERVERS  # noqa: E402


async def tables(servers: list[str], client: str) -> tuple[list[ServerTable], list[str]]:
    """The servers' tables, and a line for each server that could not be run."""
    found, missing = [], []
    with tempfile.TemporaryDirectory(prefix="lintel-relay-table-") as tmp:
        for server in servers:
            try:
                SERVERS[server].require()
            except Skipped as skipped:
                missing.append(f"{server}: not run: {skipped.msg}")
                continue
            found.append(await probe(server, Path(tmp) / server, client))
    return found, missing


def matrix(found: list[ServerTable]) -> str:
    """One table: a row per method any server announces, an x per server announcing it, and how lintel serves it."""
    rows: dict[str, tuple[set[str], str]] = {}
    for table in found:
        for method, _, lintel in table.rows():
            rows.setdefault(method, (set(), lintel))[0].add(table.server)
    names = [t.server for t in found]
    lines = ["| method | " + " | ".join(names) + " | lintel |", "|---" * (len(names) + 2) + "|"]
    for method, (servers, lintel) in rows.items():
        marks = " | ".join("x" if name in servers else "" for name in names)
        lines.append(f"| {method} | {marks} | {lintel} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=",".join(SERVERS), help="comma-separated: " + ", ".join(SERVERS))
    parser.add_argument("--client", default="visual-studio-code", help="pytest-lsp's client capabilities to offer")
    parser.add_argument("--matrix", action="store_true", help="one table of every server's methods, not one each")
    args = parser.parse_args()
    servers = [s for s in args.servers.split(",") if s]
    unknown = [s for s in servers if s not in SERVERS]
    if unknown:
        parser.error(f"unknown servers: {', '.join(unknown)}")
    found, missing = asyncio.run(tables(servers, args.client))
    print(matrix(found) if args.matrix else "\n\n".join(t.markdown() for t in found))
    for line in missing:
        print(line)


if __name__ == "__main__":
    main()
