"""The Go toolchain table: argv, parsers, exit-code meaning and install hints of each check."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from lintel.engine.detect import detect
from lintel.languages import CHECKS
from lintel.languages.binaries import not_found_message
from lintel.languages.go import tools as go_toolchain
from lintel.languages.parsers import is_known_parser

from tests.helpers import REPO, WORKSPACES, make_project, tool_for

PROJECT = make_project("go", root=Path("/ws"), markers=("go.mod",))
GOLANGCI_ARGV = (
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


def test_fixtures_are_detected_as_go() -> None:
    [project] = detect(WORKSPACES / "go")
    assert project.language == "go"
    assert tool_for(project, "lint").tool == "golangci-lint"
    # go first: the default order is go, rust, node, python
    assert [p.language for p in detect(WORKSPACES / "polyglot")] == ["go", "node"]


@pytest.mark.parametrize(
    ("check", "argv", "tool", "parser", "kind"),
    [
        ("lint", GOLANGCI_ARGV, "golangci-lint", "golangci-lint", "lint"),
        ("typecheck", ("go", "vet", "./..."), "go vet", "go-vet", "typecheck"),
        ("test", ("go", "test", "-json", "-count=1", "-fullpath", "./..."), "go test", "go-test", "test"),
        ("format", ("gofmt", "-l", "."), "gofmt", "gofmt", "format"),
    ],
)
def test_commands(check: str, argv: tuple[str, ...], tool: str, parser: str, kind: str) -> None:
    spec = go_toolchain.tool_for(PROJECT, check)  # type: ignore[arg-type]
    assert spec.check == check
    assert spec.argv == argv
    assert spec.tool == tool
    assert spec.parser == parser
    assert is_known_parser(spec.parser)
    assert spec.requires == ()


@pytest.mark.parametrize("check", ["lint", "typecheck", "test"])
def test_exit_codes_zero_clean_one_findings(check: str) -> None:
    # Measured (go 1.26.8, golangci-lint v2.15.0): 0 clean; 1 findings, failing tests or compile errors.
    # golangci-lint's 3 (config, lock), 4 (timeout), 5 (no Go files) and go's usage errors are failures.
    spec = tool_for(PROJECT, check)  # type: ignore[arg-type]
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset({1})


def test_gofmt_exit_codes() -> None:
    # gofmt -l exits 0 while listing files (the parser makes them findings); 2 when a file does not parse.
    spec = tool_for(PROJECT, "format")
    assert spec.ok_codes == frozenset({0})
    assert spec.finding_codes == frozenset({2})


def test_every_check_has_a_spec_and_unknown_checks_are_refused() -> None:
    assert {tool_for(PROJECT, check).check for check in CHECKS} == set(CHECKS)
    with pytest.raises(ValueError, match="unknown check"):
        go_toolchain.tool_for(PROJECT, "spelling")  # type: ignore[arg-type]


def test_install_hints() -> None:
    lint = tool_for(PROJECT, "lint")
    assert lint.install_hint == (
        "go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@" + go_toolchain.GOLANGCI_LINT_VERSION
    )
    for check in ("typecheck", "test", "format"):
        assert "https://go.dev/dl/" in tool_for(PROJECT, check).install_hint
    message = not_found_message("lint", lint.binary, lint.install_hint)
    assert message.startswith("lint: golangci-lint: not found on PATH — install it with: go install ")
    gopls = go_toolchain.INSTALL_GOPLS
    assert gopls == "go install golang.org/x/tools/gopls@" + go_toolchain.GOPLS_VERSION


def test_setup_script_pins_the_versions_the_hints_name() -> None:
    script = (REPO / "scripts" / "setup.d" / "10-go.sh").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^(GOLANGCI_LINT_VERSION|GOPLS_VERSION)=(\S+)$", script, re.M))
    assert pins == {
        "GOLANGCI_LINT_VERSION": go_toolchain.GOLANGCI_LINT_VERSION,
        "GOPLS_VERSION": go_toolchain.GOPLS_VERSION,
    }
    assert "@latest" not in script


def test_go_install_folders_as_go_env_would_name_them(tmp_path: Path) -> None:
    home_default = Path.home() / "go" / "bin"
    config = tmp_path / "config"
    assert go_toolchain.install_dirs({"XDG_CONFIG_HOME": str(config)}) == (home_default,)
    assert go_toolchain.install_dirs({"XDG_CONFIG_HOME": str(config), "GOPATH": f"/a{os.pathsep}/b"}) == (
        Path("/a/bin"),
        Path("/b/bin"),
    )
    assert go_toolchain.install_dirs({"XDG_CONFIG_HOME": str(config), "GOBIN": "/gobin", "GOPATH": "/a"}) == (
        Path("/gobin"),
        Path("/a/bin"),
    )
    # `go env -w GOPATH=… GOBIN=…` writes go's env file; the environment still wins over it.
    (config / "go").mkdir(parents=True)
    (config / "go" / "env").write_text("GOFLAGS=-mod=mod\nGOPATH=/written\nGOBIN=/written-bin\n", encoding="utf-8")
    assert go_toolchain.install_dirs({"XDG_CONFIG_HOME": str(config)}) == (Path("/written-bin"), Path("/written/bin"))
    assert go_toolchain.install_dirs({"XDG_CONFIG_HOME": str(config), "GOPATH": "/env"}) == (
        Path("/written-bin"),
        Path("/env/bin"),
    )


def test_golangci_lints_fix_mode_is_the_check_with_fix_for_the_module_and_for_one_package() -> None:
    project = make_project("go", WORKSPACES / "fix-go")
    spec = go_toolchain.tool_for(project, "lint")
    assert spec.fix_mode is not None
    assert spec.fix_mode.argv == (*spec.argv[:2], "--fix", *spec.argv[2:])
    assert spec.fix_mode.stdin_argv == ()
    one = go_toolchain.file_scope(project, "lint", WORKSPACES / "fix-go" / "sub" / "sub.go", use_stdin=False).spec
    assert one.fix_mode is not None
    assert one.fix_mode.argv == (*one.argv[:2], "--fix", *one.argv[2:])
    assert one.fix_mode.argv[-1] == "./sub"
