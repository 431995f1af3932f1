"""lintel.runTests and lintel.typecheck through executeCommand, compared with the CLI."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.by_hand import Baselines, Edit
from tests.e2e.conftest import Editor, Predicate, Start
from tests.helpers import require_path, require_tool

NODE_MODULES = Path(__file__).parents[1] / "workspaces" / "node" / "node_modules"


def require_toolchain(language: str) -> None:
    if language == "python":
        require_tool("pytest")
        require_tool("mypy")
        require_tool("ruff")
    elif language == "node":
        require_tool("npm", "install Node.js 20+")
        require_path(NODE_MODULES / ".bin" / "tsc")
    elif language == "go":
        require_tool("go", "install Go from https://go.dev/dl/")
    elif language == "rust":
        require_tool("cargo", "install Rust with rustup")


def by_file(issues: Sequence[dict[str, Any]]) -> dict[str, Counter[tuple[int, Any, Any]]]:
    """file -> (1-based line, rule, source) of each issue, the shape `published_keys` gives."""
    grouped: dict[str, Counter[tuple[int, Any, Any]]] = defaultdict(Counter)
    for issue in issues:
        grouped[issue["file"]][(issue["line"], issue.get("rule"), issue["source"])] += 1
    return dict(grouped)


def published_keys(diagnostics: Sequence[types.Diagnostic]) -> Counter[tuple[int, Any, Any]]:
    return Counter((d.range.start.line + 1, d.code, d.source) for d in diagnostics)


def as_test_diagnostic(issue: dict[str, Any]) -> dict[str, Any]:
    """A test run's issue as the editor shows it: source `lintel-test`, the runner (and its rule) in `code`."""
    runner = issue["source"]
    return {**issue, "source": "lintel-test", "rule": f"{runner}:{issue['rule']}" if issue.get("rule") else runner}


def keys_are(want: Counter[tuple[int, Any, Any]]) -> Predicate:
    return lambda diagnostics: published_keys(diagnostics) == want


async def wait_for_files(
    editor: Editor, expected: dict[str, Counter[tuple[int, Any, Any]]]
) -> dict[str, list[types.Diagnostic]]:
    """Wait until each file's published diagnostics are exactly `expected[file]`."""
    found: dict[str, list[types.Diagnostic]] = {}
    for file, want in expected.items():
        found[file] = await editor.wait_for_diagnostics(editor.uri(file), keys_are(want))
    return found


@pytest.mark.parametrize("language", ["python", "node", "go", "rust"])
async def test_run_tests_reports_the_failing_test(start: Start, language: str, baselines: Baselines) -> None:
    require_toolchain(language)
    expected = [i for i in baselines.cli(language, "test") if i["kind"] == "test"]
    assert expected, f"the {language} fixture has a failing test"
    editor = await start(language)

    result = await editor.execute("lintel.runTests")

    assert result["ok"] is False
    assert (result["language"], result["check"]) == (language, "test")
    assert result["output"].splitlines()[-1] == f"exit: {result['exitCode']}"
    failures = {(f.get("file"), f.get("line")) for f in result["failures"]}
    assert failures == {(i["file"], i["line"]) for i in expected}
    published = await wait_for_files(editor, by_file([as_test_diagnostic(i) for i in expected]))
    for issue in expected:
        [diagnostic] = published[issue["file"]]
        assert diagnostic.range.start.line == issue["line"] - 1
        assert diagnostic.source == "lintel-test"
        assert diagnostic.code == issue["source"]  # the runner: pytest, node --test, go test, cargo test
        assert diagnostic.severity == types.DiagnosticSeverity.Error


# One file's type errors fixed, the other files' left as they are.
TYPECHECK_FIXES: dict[str, tuple[Edit, ...]] = {
    "python": (("src/inventory/models.py", "return str(item.quantity)", "return item.quantity"),),
    "node": (
        ("src/api.ts", "const id: number = raw;", "const id: number = Number(raw);"),
        ("src/api.ts", '{ id: 0, name: "guest" }', '{ id: 0, name: "guest", email: "" }'),
        ("src/api.ts", "Page<string> = {\n    items: users.map((u) => u.name),", "Page<User> = {\n    items: users,"),
    ),
    "go": (("sub/calc.go", "\tx = x\n", "\t_ = x\n"),),
    "rust": (("src/shapes.rs", "let spare = p.x;", "let _spare = p.x;"),),
}


