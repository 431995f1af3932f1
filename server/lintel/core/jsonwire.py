"""JSON for the wire: orjson where it is installed (parsing and writing the large answers a relay carries — a
5,000-line file's semantic tokens, a long completion list — several times faster), the standard library otherwise,
and for what orjson refuses (lone surrogates, integers beyond 64 bits, non-string keys): same values either way."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

# ASCII: a lone surrogate goes out escaped ("\ud800"), which every reader takes; its length is its byte count.
_STDLIB_DUMPS = json.JSONEncoder(separators=(",", ":")).encode


def _stdlib_loads(body: bytes | str) -> Any:
    return json.loads(body)


def _stdlib_dumps(value: Any) -> bytes:
    return _STDLIB_DUMPS(value).encode("ascii")


def _fast() -> tuple[Callable[[bytes | str], Any], Callable[[Any], bytes]]:
    try:
        import orjson
    except ImportError:  # a bundle built for another Python, or a platform without its wheel
        return _stdlib_loads, _stdlib_dumps

    fast_loads, fast_dumps = orjson.loads, orjson.dumps

    def loads(body: bytes | str) -> Any:
        try:
            return fast_loads(body)
        except orjson.JSONDecodeError:
            return json.loads(body)  # what orjson refuses and json takes (a lone surrogate), or json's own error

    def dumps(value: Any) -> bytes:
        try:
            return fast_dumps(value)
        except TypeError:  # orjson.JSONEncodeError: a lone surrogate, a huge integer, a non-string key
            return _stdlib_dumps(value)

    return loads, dumps


loads, dumps = _fast()
