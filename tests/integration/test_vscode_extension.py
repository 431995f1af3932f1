"""The VS Code extension (editors/vscode): it type-checks, lints, passes its unit tests, builds and packages to a
.vsix; the settings it contributes are exactly lintel's configuration model; and the messages it builds (with its
own modules) work against a real `lintel serve`."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types
import typing
import zipfile
from pathlib import Path
from typing import Any

import pytest
from lintel.engine.config import LintelConfig, validate
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from tests.helpers import REPO, WORKSPACES, missing_tool

EXTENSION = REPO / "editors" / "vscode"
SYNC_LANGUAGES = REPO / "editors" / "tools" / "sync_languages.py"
PACKAGE_JSON = EXTENSION / "package.json"
CLIENT_SETTINGS = {"lintel.server.path", "lintel.server.interpreter", "lintel.server.daemon", "lintel.trace.server"}

pytestmark = pytest.mark.tool("node", "npm")


def run(argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=EXTENSION, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def extension() -> Path:
    """editors/vscode with its node_modules, installed by the same step scripts/setup-dev runs."""
    subprocess.run(["bash", str(REPO / "scripts" / "setup.d" / "60-vscode.sh")], check=True, timeout=600)
    return EXTENSION


@pytest.fixture(scope="module")
def package() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    return data


def contributed(package: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {key: value for s in package["contributes"]["configuration"] for key, value in s["properties"].items()}


# -- the npm scripts CI runs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("script", ["typecheck", "lint", "test"])
def test_npm_script_passes(extension: Path, script: str) -> None:
    run(["npm", "run", "--silent", script])


def test_builds_and_packages_a_vsix(extension: Path, package: dict[str, Any]) -> None:
    for old in extension.glob("*.vsix"):
        old.unlink()
    run(["npm", "run", "--silent", "build"])
    assert (extension / "dist" / "extension.js").is_file()
    run(["npm", "run", "--silent", "package"])
    (vsix,) = extension.glob("*.vsix")
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        packaged = json.loads(archive.read("extension/package.json"))
    assert {"extension/dist/extension.js", "extension/package.json"} <= names
    assert not [n for n in names if "/node_modules/" in n or "/src/" in n or n.endswith(".ts")], names
    assert packaged["contributes"] == package["contributes"]
    if shutil.which("unzip"):  # what a person would look at
        listing = subprocess.run(["unzip", "-l", str(vsix)], capture_output=True, text=True, check=True).stdout
        assert "extension/dist/extension.js" in listing


# -- settings: the contributed ones are lintel's model ----------------------------------------------------------------


def test_generated_settings_are_current() -> None:
    """tools/sync_settings.py regenerates package.json from the model; --check fails on any drift."""
    script = EXTENSION / "tools" / "sync_settings.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# -- languages: the editors' lists are lintel's registry ---------------------------------------------------------------


def test_generated_language_lists_are_current() -> None:
    """editors/tools/sync_languages.py writes both editors' language lists from the registry; --check fails on drift."""
    done = subprocess.run([sys.executable, str(SYNC_LANGUAGES), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.fixture
def sync_languages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The generator, writing to copies of its files in tmp_path."""
    spec = importlib.util.spec_from_file_location("sync_languages", SYNC_LANGUAGES)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "sync_languages", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "REPO", tmp_path)
    for name in ("VSCODE_MODULE", "PACKAGE_JSON", "NVIM_MODULE"):
        original: Path = getattr(module, name)
        copy = tmp_path / original.name
        shutil.copy(original, copy)
        monkeypatch.setattr(module, name, copy)
    return module


def test_a_stale_language_list_fails_the_check_until_regenerated(
    sync_languages: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    lua: Path = sync_languages.NVIM_MODULE
    assert sync_languages.main(["--check"]) == 0
    lua.write_text(lua.read_text(encoding="utf-8").replace("'gomod',", ""), encoding="utf-8")

    assert sync_languages.main(["--check"]) == 1
    assert "languages.lua is not what lintel's language registry gives" in capsys.readouterr().err

    assert sync_languages.main([]) == 0
    assert "'gomod'," in lua.read_text(encoding="utf-8")
    assert sync_languages.main(["--check"]) == 0


def test_generated_lists_hold_every_builtin_language(sync_languages: types.ModuleType) -> None:
    """Read back from the generated files (not from the generator's own tables): each language with its suffixes,
    language ids and markers; the activation events cover every marker and language id."""
    from lintel.languages import LANGUAGES

    typescript = sync_languages.VSCODE_MODULE.read_text(encoding="utf-8")
    lua = sync_languages.NVIM_MODULE.read_text(encoding="utf-8")
    events = set(json.loads(sync_languages.PACKAGE_JSON.read_text(encoding="utf-8"))["activationEvents"])
    for spec in LANGUAGES:
        quoted = ", ".join(f"'{suffix}'" for suffix in spec.extensions)
        assert f"extensions: [{quoted}]" in typescript, spec.name
        assert f"extensions = {{ {quoted} }}" in lua, spec.name
        assert {f"onLanguage:{i}" for i in spec.language_ids} <= events
        assert {f"workspaceContains:{marker}" for marker in spec.markers} <= events
        for filetype in (*spec.language_ids, *spec.extra_filetypes):
            assert f"'{filetype}'" in lua, (spec.name, filetype)
    assert "workspaceContains:lintel.toml" in events


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}


def json_types(annotation: Any) -> set[str]:
    """The JSON types a field accepts, read from its Python annotation (independently of the JSON schema)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(json_types(arg) for arg in typing.get_args(annotation)))
    if annotation is type(None):
        return {"null"}
    base = origin or annotation
    if isinstance(base, type) and issubclass(base, BaseModel):
        return {"object"}
    return {_JSON_TYPES[base]}


def model_settings(model: type[BaseModel], prefix: str = "lintel.") -> dict[str, tuple[set[str], Any]]:
    """`lintel.<camelCase path>` -> (JSON types, default) for every leaf of the model; nested models are flattened."""
    out: dict[str, tuple[set[str], Any]] = {}
    defaults = model()
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            out.update(model_settings(annotation, key + "."))
        else:
            out[key] = (json_types(annotation), to_jsonable_python(getattr(defaults, name), by_alias=True))
    return out


def test_contributed_settings_equal_the_model(package: dict[str, Any]) -> None:
    """Every key, type and default; nothing more (apart from the extension's own settings)."""
    model = model_settings(LintelConfig)
    settings = contributed(package)
    assert set(settings) - CLIENT_SETTINGS == set(model)
    for key, (kinds, default) in model.items():
        setting = settings[key]
        declared = setting["type"] if isinstance(setting["type"], list) else [setting["type"]]
        assert set(declared) == kinds, key
        assert setting["default"] == default, key
        assert type(setting["default"]) is type(default) or isinstance(default, float), key
        assert setting.get("description", "").strip(), f"{key} has no description"


def test_validator_items_match_the_model(package: dict[str, Any]) -> None:
    from lintel.engine.config import ValidatorConfig

    items = contributed(package)["lintel.validators"]["items"]
    fields = {field.alias or name: field for name, field in ValidatorConfig.model_fields.items()}
    assert set(items["properties"]) == set(fields)
    assert set(items["required"]) == {alias for alias, field in fields.items() if field.is_required()}
    assert items["additionalProperties"] is False


def test_every_default_is_accepted_by_the_server(package: dict[str, Any]) -> None:
    """The contributed defaults, nested as the extension sends them, validate without a problem."""
    nested: dict[str, Any] = {}
    for key, setting in contributed(package).items():
        if key in CLIENT_SETTINGS:
            continue
        *parents, leaf = key.removeprefix("lintel.").split(".")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = setting["default"]
    config, problems = validate(nested, "test")
    assert problems == []
    assert config == LintelConfig()


def test_settings_that_run_programs_are_restricted_when_untrusted(package: dict[str, Any]) -> None:
    restricted = set(package["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"])
    settings = contributed(package)
    assert {"lintel.server.path", "lintel.server.interpreter", "lintel.validators"} <= restricted
    assert {k for k in settings if k.startswith("lintel.languages.")} <= restricted
    assert restricted <= set(settings)


# -- against a real server --------------------------------------------------------------------------------------------


def drive(
    extension: Path, workspace: Path, trusted: bool, user_settings: dict[str, Any], active_file: Path | None = None
) -> dict[str, Any]:
    drive_js = extension / "out" / "drive.js"
    if not drive_js.is_file():
        run(["npm", "run", "--silent", "test"])  # builds out/drive.js with the unit tests
    argv = [
        "node",
        str(drive_js),
        str(workspace),
        "trusted" if trusted else "untrusted",
        json.dumps(user_settings),
        sys.executable,
        "-m",
        "lintel",
        "serve",
    ]
    env = {**os.environ, "LINTEL_DRIVE_ACTIVE_FILE": str(active_file)} if active_file else None
    done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture
def python_workspace(tmp_path: Path) -> Path:
    if shutil.which("pytest") is None or shutil.which("ruff") is None:
        missing_tool("pytest/ruff not on PATH (run scripts/setup-dev)")
    target = tmp_path / "python"
    shutil.copytree(WORKSPACES / "python", target, ignore=shutil.ignore_patterns(".pytest_cache", ".ruff_cache"))
    return target


def test_extension_messages_drive_a_real_server(extension: Path, python_workspace: Path) -> None:
    ruff = str(shutil.which("ruff"))
    seen = drive(extension, python_workspace, True, {"languages.python.binaries": {"ruff": ruff}, "timeouts.test": 240})
    assert seen["settings"] == {"languages": {"python": {"binaries": {"ruff": ruff}}}, "timeouts": {"test": 240}}
    assert seen["messages"] == []  # no "invalid configuration"
    assert "lintel" in seen["configurationSections"]
    assert seen["languages"] == ["python"]
    (python,) = seen["detection"]["projects"]
    (ruff_binary,) = python["checks"]["lint"]["binaries"]
    assert (ruff_binary["via"], ruff_binary["path"]) == ("setting", ruff)
    tests = seen["tests"]
    assert tests["summary"].startswith("python test: 1 failed")
    (failure,) = tests["failures"]
    assert failure["file"] == str(python_workspace / "tests" / "test_models.py")
    assert failure["line"] == 12  # 0-based: pytest's line 13
    assert (seen["progress"][0], seen["progress"][-1]) == ("begin", "end")
    assert seen["last"]["failures"] == tests["failures"]


def test_untrusted_workspace_runs_nothing(extension: Path, python_workspace: Path) -> None:
    seen = drive(extension, python_workspace, False, {})
    assert "not trusted" in seen["tests"]["error"]
    assert any("not trusted" in message for message in seen["messages"])
    assert not (python_workspace / ".pytest_cache").exists()


DECLARED_LANGUAGE = """
[languages.notes]
markers = ["notes.toml"]
extensions = ["note"]
test = ["python3", "check_notes.py"]
"""


def test_run_tests_in_a_declared_language_file_runs_that_language(extension: Path, python_workspace: Path) -> None:
    """In a folder with a Python project and a language declared in lintel.toml, the active `.note` file makes the
    declared language the one the extension picks, from what the real server's lintel.detect says."""
    (python_workspace / "lintel.toml").write_text(DECLARED_LANGUAGE, encoding="utf-8")
    (python_workspace / "notes.toml").write_text("", encoding="utf-8")
    (python_workspace / "todo.note").write_text("buy milk\n", encoding="utf-8")
    (python_workspace / "check_notes.py").write_text("raise SystemExit('todo.note: not done')\n", encoding="utf-8")

    seen = drive(extension, python_workspace, True, {}, active_file=python_workspace / "todo.note")

    assert set(seen["languages"]) == {"python", "notes"}
    declared = [language for language in seen["detection"]["languages"] if not language["builtin"]]
    assert [(d["name"], d["extensions"]) for d in declared] == [("notes", [".note"])]
    assert seen["active"] == "notes"
    assert seen["tests"]["summary"].startswith("notes test: "), seen["tests"]
    assert "not done" in seen["tests"]["rendered"]
    assert not (python_workspace / ".pytest_cache").exists()  # the Python tests did not run


WEB_TESTS = {
    "package.json": '{"name": "web", "private": true, "scripts": {"test": "node --test"}}\n',
    "test/pass.test.js": "const test = require('node:test');\n\ntest('prices stay positive', () => {});\n",
    "test/x.test.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n\n"
        "test('totals add up', () => {\n  assert.strictEqual(1 + 1, 3);\n});\n"
    ),
}


def test_run_tests_in_a_monorepo_file_runs_that_files_project(extension: Path, tmp_path: Path) -> None:
    """api/ (Go) and web/ (node) with nothing at the root: the active file of web/ is the path, nothing is asked, and
    the real server runs web's tests."""
    if shutil.which("node") is None:
        missing_tool("node not on PATH")
    root = tmp_path / "mono"
    (root / "api").mkdir(parents=True)
    (root / "api" / "go.mod").write_text("module example.com/api\n\ngo 1.22\n", encoding="utf-8")
    for name, text in WEB_TESTS.items():
        (root / "web" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "web" / name).write_text(text, encoding="utf-8")
    active = root / "web" / "test" / "x.test.js"

    seen = drive(extension, root, True, {}, active_file=active)

    assert [(p["language"], p["root"]) for p in seen["detection"]["projects"]] == [("go", "api"), ("node", "web")]
    assert seen["languages"] == ["node"]  # the file's project's: nothing to ask
    assert seen["path"] == str(active)
    assert seen["tests"]["summary"].startswith("node test: 1 failed"), seen["tests"]
    (failure,) = seen["tests"]["failures"]
    assert failure["file"] == str(active)
    assert failure["label"] == "totals add up"
    assert seen["last"]["failures"] == seen["tests"]["failures"]
