"""Writes the extension's `contributes.configuration` from lintel's pydantic model, so the two cannot drift.

Every leaf of `LintelConfig` (camelCase, as on the wire) becomes one `lintel.<path>` setting with the model's type,
constraints and default; objects with fixed fields are flattened, free-form ones (`binaries`) and lists stay whole.
Settings that make lintel run a program are restricted in untrusted workspaces. The extension's own settings
(`lintel.server.*`, `lintel.trace.server`) live in the hand-written `lintel.client` section, which is kept.

    python editors/vscode/tools/sync_settings.py           # rewrite package.json
    python editors/vscode/tools/sync_settings.py --check   # exit 1 and say what differs
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lintel.engine.config import LintelConfig
from lintel.languages import LANGUAGES

PACKAGE_JSON = Path(__file__).resolve().parent.parent / "package.json"
CLIENT_SECTION = "lintel.client"
PREFIX = "lintel."

# Fields without a `description` in the model get theirs here (`*` stands for any language). A model description,
# once added, wins; an entry that no longer matches a setting is an error, like a setting without any description.
DESCRIPTIONS: Mapping[str, str] = {
    "timeouts.lint": "Seconds a lint run may take before it is killed (clamped to 1–1800).",
    "timeouts.typecheck": "Seconds a typecheck run may take before it is killed (clamped to 1–1800).",
    "timeouts.test": "Seconds a test run may take before it is killed (clamped to 1–1800).",
    "timeouts.format": "Seconds a format check may take before it is killed (clamped to 1–1800).",
    "languages.*.lint": "{Language}: the lint check's whole argv, replacing lintel's default (null: the default).",
    "languages.*.typecheck": "{Language}: the typecheck's whole argv, replacing lintel's default (null: the default).",
    "languages.*.test": "{Language}: the test run's whole argv, replacing lintel's default (null: the default).",
    "languages.*.format": "{Language}: the format check's whole argv, replacing lintel's default (null: the default).",
    "languages.*.binaries": "{Language}: tool paths by name (like `{example}`), tried before the project's and PATH.",
    "languages.*.server": "{Language}: argv of the language server navigation is forwarded to (null: the default).",
    "languages.*.parser": (
        "{Language}: which of lintel's parsers reads a check's output, by check (lint, typecheck, test, format), "
        "replacing the default one; `custom` takes any failing output as one issue."
    ),
    "languages.*.order": (
        "{Language}: its place in the detection order, where a folder holds several languages "
        "(lower first; go 10, rust 20, node 30, python 40; null: the default)."
    ),
    "editor.lintOnOpen": "Lint a file when it is opened.",
    "editor.lintOnSave": "Lint a file when it is saved.",
    "editor.lintOnChange": "Lint while typing (tools that read stdin, like ruff and eslint); others wait for a save.",
    "editor.formatCheck": "Report files the language's formatter would change.",
    "editor.maxForwardedFileKb": "Files larger than this many KiB are not sent to the language servers navigation "
    "uses (a huge generated file would slow every other request); 0 means no limit.",
    "editor.maxLintFileKb": "Files larger than this many KiB are not linted or format-checked on open, change or "
    "save (a huge generated file); the project-wide commands still check them; 0 means no limit.",
    "editor.saveDebounceMs": (
        "A save while the previous run for that file is still going waits this many milliseconds "
        "(not a lint on a warm worker: a request, not a process)."
    ),
    "editor.changeDebounceMs": "Milliseconds of quiet typing before a lint-on-change run starts.",
    "editor.forwardServerDiagnostics": "Show the diagnostics of forwarded language servers (gopls, rust-analyzer…).",
    "editor.forwardServerHints": (
        "Also show their Hint-level diagnostics (basedpyright's \"`x` is not accessed\", tsserver's suggestions), "
        "which editors use to grey out unused code; off, they do not crowd the diagnostics list."
    ),
    "editor.warmWorkers": (
        "Lint on open, save and change through a warm worker per tool and project (the project's own eslint kept "
        "loaded; `ruff server`), with the CLI's findings; an edited buffer is linted as it changes, for its save. "
        "Any failure falls back to the tool's CLI for that run."
    ),
    "editor.workerIdleSeconds": "A warm lint worker unused for this many seconds is stopped (the next lint starts it).",
    "editor.dedupeServerDiagnostics": (
        "Leave out a forwarded language server's diagnostic when lintel's own tools report the same problem at the "
        "same place (ruff F401 and basedpyright's reportUnusedImport, eslint's no-unused-vars and tsserver's 6133)."
    ),
    "validators": "User-defined checks: a shell command run in the workspace root, its output read by a named parser.",
    "validatorConcurrency": "How many validators run at once; null means the number of cores.",
    "projects.exclude": "Folders project discovery leaves out, as shell patterns on their path from the workspace "
    "root (`legacy/*`), besides dependencies, build output and what .gitignore ignores.",
    "projects.examples": "Check the projects in example folders (`examples/`, `_examples/`, `demo/`, `samples/` below "
    "the checked folder) that no workspace declares as members; off: they are left out, as the projects' own CI does.",
    "validators[].id": "A unique name: the diagnostics' source and the id `lintel.validate` selects by.",
    "validators[].run": "The shell command, run in the workspace root.",
    "validators[].timeoutSeconds": "Seconds the command may take before it is killed.",
    "validators[].parser": "How its output is read: the name of one of lintel's parsers, else `custom`.",
    "validators[].runOnSave": "Also run it when a file is saved.",
}
EXAMPLE_BINARY = {"go": "golangci-lint", "rust": "cargo", "node": "eslint", "python": "ruff"}
SECTION_TITLES = {
    "timeouts": "Timeouts",
    "languages": "Languages",
    "editor": "Editor",
    "projects": "Projects",
    "validators": "Validators",
}
SECTION_OF = {"validatorConcurrency": "validators"}  # top-level scalars shown with their kin
# Values that become a program lintel runs: VS Code ignores workspace values of these until the workspace is trusted.
RESTRICTED_ROOTS = ("languages", "validators")
CLIENT_RESTRICTED = ("lintel.server.path", "lintel.server.interpreter")
_KEPT_KEYWORDS = (
    "type",
    "items",
    "properties",
    "additionalProperties",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "propertyNames",
)


def _number(value: Any) -> Any:
    """30.0 -> 30, the way npm (JSON.stringify) would write it back."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _number(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_number(v) for v in value]
    return value


