"""The JS runners' own test file patterns, read literally from their configuration (vitest's `test.include`, jest's
`testMatch`): the globs as the runners match them, the config traps (coverage's `include`, computed lists), and
discovery keeping to the runner's files."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from lintel.engine.detect import detect
from lintel.languages import Project
from lintel.languages.node.testglobs import glob_regex, runner_matcher

from tests.helpers import copy_workspace


@pytest.mark.parametrize(
    ("glob", "matched", "unmatched"),
    [
        ("**/?(*.)+(spec|test).[jt]s?(x)", ["a/b.test.js", "x.spec.tsx", "test.js"], ["a/b.js", "a/test.json"]),
        ("**/__tests__/**/*.[jt]s?(x)", ["__tests__/a.js", "src/__tests__/x/y.ts"], ["a.js", "src/x.ts"]),
        ("test/**/*.test.js", ["test/math.test.js", "test/a/b.test.js"], ["src/x.test.js", "test/math.js"]),
        ("<rootDir>/jest/**/*.test.cjs", ["jest/calc.test.cjs"], ["mocha/calc.test.cjs"]),
        ("src/**/*.{test,spec}.?(c|m)[jt]s?(x)", ["src/a.test.ts", "src/b/c.spec.mjs"], ["src/a.ts", "lib/a.test.ts"]),
        ("./tests/*.spec.ts", ["tests/a.spec.ts"], ["tests/a/b.spec.ts"]),
    ],
)
def test_globs_match_as_the_runners_do(glob: str, matched: list[str], unmatched: list[str]) -> None:
    regex = re.compile(glob_regex(glob))
    assert [p for p in matched if not regex.fullmatch(p)] == []
    assert [p for p in unmatched if regex.fullmatch(p)] == []


def node_project(root: Path, package: Mapping[str, object], files: dict[str, str]) -> Project:
    (root / "package.json").write_text(json.dumps(package))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (project,) = [p for p in detect(root) if p.language == "node"]
    return project


VITEST = {"name": "v", "scripts": {"test": "vitest run"}}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # coverage's include is not the test files'
        ('export default { test: { coverage: { include: ["src/**"] }, include: ["spec/**/*.ts"] } }', True),
        ("export default defineConfig({ test: { include: ['spec/**/*.ts', /* c */ 'x/*.ts'] } })", True),
        ('export default { test: { coverage: { include: ["src/**"] } } }', False),  # no test include
        ("export default { test: { include: [...defaults, 'spec/**/*.ts'] } }", False),  # computed
        ("export default { test: { include: [`${dir}/*.ts`] } }", False),
    ],
)
def test_vitest_include_is_read_only_when_literal(tmp_path: Path, config: str, expected: bool) -> None:
    project = node_project(tmp_path, VITEST, {"vitest.config.ts": config})
    matcher = runner_matcher(project, "vitest")
    assert (matcher is not None) is expected
    if matcher is not None:
        assert matcher("spec/a/b.ts")
        assert not matcher("src/a.test.ts")


def test_jest_test_match_from_package_json(tmp_path: Path) -> None:
    package = {"name": "j", "scripts": {"test": "jest"}, "jest": {"testMatch": ["<rootDir>/checks/**/*.cjs"]}}
    project = node_project(tmp_path, package, {})
    matcher = runner_matcher(project, "jest")
    assert matcher is not None
    assert matcher("checks/a.cjs")
    assert not matcher("src/a.test.js")
    moved = {**package, "jest": {"testMatch": ["**/*.cjs"], "rootDir": "src"}}
    assert runner_matcher(node_project(tmp_path, moved, {}), "jest") is None


def test_discovery_keeps_to_the_files_the_runner_runs(tmp_path: Path) -> None:
    """node-tests runs vitest on `test/**/*.test.js`; its jest and mocha folders are other scripts' tests."""
    root = copy_workspace("node-tests", tmp_path / "node-tests")
    (project,) = [p for p in detect(root) if p.language == "node"]
    assert project.spec.tests is not None
    assert project.spec.tests.discover is not None
    files = sorted(f.resolve() for f in root.rglob("*.*js") if "node_modules" not in f.parts)
    found = project.spec.tests.discover(project, files, {})
    assert {t.file.relative_to(root.resolve()).as_posix() for t in found} == {"test/math.test.js"}
    # Without the config's list, the usual names stand and the other folders' tests are listed.
    (root / "vitest.config.js").unlink()
    found = project.spec.tests.discover(project, files, {})
    assert {"jest/calc.test.cjs", "mocha/stock.test.cjs"} <= {
        t.file.relative_to(root.resolve()).as_posix() for t in found
    }
