from __future__ import annotations

from pathlib import Path

from lintel.engine.config import clamp_timeout, load_config


def test_defaults(tmp_path: Path) -> None:
    loaded = load_config(tmp_path)
    assert loaded.problems == []
    assert loaded.config.timeouts.lint == 30
    assert loaded.config.timeouts.typecheck == 300
    assert loaded.config.timeouts.test == 300
    assert loaded.config.languages.get("go").lint is None


def test_precedence_pyproject_then_lintel_toml_then_overrides(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.lintel.timeouts]\nlint = 10\ntest = 20\n[tool.lintel.languages.python]\nlint = ['ruff', 'check']\n"
    )
    (tmp_path / "lintel.toml").write_text("[timeouts]\nlint = 11\n")
    loaded = load_config(tmp_path, ("initializationOptions", {"timeouts": {"test": 21}}))
    assert loaded.problems == []
    assert loaded.config.timeouts.lint == 11
    assert loaded.config.timeouts.test == 21
    assert loaded.config.languages.python.lint == ["ruff", "check"]
    assert loaded.sources == ["pyproject.toml", "lintel.toml", "initializationOptions"]


def test_bad_value_reported_with_path_and_default_used(tmp_path: Path) -> None:
    (tmp_path / "lintel.toml").write_text("[timeouts]\nlint = 'soon'\ntest = 5\n[languages.node]\nlint = 'eslint .'\n")
    loaded = load_config(tmp_path)
    paths = sorted(p.path for p in loaded.problems)
    assert paths == ["languages.node.lint", "timeouts.lint"]
    assert loaded.config.timeouts.lint == 30  # default restored for the bad value only
    assert loaded.config.timeouts.test == 5  # the good value next to it still applies
    assert loaded.config.languages.node.lint is None
    assert "languages.node.lint:" in str(next(p for p in loaded.problems if p.path.startswith("lang")))


def test_unknown_key_reported(tmp_path: Path) -> None:
    (tmp_path / "lintel.toml").write_text("[timeouts]\nlnt = 3\n")
    loaded = load_config(tmp_path)
    assert [p.path for p in loaded.problems] == ["timeouts.lnt"]


def test_camel_case_accepted(tmp_path: Path) -> None:
    loaded = load_config(tmp_path, ("client", {"languages": {"go": {"binaries": {"golangci-lint": "/x"}}}}))
    assert loaded.config.languages.go.binaries == {"golangci-lint": "/x"}


def test_broken_toml_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "lintel.toml").write_text("[timeouts\n")
    loaded = load_config(tmp_path)
    assert len(loaded.problems) == 1
    assert "lintel.toml" in str(loaded.problems[0])


def test_clamp_timeout() -> None:
    assert clamp_timeout(0) == 1
    assert clamp_timeout(99999) == 1800
    assert clamp_timeout(12.5) == 12.5


def test_validation_leaves_the_callers_mapping_alone(tmp_path: Path) -> None:
    options = {"timeouts": {"lint": "soon"}, "validators": [{"id": "x", "run": 3}]}
    first = load_config(tmp_path, ("initializationOptions", options))
    second = load_config(tmp_path, ("initializationOptions", options))
    assert [p.path for p in first.problems] == [p.path for p in second.problems]
    assert options == {"timeouts": {"lint": "soon"}, "validators": [{"id": "x", "run": 3}]}


def test_a_bad_validator_is_dropped_and_the_good_ones_kept(tmp_path: Path) -> None:
    (tmp_path / "lintel.toml").write_text(
        '[[validators]]\nid = "a"\nrun = "true"\n\n[[validators]]\nid = "b"\nrun = 3\n\n'
        '[[validators]]\nid = "c"\nrun = "true"\ntimeout_seconds = 5\nparser = "tsc"\n'
    )
    loaded = load_config(tmp_path)
    assert [v.id for v in loaded.config.validators] == ["a", "c"]
    assert loaded.config.validators[1].timeout_seconds == 5
    assert [p.path for p in loaded.problems] == ["validators.1.run"]


def test_duplicate_validator_ids_are_reported(tmp_path: Path) -> None:
    (tmp_path / "lintel.toml").write_text('[[validators]]\nid = "a"\nrun = "x"\n[[validators]]\nid = "a"\nrun = "y"\n')
    loaded = load_config(tmp_path)
    assert [p.path for p in loaded.problems] == ["validators"]
    assert "duplicate validator id 'a'" in loaded.problems[0].message
