"""Rust, whole: what marks a project, its files, the cargo command behind each check (`tools`), its parsers, its
test selection and its language server (rust-analyzer). Listed in `lintel.languages.LANGUAGES`."""

from __future__ import annotations

from collections.abc import Mapping

from lintel.languages.base import CoverageSupport, IssueSource, LanguageSpec, ServerSpec, TestSelection
from lintel.languages.deferred import deferred
from lintel.languages.parsers.base import Parser, ParserFamily
from lintel.languages.rust import tools

# Loaded on first use (`deferred`): a lint loads the languages, not what finding, selecting and measuring tests needs.
_TESTSELECT = "lintel.languages.rust.testselect"
_TESTFIND = "lintel.languages.rust.testfind"


def _parsers() -> Mapping[str, Parser]:
    from lintel.languages.rust import parsers

    return {
        "clippy": parsers.parse_cargo_messages,
        "cargo-check": parsers.parse_cargo_messages,
        "cargo-test": parsers.parse_cargo_test,
        "rustfmt": parsers.parse_rustfmt_check,
    }


LANGUAGE = LanguageSpec(
    name="rust",
    markers=("Cargo.toml",),
    extensions={".rs": "rust"},
    tool_for=tools.tool_for,
    file_scope=tools.file_scope,
    formatter_for=tools.formatter_for,
    server=ServerSpec(
        (("rust-analyzer",),),
        "rustup component add rust-analyzer",
        ("Cargo.toml",),
        root_rule=tools.cargo_workspace_rule,
        saved_sources=("rustc", "clippy"),
        # rust-analyzer's "poke the developers" errors, shown by builds from source (POKE_RA_DEVS): a slow turn of
        # its main loop, a request that panicked (it hides panics from users otherwise).
        chatter=(r"^overly long loop turn took ", r"^server panicked.*, check the log$"),
    ),
    install_dirs=tools.install_dirs,
    order=20,
    workspace=tools.workspace,
    test_data_dirs=frozenset({"tests"}),
    parsers=ParserFamily(("clippy", "cargo-check", "cargo-test", "rustfmt"), _parsers),
    # rustc counts columns in characters, lintel's default unit; clippy's lints and rustc's are allowed on the item.
    sources=dict.fromkeys(("clippy", "rustc"), IssueSource(suppression="rust-allow")),
    tests=TestSelection(
        deferred(_TESTSELECT, "select"), deferred(_TESTSELECT, "select_path"), deferred(_TESTFIND, "discover")
    ),
    coverage=CoverageSupport(
        None,
        unsupported="cargo llvm-cov needs rustup's llvm-tools component and tarpaulin a long source build; "
        "neither is set up",
    ),
)
