"""The CLI's contract (CONTRACT §2): exit codes, not_checked runs, usage errors — through the real binary."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_tool, run_lintel, run_tool


def project(tmp_path: Path, marker: str = "go.mod", config: str = "") -> Path:
    (tmp_path / marker).write_text("module example.com/x\n\ngo 1.22\n" if marker == "go.mod" else "")
    if marker == "go.mod":  # a module that uses golangci-lint (else its lint is not configured)
        (tmp_path / ".golangci.yml").write_text('version: "2"\n')
    if config:
        (tmp_path / "lintel.toml").write_text(config)
    return tmp_path


def test_no_markers_is_a_usage_error(tmp_path: Path) -> None:
    # A copy outside any project: in place, the fixture is a folder of lintel's own Python project.
    proc = run_lintel("check", str(copy_workspace("no-markers", tmp_path / "ws")))
    assert proc.returncode == 2
    assert "no supported project detected in workspace root (found markers: none)" in proc.stderr


def test_missing_path_and_bad_only_are_usage_errors(tmp_path: Path) -> None:
    assert run_lintel("check", str(tmp_path / "nope")).returncode == 2
    proc = run_lintel("check", str(project(tmp_path)), "--only", "lint,spelling")
    assert proc.returncode == 2
    assert "unknown check spelling" in proc.stderr
    assert run_lintel("check", str(tmp_path), "--format", "yaml").returncode == 2


def test_language_not_detected_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_lintel("check", str(project(tmp_path)), "--language", "rust")
    assert proc.returncode == 2
    assert 'language "rust" not detected in workspace; detected: go' in proc.stderr


def no_tools(tmp_path: Path) -> dict[str, str]:
    """An environment in which no Go tool can be found: PATH and every folder `go install` might have used."""
    return {
        "PATH": "/nonexistent",
        "GOBIN": "",
        "GOPATH": str(tmp_path / "gopath"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


def test_missing_binary_is_not_checked_and_exit_3(tmp_path: Path) -> None:
    code, report = lintel_json("check", str(project(tmp_path)), env=no_tools(tmp_path))
    assert code == 3
    assert {r["check"]: r["status"] for r in report["runs"]} == {"lint": "not_checked", "typecheck": "not_checked"}
    lint = next(r for r in report["runs"] if r["check"] == "lint")
    assert lint["reason"].startswith("lint: golangci-lint: not found on PATH")
    assert "go install" in lint["reason"]
    assert report["summary"]["notChecked"] == 2
    assert report["issues"] == []


def test_timeout_kills_and_reports_timeout_issue(tmp_path: Path) -> None:
    root = project(
        tmp_path, config=f'[languages.go]\nlint = ["{sys.executable}", "-c", "import time; time.sleep(60)"]\n'
    )
    code, report = lintel_json("check", str(root), "--only", "lint", "--timeout", "1")
    assert code == 3
    [run] = report["runs"]
    assert run["timedOut"] is True
    assert run["exitCode"] == 124
    assert run["status"] == "not_checked"
    assert run["durationMs"] < 30_000
    [issue] = report["issues"]
    assert issue["kind"] == "timeout"


def test_tool_failure_without_findings_is_not_checked(tmp_path: Path) -> None:
    script = "import sys; print('panic: something broke'); sys.exit(3)"
    root = project(tmp_path, config=f'[languages.go]\nlint = ["{sys.executable}", "-c", "{script}"]\n')
    code, report = lintel_json("check", str(root), "--only", "lint")
    assert code == 3
    [run] = report["runs"]
    assert run["status"] == "not_checked"
    assert "exit 3" in run["reason"]
    assert "panic: something broke" in run["reason"]


@pytest.mark.parametrize("command", [["detect"], ["detect", "--json"], ["check"]])
def test_a_pyproject_not_toml_is_exit_2_naming_the_file_line_and_why(tmp_path: Path, command: list[str]) -> None:
    """`lintel detect` exited 2 with `(file): cannot read pyproject.toml: … (the default is used)`."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nversion = \n')
    proc = run_lintel(*command, str(tmp_path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "lintel: invalid configuration:\n"
        f"  {tmp_path / 'pyproject.toml'}: not valid TOML: Invalid value (at line 3, column 11)\n"
    )


def test_invalid_configuration_is_exit_2_with_path(tmp_path: Path) -> None:
    root = project(tmp_path, config="[timeouts]\nlint = 'soon'\n")
    proc = run_lintel("check", str(root))
    assert proc.returncode == 2
    assert "timeouts.lint:" in proc.stderr


def test_detect_json_lists_argv_and_binaries(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "package.json").write_text(json.dumps({"scripts": {"lint": "eslint ."}}))
    (root / "yarn.lock").write_text("")
    proc = run_lintel("detect", str(root), "--json", env={"PATH": "/nonexistent"})
    assert proc.returncode == 0
    document = json.loads(proc.stdout)
    go, node = document["projects"]
    assert go["language"] == "go"
    assert go["checks"]["lint"]["argv"][0] == "golangci-lint"
    assert go["checks"]["lint"]["binaries"][0] == {
        "name": "golangci-lint",
        "found": False,
        "path": None,
        "via": "missing",
    }
    assert node["packageManager"] == "yarn"
    assert node["scripts"] == {"lint": "eslint ."}
    assert node["checks"]["lint"]["argv"][0] == "yarn"


def test_detect_text_on_no_markers() -> None:
    proc = run_lintel("detect", str(WORKSPACES / "no-markers"))
    assert proc.returncode == 0
    assert "no supported project detected" in proc.stdout


def test_a_go_tool_installed_with_the_printed_hint_is_found_off_path(tmp_path: Path) -> None:
    """`go install` puts golangci-lint in GOBIN (or GOPATH/bin), which a fresh Go install does not put on PATH."""
    real = require_tool("golangci-lint")
    go = require_tool("go")
    env = {**no_tools(tmp_path), "PATH": str(Path(go).parent), "GOBIN": str(Path(real).parent)}
    (tmp_path / "module").mkdir()
    root = project(tmp_path / "module")
    (root / "main.go").write_text('package main\n\nimport "os"\n\nfunc main() {\n\tos.Remove("x")\n}\n')
    proc = run_lintel("detect", str(root), env=env)
    assert f"golangci-lint: {real} (install-dir)" in proc.stdout
    code, report = lintel_json("check", str(root), "--only", "lint", env=env)
    [run] = report["runs"]
    assert (code, run["status"]) == (1, "findings"), run
    assert [(i["file"], i["line"], i["rule"]) for i in report["issues"]] == [("main.go", 6, "errcheck")]


def test_detect_names_each_projects_navigation_server(tmp_path: Path) -> None:
    gopls = require_tool("gopls")
    proc = run_lintel("detect", str(WORKSPACES / "go"), "--json")
    [go] = json.loads(proc.stdout)["projects"]
    assert go["navigation"] == {"name": "gopls", "argv": [gopls], "found": True, "reason": None}
    proc = run_lintel("detect", str(project(tmp_path)), "--json", env=no_tools(tmp_path))
    [go] = json.loads(proc.stdout)["projects"]
    assert go["navigation"]["found"] is False
    assert go["navigation"]["reason"].startswith("navigation: gopls: not found on PATH — install it with: go install")


def test_rustups_proxy_without_the_component_is_reported_as_not_installed(tmp_path: Path) -> None:
    """rustup links rust-analyzer into ~/.cargo/bin whether or not the component is installed; without it the
    proxy dies with "Unknown binary" and a backtrace (the real proxy of this machine's rustup)."""
    proxy = Path.home() / ".cargo" / "bin" / "rust-analyzer"
    if not proxy.is_symlink() or Path(os.path.realpath(proxy)).name != "rustup":
        pytest.skip(f"{proxy} is not rustup's proxy here")
    # Only rustup's folder and the system's on PATH: rustup forwards to a rust-analyzer found further down PATH.
    env = {"PATH": os.pathsep.join([str(proxy.parent), "/usr/bin", "/bin"])}
    if run_tool([str(proxy), "--version"], cwd=tmp_path, env=env).returncode == 0:
        pytest.skip("rustup's rust-analyzer component is installed here")
    crate = project(tmp_path, marker="Cargo.toml")
    proc = run_lintel("detect", str(crate), env=env)
    assert "navigation NOT FOUND: rust-analyzer is not installed (rustup component add rust-analyzer)" in proc.stdout


@pytest.mark.parametrize("flag", ["--output", "--write-baseline"])
def test_a_report_file_that_cannot_be_written_is_a_usage_error_before_anything_runs(tmp_path: Path, flag: str) -> None:
    """A folder, or a file in a missing folder, was a traceback and exit 1 (read as findings)."""
    (tmp_path / "ws").mkdir()
    root = project(tmp_path / "ws", "pyproject.toml")
    for target, problem in [
        (tmp_path, f"{flag} {tmp_path}: is a folder; name a file"),
        (tmp_path / "missing" / "r.json", f"{flag} {tmp_path / 'missing' / 'r.json'}: the folder "),
    ]:
        proc = run_lintel("check", str(root), flag, str(target), "-q")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"lintel: {problem}")
        assert "Traceback" not in proc.stderr
        assert proc.stdout == ""  # refused before any check ran