@pytest.mark.parametrize("language", ["python", "node", "go", "rust"])
async def test_typecheck_publishes_to_the_files_it_names_and_clears_fixed_ones(
    start: Start, language: str, baselines: Baselines
) -> None:
    require_toolchain(language)
    fixes = TYPECHECK_FIXES[language]
    [fixed_file] = {file for file, _, _ in fixes}
    expected = by_file(baselines.cli(language, "typecheck"))
    expected_after = by_file(baselines.cli(language, "typecheck", fixes))
    assert fixed_file in expected
    assert fixed_file not in expected_after
    assert {f: k for f, k in expected.items() if f != fixed_file} == expected_after
    editor = await start(language)

    result = await editor.execute("lintel.typecheck")

    assert (result["language"], result["check"], result["ok"]) == (language, "typecheck", language == "rust")
    assert by_file(result["issues"]) == expected
    await wait_for_files(editor, expected)

    for file, old, new in fixes:
        path = editor.path(file)
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    result = await editor.execute("lintel.typecheck")

    assert by_file(result["issues"]) == expected_after
    await editor.wait_for_diagnostics(editor.uri(fixed_file), lambda ds: not ds)
    await wait_for_files(editor, expected_after)


async def test_progress_has_begin_naming_the_check_and_end(start: Start) -> None:
    require_tool("ruff")
    editor = await start("python")
    token = "e2e-progress"
    editor.client.progress_reports[token] = []  # the client made this token: it knows it

    result = await editor.execute("lintel.lint", token=token)

    assert result["check"] == "lint"
    # pytest-lsp annotates these as ProgressParams; it keeps the structured values (WorkDoneProgressBegin…).
    reports: Sequence[object] = editor.client.progress_reports[token]
    assert isinstance(reports[0], types.WorkDoneProgressBegin), reports
    assert "python" in reports[0].title
    assert "lint" in reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd), reports
    assert sum(isinstance(r, types.WorkDoneProgressBegin) for r in reports) == 1


PRICING = "src/inventory/pricing.py"
COEXIST_FILE = "tests/test_models.py"
# Appended to the file that holds the failing test, so one file gets lint, typecheck and test diagnostics.
COEXIST_HELPER = '\n\ndef helper() -> int:\n    import os\n\n    return "not an int"\n'


def line_of(path: Path, needle: str) -> int:
    """The 0-based line of the only line containing `needle`."""
    [line] = [n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines()) if needle in text]
    return line


async def test_lint_typecheck_and_test_diagnostics_coexist_on_one_file(start: Start) -> None:
    require_toolchain("python")
    editor = await start("python")
    path = editor.path(COEXIST_FILE)
    path.write_text(path.read_text(encoding="utf-8") + COEXIST_HELPER, encoding="utf-8")
    lint_line, type_line = line_of(path, "import os"), line_of(path, '"not an int"')
    test_line = line_of(path, "assert total_value(items) == expected")

    def sources(ds: Sequence[types.Diagnostic]) -> set[tuple[str | None, int]]:
        return {(d.source, d.range.start.line) for d in ds}

    everything = {("ruff", lint_line), ("mypy", type_line), ("lintel-test", test_line)}
    uri = editor.open(COEXIST_FILE)
    await editor.wait_for_diagnostics(uri, lambda ds: sources(ds) == {("ruff", lint_line)})
    await editor.execute("lintel.typecheck")
    await editor.execute("lintel.runTests")
    both = await editor.wait_for_diagnostics(uri, lambda ds: sources(ds) == everything)
    assert {d.code for d in both} >= {"F401", "return-value", "pytest"}  # a test's diagnostic names its runner

    # A new lint (on save) replaces the lint diagnostic and nothing else.
    editor.save(uri, path.read_text(encoding="utf-8").replace("import os", "import sys"))
    relinted = await editor.wait_for_diagnostics(uri, lambda ds: any("`sys`" in d.message for d in ds))
    assert sources(relinted) == everything
    assert not any("`os`" in d.message for d in relinted)

    # A typecheck re-run (the same findings) keeps the lint and test diagnostics.
    await editor.execute("lintel.typecheck")
    await editor.execute("lintel.lastTestFailures")  # a round trip: every publish before it has arrived
    assert sources(editor.diagnostics(uri)) == everything


async def test_relayed_language_server_diagnostics_survive_lint_and_typecheck(start: Start) -> None:
    require_toolchain("python")
    require_tool("basedpyright-langserver", "pip install basedpyright")
    editor = await start("python", real_language_servers=True, init_options={"editor": {"formatCheck": False}})
    uri = editor.open(PRICING)

    def relayed(ds: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
        return [d for d in ds if d.source == "basedpyright"]

    first = await editor.wait_for_diagnostics(uri, lambda ds: bool(relayed(ds)) and any(d.source == "ruff" for d in ds))
    from_server = relayed(first)

    # A lint on save (the file unchanged, so the language server has no reason to publish again).
    published = len(editor.client.published)
    editor.did_save(uri)
    relinted = await editor.wait_for_publish(uri, after=published)
    assert relayed(relinted) == from_server
    assert any(d.source == "ruff" for d in relinted)

    await editor.execute("lintel.typecheck")
    after = await editor.wait_for_diagnostics(uri, lambda ds: any(d.source == "mypy" for d in ds))
    assert relayed(after) == from_server
    assert any(d.source == "ruff" for d in after)
