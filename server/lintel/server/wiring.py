"""The one place the server is put together: each feature is built here with what it needs and registers its
handlers on the server, which knows none of them (esbonio's setup.py shape)."""

from __future__ import annotations

import atexit

from lintel.pyglscompat import quiet_expected_errors
from lintel.server import commands, documents, lifecycle, navigation
from lintel.server.app import LintelServer
from lintel.server.diagnostics import Diagnostics
from lintel.workers.kinds import WORKERS
from lintel.workers.pool import WorkerPool


def create_server() -> LintelServer:
    quiet_expected_errors()  # a refused command is one INFO line in the log, not an ERROR traceback
    server = LintelServer()
    diagnostics = Diagnostics(server)
    children = navigation.setup(server, diagnostics, own_commands=commands.OFFERED)
    workers = WorkerPool(WORKERS, report=server.notifier.once)
    atexit.register(workers.kill_all)  # an editor that exits without shutdown leaves no worker behind
    life = lifecycle.setup(server, diagnostics, children, workers)
    documents.setup(server, diagnostics, reload=life.reload, workers=workers)
    commands.setup(server, diagnostics, forward=children.forward_command, restart=children.restart_servers)
    return server
