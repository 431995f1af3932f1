"""go test's tests found statically (lintel.languages.go.testfind): the functions `go test -list` lists, literal
t.Run subtests named as go names them, the files go builds here, and `<import path>.<Name>` ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintel.core.testitems import FoundTest
from lintel.languages.go import buildtags, testfind

from tests.helpers import make_project
from tests.helpers import write_source as write


def module(root: Path, path: str = "example.com/m") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "go.mod").write_text(f"module {path}\n\ngo 1.22\n", encoding="utf-8")
    return root.resolve()


def found(root: Path, *files: Path, texts: dict[Path, str] | None = None) -> list[FoundTest]:
    project = make_project("go", root.resolve(), ("go.mod",))
    return testfind.discover(project, list(files), texts or {})


def ids(records: list[FoundTest]) -> list[str]:
    return [r.id for r in records]


KINDS = """
package m

import (
	"fmt"
	"testing"
)

func TestMain(m *testing.M) {}

func TestPlain(t *testing.T) {}

func Test(t *testing.T) {}

func Testlower(t *testing.T) {}

func TestWrongType(t *testing.B) {}

func TestResult(t *testing.T) error { return nil }

func TestUnnamed(*testing.T) {}

func (s *suite) TestMethod(t *testing.T) {}

func BenchmarkB(b *testing.B) {}

func FuzzF(f *testing.F) {}

func ExampleSilent() {
	fmt.Println("x")
}

func ExampleOut() {
	fmt.Println("x")
	// Output: x
}

func Example_unordered() {
	// Unordered output:
	// x
}

func helper(t *testing.T) {}
"""


def test_the_functions_go_test_lists(tmp_path: Path) -> None:
    root = module(tmp_path)
    file = write(root, "kinds_test.go", KINDS)
    assert ids(found(root, file)) == [
        "kinds_test.go",
        "example.com/m.TestPlain",
        "example.com/m.Test",
        "example.com/m.TestUnnamed",
        "example.com/m.BenchmarkB",
        "example.com/m.FuzzF",
        "example.com/m.ExampleOut",
        "example.com/m.Example_unordered",
    ]


SUBTESTS = """
package m

import tt "testing"

func TestTable(t *tt.T) {
	t.Run("adds two", func(t *tt.T) {
		t.Run("inner\\tcase", func(t *tt.T) {})
		t.Run("inner\\tcase", func(t *tt.T) {})
	})
	for _, c := range []string{"a"} {
		t.Run(c, func(t *tt.T) {
			t.Run("under a name only known at run time", nil)
		})
	}
	t.Run("", check)
	t.Run(`raw/slash`, check)
	t.Run("zero\\u200bwidth\\x01", check)
}

