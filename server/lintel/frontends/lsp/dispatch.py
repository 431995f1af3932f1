"""The one dispatcher of the editor's messages: the routes of advertised.ROUTES, each bound to its feature's handler
(wiring.py), served on the JSON as it was read; pygls serves what is not lintel's (its built-ins, answers).

A handler gets its params structured as lsprotocol types, or as JSON for a `raw` route. An "inline" route's handler
runs in the reader (a request's gets a `reply(result, error)` function and returns a cancel function, or an awaitable
that finishes it as a task); a "task" route's coroutine runs as a task; a request's task is cancelled by
`$/cancelRequest` under the editor's own id."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from cattrs import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcRequestCancelled

from lintel.frontends.lsp.advertised import Route, advertised
from lintel.frontends.lsp.pyglscompat import converter_of
from lintel.frontends.lsp.shared import RawJson

if TYPE_CHECKING:
    from cattrs import Converter
    from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)

# A feature's handler for a route: see the module's docstring for what each kind of route calls it with.
Handler = Callable[..., Any]
# How an inline request is answered: (result, error); only the first call counts.
Reply = Callable[[Any, "BaseException | None"], None]


class Host(Protocol):
    """What the dispatcher needs of the server (app.LintelServer, which builds it: no import back)."""

    @property
    def protocol(self) -> LanguageServerProtocol: ...

    def feature(self, method: str) -> Callable[[Handler], Handler]: ...

    def spawn(self, coro: Any) -> asyncio.Task[Any]: ...

    def send_json(self, message: dict[str, Any]) -> None: ...

    def report_server_error(self, error: Exception, source: Any) -> None: ...


class _Cancellable(Protocol):
    def cancel(self) -> Any: ...


class _Cancel:
    __slots__ = ("cancel",)

    def __init__(self, cancel: Callable[[], None]) -> None:
        self.cancel = cancel


class Dispatcher:
    """Method -> (route, handler): bound by the features as they load, served for the routes the client was
    advertised (`activate`, at the `initialize` answer)."""

    def __init__(self, server: Host, routes: Iterable[Route]) -> None:
        self._server = server
        self._routes = {route.method: route for route in routes}
        self._handlers: dict[str, Handler] = {}
        self._served: dict[str, tuple[Route, Handler]] = {}  # what _on_message serves (not pygls's)
        self._active: frozenset[str] | None = None  # the methods advertised to this client
        self._pending: dict[tuple[type, Any], _Cancellable] = {}  # by request id (1 and "1" differ)
        self._converter: Converter | None = None

    # -- the table ------------------------------------------------------------------------------------

    def bind(self, feature: str, handlers: Mapping[str, Handler]) -> None:
        """`feature`'s handlers, one for each of its routes (exactly those: a route left unbound, or a handler for
        a method the table does not route, is a wiring bug)."""
        declared = {method for method, route in self._routes.items() if route.feature == feature}
        if set(handlers) != declared:
            raise ValueError(f"{feature} binds {sorted(handlers)}, its routes are {sorted(declared)}")
        for method, handler in handlers.items():
            if method in self._handlers:
                raise ValueError(f"{method} is bound twice")
            self._handlers[method] = handler
            route = self._routes[method]
            if route.run == "pygls":
                # pygls runs its built-in step (the state it keeps), then this handler.
                self._server.feature(method)(handler)
        self._update()

    def activate(self, capabilities: types.ClientCapabilities) -> tuple[Route, ...]:
        """The routes this client is served, advertised in the `initialize` answer."""
        routes = advertised(capabilities)
        self._active = frozenset(route.method for route in routes)
        self._update()
        return routes

    def bound(self) -> tuple[Route, ...]:
        """The routes with a handler, in the table's order."""
        return tuple(route for method, route in self._routes.items() if method in self._handlers)

    def _update(self) -> None:
        self._served = {
            method: (route, self._handlers[method])
            for method, route in self._routes.items()
            if method in self._handlers and route.run != "pygls" and (self._active is None or method in self._active)
        }

    # -- serving ----------------------------------------------------------------------------------------

    def serve(self, data: dict[str, Any], method: Any) -> bool:
        """Serve one message from the editor; False when it is pygls's to handle."""
        entry = self._served.get(method) if isinstance(method, str) else None
        if entry is None:
            return method == types.CANCEL_REQUEST and self._cancel(data.get("params"))
        route, handler = entry
        params = data.get("params") if route.raw else self._structure(method, data.get("params"))
        if "id" not in data:
            self._notify(route, handler, params)
        elif route.run == "inline":
            self._serve_inline(route, handler, data["id"], params)
        else:
            self._start_task(route, handler(params), data["id"])
        return True

    def _structure(self, method: str, params: Any) -> Any:
        """The params as pygls would structure them (the same converter), with the errors pygls raises."""
        if self._converter is None:
            self._converter = converter_of(self._server.protocol)
        kind: Any = types.METHOD_TO_TYPES[method][2]
        try:
            return self._converter.structure(params, kind)
        except ClassValidationError as exc:
            raise JsonRpcInvalidParams() from exc
        except Exception as exc:
            raise JsonRpcInternalError() from exc

    def _notify(self, route: Route, handler: Handler, params: Any) -> None:
        try:
            outcome = handler(params)
        except Exception as exc:
            log.exception("the %s handler failed", route.method)
            self._server.report_server_error(exc, JsonRpcException)
            return
        if inspect.isawaitable(outcome):
            self._server.spawn(outcome)

    def _serve_inline(self, route: Route, handler: Handler, msg_id: Any, params: Any) -> None:
        key = _id_key(msg_id)
        answered = False

        def reply(result: Any, error: BaseException | None) -> None:
            nonlocal answered
            if answered:
                return
            answered = True
            if key is not None:
                self._pending.pop(key, None)
            self._reply(route, msg_id, result, error)

        try:
            outcome = handler(params, reply)
        except Exception as exc:
            reply(None, exc)
            return
        if inspect.isawaitable(outcome):
            self._start_task(route, outcome, msg_id)
        elif callable(outcome) and key is not None and not answered:
            cancel: Callable[[], None] = outcome

            def cancelled() -> None:
                cancel()
                reply(None, JsonRpcRequestCancelled(f'Request with id "{msg_id}" is canceled'))

            self._pending[key] = _Cancel(cancelled)

    def _start_task(self, route: Route, work: Any, msg_id: Any) -> None:
        task = asyncio.ensure_future(work)
        key = _id_key(msg_id)
        if key is not None:
            self._pending[key] = task
        task.add_done_callback(lambda done: self._answer_task(route, msg_id, done))

    def _answer_task(self, route: Route, msg_id: Any, task: asyncio.Future[Any]) -> None:
        key = _id_key(msg_id)
        if key is not None and self._pending.get(key) is task:
            del self._pending[key]
        if task.cancelled():
            self._reply(route, msg_id, None, JsonRpcRequestCancelled(f'Request with id "{msg_id}" is canceled'))
        else:
            self._reply(route, msg_id, task.result() if task.exception() is None else None, task.exception())

    def _cancel(self, params: Any) -> bool:
        """$/cancelRequest for a request served here: it is cancelled (the editor then gets -32800). False for
        any other id: pygls's own requests are pygls's to cancel."""
        key = _id_key(params.get("id")) if isinstance(params, dict) else None
        pending = self._pending.get(key) if key is not None else None
        if pending is None:
            return False
        pending.cancel()
        return True

    def cancel_all(self) -> None:
        """Every request in flight cancelled (at `shutdown`, as pygls cancels its own)."""
        for pending in list(self._pending.values()):
            pending.cancel()

    def _reply(self, route: Route, msg_id: Any, result: Any, error: BaseException | None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id}
        if error is None:
            if isinstance(result, RawJson):
                result = result.value  # a child's JSON, on a raw route too: the encoder knows no RawJson
            elif not route.raw and result is not None:
                if self._converter is None:
                    self._converter = converter_of(self._server.protocol)
                result = self._converter.unstructure(result)
            message["result"] = result
        elif isinstance(error, JsonRpcException):
            if not isinstance(error, JsonRpcRequestCancelled):
                self._server.report_server_error(error, JsonRpcException)
            message["error"] = error_payload(error)
        else:
            log.error("request %s (%s) failed", msg_id, route.method, exc_info=error)
            message["error"] = error_payload(JsonRpcInternalError(f"{type(error).__name__}: {error}"))
        self._server.send_json(message)


def _id_key(msg_id: Any) -> tuple[type, Any] | None:
    return (type(msg_id), msg_id) if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


def error_payload(error: JsonRpcException) -> dict[str, Any]:
    payload: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        payload["data"] = error.data
    return payload
