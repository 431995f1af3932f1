"""The static data of lintel.frontends.relay.methods is true of the default servers as they answer `initialize`
(started directly, as lintel starts its child for VS Code): their commands are advertised, their code action kinds,
semantic token types, trigger characters and file operation filters covered, and every provider they announce is
relayed or accounted for (relay_methods.OTHER_PROVIDERS). Each server's table is printed (pytest -s)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from lintel.frontends.relay import methods
from lintel.frontends.relay.tokens import TOKEN_TYPES
from lsprotocol import types

from tests.e2e.relay_methods import ServerTable, camel, commands, probe, strings, unknown_providers
from tests.e2e.relay_support import SERVERS, note

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=list(SERVERS))
async def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServerTable]:
    SERVERS[request.param].require()
    found = await probe(request.param, tmp_path_factory.mktemp(request.param))
    note(found.markdown())
    yield found


async def test_commands_are_advertised_at_initialize(table: ServerTable) -> None:
    """Neovim runs only the commands `initialize` named (it registers none later)."""
    missing = sorted(set(commands(table.capabilities)) - set(methods.CHILD_COMMANDS))
    assert not missing, f"{table.server}'s commands missing from CHILD_COMMANDS: {missing}"


def _covered(kind: str) -> bool:
    return kind == "" or any(kind == c or kind.startswith(c + ".") for c in methods.CHILD_ACTION_KINDS)


async def test_code_action_kinds_are_covered(table: ServerTable) -> None:
    provider = table.capabilities.get("codeActionProvider")
    kinds = strings(provider.get("codeActionKinds") if isinstance(provider, dict) else ())
    # "": rust-analyzer's kind for actions of no kind; such actions are asked for without `only`.
    assert not [k for k in kinds if not _covered(k)], f"{table.server}: kinds no CHILD_ACTION_KINDS covers"


async def test_semantic_token_types_are_in_lintels_legend(table: ServerTable) -> None:
    provider = table.capabilities.get("semanticTokensProvider")
    legend = provider.get("legend") if isinstance(provider, dict) else None
    if legend is None:
        pytest.skip(f"{table.server} offers no semantic tokens")
    missing = [t for t in legend["tokenTypes"] if t not in TOKEN_TYPES]
    assert not missing, f"{table.server}'s token types lintel's legend lacks (their tokens are dropped): {missing}"


def _characters(capabilities: dict[str, Any], provider: str, *keys: str) -> set[str]:
    options = capabilities.get(provider)
    if not isinstance(options, dict):
        return set()
    found: set[str] = set()
    for key in keys:
        value = options.get(key)
        found |= {value} if isinstance(value, str) else set(strings(value or ()))
    return found


async def test_trigger_characters_are_in_lintels_unions(table: ServerTable) -> None:
    caps = table.capabilities
    checks = {
        "completion": (_characters(caps, "completionProvider", "triggerCharacters"), methods.COMPLETION_TRIGGERS),
        "signature": (_characters(caps, "signatureHelpProvider", "triggerCharacters"), methods.SIGNATURE_TRIGGERS),
        "signature retrigger": (
            _characters(caps, "signatureHelpProvider", "retriggerCharacters"),
            methods.SIGNATURE_RETRIGGERS,
        ),
        "on type": (
            _characters(caps, "documentOnTypeFormattingProvider", "firstTriggerCharacter", "moreTriggerCharacter"),
            (methods.ON_TYPE_FIRST, *methods.ON_TYPE_MORE),
        ),
    }
    missing = {name: sorted(theirs - set(ours)) for name, (theirs, ours) in checks.items() if theirs - set(ours)}
    assert not missing, f"{table.server}'s trigger characters lintel does not advertise: {missing}"


def _filter_covers(ours: types.FileOperationFilter, theirs: dict[str, Any]) -> bool:
    if ours.scheme is not None and ours.scheme != theirs.get("scheme", ours.scheme):
        return False
    pattern = theirs["pattern"]
    matches = ours.pattern.matches.value if ours.pattern.matches is not None else None
    if ours.pattern.glob in ("**/*", "**") and matches is None:
        return True
    return ours.pattern.glob == pattern["glob"] and matches in (None, pattern.get("matches"))


async def test_file_operation_filters_are_covered(table: ServerTable) -> None:
    workspace = table.capabilities.get("workspace") or {}
    operations = workspace.get("fileOperations") or {}
    by_provider = {camel(r.provider): r for r in methods.RELAYED if r.scope == "files"}
    for key, options in operations.items():
        relayed = by_provider.get(key)
        assert relayed is not None, f"{table.server}: file operation {key} is not relayed"
        if not relayed.static:
            continue  # registered with the child's own filters once it runs
        ours = methods.FILE_OPERATIONS[relayed.method].filters
        uncovered = [f for f in options["filters"] if not any(_filter_covers(o, f) for o in ours)]
        assert not uncovered, f"{table.server} {relayed.method}: filters FILE_OPERATIONS misses: {uncovered}"


async def test_every_provider_is_relayed_or_accounted_for(table: ServerTable) -> None:
    """Each method the server announces (capabilities, registrations) is relayed with a route, lintel's own, or
    left out for a reason OTHER_PROVIDERS gives."""
    assert not unknown_providers(table.capabilities), f"{table.server}: capabilities RELAYED does not know"
    unserved = [(m, how, lintel) for m, how, lintel in table.rows() if lintel == "not relayed" or "NO ROUTE" in lintel]
    assert not unserved, f"{table.server}: methods lintel neither relays nor serves: {unserved}"
