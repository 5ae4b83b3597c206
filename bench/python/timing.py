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


def interleaved(
    rows: dict[str, Callable[[], Any]], rounds: int, wall: frozenset[str] = frozenset()
) -> dict[str, list[dict[str, float]]]:
    """Each row timed once a round for ``rounds`` rounds, the rows' order
    rotated by one each round (so that load which comes and goes touches
    every row alike), in seconds: per row and round, ``call`` (from the call
    to its return) and ``free`` (dropping what it returned).

    A row is timed by the calling thread's CPU time (``time.thread_time``):
    what other processes on a shared machine do is not counted. The rows
    named in ``wall`` work on other threads too (``scan_many``), so they and
    every row are also timed by the wall clock: ``wall_call`` and
    ``wall_free``."""
    names = list(rows)
    times: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    for r in range(rounds):
        for k in range(len(names)):
            name = names[(k + r) % len(names)]
            c0, w0 = time.thread_time(), time.perf_counter()
            result = rows[name]()
            c1, w1 = time.thread_time(), time.perf_counter()
            del result
            c2, w2 = time.thread_time(), time.perf_counter()
            times[name].append({"call": c1 - c0, "free": c2 - c1, "wall_call": w1 - w0, "wall_free": w2 - w1})
    return times


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    v = sorted(values)
    return v[round((len(v) - 1) * q)]


def spread(values: list[float]) -> dict[str, float]:
    """The median, p10 and p90 of ``values``."""
    return {"median": quantile(values, 0.5), "p10": quantile(values, 0.1), "p90": quantile(values, 0.9)}
