"""The one table of the LSP methods lintel serves (ROUTES): each method's registration options, how it is served, and
the feature that binds its handler. Cheap to import: the `initialize` answer advertises it before the features,
and the engine under them, load (docs/architecture.md, A fast start); wiring.py binds the handlers after that answer
(dispatch.py serves them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lsprotocol import types

from lintel.frontends.relay import methods
from lintel.frontends.relay.tokens import TOKEN_MODIFIERS, TOKEN_TYPES


# navigation.py: the requests relayed to the child server of their document (lintel.frontends.relay.methods), and
# lintel's options for those whose options are not what pygls's builder makes of none.
def _relay_options() -> dict[str, Any]:
    legend = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
    return {
        types.TEXT_DOCUMENT_RENAME: types.RenameOptions(prepare_provider=True),
        types.TEXT_DOCUMENT_SIGNATURE_HELP: types.SignatureHelpOptions(
            trigger_characters=list(methods.SIGNATURE_TRIGGERS), retrigger_characters=list(methods.SIGNATURE_RETRIGGERS)
        ),
        types.TEXT_DOCUMENT_COMPLETION: types.CompletionOptions(
            trigger_characters=list(methods.COMPLETION_TRIGGERS), resolve_provider=True
        ),
        types.TEXT_DOCUMENT_ON_TYPE_FORMATTING: types.DocumentOnTypeFormattingOptions(
            first_trigger_character=methods.ON_TYPE_FIRST, more_trigger_character=list(methods.ON_TYPE_MORE)
        ),
        types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL: legend,  # pygls's builder makes the options of the three
        **methods.FILE_OPERATIONS,
    }


# commands.py: lintel's own commands; the editor is told of these and the default servers' (executeCommandProvider),
# other commands of a child's by registration.
RUN_TESTS = "lintel.runTests"
TYPECHECK = "lintel.typecheck"
LINT = "lintel.lint"
FORMAT = "lintel.format"
LAST_TEST_FAILURES = "lintel.lastTestFailures"
DETECT = "lintel.detect"
VALIDATE = "lintel.validate"
RESTART_SERVERS = "lintel.restartServers"
# The agent's loop: a package.json script, the last run's failures again.
RUN_SCRIPT = "lintel.runScript"
RUN_FAILING_TESTS = "lintel.runFailingTests"
COVERAGE = "lintel.coverage"
TESTS_COVERING = "lintel.testsCovering"
# The tests the sources declare, without running them (lintel.engine.testdiscovery): the editor's test tree and lenses.
DISCOVER_TESTS = "lintel.discoverTests"
# codeactions.py: the action that opens a rule's documentation runs this, with the page's address.
OPEN_DOCUMENTATION = "lintel.openDocumentation"
# The linters' own fixes over a file, a folder or a project (lintel.engine.fixrun), as `lintel check --fix`.
FIX_ALL = "lintel.fixAll"
# An agent's checks of one file: its findings now (an open document's current text), a proposed text's before it is
# written.
DIAGNOSTICS = "lintel.diagnostics"
CHECK_EDIT = "lintel.checkEdit"
COMMANDS = (
    RUN_TESTS,
    TYPECHECK,
    LINT,
    FORMAT,
    LAST_TEST_FAILURES,
    DETECT,
    VALIDATE,
    RESTART_SERVERS,
    RUN_SCRIPT,
    RUN_FAILING_TESTS,
    COVERAGE,
    TESTS_COVERING,
    DISCOVER_TESTS,
    OPEN_DOCUMENTATION,
    FIX_ALL,
    DIAGNOSTICS,
    CHECK_EDIT,
)

# testresults.py: lintel's own notification, after an open or a save changed a document's tests:
# {uri, tests: [records as lintel.discoverTests answers them]}.
TESTS_CHANGED = "lintel/testsChanged"
# testlenses.py: "▶ Run test" above each test, merged with the child servers' lenses (resolved by the child that
# made them).
CODE_LENSES = types.CodeLensOptions(resolve_provider=True)

# codeactions.py: the tools' own fixes, a rule disabled for a line, and every safe fix of a document at once.
FIX_ALL_KIND = "source.fixAll.lintel"
# With the child servers' own actions (organize imports, extract function…), merged in.
CODE_ACTIONS = types.CodeActionOptions(
    code_action_kinds=list(dict.fromkeys([*methods.CHILD_ACTION_KINDS, FIX_ALL_KIND])), resolve_provider=True
)

# diagnostics.py: pull diagnostics, for the clients `wants_pull` picks.
PULL_DIAGNOSTICS = types.DiagnosticOptions(
    identifier="lintel", inter_file_dependencies=True, workspace_diagnostics=False
)


def registers_commands(capabilities: types.ClientCapabilities) -> bool:
    execute = capabilities.workspace.execute_command if capabilities.workspace is not None else None
    return execute is not None and bool(execute.dynamic_registration)


def _commands_for(capabilities: types.ClientCapabilities) -> types.ExecuteCommandOptions:
    """lintel's commands, and the default servers' for a client that runs only what `initialize` names (Neovim). A
    client that registers commands dynamically gets a child's when it starts (navigation.py): VS Code makes each
    command of `initialize` a command of its own, which would clash with another extension running that server
    (vscode-go's gopls.*, the basedpyright extension's)."""
    if registers_commands(capabilities):
        return types.ExecuteCommandOptions(commands=list(COMMANDS))
    return types.ExecuteCommandOptions(commands=[*COMMANDS, *methods.CHILD_COMMANDS])


def wants_pull(capabilities: types.ClientCapabilities) -> bool:
    """Pull diagnostics for clients that can both pull and be told to re-pull (refresh); push otherwise (never
    both: a client that got pushed and pulled lists would show every diagnostic twice)."""
    text, workspace = capabilities.text_document, capabilities.workspace
    return (
        text is not None
        and text.diagnostic is not None
        and workspace is not None
        and workspace.diagnostics is not None
        and bool(workspace.diagnostics.refresh_support)
    )


Run = Literal["inline", "task", "pygls"]


def _relayed_routes() -> tuple[Route, ...]:
    options = _relay_options()
    return tuple(_relayed(r, options) for r in methods.RELAYED if not r.merged)


def _relayed(relayed: methods.Relayed, options: Mapping[str, Any]) -> Route:
    """A relayed method's route: a document's request answered at once by its running child, in the editor's order
    with the document messages (inline), as are the file notifications; the rest as tasks."""
    inline = relayed.scope in ("position", "document") or relayed.method in methods.NOTIFICATIONS
    run: Run = "inline" if inline else "task"
    return Route(
        relayed.method, "navigation", options.get(relayed.method), run, raw=True, registered=not relayed.static
    )


@dataclass(frozen=True)
class Route:
    """One method lintel serves (dispatch.py). `run`: "inline", called in the reader as the message arrives,
    before the next is read (a request's handler gets a reply function; whatever awaitable it returns finishes
    as a task); "task", its coroutine run as a task; "pygls", pygls's built-in step first, then the handler
    (initialize, shutdown: pygls keeps their state). `raw`: the params as JSON (no lsprotocol structuring; the
    result goes out as it is), else structured as lsprotocol types. `when`: advertised (and served) only for
    the clients it picks. `registered`: left out of the `initialize` answer (navigation.py registers it)."""

    method: str
    feature: str  # the module that binds its handler (wiring.py)
    options: Any = None  # registration options, advertised in the `initialize` answer
    run: Run = "task"
    raw: bool = False
    when: Callable[[types.ClientCapabilities], bool] | None = None
    registered: bool = False  # served, but told to the editor by registration once a child offers it, not advertised
    # The options for a client with these capabilities, where they differ by client (else `options`).
    options_for: Callable[[types.ClientCapabilities], Any] | None = None

    def options_of(self, capabilities: types.ClientCapabilities) -> Any:
        return self.options_for(capabilities) if self.options_for is not None else self.options


ROUTES: tuple[Route, ...] = (
    Route(types.INITIALIZE, "wiring", run="pygls"),
    Route(types.INITIALIZED, "lifecycle"),
    Route(types.WORKSPACE_DID_CHANGE_CONFIGURATION, "lifecycle"),
    Route(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, "lifecycle"),
    Route(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, "lifecycle"),
    Route(types.SHUTDOWN, "lifecycle", run="pygls"),
    # The document messages change the document at once, as they come, and tell the child servers in order.
    Route(types.TEXT_DOCUMENT_DID_OPEN, "documents", run="inline"),
    Route(types.TEXT_DOCUMENT_DID_CHANGE, "documents", run="inline"),  # one a keystroke: on its JSON
    Route(types.TEXT_DOCUMENT_DID_SAVE, "documents", run="inline"),
    Route(types.TEXT_DOCUMENT_DID_CLOSE, "documents", run="inline"),
    Route(types.TEXT_DOCUMENT_FORMATTING, "documents"),
    Route(types.TEXT_DOCUMENT_CODE_ACTION, "codeactions", CODE_ACTIONS),
    Route(types.CODE_ACTION_RESOLVE, "codeactions", raw=True),  # lintel's own, or the child's that made it
    Route(types.TEXT_DOCUMENT_CODE_LENS, "testlenses", CODE_LENSES, raw=True),
    Route(types.CODE_LENS_RESOLVE, "testlenses", raw=True),  # a child's lens back to its child
    Route(types.TEXT_DOCUMENT_DIAGNOSTIC, "diagnostics", PULL_DIAGNOSTICS, when=wants_pull),
    Route(
        types.WORKSPACE_EXECUTE_COMMAND,
        "commands",
        types.ExecuteCommandOptions(commands=[*COMMANDS, *methods.CHILD_COMMANDS]),
        options_for=_commands_for,
    ),
    *_relayed_routes(),
)


def advertised(capabilities: types.ClientCapabilities) -> tuple[Route, ...]:
    """The routes served to (and advertised for) a client with these capabilities."""
    return tuple(r for r in ROUTES if r.when is None or r.when(capabilities))
