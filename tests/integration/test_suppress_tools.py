"""lintel.engine.suppress against the real tools: each finding's suppression, applied to a copy of a fixture, makes the
real tool (re-run through `lintel check`) drop that finding and report nothing new; for ruff, applying it to
every finding gives what `ruff check --add-noqa` writes, byte for byte.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from lintel.core.fixes import Edit, apply_edits
from lintel.core.issues import Issue
from lintel.engine.suppress import suppression
from lintel.languages.sources import unit_for

from tests.helpers import WORKSPACES, copy_workspace, lintel_json, require_path, require_tool, run_tool

Key = tuple[str, str | None, str | None, int | None, str]


def _check(root: Path) -> list[Issue]:
    _, report = lintel_json("check", "--only", "lint,typecheck", "-q", str(root))
    not_run = [run for run in report["runs"] if run["status"] not in ("findings", "clean")]
    assert not not_run, not_run
    return [Issue.from_json(item) for item in report["issues"]]


def _key(issue: Issue, edit: Edit | None = None) -> Key:
    """What identifies a finding across the edit: its line as it is after `edit` (which may add a line above)."""
    line = issue.line
    if edit is not None and line is not None and issue.file == edit.file:
        added = edit.new_text.count("\n") - (edit.end_line - edit.line)
        if line > edit.line or (line == edit.line and edit.column == 1 and edit.new_text.endswith("\n")):
            line += added
    return (issue.source, issue.file, issue.rule, line, issue.message)


def _covered(other: Issue, suppressed: Issue) -> bool:
    """Whether a suppression of `suppressed` also covers `other`: the same rule on its line (any error of the line,
    for tsc's `@ts-expect-error`)."""
    same_line = (other.source, other.file, other.line) == (suppressed.source, suppressed.file, suppressed.line)
    return same_line and (other.rule == suppressed.rule or other.source == "tsc")


def _suppress_each(root: Path, sources: set[str], expected_none: int = 0) -> int:
    """Suppress each finding of `sources` alone and re-run: it is gone, nothing else changed. Returns how many
    findings were suppressed; `expected_none` of them have no suppression (the tool has none)."""
    before = _check(root)
    targets = [issue for issue in before if issue.source in sources]
    assert targets, f"the fixture has no finding of {sources}"
    done = none = 0
    for issue in targets:
        assert issue.file is not None
        path = root / issue.file
        original = path.read_bytes()
        text = original.decode("utf-8")
        fix = suppression(issue, text)
        if fix is None:
            none += 1
            continue
        [edit] = fix.edits
        changed = apply_edits(text, fix.edits, unit_for(issue.source))
        assert changed is not None, (issue, fix)
        path.write_bytes(changed.encode("utf-8"))
        try:
            after = Counter(_key(i) for i in _check(root))
        finally:
            path.write_bytes(original)
            # mypy's cache trusts a file whose size and mtime it has seen: a copy edited and restored within one
            # tick of the clock can look like the edited one it cached (seen once in a full run).
            shutil.rmtree(root / ".mypy_cache", ignore_errors=True)
        expected = Counter(_key(i, edit) for i in before if not _covered(i, issue))
        assert after == +expected, (issue, fix, +expected - after, after - expected)
        done += 1
    assert none == expected_none, f"{none} findings without a suppression, expected {expected_none}"
    return done


@pytest.mark.tool("ruff", "mypy")
def test_ruff_and_mypy_suppressions_silence_exactly_their_finding(tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    assert _suppress_each(root, {"ruff", "mypy"}) == 9


@pytest.mark.tool("ruff", "basedpyright")
def test_pyright_suppressions_silence_exactly_their_finding(tmp_path: Path) -> None:
    root = copy_workspace("python-pyright", tmp_path / "python-pyright")
    assert _suppress_each(root, {"ruff", "basedpyright", "pyright"}) == 8


@pytest.mark.tool("node")
def test_eslint_and_tsc_suppressions_silence_exactly_their_finding(tmp_path: Path) -> None:
    require_path(WORKSPACES / "node" / "node_modules", "npm ci in tests/workspaces/node")
    root = copy_workspace("node", tmp_path / "node")
    assert _suppress_each(root, {"eslint", "tsc"}) == 10


@pytest.mark.tool("golangci-lint", "go")
def test_golangci_lint_suppressions_silence_exactly_their_finding_and_go_vet_has_none(tmp_path: Path) -> None:
    root = copy_workspace("go", tmp_path / "go")
    # golangci-lint shows one finding per line unless told otherwise: staticcheck's SA4006 on store.go:11 hides
    # behind ineffassign's, and would surface once ineffassign's is suppressed. Every finding is shown here.
    config = root / ".golangci.yml"
    config.write_text(config.read_text(encoding="utf-8") + "issues:\n  uniq-by-line: false\n", encoding="utf-8")
    # go vet's two findings have no suppression; golangci-lint's govet reports the same two, and a //nolint:govet
    # silences those only, so go vet's stay.
    assert _suppress_each(root, {"golangci-lint", "go vet"}, expected_none=2) == 9


@pytest.mark.tool("cargo")
def test_clippy_and_rustc_suppressions_silence_exactly_their_finding(tmp_path: Path) -> None:
    root = copy_workspace("rust", tmp_path / "rust")
    assert _suppress_each(root, {"clippy", "rustc"}) == 10


@pytest.mark.tool("shellcheck")
def test_shellcheck_suppressions_silence_exactly_their_finding(tmp_path: Path) -> None:
    root = copy_workspace("shell", tmp_path / "shell")
    assert _suppress_each(root, {"shellcheck"}) == 3


# --- merging into a directive already there ---------------------------------------------------------------


def _suppress_until_clean(root: Path, file: str, sources: set[str]) -> str:
    """Suppress `file`'s findings of `sources` one at a time, re-running after each, until none is left: each round
    the file has fewer, and no other file's findings change. Returns the file's final text."""
    path = root / file
    others = Counter(_key(i) for i in _check(root) if i.file != file)
    for _ in range(10):
        issues = _check(root)
        assert Counter(_key(i) for i in issues if i.file != file) == others
        mine = [i for i in issues if i.file == file and i.source in sources]
        if not mine:
            return path.read_text(encoding="utf-8")
        text = path.read_text(encoding="utf-8")
        fix = suppression(mine[0], text)
        assert fix is not None, mine[0]
        changed = apply_edits(text, fix.edits, unit_for(mine[0].source))
        assert changed is not None
        path.write_text(changed, encoding="utf-8")
    raise AssertionError(f"{file} still has findings of {sources}")


@pytest.mark.tool("ruff", "mypy")
def test_python_directives_merge_with_those_on_the_line(tmp_path: Path) -> None:
    root = copy_workspace("python", tmp_path / "python")
    line = "    first: str = len(values); print(values.nope == None)"
    (root / "src/inventory/extra.py").write_text(f"def total(values: list[int]) -> None:\n{line}  # noqa: E501\n")
    final = _suppress_until_clean(root, "src/inventory/extra.py", {"ruff", "mypy"})
    merged = "  # type: ignore[assignment, attr-defined]  # noqa: E501, E702, E711, F841\n"
    assert final == f"def total(values: list[int]) -> None:\n{line}{merged}"


@pytest.mark.tool("basedpyright")
def test_pyright_directives_merge_on_a_line_with_two_rules(tmp_path: Path) -> None:
    root = copy_workspace("python-pyright", tmp_path / "python-pyright")
    final = _suppress_until_clean(root, "shapes/area.py", {"basedpyright"})
    assert (
        'print(circle("2"), math.tau.nonexistent)  # pyright: ignore[reportArgumentType, reportAttributeAccessIssue]\n'
        in final
    )


@pytest.mark.tool("node")
def test_eslint_directive_above_takes_more_rules(tmp_path: Path) -> None:
    require_path(WORKSPACES / "node" / "node_modules", "npm ci in tests/workspaces/node")
    root = copy_workspace("node", tmp_path / "node")
    (root / "src/merge.js").write_text(
        "export function f(a) {\n  // eslint-disable-next-line no-console -- a log\n  console.log(a == missing);\n}\n"
    )
    final = _suppress_until_clean(root, "src/merge.js", {"eslint"})
    assert final.splitlines()[1] in (
        "  // eslint-disable-next-line no-console, eqeqeq, no-undef -- a log",
        "  // eslint-disable-next-line no-console, no-undef, eqeqeq -- a log",
    )


JSX_CONFIG = """  {
    files: ["**/*.jsx"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", parserOptions: { ecmaFeatures: { jsx: true } } },
    rules,
  },
"""
VIEW = """export function View({ a, b }) {
  return (
    <div>
      <span>{a == b}</span>
      {a == b ? <i>x</i> : null}
    </div>
  );
}
"""


@pytest.mark.tool("node")
def test_eslint_directive_among_jsx_children_is_a_jsx_comment(tmp_path: Path) -> None:
    require_path(WORKSPACES / "node" / "node_modules", "npm ci in tests/workspaces/node")
    root = copy_workspace("node", tmp_path / "node")
    config = root / "eslint.config.js"
    config.write_text(
        config.read_text(encoding="utf-8").replace("export default [\n", "export default [\n" + JSX_CONFIG)
    )
    (root / "src/view.jsx").write_text(VIEW)
    final = _suppress_until_clean(root, "src/view.jsx", {"eslint"})
    directive = "      {/* eslint-disable-next-line eqeqeq */}\n"
    assert final == VIEW.replace("      <span>", directive + "      <span>").replace("      {a", directive + "      {a")


@pytest.mark.tool("golangci-lint", "go")
def test_nolint_takes_more_linters_before_its_explanation(tmp_path: Path) -> None:
    root = copy_workspace("go", tmp_path / "go")
    (root / "merge.go").write_text(
        'package lintelgo\n\nimport "os"\n\nfunc merge() {\n\tos.Remove("x") //nolint:govet // why\n}\n'
    )
    final = _suppress_until_clean(root, "merge.go", {"golangci-lint"})
    assert '\tos.Remove("x") //nolint:govet,errcheck // why\n' in final


@pytest.mark.tool("cargo")
def test_allow_takes_more_lints(tmp_path: Path) -> None:
    root = copy_workspace("rust", tmp_path / "rust")
    lib = root / "src/lib.rs"
    lib.write_text(lib.read_text(encoding="utf-8") + "\nmod merge;\n", encoding="utf-8")
    (root / "src/merge.rs").write_text("#[allow(dead_code)]\nfn merged() -> i32 {\n    return 1;\n}\n")
    final = _suppress_until_clean(root, "src/merge.rs", {"clippy", "rustc"})
    assert final == "#[allow(dead_code, clippy::needless_return)]\nfn merged() -> i32 {\n    return 1;\n}\n"


@pytest.mark.tool("shellcheck")
def test_shellcheck_directive_takes_more_codes_and_covers_the_file_before_the_first_command(tmp_path: Path) -> None:
    root = copy_workspace("shell", tmp_path / "shell")
    (root / "bin/merge.sh").write_text("#!/usr/bin/env bash\nset -eu\n# shellcheck disable=SC2034\ncp -r $1 $2\n")
    final = _suppress_until_clean(root, "bin/merge.sh", {"shellcheck"})
    assert final == "#!/usr/bin/env bash\nset -eu\n# shellcheck disable=SC2034,SC2086\ncp -r $1 $2\n"
    # Before the first command shellcheck reads a directive for the whole script: the title says so, and the
    # finding two lines further is silenced too.
    (root / "bin/first.sh").write_text("#!/usr/bin/env bash\n# copy\ncp -r $1 /tmp\ncp -r $2 /tmp\n")
    issues = [i for i in _check(root) if i.file == "bin/first.sh"]
    assert [(i.line, i.rule) for i in issues] == [(3, "SC2086"), (4, "SC2086")]
    text = (root / "bin/first.sh").read_text(encoding="utf-8")
    fix = suppression(issues[0], text)
    assert fix is not None
    assert fix.title == "Disable SC2086 for this file"
    (root / "bin/first.sh").write_text(apply_edits(text, fix.edits, "utf-32") or "", encoding="utf-8")
    assert [i for i in _check(root) if i.file == "bin/first.sh"] == []


# --- ruff --add-noqa ------------------------------------------------------------------------------------------

# Every placement ruff has: a plain line, a line with a comment, existing directives with codes (any case, no
# space), a bare one, multi-line strings and f-strings (the directive goes on their last line), backslash
# continuations, several findings on one line (codes sorted), trailing blanks, a tab and an emoji before the end.
ADD_NOQA_FIXTURE = '''import os
import sys  # a comment
import json  # noqa: E401
import re  # noqa
x = """
%s
""" % (os, undefined_a)
y = undefined_b + \\
    1 + \\
    2
z = (undefined_z,
     2)
def f():
    z = 1
    return f"""
{undefined_c}
"""
import collections; import typing
s = "é😀"; import glob
t = 1\t;import shlex   \nw = """a
b""" + undefined_d + """
c"""
import abc  # NOQA:E401,E402
import sys  #noqa:F811
import csv  # type: ignore  # noqa: E401
'''


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_suppressing_every_ruff_finding_equals_ruff_add_noqa(tmp_path: Path, line_end: str) -> None:
    require_tool("ruff")
    from lintel.core.issues import ParseContext
    from lintel.languages.parsers.base import ToolOutput
    from lintel.languages.python.parsers import parse_ruff

    source = ADD_NOQA_FIXTURE.replace("\n", line_end)
    path = tmp_path / "fixture.py"
    path.write_bytes(source.encode("utf-8"))
    ruff = ["ruff", "check", "--isolated", "--select", "E,F", "--no-cache"]
    proc = run_tool([*ruff, "--output-format=json", "fixture.py"], cwd=tmp_path)
    output = ToolOutput(proc.stdout, proc.stderr, proc.returncode)
    issues = parse_ruff(output, ParseContext(str(tmp_path), str(tmp_path))).issues
    assert len(issues) == 24
    ours = source
    for issue in issues:  # ruff's directives never add a line: the original line numbers stay right
        fix = suppression(issue, ours)
        if fix is not None:
            applied = apply_edits(ours, fix.edits, "utf-32")
            assert applied is not None
            ours = applied
    assert run_tool([*ruff, "--add-noqa", "fixture.py"], cwd=tmp_path).returncode == 0
    assert path.read_bytes().decode("utf-8") == ours
    assert ours != source


def test_ruff_add_noqa_drops_the_text_after_a_directive_and_lintel_keeps_it(tmp_path: Path) -> None:
    """The one difference: ruff rewrites an existing directive to the end of its line, dropping what follows it
    (another comment, a reason); lintel extends the codes and keeps the rest."""
    require_tool("ruff")
    from lintel.core.issues import make_issue

    source = "import os  # noqa: E501 - kept for the plugin registry\n"
    path = tmp_path / "fixture.py"
    path.write_text(source, encoding="utf-8")
    issue = make_issue(kind="lint", message="m", source="ruff", file="fixture.py", line=1, column=8, rule="F401")
    fix = suppression(issue, source)
    assert fix is not None
    assert apply_edits(source, fix.edits, "utf-32") == "import os  # noqa: E501, F401 - kept for the plugin registry\n"
    run_tool(["ruff", "check", "--isolated", "--select", "F", "--add-noqa", "fixture.py"], cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == "import os  # noqa: E501, F401\n"
