"""Tool arguments: one strict JSON object (RFC 8259), read by the Rust runtime's
reader (``runtime/src/json/``, through ``agent_sentences._native``) and written
exactly as it writes them.

Reading rejects, beyond what ``serde_json`` rejects already (trailing
commas, comments, single quotes, bare keys, raw control characters in
strings, trailing text): ``NaN`` / ``Infinity``, numbers out of the double
range, lone surrogates, duplicate keys at any level, nesting deeper than
:data:`MAX_DEPTH`, integer literals outside ``-2**63 .. 2**64-1``, and any
value but an object. ``-0`` reads as the float ``-0.0``, as in Rust.

Writing is ``json.dumps(value, ensure_ascii=False)``: ``", "`` between
members, ``": "`` after keys, keys in their original order, floats as
``repr(float)`` writes them. The Rust runtime writes the same bytes.

There is one reader: :func:`parse_object` is the Rust runtime's
``parse_object_with``, so a text the scanner accepts as a call's arguments is
exactly a text :func:`parse_object` accepts, with the same messages.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from . import _native

__all__ = ["MAX_DEPTH", "JsonError", "JsonObject", "clone_object", "parse_object", "render_object"]

MAX_DEPTH: Final = 64
"""Deepest nesting of objects and arrays accepted (the outer object is 1)."""
_DEPTH_CAP: Final = 127
"""The deepest ``max_depth`` the reader honours: ``serde_json`` stops at 128 levels."""

JsonObject = dict[str, Any]
"""A JSON object of tool arguments, keys in their original order."""

_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class JsonError(ValueError):
    """Why a text is not one strict JSON object (or a value cannot be written as one)."""

    message: str

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def _check(value: Any) -> None:
    """Checks that a value can be written as Rust's JSON value holds it: string keys,
    finite floats, 64-bit integers, no lone surrogates, JSON types only."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, member in item.items():
                if not isinstance(key, str):
                    raise JsonError(f"object key {key!r} is not a string")
                if _SURROGATE.search(key):
                    raise JsonError("lone surrogate in a string")
                stack.append(member)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            if _SURROGATE.search(item):
                raise JsonError("lone surrogate in a string")
        elif item is None or isinstance(item, bool):
            pass
        elif isinstance(item, int):
            if not _INT_MIN <= item <= _INT_MAX:
                raise JsonError(f"integer {item} is outside the 64-bit range")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise JsonError(f"{item!r} is not a JSON number")
        else:
            raise JsonError(f"{type(item).__name__} is not a JSON value")


def parse_object(text: str, *, max_depth: int = MAX_DEPTH, max_bytes: int | None = None) -> JsonObject:
    """Reads ``text`` as exactly one strict JSON object, nested at most ``max_depth`` levels
    and, when ``max_bytes`` is given, at most that many bytes of UTF-8 (Rust's ``Limits``).

    Raises :class:`JsonError` when the text is not valid JSON, is not an
    object, is too long, or breaks one of the rules in the module docs; its
    message is the Rust reader's. ``ValueError`` for a ``max_depth`` outside
    1..127 (``serde_json`` stops at 128 levels whatever is asked) or a negative
    ``max_bytes``.

    >>> parse_object('{"cmd": "ls", "n": 2}')
    {'cmd': 'ls', 'n': 2}
    >>> parse_object('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    agent_sentences.strict_json.JsonError: duplicate key `a` at line 1 column 12
    """
    if not 1 <= max_depth <= _DEPTH_CAP:
        raise ValueError(f"max_depth must be 1 to {_DEPTH_CAP} (the reader's own limit), not {max_depth}")
    if max_bytes is not None and max_bytes < 0:
        raise ValueError(f"max_bytes must be at least 0, not {max_bytes}")
    try:
        return _native.parse_object(text, max_depth, max_bytes)
    except _native.JsonError as e:
        raise JsonError(str(e)) from None
    except UnicodeEncodeError as e:
        raise JsonError(f"lone surrogate at character {e.start} (it has no UTF-8 encoding)") from None


def render_object(value: JsonObject) -> str:
    """Writes a JSON object canonically (see the module docs).

    Raises :class:`JsonError` for anything Rust's JSON value could not hold:
    keys that are not strings, non-finite floats, integers outside 64 bits,
    lone surrogates, and values that are not JSON (tuples, sets, objects).
    """
    _check(value)
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def clone_object(value: JsonObject) -> JsonObject:
    """A deep copy of a JSON object (dicts and lists copied, scalars shared)."""

    def clone(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: clone(member) for key, member in item.items()}
        if isinstance(item, list):
            return [clone(member) for member in item]
        return item

    result: JsonObject = clone(value)
    return result
