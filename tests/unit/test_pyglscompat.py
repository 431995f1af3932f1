"""What lintel.frontends.lsp.pyglscompat assumes of pygls's internals, checked on a real LanguageServer: when an
upgrade changes
them, these fail (and the pin in pyproject.toml says which version they were checked on)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.metadata
import inspect
import logging
from typing import Any

import attrs
import pytest
from lintel.frontends.lsp.advertised import Route
from lintel.frontends.lsp.pyglscompat import (
    FINISHED_HANDLERS_FLOOR,
    PYGLS_CHECKED,
    FinishedHandlers,
    capabilities_with,
    converter_of,
    forget_progress,
    is_shutting_down,
    progress_cancelled,
    quiet_expected_errors,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.protocol import json_rpc

from tests.helpers import MessageRecorder


def serving() -> tuple[LanguageServer, MessageRecorder]:
    server = LanguageServer("compat", "0")
    out = MessageRecorder()
    server.protocol.set_writer(out, include_headers=False)
    return server, out


def receive(server: LanguageServer, message: dict[str, Any]) -> None:
    protocol = server.protocol
    protocol.handle_message(protocol.structure_message({"jsonrpc": "2.0", **message}))


@attrs.define
class Wrapped:
    value: Any


def test_the_installed_pygls_is_the_minor_the_internals_were_checked_on() -> None:
    installed = importlib.metadata.version("pygls").split(".")[:2]
    assert installed == PYGLS_CHECKED.split(".")[:2], (
        "recheck lintel.frontends.lsp.pyglscompat against this pygls, then re-pin"
    )


def test_a_hook_on_the_converter_applies_to_what_the_protocol_sends() -> None:
    server, out = serving()
    converter_of(server.protocol).register_unstructure_hook(Wrapped, lambda wrapped: wrapped.value)
    server.protocol.notify("custom/raw", Wrapped({"kept": [1, "two"]}))
    assert out.messages == [{"jsonrpc": "2.0", "method": "custom/raw", "params": {"kept": [1, "two"]}}]


def test_shutting_down_is_false_until_shutdown_then_only_exit_is_handled() -> None:
    server, out = serving()
    seen: list[str] = []

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def saved(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        seen.append(params.text_document.uri)

    save = {"method": types.TEXT_DOCUMENT_DID_SAVE, "params": {"textDocument": {"uri": "file:///a"}}}
    receive(server, save)
    assert (is_shutting_down(server.protocol), seen) == (False, ["file:///a"])

    receive(server, {"id": 1, "method": types.SHUTDOWN})
    assert is_shutting_down(server.protocol)
    assert out.messages == [{"jsonrpc": "2.0", "id": 1, "result": None}]
    receive(server, save)  # dropped by pygls: lintel's own readers must drop it too
    assert seen == ["file:///a"]


def test_a_progress_token_s_future_is_cancelled_by_the_client_and_forgotten_on_request() -> None:
    server, _ = serving()
    token = "run-1"
    assert progress_cancelled(server, token) is None
    server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="t", cancellable=True))
    cancelled = progress_cancelled(server, token)
    assert cancelled is not None
    assert not cancelled.done()
    receive(server, {"method": types.WINDOW_WORK_DONE_PROGRESS_CANCEL, "params": {"token": token}})
    assert cancelled.cancelled()  # pygls cancels the very future lintel hooks the run's task to
    forget_progress(server, token)
    assert progress_cancelled(server, token) is None
    server.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="again"))
    assert not progress_cancelled(server, token).done()  # a reused token starts afresh
    forget_progress(server, "never-begun")  # forgetting an unknown token is harmless


def test_the_converter_structures_a_notification_s_params_as_pygls_does() -> None:
    """dispatch.py structures its routes' params with converter_of's converter, the params type lsprotocol names."""
    server, _ = serving()
    params = {"textDocument": {"uri": "file:///a", "version": 2}, "contentChanges": [{"text": "x"}]}
    kind: Any = types.METHOD_TO_TYPES[types.TEXT_DOCUMENT_DID_CHANGE][2]
    ours: Any = converter_of(server.protocol).structure(params, kind)
    message = {"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE, "params": params}
    assert ours == server.protocol.structure_message(message).params


def test_expected_request_errors_are_one_info_line_and_faults_keep_their_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every error answered to executeCommand was logged as a traceback at ERROR."""
    # The filter sits where pygls really reports a handler's error.
    assert "logger.exception('Exception occurred for message" in inspect.getsource(json_rpc)
    quiet_expected_errors()
    quiet_expected_errors()  # installing twice adds one filter
    assert len(json_rpc.logger.filters) == 1
    with caplog.at_level(logging.INFO, logger=json_rpc.logger.name):
        for error in (JsonRpcException(message="2 projects found", code=-32803), JsonRpcInternalError("boom")):
            try:
                raise error
            except JsonRpcException:
                json_rpc.logger.exception('Exception occurred for message "%s"', 7)
    expected, fault = caplog.records
    assert (expected.levelname, expected.exc_info) == ("INFO", None)
    assert expected.getMessage() == 'Exception occurred for message "7" (code -32803): 2 projects found'
    assert fault.levelname == "ERROR"
    assert fault.exc_info is not None


