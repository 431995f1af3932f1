"""lintel.engine.suppress: each tool's suppression comment, where it goes, how it merges with one already there, line
ends
and columns kept (CRLF, tabs, emoji), and the cases that get no suppression. The real tools accepting these edits
is tests/integration/test_suppress_tools.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lintel.core.fixes import apply_edits
from lintel.core.issues import Issue, make_issue
from lintel.engine.suppress import suppression
from lintel.languages.sources import unit_for


def _issue(source: str, file: str, line: int, rule: str | None, column: int = 1) -> Issue:
    return make_issue(kind="lint", message="m", source=source, file=file, line=line, column=column, rule=rule)


def suppressed(source: str, text: str, line: int, rule: str | None = "R1", file: str = "f") -> str | None:
    """`text` with the suppression of a `source` finding of `rule` on `line` applied, None when there is none."""
    fix = suppression(_issue(source, file, line, rule), text)
    if fix is None:
        return None
    assert fix.applicability == "unsafe"
    assert fix.title in (
        f"Disable {rule} for this line",
        f"Disable {rule} for this item",
        f"Disable {rule} for this file",
    )
    result = apply_edits(text, fix.edits, unit_for(source))
    assert result is not None
    return result


# --- ruff -----------------------------------------------------------------------------------------------------


def test_ruff_noqa_goes_at_the_end_of_the_line_replacing_its_trailing_blanks() -> None:
    assert suppressed("ruff", "import os\nx = 1\n", 1, "F401") == "import os  # noqa: F401\nx = 1\n"
    assert suppressed("ruff", "import os \t\nx = 1\n", 1, "F401") == "import os  # noqa: F401\nx = 1\n"
    assert suppressed("ruff", "import os  # why\n", 1, "F401") == "import os  # why  # noqa: F401\n"


def test_ruff_noqa_merges_its_code_sorted_into_a_directive_with_codes_and_leaves_a_bare_one() -> None:
    assert suppressed("ruff", "import os  # noqa: F811\n", 1, "F401") == "import os  # noqa: F401, F811\n"
    assert suppressed("ruff", "import os  # NOQA:E501,E402\n", 1, "F401") == "import os  # noqa: E402, E501, F401\n"
    assert suppressed("ruff", "import os  # noqa: E501 - why\n", 1, "F401") == "import os  # noqa: E501, F401 - why\n"
    assert suppressed("ruff", "import os  # noqa\n", 1, "F401") is None
    assert suppressed("ruff", "import os  # noqa E501\n", 1, "F401") is None  # no colon: ruff reads it bare
    assert suppressed("ruff", "import os  # noqa: F401\n", 1, "F401") is None


def test_ruff_noqa_of_a_finding_in_a_multi_line_string_or_continued_line_goes_on_its_last_line() -> None:
    text = 'x = """\n%s\n""" % (a,)\ny = 1\n'
    assert suppressed("ruff", text, 1, "F507") == 'x = """\n%s\n""" % (a,)  # noqa: F507\ny = 1\n'
    text = "y = a + \\\n    1 + \\\n    2\n"
    assert suppressed("ruff", text, 1, "F821") == "y = a + \\\n    1 + \\\n    2  # noqa: F821\n"
    # a string that ends where another starts: one span, to the second one's end
    text = 'w = """a\nb""" + c + """\nd"""\n'
    assert suppressed("ruff", text, 2, "F821") == 'w = """a\nb""" + c + """\nd"""  # noqa: F821\n'
    # a parenthesised line is not joined: the directive stays on the finding's line
    assert suppressed("ruff", "z = (a,\n     2)\n", 1, "F821") == "z = (a,  # noqa: F821\n     2)\n"


def test_ruff_noqa_in_a_string_is_not_a_directive() -> None:
    assert suppressed("ruff", 's = "# noqa"; import os\n', 1, "F401") == 's = "# noqa"; import os  # noqa: F401\n'


def test_ruff_keeps_crlf_and_counts_characters_on_lines_with_emoji_and_tabs() -> None:
    text = 'import os\r\ns = "é😀";\timport glob\r\n'
    assert suppressed("ruff", text, 2, "F401") == 'import os\r\ns = "é😀";\timport glob  # noqa: F401\r\n'
    fix = suppression(_issue("ruff", "f", 2, "F401"), text)
    assert fix is not None
    assert (fix.edits[0].line, fix.edits[0].column) == (2, len('s = "é😀";\timport glob') + 1)


def test_ruff_without_a_code_or_in_text_python_cannot_tokenize_gets_none() -> None:
    assert suppressed("ruff", "import os\n", 1, None) is None
    assert suppressed("ruff", 'x = """never closed\n', 1, "F401") is None


