"""Go, whole: what marks a project, its files, the command behind each check (`tools`), its parsers, its test
selection, its coverage and its language server (gopls). Listed in `lintel.languages.LANGUAGES`."""

from __future__ import annotations

from collections.abc import Mapping

from lintel.languages.base import CoverageSupport, IssueSource, LanguageSpec, ServerSpec, TestSelection
from lintel.languages.deferred import deferred
from lintel.languages.go import tools
from lintel.languages.manifests import GO_WORK
from lintel.languages.parsers.base import Parser, ParserFamily

# Loaded on first use (`deferred`): a lint loads the languages, not what finding, selecting and measuring tests needs.
_TESTSELECT = "lintel.languages.go.testselect"
_TESTFIND = "lintel.languages.go.testfind"
_COVERAGE = "lintel.languages.go.coverage"


def _parsers() -> Mapping[str, Parser]:
    from lintel.languages.go import gotests, parsers

    return {
        "golangci-lint": parsers.parse_golangci_lint,
        "go-vet": parsers.parse_go_vet,
        "go-test": gotests.parse_go_test,
        "gofmt": parsers.parse_gofmt_list,
    }


LANGUAGE = LanguageSpec(
    name="go",
    # A folder with only a go.work is a project too: the root its modules are checked together from.
    markers=("go.mod", GO_WORK),
    extensions={".go": "go"},
    tool_for=tools.tool_for,
    file_scope=tools.file_scope,
    formatter_for=tools.formatter_for,
    server=ServerSpec((("gopls",),), tools.INSTALL_GOPLS, ("go.mod",), root_rule=tools.go_work_root),
    install_dirs=tools.install_dirs,
    extra_filetypes=("gomod",),
    order=10,
    workspace=tools.workspace,
    not_configured=tools.not_configured,
    parsers=ParserFamily(("golangci-lint", "go-vet", "go-test", "gofmt"), _parsers),
    # Go's tools count columns in bytes.
    sources={
        "golangci-lint": IssueSource("utf-8", "nolint"),
        **dict.fromkeys(("go vet", "go test", "go build", "gofmt", "gopls"), IssueSource("utf-8")),
    },
    tests=TestSelection(
        deferred(_TESTSELECT, "select"), deferred(_TESTSELECT, "select_path"), deferred(_TESTFIND, "discover")
    ),
    coverage=CoverageSupport(deferred(_COVERAGE, "measure"), deferred(_COVERAGE, "refine")),
)
