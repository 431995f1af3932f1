"""What lintel's features register with pygls, known before they are loaded: the `initialize` answer advertises
it while the features, and the engine under them, load right after that answer (docs/design.md, A fast start).

The features take their methods, options and command names from here; tests/unit/test_startup.py checks that
the capabilities advertised this way are the ones pygls computes from the features once they are wired.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lsprotocol import types

# navigation.py: requests about one position or document, relayed to that document's child as they are.
DOCUMENT_REQUESTS: Mapping[str, Any] = {
    types.TEXT_DOCUMENT_DEFINITION: None,
    types.TEXT_DOCUMENT_DECLARATION: None,
    types.TEXT_DOCUMENT_TYPE_DEFINITION: None,
    types.TEXT_DOCUMENT_IMPLEMENTATION: None,
    types.TEXT_DOCUMENT_REFERENCES: None,
    types.TEXT_DOCUMENT_HOVER: None,
    types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT: None,
    types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: None,
    types.TEXT_DOCUMENT_RENAME: types.RenameOptions(prepare_provider=True),
    types.TEXT_DOCUMENT_PREPARE_RENAME: None,
    types.TEXT_DOCUMENT_SIGNATURE_HELP: types.SignatureHelpOptions(
        trigger_characters=["(", ","], retrigger_characters=[")"]
    ),
    # The union of the usual servers' trigger characters; each child is asked only for its own (router.py).
    types.TEXT_DOCUMENT_COMPLETION: types.CompletionOptions(
        trigger_characters=[".", ":", "<", '"', "'", "`", "/", "@", "#", "[", "("], resolve_provider=True
    ),
}
# navigation.py: the other requests relayed to the children.
OTHER_REQUESTS = (types.COMPLETION_ITEM_RESOLVE, types.WORKSPACE_SYMBOL)

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
# The agent's loop (issue 16): a package.json script, the last run's failures again.
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

# documents.py and lifecycle.py: the document messages, formatting, and the server's life after `initialize`.
DOCUMENT_MESSAGES = (
    types.TEXT_DOCUMENT_DID_OPEN,
    types.TEXT_DOCUMENT_DID_CHANGE,
    types.TEXT_DOCUMENT_DID_SAVE,
    types.TEXT_DOCUMENT_DID_CLOSE,
    types.TEXT_DOCUMENT_FORMATTING,
)
LIFECYCLE = (
    types.INITIALIZED,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION,
    types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
    types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
    types.SHUTDOWN,
)

# diagnostics.py: pull diagnostics, for the clients `wants_pull` picks.
PULL_DIAGNOSTICS = types.DiagnosticOptions(
    identifier="lintel", inter_file_dependencies=True, workspace_diagnostics=False
)


@dataclass(frozen=True)
class Advertised:
    """Methods (with their options, or None) and commands, as the features will register them."""

    features: Mapping[str, Any]
    commands: tuple[str, ...]


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


def advertised(capabilities: types.ClientCapabilities) -> Advertised:
    """What the features will register for a client with these capabilities."""
    features: dict[str, Any] = {
        **DOCUMENT_REQUESTS,
        **dict.fromkeys(OTHER_REQUESTS),
        **dict.fromkeys(DOCUMENT_MESSAGES),
        **dict.fromkeys(LIFECYCLE),
        types.TEXT_DOCUMENT_CODE_ACTION: CODE_ACTIONS,
        types.CODE_ACTION_RESOLVE: None,
    }
    if wants_pull(capabilities):
        features[types.TEXT_DOCUMENT_DIAGNOSTIC] = PULL_DIAGNOSTICS
    return Advertised(features, COMMANDS)