# --- mypy, pyright --------------------------------------------------------------------------------------------


def test_mypy_type_ignore_with_its_code_merged_or_put_before_another_comment() -> None:
    assert suppressed("mypy", "x: int = ''\n", 1, "assignment") == "x: int = ''  # type: ignore[assignment]\n"
    text = "x: int = f()  # type: ignore[misc]\n"
    assert suppressed("mypy", text, 1, "assignment") == "x: int = f()  # type: ignore[misc, assignment]\n"
    # mypy reads the ignore only at the start of the line's comment
    text = "x: int = ''  # noqa: E501\n"
    assert suppressed("mypy", text, 1, "assignment") == "x: int = ''  # type: ignore[assignment]  # noqa: E501\n"
    assert suppressed("mypy", "x: int = ''  # type: ignore\n", 1, "assignment") is None


def test_python_type_checkers_get_none_where_the_line_ends_in_a_string_or_a_backslash() -> None:
    for source in ("mypy", "pyright", "basedpyright"):
        assert suppressed(source, 'x: int = """a\nb"""\n', 1, "assignment") is None
        assert suppressed(source, "x: int = 1 + \\\n    ''\n", 1, "operator") is None
        assert suppressed(source, "x: int = 1\n", 1, None) is None


def test_pyright_ignore_in_utf16_columns_merged_into_an_existing_one() -> None:
    text = "s = '😀'; x: int = ''\r\n"
    expected = "s = '😀'; x: int = ''  # pyright: ignore[reportAssignmentType]\r\n"
    assert suppressed("basedpyright", text, 1, "reportAssignmentType") == expected
    fix = suppression(_issue("pyright", "f", 1, "reportAssignmentType"), text)
    assert fix is not None
    assert fix.edits[0].column == len("s = '😀'; x: int = ''") + 2  # the emoji is two UTF-16 units
    text = "x: int = f()  # noqa: E501  # pyright: ignore[reportCallIssue]\n"
    expected = "x: int = f()  # noqa: E501  # pyright: ignore[reportCallIssue, reportAssignmentType]\n"
    assert suppressed("pyright", text, 1, "reportAssignmentType") == expected
    assert suppressed("pyright", "x: int = ''  # pyright: ignore\n", 1, "reportAssignmentType") is None


# --- eslint, tsc ----------------------------------------------------------------------------------------------


def test_eslint_directive_goes_on_a_new_line_above_indented_and_ended_like_the_line() -> None:
    text = "function f() {\r\n\t  if (a == b) {}\r\n}\r\n"
    expected = "function f() {\r\n\t  // eslint-disable-next-line eqeqeq\r\n\t  if (a == b) {}\r\n}\r\n"
    assert suppressed("eslint", text, 2, "eqeqeq", "a.js") == expected
    assert suppressed("eslint", "x == y", 1, "eqeqeq", "a.js") == "// eslint-disable-next-line eqeqeq\nx == y"


def test_eslint_directive_above_is_extended_and_a_bare_one_is_left() -> None:
    text = "  // eslint-disable-next-line no-console -- logging here\n  console.log(a == b)\n"
    expected = "  // eslint-disable-next-line no-console, eqeqeq -- logging here\n  console.log(a == b)\n"
    assert suppressed("eslint", text, 2, "eqeqeq", "a.js") == expected
    text = "/* eslint-disable-next-line no-console */\nconsole.log(a == b)\n"
    expected = "/* eslint-disable-next-line no-console, @typescript-eslint/eqeqeq */\nconsole.log(a == b)\n"
    assert suppressed("eslint", text, 2, "@typescript-eslint/eqeqeq", "a.ts") == expected
    assert suppressed("eslint", "// eslint-disable-next-line\nx == y\n", 2, "eqeqeq", "a.js") is None


def test_eslint_and_tsc_in_jsx_children_use_a_jsx_comment() -> None:
    text = "const A = () => (\n  <div>\n    <span>{a == b}</span>\n  </div>\n);\n"
    expected = (
        "const A = () => (\n  <div>\n    {/* eslint-disable-next-line eqeqeq */}\n"
        "    <span>{a == b}</span>\n  </div>\n);\n"
    )
    assert suppressed("eslint", text, 3, "eqeqeq", "a.jsx") == expected
    expected = "const A = () => (\n  <div>\n    {/* @ts-expect-error */}\n    <span>{a == b}</span>\n  </div>\n);\n"
    assert suppressed("tsc", text, 3, "TS2367", "a.tsx") == expected
    # an element right after an arrow is an expression: `//` is right there
    text = "const A = () =>\n  <div/>;\n"
    assert (
        suppressed("eslint", text, 2, "r", "a.jsx") == "const A = () =>\n  // eslint-disable-next-line r\n  <div/>;\n"
    )


