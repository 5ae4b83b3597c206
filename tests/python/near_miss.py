"""Adversarial near-misses of every pattern, built from the spec's own
examples, shared by the Python test and (by the same rules) the Rust test
`tests/downstream/tests/near_miss.rs`.

For every pattern and every group of it that some match example captures
(the first such example), the group's capture is repeated until the text
holds a mebibyte of it, and then one of ``SUFFIXES`` is appended: nothing,
a NUL, or a line break and the example again (for `result`: two results
whose first summary spans lines, issue 13). The expected reading is the
reading of the same construction with three copies, its captures scaled:
a pattern that is linear reads both the same way, fast. The small one
holds at least ``SMALL_BYTES`` of fill, past every bounded group of the
spec (the longest, a UUID, is 36 bytes), so both are past any bound.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SIZE = int(os.environ.get("AGENT_SENTENCES_NEAR_MISS_BYTES", 1 << 20))
"""Bytes of repeated capture in a big near-miss (at least): a mebibyte, or
``AGENT_SENTENCES_NEAR_MISS_BYTES`` (``cargo xtask test --quick`` sets 64 KiB)."""

SMALL_BYTES = 64
"""Bytes of repeated capture in the small near-miss the big one is read against (at least)."""


def suffixes(example: str) -> list[str]:
    """What follows the grown example: nothing, a NUL, the example again on a new line."""
    return ["", "\x00", "\n" + example]


@dataclass(frozen=True)
class NearMiss:
    """One near-miss construction."""

    pattern: str
    group: str
    example: str
    start: int
    end: int
    suffix: str

    def text(self, copies: int) -> str:
        fill = self.example[self.start : self.end] * copies
        return self.example[: self.start] + fill + self.example[self.end :] + self.suffix

    def fill(self, copies: int) -> str:
        return self.example[self.start : self.end] * copies

    def copies(self, size: int) -> int:
        """Copies of the capture that make at least `size` bytes (and at least three)."""
        one = len(self.example[self.start : self.end].encode("utf-8"))
        return max(3, -(-size // one))


def spec_patterns() -> dict[str, dict[str, object]]:
    with (ROOT / "schema" / "regex_patterns.json").open(encoding="utf-8") as f:
        patterns: dict[str, dict[str, object]] = json.load(f)["patterns"]
    return patterns


def scale(captures: dict[str, str] | None, small: str, big: str) -> dict[str, str] | None:
    """The captures of a small near-miss as the big one must read them."""
    if captures is None:
        return None
    return {k: v.replace(small, big) for k, v in captures.items()}
