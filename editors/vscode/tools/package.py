"""Builds the extension's two .vsix files: the plain one (any platform; lintel comes from the machine) and the
self-contained one for linux-x64, which carries lintel and its Python dependencies and needs only a Python >= 3.10.

The self-contained one is `pip install --target` at package time into `bundled/`, not wheels unpacked at first run:
nothing to unpack, no writable storage, nothing stale after an upgrade, and the files a user runs are the files the
tests ran. One tree serves every CPython from 3.10 up: the trees pip installs for each version are merged, and the
only files that differ between them are the version-tagged binaries (`_pydantic_core.cpython-312-x86_64-linux-gnu.so`
beside `…cpython-313…`), which sit side by side and each Python imports its own. Versions are pinned from the first
resolution, so every Python gets the same distributions; any other file that differs stops the build. pip judges
environment markers by the Python running it, not by `--python-version` (cattrs needs exceptiongroup and lintel
tomli only below 3.11): after each install the markers are read again for the target version and what they add is
installed too.

    python editors/vscode/tools/package.py                  # both, into editors/vscode/
    python editors/vscode/tools/package.py --out DIR --only linux-x64
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

EXTENSION = Path(__file__).resolve().parent.parent
REPO = EXTENSION.parent.parent
BUNDLE = EXTENSION / "bundled"
BOOTSTRAP = Path(__file__).resolve().parent / "lintel_main.py"
TARGET_IGNORE = Path(__file__).resolve().parent / "vscodeignore-linux-x64"

# Every CPython the bundle runs on; the first is resolved freely, the others get its versions.
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
# glibc 2.17 and later (pip also accepts the older manylinux tags below it): any x86_64 Linux VS Code runs on.
PLATFORM = "manylinux_2_17_x86_64"
TARGET = "linux-x64"
# The bundle's programs besides lintel's modules: pip's generated launchers name the build machine's Python.
KEPT_PROGRAMS = {"ruff"}


class BuildError(Exception):
    """A step of the build failed; the message says which and why."""


def run(argv: Sequence[str], cwd: Path = EXTENSION) -> None:
    print("+", " ".join(argv), file=sys.stderr)
    done = subprocess.run(argv, cwd=cwd, check=False)
    if done.returncode != 0:
        raise BuildError(f"{argv[0]} exited {done.returncode}: {' '.join(argv)}")


def pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "--quiet", *args]


def version() -> str:
    data: dict[str, str] = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    return data["version"]


def build_lintel_wheel(into: Path) -> Path:
    """lintel's own wheel, from this checkout (pip fetches the build backend setuptools in isolation)."""
    run(pip("wheel", "--no-deps", "--wheel-dir", str(into), str(REPO)))
    (wheel,) = into.glob("lintel_lsp-*.whl")
    return wheel


def install_for(python: str, tree: Path, constraints: Path | None, *requirements: str) -> None:
    """`requirements` as CPython `python` on manylinux x86_64 would get them, binaries only."""
    args = ["install", "--no-compile", "--only-binary=:all:", "--target", str(tree)]
    args += ["--python-version", python, "--implementation", "cp", "--abi", "cp" + python.replace(".", "")]
    args += ["--platform", PLATFORM]
    if constraints is not None:
        args += ["--constraint", str(constraints)]
    run(pip(*args, *requirements))


def marker_environment(python: str) -> dict[str, str]:
    """The environment markers of CPython `python` on x86_64 Linux (the ones lintel's dependencies use)."""
    return {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "x86_64",
        "os_name": "posix",
        "extra": "",
    }


def missing_requirements(tree: Path, python: str) -> list[str]:
    """The requirements of the distributions in `tree` that apply to `python` and are not installed there."""
    installed = {canonicalize_name(info.name.partition("-")[0]) for info in tree.glob("*.dist-info")}
    missing: dict[str, str] = {}
    for metadata in sorted(tree.glob("*.dist-info/METADATA")):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            if not line.startswith("Requires-Dist:"):
                continue
            requirement = Requirement(line.removeprefix("Requires-Dist:").strip())
            if requirement.marker is not None and not requirement.marker.evaluate(marker_environment(python)):
                continue
            if canonicalize_name(requirement.name) not in installed:
                missing[canonicalize_name(requirement.name)] = f"{requirement.name}{requirement.specifier}"
    return list(missing.values())


