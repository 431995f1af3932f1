"""Lint on open and on save, for the four languages, compared with each linter run by hand."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e import by_hand
from tests.e2e.by_hand import Baselines
from tests.e2e.conftest import Start
from tests.helpers import column_in, missing_tool, require_path, require_tool, run_tool


@dataclass(frozen=True)
class LintCase:
    language: str
    file: str
    tool: str  # Diagnostic.source of the linter's findings
    sources: frozenset[str]  # every source its lint run may report (clippy relays rustc's warnings)
    # A fix for one finding: the text replaced, its replacement, the (line, code) that goes away.
    before: str
    after: str
    fixed: tuple[int, str]


CASES = [
    LintCase(
        "python", "src/inventory/pricing.py", "ruff", frozenset({"ruff"}), "note == None", "note is None", (13, "E711")
    ),
    LintCase(
        "node", "src/util.js", "eslint", frozenset({"eslint"}), "return a == b;", "return a === b;", (4, "eqeqeq")
    ),
    LintCase(
        "go",
        "store.go",
        "golangci-lint",
        frozenset({"golangci-lint"}),
        "strings.Index(s, sub) != -1",
        "strings.Contains(s, sub)",
        (21, "staticcheck"),
    ),
    LintCase(
        "rust",
        "src/lib.rs",
        "clippy",
        frozenset({"clippy", "rustc"}),
        "    return a + b;",
        "    a + b",
        (11, "clippy::needless_return"),
    ),
]


def require_linter(language: str) -> None:
    if language == "python":
        require_tool("ruff")
    elif language == "node":
        require_tool("npx", "install Node.js 20+")
        require_path(Path(__file__).parents[1] / "workspaces" / "node" / "node_modules" / ".bin" / "eslint")
    elif language == "go":
        require_tool("go", "install Go from https://go.dev/dl/")
        require_tool("golangci-lint")
    elif language == "rust":
        require_tool("cargo", "install Rust with rustup")
        proc = run_tool(["cargo", "clippy", "--version"], cwd=Path.cwd(), timeout=60)
        if proc.returncode != 0:
            missing_tool("cargo clippy is not installed (rustup component add clippy)")


def lint_only(diagnostics: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if isinstance(d.data, dict) and d.data.get("kind") == "lint"]


def keys(diagnostics: Sequence[types.Diagnostic]) -> Counter[tuple[int, str | None]]:
    """(1-based line, code), the same shape as the by-hand findings."""
    return Counter((d.range.start.line + 1, str(d.code) if d.code is not None else None) for d in diagnostics)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.language)
async def test_open_publishes_the_linters_findings(start: Start, case: LintCase, baselines: Baselines) -> None:
    require_linter(case.language)
    expected = baselines.lint(case.language, case.file)
    editor = await start(case.language)
    assert expected, f"the fixture {case.file} should have {case.language} lint findings"

    uri = editor.open(case.file)
    published = await editor.wait_for_diagnostics(uri, lambda ds: bool(lint_only(ds)))

    assert keys(published) == expected
    assert {d.source for d in published} <= case.sources
    assert case.tool in {d.source for d in published}
    for diagnostic in published:
        assert isinstance(diagnostic.data, dict)
        assert diagnostic.data["signature"].startswith(f"lint:{case.file}:{diagnostic.range.start.line + 1}:")
        assert len(diagnostic.data["fingerprint"]) == 64


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.language)
async def test_fix_and_save_clears_that_finding_only(start: Start, case: LintCase, baselines: Baselines) -> None:
    require_linter(case.language)
    fix = ((case.file, case.before, case.after),)
    before, after = baselines.lint(case.language, case.file), baselines.lint(case.language, case.file, fix)
    assert after == before - Counter({case.fixed: 1})  # the fix removes exactly that finding
    # The format check on save is another tool run (npx prettier, rustfmt) this test does not look at.
    editor = await start(case.language, init_options={"editor": {"formatCheck": False}})
    uri = editor.open(case.file)
    await editor.wait_for_diagnostics(uri, lambda ds: keys(lint_only(ds)) == before)

    text = editor.path(case.file).read_text(encoding="utf-8")
    editor.save(uri, text.replace(case.before, case.after))
    code = case.fixed[1]
    published = await editor.wait_for_diagnostics(uri, lambda ds: code not in {d.code for d in lint_only(ds)})

    assert keys(lint_only(published)) == after  # the others stay, where they were


def ruff_columns(root: Path, file: str, line: int, code: str) -> tuple[int, int]:
    """ruff's 0-based start and end columns (code points) of one finding."""
    proc = run_tool(["ruff", "check", "--output-format=json", "--no-cache", file], cwd=root)
    [finding] = [v for v in json.loads(proc.stdout) if v["location"]["row"] == line and v["code"] == code]
    return finding["location"]["column"] - 1, finding["end_location"]["column"] - 1