def test_a_malformed_baseline_is_a_usage_error_naming_what_is_wrong(tmp_path: Path) -> None:
    """`{"version": 1}` and non-object issues were accepted as empty baselines."""
    (tmp_path / "ws").mkdir()
    root = project(tmp_path / "ws", "pyproject.toml")
    for text, problem in [
        ('{"version": 1}', "neither a lintel JSON report (no `issues` list)"),
        ('{"version": 1, "issues": ["x"]}', "issues[0] is not an object"),
    ]:
        (tmp_path / "base.json").write_text(text)
        proc = run_lintel("check", str(root), "--baseline", str(tmp_path / "base.json"), "-q")
        assert proc.returncode == 2
        assert problem in proc.stderr
    merged = run_lintel("merge", str(tmp_path / "base.json"), "--output", str(tmp_path))
    assert merged.returncode == 2
    assert "Traceback" not in merged.stderr


def test_thousands_of_findings_are_all_reported_though_the_output_text_is_capped(tmp_path: Path) -> None:
    """Past the 500 KiB stream cap (a few hundred ruff findings) ruff's JSON would no longer parse: exit 3, every
    finding lost. 3,000 findings (over a megabyte of JSON) must all be reported."""
    require_tool("ruff")
    root = project(tmp_path, "pyproject.toml")
    for n in range(20):
        (root / f"m{n}.py").write_text("".join(f"x{i} = undefined_{i}\n" for i in range(150)))
    code, report = lintel_json("check", str(root), "--only", "lint", "-q")
    assert code == 1
    assert len(report["issues"]) == 3000
    assert {i["rule"] for i in report["issues"]} == {"F821"}
    [run] = report["runs"]
    assert (run["status"], run["reason"]) == ("findings", None)


