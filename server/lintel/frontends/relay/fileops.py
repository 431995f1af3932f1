"""File operations (workspace/willRenameFiles and friends) for the child servers: which files a child's own filters
take (LSP glob patterns), and the workspace edits of several children merged into one."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

from lintel.core.globs import glob_pattern

# FileOperationOptions' member for each method.
MEMBERS = {
    "workspace/willCreateFiles": "will_create",
    "workspace/didCreateFiles": "did_create",
    "workspace/willRenameFiles": "will_rename",
    "workspace/didRenameFiles": "did_rename",
    "workspace/willDeleteFiles": "will_delete",
    "workspace/didDeleteFiles": "did_delete",
}


@functools.lru_cache(maxsize=128)
def glob_regex(glob: str) -> re.Pattern[str]:
    """An LSP glob as a regular expression over a whole path."""
    return re.compile(glob_pattern(glob) + "$")


def _matches(filters: Any, uri: str) -> bool:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if path is None:
        return False
    for flt in filters or ():
        scheme = getattr(flt, "scheme", None)
        if scheme not in (None, "file"):
            continue
        pattern = flt.pattern
        kind = getattr(pattern.matches, "value", pattern.matches)
        if kind is not None and Path(path).exists() and (kind == "folder") != Path(path).is_dir():
            continue
        # A glob that names no folder ("*.rs") matches the file's name; otherwise the whole path.
        target = path if "/" in pattern.glob else Path(path).name
        if glob_regex(pattern.glob).match(target):
            return True
    return False


def taken(options: Any, files: list[Any], root: Path) -> list[Any]:
    """The entries of a file operation's `files` that a child with these registration options (None: it does not
    take the operation) and this root is told of: its filters match them, inside its root."""
    if options is None:
        return []
    kept = []
    for entry in files:
        if not isinstance(entry, dict):
            continue
        uris = [u for u in (entry.get("uri"), entry.get("oldUri"), entry.get("newUri")) if isinstance(u, str)]
        inside = any(_inside(u, root) for u in uris)
        if inside and any(_matches(options.filters, u) for u in uris):
            kept.append(entry)
    return kept


def _inside(uri: str, root: Path) -> bool:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return path is not None and Path(path).is_relative_to(root)


def merge_edits(edits: list[Any]) -> Any:
    """Several children's WorkspaceEdits (JSON) as one; null when none has anything. `changes` of one and
    `documentChanges` of another become `documentChanges` (unversioned edits for the former)."""
    present = [e for e in edits if isinstance(e, dict) and (e.get("changes") or e.get("documentChanges"))]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    annotations: dict[str, Any] = {}
    for edit in present:
        annotations.update(edit.get("changeAnnotations") or {})
    merged: dict[str, Any] = {"changeAnnotations": annotations} if annotations else {}
    if not any("documentChanges" in e for e in present):
        changes: dict[str, list[Any]] = {}
        for edit in present:
            for uri, text_edits in edit["changes"].items():
                changes.setdefault(uri, []).extend(text_edits)
        return {"changes": changes, **merged}
    document_changes: list[Any] = []
    for edit in present:
        if edit.get("documentChanges"):
            # Its `changes`, if any, are the same edits for clients without documentChanges: not applied twice.
            document_changes.extend(edit["documentChanges"])
            continue
        for uri, text_edits in edit["changes"].items():
            document_changes.append({"textDocument": {"uri": uri, "version": None}, "edits": text_edits})
    return {"documentChanges": document_changes, **merged}
