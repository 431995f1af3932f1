"""Rust: the cargo commands behind each check (docs/cli.md, Which checks), what their exit codes mean, how to install
them.

cargo exits 101 for "something failed" whatever it was (a compile error, a failed test, a broken manifest), so
101 is a finding code and the parsers decide: they recognise the run only when they found what failed.
`cargo clippy` and `cargo check` exit 0 with warnings. Format uses `cargo fmt --check` rather than a bare
`rustfmt --check`, which needs every crate root on its command line; cargo fmt finds them (lib, bins, tests).
For one file the server runs rustfmt itself, with the edition cargo fmt would pass it.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from lintel.core.tomlread import read_toml
from lintel.languages.base import (
    CHECKS,
    CheckName,
    FileCheckName,
    FileScope,
    FixMode,
    Project,
    ToolSpec,
    Workspace,
    project_relpath,
    scope_for_file,
)
from lintel.languages.manifests import cargo_workspace, is_cargo_workspace

log = logging.getLogger(__name__)

INSTALL_RUST = "rustup toolchain install stable (https://rustup.rs)"
INSTALL_CLIPPY = "rustup component add clippy"
INSTALL_RUSTFMT = "rustup component add rustfmt"

_CARGO_FAILED = frozenset({101})

# cargo's edition for a package whose manifest names none (cargo metadata reports it, cargo fmt passes it).
CARGO_DEFAULT_EDITION = "2015"
# When no manifest says anything: the edition `cargo new` wrote for most code in the wild.
FALLBACK_EDITION = "2021"


def is_workspace(project: Project) -> bool:
    """Whether the root manifest is a workspace of several crates (`lintel.languages.manifests`)."""
    return is_cargo_workspace(project.root)


def workspace(project: Project) -> Workspace | None:
    """The Cargo workspace the root manifest declares. Every check covers all its members (`tool_for` adds
    `--workspace`)."""
    found = cargo_workspace(project.root)
    if found is None:
        return None
    return Workspace("Cargo.toml", found.members, covers=frozenset(CHECKS), own=found.own)


def tool_for(project: Project, check: CheckName) -> ToolSpec:
    """The command for one check of a Rust project, run in the project root (where Cargo.toml is); a workspace
    is checked whole (`--workspace`; `cargo fmt --all`)."""
    spec = _tool_for(project, check)
    root = cargo_workspace_root(project)
    return spec if root == project.root else dataclasses.replace(spec, paths_from=root)


def cargo_workspace_root(project: Project) -> Path:
    """The root of the Cargo workspace the project's package belongs to, as cargo finds it: the nearest manifest
    at or above the project with a `[workspace]` table; the project itself when there is none. cargo runs
    rustc there, so the files a test panic names are relative to it."""
    for folder in (project.root, *project.root.parents):
        manifest = read_toml(folder / "Cargo.toml")
        if manifest is not None and isinstance(manifest.get("workspace"), Mapping):
            return folder
    return project.root


def _tool_for(project: Project, check: CheckName) -> ToolSpec:
    members: tuple[str, ...] = ("--workspace",) if is_workspace(project) else ()
    if check == "lint":
        return ToolSpec(
            check="lint",
            tool="clippy",
            argv=("cargo", "clippy", *members, "--all-targets", "--message-format=json"),
            parser="clippy",
            finding_codes=_CARGO_FAILED,
            install_hint=INSTALL_CLIPPY,
            requires=("cargo-clippy",),
            builds=True,
            fix_mode=_clippy_fix(members),
        )
    if check == "typecheck":
        return ToolSpec(
            check="typecheck",
            tool="cargo check",
            argv=("cargo", "check", *members, "--all-targets", "--message-format=json"),
            parser="cargo-check",
            finding_codes=_CARGO_FAILED,
            install_hint=INSTALL_RUST,
        )
    if check == "test":
        return ToolSpec(
            check="test",
            tool="cargo test",
            # Without --no-fail-fast cargo stops at the first failing test binary and the
            # integration tests' failures would go unreported.
            argv=("cargo", "test", *members, "--no-fail-fast"),
            parser="cargo-test",
            finding_codes=_CARGO_FAILED,
            install_hint=INSTALL_RUST,
        )
    if check == "format":
        return ToolSpec(
            check="format",
            tool="rustfmt",
            # rustfmt colours its diff even into a pipe unless told not to.
            argv=("cargo", "fmt", *(("--all",) if members else ()), "--check", "--", "--color", "never"),
            parser="rustfmt",
            finding_codes=frozenset({1}),
            install_hint=INSTALL_RUSTFMT,
            requires=("cargo-fmt", "rustfmt"),
        )
    raise ValueError(f"unknown check {check!r} for rust")


def _clippy_fix(members: tuple[str, ...]) -> FixMode:
    """`cargo clippy --fix`: applies clippy's and rustc's MachineApplicable suggestions in place, then prints what
    is left as the check does (JSON, exit 0; 101 when the code does not compile, and then it changes nothing).
    --allow-dirty/--allow-staged: lintel is asked to change the files whatever git says of them; --allow-no-vcs:
    without it cargo refuses (exit 101) in a folder that is not under version control. cargo's fix mode has no
    second opt-in for MaybeIncorrect suggestions."""
    flags = ("--fix", "--allow-dirty", "--allow-staged", "--allow-no-vcs")
    return FixMode(argv=("cargo", "clippy", *flags, *members, "--all-targets", "--message-format=json"))


def file_scope(project: Project, check: FileCheckName, file: Path, use_stdin: bool) -> FileScope:
    """clippy on the whole crate (cargo has no per-file build), rustfmt on the file; neither from stdin.

    `rustfmt --check <file>` also checks the modules the file declares (`mod shapes;` in lib.rs brings in
    src/shapes.rs; measured, rustfmt 1.9) and reports them by absolute path, hence filter_to_file. Its
    skip_children option is unstable. With stdin rustfmt would report `Diff in <stdin>:21:`, not the file.
    """
    if check == "lint":
        return scope_for_file(tool_for(project, "lint"), project, file, use_stdin)
    if check == "format":
        spec = ToolSpec(
            check="format",
            tool="rustfmt",
            argv=("rustfmt", "--check", "--edition", edition(project, file), "--color", "never"),
            parser="rustfmt",
            finding_codes=frozenset({1}),
            install_hint=INSTALL_RUSTFMT,
            per_file="append",
            reports_others=True,
        )
        return scope_for_file(spec, project, file, use_stdin)
    raise ValueError(f"unknown file check {check!r} for rust")


def install_dirs(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Where rustup and `cargo install` put binaries: $CARGO_HOME/bin, ~/.cargo/bin by default (rustup adds it
    to PATH through a shell profile an editor or CI job may never read)."""
    env = os.environ if env is None else env
    home = env.get("CARGO_HOME") or str(Path.home() / ".cargo")
    return (Path(home) / "bin",)


