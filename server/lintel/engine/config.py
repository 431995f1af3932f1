"""Typed configuration (docs/configuration.md): defaults < `[tool.lintel]` in pyproject.toml < lintel.toml < client
settings.

Snake_case in Python, camelCase on the wire. A bad value is reported with its dotted path and that one value
falls back to its default; the rest of the configuration still applies.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator, model_validator
from pydantic.alias_generators import to_camel

from lintel.core.tomlread import TOML_ERRORS, parse_toml
from lintel.languages import LANGUAGES, CheckName
from lintel.languages.parsers import is_known_parser, parser_names

log = logging.getLogger(__name__)

BUILTIN_NAMES = frozenset(LANGUAGES.names)

MIN_TIMEOUT = 1.0
MAX_TIMEOUT = 1800.0


def clamp_timeout(seconds: float) -> float:
    """docs/configuration.md, timeouts: a given timeout is clamped to 1–1800 s."""
    return max(MIN_TIMEOUT, min(MAX_TIMEOUT, float(seconds)))


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)


class Timeouts(_Model):
    lint: float = Field(30.0, gt=0)
    typecheck: float = Field(300.0, gt=0)
    test: float = Field(300.0, gt=0)
    format: float = Field(30.0, gt=0)


class LanguageSettings(_Model):
    """Per-language overrides: a check's whole argv, its parser, binaries by name, the language server's argv."""

    lint: list[str] | None = None
    typecheck: list[str] | None = None
    test: list[str] | None = None
    format: list[str] | None = None
    # The parser for a check's output, by check: any name from lintel.languages.parsers (`custom` reads anything).
    parser: dict[CheckName, str] = Field(default_factory=dict)
    binaries: dict[str, str] = Field(default_factory=dict)
    server: list[str] | None = None
    # Where the language comes in the detection order (built-in: go 10, rust 20, node 30, python 40).
    order: int | None = None

    @field_validator("lint", "typecheck", "test", "format", "server")
    @classmethod
    def _non_empty_argv(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not all(part for part in value)):
            raise ValueError("an argv must be a non-empty list of non-empty strings")
        return value

    @field_validator("parser")
    @classmethod
    def _known_parsers(cls, value: dict[CheckName, str]) -> dict[CheckName, str]:
        unknown = sorted(name for name in value.values() if not is_known_parser(name))
        if unknown:
            raise ValueError(f"unknown parser {', '.join(unknown)} (known: {', '.join(parser_names())})")
        return value

    def argv_for(self, check: str) -> list[str] | None:
        value: list[str] | None = getattr(self, check, None)
        return value


class UserLanguageSettings(LanguageSettings):
    """A language lintel has no module for, declared whole in configuration (`[languages.<name>]`)."""

    # Files whose presence makes a folder a project root (`pom.xml`; shell patterns like `*.sh` allowed).
    markers: list[str] = Field(min_length=1)
    # The language's files by suffix (`.sh` or `sh`); lint on save and navigation follow them.
    extensions: list[str] = Field(min_length=1)
    # The LSP language ids of its files (what an editor calls them); the language's name by default.
    language_ids: list[str] | None = None
    # Shown when a check's binary is missing.
    install_hint: str = ""

    @field_validator("markers", "extensions")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        if not all(part.strip() and "/" not in part for part in value):
            raise ValueError("must be non-empty file names, without `/`")
        return value

    @field_validator("extensions")
    @classmethod
    def _suffixes(cls, value: list[str]) -> list[str]:
        return ["." + part.strip().lstrip(".").lower() for part in value]


class LanguagesBase(_Model):
    """The built-in languages' overrides by name; any other name declares a language of the user's."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, UserLanguageSettings]

    @model_validator(mode="before")
    @classmethod
    def _lower_case_names(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key.strip().lower() if isinstance(key, str) else key: value for key, value in data.items()}
        return data

    if TYPE_CHECKING:
        # The built-in languages' fields (`config.languages.python`), made from the registry below.
        def __getattr__(self, name: str) -> LanguageSettings: ...

    def get(self, language: str) -> LanguageSettings:
        settings: LanguageSettings | None = getattr(self, language, None) if language in BUILTIN_NAMES else None
        if settings is None:
            settings = self.user_defined().get(language)
        return settings if settings is not None else LanguageSettings()

    def user_defined(self) -> dict[str, UserLanguageSettings]:
        """The languages the user declared, by name."""
        return dict(self.__pydantic_extra__ or {})


