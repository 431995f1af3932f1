"""The one table of the LSP methods lintel serves (ROUTES): each method's registration options, how it is served, and
the feature that binds its handler. Cheap to import: the `initialize` answer advertises it before the features,
and the engine under them, load (docs/architecture.md, A fast start); wiring.py binds the handlers after that answer
(dispatch.py serves them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lsprotocol import types

# navigation.py: the editor's requests relayed to the child server of their document, as they are; their options.
RELAY_OPTIONS: Mapping[str, Any] = {
    types.TEXT_DOCUMENT_RENAME: types.RenameOptions(prepare_provider=True),
    types.TEXT_DOCUMENT_SIGNATURE_HELP: types.SignatureHelpOptions(
        trigger_characters=["(", ","], retrigger_characters=[")"]
    ),
    # The union of the usual servers' trigger characters; each child is asked only for its own (router.py).
    types.TEXT_DOCUMENT_COMPLETION: types.CompletionOptions(
        trigger_characters=[".", ":", "<", '"', "'", "`", "/", "@", "#", "[", "("], resolve_provider=True
    ),
}
# Requests about one position (the others name a document only, or none).
DOCUMENT_RELAYS = (
    types.TEXT_DOCUMENT_DEFINITION,
    types.TEXT_DOCUMENT_DECLARATION,
    types.TEXT_DOCUMENT_TYPE_DEFINITION,
    types.TEXT_DOCUMENT_IMPLEMENTATION,
    types.TEXT_DOCUMENT_REFERENCES,
    types.TEXT_DOCUMENT_HOVER,
    types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT,
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
    types.TEXT_DOCUMENT_RENAME,
    types.TEXT_DOCUMENT_PREPARE_RENAME,
    types.TEXT_DOCUMENT_SIGNATURE_HELP,
    types.TEXT_DOCUMENT_COMPLETION,
)

# commands.py: lintel's own commands; the editor is told of these (executeCommandProvider), a child's go by
# registration.
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
# codeactions.py: the action that opens a rule's documentation runs this, with the page's address.
OPEN_DOCUMENTATION = "lintel.openDocumentation"
# The linters' own fixes over a file, a folder or a project (lintel.engine.fixrun), as `lintel check --fix`.
FIX_ALL = "lintel.fixAll"
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
    OPEN_DOCUMENTATION,
    FIX_ALL,
)

# codeactions.py: the tools' own fixes, a rule disabled for a line, and every safe fix of a document at once.
FIX_ALL_KIND = "source.fixAll.lintel"
CODE_ACTIONS = types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True
)

# diagnostics.py: pull diagnostics, for the clients `wants_pull` picks.
PULL_DIAGNOSTICS = types.DiagnosticOptions(
    identifier="lintel", inter_file_dependencies=True, workspace_diagnostics=False
)


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


@dataclass(frozen=True)
class Route:
    """One method lintel serves (dispatch.py). `run`: "inline", called in the reader as the message arrives,
    before the next is read (a request's handler gets a reply function; whatever awaitable it returns finishes
    as a task); "task", its coroutine run as a task; "pygls", pygls's built-in step first, then the handler
    (initialize, shutdown: pygls keeps their state). `raw`: the params as JSON (no lsprotocol structuring; the
    result goes out as it is), else structured as lsprotocol types. `when`: advertised (and served) only for
    the clients it picks."""

    method: str
    feature: str  # the module that binds its handler (wiring.py)
    options: Any = None  # registration options, advertised in the `initialize` answer
    run: Run = "task"
    raw: bool = False
    when: Callable[[types.ClientCapabilities], bool] | None = None


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
    Route(types.CODE_ACTION_RESOLVE, "codeactions"),
    Route(types.TEXT_DOCUMENT_DIAGNOSTIC, "diagnostics", PULL_DIAGNOSTICS, when=wants_pull),
    Route(types.WORKSPACE_EXECUTE_COMMAND, "commands", types.ExecuteCommandOptions(commands=list(COMMANDS))),
    # Relayed: answered at once from a running child, in the editor's order with the document messages.
    *(Route(m, "navigation", RELAY_OPTIONS.get(m), run="inline", raw=True) for m in DOCUMENT_RELAYS),
    Route(types.COMPLETION_ITEM_RESOLVE, "navigation", raw=True),
    Route(types.WORKSPACE_SYMBOL, "navigation", raw=True),
)


def advertised(capabilities: types.ClientCapabilities) -> tuple[Route, ...]:
    """The routes served to (and advertised for) a client with these capabilities."""
    return tuple(r for r in ROUTES if r.when is None or r.when(capabilities))