def golangci_columns(root: Path, file: str, line: int, linter: str) -> tuple[int, int]:
    """golangci-lint's 0-based column, in bytes; it gives no end (lintel marks a zero-width range)."""
    proc = run_tool([*by_hand.GOLANGCI, "."], cwd=root)
    [issue] = [
        i
        for i in json.loads(proc.stdout)["Issues"]
        if Path(i["Pos"]["Filename"]).name == file and i["Pos"]["Line"] == line and i["FromLinter"] == linter
    ]
    column: int = issue["Pos"]["Column"] - 1
    return column, column


@pytest.mark.parametrize(
    ("language", "file", "line", "code"),
    [
        ("python", "src/inventory/pricing.py", 13, "E711"),  # ruff counts code points; "café" comes before it
        ("go", "store.go", 11, "ineffassign"),  # golangci-lint counts bytes; "étiquette" comes before it
    ],
)
async def test_columns_after_non_ascii_text_are_in_the_negotiated_encoding(
    start: Start, client_name: str, language: str, file: str, line: int, code: str
) -> None:
    require_linter(language)
    editor = await start(language)
    assert editor.encoding == {"neovim": "utf-8", "visual-studio-code": "utf-16"}[client_name]
    text = editor.path(file).read_text(encoding="utf-8").splitlines()[line - 1]
    assert not text.isascii()
    if language == "python":
        start_col, end_col = ruff_columns(editor.root, file, line, code)
    else:  # bytes to code points
        start_col, end_col = (
            len(text.encode("utf-8")[:c].decode("utf-8")) for c in golangci_columns(editor.root, file, line, code)
        )

    uri = editor.open(file)
    published = await editor.wait_for_diagnostics(uri, lambda ds: any(d.code == code for d in ds))

    [diagnostic] = [d for d in published if d.code == code]
    assert diagnostic.range.start.line == line - 1
    assert diagnostic.range.start.character == column_in(text, start_col, editor.encoding)
    assert diagnostic.range.end.character == column_in(text, end_col, editor.encoding)
    # the encodings really differ on this line: a plain character count would be wrong for one of them
    assert column_in(text, start_col, "utf-8") != column_in(text, start_col, "utf-16")


async def test_bundled_clients_get_pushed_diagnostics(start: Start, baselines: Baselines) -> None:
    require_tool("ruff")
    editor = await start("python")
    assert editor.result.capabilities.diagnostic_provider is None  # VS Code 1.65 and Neovim: push only
    uri = editor.open("src/inventory/models.py")
    published = await editor.wait_for_diagnostics(uri, lambda ds: bool(ds))
    assert keys(published) == baselines.lint("python", "src/inventory/models.py")


async def test_columns_after_characters_str_splitlines_takes_for_line_breaks(start: Start) -> None:
    """LSP lines end only at \\n, \\r\\n and \\r: a form feed line and \\u2028/\\x85 inside a string must not shift
    the finding's line or its columns (they did: str.splitlines broke the lines there)."""
    require_tool("ruff")
    editor = await start("python")
    source = 'import os\n\x0c\ns = "😀\u2028😀\x85\x1c"; t = undefined_c\n'
    editor.path("src/breaks.py").write_text(source, encoding="utf-8", newline="")
    start_col, end_col = ruff_columns(editor.root, "src/breaks.py", 3, "F821")
    text = source.split("\n")[2]

    uri = editor.open("src/breaks.py")
    published = await editor.wait_for_diagnostics(uri, lambda ds: any(d.code == "F821" for d in ds))

    [diagnostic] = [d for d in published if d.code == "F821"]
    assert diagnostic.range.start.line == 2
    assert (diagnostic.range.start.character, diagnostic.range.end.character) == (
        column_in(text, start_col, editor.encoding),
        column_in(text, end_col, editor.encoding),
    )


@pytest.mark.parametrize("warm", [True, False], ids=["warm-worker", "cli"])
async def test_a_file_opened_through_a_symlinked_folder_gets_its_real_files_findings(
    start: Start, baselines: Baselines, warm: bool
) -> None:
    """`alias -> src` inside the workspace: the file's findings, published to the URI the editor opened (the bug: the
    tool named the file `alias/…`, lintel looked for `src/…`, and nothing was published)."""
    require_linter("python")
    pricing = "src/inventory/pricing.py"
    editor = await start("python", init_options={"editor": {"warmWorkers": warm}})
    editor.path("alias").symlink_to(editor.path("src"), target_is_directory=True)

    uri = editor.open("alias/inventory/pricing.py")
    published = await editor.wait_for_publish(uri, 0)

    assert keys(published) == baselines.lint("python", pricing)
    assert {d.source for d in published} == {"ruff"}
    assert editor.uri(pricing) not in {p.uri for p in editor.client.published}
