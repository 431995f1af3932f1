"""The table of relayed methods (lintel.frontends.relay.methods) as the editor sees it: each method routed to
navigation, the static ones advertised at `initialize` (for VS Code's and Neovim's capabilities), the others
registered per language once a child offers them (navigation.ServerHooks), lintel's own commands and the default
servers' never registered again."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lintel.frontends.lsp import navigation
from lintel.frontends.lsp.advertised import COMMANDS, FIX_ALL_KIND, ROUTES, registers_commands
from lintel.frontends.lsp.app import LintelServer
from lintel.frontends.lsp.diagnostics import Diagnostics
from lintel.frontends.lsp.navigation import Navigation, ServerHooks
from lintel.frontends.lsp.pyglscompat import capabilities_with
from lintel.frontends.relay.client import ChildSpec
from lintel.frontends.relay.methods import BY_METHOD, CHILD_ACTION_KINDS, CHILD_COMMANDS, RELAYED
from lintel.frontends.relay.router import supports
from lintel.frontends.relay.tokens import TOKEN_MODIFIERS, TOKEN_TYPES
from lsprotocol import types
from pytest_lsp import client_capabilities

CLIENTS = ("visual-studio-code", "neovim")
RELAYED_HERE = [r for r in RELAYED if not r.merged]


def initialize_answer(client: str) -> types.ServerCapabilities:
    """The capabilities lintel answers `initialize` with, for a bundled client's capabilities (as app.py does)."""
    capabilities = client_capabilities(client)
    server = LintelServer()
    params = types.InitializeParams(capabilities=capabilities)
    return capabilities_with(server.protocol, params, server.routes.activate(capabilities))


def as_child(capabilities: types.ServerCapabilities) -> Any:
    """The answer read as a child's: `supports` says what it offers, option by option."""
    return SimpleNamespace(capabilities=capabilities, registered=set())


# -- routes -------------------------------------------------------------------------------------------------------


def test_every_relayed_method_has_a_raw_route_bound_by_navigation() -> None:
    routes = {route.method: route for route in ROUTES}
    for relayed in RELAYED_HERE:
        route = routes[relayed.method]
        assert route.feature == "navigation", relayed.method
        assert route.raw, relayed.method
        assert route.registered == (not relayed.static), relayed.method
    for relayed in RELAYED:
        if relayed.merged:
            assert routes[relayed.method].feature != "navigation", relayed.method


async def test_navigation_binds_a_handler_for_each_of_them() -> None:
    server = LintelServer()
    nav = Navigation(server, Diagnostics(server), own_commands=())
    assert set(navigation.handlers(nav)) == {r.method for r in RELAYED_HERE}


# -- advertised at initialize -------------------------------------------------------------------------------------


def file_operation_taken(client: str, relayed: Any) -> bool:
    """pygls advertises a file operation only to a client that sends it (Neovim sends none)."""
    operations = getattr(client_capabilities(client).workspace, "file_operations", None)
    member = relayed.provider
    return bool(getattr(operations, member, False))


@pytest.mark.parametrize("client", CLIENTS)
def test_static_methods_are_advertised_and_the_others_are_not(client: str) -> None:
    answer = as_child(initialize_answer(client))
    for relayed in RELAYED:
        if not relayed.static or (relayed.scope == "files" and not file_operation_taken(client, relayed)):
            assert not supports(answer, relayed.method), relayed.method
        else:
            assert supports(answer, relayed.method), relayed.method


def test_vs_code_is_told_of_the_default_servers_file_operations() -> None:
    answer = as_child(initialize_answer("visual-studio-code"))
    static_files = [r.method for r in RELAYED if r.scope == "files" and r.static]
    assert static_files
    assert all(supports(answer, method) for method in static_files)


@pytest.mark.parametrize("client", CLIENTS)
def test_semantic_tokens_are_advertised_in_lintels_legend_with_delta_and_range(client: str) -> None:
    provider = initialize_answer(client).semantic_tokens_provider
    assert isinstance(provider, types.SemanticTokensOptions)
    assert provider.legend.token_types == list(TOKEN_TYPES)
    assert provider.legend.token_modifiers == list(TOKEN_MODIFIERS)
    assert provider.range is True
    assert isinstance(provider.full, types.SemanticTokensFullDelta)
    assert provider.full.delta is True


