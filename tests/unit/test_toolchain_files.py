"""The per-file toolchain table (CONTRACT §6): what the server runs to lint or format-check one file, whether it
reads the buffer on stdin, whether the caller must keep only that file's findings, and each formatter."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from lintel.languages import FileCheckName, FileScope, Project, project_relpath
from lintel.languages.parsers import is_known_parser
from lintel.languages.rust import tools as rust_toolchain

from tests.helpers import file_scope, formatter_for, make_project, tool_for

ROOT = Path("/ws")
PYTHON = make_project("python", root=ROOT, markers=("pyproject.toml",))
GO = make_project("go", root=ROOT, markers=("go.mod",))
RUST = make_project("rust", root=ROOT, markers=("Cargo.toml",))
NODE = make_project("node", root=ROOT, markers=("package.json",), package_manager="npm", scripts={})
NODE_LINT_SCRIPT = make_project(
    "node",
    root=ROOT,
    markers=("package.json",),
    package_manager="yarn",
    scripts={"lint": "eslint ."},
)
ALL = (PYTHON, GO, RUST, NODE, NODE_LINT_SCRIPT)

RUFF_LINT = ("ruff", "check", "--output-format=json", "--no-fix", "--no-cache", "--force-exclude")
RUFF_FORMAT = ("ruff", "format", "--diff", "--no-cache", "--force-exclude")
GOLANGCI = (
    "golangci-lint",
    "run",
    "--output.json.path=stdout",
    "--show-stats=false",
    "--path-mode=abs",
    "--issues-exit-code=1",
    "--allow-parallel-runners",
    "--max-issues-per-linter=0",
    "--max-same-issues=0",
)


# ------------------------------------------------------------------------------------------------ python


@pytest.mark.parametrize(
    ("check", "use_stdin", "argv"),
    [
        ("lint", False, (*RUFF_LINT, "src/pkg/mod.py")),
        ("lint", True, (*RUFF_LINT, "--stdin-filename", "src/pkg/mod.py", "-")),
        ("format", False, (*RUFF_FORMAT, "src/pkg/mod.py")),
        ("format", True, (*RUFF_FORMAT, "--stdin-filename", "src/pkg/mod.py", "-")),
    ],
)
def test_python_checks_the_file_itself(check: FileCheckName, use_stdin: bool, argv: tuple[str, ...]) -> None:
    scope = file_scope(PYTHON, check, ROOT / "src" / "pkg" / "mod.py", use_stdin=use_stdin)
    assert scope == FileScope(dataclasses.replace(tool_for(PYTHON, check), argv=argv), False, use_stdin)


def test_python_formatter_reads_stdin_with_the_files_settings() -> None:
    spec = formatter_for(PYTHON, ROOT / "src" / "pkg" / "mod.py")
    assert spec is not None
    assert spec.argv == ("ruff", "format", "--force-exclude", "--stdin-filename", "src/pkg/mod.py", "-")
    assert formatter_for(PYTHON, ROOT / "stubs" / "mod.pyi") is not None
    assert formatter_for(PYTHON, ROOT / "README.md") is None


# -------------------------------------------------------------------------------------------------- node


@pytest.mark.parametrize(
    ("use_stdin", "argv"),
    [
        (False, ("npx", "--no-install", "eslint", "--format", "json-with-metadata", "src/util.js")),
        (
            True,
            (
                "npx",
                "--no-install",
                "eslint",
                "--format",
                "json-with-metadata",
                "--stdin",
                "--stdin-filename",
                "src/util.js",
            ),
        ),
    ],
)
def test_node_without_lint_script_runs_eslint_on_the_file(use_stdin: bool, argv: tuple[str, ...]) -> None:
    scope = file_scope(NODE, "lint", ROOT / "src" / "util.js", use_stdin=use_stdin)
    assert (scope.spec.argv, scope.filter_to_file, scope.stdin) == (argv, False, use_stdin)
    project_wide = tool_for(NODE, "lint")
    # Same tool, parser, exit codes and "eslint not found" reporting as the project-wide run; it takes the file
    # from stdin when given its text.
    stdin_args = ("--stdin", "--stdin-filename", "{file}")
    expected = dataclasses.replace(project_wide, argv=argv, fix_mode=scope.spec.fix_mode)
    assert scope.spec == dataclasses.replace(expected, per_file="stdin", stdin_args=stdin_args)
    assert scope.spec.requires == ("eslint",)


@pytest.mark.parametrize("use_stdin", [False, True])
def test_node_lint_script_runs_whole_and_is_filtered(use_stdin: bool) -> None:
    scope = file_scope(NODE_LINT_SCRIPT, "lint", ROOT / "src" / "util.js", use_stdin=use_stdin)
    assert scope == FileScope(tool_for(NODE_LINT_SCRIPT, "lint"), filter_to_file=True, stdin=False)
    assert scope.spec.argv == ("yarn", "--silent", "run", "lint", "--format", "json-with-metadata")


@pytest.mark.parametrize("project", [NODE, NODE_LINT_SCRIPT])
@pytest.mark.parametrize("use_stdin", [False, True])
def test_node_format_check_reads_the_saved_file(project: Project, use_stdin: bool) -> None:
    scope = file_scope(project, "format", ROOT / "src" / "messy.js", use_stdin=use_stdin)
    assert scope.spec.argv == (
        "npx",
        "--no-install",
        "prettier",
        "--check",
        "--ignore-unknown",
        "--no-error-on-unmatched-pattern",
        "src/messy.js",
    )
    assert (scope.filter_to_file, scope.stdin) == (False, False)
    assert scope.spec == dataclasses.replace(tool_for(project, "format"), argv=scope.spec.argv, per_file="append")


def test_node_formatter_is_prettier_on_stdin() -> None:
    spec = formatter_for(NODE_LINT_SCRIPT, ROOT / "web" / "app.tsx")
    assert spec is not None
    assert spec.argv == ("npx", "--no-install", "prettier", "--stdin-filepath", "web/app.tsx")
    assert spec.requires == ("prettier",)
    assert spec.install_hint == "yarn add --dev prettier"


# ---------------------------------------------------------------------------------------------------- go


@pytest.mark.parametrize(
    ("file", "package"),
    [("greet.go", "."), ("sub/calc.go", "./sub"), ("a/b/c_test.go", "./a/b"), ("-odd/x.go", "./-odd")],
)
@pytest.mark.parametrize("use_stdin", [False, True])
def test_go_lints_the_files_package(file: str, package: str, use_stdin: bool) -> None:
    scope = file_scope(GO, "lint", ROOT / file, use_stdin=use_stdin)
    whole = tool_for(GO, "lint")
    assert whole.fix_mode is not None
    # The fix mode, like the run, targets the file's package: `golangci-lint run --fix ./sub`.
    fix = dataclasses.replace(whole.fix_mode, argv=(*whole.fix_mode.argv, package))
    assert scope == FileScope(
        dataclasses.replace(whole, argv=(*GOLANGCI, package), fix_mode=fix), filter_to_file=True, stdin=False
    )


@pytest.mark.parametrize("use_stdin", [False, True])
def test_go_format_check_lists_the_saved_file(use_stdin: bool) -> None:
    scope = file_scope(GO, "format", ROOT / "sub" / "calc.go", use_stdin=use_stdin)
    assert scope == FileScope(
        dataclasses.replace(tool_for(GO, "format"), argv=("gofmt", "-l", "sub/calc.go"), per_file="append"),
        filter_to_file=False,
        stdin=False,
    )


def test_go_formatter_is_bare_gofmt() -> None:
    spec = formatter_for(GO, ROOT / "sub" / "calc.go")
    assert spec is not None
    assert spec.argv == ("gofmt",)
    assert formatter_for(GO, ROOT / "go.mod") is None


# -------------------------------------------------------------------------------------------------- rust


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("use_stdin", [False, True])
def test_rust_lint_is_the_crate_wide_clippy_run_filtered(use_stdin: bool) -> None:
    scope = file_scope(RUST, "lint", ROOT / "src" / "lib.rs", use_stdin=use_stdin)
    assert scope == FileScope(tool_for(RUST, "lint"), filter_to_file=True, stdin=False)


@pytest.mark.parametrize("use_stdin", [False, True])
def test_rust_format_check_runs_rustfmt_on_the_file_with_the_manifests_edition(tmp_path: Path, use_stdin: bool) -> None:
    write(tmp_path / "Cargo.toml", '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2024"\n')
    project = make_project("rust", root=tmp_path, markers=("Cargo.toml",))
    scope = file_scope(project, "format", tmp_path / "src" / "lib.rs", use_stdin=use_stdin)
    argv = ("rustfmt", "--check", "--edition", "2024", "--color", "never", "src/lib.rs")
    assert (scope.spec.argv, scope.filter_to_file, scope.stdin) == (argv, True, False)
    # rustfmt itself, not cargo: the parser, exit codes and hint of the project-wide format check stay.
    project_wide = tool_for(project, "format")
    assert (scope.spec.parser, scope.spec.finding_codes, scope.spec.install_hint) == (
        project_wide.parser,
        project_wide.finding_codes,
        project_wide.install_hint,
    )
    assert scope.spec.binary == "rustfmt"
    assert scope.spec.requires == ()


def test_rust_formatter_passes_the_edition(tmp_path: Path) -> None:
    write(tmp_path / "Cargo.toml", '[package]\nname = "x"\nedition = "2018"\n')
    project = make_project("rust", root=tmp_path, markers=("Cargo.toml",))
    spec = formatter_for(project, tmp_path / "src" / "main.rs")
    assert spec is not None
    assert spec.argv == ("rustfmt", "--edition", "2018")
    assert formatter_for(project, tmp_path / "Cargo.toml") is None


@pytest.mark.parametrize(
    ("manifests", "file", "edition"),
    [
        # cargo's own default for a package that names no edition, which cargo fmt passes on.
        ({"Cargo.toml": '[package]\nname = "x"\n'}, "src/lib.rs", "2015"),
        ({"Cargo.toml": '[package]\nname = "x"\nedition = "2021"\n'}, "tests/it.rs", "2021"),
        # The member crate's manifest, not the root's.
        (
            {
                "Cargo.toml": '[workspace]\nmembers = ["crates/a"]\n',
                "crates/a/Cargo.toml": '[package]\nname = "a"\nedition = "2024"\n',
            },
            "crates/a/src/lib.rs",
            "2024",
        ),
        # `edition.workspace = true` inherits `[workspace.package] edition`.
        (
            {
                "Cargo.toml": '[workspace]\nmembers = ["crates/a"]\n[workspace.package]\nedition = "2018"\n',
                "crates/a/Cargo.toml": '[package]\nname = "a"\nedition.workspace = true\n',
            },
            "crates/a/src/lib.rs",
            "2018",
        ),
        # A file of no package, beside a virtual manifest: the workspace's edition, else 2021.
        ({"Cargo.toml": '[workspace]\n[workspace.package]\nedition = "2024"\n'}, "scripts/x.rs", "2024"),
        ({"Cargo.toml": "[workspace]\n"}, "scripts/x.rs", "2021"),
        # No readable manifest at all.
        ({}, "src/lib.rs", "2021"),
        ({"Cargo.toml": "[package\n"}, "src/lib.rs", "2021"),
    ],
)
def test_rust_edition_follows_cargo(tmp_path: Path, manifests: dict[str, str], file: str, edition: str) -> None:
    for name, text in manifests.items():
        write(tmp_path / name, text)
    project = make_project("rust", root=tmp_path, markers=("Cargo.toml",))
    assert rust_toolchain.edition(project, tmp_path / file) == edition


def test_rust_edition_ignores_manifests_above_the_project(tmp_path: Path) -> None:
    write(tmp_path / "Cargo.toml", '[package]\nname = "outer"\nedition = "2018"\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    project = make_project("rust", root=inner, markers=())
    assert rust_toolchain.edition(project, inner / "src" / "lib.rs") == "2021"


# ------------------------------------------------------------------------------------------ all languages


@pytest.mark.parametrize("project", ALL, ids=lambda p: f"{p.language}{'-script' if p.scripts else ''}")
@pytest.mark.parametrize("check", ["lint", "format"])
@pytest.mark.parametrize("use_stdin", [False, True])
def test_scopes_are_the_checks_own_kind_and_parser(project: Project, check: FileCheckName, use_stdin: bool) -> None:
    scope = file_scope(project, check, ROOT / "src" / "x", use_stdin=use_stdin)
    assert scope.spec.check == check
    assert is_known_parser(scope.spec.parser)
    assert scope.spec.parser == tool_for(project, check).parser
    # Only tools that read stdin say so, and only when asked.
    assert not scope.stdin or use_stdin


@pytest.mark.parametrize(
    ("project", "file"),
    [(PYTHON, "a.py"), (GO, "a.go"), (RUST, "src/a.rs"), (NODE, "a.ts")],
    ids=lambda v: v.language if isinstance(v, Project) else v,
)
def test_formatters_read_stdin_and_report_failure_as_custom(project: Project, file: str) -> None:
    spec = formatter_for(project, ROOT / file)
    assert spec is not None
    assert (spec.check, spec.parser) == ("format", "custom")
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset()  # a formatter that fails found nothing: it failed
    assert spec.install_hint == tool_for(project, "format").install_hint


@pytest.mark.parametrize("project", ALL, ids=lambda p: p.language)
def test_unknown_file_check_is_refused(project: Project) -> None:
    with pytest.raises(ValueError, match="unknown file check 'test'"):
        file_scope(project, "test", ROOT / "a", use_stdin=False)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- relpaths


def test_relpath_is_posix_and_relative_to_the_project_root() -> None:
    project = make_project("python", root=ROOT / "svc", markers=("pyproject.toml",))
    assert project_relpath(project, ROOT / "svc" / "pkg" / "a.py") == "pkg/a.py"
    assert project_relpath(project, ROOT / "svc" / "a.py") == "a.py"


def test_relpath_guards_names_that_look_like_options() -> None:
    assert project_relpath(PYTHON, ROOT / "--fix.py") == "./--fix.py"
    scope = file_scope(NODE, "lint", ROOT / "--fix.js", use_stdin=False)
    assert scope.spec.argv[-1] == "./--fix.js"


def test_relpath_through_a_symlink_to_the_resolved_root(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    (real / "pkg" / "a.py").write_text("", encoding="utf-8")
    (tmp_path / "link").symlink_to(real)
    project = make_project("python", root=real, markers=("pyproject.toml",))
    assert project_relpath(project, tmp_path / "link" / "pkg" / "a.py") == "pkg/a.py"


def test_relpath_refuses_files_outside_the_project() -> None:
    with pytest.raises(ValueError, match="elsewhere"):
        project_relpath(PYTHON, Path("/elsewhere/a.py"))
