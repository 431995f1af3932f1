"""The one place the server is put together: each feature is built here with what it needs injected, and its
handlers bound in the server's route table (advertised.ROUTES, served by dispatch.py); the server knows none of
them (esbonio's setup.py shape).

In two steps (docs/architecture.md, A fast start): `create_server` makes the server, which answers `initialize` with the
capabilities of the route table; `wire` loads the features, and the engine under them, right after that answer,
before the server handles any later message (app.py)."""

from __future__ import annotations

import atexit
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from lintel.frontends.lsp.advertised import COMMANDS
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.pyglscompat import quiet_expected_errors

if TYPE_CHECKING:
    from lintel.frontends.lsp.lifecycle import Lifecycle


def create_server(before_features: Callable[[], None] | None = None) -> LintelServer:
    """The server, answering `initialize`; `before_features` runs when the features load, before them."""
    quiet_expected_errors()  # a refused command is one INFO line in the log, not an ERROR traceback
    server = LintelServer()
    features = DeferredFeatures(server, before_features)
    server.features = features

    def initialize(params: types.InitializeParams) -> None:
        features.params = params  # acted on once the features are loaded (Lifecycle.initialize)

    server.routes.bind("wiring", {types.INITIALIZE: initialize})
    return server


class DeferredFeatures:
    """lintel's features, loaded after the `initialize` answer (app.Features)."""

    def __init__(self, server: LintelServer, before: Callable[[], None] | None) -> None:
        self.server = server
        self.before = before
        self.params: types.InitializeParams | None = None

    def load(self) -> None:
        if self.before is not None:
            self.before()
        life = wire(self.server)
        if self.params is not None:
            life.initialize(self.params)


def wire(server: LintelServer) -> Lifecycle:
    """Build every feature and bind its routes; the modules are imported here, after the answer."""
    from lintel.engine.workers.kinds import WORKERS
    from lintel.engine.workers.pool import WorkerPool
    from lintel.frontends.lsp import codeactions, commands, documents, lifecycle, navigation, testlenses
    from lintel.frontends.lsp.diagnostics import Diagnostics

    routes = server.routes
    diagnostics = Diagnostics(server)
    children = navigation.setup(server, diagnostics, own_commands=COMMANDS)
    workers = WorkerPool(WORKERS, report=server.notifier.once)
    atexit.register(workers.kill_all)  # an editor that exits without shutdown leaves no worker behind
    life = lifecycle.setup(server, diagnostics, children, workers)
    docs = documents.setup(server, diagnostics, reload=life.reload, workers=workers)
    handlers = commands.setup(
        server, diagnostics, forward=children.forward_command, restart=children.restart_servers, servers=children
    )
    children.router.formats = docs.formats
    actions = codeactions.setup(server, diagnostics, docs, handlers, children=children)
    lenses = testlenses.setup(server, diagnostics, docs, handlers, children=children)
    routes.bind("testlenses", testlenses.handlers(lenses))
    routes.bind("navigation", navigation.handlers(children))
    routes.bind("lifecycle", lifecycle.handlers(life, cancel_requests=routes.cancel_all))
    # The child servers hear of each document message after the document changed, in the editor's order.
    routes.bind(
        "documents", lenses.following(documents.handlers(docs, follower=children.manager, relay=children.relay))
    )
    routes.bind("commands", {types.WORKSPACE_EXECUTE_COMMAND: handlers.execute})
    routes.bind("codeactions", codeactions.handlers(actions))
    routes.bind("diagnostics", {types.TEXT_DOCUMENT_DIAGNOSTIC: diagnostics.pull})
    return life
