"""Node (JavaScript and TypeScript), whole: what marks a project, its files, the command behind each check
(`tools`: the project's own package.json scripts, else eslint, tsc and prettier), its parsers, its test
selection, its coverage and its language server (typescript-language-server). Listed in
`lintel.languages.LANGUAGES`."""

from __future__ import annotations

from collections.abc import Mapping

from lintel.languages.base import CoverageSupport, IssueSource, LanguageSpec, ServerSpec, TestSelection
from lintel.languages.deferred import deferred
from lintel.languages.node import intent, scripts, tools
from lintel.languages.parsers.base import Parser, ParserFamily

_PARSER_NAMES = (
    "eslint",
    "eslint-compact",
    "tsc",
    "jest",
    "vitest",
    "node-test",
    "tap",
    "node-test-auto",
    "node-lint-auto",
    "prettier",
)


# Loaded on first use (`deferred`): a lint loads the languages, not what finding, selecting and measuring tests needs.
_TESTSELECT = "lintel.languages.node.testselect"
_TESTFIND = "lintel.languages.node.testfind"
_COVERAGE = "lintel.languages.node.coverage"


def _parsers() -> Mapping[str, Parser]:
    from lintel.languages.node import nodetests, parsers
    from lintel.languages.parsers import tap

    return {
        "eslint": parsers.parse_eslint,
        "eslint-compact": parsers.parse_eslint_compact,
        "tsc": parsers.parse_tsc,
        "jest": nodetests.parse_jest,
        "vitest": nodetests.parse_vitest,
        "node-test": tap.parse_node_tap,
        "tap": tap.parse_tap,
        "node-test-auto": nodetests.parse_node_test_auto,
        "node-lint-auto": parsers.parse_node_lint_auto,
        "prettier": parsers.parse_prettier_check,
    }


_UNUSED = frozenset({("eslint", "no-unused-vars"), ("eslint", "@typescript-eslint/no-unused-vars")})
# tsserver: 6133 "'x' is declared but its value is never read", 6196 "'X' is declared but never used",
# 6192 "All imports in import declaration are unused", 6198 "All destructured elements are unused".
_SAME_PROBLEMS = {("typescript", code): _UNUSED for code in ("6133", "6196", "6192", "6198")}

LANGUAGE = LanguageSpec(
    name="node",
    markers=("package.json",),
    extensions={**tools.SOURCE_EXTENSIONS, **tools.TYPED_EXTENSIONS, ".vue": "vue", ".svelte": "svelte"},
    tool_for=tools.tool_for,
    file_scope=tools.file_scope,
    formatter_for=tools.formatter_for,
    server=ServerSpec(
        (("typescript-language-server", "--stdio"),),
        "npm install -g typescript-language-server typescript",
        ("tsconfig.json", "jsconfig.json", "package.json"),
        # tsserver would fetch @types packages from the registry for JavaScript files: lintel downloads nothing.
        {"disableAutomaticTypingAcquisition": True},
        same_problems=_SAME_PROBLEMS,
    ),
    install_dirs=tools.install_dirs,
    inspect=tools.inspect,
    order=30,
    workspace=tools.workspace,
    not_configured=intent.not_configured,
    parsers=ParserFamily(_PARSER_NAMES, _parsers),
    # JavaScript's tools count columns in UTF-16 code units.
    sources={
        "eslint": IssueSource("utf-16", "eslint-disable-next-line"),
        "tsc": IssueSource("utf-16", "ts-expect-error"),
        **dict.fromkeys(("prettier", "node --test", "jest", "vitest"), IssueSource("utf-16")),
    },
    tests=TestSelection(
        deferred(_TESTSELECT, "select"), deferred(_TESTSELECT, "select_path"), deferred(_TESTFIND, "discover")
    ),
    coverage=CoverageSupport(deferred(_COVERAGE, "measure"), deferred(_COVERAGE, "refine")),
    script_command=scripts.script_command,
)
