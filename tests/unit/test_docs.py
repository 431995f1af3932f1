"""The repository documents itself, and the documentation stays true to the tree: every relative link in the README
and docs/ resolves (file and heading), every place in the code that points into docs/ names a file and a section
that exist, and the README stays the short user's page it is meant to be."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md")), REPO / "bench" / "README.md", REPO / "examples" / "README.md"]
# Where lintel's own code lives (the fixture projects under tests/workspaces have docs/ folders of their own).
CODE = [REPO / "server" / "lintel", REPO / "tests" / "unit", REPO / "tests" / "e2e", REPO / "tests" / "integration"]
CODE += [REPO / "bench", REPO / "editors" / "nvim", REPO / "editors" / "vscode" / "src", REPO / "editors" / "tools"]
README_LIMIT = 12 * 1024

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")
_POINTER = re.compile(r"docs/([\w-]+)\.md(?:#([\w-]+)|, ?[\"“]?([A-Z][^\"”),.;:]*))?")


def _unfenced(path: Path) -> list[tuple[int, str]]:
    lines, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[`*_]", "", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path: Path) -> list[str]:
    return [line.lstrip("#").strip() for _, line in _unfenced(path) if line.startswith("#")]


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in headings(path):
        base = slug(heading)
        found.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return found


def broken_links(page: Path) -> list[str]:
    broken = []
    for number, line in _unfenced(page):
        for target in _LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            if not dest.exists():
                broken.append(f"{page.relative_to(REPO)}:{number}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(REPO)}:{number}: {target}: no heading #{anchor}")
    return broken


@pytest.mark.parametrize("page", [p for p in PAGES if p.exists()], ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def _code_files() -> list[Path]:
    suffixes = {".py", ".lua", ".ts"}
    return [
        p for root in CODE for p in sorted(root.rglob("*")) if p.suffix in suffixes and "node_modules" not in p.parts
    ]


def test_pointers_from_the_code_into_docs_name_a_real_file_and_section() -> None:
    wrong = []
    for path in _code_files():
        text = re.sub(r"\s*\n\s*(?:#\s*|--\s*|//\s*)?", " ", path.read_text(encoding="utf-8"))
        for name, anchor, section in _POINTER.findall(text):
            page = DOCS / f"{name}.md"
            where = f"{path.relative_to(REPO)}: docs/{name}.md"
            if not page.exists():
                wrong.append(f"{where}: no such page")
            elif anchor and anchor not in anchors(page):
                wrong.append(f"{where}#{anchor}: no such heading")
            elif section and not any(h.lower().startswith(section.strip().lower()) for h in headings(page)):
                wrong.append(f"{where}, {section.strip()!r}: no heading starts so")
    assert wrong == []


def test_the_readme_is_a_short_page_for_users() -> None:
    assert len((REPO / "README.md").read_bytes()) <= README_LIMIT


def test_the_slug_follows_githubs_rules() -> None:
    assert slug("Exit codes") == "exit-codes"
    assert slug("`lintel check --fix`: the tools' own fixes") == "lintel-check---fix-the-tools-own-fixes"
    assert broken_links(REPO / "README.md") == []
