"""Property tests: random valid values of every structure render to a text that
parses back to the same value, as the structure and as any sentence; 1000
cases per structure, stdlib ``random`` with a fixed seed.

Each string or integer field is drawn from its group's own pattern
(``KIND.fields[i].pattern``), enums from their values, JSON objects from a
recursive generator; derived fields are computed from their source field. As
in the Rust property test, one domain constraint is explicit: an absent
optional enum followed by `` {next}`` in the template requires ``next`` not to
start with one of the enum's values and a blank (P4); such values are drawn
often on purpose, with the enum present.
"""

from __future__ import annotations

import json
import math
import random
import re
import struct
from typing import Any

import pytest

import agent_sentences as A
from strings import POOL, random_match

CASES = 1000
SEED = 20261130


def random_json(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value a strict object may hold."""
    choice = rng.randrange(9 if depth < 4 else 7)
    if choice == 0:
        return None
    if choice == 1:
        return rng.random() < 0.5
    if choice == 2:
        return rng.randint(-(2**63), 2**64 - 1)
    if choice == 3:
        return rng.randint(-1000, 1000)
    if choice == 4:
        while True:
            f: float = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if math.isfinite(f):
                return f
    if choice == 5:
        return rng.choice([0.0, -0.0, 0.1, 1e16, 1.5e-7, 1e-5, 1e15, 5e-324, 1.7976931348623157e308, 2.5])
    if choice == 6:
        return "".join(rng.choice(POOL) for _ in range(rng.randint(0, 8)))
    if choice == 7:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return random_object(rng, depth + 1)


def random_object(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """A random JSON object."""
    return {"".join(rng.choice(POOL) for _ in range(rng.randint(0, 6))): random_json(rng, depth) for _ in range(rng.randint(0, 5))}


def absorbing_pairs(kind: A.SentenceKind) -> list[tuple[A.FieldInfo, A.FieldInfo]]:
    """(optional enum, next field) where the template writes ``{opt} {next}``."""
    out = []
    for f in kind.fields:
        if f.type == "enum" and not f.required:
            m = re.search(r"\{%s\} \{(\w+)\}" % re.escape(f.name), kind.template)
            if m:
                out.append((f, next(g for g in kind.fields if g.name == m.group(1))))
    return out


def starts_with_value(text: str, values: tuple[str, ...]) -> bool:
    return any(text.startswith(v) and text[len(v) : len(v) + 1] in (" ", "\t") for v in values)


def random_value(kind: A.SentenceKind, rng: random.Random) -> dict[str, Any]:
    """Random attribute values of a structure, in its canonical domain."""
    pairs = absorbing_pairs(kind)
    values: dict[str, Any] = {}
    for f in kind.fields:
        if f.derived_from is not None:
            continue
        if not f.required and rng.random() < 0.3:
            values[f.attr] = None
            continue
        pattern = kind.flag_prefix + f.pattern
        if f.type == "enum":
            values[f.attr] = rng.choice(f.values)
        elif f.type == "json_object":
            values[f.attr] = random_object(rng)
        elif f.type == "integer":
            values[f.attr] = int(random_match(pattern, rng))
        else:
            values[f.attr] = random_match(pattern, rng)
    for f in kind.fields:
        if f.derived_from is not None:
            source = next(g for g in kind.fields if g.name == f.derived_from)
            found = re.fullmatch(kind.flag_prefix + source.pattern, values[source.attr])
            assert found is not None
            text = found.group(f.groups[0])
            values[f.attr] = None if text is None else int(text) if f.type == "integer" else text
    for opt, nxt in pairs:
        pattern = kind.flag_prefix + nxt.pattern
        if values[opt.attr] is None:
            while starts_with_value(values[nxt.attr], opt.values):
                values[nxt.attr] = random_match(pattern, rng)
        elif rng.random() < 0.3:
            biased = rng.choice(opt.values) + " " + values[nxt.attr]
            if re.fullmatch(pattern, biased):
                values[nxt.attr] = biased
    return values


CLASSES = {cls.KIND.key: cls for cls in (type(A.parse(k.example_sentence)) for k in A.KINDS)}


@pytest.mark.parametrize("kind", A.KINDS, ids=[k.key for k in A.KINDS])
def test_random_values_render_and_parse_back(kind: A.SentenceKind) -> None:
    rng = random.Random(f"{SEED}-{kind.key}")
    cls = CLASSES[kind.key]
    for _ in range(CASES):
        value = cls(**random_value(kind, rng))
        text = value.render()
        back = cls.parse(text)
        assert json.dumps(back.to_dict()) == json.dumps(value.to_dict()), text
        assert back == value, text
        assert A.parse(text) == value, text


def test_generated_strings_cover_the_troublesome_characters() -> None:
    rng = random.Random(SEED)
    drawn = "".join(random_match(r"[^ \t\r\n][^\r\n]*", rng) for _ in range(2000))
    for ch in "\u0085\u00a0\u2028\u1680\x1c\x0b\x0c\u0661 \t":
        assert ch in drawn, repr(ch)
    assert "\n" not in drawn and "\r" not in drawn


def test_the_canonical_domain_constraint_is_real() -> None:
    # Outside the domain the property fails: this is why the generator keeps out of it.
    value = A.Result(job_id="x", summary="OK done", status=None)
    assert A.Result.parse(value.render()) == A.Result(job_id="x", summary="done", status="OK")
    assert absorbing_pairs(A.Result.KIND) == [(A.Result.KIND.fields[2], A.Result.KIND.fields[1])]