# One field per built-in language, in the registry's order (its JSON schema's keys: the editors' settings are
# generated from it): a new language in `lintel.languages.LANGUAGES` is a new key here with nothing else to write.
# mypy sees the base class, whose fields it reads through `__getattr__`.
if TYPE_CHECKING:
    Languages = LanguagesBase
else:
    Languages = create_model(
        "Languages",
        __base__=LanguagesBase,
        __doc__=LanguagesBase.__doc__,
        __module__=__name__,
        **{name: (LanguageSettings, Field(default_factory=LanguageSettings)) for name in LANGUAGES.names},
    )


class EditorSettings(_Model):
    """When the server runs what, on the wire as `editor.lintOnSave` etc."""

    lint_on_open: bool = True
    lint_on_save: bool = True
    # On change the unsaved text goes to the tool on stdin (ruff, eslint); tools without stdin wait for a save.
    lint_on_change: bool = False
    format_check: bool = True
    # A save while the previous run for that file is still going waits this long (a save storm collapses); not a
    # lint on a warm worker, which is a request, not a process.
    save_debounce_ms: int = Field(100, ge=0, le=10_000)
    change_debounce_ms: int = Field(500, ge=0, le=10_000)
    forward_server_diagnostics: bool = True
    # A forwarded server's Hint-level diagnostics ("`x` is not accessed", tsserver's 7044 suggestions): off, they
    # crowd diagnostic lists with what lintel's linters say at their own level; on, editors that draw tags grey out
    # the unused code they mark (docs/architecture.md, "Errors users see").
    forward_server_hints: bool = False
    # A forwarded server's diagnostic for a problem lintel's own tools report at the same place is left out.
    dedupe_server_diagnostics: bool = True
    # Files above this size (KiB) are not sent to language servers: one huge file held up every other file's hover. 0:
    # no limit.
    max_forwarded_file_kb: int = Field(4096, ge=0, le=1_048_576)
    # Files above this size (KiB) are not linted or format-checked on open, change or save: a huge generated file
    # costs the tool seconds and lintel several copies of its text, for findings no one reads. 0: no limit.
    max_lint_file_kb: int = Field(4096, ge=0, le=1_048_576)
    # Lint through a warm worker per (tool, project root) where the tool has one (eslint): the CLI's findings
    # without starting the tool on every save; any failure falls back to the CLI (docs/architecture.md, "Warm workers").
    warm_workers: bool = True
    # A warm worker unused this many seconds is stopped (started again by the next lint).
    worker_idle_seconds: int = Field(300, ge=1, le=86_400)


class ProjectSettings(_Model):
    """Which folders project discovery leaves out, besides dependencies, build output and what git ignores."""

    # Shell-style patterns matched against a folder's path from the workspace root (`legacy/*`, `**/generated`).
    exclude: list[str] = Field(default_factory=list)
    # Check the projects inside example folders (`examples/`, `_examples/`, `demo/`, … below the checked folder)
    # that no workspace declares as members: off by default, as the projects' own CI leaves them out
    # (docs/architecture.md, "Projects: discovery").
    examples: bool = False


