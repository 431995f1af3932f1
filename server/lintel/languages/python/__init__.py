"""Python, whole: what marks a project, its files, the command behind each check (`tools`), its parsers, its
test selection, its coverage and its language server (basedpyright or pyright). Listed in
`lintel.languages.LANGUAGES`."""

from __future__ import annotations

from collections.abc import Mapping

from lintel.languages.base import CoverageSupport, IssueSource, LanguageSpec, ServerSpec, TestCollector, TestSelection
from lintel.languages.deferred import deferred
from lintel.languages.parsers.base import Parser, ParserFamily
from lintel.languages.python import intent, tools

# Loaded on first use (`deferred`): a lint loads the languages, not what finding, selecting and measuring tests needs.
_TESTSELECT = "lintel.languages.python.testselect"
_TESTFIND = "lintel.languages.python.testfind"
_COVERAGE = "lintel.languages.python.coverage"


def _parsers() -> Mapping[str, Parser]:
    from lintel.languages.python import parsers, pytests

    return {
        "ruff": parsers.parse_ruff,
        "ruff-format": parsers.parse_ruff_format,
        "mypy": parsers.parse_mypy,
        "pyright": parsers.parse_pyright,
        "pytest": pytests.parse_pytest_junit,
    }


_UNUSED_IMPORT = frozenset({("ruff", "F401")})
_UNUSED_VARIABLE = frozenset({("ruff", "F841")})
_UNDEFINED = frozenset({("ruff", "F821"), ("mypy", "name-defined")})
# pyright's rules that ruff or mypy report too.
_SAME_PROBLEMS = {
    (server, code): rules
    for server in ("basedpyright", "Pyright", "pyright")
    for code, rules in (
        ("reportUnusedImport", _UNUSED_IMPORT),
        ("reportUnusedVariable", _UNUSED_VARIABLE),
        ("reportUndefinedVariable", _UNDEFINED),
        ("reportRedeclaration", frozenset({("ruff", "F811")})),
    )
}

LANGUAGE = LanguageSpec(
    name="python",
    markers=("pyproject.toml", "setup.py"),
    extensions={".py": "python", ".pyi": "python"},
    tool_for=tools.tool_for,
    file_scope=tools.file_scope,
    formatter_for=tools.formatter_for,
    server=ServerSpec(
        (("basedpyright-langserver", "--stdio"), ("pyright-langserver", "--stdio")),
        "pip install basedpyright (or: npm install -g pyright)",
        ("pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg"),
        # pyright lists the workspace's files on a timer that each document event pushes back 250 ms; until
        # then references and rename see only the open files and what they import.
        load_signal="diagnostics",
        same_problems=_SAME_PROBLEMS,
    ),
    install_dirs=tools.install_dirs,
    order=40,
    workspace=tools.workspace,
    not_configured=intent.not_configured,
    parsers=ParserFamily(("ruff", "ruff-format", "mypy", "pyright", "pytest"), _parsers),
    # pyright is written in TypeScript and counts UTF-16 code units; ruff and mypy count characters.
    sources={
        "ruff": IssueSource(suppression="noqa"),
        "mypy": IssueSource(suppression="type-ignore"),
        **dict.fromkeys(("pyright", "basedpyright"), IssueSource("utf-16", "pyright-ignore")),
    },
    tests=TestSelection(
        deferred(_TESTSELECT, "select"),
        deferred(_TESTSELECT, "select_path"),
        deferred(_TESTFIND, "discover"),
        TestCollector(tools.COLLECT_ARGS, deferred(_TESTFIND, "collected")),
    ),
    coverage=CoverageSupport(deferred(_COVERAGE, "measure")),
)