def formatter_for(project: Project, file: Path) -> ToolSpec | None:
    """`rustfmt --edition <ed>` with the source on stdin prints exactly the formatted source (measured: no
    `file:` header, which `--emit stdout` adds only for files named on the command line), exit 0; exit 1 with
    rustc's error on stderr for code that does not parse. The project's rustfmt.toml is found from the cwd,
    the project root."""
    if file.suffix != ".rs":
        return None
    return ToolSpec(
        check="format",
        tool="rustfmt",
        argv=("rustfmt", "--edition", edition(project, file)),
        parser="custom",
        finding_codes=frozenset(),
        install_hint=INSTALL_RUSTFMT,
    )


def edition(project: Project, file: Path) -> str:
    """The edition cargo fmt would give rustfmt for `file`: `package.edition` of the nearest manifest above it,
    through `edition.workspace = true` to the workspace's `[workspace.package]`; a package without one is
    cargo's 2015. A file outside any package (or beside a virtual manifest) takes the workspace's, else 2021.
    """
    # Only folders inside the project: the nearest manifest at or below its root is the file's package.
    for parent in PurePosixPath(project_relpath(project, file)).parents:
        folder = project.root / parent
        manifest = read_toml(folder / "Cargo.toml")
        if manifest is not None:
            package = manifest.get("package")
            if not isinstance(package, Mapping):
                return _workspace_edition(manifest) or FALLBACK_EDITION
            declared = package.get("edition", CARGO_DEFAULT_EDITION)
            if isinstance(declared, str):
                return declared
            if isinstance(declared, Mapping) and declared.get("workspace") is True:
                return _inherited_edition(folder) or FALLBACK_EDITION
            return FALLBACK_EDITION
    return FALLBACK_EDITION


def _inherited_edition(member: Path) -> str | None:
    """`[workspace.package] edition` of the workspace a member crate belongs to: the nearest manifest above
    (or at) the member with a `[workspace]` table, as cargo finds it."""
    for folder in (member, *member.parents):
        manifest = read_toml(folder / "Cargo.toml")
        if manifest is not None and isinstance(manifest.get("workspace"), Mapping):
            return _workspace_edition(manifest)
    return None


def _workspace_edition(manifest: Mapping[str, object]) -> str | None:
    workspace = manifest.get("workspace")
    package = workspace.get("package") if isinstance(workspace, Mapping) else None
    declared = package.get("edition") if isinstance(package, Mapping) else None
    return declared if isinstance(declared, str) else None


def cargo_workspace_rule(ancestors: list[Path], nearest: Path | None) -> Path | None:
    """rust-analyzer is rooted at the crate's Cargo workspace: the nearest manifest at or above the crate with a
    `[workspace]` table, as cargo finds it."""
    if nearest is None:
        return None
    for folder in ancestors[ancestors.index(nearest) :]:
        manifest = read_toml(folder / "Cargo.toml")
        if manifest is not None and "workspace" in manifest:
            return folder
    return None
