"""How to start the child for a (language, project root) of a workspace folder: the one plan both front ends' manager
hooks answer with (the editor's server and `lintel mcp`), from the folder's languages and configuration."""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types

from lintel.core.positions import Unit
from lintel.engine.actions import Folder
from lintel.engine.servers import Command, resolve_command
from lintel.frontends.relay.client import ChildSpec, child_capabilities


def plan_child(
    folder: Folder, language: str, root: Path, encoding: Unit, editor: types.ClientCapabilities
) -> ChildSpec | Command | None:
    """The ChildSpec of `language`'s server for the project at `root`, positions in `encoding` and the client's
    capabilities cut to what a child may see (client.child_capabilities); the Command whose binary was not found;
    None when the language has no server."""
    spec = folder.languages.get(language)
    if spec is None or spec.server is None:
        return None
    settings = folder.config.languages.get(language)
    command = resolve_command(
        spec,
        project_root=root,
        workspace_root=folder.root,
        override=settings.server if settings is not None else None,
        binaries=settings.binaries if settings is not None else None,
    )
    if command.argv is None:
        return command
    configured = settings is not None and bool(settings.server)
    return ChildSpec(
        language=language,
        root=root,
        argv=command.argv,
        name=command.display,
        install_hint=command.install_hint,
        encoding=encoding,
        capabilities=child_capabilities(editor, encoding),
        initialization_options=spec.server.initialization_options,
        # A server the user configured is not the one whose load signal lintel knows.
        load_signal=None if configured else spec.server.load_signal,
        chatter=spec.server.chatter,
        saved_sources=spec.server.saved_sources,
        env=dict(os.environ),
    )
