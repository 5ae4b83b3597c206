"""Timing shared by the Python scripts of `cargo xtask bench` (run as files,
so each finds this module beside it)."""

from __future__ import annotations

import time
from typing import Any, Callable


def best_of(fn: Callable[[], Any], rounds: int) -> float:
    """The shortest of ``rounds`` timed calls of ``fn``, in seconds (wall
    clock, ``time.perf_counter``)."""
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
