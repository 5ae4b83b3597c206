"""Random strings matching a regex, read with Python's own regex parser
(``re._parser``), for the property tests.

Characters for negated classes and ``.`` come from a pool weighted towards
the ones that matter here: blanks and line ends, the characters where Python
``re`` and Rust ``regex`` disagree about ``\\s``, ``\\w`` and ``\\d``, brackets
and quotes, non-ASCII letters, digits and emoji.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from re import _constants as C
from re import _parser
from typing import Any

POOL = (
    [chr(c) for c in range(0x20, 0x7F)]
    + list("\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x00\x7f")
    + list("\u0085\u00a0\u1680\u2000\u2028\u2029\u202f\u3000\u200b\ufeff")
    + list("éßÜ日本—–’\u0661\u06f1\uff11\u00b9🚀🔥")
)
"""Candidate characters for negated classes and ``.``."""

_NOT_NEWLINE = [c for c in POOL if c != "\n"]

MAX_EXTRA = 12
"""Repetitions beyond a quantifier's minimum, at most (for unbounded ones)."""


def _in_set(items: list[tuple[Any, Any]], ch: str) -> bool:
    negate = False
    hit = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            hit = hit or ord(ch) == av
        elif op is C.RANGE:
            hit = hit or av[0] <= ord(ch) <= av[1]
        else:
            raise NotImplementedError(f"class item {op}")
    return hit != negate


_CANDIDATES: dict[int, tuple[list[str], Any]] = {}


def _candidates(items: list[tuple[Any, Any]]) -> list[str]:
    """The pool characters in a class; ``items`` are parse-tree nodes, alive as long as the cached tree."""
    key = id(items)
    cached = _CANDIDATES.get(key)
    if cached is None or cached[1] is not items:
        cached = ([c for c in POOL if _in_set(items, c)], items)
        _CANDIDATES[key] = cached
    return cached[0]


@lru_cache(maxsize=None)
def _all_but(code: int) -> list[str]:
    return [c for c in POOL if ord(c) != code]


def _pick_in(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    if any(op is C.NEGATE for op, _ in items):
        return rng.choice(_candidates(items))
    op, av = rng.choice(items)
    if op is C.LITERAL:
        return chr(av)
    return chr(rng.randint(av[0], av[1]))


def _generate(tree: Any, rng: random.Random, dotall: bool, out: list[str]) -> None:
    for op, av in tree:
        if op is C.LITERAL:
            out.append(chr(av))
        elif op is C.NOT_LITERAL:
            out.append(rng.choice(_all_but(av)))
        elif op is C.ANY:
            out.append(rng.choice(POOL if dotall else _NOT_NEWLINE))
        elif op is C.IN:
            out.append(_pick_in(av, rng))
        elif op is C.BRANCH:
            _generate(rng.choice(av[1]), rng, dotall, out)
        elif op is C.SUBPATTERN:
            _generate(av[3], rng, dotall, out)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            low, high, sub = av
            high = low + MAX_EXTRA if high is C.MAXREPEAT else high
            for _ in range(rng.randint(low, high)):
                _generate(sub, rng, dotall, out)
        elif op is C.AT:
            pass
        else:
            raise NotImplementedError(f"regex construct {op}")


@lru_cache(maxsize=None)
def _parse(pattern: str) -> Any:
    return _parser.parse(pattern)


def random_match(pattern: str, rng: random.Random) -> str:
    """A random string that ``re.fullmatch(pattern, ...)`` matches."""
    tree = _parse(pattern)
    out: list[str] = []
    _generate(tree, rng, bool(tree.state.flags & re.DOTALL), out)
    text = "".join(out)
    assert re.fullmatch(pattern, text), (pattern, text)
    return text
