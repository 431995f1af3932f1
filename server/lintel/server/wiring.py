"""The one place the server is put together: each feature is built here with what it needs and registers its
handlers on the server, which knows none of them (esbonio's setup.py shape)."""

from __future__ import annotations

from lintel.pyglscompat import quiet_expected_errors
from lintel.server import commands, documents, lifecycle, navigation
from lintel.server.app import LintelServer
from lintel.server.diagnostics import Diagnostics


def create_server() -> LintelServer:
    quiet_expected_errors()  # a refused command is one INFO line in the log, not an ERROR traceback
    server = LintelServer()
    diagnostics = Diagnostics(server)
    children = navigation.setup(server, diagnostics, own_commands=commands.OFFERED)
    life = lifecycle.setup(server, diagnostics, children)
    documents.setup(server, diagnostics, reload=life.reload)
    commands.setup(server, diagnostics, forward=children.forward_command, restart=children.restart_servers)
    return server
