"""The language registry: built-in declarations, languages users declare in configuration, and what the
rest of lintel reads from them (detection, per-file scope, `{files}`, navigation roots)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lintel.engine.checks import plan_check, run_checks
from lintel.engine.config import load_config
from lintel.engine.detect import DetectionError, choose_project, detect, nearest_project
from lintel.engine.detect_report import detect_document
from lintel.engine.registry import CheckNotDeclared, project_files, registry_for
from lintel.engine.servers import server_root
from lintel.languages import FILES_PLACEHOLDER, LANGUAGES

from tests.helpers import file_scope, tool_for

SHELL = """
[languages.shell]
markers = [".shellcheckrc", "*.bats"]
extensions = ["sh", ".BASH"]
languageIds = ["shellscript"]
lint = ["checker", "--json", "{files}"]
test = ["bash", "tests/run.sh"]
parser = { lint = "ruff", test = "tap" }
server = ["shell-ls", "--stdio"]
"""


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def shell_workspace(tmp_path: Path, config: str = SHELL) -> Path:
    write(tmp_path / "lintel.toml", config)
    write(tmp_path / ".shellcheckrc")
    return tmp_path


def test_built_in_languages_in_their_default_order() -> None:
    assert LANGUAGES.names == ("go", "rust", "node", "python")
    assert [spec.builtin for spec in LANGUAGES] == [True] * 4
    assert LANGUAGES.for_file(Path("a/b.TSX")) is LANGUAGES["node"]
    assert LANGUAGES["node"].language_id(Path("x.tsx")) == "typescriptreact"
    assert LANGUAGES.for_file(Path("notes.txt")) is None


def test_a_declared_language_is_detected_after_the_built_in_ones(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path)
    write(root / "go.mod", "module x\n")
    config = load_config(root)
    assert config.problems == []
    languages = registry_for(config.config)
    assert languages.names == ("go", "rust", "node", "python", "shell")
    shell = languages["shell"]
    assert not shell.builtin
    assert dict(shell.extensions) == {".sh": "shellscript", ".bash": "shellscript"}
    assert shell.checks == ("lint", "test")
    projects = detect(root, languages)
    assert [(p.language, p.markers) for p in projects] == [("go", ("go.mod",)), ("shell", (".shellcheckrc",))]
    with pytest.raises(DetectionError, match=r"polyglot workspace: 2 project types detected \(go, shell\)"):
        choose_project(projects, None, languages)
    assert choose_project(projects, " Shell ", languages).language == "shell"


def test_a_marker_may_be_a_pattern(tmp_path: Path) -> None:
    write(tmp_path / "lintel.toml", SHELL)
    write(tmp_path / "suite.bats")
    languages = registry_for(load_config(tmp_path).config)
    assert [(p.language, p.markers) for p in detect(tmp_path, languages)] == [("shell", ("suite.bats",))]


def test_order_puts_a_language_first(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path, SHELL + "order = 1\n")
    languages = registry_for(load_config(root).config)
    assert languages.names[0] == "shell"
    write(tmp_path / "other" / "lintel.toml", "[languages.python]\norder = 0\n")
    assert registry_for(load_config(tmp_path / "other").config).names[0] == "python"


def test_an_unknown_name_without_markers_is_reported_and_left_out(tmp_path: Path) -> None:
    write(tmp_path / "lintel.toml", "[languages.pyhton]\nlint = ['ruff']\n")
    loaded = load_config(tmp_path)
    messages = {p.path: p.message for p in loaded.problems}
    assert "languages.pyhton.markers" in messages
    assert "pyhton is not a built-in language (go, rust, node, python)" in messages["languages.pyhton.markers"]
    assert registry_for(loaded.config).names == ("go", "rust", "node", "python")


def test_bad_fields_of_a_declared_language_are_reported_with_their_path(tmp_path: Path) -> None:
    write(
        tmp_path / "lintel.toml",
        '[languages.shell]\nmarkers = []\nextensions = ["sh"]\nlint = ["x"]\nparser = { lint = "no-such" }\n',
    )
    loaded = load_config(tmp_path)
    paths = sorted(p.path for p in loaded.problems)
    assert "languages.shell.markers" in paths
    assert any(p.path == "languages.shell.parser" and "unknown parser no-such" in p.message for p in loaded.problems)
    assert "shell" not in registry_for(loaded.config)  # no markers: nothing could ever detect it


def test_files_placeholder_is_the_projects_files_or_the_one_file(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path)
    write(root / "bin" / "deploy.sh")
    write(root / "lib" / "util.BASH")
    write(root / "-dash.sh")
    write(root / "node_modules" / "dep" / "x.sh")
    write(root / ".git" / "hooks" / "pre-commit.sh")
    write(root / "README.md")
    languages = registry_for(load_config(root).config)
    [project] = detect(root, languages)
    assert project_files(project) == ["./-dash.sh", "bin/deploy.sh", "lib/util.BASH"]
    spec = tool_for(project, "lint")
    assert spec.argv == ("checker", "--json", FILES_PLACEHOLDER)
    assert (spec.tool, spec.parser) == ("checker", "ruff")
    scope = file_scope(project, "lint", root / "bin" / "deploy.sh", use_stdin=True)
    assert scope.spec.argv == ("checker", "--json", "bin/deploy.sh")
    assert (scope.filter_to_file, scope.stdin) == (False, False)


def test_a_command_without_the_placeholder_runs_whole_for_one_file(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path, SHELL.replace('"{files}"', '"."'))
    [project] = detect(root, registry_for(load_config(root).config))
    scope = file_scope(project, "lint", root / "a.sh", use_stdin=False)
    assert scope.spec.argv == ("checker", "--json", ".")
    assert scope.filter_to_file


def test_a_check_the_language_does_not_declare(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path)
    config = load_config(root).config
    [project] = detect(root, registry_for(config))
    with pytest.raises(CheckNotDeclared, match=r"shell declares no typecheck command"):
        plan_check(project, "typecheck", config, root)
    document = detect_document(root, config)
    [entry] = document["projects"]
    assert list(entry["checks"]) == ["lint", "test"]
    declared = next(lang for lang in document["languages"] if lang["name"] == "shell")
    assert declared == {
        "name": "shell",
        "builtin": False,
        "markers": [".shellcheckrc", "*.bats"],
        "extensions": [".sh", ".bash"],
        "languageIds": ["shellscript"],
        "checks": ["lint", "test"],
        "navigation": True,
    }


async def test_run_checks_leaves_out_what_a_language_does_not_declare(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path, SHELL.replace('["checker", "--json", "{files}"]', '["true"]'))
    config = load_config(root).config
    projects = detect(root, registry_for(config))
    runs = await run_checks(projects, ["lint", "typecheck"], workspace=root, config=config)
    assert [(r.language, r.check) for r in runs] == [("shell", "lint")]


async def test_no_files_for_the_placeholder_is_clean_and_says_so(tmp_path: Path) -> None:
    root = shell_workspace(tmp_path, SHELL.replace('"checker"', '"true"'))
    config = load_config(root).config
    projects = detect(root, registry_for(config))
    [run] = await run_checks(projects, ["lint"], workspace=root, config=config)
    assert (run.status, run.reason) == ("clean", f"no shell files in {root.resolve()}")


def test_nearest_project_and_server_root_of_a_declared_language(tmp_path: Path) -> None:
    write(tmp_path / "lintel.toml", SHELL)
    write(tmp_path / "tools" / ".shellcheckrc")
    script = write(tmp_path / "tools" / "sub" / "x.sh")
    languages = registry_for(load_config(tmp_path).config)
    project = nearest_project(script, tmp_path, languages=languages)
    assert project is not None
    assert (project.language, project.root) == ("shell", (tmp_path / "tools").resolve())
    assert server_root(languages["shell"], script, tmp_path) == (tmp_path / "tools").resolve()
    server = languages["shell"].server
    assert server is not None
    assert server.candidates == (("shell-ls", "--stdio"),)


def test_each_built_in_language_folder_declares_what_the_rest_of_lintel_reads() -> None:
    """Parser names, configuration keys, column units and suppressions all come from the folders' declarations."""
    from lintel.engine.config import LintelConfig
    from lintel.languages.parsers import is_known_parser
    from lintel.languages.sources import suppression_for, unit_for

    schema = LintelConfig.model_json_schema()
    languages = schema["$defs"]["Languages"]["properties"]
    assert list(languages) == list(LANGUAGES.names)
    for spec in LANGUAGES:
        assert spec.parsers is not None, spec.name
        assert spec.parsers.names, spec.name
        assert all(is_known_parser(name) for name in spec.parsers.names)
        for source, known in spec.sources.items():
            assert (unit_for(source), suppression_for(source)) == (known.unit, known.suppression)
    assert unit_for("a tool nobody declares") == "utf-32"
    assert suppression_for("go vet") is None


def test_the_language_folders_import_nothing_from_the_engine_or_the_frontends() -> None:
    """Layer order core < runtime < languages < engine < frontends, checked on every import a module can run."""
    from tests.unit.test_import_graph import LINTEL, import_graph

    graph = import_graph(LINTEL)
    upward = {
        (module, target)
        for module, targets in graph.items()
        if module.startswith("lintel.languages")
        for target in targets
        if target.startswith(("lintel.engine", "lintel.frontends"))
    }
    assert upward == set()


def test_the_cli_help_names_every_built_in_language(capsys: pytest.CaptureFixture[str]) -> None:
    """`lintel check --help` keeps its text literal (the CLI must not load the languages to print it); it must still
    name each built-in language, in the registry's order, as the commands' argument description does."""
    from lintel.engine.actions import CommandArgs
    from lintel.frontends.cli import build_parser

    listed = f"({', '.join(LANGUAGES.names)}, or one lintel.toml declares)"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "--help"])
    assert listed in " ".join(capsys.readouterr().out.split())
    assert listed in (CommandArgs.model_fields["language"].description or "")
