"""The wire's JSON (lintel.core.jsonwire): orjson's speed where it is installed, the same values as the standard library
always, including for what orjson refuses."""

from __future__ import annotations

import builtins
import json
from typing import Any

import pytest
from lintel.core import jsonwire


def test_orjson_is_what_the_wire_uses_here() -> None:
    # CI installs lintel's dependencies: a fallback taken by accident would pass every other test, slower.
    assert jsonwire.loads.__module__ == jsonwire.__name__
    assert jsonwire._fast()[0] is not jsonwire._stdlib_loads


@pytest.mark.parametrize(
    "value",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {"data": [0, 1, 2, 3, 4] * 10}},
        {"text": 'é 🍰 \u2028 \x00 \\ "'},
        {"big": 2**70, "negative": -(2**65)},  # beyond orjson's 64-bit integers
        {"lone": "\ud800x"},  # a lone surrogate: json writes it escaped, orjson refuses it
        [1.5, True, None, "a"],
    ],
)
def test_values_survive_the_round_trip(value: Any) -> None:
    assert jsonwire.loads(jsonwire.dumps(value)) == value


def test_the_output_is_utf8_and_reads_back_with_the_standard_library() -> None:
    body = jsonwire.dumps({"text": "café 🍰"})
    assert "café 🍰".encode() in body
    assert json.loads(body) == {"text": "café 🍰"}


def test_non_string_keys_are_written_as_the_standard_library_writes_them() -> None:
    assert json.loads(jsonwire.dumps({1: "one"})) == {"1": "one"}


def test_a_lone_surrogate_goes_out_escaped_valid_utf8() -> None:
    body = jsonwire.dumps({"lone": "\ud800"})
    assert b"\\ud800" in body
    body.decode("utf-8")  # strict: what a Go or Rust reader would refuse is not written


def test_what_orjson_refuses_to_read_the_standard_library_reads() -> None:
    assert jsonwire.loads(b'{"s": "\\ud800"}') == {"s": "\ud800"}


def test_bad_json_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Expecting value"):
        jsonwire.loads(b'{"a": ')


def test_without_orjson_the_standard_library_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_orjson(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "orjson":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_orjson)
    loads, dumps = jsonwire._fast()
    assert loads is jsonwire._stdlib_loads
    value = {"text": "é 🍰", "lone": "\ud800", "n": [1, 2]}
    assert loads(dumps(value)) == value