func check(t *tt.T) {}
"""


def test_literal_subtests_nest_and_are_named_as_go_names_them(tmp_path: Path) -> None:
    root = module(tmp_path)
    file = write(root, "sub/table_test.go", SUBTESTS)
    records = found(root, file)
    assert [(r.id, r.parent) for r in records[1:]] == [
        ("example.com/m/sub.TestTable", "sub/table_test.go"),
        ("example.com/m/sub.TestTable/adds_two", "example.com/m/sub.TestTable"),
        ("example.com/m/sub.TestTable/adds_two/inner_case", "example.com/m/sub.TestTable/adds_two"),
        ("example.com/m/sub.TestTable/adds_two/inner_case#01", "example.com/m/sub.TestTable/adds_two"),
        ("example.com/m/sub.TestTable/#00", "example.com/m/sub.TestTable"),
        ("example.com/m/sub.TestTable/raw/slash", "example.com/m/sub.TestTable"),
        ("example.com/m/sub.TestTable/zero\\u200bwidth\\x01", "example.com/m/sub.TestTable"),
    ]
    by_id = {r.id: r for r in records}
    outer = by_id["example.com/m/sub.TestTable/adds_two"]
    assert (outer.label, outer.line, outer.column, outer.end_line, outer.end_column) == ("adds two", 6, 2, 9, 4)
    test = by_id["example.com/m/sub.TestTable"]
    assert (test.line, test.column, test.end_line, test.end_column) == (5, 1, 18, 2)


@pytest.mark.parametrize(
    ("name", "rewritten"),
    [
        ("a b", "a_b"),
        ("tab\there", "tab_here"),
        ("nbsp\u00a0x", "nbsp_x"),
        ("em\u2003space", "em_space"),
        ("bell\a", "bell\\a"),
        ("esc\x1b", "esc\\x1b"),
        ("del\x7f", "del\\x7f"),
        ("zw\u200b", "zw\\u200b"),
        ("é/ü", "é/ü"),
        ("emoji 😀", "emoji_😀"),
    ],
)
def test_go_rewrite_of_subtest_names(name: str, rewritten: str) -> None:
    assert testfind.rewrite(name) == rewritten


def test_ids_name_the_package_by_its_import_path(tmp_path: Path) -> None:
    root = module(tmp_path / "ws", "example.com/root")
    other = module(root / "tools", "example.com/tools")
    (root / "go.work").write_text("go 1.22\n\nuse (\n\t.\n\t./tools\n)\n", encoding="utf-8")
    files = [
        write(root, "a_test.go", 'package root\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n'),
        write(root, "x/y/b_test.go", 'package y_test\n\nimport "testing"\n\nfunc TestB(t *testing.T) {}\n'),
        write(other, "c_test.go", 'package tools\n\nimport "testing"\n\nfunc TestC(t *testing.T) {}\n'),
        write(root, "_skip/d_test.go", 'package d\n\nimport "testing"\n\nfunc TestD(t *testing.T) {}\n'),
        write(root, ".hidden/e_test.go", 'package e\n\nimport "testing"\n\nfunc TestE(t *testing.T) {}\n'),
        write(root, "plain.go", 'package root\n\nimport "testing"\n\nfunc TestF(t *testing.T) {}\n'),
    ]
    assert [r.id for r in found(root, *files) if r.kind == "test"] == [
        "example.com/root.TestA",
        "example.com/root/x/y.TestB",
        "example.com/tools.TestC",
    ]


def test_files_go_does_not_build_here_have_no_tests(tmp_path: Path) -> None:
    root = module(tmp_path)
    goos, goarch = buildtags.host()
    other_os = "plan9" if goos != "plan9" else "linux"
    body = '\nimport "testing"\n\nfunc TestX(t *testing.T) {}\n'
    files = {
        "plain_test.go": f"package m\n{body}",
        f"x_{goos}_test.go": f"package m\n{body}",
        f"x_{other_os}_test.go": f"package m\n{body}",
        f"x_{goos}_{goarch}_test.go": f"package m\n{body}",
        "tagged_test.go": f"//go:build integration\n\npackage m\n{body}",
        "negated_test.go": f"//go:build !integration && (unix || windows) && go1.18\n\npackage m\n{body}",
        "broken_test.go": f"//go:build linux &&\n\npackage m\n{body}",
    }
    written = [write(root, name, text) for name, text in files.items()]
    built = {r.file.name for r in found(root, *written) if r.kind == "file"}
    expected = {"plain_test.go", f"x_{goos}_test.go", f"x_{goos}_{goarch}_test.go"}
    if goos in ("linux", "darwin", "freebsd", "windows", "openbsd", "netbsd"):
        expected.add("negated_test.go")
    assert built == expected


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("linux", True),
        ("!linux", False),
        ("linux && amd64", True),
        ("windows || (linux && !arm64)", True),
        ("(linux", False),
        ("linux ||", False),
        ("go1.21 && cgo", True),
        ("ignore", False),
    ],
)
def test_build_expressions(expression: str, value: bool) -> None:
    assert buildtags.satisfied(expression, lambda tag: tag in {"linux", "amd64", "go1.21", "cgo"}) is value


def test_unsaved_text_and_unreadable_files(tmp_path: Path) -> None:
    root = module(tmp_path)
    file = write(root, "a_test.go", 'package m\n\nimport "testing"\n\nfunc TestOld(t *testing.T) {}\n')
    text = 'package m\n\nimport "testing"\n\nfunc TestNew(t *testing.T) {}\n'
    assert ids(found(root, file, texts={file: text}))[1:] == ["example.com/m.TestNew"]
    missing = (root / "gone_test.go").resolve()
    unterminated = write(root, "u_test.go", 'package m\n\nimport "testing"\n\nfunc TestU(t *testing.T) {\n\tx := `\n')
    assert ids(found(root, missing, unterminated)) == ["u_test.go", "example.com/m.TestU"]


def test_no_module_no_tests(tmp_path: Path) -> None:
    file = write(tmp_path, "a_test.go", 'package m\n\nimport "testing"\n\nfunc TestA(t *testing.T) {}\n')
    assert found(tmp_path, file) == []