def conftest_that_cannot_import(tmp_path: Path) -> Path:
    root = tmp_path / "pcx"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "pcx"\nversion = "0"\n')
    (root / "tests" / "conftest.py").write_text("import not_a_module\n")
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    return root


def test_the_text_report_is_quiet_off_a_terminal_and_a_run_that_did_not_finish_is_one_line(tmp_path: Path) -> None:
    """stderr is a pipe here, as in CI or for an agent: no progress lines unless --progress; pytest's ImportError
    traceback is one `not checked` line in the text report, whole in the JSON one."""
    require_tool("pytest")
    root = conftest_that_cannot_import(tmp_path)
    proc = run_lintel("check", "--only", "test", str(root))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr == ""
    [line] = [line for line in proc.stdout.splitlines() if line.startswith("not checked:")]
    assert "ModuleNotFoundError: No module named 'not_a_module'" in line, proc.stdout
    assert "import not_a_module" not in proc.stdout
    assert len(proc.stdout.splitlines()) == 2, proc.stdout  # that line and the summary

    shown = run_lintel("check", "--only", "test", "--progress", str(root))
    assert shown.stderr.splitlines()[0] == "lintel: running python test…", shown.stderr
    assert len(shown.stderr.splitlines()) == 2, shown.stderr  # started, ended

    document = json.loads(run_lintel("check", "--only", "test", "--format", "json", str(root)).stdout)
    [run] = document["runs"]
    assert "import not_a_module" in run["reason"]