@pytest.mark.parametrize("client", CLIENTS)
def test_code_action_kinds_are_the_childrens_and_lintels_fix_all(client: str) -> None:
    provider = initialize_answer(client).code_action_provider
    assert isinstance(provider, types.CodeActionOptions)
    kinds = provider.code_action_kinds or []
    assert set(CHILD_ACTION_KINDS) <= set(kinds)
    assert FIX_ALL_KIND in kinds
    assert len(kinds) == len(set(kinds))
    assert provider.resolve_provider is True


def test_commands_are_lintels_then_the_default_servers_once_each_for_a_client_that_cannot_register() -> None:
    provider = initialize_answer("neovim").execute_command_provider
    assert provider is not None
    assert provider.commands == [*COMMANDS, *CHILD_COMMANDS]
    assert len(provider.commands) == len(set(provider.commands))


def test_a_client_that_registers_commands_is_told_only_of_lintels_at_initialize() -> None:
    """VS Code makes each command `initialize` names its own: the children's come by registration (ServerHooks)."""
    assert registers_commands(client_capabilities("visual-studio-code"))
    provider = initialize_answer("visual-studio-code").execute_command_provider
    assert provider is not None
    assert provider.commands == list(COMMANDS)


def test_the_table_names_each_method_once() -> None:
    assert len(BY_METHOD) == len(RELAYED)
    for relayed in RELAYED:
        if not relayed.static:
            assert relayed.client, f"{relayed.method}: registered dynamically, under which client capability?"


# -- registered once a child offers them (ServerHooks.started) ---------------------------------------------------


class RegisteringServer:
    """What ServerHooks uses of LintelServer: the editor's capabilities and its answer to client/registerCapability."""

    def __init__(self, capabilities: types.ClientCapabilities) -> None:
        self.client_capabilities = capabilities
        self.session = SimpleNamespace(folder_for=lambda path: None)
        self.registrations: list[types.Registration] = []
        self.tasks: list[asyncio.Task[Any]] = []

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self.tasks.append(task)
        return task

    async def client_register_capability_async(self, params: types.RegistrationParams) -> None:
        self.registrations.extend(params.registrations)

    async def settled(self) -> list[types.Registration]:
        await asyncio.gather(*self.tasks)
        return self.registrations

    def methods(self) -> list[str]:
        return [r.method for r in self.registrations]


def offering(language: str, root: str, **capabilities: Any) -> Any:
    spec = ChildSpec(language=language, root=Path(root), argv=("x",), name=f"{language}-server")
    return SimpleNamespace(spec=spec, capabilities=types.ServerCapabilities(**capabilities), registered=set())


COLORS_AND_MONIKERS = {"color_provider": True, "moniker_provider": True}


def with_monikers(client: str) -> types.ClientCapabilities:
    capabilities = client_capabilities(client)
    assert capabilities.text_document is not None
    capabilities.text_document.moniker = types.MonikerClientCapabilities(dynamic_registration=True)
    return capabilities


async def test_a_childs_colors_are_registered_once_per_language_for_its_language_ids() -> None:
    server = RegisteringServer(client_capabilities("visual-studio-code"))  # colors, no monikers
    hooks = ServerHooks(server, own_commands=())  # type: ignore[arg-type]
    hooks.started(offering("node", "/w/a", **COLORS_AND_MONIKERS))
    hooks.started(offering("node", "/w/b", **COLORS_AND_MONIKERS))  # a second child of the language
    hooks.started(offering("go", "/w/c", **COLORS_AND_MONIKERS))
    registrations = await server.settled()
    assert server.methods() == [types.TEXT_DOCUMENT_DOCUMENT_COLOR, types.TEXT_DOCUMENT_DOCUMENT_COLOR]
    node, go = registrations
    assert node.register_options == {
        "documentSelector": [
            {"language": lid}
            for lid in ("javascript", "javascriptreact", "typescript", "typescriptreact", "vue", "svelte")
        ]
    }
    assert go.register_options == {"documentSelector": [{"language": "go"}]}
    assert node.id != go.id


async def test_monikers_are_registered_only_with_a_client_that_registers_them() -> None:
    server = RegisteringServer(with_monikers("visual-studio-code"))
    hooks = ServerHooks(server, own_commands=())  # type: ignore[arg-type]
    hooks.started(offering("go", "/w/c", **COLORS_AND_MONIKERS))
    await server.settled()
    assert sorted(server.methods()) == sorted([types.TEXT_DOCUMENT_MONIKER, types.TEXT_DOCUMENT_DOCUMENT_COLOR])