def test_pygls_s_traceback_for_an_unreadable_message_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    """pygls logged cattrs's whole exception tree for each malformed message;
    lintel logs each in one line where it reads it."""
    assert '"Unable to deserialize message' in inspect.getsource(json_rpc.JsonRPCProtocol.structure_message)
    quiet_expected_errors()
    with caplog.at_level(logging.INFO, logger=json_rpc.logger.name):
        json_rpc.logger.error("Unable to deserialize message\n%s", "Traceback ...")
        json_rpc.logger.error("something else")
    assert [r.getMessage() for r in caplog.records] == ["something else"]


async def settle() -> None:
    """Let the tasks the handlers started run to their end."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_pygls_keeps_every_finished_notification_handler_and_the_sweep_drops_them() -> None:
    """bench/soak.py: lintel's RSS grew steadily under save storms — pygls files each notification's handler
    in `_request_futures` and never removes it."""
    server, _ = serving()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def saved(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        return None

    save = {"method": types.TEXT_DOCUMENT_DID_SAVE, "params": {"textDocument": {"uri": "file:///a"}}}
    for _ in range(100):
        receive(server, save)
    await settle()
    futures = server.protocol._request_futures
    # The pygls behaviour FinishedHandlers exists for: when this fails, pygls cleans up itself.
    # One task per save (didOpen, didChange and didClose leave two: pygls's built-in step runs first).
    assert len(futures) == 100
    assert all(future.done() for future in futures.values())

    sweeper = FinishedHandlers(server.protocol)
    assert sweeper.sweep() == 100
    assert futures == {}
    for _ in range(FINISHED_HANDLERS_FLOOR - 1):
        receive(server, save)
    await settle()
    assert sweeper.sweep() == 0  # below the floor: not worth a pass over the table
    assert len(futures) == FINISHED_HANDLERS_FLOOR - 1


async def test_the_sweep_keeps_what_is_in_flight_and_forgets_abandoned_requests() -> None:
    server, _ = serving()
    release = asyncio.Event()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def saved(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        await release.wait()

    receive(server, {"method": types.TEXT_DOCUMENT_DID_SAVE, "params": {"textDocument": {"uri": "file:///a"}}})
    await settle()
    protocol = server.protocol
    running = {msg_id for msg_id, future in protocol._request_futures.items() if not future.done()}
    assert len(running) == 1
    # lintel's requests to the editor share the table: one waiting for its answer, one given up on.
    waiting = protocol.send_request(types.WORKSPACE_CONFIGURATION, types.ConfigurationParams(items=[]), msg_id="w")
    abandoned = protocol.send_request(types.WORKSPACE_CONFIGURATION, types.ConfigurationParams(items=[]), msg_id="a")
    abandoned.cancel()
    for n in range(FINISHED_HANDLERS_FLOOR):
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        done.set_result(None)
        protocol._request_futures[f"done-{n}"] = done

    FinishedHandlers(protocol).sweep()
    assert set(protocol._request_futures) == running | {"w"}
    assert set(protocol._result_types) == {"w"}
    assert not waiting.done()
    release.set()
    await settle()


def test_the_capabilities_are_pygls_s_builder_s_with_lintel_s_routes() -> None:
    """capabilities_with reads the server's sync options where pygls keeps them and stores what it computes where
    pygls's own `initialize` would."""
    server = LanguageServer("compat", "0", text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    routes = [
        Route(types.TEXT_DOCUMENT_HOVER, "test"),
        Route(types.TEXT_DOCUMENT_DID_SAVE, "test"),
        Route(types.WORKSPACE_EXECUTE_COMMAND, "test", types.ExecuteCommandOptions(commands=["x.run"])),
        Route(types.TEXT_DOCUMENT_COMPLETION, "test", types.CompletionOptions(trigger_characters=["."])),
    ]
    params = types.InitializeParams(capabilities=types.ClientCapabilities())
    capabilities = capabilities_with(server.protocol, params, routes)
    assert server.protocol.server_capabilities is capabilities
    assert capabilities.hover_provider is True
    assert capabilities.completion_provider == types.CompletionOptions(trigger_characters=["."])
    assert capabilities.execute_command_provider == types.ExecuteCommandOptions(commands=["x.run"])
    sync = capabilities.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert sync.save is not None  # didSave routed: the client is asked to send it
