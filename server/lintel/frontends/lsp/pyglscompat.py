"""The pygls internals lintel relies on, all here: checked against pygls 2.1.1 (pyproject.toml pins the minor),
and tests/unit/test_pyglscompat.py fails when they change. The rest of lintel uses pygls's public API only.

The one extension point past pygls's dispatch is lintel's route table (dispatch.py): it serves its routes on the JSON
as read, with the converter pygls structures messages with (`converter_of`), and the capabilities pygls computes
(`capabilities_with`); pygls keeps `initialize`, `shutdown`, `exit`, its other built-ins and the editor's answers."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

if TYPE_CHECKING:
    from cattrs import Converter
    from pygls.lsp.server import LanguageServer
    from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol

    from lintel.frontends.lsp.advertised import Route

PYGLS_CHECKED = "2.1.1"
FINISHED_HANDLERS_FLOOR = 64  # entries in pygls's table of handler futures before a sweep is worth it


def converter_of(protocol: JsonRPCProtocol) -> Converter:
    """The converter `protocol` writes its messages with: a hook registered on it applies to what it sends.

    pygls builds it once and hands the same object to the protocol (`_converter`) and to its feature manager,
    whose attribute is public."""
    converter: Converter = protocol.fm.converter
    return converter


def capabilities_with(
    protocol: LanguageServerProtocol, params: types.InitializeParams, routes: Iterable[Route]
) -> types.ServerCapabilities:
    """The capabilities pygls's `initialize` computes from its features, computed from lintel's `routes` as well
    (their options; the commands from executeCommand's), stored where pygls keeps its own.

    pygls builds them with ServerCapabilitiesBuilder from its feature manager and the server's sync options
    (`lsp_initialize`); the builder and its arguments are what this reproduces."""
    manager = protocol.fm
    server = protocol._server
    listed = tuple(r for r in routes if not r.registered)
    options = {r.method: o for r in listed if (o := r.options_of(params.capabilities)) is not None}
    execute = options.pop(types.WORKSPACE_EXECUTE_COMMAND, None)
    commands = list(execute.commands) if isinstance(execute, types.ExecuteCommandOptions) else []
    capabilities: types.ServerCapabilities = ServerCapabilitiesBuilder(
        params.capabilities,
        {*manager.features, *manager.builtin_features, *(r.method for r in listed)},
        {**manager.feature_options, **options},
        list(dict.fromkeys([*manager.commands, *commands])),
        server._text_document_sync_kind,
        server._notebook_document_sync,
        ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities),
    ).build()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    protocol.server_capabilities = capabilities
    return capabilities


def is_shutting_down(protocol: JsonRPCProtocol) -> bool:
    """Whether the client has sent `shutdown`: pygls then drops every message but `exit`."""
    return protocol._shutdown


def progress_cancelled(server: LanguageServer, token: types.ProgressToken) -> Any:
    """The future pygls cancels when the client sends `window/workDoneProgress/cancel` for `token` (made by
    `work_done_progress.begin`), or None."""
    return server.work_done_progress.tokens.get(token)


def forget_progress(server: LanguageServer, token: types.ProgressToken) -> None:
    """pygls's future for `token` dropped: pygls keeps one per token forever (with the callbacks on it), and a
    token the client reuses must start afresh (an earlier run's cancelled future would cancel the new run)."""
    server.work_done_progress.tokens.pop(token, None)


_UNREADABLE = "Unable to deserialize message"  # pygls 2.1.1, JsonRPCProtocol.structure_message


class ExpectedErrorsAsInfo(logging.Filter):
    """pygls logs every error a request handler raises with its traceback at ERROR (`Exception occurred for
    message`), the errors lintel raises on purpose too: a bad argument, an undetectable project, a refusal. Those
    are answers, not faults: one INFO line with the message. Anything else keeps its traceback.

    A message whose params pygls cannot read (`structure_message`) is logged by pygls with cattrs's whole
    exception tree (`Unable to deserialize message`, a long record); lintel logs each such message in one line where it
    reads it (LintelServer._on_message), so pygls's record is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(_UNREADABLE):
            return False
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = "%s (code %s): %s", (record.getMessage(), error.code, error.message)
            record.exc_info, record.exc_text = None, None
        return True


def quiet_expected_errors() -> None:
    """Install ExpectedErrorsAsInfo on the logger pygls reports request errors to (once)."""
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, ExpectedErrorsAsInfo) for f in logger.filters):
        logger.addFilter(ExpectedErrorsAsInfo())


class FinishedHandlers:
    """pygls keeps the future of every handler it runs in `_request_futures` (where `$/cancelRequest` finds it),
    but removes it only when it answers a request: the handler of a notification (filed under a fresh uuid) and
    each step of a built-in generator handler (didOpen, didChange, didSave and didClose run the user's handler as
    a second step) stay forever, done — lintel's RSS grew with every document notification under the save storms of
    bench/soak.py. `sweep` drops the finished ones once the table has doubled since the last sweep (so it stays under
    twice the handlers in flight, at amortized O(1) a message), and the result types of requests lintel sent that will
    never be structured: answered with an error, or abandoned (pygls #608)."""

    def __init__(self, protocol: JsonRPCProtocol) -> None:
        self._protocol = protocol
        self._next_sweep = FINISHED_HANDLERS_FLOOR

    def sweep(self) -> int:
        """Call between messages, on the event loop (pygls's own handlers iterate the table synchronously).
        Returns how many futures were dropped."""
        futures = self._protocol._request_futures
        if len(futures) < self._next_sweep:
            return 0
        finished = [msg_id for msg_id, future in futures.items() if future.done()]
        for msg_id in finished:
            del futures[msg_id]
        result_types = self._protocol._result_types
        for msg_id in [msg_id for msg_id in result_types if msg_id not in futures]:
            del result_types[msg_id]
        self._next_sweep = max(FINISHED_HANDLERS_FLOOR, 2 * len(futures))
        return len(finished)
