"""`lintel check` on the Go fixtures, compared with golangci-lint, go vet, go test and gofmt run by hand.

tests/workspaces/go is a module with two packages: golangci-lint findings of five linters in three files, two
go vet findings (also reported by golangci-lint's govet), a file gofmt would change, passing tests in both
packages and one failing test in the subpackage. tests/workspaces/polyglot holds a Go module beside a Node
project; its go.mod `ignore`s node_modules, where packages such as flatted ship Go files of their own.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from lintel.engine.checks import run_file_check
from lintel.engine.config import LintelConfig
from lintel.engine.detect import detect

from tests.helpers import WORKSPACES, finding_keys, lintel_json, require_tool, run_tool

FIXTURE = WORKSPACES / "go"
POLYGLOT = WORKSPACES / "polyglot"
GOLANGCI = [
    "golangci-lint",
    "run",
    "--output.json.path=stdout",
    "--show-stats=false",
    "--path-mode=abs",
    "--issues-exit-code=1",
    "--allow-parallel-runners",
    "--max-issues-per-linter=0",
    "--max-same-issues=0",
]
VET_LINE = re.compile(r"^(?:vet: )?(?:\./)?(?P<file>[^\s:]+\.go):(?P<line>\d+):\d+: ", re.M)

pytestmark = pytest.mark.tool("go")


def require_go() -> None:
    require_tool("go", "install Go from https://go.dev/dl/")


def golangci_by_hand(cwd: Path) -> Counter[tuple[Any, ...]]:
    """(file, line, linter) of every issue golangci-lint prints, read straight from its JSON."""
    proc = run_tool(GOLANGCI, cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    issues = json.loads(proc.stdout)["Issues"]
    return Counter(
        (Path(i["Pos"]["Filename"]).relative_to(cwd).as_posix(), i["Pos"]["Line"], i["FromLinter"]) for i in issues
    )


def vet_by_hand(cwd: Path) -> Counter[tuple[Any, ...]]:
    """(file, line, None) of every `file:line:col: message` go vet prints (it names no analyzer)."""
    proc = run_tool(["go", "vet", "./..."], cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    return Counter((m.group("file"), int(m.group("line")), None) for m in VET_LINE.finditer(proc.stderr))


def run_of(report: dict[str, Any], check: str) -> dict[str, Any]:
    runs: list[dict[str, Any]] = [r for r in report["runs"] if r["check"] == check and r["language"] == "go"]
    [run] = runs
    return run


def test_lint_and_typecheck_match_golangci_lint_and_go_vet_by_hand() -> None:
    require_go()
    require_tool("golangci-lint")
    golangci = golangci_by_hand(FIXTURE)
    vet = vet_by_hand(FIXTURE)
    assert {linter for _, _, linter in golangci} == {"errcheck", "govet", "ineffassign", "staticcheck", "unused"}
    assert {file for file, _, _ in golangci} == {"greet.go", "store.go", "sub/calc.go"}
    assert vet == Counter({("greet.go", 17, None): 1, ("sub/calc.go", 11, None): 1})

    code, report = lintel_json("check", str(FIXTURE), "--only", "lint,typecheck")
    assert code == 1
    assert [p["language"] for p in report["projects"]] == ["go"]
    lint, typecheck = run_of(report, "lint"), run_of(report, "typecheck")
    assert (lint["status"], lint["exitCode"], lint["argv"]) == ("findings", 1, GOLANGCI)
    assert (typecheck["status"], typecheck["exitCode"], typecheck["argv"]) == ("findings", 1, ["go", "vet", "./..."])
    by_source = {
        source: finding_keys(i for i in report["issues"] if i["source"] == source)
        for source in ("golangci-lint", "go vet")
    }
    assert by_source["golangci-lint"] == golangci
    assert by_source["go vet"] == vet
    assert len(report["issues"]) == sum(golangci.values()) + sum(vet.values())
    assert report["summary"]["errors"] == len(report["issues"])
    assert {i["kind"] for i in report["issues"]} == {"lint", "typecheck"}
    assert all(i["fingerprint"] and i["signature"] for i in report["issues"])


def test_only_test_reports_the_failing_test_with_file_and_line() -> None:
    require_go()
    by_hand = run_tool(["go", "test", "-json", "-count=1", "./..."], cwd=FIXTURE)
    assert by_hand.returncode == 1
    failed = {
        (e["Package"], e["Test"])
        for e in map(json.loads, by_hand.stdout.splitlines())
        if e["Action"] == "fail" and "Test" in e
    }
    assert failed == {("example.com/lintelgo/sub", "TestScale")}

    code, report = lintel_json("check", str(FIXTURE), "--only", "test")
    assert code == 1
    run = run_of(report, "test")
    assert (run["status"], run["exitCode"]) == ("findings", 1)
    [issue] = report["issues"]
    assert (issue["kind"], issue["file"], issue["line"], issue["source"], issue["severity"]) == (
        "test",
        "sub/calc_test.go",
        13,
        "go test",
        "error",
    )
    assert issue["message"] == "TestScale failed: Scale(2, 3) = 6, want 7"


def test_only_format_reports_the_file_gofmt_lists() -> None:
    require_go()
    by_hand = run_tool(["gofmt", "-l", "."], cwd=FIXTURE)
    assert (by_hand.returncode, by_hand.stdout.split()) == (0, ["double.go"])
    code, report = lintel_json("check", str(FIXTURE), "--only", "format")
    assert code == 0  # formatting is a warning; the default fail level is error
    assert run_of(report, "format")["status"] == "findings"
    assert [(i["kind"], i["file"], i.get("line")) for i in report["issues"]] == [("format", "double.go", None)]


def test_polyglot_language_go_runs_only_go() -> None:
    require_go()
    require_tool("golangci-lint")
    golangci = golangci_by_hand(POLYGLOT)
    vet = vet_by_hand(POLYGLOT)
    assert golangci == Counter({("server.go", 15, "errcheck"): 1})
    assert vet == Counter({("server.go", 9, None): 1})

    code, report = lintel_json("check", str(POLYGLOT), "--language", "go", "--only", "lint,typecheck,test")
    assert code == 1
    assert {r["language"] for r in report["runs"]} == {"go"}
    assert {r["check"]: r["status"] for r in report["runs"]} == {
        "lint": "findings",
        "typecheck": "findings",
        "test": "findings",
    }
    assert finding_keys(i for i in report["issues"] if i["source"] == "golangci-lint") == golangci
    assert finding_keys(i for i in report["issues"] if i["source"] == "go vet") == vet
    [test] = [i for i in report["issues"] if i["kind"] == "test"]
    assert (test["file"], test["line"]) == ("server_test.go", 7)
    # nothing from Go files an npm package may ship
    assert not any((i.get("file") or "").startswith("node_modules/") for i in report["issues"])


def test_compile_error_is_a_build_issue_for_every_go_check(tmp_path: Path) -> None:
    require_go()
    require_tool("golangci-lint")
    module = tmp_path / "module"
    shutil.copytree(FIXTURE, module)
    (module / "sub" / "broken.go").write_text(
        "package calc\n\n// Broken does not compile.\nfunc Broken() int {\n\treturn missing + 1\n}\n",
        encoding="utf-8",
    )
    code, report = lintel_json("check", str(module), "--only", "lint,typecheck,test")
    assert code == 1
    for check in ("lint", "typecheck", "test"):
        assert run_of(report, check)["status"] == "findings", check
    builds = [i for i in report["issues"] if i["kind"] == "build"]
    assert {(i["file"], i["line"], i["message"]) for i in builds} == {("sub/broken.go", 5, "undefined: missing")}
    # The same compile error is one issue whichever tools hit it (CONTRACT §8).
    [build] = builds
    assert build["source"] in {"golangci-lint", "go vet", "go test"}


def test_a_compile_error_in_a_test_file_seen_by_three_tools_is_one_issue(tmp_path: Path) -> None:
    require_go()
    require_tool("golangci-lint")
    module = tmp_path / "module"
    shutil.copytree(FIXTURE, module)
    test_file = module / "greet_test.go"
    test_file.write_text(test_file.read_text(encoding="utf-8").replace("Double(2) != 4", "Triple(2) != 4"), "utf-8")
    # Each tool run by hand reports it: go vet, go test's build, golangci-lint's typecheck.
    assert "greet_test.go:12:5: undefined: Triple" in run_tool(["go", "vet", "./..."], cwd=module).stderr
    assert "greet_test.go:12:5: undefined: Triple" in run_tool(["go", "test", "-count=1", "./..."], cwd=module).stderr
    # golangci-lint v2 places it on line 1 of the package's first file, the compiler's own line in its text.
    golangci = json.loads(run_tool(GOLANGCI, cwd=module).stdout)["Issues"]
    typecheck = [i["Text"] for i in golangci if i["FromLinter"] == "typecheck"]
    assert len(typecheck) == 1
    assert "greet_test.go:12:5: undefined: Triple" in typecheck[0]

    code, report = lintel_json("check", str(module), "--only", "lint,typecheck,test")
    assert code == 1
    in_test_file = [i for i in report["issues"] if i["file"] == "greet_test.go"]
    assert [(i["kind"], i["line"], i["column"], i["message"]) for i in in_test_file] == [
        ("build", 12, 5, "undefined: Triple")
    ]


def test_module_without_packages_is_not_checked(tmp_path: Path) -> None:
    require_go()
    require_tool("golangci-lint")
    (tmp_path / "go.mod").write_text("module example.com/empty\n\ngo 1.25\n", encoding="utf-8")
    (tmp_path / ".golangci.yml").write_text('version: "2"\n', encoding="utf-8")  # the module uses golangci-lint
    code, report = lintel_json("check", str(tmp_path), "--only", "lint,typecheck,test")
    assert code == 3
    statuses = {r["check"]: (r["status"], r["exitCode"]) for r in report["runs"]}
    # golangci-lint exits 5 (no Go files); go vet and go test exit 1 with "matched no packages".
    assert statuses == {"lint": ("not_checked", 5), "typecheck": ("not_checked", 1), "test": ("not_checked", 1)}
    assert all(r["reason"] for r in report["runs"])


# -- tests/workspaces/go-many: 64 + 5 unchecked os.Remove and 1 os.Chdir; a panic beside parallel tests ------

MANY = WORKSPACES / "go-many"


def test_every_finding_is_reported_not_golangci_lints_default_sample() -> None:
    require_go()
    require_tool("golangci-lint")
    # golangci-lint's own defaults keep 3 issues with the same text (and 50 per linter): the shape of the bug.
    capped = run_tool(GOLANGCI[: GOLANGCI.index("--max-issues-per-linter=0")], cwd=MANY)
    assert len(json.loads(capped.stdout)["Issues"]) == 4
    every = golangci_by_hand(MANY)
    assert sum(every.values()) == 70
    assert every[("clean.go", 9, "errcheck")] == 1
    assert sum(n for (file, _, _), n in every.items() if file == "clean.go") == 64

    code, report = lintel_json("check", str(MANY), "--only", "lint")
    assert code == 1
    assert finding_keys(report["issues"]) == every


async def test_a_files_save_diagnostics_see_all_of_its_findings() -> None:
    require_go()
    require_tool("golangci-lint")
    [project] = detect(MANY)
    by_file = Counter(file for file, _, _ in golangci_by_hand(MANY).elements())
    for name, count in (("clean.go", 64), ("reset.go", 6)):
        assert by_file[name] == count
        result = await run_file_check(project, "lint", MANY / name, workspace=MANY, config=LintelConfig())
        assert result is not None
        assert len(result.issues) == count, result.output[-2000:]
        assert {i.file for i in result.issues} == {name}


def test_a_panicking_parallel_test_is_the_failure_and_its_neighbours_are_not() -> None:
    require_go()
    by_hand = run_tool(["go", "test", "-json", "-count=1", "./..."], cwd=MANY)
    assert by_hand.returncode == 1
    events = [json.loads(line) for line in by_hand.stdout.splitlines()]
    failed = {e["Test"] for e in events if e["Action"] == "fail" and "Test" in e}
    assert failed == {"TestIndexOutOfRange", "TestWrongCount"}  # TestSlowButFine never ends: no verdict

    code, report = lintel_json("check", str(MANY), "--only", "test")
    assert code == 1
    tests = {i["message"].split(" failed: ")[0]: (i["file"], i["line"]) for i in report["issues"]}
    assert tests == {"TestIndexOutOfRange": ("many_test.go", 20), "TestWrongCount": ("many_test.go", 26)}
    [panic] = [i for i in report["issues"] if i["message"].startswith("TestIndexOutOfRange")]
    assert "TestSlowButFine did not finish" in panic["message"]


# -- a broken go.mod ---------------------------------------------------------------------------------------


def write_module_needing_tidy(root: Path) -> Path:
    """A module whose go.mod lists example.com/b at v1.1.0 while example.com/a needs v1.2.0 (local replacements
    beside it, outside the checked folder, no network): the go command refuses to load it until `go mod tidy`
    updates go.mod. Returns the module's folder."""
    files = {
        "module/go.mod": "module example.com/tidy\n\ngo 1.22\n\n"
        "require (\n\texample.com/a v1.0.0\n\texample.com/b v1.1.0\n)\n\n"
        "replace (\n\texample.com/a => ../a\n\texample.com/b v1.1.0 => ../b1\n\texample.com/b v1.2.0 => ../b2\n)\n",
        "module/main.go": 'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/a"\n\t"example.com/b"\n)\n\n'
        "func main() { fmt.Println(a.A(), b.B()) }\n",
        "a/go.mod": "module example.com/a\n\ngo 1.22\n\nrequire example.com/b v1.2.0\n",
        "a/a.go": 'package a\n\nimport "example.com/b"\n\nfunc A() int { return b.B() }\n',
        "b1/go.mod": "module example.com/b\n\ngo 1.22\n",
        "b1/b.go": "package b\n\nfunc B() int { return 1 }\n",
        "b2/go.mod": "module example.com/b\n\ngo 1.22\n",
        "b2/b.go": "package b\n\nfunc B() int { return 2 }\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "module"


def test_a_module_that_needs_go_mod_tidy_is_one_build_error_at_go_mod(tmp_path: Path) -> None:
    """The user's CI (`go vet ./...`, `go test ./...`) fails on such a module: lintel fails too (exit 1), with the
    go command's own words at go.mod, once for the three tools."""
    require_go()
    require_tool("golangci-lint")
    module = write_module_needing_tidy(tmp_path)
    (module / ".golangci.yml").write_text('version: "2"\n', encoding="utf-8")  # the module uses golangci-lint
    by_hand = run_tool(["go", "vet", "./..."], cwd=module)
    assert (by_hand.returncode, by_hand.stderr) == (1, "go: updates to go.mod needed; to update it:\n\tgo mod tidy\n")

    code, report = lintel_json("check", str(module), "--only", "lint,typecheck,test")
    assert code == 1
    assert [(i["kind"], i["severity"], i["file"], i.get("line"), i["message"]) for i in report["issues"]] == [
        ("build", "error", "go.mod", None, "updates to go.mod needed; to update it: go mod tidy")
    ]
    statuses = {r["check"]: r["status"] for r in report["runs"]}
    # golangci-lint says only "no go files to analyze: running `go mod tidy` may solve the problem" (as for a
    # module without Go files): its run is not checked, with those words.
    assert statuses == {"lint": "not_checked", "typecheck": "findings", "test": "findings"}
    assert "go mod tidy" in run_of(report, "lint")["reason"]

    assert run_tool(["go", "mod", "tidy"], cwd=module).returncode == 0
    code, report = lintel_json("check", str(module), "--only", "lint,typecheck,test")
    assert (code, report["issues"]) == (0, [])


def test_golangci_lint_is_the_lint_of_a_module_that_uses_it(tmp_path: Path) -> None:
    """google/uuid (its CI runs go test alone) got golangci-lint's default linters as its verdict, exit 1 on a
    repository green in its CI: without a .golangci config, a Makefile or pre-commit
    hook or a CI step that runs it, lint is `not configured` and the exit code is the other checks'."""
    require_go()
    (tmp_path / "go.mod").write_text("module example.com/m\n\ngo 1.22\n", encoding="utf-8")
    (tmp_path / "m.go").write_text('package m\n\nimport "os"\n\nfunc F() { os.Remove("x") }\n', encoding="utf-8")
    code, report = lintel_json("check", str(tmp_path), "--only", "lint,typecheck")
    statuses = {r["check"]: r["status"] for r in report["runs"]}
    assert statuses == {"lint": "not_configured", "typecheck": "clean"}
    assert "golangci" in report["runs"][0]["reason"]
    assert code == 0
    require_tool("golangci-lint")
    (tmp_path / ".git" / "x").parent.mkdir()
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "ci.yml").write_text("jobs:\n  lint:\n    steps:\n      - run: golangci-lint run\n", encoding="utf-8")
    code, report = lintel_json("check", str(tmp_path), "--only", "lint")
    assert [(i["rule"], i["line"]) for i in report["issues"]] == [("errcheck", 5)]
    assert code == 1
