"""Rust: the cargo commands behind each check (CONTRACT §4), what their exit codes mean, how to install them.

cargo exits 101 for "something failed" whatever it was (a compile error, a failed test, a broken manifest), so
101 is a finding code and the parsers decide: they recognise the run only when they found what failed.
`cargo clippy` and `cargo check` exit 0 with warnings. Format uses `cargo fmt --check` rather than a bare
`rustfmt --check`, which needs every crate root on its command line; cargo fmt finds them (lib, bins, tests).
"""

from __future__ import annotations

from collections.abc import Mapping

from lintel.detect import Project
from lintel.toolchains.base import CheckName, ToolSpec

INSTALL_RUST = "rustup toolchain install stable (https://rustup.rs)"
INSTALL_CLIPPY = "rustup component add clippy"
INSTALL_RUSTFMT = "rustup component add rustfmt"

# Plain text whatever the user's terminal settings: no colours in cargo's or rustfmt's output, and no
# backtraces in panic messages (RUST_BACKTRACE=1 in a shell profile would otherwise flood each failure).
_QUIET_ENV: Mapping[str, str] = {"CARGO_TERM_COLOR": "never"}
_TEST_ENV: Mapping[str, str] = {"CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0"}

_CARGO_FAILED = frozenset({101})


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    """The command for one check of a Rust project, run in the project root (where Cargo.toml is)."""
    if check == "lint":
        return ToolSpec(
            check="lint",
            tool="clippy",
            argv=("cargo", "clippy", "--all-targets", "--message-format=json"),
            parser="clippy",
            kind="lint",
            finding_codes=_CARGO_FAILED,
            install_hint=INSTALL_CLIPPY,
            requires=("cargo-clippy",),
            env=_QUIET_ENV,
        )
    if check == "typecheck":
        return ToolSpec(
            check="typecheck",
            tool="cargo check",
            argv=("cargo", "check", "--all-targets", "--message-format=json"),
            parser="cargo-check",
            kind="typecheck",
            finding_codes=_CARGO_FAILED,
            install_hint=INSTALL_RUST,
            env=_QUIET_ENV,
        )
    if check == "test":
        return ToolSpec(
            check="test",
            tool="cargo test",
            # Without --no-fail-fast cargo stops at the first failing test binary and the
            # integration tests' failures would go unreported.
            argv=("cargo", "test", "--no-fail-fast"),
            parser="cargo-test",
            kind="test",
            finding_codes=_CARGO_FAILED,
            install_hint=INSTALL_RUST,
            env=_TEST_ENV,
        )
    if check == "format":
        return ToolSpec(
            check="format",
            tool="rustfmt",
            # rustfmt colours its diff even into a pipe unless told not to.
            argv=("cargo", "fmt", "--check", "--", "--color", "never"),
            parser="rustfmt",
            kind="format",
            finding_codes=frozenset({1}),
            install_hint=INSTALL_RUSTFMT,
            requires=("cargo-fmt", "rustfmt"),
            env=_QUIET_ENV,
        )
    raise ValueError(f"unknown check {check!r} for rust")
