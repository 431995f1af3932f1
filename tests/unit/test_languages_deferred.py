"""Each language's test finding, test selection and coverage are named by module (`lintel.languages.deferred`) and
loaded on first use: every name a spec gives is a function its module defines."""

from __future__ import annotations

import inspect
from pathlib import Path

from lintel.languages import LANGUAGES
from lintel.languages.deferred import Deferred

from tests.helpers import make_project


def _deferred_of(spec_name: str) -> list[Deferred]:
    spec = LANGUAGES.get(spec_name)
    assert spec is not None
    named: list[object] = []
    if spec.tests is not None:
        named += [spec.tests.select, spec.tests.select_path, spec.tests.discover]
        if spec.tests.collect is not None:
            named.append(spec.tests.collect.read)
    if spec.coverage is not None:
        named += [spec.coverage.measure, spec.coverage.refine]
    return [one for one in named if isinstance(one, Deferred)]


def test_every_deferred_function_a_language_names_exists() -> None:
    for name in ("go", "node", "python", "rust"):
        found = _deferred_of(name)
        assert found, name
        for one in found:
            assert one.module.startswith(f"lintel.languages.{name}."), one
            assert inspect.isfunction(one.target()), one


def test_a_deferred_function_is_called_with_what_it_is_given(tmp_path: Path) -> None:
    from lintel.languages.python import testfind

    spec = LANGUAGES.get("python")
    assert spec is not None
    assert spec.tests is not None
    assert spec.tests.collect is not None
    assert spec.tests.collect.read is not testfind.collected
    project = make_project("python", tmp_path.resolve(), ("pyproject.toml",))
    assert spec.tests.collect.read(project, "no tests collected in 0.01s\n") == []
    assert spec.tests.collect.read(project, "ERROR: usage: pytest [options]\n") is None
