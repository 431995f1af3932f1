"""vitest, jest, mocha and `node --test`: identities as the runner's name filter and file arguments.

The runner is the one the `test` script calls. A script that is that one call gets the filters through the
package manager (`npm run test -- -t '^add adds to five$' test/math.test.js`); a script that chains steps
(`lint && build && vitest run`) has its one test-runner step run directly with them, the steps before it left
out; `node --test` is always run directly (its options must come before its files, and a script's own files
are replaced by the ones asked for). Names are the TestFailure's (`suite > test`): vitest, jest and mocha match
the full name (titles joined by spaces); node 20 matches each test's own title, so a `node --test` filter is
the last title, narrowed by the file.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lintel.core.errors import BadArgument
from lintel.languages.base import NPX_NO_INSTALL, Project, ToolSpec
from lintel.languages.node import jsnames
from lintel.languages.node.tools import known_tool, script_spec
from lintel.languages.parsers.jstests import NAME_SEPARATOR
from lintel.languages.testselect.base import Selection, TestRef, no_test, project_folders, relative, unique

RUNNERS = ("vitest", "jest", "mocha", "node --test")
_STEP = re.compile(r"&&|\|\||;|\|")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# node options that take their value as the next word (`--test-reporter tap`): not a test file.
_NODE_VALUE_OPTIONS = frozenset(
    {
        "--test-reporter",
        "--test-reporter-destination",
        "--test-name-pattern",
        "--test-skip-pattern",
        "--test-concurrency",
        "--test-timeout",
        "--test-shard",
        "--import",
        "--require",
        "-r",
        "--loader",
        "--experimental-loader",
        "--conditions",
        "-C",
        "--env-file",
        "--input-type",
    }
)
_TEST_FILE = re.compile(r"(?:^|[./_-])(?:test|spec)s?\.[cm]?[jt]sx?$|(?:^|/)(?:test|tests|__tests__)/.*\.[cm]?[jt]sx?$")
_MAX_SCANNED = 2000


@dataclass(frozen=True)
class _Runner:
    kind: str  # one of RUNNERS
    words: tuple[str, ...]  # its step of the script, env assignments left out
    env: Mapping[str, str] = field(default_factory=dict)
    via_script: bool = False  # the script is this one call: the filters go through the package manager


@dataclass(frozen=True)
class _Filter:
    path: tuple[str, ...]  # titles; a suite's stands for every test in it
    suite: bool


def select(project: Project, refs: Sequence[TestRef], base: ToolSpec, workspace: Path) -> Selection:
    runner = test_runner(project)
    whole_files: list[Path] = []
    named: list[tuple[_Filter, Path | None]] = []
    for ref in refs:
        if ref.name is None and ref.line is None:
            assert ref.file is not None
            whole_files.append(ref.file)
            continue
        file = ref.file
        if ref.recorded and file is not None and not is_test_file(project, file):
            file = None  # a failure placed in the code under test (a stack frame), not in its test file
        named.append((_filter(ref, project), file))
    runs: list[ToolSpec] = []
    if whole_files:
        runs.append(_command(project, runner, base, [], unique_paths(whole_files)))
    if named:
        files = unique_paths([f for _, f in named if f is not None]) if all(f for _, f in named) else []
        runs.append(_command(project, runner, base, [f for f, _ in named], files))
    covered = [*whole_files, *(f for _, f in named if f is not None)]
    return Selection(tuple(runs), tuple(unique_paths(covered)))


def unique_paths(paths: Sequence[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def test_runner(project: Project) -> _Runner:
    """The test runner the `test` script calls, or the error saying why lintel cannot filter it."""
    if project.problem is not None:
        raise BadArgument(project.problem)
    text = project.scripts.get("test")
    if text is None:
        raise BadArgument(
            "package.json has no `test` script: lintel runs a subset of tests through the runner it calls "
            f"({', '.join(RUNNERS)})"
        )
    known = known_tool(text)
    if known is not None and known.tool in RUNNERS:
        return _runner(known.tool, text, via_script=known.tool != "node --test")
    steps = [step for step in _STEP.split(text) if (k := known_tool(step)) is not None and k.tool in RUNNERS]
    if len(steps) != 1:
        found = "calls none of" if not steps else "calls more than one of"
        raise BadArgument(
            f"cannot run a subset of tests: the `test` script ({text!r}) {found} {', '.join(RUNNERS)}; "
            "set languages.node.test to the runner's command, or run lintel.runTests without `tests`"
        )
    tool = known_tool(steps[0])
    assert tool is not None
    return _runner(tool.tool, steps[0], via_script=False)


def _runner(kind: str, text: str, *, via_script: bool) -> _Runner:
    words = shlex.split(text)
    env: dict[str, str] = {}
    while words and _ENV_ASSIGNMENT.match(words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    return _Runner(kind, tuple(words), env, via_script)


def _filter(ref: TestRef, project: Project) -> _Filter:
    if ref.name is None:
        assert ref.file is not None
        assert ref.line is not None
        found = jsnames.at_line(ref.file, ref.line)
        if found is None:
            where = f"{relative(project, ref.file)}:{ref.line}"
            raise no_test(ref, project, f"{where} is not inside a describe/it/test call with a literal title")
        return _Filter(found.path, found.suite)
    path = tuple(ref.name.split(NAME_SEPARATOR))
    if ref.recorded:
        return _Filter(path, suite=False)
    candidates = [ref.file] if ref.file is not None else _test_files(project)
    # mocha names a test's suites as one space-joined title (`outer inner > test`): the full names match.
    declared = [t for file in candidates for t in jsnames.scan(file) if " ".join(t.path) == " ".join(path)]
    if not declared:
        where = relative(project, ref.file) if ref.file is not None else "the project's test files"
        raise no_test(ref, project, f"no test or suite titled that in {where} (names are `suite > test`)")
    return _Filter(path, suite=all(t.suite for t in declared))


def select_path(project: Project, path: Path, base: ToolSpec, workspace: Path) -> Selection | None:
    """runTests {path}: a test file, or the test files under a folder, run whole; None when it holds none."""
    files = ([path] if is_test_file(project, path) else []) if path.is_file() else _test_files(project, path)
    if not files:
        return None
    return select(project, [TestRef(relative(project, f), file=f) for f in files], base, workspace)


def _test_files(project: Project, under: Path | None = None) -> list[Path]:
    """The project's test files by the runners' usual names (`*.test.js`, `*.spec.ts`, `test/**`)."""
    root = project.root.resolve()
    found: list[Path] = []
    for folder in project_folders(under or root):
        for file in sorted(folder.iterdir()):
            if is_test_file(project, file) and file.is_file():
                found.append(file)
                if len(found) >= _MAX_SCANNED:
                    return found
    return found


def is_test_file(project: Project, file: Path) -> bool:
    """A file named as the runners find tests (`*.test.js`, `*.spec.ts`, anything under `test/`)."""
    return _TEST_FILE.search(relative(project, file)) is not None


def _command(
    project: Project, runner: _Runner, base: ToolSpec, filters: Sequence[_Filter], files: Sequence[Path]
) -> ToolSpec:
    paths = [relative(project, f) for f in files]
    if runner.kind == "node --test":
        return _node_test(runner, base, filters, paths)
    if runner.kind == "jest":
        args = [*(("-t", _full_pattern(filters)) if filters else ()), *(f"{_js_escape(p)}$" for p in paths)]
    elif runner.kind == "mocha":
        args = [*(("--grep", _full_pattern(filters)) if filters else ()), *paths]
    else:
        args = [*(("-t", _full_pattern(filters)) if filters else ()), *paths]
    if runner.via_script:
        return script_spec(project, "test", "test", tuple(args))
    known = known_tool(" ".join(runner.words))
    assert known is not None
    assert known.binary is not None
    present = set(runner.words)
    flags = () if present & set(known.already_parseable) else known.parseable_flags
    if "run" in present:  # `vitest run` is already a single run
        flags = tuple(f for f in flags if f != "--run")
    return ToolSpec(
        check="test",
        tool=known.tool,
        argv=(*NPX_NO_INSTALL, known.binary, *runner.words[1:], *flags, *args),
        parser=known.parser,
        finding_codes=known.finding_codes,
        install_hint=base.install_hint,
        requires=(known.binary,),
        env=runner.env,
        env_defaults=base.env_defaults,
    )


def _node_test(runner: _Runner, base: ToolSpec, filters: Sequence[_Filter], paths: Sequence[str]) -> ToolSpec:
    """`node <the script's options> --test-name-pattern=… <files>`: the script's own files only when none
    were asked for."""
    options: list[str] = []
    own_files: list[str] = []
    words = list(runner.words[1:])
    while words:
        word = words.pop(0)
        if word.startswith("-"):
            options.append(word)
            if word in _NODE_VALUE_OPTIONS and words:
                options.append(words.pop(0))
        else:
            own_files.append(word)
    titles = unique([f.path[-1] for f in filters])
    pattern = (f"--test-name-pattern=^(?:{'|'.join(_js_escape(t) for t in titles)})$",) if titles else ()
    return ToolSpec(
        check="test",
        tool="node --test",
        argv=(runner.words[0], *options, *pattern, *(paths or own_files)),
        parser="node-test-auto",
        finding_codes=frozenset({1}),
        install_hint="install Node.js from https://nodejs.org",
        env=runner.env,
        env_defaults=base.env_defaults,
    )


def _full_pattern(filters: Sequence[_Filter]) -> str:
    """vitest's, jest's and mocha's full names: the titles joined by spaces; a suite matches what is in it."""
    names = unique([" ".join(f.path) for f in filters if not f.suite])
    suites = unique([" ".join(f.path) for f in filters if f.suite])
    parts = [_js_escape(n) for n in names] + [f"{_js_escape(s)}(?: .*)?" for s in suites]
    return f"^(?:{'|'.join(parts)})$"


def _js_escape(text: str) -> str:
    """A literal inside a JavaScript RegExp (with or without the `u` flag)."""
    return re.sub(r"[\\^$.*+?()[\]{}|]", lambda m: "\\" + m.group(), text)
