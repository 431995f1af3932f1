"""Every LSP method lintel relays to the child language servers (RELAYED): what each is about, the capability of a
child that says it answers it, what the editor gets when the document's child does not, and whether lintel advertises
it at `initialize` or registers it once a child offers it. Cheap to import: advertised.py builds the `initialize`
answer from it before the engine loads (docs/editors.md, Everything the language servers do)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from lsprotocol import types

# What a request names, and so how its child is found:
# "position": a document and a position in it;  "document": a document;
# "item": an object an earlier answer gave (a code lens to resolve, a call hierarchy item): the child that made it;
# "workspace": every running child, answers merged;  "files": file operations, every child whose filters match.
Scope = Literal["position", "document", "item", "workspace", "files"]


@dataclass(frozen=True)
class Relayed:
    method: str
    provider: str  # the ServerCapabilities attribute that says a child answers it
    scope: Scope
    option: str | None = None  # the provider's option that must be on as well ("full.delta": a nested one)
    empty: Any = None  # the answer when the document's child lacks the method ([] where null is not allowed)
    # Advertised at `initialize` because a default server answers it; the others are registered per language once
    # a child that answers them runs, with clients that register dynamically.
    static: bool = True
    follow_up: str | None = None  # the request that comes back with the answer's items (to the child that made them)
    item: bool = False  # "item" scope: the item is `params.item` (hierarchies), not the params themselves
    # A formatting request answered by the child only where lintel has no formatter of its own for the document.
    formats: bool = False
    client: str = ""  # the client capability (dotted, under ClientCapabilities) for its dynamic registration
    # Served by a feature of lintel's own that merges the child's answer into its own (code actions, formatting,
    # code lenses).
    merged: bool = False


_T = types
RELAYED: tuple[Relayed, ...] = (
    Relayed(
        _T.TEXT_DOCUMENT_CODE_ACTION, "code_action_provider", "document", follow_up=_T.CODE_ACTION_RESOLVE, merged=True
    ),
    Relayed(_T.CODE_ACTION_RESOLVE, "code_action_provider", "item", option="resolve_provider", merged=True),
    Relayed(_T.TEXT_DOCUMENT_FORMATTING, "document_formatting_provider", "document", formats=True, merged=True),
    Relayed(_T.TEXT_DOCUMENT_DEFINITION, "definition_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_DECLARATION, "declaration_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_TYPE_DEFINITION, "type_definition_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_IMPLEMENTATION, "implementation_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_REFERENCES, "references_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_HOVER, "hover_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, "document_highlight_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_RENAME, "rename_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_PREPARE_RENAME, "rename_provider", "position", option="prepare_provider"),
    Relayed(_T.TEXT_DOCUMENT_SIGNATURE_HELP, "signature_help_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_COMPLETION, "completion_provider", "position", follow_up=_T.COMPLETION_ITEM_RESOLVE),
    Relayed(_T.TEXT_DOCUMENT_LINKED_EDITING_RANGE, "linked_editing_range_provider", "position"),
    Relayed(_T.TEXT_DOCUMENT_ON_TYPE_FORMATTING, "document_on_type_formatting_provider", "position", formats=True),
    Relayed(
        _T.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY,
        "call_hierarchy_provider",
        "position",
        follow_up=_T.CALL_HIERARCHY_INCOMING_CALLS,
    ),
    Relayed(
        _T.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY,
        "type_hierarchy_provider",
        "position",
        follow_up=_T.TYPE_HIERARCHY_SUPERTYPES,
    ),
    Relayed(_T.TEXT_DOCUMENT_MONIKER, "moniker_provider", "position", static=False, client="text_document.moniker"),
    Relayed(_T.TEXT_DOCUMENT_DOCUMENT_SYMBOL, "document_symbol_provider", "document"),
    Relayed(_T.TEXT_DOCUMENT_CODE_LENS, "code_lens_provider", "document", follow_up=_T.CODE_LENS_RESOLVE, merged=True),
    Relayed(_T.TEXT_DOCUMENT_INLAY_HINT, "inlay_hint_provider", "document", follow_up=_T.INLAY_HINT_RESOLVE),
    Relayed(_T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, "semantic_tokens_provider", "document", option="full"),
    Relayed(_T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, "semantic_tokens_provider", "document", option="full.delta"),
    Relayed(_T.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, "semantic_tokens_provider", "document", option="range"),
    Relayed(_T.TEXT_DOCUMENT_FOLDING_RANGE, "folding_range_provider", "document"),
    Relayed(_T.TEXT_DOCUMENT_SELECTION_RANGE, "selection_range_provider", "document"),
    Relayed(_T.TEXT_DOCUMENT_DOCUMENT_LINK, "document_link_provider", "document", follow_up=_T.DOCUMENT_LINK_RESOLVE),
    *(  # a color provider answers both; their results may not be null
        Relayed(m, "color_provider", "document", empty=[], static=False, client="text_document.color_provider")
        for m in (_T.TEXT_DOCUMENT_DOCUMENT_COLOR, _T.TEXT_DOCUMENT_COLOR_PRESENTATION)
    ),
    Relayed(
        _T.TEXT_DOCUMENT_INLINE_VALUE,
        "inline_value_provider",
        "document",
        static=False,
        client="text_document.inline_value",
    ),
    Relayed(_T.TEXT_DOCUMENT_RANGE_FORMATTING, "document_range_formatting_provider", "document", formats=True),
    Relayed(_T.COMPLETION_ITEM_RESOLVE, "completion_provider", "item", option="resolve_provider"),
    Relayed(_T.CODE_LENS_RESOLVE, "code_lens_provider", "item", option="resolve_provider", merged=True),
    Relayed(_T.INLAY_HINT_RESOLVE, "inlay_hint_provider", "item", option="resolve_provider"),
    Relayed(_T.DOCUMENT_LINK_RESOLVE, "document_link_provider", "item", option="resolve_provider"),
    Relayed(_T.WORKSPACE_SYMBOL_RESOLVE, "workspace_symbol_provider", "item", option="resolve_provider"),
    Relayed(
        _T.CALL_HIERARCHY_INCOMING_CALLS,
        "call_hierarchy_provider",
        "item",
        item=True,
        follow_up=_T.CALL_HIERARCHY_INCOMING_CALLS,
    ),
    Relayed(
        _T.CALL_HIERARCHY_OUTGOING_CALLS,
        "call_hierarchy_provider",
        "item",
        item=True,
        follow_up=_T.CALL_HIERARCHY_INCOMING_CALLS,
    ),
    Relayed(
        _T.TYPE_HIERARCHY_SUPERTYPES,
        "type_hierarchy_provider",
        "item",
        item=True,
        follow_up=_T.TYPE_HIERARCHY_SUPERTYPES,
    ),
    Relayed(
        _T.TYPE_HIERARCHY_SUBTYPES, "type_hierarchy_provider", "item", item=True, follow_up=_T.TYPE_HIERARCHY_SUPERTYPES
    ),
    Relayed(_T.WORKSPACE_SYMBOL, "workspace_symbol_provider", "workspace", follow_up=_T.WORKSPACE_SYMBOL_RESOLVE),
    Relayed(_T.WORKSPACE_WILL_RENAME_FILES, "will_rename", "files"),
    Relayed(_T.WORKSPACE_DID_CREATE_FILES, "did_create", "files"),
    Relayed(_T.WORKSPACE_WILL_CREATE_FILES, "will_create", "files", static=False, client="workspace.file_operations"),
    Relayed(_T.WORKSPACE_WILL_DELETE_FILES, "will_delete", "files", static=False, client="workspace.file_operations"),
    Relayed(_T.WORKSPACE_DID_RENAME_FILES, "did_rename", "files", static=False, client="workspace.file_operations"),
    Relayed(_T.WORKSPACE_DID_DELETE_FILES, "did_delete", "files", static=False, client="workspace.file_operations"),
)
BY_METHOD: Mapping[str, Relayed] = MappingProxyType({r.method: r for r in RELAYED})
NOTIFICATIONS = frozenset({_T.WORKSPACE_DID_CREATE_FILES, _T.WORKSPACE_DID_RENAME_FILES, _T.WORKSPACE_DID_DELETE_FILES})

# -- what the default servers offer, advertised before any of them runs ------------------------------------------
# Checked against the servers' own `initialize` answers by tests/e2e/test_relay_capabilities.py.

# The union of the default servers' trigger characters; each child is asked only for its own (router.py).
COMPLETION_TRIGGERS = (".", ":", "<", '"', "'", "`", "/", "@", "#", "[", "(")
SIGNATURE_TRIGGERS = ("(", ",", "<", ")")  # basedpyright's ")": it shows the enclosing call's after a nested one
SIGNATURE_RETRIGGERS = (")",)
ON_TYPE_FIRST = "{"  # basedpyright's; rust-analyzer's "." and the rest follow
ON_TYPE_MORE = (".", "=", "<", ">", "(", "|", "+")

# Code action kinds: the default servers' broad kinds (a kind covers its sub-kinds: refactor.extract.function).
CHILD_ACTION_KINDS = (
    "quickfix",
    "refactor",
    "refactor.extract",
    "refactor.inline",
    "refactor.move",
    "refactor.rewrite",
    "source",
    "source.organizeImports",
    "source.fixAll",
    "gopls.doc.features",  # gopls's "Browse gopls feature documentation"
)

# The commands the default servers' code lenses, code actions and completion items run. Clients that cannot register
# commands dynamically (Neovim) run only the commands `initialize` named; others come by registration (ServerHooks).
CHILD_COMMANDS = (
    *(
        f"gopls.{name}"
        for name in [
            "add_dependency",
            "add_import",
            "add_telemetry_counters",
            "add_test",
            "apply_fix",
            "assembly",
            "change_signature",
            "check_upgrades",
            "client_open_url",
            "diagnose_files",
            "doc",
            "edit_go_directive",
            "extract_to_new_file",
            "fetch_vulncheck_result",
            "free_symbols",
            "gc_details",
            "generate",
            "go_get_package",
            "implement_interface",
            "list_imports",
            "list_known_packages",
            "lsp",
            "maybe_prompt_for_telemetry",
            "mem_stats",
            "modify_tags",
            "modules",
            "move_type",
            "package_symbols",
            "packages",
            "regenerate_cgo",
            "remove_dependency",
            "reset_go_mod_diagnostics",
            "run_go_work_command",
            "run_govulncheck",
            "run_tests",
            "scan_imports",
            "split_package",
            "start_debugging",
            "start_profile",
            "stop_profile",
            "tidy",
            "update_go_sum",
            "upgrade_dependency",
            "vendor",
            "views",
            "vulncheck",
            "workspace_stats",
        ]
    ),
    "basedpyright.createtypestub",
    "basedpyright.restartserver",
    "basedpyright.writeBaseline",
    "_typescript.applyRefactoring",
    "_typescript.configurePlugin",
    "_typescript.organizeImports",
    "_typescript.applyRenameFile",
    "_typescript.goToSourceDefinition",
    "_typescript.applyCodeActionCommand",
    "_typescript.applyFixAllCodeAction",
    "typescript.tsserverRequest",
)


def _file_filters(*globs: tuple[str, str | None]) -> types.FileOperationRegistrationOptions:
    return types.FileOperationRegistrationOptions(
        filters=[
            types.FileOperationFilter(
                scheme="file",
                pattern=types.FileOperationPattern(
                    glob=glob, matches=types.FileOperationPatternKind(kind) if kind else None
                ),
            )
            for glob, kind in globs
        ]
    )


# The union of the default servers' filters; each child hears only of the files its own filters match (fileops.py).
FILE_OPERATIONS: Mapping[str, types.FileOperationRegistrationOptions] = MappingProxyType(
    {
        _T.WORKSPACE_WILL_RENAME_FILES: _file_filters(("**/*", None)),  # basedpyright's: every file and folder
        _T.WORKSPACE_DID_CREATE_FILES: _file_filters(("**/*.go", None)),  # gopls's, which names no kind
    }
)