def test_eslint_and_tsc_get_none_inside_a_template_literal_or_block_comment() -> None:
    text = "const s = `a\n${x == y}`;\n"
    assert suppressed("eslint", text, 2, "eqeqeq", "a.js") is None
    assert suppressed("tsc", text, 2, "TS2367", "a.ts") is None
    assert suppressed("eslint", "/* a\n x == y */ x == y\n", 2, "eqeqeq", "a.js") is None
    # a regular expression holding a backquote does not open a template literal
    assert suppressed("eslint", "const r = /`/;\nx == y;\n", 2, "eqeqeq", "a.js") is not None


def test_tsc_expect_error_above_unless_one_is_there() -> None:
    text = "function f() {\n    const n: number = 's';\n}\n"
    expected = "function f() {\n    // @ts-expect-error\n    const n: number = 's';\n}\n"
    assert suppressed("tsc", text, 2, "TS2322", "a.ts") == expected
    assert suppressed("tsc", "// @ts-ignore\nconst n: number = 's';\n", 2, "TS2322", "a.ts") is None


# --- golangci-lint, go vet ------------------------------------------------------------------------------------


def test_golangci_nolint_at_the_end_of_the_line_in_bytes() -> None:
    text = "func f() {\r\n\tétiquette := g()\r\n}\r\n"
    expected = "func f() {\r\n\tétiquette := g() //nolint:ineffassign\r\n}\r\n"
    assert suppressed("golangci-lint", text, 2, "ineffassign", "a.go") == expected
    fix = suppression(_issue("golangci-lint", "a.go", 2, "ineffassign"), text)
    assert fix is not None
    assert fix.edits[0].column == len("\tétiquette := g()".encode()) + 1


def test_golangci_nolint_merges_and_goes_before_an_explanation() -> None:
    assert suppressed("golangci-lint", "x() //nolint:errcheck\n", 1, "govet") == "x() //nolint:errcheck,govet\n"
    text = "x() //nolint:errcheck // the error is logged\n"
    assert suppressed("golangci-lint", text, 1, "govet") == "x() //nolint:errcheck,govet // the error is logged\n"
    assert suppressed("golangci-lint", "x() // why\n", 1, "govet") == "x() //nolint:govet // why\n"
    assert suppressed("golangci-lint", 's := "//"\n', 1, "govet") == 's := "//" //nolint:govet\n'
    assert suppressed("golangci-lint", "x() //nolint\n", 1, "govet") is None
    assert suppressed("golangci-lint", "x() //nolint:all\n", 1, "govet") is None


def test_go_vet_typecheck_and_a_line_inside_a_raw_string_get_none() -> None:
    assert suppressed("go vet", "x = x\n", 1, "assign") is None
    assert suppressed("golangci-lint", "x := 1 +\n", 1, "typecheck") is None
    assert suppressed("golangci-lint", "s := `a\nb` + x\n", 1, "govet") is None
    assert suppressed("golangci-lint", "s := `a\nb` + x\n", 2, "govet") == "s := `a\nb` + x //nolint:govet\n"


# --- clippy, rustc --------------------------------------------------------------------------------------------

RUST = """impl Shape {
    /// The area.
    pub fn area(&self) -> f64 {
        let unused = 1;
        if self.w == 0.0 {
            return 0.0;
        }
        return self.w * self.h;
    }
}
"""


def test_clippy_allow_goes_above_the_enclosing_item_with_its_indentation() -> None:
    expected = RUST.replace("    pub fn", "    #[allow(clippy::needless_return)]\n    pub fn")
    assert suppressed("clippy", RUST, 8, "clippy::needless_return") == expected
    assert suppressed("clippy", RUST, 6, "clippy::needless_return") == expected  # deeper inside: the same item
    expected = RUST.replace("    pub fn", "    #[allow(unused_variables)]\n    pub fn")
    assert suppressed("rustc", RUST, 4, "unused_variables") == expected
    assert suppressed("rustc", RUST, 3, "dead_code") == RUST.replace(
        "    pub fn", "    #[allow(dead_code)]\n    pub fn"
    )


def test_clippy_allow_merges_into_one_right_above_the_item() -> None:
    text = "#[allow(dead_code)]\nfn f() -> i32 {\n    return 1;\n}\n"
    expected = "#[allow(dead_code, clippy::needless_return)]\nfn f() -> i32 {\n    return 1;\n}\n"
    assert suppressed("clippy", text, 3, "clippy::needless_return") == expected
    text = "#[allow(clippy::needless_return)]\nfn f() -> i32 {\n    return 1;\n}\n"
    assert suppressed("clippy", text, 3, "clippy::needless_return") is None


