"""Why a text is not a sentence: :class:`ParseError` and its kinds.

The same fields and the same messages as ``ParseError`` / ``ParseErrorKind``
of the Rust runtime (``runtime/src/lib.rs``). Offsets are **byte offsets into
the UTF-8 encoding** of the parsed text, as in Rust, so both languages report
the same numbers; :func:`char_offset` turns one into an index into the
``str``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

__all__ = [
    "FixedMismatch",
    "Integer",
    "Json",
    "NoMatch",
    "ParseError",
    "ParseErrorKind",
    "RepeatMismatch",
    "UnexpectedGroup",
    "byte_offset",
    "char_offset",
]

_ARTICLES: dict[str, str] = {}  # filled from the spec: articles
"""The article a message writes before each structure key (``an `ack```),
as the runtime's ``article`` gives it."""


@dataclass(frozen=True, slots=True)
class NoMatch:
    """The text does not match the structure's pattern.

    ``expected`` describes the pattern element that failed at the offset
    (e.g. ```—``` or ``<title>``).
    """

    expected: str

    def describe(self, offset: int) -> str:
        """The message after the structure prefix, as Rust writes it."""
        return f"the text stopped fitting at byte {offset}: expected {self.expected}"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "no_match", "expected": ...}``."""
        return {"kind": "no_match", "expected": self.expected}


@dataclass(frozen=True, slots=True)
class FixedMismatch:
    """A group bound to a fixed text captured something else (e.g. the verb of a claim was ``DECLINE``)."""

    group: str
    expected: str
    found: str

    def describe(self, offset: int) -> str:
        """The message after the structure prefix, as Rust writes it."""
        return f"group `{self.group}` at byte {offset} is `{self.found}`, but this structure requires `{self.expected}`"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "fixed_mismatch", "group": ..., "expected": ..., "found": ...}``."""
        return {"kind": "fixed_mismatch", "group": self.group, "expected": self.expected, "found": self.found}


@dataclass(frozen=True, slots=True)
class UnexpectedGroup:
    """A group that fills no field of the structure took part in the match."""

    group: str

    def describe(self, offset: int) -> str:
        """The message after the structure prefix, as Rust writes it."""
        return f"group `{self.group}` at byte {offset} fills no field of this structure"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "unexpected_group", "group": ...}``."""
        return {"kind": "unexpected_group", "group": self.group}


@dataclass(frozen=True, slots=True)
class RepeatMismatch:
    """Groups filling one field captured different texts."""

    field: str
    first: str
    other: str

    def describe(self, offset: int) -> str:
        """The message after the structure prefix, as Rust writes it."""
        return (
            f"field `{self.field}` is written twice with different values "
            f"(`{self.first}`, then `{self.other}` at byte {offset})"
        )

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "repeat_mismatch", "field": ..., "first": ..., "other": ...}``."""
        return {"kind": "repeat_mismatch", "field": self.field, "first": self.first, "other": self.other}


@dataclass(frozen=True, slots=True)
class Integer:
    """An integer field does not fit in 32 bits."""

    field: str

    def describe(self, offset: int) -> str:
        """The message after the structure prefix, as Rust writes it."""
        return f"field `{self.field}` at byte {offset} does not fit in 32 bits"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "integer", "field": ...}``."""
        return {"kind": "integer", "field": self.field}


@dataclass(frozen=True, slots=True)
class Json:
    """A JSON object field is not one strict JSON object.

    ``error`` is the JSON reader's message; its wording differs between the
    Python and the Rust reader, everything else is the same.
    """

    field: str
    error: str

    def describe(self, offset: int) -> str:
        """The message after the structure prefix, as Rust writes it."""
        return f"field `{self.field}` at byte {offset} is not one strict JSON object: {self.error}"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "json", "field": ..., "error": ...}``."""
        return {"kind": "json", "field": self.field, "error": self.error}


ParseErrorKind = Union[NoMatch, FixedMismatch, UnexpectedGroup, RepeatMismatch, Integer, Json]
"""What went wrong in a :class:`ParseError`."""


class ParseError(ValueError):
    """Why a text is not a sentence of the expected structure, and where it stopped fitting.

    ``structure`` is the key of the structure that was expected, or ``None``
    when any structure would have done; ``closest`` is then the structure
    that fitted the longest prefix. ``offset`` is a **byte** offset into the
    UTF-8 encoding of the text. ``str(error)`` is the Rust ``Display`` text.
    """

    structure: str | None
    closest: str | None
    offset: int
    kind: ParseErrorKind

    def __init__(self, structure: str | None, closest: str | None, offset: int, kind: ParseErrorKind) -> None:
        self.structure = structure
        self.closest = closest
        self.offset = offset
        self.kind = kind
        super().__init__(self.message())

    def message(self) -> str:
        """The message, exactly as the Rust ``ParseError`` displays it."""
        if self.structure is not None:
            prefix = f"not {_ARTICLES.get(self.structure, 'a')} `{self.structure}` sentence: "
        elif self.closest is not None:
            prefix = f"no sentence structure matches (closest: `{self.closest}`): "
        else:
            prefix = "no sentence structure matches: "
        return prefix + self.kind.describe(self.offset)

    def __str__(self) -> str:
        return self.message()

    def __repr__(self) -> str:
        return f"ParseError({self.structure!r}, {self.closest!r}, {self.offset!r}, {self.kind!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParseError):
            return NotImplemented
        return (self.structure, self.closest, self.offset, self.kind) == (
            other.structure,
            other.closest,
            other.offset,
            other.kind,
        )

    def __hash__(self) -> int:
        return hash((self.structure, self.closest, self.offset, self.kind))

    def to_dict(self) -> dict[str, Any]:
        """``{"structure", "closest", "offset", "kind", ...}`` plus the kind's fields."""
        return {"structure": self.structure, "closest": self.closest, "offset": self.offset, **self.kind.to_dict()}


def byte_offset(text: str, index: int) -> int:
    """The UTF-8 byte offset of character index ``index`` of ``text``."""
    return len(text[:index].encode("utf-8", "surrogatepass"))


def char_offset(text: str, offset: int) -> int:
    """The character index of UTF-8 byte offset ``offset`` of ``text`` (the inverse of :func:`byte_offset`)."""
    return len(text.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "surrogatepass"))
