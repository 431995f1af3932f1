"""The MCP `outputSchema` of each tool: JSON Schema (2020-12) of the structured content it answers, as data.

Objects list the fields always there as `required` and leave others open: a field added later is additive and
keeps validating. Every MCP tool object has an `output_schema()` (serve.py lists it): the table's tools take theirs
from BY_TOOL here; a tool of another module (navigation) defines its own."""

from __future__ import annotations

from typing import Any

from lintel.core.budget import ISSUE_LISTS

Schema = dict[str, Any]

_STR: Schema = {"type": "string"}
_INT: Schema = {"type": "integer"}
_BOOL: Schema = {"type": "boolean"}
_STRINGS: Schema = {"type": "array", "items": _STR}
ANY_OBJECT: Schema = {"type": "object"}


def _maybe(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(required: dict[str, Schema], optional: dict[str, Schema] | None = None, **extra: Any) -> Schema:
    return {"type": "object", "properties": {**required, **(optional or {})}, "required": list(required), **extra}


EDIT = _object({"file": _STR, "line": _INT, "column": _INT, "endLine": _INT, "endColumn": _INT, "newText": _STR})
FIX = _object({"title": _STR, "applicability": _STR, "edits": {"type": "array", "items": EDIT}})
SEVERITY: Schema = {"enum": ["error", "warning", "info", "hint"]}
ISSUE = _object(
    {"kind": _STR, "signature": _STR, "fingerprint": _STR, "message": _STR, "severity": SEVERITY, "source": _STR},
    {
        "file": _STR,
        "line": _INT,
        "column": _INT,
        "endLine": _INT,
        "endColumn": _INT,
        "rule": _STR,
        "hint": _STR,
        "url": _STR,
        "fixes": {"type": "array", "items": FIX},
    },
)
ISSUES: Schema = {"type": "array", "items": ISSUE}
FAILURE = _object({"name": _STR, "message": _STR}, {"file": _STR, "line": _INT, "output": _STR})
# What a budget (max_issues, severity) left out of a list: present only when it left something out.
CUT: dict[str, Schema] = {"issuesTotal": _INT, "issuesOmitted": _INT}

RUN_RESULT = _object(
    {
        "ok": _BOOL,
        "language": _maybe(_STR),
        "check": _STR,
        "argv": _STRINGS,
        "cwd": _STR,
        "exitCode": _maybe(_INT),
        "timedOut": _BOOL,
        "durationMs": _INT,
        "truncated": _BOOL,
        "output": _STR,
        "issues": ISSUES,
        "status": {"enum": ["clean", "passed", "findings", "not_checked", "not_configured"]},
        "reason": _maybe(_STR),
    },
    {
        **CUT,
        "outputOmitted": _INT,
        "failures": {"type": "array", "items": FAILURE},
        "coverage": ANY_OBJECT,
        "scope": _STR,
    },
)

# last_test_failures before any run: no RunResult, an object saying so (structured content is an object).
NO_TEST_RUN = _object({"recorded": {"const": False}, "language": _STR, "root": _STR})
LAST_TEST_RUN: Schema = {
    "type": "object",
    "properties": {**RUN_RESULT["properties"], **NO_TEST_RUN["properties"]},
    "anyOf": [{"required": RUN_RESULT["required"]}, {"required": NO_TEST_RUN["required"]}],
}

_STATES: dict[str, Schema] = {
    "state": {"enum": ["complete", "timed_out", "tool_missing", "not_run"]},
    "stateReason": _maybe(_STR),
}
_SETTLED_RUN: Schema = {**RUN_RESULT, "properties": {**RUN_RESULT["properties"], **_STATES}}
DIAGNOSTICS = _object(
    {
        "ok": _BOOL,
        "language": _STR,
        "check": {"const": "diagnostics"},
        "file": _STR,
        "contentHash": _STR,
        "issues": ISSUES,
        "runs": {"type": "array", "items": _SETTLED_RUN},
    },
    {**CUT, "version": _INT},
)

CHECK_EDIT = _object(
    {
        "ok": _BOOL,
        "check": {"const": "check_edit"},
        "file": _STR,
        "language": _STR,
        "contentHash": _STR,
        "baseHash": _maybe(_STR),
        "new": ISSUES,
        "fixed": ISSUES,
        "unchanged": _INT,
        "counts": _object({"new": _INT, "fixed": _INT, "unchanged": _INT}),
        "runs": {"type": "array", "items": _SETTLED_RUN},
    },
    {"newTotal": _INT, "newOmitted": _INT, "fixedTotal": _INT, "fixedOmitted": _INT},
)

FIXES = _object(
    {
        "applied": _INT,
        "files": {"type": "array", "items": _object({"file": _STR, "diff": _STR, "fixes": _INT})},
        "remaining": ISSUES,
        "dryRun": _BOOL,
    },
    {"problems": _STRINGS, "remainingTotal": _INT, "remainingOmitted": _INT},
)

COVERING = _object(
    {
        "file": _STR,
        "line": _INT,
        "granularity": _STR,
        "tests": _STRINGS,
        "covered": _BOOL,
        "executable": _BOOL,
        "source": _STR,
    },
    {"note": _STR, "measuredAt": _STR, "ranCoverage": _BOOL, "refinedRuns": _INT},
)

_FOUND_TEST = _object(
    {
        "id": _STR,
        "label": _STR,
        "kind": {"enum": ["file", "suite", "test"]},
        "file": _STR,
        "line": _INT,
        "column": _INT,
        "endLine": _INT,
        "endColumn": _INT,
        "language": _STR,
    },
    {"parent": _STR},
)
TESTS = _object({"tests": {"type": "array", "items": _FOUND_TEST}}, {"testsTotal": _INT, "testsOmitted": _INT})

_CHECK_ENTRY = _object(
    {
        "tool": _STR,
        "argv": _STRINGS,
        "binaries": {
            "type": "array",
            "items": _object({"name": _STR, "found": _BOOL, "path": _maybe(_STR), "via": _maybe(_STR)}),
        },
    },
    {"notConfigured": _STR},
)
_PROJECT = _object(
    {
        "language": _STR,
        "root": _STR,
        "markers": _STRINGS,
        "checks": {"type": "object", "additionalProperties": _CHECK_ENTRY},
        "navigation": _object(
            {"name": _STR, "argv": _maybe(_STRINGS), "found": _BOOL, "reason": _maybe(_STR)},
        ),
    },
    {
        "packageManager": _STR,
        "scripts": {"type": "object", "additionalProperties": _STR},
        "problem": _STR,
        "workspace": _STR,
        "members": _STRINGS,
        "covers": _STRINGS,
    },
)
_LANGUAGE = _object(
    {
        "name": _STR,
        "builtin": _BOOL,
        "markers": _STRINGS,
        "extensions": _STRINGS,
        "languageIds": _STRINGS,
        "checks": _STRINGS,
        "navigation": _BOOL,
    }
)
DETECT = _object(
    {
        "version": _INT,
        "root": _STR,
        "projects": {"type": "array", "items": _PROJECT},
        "languages": {"type": "array", "items": _LANGUAGE},
    }
)

# By tool name: the tools of lintel.engine.commandtable (a command added there with an MCP name adds its schema
# here, or brings it as `output_schema()`).
BY_TOOL: dict[str, Schema] = {
    "run_tests": RUN_RESULT,
    "run_failing_tests": RUN_RESULT,
    "run_lint": RUN_RESULT,
    "run_typecheck": RUN_RESULT,
    "run_format_check": RUN_RESULT,
    "run_script": RUN_RESULT,
    "last_test_failures": LAST_TEST_RUN,
    "tests_covering": COVERING,
    "list_tests": TESTS,
    "detect": DETECT,
    "diagnostics": DIAGNOSTICS,
    "apply_fixes": FIXES,
    "check_edit": CHECK_EDIT,
}


def output_schema(name: str) -> Schema:
    """The table's outputSchema for the tool `name`; any object for a tool it does not know."""
    return BY_TOOL.get(name, ANY_OBJECT)


def carries_issues(schema: Schema) -> bool:
    """Whether answers of this schema hold lists of issues (the tool then takes max_issues and severity)."""
    properties = schema.get("properties", {})
    return any(key in properties for key in ISSUE_LISTS)


__all__ = ["ANY_OBJECT", "BY_TOOL", "Schema", "carries_issues", "output_schema"]
