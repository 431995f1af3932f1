"""The Rust toolchain table: argv, parsers, exit-code meaning and install hints of each check."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintel.detect import Project, detect
from lintel.parsers import is_known_parser
from lintel.toolchains import CHECKS, not_found_message, tool_for
from lintel.toolchains import rust as rust_toolchain

from tests.helpers import WORKSPACES

PROJECT = Project(language="rust", root=Path("/ws"), markers=("Cargo.toml",))


def test_fixture_is_detected_as_rust() -> None:
    [project] = detect(WORKSPACES / "rust")
    assert project.language == "rust"
    assert tool_for(project, "lint").tool == "clippy"


@pytest.mark.parametrize(
    ("check", "argv", "tool", "parser", "kind"),
    [
        ("lint", ("cargo", "clippy", "--all-targets", "--message-format=json"), "clippy", "clippy", "lint"),
        (
            "typecheck",
            ("cargo", "check", "--all-targets", "--message-format=json"),
            "cargo check",
            "cargo-check",
            "typecheck",
        ),
        ("test", ("cargo", "test", "--no-fail-fast"), "cargo test", "cargo-test", "test"),
        ("format", ("cargo", "fmt", "--check", "--", "--color", "never"), "rustfmt", "rustfmt", "format"),
    ],
)
def test_commands(check: str, argv: tuple[str, ...], tool: str, parser: str, kind: str) -> None:
    spec = rust_toolchain.tool_for(PROJECT, check)  # type: ignore[arg-type]
    assert spec.check == check
    assert spec.argv == argv
    assert spec.binary == "cargo"
    assert spec.tool == tool
    assert spec.parser == parser
    assert is_known_parser(spec.parser)
    assert spec.kind == kind
    assert not spec.per_file  # cargo always checks the whole package


@pytest.mark.parametrize("check", ["lint", "typecheck", "test"])
def test_cargo_exit_codes(check: str) -> None:
    # Measured with cargo 1.95: clippy and check exit 0 with warnings; every cargo failure is 101
    # (compile error, failed test, broken manifest) and the parser decides whether it understood it.
    spec = tool_for(PROJECT, check)  # type: ignore[arg-type]
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset({101})


def test_rustfmt_exit_codes() -> None:
    spec = tool_for(PROJECT, "format")
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset({1})  # diffs; also a file it cannot parse (the parser tells)


def test_required_components_and_install_hints() -> None:
    lint, fmt, test = (tool_for(PROJECT, c) for c in ("lint", "format", "test"))
    assert lint.requires == ("cargo-clippy",)
    assert lint.install_hint == "rustup component add clippy"
    assert fmt.requires == ("cargo-fmt", "rustfmt")
    assert fmt.install_hint == "rustup component add rustfmt"
    assert "rustup" in test.install_hint
    assert not_found_message("lint", "cargo-clippy", lint.install_hint) == (
        "lint: cargo-clippy: not found on PATH — install it with: rustup component add clippy"
    )


def test_output_stays_plain_text() -> None:
    for check in CHECKS:
        assert tool_for(PROJECT, check).env.get("CARGO_TERM_COLOR") == "never"
    # RUST_BACKTRACE=1 in a user's shell would put a backtrace into every failure
    assert tool_for(PROJECT, "test").env["RUST_BACKTRACE"] == "0"


def test_unknown_check_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown check"):
        rust_toolchain.tool_for(PROJECT, "validators")  # type: ignore[arg-type]