async def test_a_client_that_cannot_register_gets_no_registration() -> None:
    server = RegisteringServer(client_capabilities("neovim"))
    hooks = ServerHooks(server, own_commands=())  # type: ignore[arg-type]
    commands = types.ExecuteCommandOptions(commands=["gopls.new_thing"])
    hooks.started(offering("go", "/w/c", execute_command_provider=commands, **COLORS_AND_MONIKERS))
    assert await server.settled() == []
    assert hooks.child_commands == {"gopls.new_thing"}  # known all the same: forwarded when run


async def test_static_methods_a_child_offers_are_never_registered() -> None:
    server = RegisteringServer(with_monikers("visual-studio-code"))
    hooks = ServerHooks(server, own_commands=())  # type: ignore[arg-type]
    hooks.started(
        offering(
            "go",
            "/w/c",
            hover_provider=True,
            definition_provider=True,
            code_lens_provider=types.CodeLensOptions(resolve_provider=True),
            semantic_tokens_provider=types.SemanticTokensOptions(
                legend=types.SemanticTokensLegend(token_types=[], token_modifiers=[]), full=True
            ),
        )
    )
    assert await server.settled() == []


async def test_a_childs_file_operations_are_registered_with_its_own_filters() -> None:
    server = RegisteringServer(client_capabilities("visual-studio-code"))
    hooks = ServerHooks(server, own_commands=())  # type: ignore[arg-type]
    filters = types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.rs"), scheme="file")]
    )
    operations = types.FileOperationOptions(will_delete=filters, will_rename=filters)
    hooks.started(offering("rust", "/w/r", workspace=types.WorkspaceOptions(file_operations=operations)))
    [registration] = await server.settled()  # willRename is advertised already
    assert registration.method == types.WORKSPACE_WILL_DELETE_FILES
    assert registration.register_options == filters


async def test_commands_named_at_initialize_are_never_registered_again() -> None:
    """wiring.py: lintel's own; a client that registers commands was told of no child's at initialize (VS Code),
    so the default servers' are registered like any other child's."""
    server = RegisteringServer(client_capabilities("visual-studio-code"))
    hooks = ServerHooks(server, own_commands=COMMANDS)  # type: ignore[arg-type]
    offered = ["gopls.tidy", COMMANDS[0], "gopls.new_thing"]
    hooks.started(offering("go", "/w/a", execute_command_provider=types.ExecuteCommandOptions(commands=offered)))
    # Another gopls offers the same commands, and one more.
    again = [*offered, "gopls.third"]
    hooks.started(offering("go", "/w/b", execute_command_provider=types.ExecuteCommandOptions(commands=again)))
    first, second = await server.settled()
    assert {first.method, second.method} == {types.WORKSPACE_EXECUTE_COMMAND}
    assert isinstance(first.register_options, types.ExecuteCommandRegistrationOptions)
    assert isinstance(second.register_options, types.ExecuteCommandRegistrationOptions)
    assert first.register_options.commands == ["gopls.tidy", "gopls.new_thing"]
    assert second.register_options.commands == ["gopls.third"]
    assert first.id != second.id
    assert {"gopls.tidy", "gopls.new_thing", "gopls.third"} <= hooks.child_commands


# -- the editor's pushed settings reach the children ----------------------------------------------------------


def listening(language: str, root: str) -> Any:
    child = offering(language, root)
    child.told = []
    child.notify = lambda method, params: child.told.append((method, params))
    return child


async def test_a_child_that_starts_after_the_editor_pushed_settings_is_told_them_first() -> None:
    server = RegisteringServer(client_capabilities("neovim"))
    hooks = ServerHooks(server, own_commands=())  # type: ignore[arg-type]
    before = listening("node", "/w/a")
    hooks.started(before)  # nothing pushed yet: nothing to tell
    assert before.told == []
    hooks.settings = {"typescript": {"inlayHints": {"includeInlayParameterNameHints": "all"}}}
    after = listening("node", "/w/b")
    hooks.started(after)
    assert after.told == [(types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": hooks.settings})]


async def test_pushed_settings_go_to_every_running_child_and_are_kept_for_later_ones() -> None:
    running = [listening("node", "/w/a"), listening("go", "/w/b")]
    navigation = SimpleNamespace(
        hooks=SimpleNamespace(settings=None), manager=SimpleNamespace(children=lambda: running)
    )
    settings = {"gopls": {"hints": {"parameterNames": True}}, "lintel": {"editor": {}}}
    Navigation.configuration_changed(navigation, settings)  # type: ignore[arg-type]
    assert navigation.hooks.settings == settings
    for child in running:
        assert child.told == [(types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": settings})]
