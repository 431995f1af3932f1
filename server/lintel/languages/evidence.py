"""What a project's own files say it runs: the folders a tool's configuration is looked for in, and the CI files
that run a tool (docs/architecture.md, "Checks the project does not use")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path


def folders_up(root: Path) -> list[Path]:
    """The project's folder and those above it up to the repository's top, where tools look for their
    configuration (ruff, eslint, prettier, golangci-lint read the nearest one above a file); only the project's own
    folder outside a repository."""
    folders = [root, *root.parents]
    top = next((i for i, f in enumerate(folders) if (f / ".git").exists()), None)
    return folders[: top + 1] if top is not None else [root]


_WORKFLOWS = (".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml")


def mentions(top: Path, word: str) -> Iterable[str]:
    """The CI files at the repository's top (GitHub workflows, GitLab CI) that run `word`."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
    for glob in _WORKFLOWS:
        for path in sorted(top.glob(glob)):
            if any(pattern.search(line) for line in lines_of(path)):
                yield str(path)


def lines_of(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