class ValidatorConfig(_Model):
    """A user-defined check (docs/configuration.md, Validators): a shell command run in the workspace root, read by a
    named parser."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    run: str = Field(min_length=1)
    timeout_seconds: float = Field(300.0, gt=0)
    parser: str = "custom"  # any name from lintel.languages.parsers; unknown names fall back to `custom`
    run_on_save: bool = False


class LintelConfig(_Model):
    timeouts: Timeouts = Field(default_factory=lambda: Timeouts())
    languages: Languages = Field(default_factory=lambda: Languages())
    editor: EditorSettings = Field(default_factory=lambda: EditorSettings())
    projects: ProjectSettings = Field(default_factory=lambda: ProjectSettings())
    validators: list[ValidatorConfig] = Field(default_factory=list)
    # How many validators run at once (default: the number of cores).
    validator_concurrency: int | None = Field(None, ge=1, le=64)

    @field_validator("validators")
    @classmethod
    def _unique_ids(cls, value: list[ValidatorConfig]) -> list[ValidatorConfig]:
        seen: set[str] = set()
        for validator in value:
            if validator.id in seen:
                raise ValueError(f"duplicate validator id {validator.id!r}")
            seen.add(validator.id)
        return value


@dataclass
class ConfigProblem:
    path: str  # dotted, camelCase as the user wrote it: `languages.node.lint`
    message: str
    origin: str  # the file or channel the value came from

    def __str__(self) -> str:
        if not self.path:  # the file itself (not TOML, unreadable)
            return f"{self.origin}: {self.message}"
        return f"{self.path}: {self.message} ({self.origin}; the default is used)"


@dataclass
class LoadedConfig:
    config: LintelConfig
    problems: list[ConfigProblem] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def _child(node: Any, key: int | str) -> tuple[bool, Any]:
    if isinstance(node, dict) and key in node:
        return True, node[key]
    if isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
        return True, node[key]
    return False, None


def _drop(data: dict[str, Any], loc: tuple[int | str, ...]) -> bool:
    """Remove the offending value so it alone falls back to its default; a bad list item (a validator)
    is removed whole, keeping the good items beside it."""
    if not loc:
        return False
    node: Any = data
    for key in loc[:-1]:
        found, node = _child(node, key)
        if not found:
            return False
    last = loc[-1]
    found, _ = _child(node, last)
    if found:
        del node[last]
    return found


def _drop_path(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    for index, part in enumerate(loc):
        if isinstance(part, int):
            return loc[: index + 1]
    return loc


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _explain(loc: tuple[int | str, ...], message: str, kind: str) -> str:
    """A missing `markers`/`extensions` under a name lintel does not know is most likely a new language (or a
    misspelt built-in one): say which."""
    if kind == "missing" and len(loc) == 3 and loc[0] == "languages" and loc[2] in ("markers", "extensions"):
        return (
            f"{loc[1]!s} is not a built-in language ({', '.join(LANGUAGES.names)}); to declare it, give it "
            f"`markers` and `extensions` (this entry is left out)"
        )
    return message


def validate(raw: Mapping[str, Any], origin: str) -> tuple[LintelConfig, list[ConfigProblem]]:
    """Validate a raw mapping; each invalid value is reported and dropped (so its default applies)."""
    # A deep copy: bad values are dropped from nested tables in place, and the caller's mapping (the
    # session's initializationOptions, say) must keep them so the next reload reports them again.
    data: dict[str, Any] = copy.deepcopy(dict(raw))
    problems: list[ConfigProblem] = []
    for _ in range(50):  # each round removes at least one bad value
        try:
            return LintelConfig.model_validate(data), problems
        except ValidationError as exc:
            paths: set[tuple[int | str, ...]] = set()
            for error in exc.errors():
                loc = tuple(error["loc"])
                path = ".".join(str(part) for part in loc) or "(root)"
                problems.append(ConfigProblem(path, _explain(loc, error["msg"], error["type"]), origin))
                paths.add(_drop_path(loc))
            # Deepest and highest list index first, so earlier removals do not shift later ones.
            progressed = False
            for loc in sorted(paths, key=lambda p: (len(p), [str(x).zfill(8) for x in p]), reverse=True):
                progressed = _drop(data, loc) or (len(loc) > 1 and _drop(data, loc[:-1])) or progressed
            if not progressed:
                break
    return LintelConfig(), problems


def read_file_config(root: Path) -> tuple[dict[str, Any], list[ConfigProblem], list[str]]:
    """The raw `[tool.lintel]` table of pyproject.toml merged with lintel.toml (which wins)."""
    merged: dict[str, Any] = {}
    problems: list[ConfigProblem] = []
    sources: list[str] = []
    for name, table in (("pyproject.toml", ("tool", "lintel")), ("lintel.toml", ())):
        path = root / name
        if not path.is_file():
            continue
        try:
            document: Any = parse_toml(path)
        except TOML_ERRORS as exc:
            # The whole file is unused: named by its full path, with the parser's line and column.
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(ConfigProblem("", f"not valid TOML: {reason}", str(path)))
            continue
        for key in table:
            document = document.get(key) if isinstance(document, dict) else None
        if document is None:
            continue
        if not isinstance(document, dict):
            problems.append(ConfigProblem(".".join(table), "must be a table", name))
            continue
        merged = _merge(merged, document)
        sources.append(name)
    return merged, problems, sources


def load_config(root: Path, *overrides: tuple[str, Mapping[str, Any] | None]) -> LoadedConfig:
    """Defaults, then the root's files, then each (origin, mapping) override in order."""
    raw, problems, sources = read_file_config(root)
    for origin, mapping in overrides:
        if mapping:
            raw = _merge(raw, mapping)
            sources.append(origin)
    origin = ", ".join(sources) if sources else "defaults"
    config, more = validate(raw, origin)
    return LoadedConfig(config, problems + more, sources)
