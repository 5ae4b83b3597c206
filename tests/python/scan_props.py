"""Text generators for the scanner's property tests (``test_scan.py``) and the
in-process comparison with Rust's serde JSON (``test_native.py``): random strings over a pool of
the scanner's own tokens, and valid messages with random mutations."""

from __future__ import annotations

import json
import random
from pathlib import Path

with (Path(__file__).resolve().parents[1] / "scan_pool.json").open(encoding="utf-8") as _f:
    _POOL = json.load(_f)

TOKENS: list[str] = _POOL["tokens"]
"""Pieces the scanner reacts to, plus ordinary text, non-ASCII and controls (``tests/scan_pool.json``,
shared with the Rust property tests)."""
PIECES: list[str] = _POOL["pieces"]
"""Valid messages: each scanned structure's sentence and every directive form."""
SEPARATORS: list[str] = _POOL["separators"]
"""What joins pieces into a message."""


def random_text(rng: random.Random, max_tokens: int = 40) -> str:
    """A random string: tokens of :data:`TOKENS` and random code points (a lone surrogate now and then)."""
    out = []
    for _ in range(rng.randint(0, max_tokens)):
        r = rng.random()
        if r < 0.75:
            out.append(rng.choice(TOKENS))
        elif r < 0.995:
            out.append(chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0x80, 0xD7FF), rng.randint(0xE000, 0x10FFFF)])))
        else:
            out.append(chr(rng.randint(0xD800, 0xDFFF)))
    return "".join(out)


def valid_message(rng: random.Random) -> str:
    """Several valid pieces joined by prose, blanks or line breaks."""
    parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 5))]
    return "".join(p + rng.choice(SEPARATORS) for p in parts)


def mutated_message(rng: random.Random) -> str:
    """A valid message with a few random edits: deletions, insertions of tokens, duplicated or moved slices."""
    text = valid_message(rng)
    for _ in range(rng.randint(1, 4)):
        if not text:
            break
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randint(0, 12))
        op = rng.randrange(5)
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif op == 2:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 3:
            k = rng.randrange(len(text) + 1)
            piece, rest = text[i:j], text[:i] + text[j:]
            k = min(k, len(rest))
            text = rest[:k] + piece + rest[k:]
        else:
            text = text[:i] + text[j:][::-1] if rng.random() < 0.3 else text[:i] + text[i:j].upper() + text[j:]
    return text