def _resolve(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return _resolve(defs[ref.rsplit("/", 1)[-1]], defs)
    return dict(schema)


def _is_fixed_object(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" and "properties" in schema


def _clean(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON schema VS Code's settings editor understands: refs inlined, titles and defaults left out."""
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        variants = [_clean(v, defs) for v in schema["anyOf"]]
        nullable = any(v.get("type") == "null" for v in variants)
        rest = [v for v in variants if v.get("type") != "null"]
        if nullable and len(rest) == 1:
            merged = dict(rest[0])
            merged["type"] = [merged["type"], "null"]
            return merged
        return {"anyOf": variants}
    out: dict[str, Any] = {}
    for key in _KEPT_KEYWORDS:
        if key not in schema:
            continue
        value = schema[key]
        if key == "properties":
            value = {name: _clean(sub, defs) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            value = _clean(value, defs)
        out[key] = value
    return out


def _leaves(
    schema: Mapping[str, Any], defs: Mapping[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    for name, sub in schema["properties"].items():
        resolved = _resolve(sub, defs)
        if _is_fixed_object(resolved):
            yield from _leaves(resolved, defs, (*path, name))
        else:
            yield (*path, name), resolved


def _default(defaults: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = defaults
    for part in path:
        node = node[part]
    return node


def _description(path: tuple[str, ...], schema: Mapping[str, Any], used: set[str]) -> str:
    if schema.get("description"):
        return str(schema["description"])
    pattern = ".".join("*" if path[0] == "languages" and i == 1 else part for i, part in enumerate(path))
    template = DESCRIPTIONS.get(pattern)
    if template is None:
        raise SystemExit(f"sync_settings: no description for {'.'.join(path)}: add one to DESCRIPTIONS or the model")
    used.add(pattern)
    if path[0] == "languages":
        language = path[1]
        return template.format(Language=language.capitalize(), example=EXAMPLE_BINARY.get(language, language))
    return template


def generate() -> tuple[list[dict[str, Any]], list[str]]:
    """The model's sections of `contributes.configuration`, and the settings restricted in untrusted workspaces."""
    schema = LintelConfig.model_json_schema(by_alias=True)
    defs = schema.get("$defs", {})
    defaults = LintelConfig().model_dump(mode="json", by_alias=True)
    sections: dict[str, dict[str, Any]] = {}
    restricted: list[str] = []
    used: set[str] = set()
    for order, (path, leaf) in enumerate(_leaves(schema, defs)):
        key = PREFIX + ".".join(path)
        setting = _clean(leaf, defs)
        setting["default"] = _number(_default(defaults, path))
        setting["description"] = _description(path, leaf, used)
        setting["scope"] = "resource"
        setting["order"] = order
        if path[0] == "languages" and path[1] not in LANGUAGES:
            raise SystemExit(f"sync_settings: unknown language {path[1]!r} in the model")
        item_schema = _resolve(leaf.get("items", {}), defs)
        for name, field in setting.get("items", {}).get("properties", {}).items():
            field["description"] = _description((f"{path[0]}[]", name), item_schema["properties"][name], used)
        top = SECTION_OF.get(path[0], path[0])
        section = sections.setdefault(
            top, {"id": PREFIX + top, "title": SECTION_TITLES.get(top, "General"), "properties": {}}
        )
        section["properties"][key] = _number(setting)
        if path[0] in RESTRICTED_ROOTS:
            restricted.append(key)
    stale = sorted(set(DESCRIPTIONS) - used)
    if stale:
        raise SystemExit(f"sync_settings: DESCRIPTIONS names settings the model no longer has: {', '.join(stale)}")
    return list(sections.values()), [*CLIENT_RESTRICTED, *restricted]


def apply(package: dict[str, Any]) -> dict[str, Any]:
    """package.json with the generated sections after the hand-written client section."""
    sections, restricted = generate()
    contributes = package.setdefault("contributes", {})
    client = [s for s in contributes.get("configuration", []) if s.get("id") == CLIENT_SECTION]
    if not client:
        raise SystemExit(f"sync_settings: package.json has no configuration section with id {CLIENT_SECTION!r}")
    contributes["configuration"] = [*client, *sections]
    untrusted = package.setdefault("capabilities", {}).setdefault("untrustedWorkspaces", {})
    untrusted["restrictedConfigurations"] = restricted
    return package


def differences(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[str]:
    def settings(package: Mapping[str, Any]) -> dict[str, Any]:
        sections = package.get("contributes", {}).get("configuration", [])
        return {k: v for s in sections for k, v in s.get("properties", {}).items()}

    def restricted(package: Mapping[str, Any]) -> Any:
        return package.get("capabilities", {}).get("untrustedWorkspaces", {}).get("restrictedConfigurations")

    have, want = settings(current), settings(wanted)
    problems = [f"missing setting {k}" for k in want if k not in have]
    problems += [f"setting {k} is not in lintel's model" for k in have if k not in want]
    problems += [f"setting {k} differs from the model" for k in want if k in have and have[k] != want[k]]
    if not problems and current.get("contributes", {}).get("configuration") != wanted["contributes"]["configuration"]:
        problems.append("the configuration sections' titles or order differ")
    if restricted(current) != restricted(wanted):
        problems.append("capabilities.untrustedWorkspaces.restrictedConfigurations differs")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on any difference")
    args = parser.parse_args(argv)
    current = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    wanted = apply(json.loads(json.dumps(current)))
    if args.check:
        problems = differences(current, wanted)
        for problem in problems:
            print(f"editors/vscode/package.json: {problem}", file=sys.stderr)
        if problems:
            print("run: python editors/vscode/tools/sync_settings.py", file=sys.stderr)
        return 1 if problems else 0
    PACKAGE_JSON.write_text(json.dumps(wanted, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