def test_rust_gets_none_for_errors_outside_items_or_unclosed_items() -> None:
    assert suppressed("rustc", RUST, 4, "E0308") is None
    assert suppressed("clippy", "let x = 1;\nx == 1;\n", 2, "clippy::r") is None  # no item above
    assert suppressed("clippy", "fn f() {\n    x\n", 2, "clippy::r") is None  # never closed
    assert suppressed("clippy", "fn f() {\n\tx\n    y\n}\n", 2, "clippy::r") is None  # tabs and spaces mixed


# --- shellcheck -----------------------------------------------------------------------------------------------


def test_shellcheck_directive_above_merged_into_one_there() -> None:
    text = "#!/bin/sh\nset -e\nif true; then\r\n  cp $a b\r\nfi\n"
    expected = "#!/bin/sh\nset -e\nif true; then\r\n  # shellcheck disable=SC2086\r\n  cp $a b\r\nfi\n"
    assert suppressed("shellcheck", text, 4, "SC2086") == expected
    text = "set -e\n# shellcheck disable=SC2034 source=lib.sh\ncp $a b\n"
    assert (
        suppressed("shellcheck", text, 3, "SC2086")
        == "set -e\n# shellcheck disable=SC2034,SC2086 source=lib.sh\ncp $a b\n"
    )
    assert suppressed("shellcheck", "set -e\n# shellcheck disable=all\ncp $a b\n", 3, "SC2086") is None


def test_shellcheck_before_the_first_command_says_it_covers_the_file() -> None:
    fix = suppression(_issue("shellcheck", "a.sh", 3, "SC2086"), "#!/bin/sh\n# copy\ncp $a b\ncp $c d\n")
    assert fix is not None
    assert fix.title == "Disable SC2086 for this file"


def test_shellcheck_gets_none_inside_here_documents_strings_and_continued_commands() -> None:
    heredoc = "set -e\ncat <<EOF\n$a\nEOF\necho $b\n"
    assert suppressed("shellcheck", heredoc, 3, "SC2086") is None
    assert (
        suppressed("shellcheck", heredoc, 5, "SC2086")
        == "set -e\ncat <<EOF\n$a\nEOF\n# shellcheck disable=SC2086\necho $b\n"
    )
    assert suppressed("shellcheck", "set -e\necho 'a\n$b'\n", 3, "SC2086") is None
    assert suppressed("shellcheck", "set -e\ncp \\\n  $a b\n", 3, "SC2086") is None
    assert suppressed("shellcheck", "set -e\necho $a # it's\necho $b\n", 3, "SC2086") is not None  # quote in a comment


# --- no suppression -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source", ["ruff", "mypy", "pyright", "eslint", "tsc", "golangci-lint", "clippy", "shellcheck"]
)
def test_no_rule_no_line_or_a_line_past_the_text_gets_none(source: str) -> None:
    text = "x\n"
    assert suppression(_issue(source, "f", 1, None), text) is None
    assert suppression(make_issue(kind="lint", message="m", source=source, file="f", rule="R"), text) is None
    assert suppression(_issue(source, "f", 5, "R"), text) is None


def test_tools_without_a_suppression_get_none() -> None:
    for source in ("go vet", "gofmt", "prettier", "pytest", "cargo test", "custom"):
        assert suppression(_issue(source, "f", 1, "R"), "x\n") is None


SOURCES = ("ruff", "mypy", "pyright", "eslint", "tsc", "golangci-lint", "clippy", "rustc", "shellcheck")
PIECES = st.sampled_from(
    [
        "x",
        " ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "é",
        "😀",
        "'",
        '"',
        '"""',
        "`",
        "${",
        "}",
        "{",
        "(",
        ")",
        "\\",
        "#",
        "# noqa",
        "# noqa: E1",
        "# type: ignore[a]",
        "//",
        "/*",
        "*/",
        "//nolint:a",
        "<<EOF",
        "EOF",
        "fn f() {",
        "<div>",
        "/",
    ]
)


@given(st.lists(PIECES, max_size=40).map("".join), st.sampled_from(SOURCES), st.integers(1, 12))
def test_any_text_gives_a_fix_that_applies_or_none_and_never_raises(text: str, source: str, line: int) -> None:
    rule = {"ruff": "F401", "shellcheck": "SC2086", "clippy": "clippy::r"}.get(source, "r")
    fix = suppression(_issue(source, "f", line, rule), text)
    if fix is not None:
        assert apply_edits(text, fix.edits, unit_for(source)) is not None