def complete(python: str, tree: Path, constraints: Path | None) -> None:
    """Installs what the markers add for `python`, one layer at a time (--no-deps: the rest is in `tree`)."""
    for _ in range(10):
        missing = missing_requirements(tree, python)
        if not missing:
            return
        install_for(python, tree, constraints, *missing, "--no-deps")
    raise BuildError(f"Python {python}: the dependencies of the bundle do not settle: {missing}")


def pins(tree: Path) -> str:
    """`name==version` for every distribution pip put in `tree` but lintel itself (given as a file)."""
    lines = []
    for info in sorted(tree.glob("*.dist-info")):
        name, _, dist_version = info.name.removesuffix(".dist-info").partition("-")
        if name != "lintel_lsp":
            lines.append(f"{name}=={dist_version}\n")
    return "".join(lines)


def merge(tree: Path, into: Path) -> None:
    """Adds `tree` to `into`: new files are copied, equal ones skipped; of the metadata files that differ (a RECORD
    listing its version's binary) the first is kept; any other difference is an error."""
    for source in sorted(tree.rglob("*")):
        if source.is_dir():
            continue
        relative = source.relative_to(tree)
        dest = into / relative
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)
        elif not filecmp.cmp(source, dest, shallow=False) and not relative.parts[0].endswith(".dist-info"):
            raise BuildError(f"{relative} differs between Python versions: the bundle cannot hold both")


def prune_programs(bundle: Path) -> None:
    """Drops the launchers pip wrote into bin/ (`lintel`, with the build machine's Python in its #! line); the
    extension runs lintel_main.py, and lintel finds ruff in bin/ (lintel.languages.binaries._own_dirs)."""
    for program in (bundle / "bin").iterdir():
        if program.name not in KEPT_PROGRAMS:
            program.unlink()


def build_bundle(work: Path) -> None:
    """`bundled/`: lintel and its dependencies for every CPython in PYTHONS, plus the bootstrap."""
    wheel = build_lintel_wheel(work / "wheel")
    constraints: Path | None = None
    if BUNDLE.exists():
        shutil.rmtree(BUNDLE)
    BUNDLE.mkdir()
    for python in PYTHONS:
        tree = work / f"py{python}"
        install_for(python, tree, constraints, str(wheel))
        complete(python, tree, constraints)
        if constraints is None:
            constraints = work / "constraints.txt"
            constraints.write_text(pins(tree), encoding="utf-8")
        merge(tree, BUNDLE)
    prune_programs(BUNDLE)
    shutil.copy2(BOOTSTRAP, BUNDLE / BOOTSTRAP.name)


def vsce(*args: str) -> list[str]:
    return ["npx", "--no-install", "vsce", "package", "--no-dependencies", "--allow-missing-repository", *args]


def package(out: Path, only: str | None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    built = []
    if only in (None, "plain"):
        plain = out / f"lintel-{version()}.vsix"
        run(vsce("--out", str(plain)))
        built.append(plain)
    if only in (None, TARGET):
        with tempfile.TemporaryDirectory(prefix="lintel-bundle-") as work:
            build_bundle(Path(work))
        target = out / f"lintel-{TARGET}-{version()}.vsix"
        run(vsce("--target", TARGET, "--ignoreFile", str(TARGET_IGNORE), "--out", str(target)))
        built.append(target)
    return built


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=EXTENSION, help="folder for the .vsix files (default: %(default)s)")
    parser.add_argument("--only", choices=["plain", TARGET], help="build only this one")
    options = parser.parse_args(argv)
    try:
        built = package(options.out.resolve(), options.only)
    except BuildError as error:
        print(f"package: {error}", file=sys.stderr)
        return 1
    for vsix in built:
        print(f"{vsix} ({os.path.getsize(vsix) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
