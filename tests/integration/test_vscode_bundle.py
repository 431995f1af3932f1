"""The self-contained linux-x64 .vsix (editors/vscode/tools/package.py): built from this checkout, unpacked, and run
the way the extension runs it — a Python that has never seen lintel, no venv, nothing on PATH — it answers
`--version` and `lintel check` finds the Python fixture's ruff findings with the ruff it carries."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from lintel import __version__

from tests.helpers import REPO, copy_workspace, missing_tool

EXTENSION = REPO / "editors" / "vscode"
PACKAGE = EXTENSION / "tools" / "package.py"
# The first is the one the bundle's users have on most machines; each of the others present is tried too.
PYTHON_NAMES = ("python3", "python3.10", "python3.11", "python3.12", "python3.13", "python3.14")
BUNDLED_PYTHONS = ("310", "311", "312", "313", "314")

pytestmark = pytest.mark.tool("node", "npm")


def plain_path() -> str:
    """PATH without lintel's dev venv: a `python3` found on it is a machine's Python, not the one running this."""
    venv = str(REPO / ".venv")
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not p.startswith(venv))


def plain_pythons() -> list[str]:
    """Each working Python >= 3.10 outside the venv, one per version (pyenv shims of versions not installed fail),
    as the interpreter itself: a pyenv shim is a bash script, which an environment without PATH cannot start."""
    found: dict[str, str] = {}
    for name in PYTHON_NAMES:
        exe = shutil.which(name, path=plain_path())
        if exe is None:
            continue
        done = subprocess.run(
            [exe, "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2], sys.executable)"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        version, _, real = done.stdout.strip().partition(" ")
        if done.returncode == 0 and real and tuple(map(int, version.split("."))) >= (3, 10):
            found.setdefault(version, real)
    return list(found.values())


@pytest.fixture(scope="module")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The self-contained .vsix, built by the same script a release runs (pip reaches PyPI for the wheels)."""
    subprocess.run(["bash", str(REPO / "scripts" / "setup.d" / "60-vscode.sh")], check=True, timeout=600)
    out = tmp_path_factory.mktemp("vsix")
    argv = [sys.executable, str(PACKAGE), "--out", str(out), "--only", "linux-x64"]
    done = subprocess.run(argv, cwd=EXTENSION, capture_output=True, text=True, timeout=1200, check=False)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    (built,) = out.glob("lintel-linux-x64-*.vsix")
    return built


@pytest.fixture(scope="module")
def bundle(vsix: Path) -> Path:
    """bundled/ as VS Code unpacks it (with the modes the archive records)."""
    target = vsix.parent / "unpacked"
    with zipfile.ZipFile(vsix) as archive:
        for info in archive.infolist():
            path = Path(archive.extract(info, target))
            mode = info.external_attr >> 16
            if mode and not info.is_dir():
                path.chmod(stat.S_IMODE(mode))
    return target / "extension" / "bundled"


@pytest.fixture(scope="module")
def python() -> str:
    pythons = plain_pythons()
    if not pythons:
        missing_tool("no Python >= 3.10 outside lintel's venv (python3 on PATH)")
    return pythons[0]


def run_bundle(python: str, bundle: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """As the extension runs it: `python -I bundled/lintel_main.py …`, with a PATH that holds nothing at all."""
    empty = (cwd or bundle.parent) / ".empty-path"
    empty.mkdir(exist_ok=True)
    env = {"PATH": str(empty), "HOME": os.environ.get("HOME", "/tmp")}
    argv = [python, "-I", str(bundle / "lintel_main.py"), *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=300)


def test_the_vsix_targets_linux_x64_and_carries_the_bundle(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        manifest = archive.read("extension.vsixmanifest").decode()
        ruff = archive.getinfo("extension/bundled/bin/ruff")
    assert 'TargetPlatform="linux-x64"' in manifest
    assert {"extension/dist/extension.js", "extension/bundled/lintel_main.py"} <= names
    assert "extension/bundled/bin/lintel" not in names  # pip's launcher names the build machine's Python
    assert (ruff.external_attr >> 16) & stat.S_IXUSR, "bin/ruff must stay executable"
    binaries = {n for n in names if n.startswith("extension/bundled/pydantic_core/_pydantic_core.cpython-")}
    for version in BUNDLED_PYTHONS:
        assert any(f"cpython-{version}-x86_64-linux-gnu.so" in n for n in binaries), version
    assert not [n for n in names if "__pycache__" in n or "/node_modules/" in n]
    size = vsix.stat().st_size
    assert size < 40e6, f"{vsix.name} is {size / 1e6:.1f} MB: check what tools/package.py put in it"


def test_the_bundle_answers_the_probe_on_every_python(bundle: Path) -> None:
    pythons = plain_pythons()
    if not pythons:
        missing_tool("no Python >= 3.10 outside lintel's venv (python3 on PATH)")
    for python in pythons:
        for probe in (["--version"], ["serve", "--check"]):  # the second is the extension's probe
            done = run_bundle(python, bundle, *probe)
            assert (done.returncode, done.stdout.strip()) == (0, f"lintel {__version__}"), (python, done.stderr)


def test_every_module_comes_from_the_bundle(python: str, bundle: Path) -> None:
    """Not from whatever the machine's Python has installed: lintel and each dependency are the bundle's."""
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]);"
        "import lintel, pydantic, pydantic_core, pygls, lsprotocol, cattrs, attrs;"
        "print(json.dumps({m.__name__: m.__file__ for m in (lintel, pydantic, pydantic_core, pygls, lsprotocol,"
        " cattrs, attrs)}))"
    )
    done = subprocess.run([python, "-I", "-c", code, str(bundle)], capture_output=True, text=True, check=True)
    for module, file in json.loads(done.stdout).items():
        assert Path(file).is_relative_to(bundle), (module, file)


def test_pythonpath_to_the_bundle_alone_runs_lintel_too(python: str, bundle: Path) -> None:
    """The bundle is a plain `pip install --target` tree: PYTHONPATH to it works as well (no user site)."""
    env = {"PYTHONPATH": str(bundle), "PATH": "", "HOME": os.environ.get("HOME", "/tmp")}
    done = subprocess.run(
        [python, "-s", "-m", "lintel", "--version"], env=env, capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, f"lintel {__version__}"), done.stderr


def test_lintel_check_finds_the_python_fixtures_issues_with_the_bundled_ruff(
    python: str, bundle: Path, tmp_path: Path
) -> None:
    workspace = copy_workspace("python", tmp_path / "python")
    done = run_bundle(python, bundle, "check", ".", "--only", "lint", "--format", "json", cwd=workspace)
    assert done.returncode == 1, done.stderr  # findings
    report = json.loads(done.stdout)
    (lint,) = report["runs"]
    assert (lint["tool"], lint["status"]) == ("ruff", "findings"), lint
    found = {(issue["file"], issue["rule"]) for issue in report["issues"]}
    assert ("src/inventory/models.py", "F401") in found
    assert ("src/inventory/pricing.py", "F841") in found
