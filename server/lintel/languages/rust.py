"""Rust: the cargo commands behind each check (docs/design.md), what their exit codes mean, how to install them.

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
from typing import Any

from lintel.core.tomlread import read_toml
from lintel.languages.base import (
    CHECKS,
    CheckName,
    FileCheckName,
    FileScope,
    FixMode,
    LanguageSpec,
    Project,
    ServerSpec,
    ToolSpec,
    Workspace,
    project_relpath,
)
from lintel.languages.members import expand_members

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
    """Whether the root manifest is a workspace of several crates: a `[workspace]` table with members, or a
    virtual manifest (no `[package]`). Run in such a root, cargo checks only the root package unless told
    `--workspace` (a virtual manifest checks its default members). An empty `[workspace]` in a package only
    stops cargo from looking for an enclosing workspace: one crate, no flag."""
    manifest = read_toml(project.root / "Cargo.toml")
    if manifest is None:
        return False
    workspace = manifest.get("workspace")
    if not isinstance(workspace, Mapping):
        return False
    return bool(workspace.get("members")) or not isinstance(manifest.get("package"), Mapping)


def workspace(project: Project) -> Workspace | None:
    """The Cargo workspace the root manifest declares: `[workspace] members` (globs) minus `exclude`, and the
    path dependencies inside the root, which cargo makes members too. Every check covers them all (`tool_for`
    adds `--workspace`); the root is a crate of its own only with a `[package]`. An empty `[workspace]` in a
    package declares no members (see `is_workspace`), so it is no workspace here either."""
    path = project.root / "Cargo.toml"
    manifest = read_toml(path)
    if manifest is None or not is_workspace(project):
        return None
    table = manifest["workspace"]
    members = _strings(table.get("members", []))
    exclude = _strings(table.get("exclude", []))
    if members is None or exclude is None:
        log.warning("cannot read %s: [workspace] members and exclude must be lists of paths", path)
        return None
    declared = expand_members(project.root, members, exclude, manifest="Cargo.toml")
    found = dict.fromkeys(declared)
    queue = [project.root.resolve(), *declared]
    while queue:  # a member's path dependency inside the root is a member, and so are its own
        for dependency in _path_dependencies(project.root, queue.pop(0), exclude):
            if dependency not in found:
                found[dependency] = None
                queue.append(dependency)
    found.pop(project.root.resolve(), None)  # the root's own package is the root project, not a member
    own = isinstance(manifest.get("package"), Mapping)
    return Workspace("Cargo.toml", tuple(found), covers=frozenset(CHECKS), own=own)


def _strings(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


_DEPENDENCY_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


def _path_dependencies(root: Path, crate: Path, exclude: list[str]) -> tuple[Path, ...]:
    """The crates `crate`'s manifest depends on by `path` that lie inside the workspace root and are not
    excluded."""
    manifest = read_toml(crate / "Cargo.toml") or {}
    tables: list[Any] = [manifest.get(name) for name in _DEPENDENCY_TABLES]
    targets = manifest.get("target")
    if isinstance(targets, Mapping):
        tables += [t.get(name) for t in targets.values() if isinstance(t, Mapping) for name in _DEPENDENCY_TABLES]
    paths = [
        (crate / dep["path"]).as_posix()
        for table in tables
        if isinstance(table, Mapping)
        for dep in table.values()
        if isinstance(dep, Mapping) and isinstance(dep.get("path"), str)
    ]
    return expand_members(root, paths, exclude, manifest="Cargo.toml", globs=False)


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
        return FileScope(tool_for(project, "lint"), filter_to_file=True, stdin=False)
    if check == "format":
        argv = ("rustfmt", "--check", "--edition", edition(project, file), "--color", "never")
        spec = ToolSpec(
            check="format",
            tool="rustfmt",
            argv=(*argv, project_relpath(project, file)),
            parser="rustfmt",
            finding_codes=frozenset({1}),
            install_hint=INSTALL_RUSTFMT,
        )
        return FileScope(spec, filter_to_file=True, stdin=False)
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


def _cargo_workspace_rule(ancestors: list[Path], nearest: Path | None) -> Path | None:
    """rust-analyzer is rooted at the crate's Cargo workspace: the nearest manifest at or above the crate with a
    `[workspace]` table, as cargo finds it."""
    if nearest is None:
        return None
    for folder in ancestors[ancestors.index(nearest) :]:
        manifest = read_toml(folder / "Cargo.toml")
        if manifest is not None and "workspace" in manifest:
            return folder
    return None


LANGUAGE = LanguageSpec(
    name="rust",
    markers=("Cargo.toml",),
    extensions={".rs": "rust"},
    tool_for=tool_for,
    file_scope=file_scope,
    formatter_for=formatter_for,
    server=ServerSpec(
        (("rust-analyzer",),),
        "rustup component add rust-analyzer",
        ("Cargo.toml",),
        root_rule=_cargo_workspace_rule,
        # rust-analyzer's "poke the developers" errors, shown by builds from source (POKE_RA_DEVS): a slow turn of
        # its main loop, a request that panicked (it hides panics from users otherwise).
        chatter=(r"^overly long loop turn took ", r"^server panicked.*, check the log$"),
    ),
    install_dirs=install_dirs,
    order=20,
    workspace=workspace,
    test_data_dirs=frozenset({"tests"}),
)
