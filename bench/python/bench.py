"""The Python side of `cargo xtask bench`.

Usage: python bench.py CORPUS.json SPEC_DIR PACKAGE_DIR TIMEOUT_SECONDS

Times, on the corpus that `cargo xtask bench` wrote, the generated package's
scanner and the seed approach (seed_reference.py), and prints one JSON
document. Each hostile case runs in a child process killed after the timeout,
so a quadratic case cannot hang the run.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))


def _implementations(spec_dir: str, package_dir: str) -> dict[str, Callable[[str], int]]:
    sys.path.insert(0, package_dir)
    sys.path.insert(0, HERE)
    import agent_sentences  # noqa: E402  (the generated package)
    import seed_reference  # noqa: E402

    seed = seed_reference.load_seed_patterns(os.path.join(spec_dir, "regex_patterns.json"))
    return {
        "generated": lambda text: len(agent_sentences.scan(text)),
        "seed": lambda text: len(seed_reference.scan(seed, text)),
    }


def _best_of(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _run_case(args: tuple[str, str, str, str], queue: "mp.Queue[float]") -> None:
    """Best of five runs, each one's time sent as it ends, so that a case whose
    repeats run past the timeout still reports the runs that finished."""
    spec_dir, package_dir, impl, text = args
    fn = _implementations(spec_dir, package_dir)[impl]
    for _ in range(5):
        t = time.perf_counter()
        fn(text)
        queue.put(time.perf_counter() - t)


def _timed_case(spec_dir: str, package_dir: str, impl: str, text: str, timeout: float) -> float | None:
    """The best time of the runs that finished within ``timeout`` seconds (None: none did)."""
    queue: "mp.Queue[float]" = mp.Queue()
    p = mp.Process(target=_run_case, args=((spec_dir, package_dir, impl, text), queue))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        p.join()
    times = []
    while True:
        try:
            times.append(queue.get(timeout=0.1))
        except Exception:  # queue.Empty
            break
    return min(times) if times else None


def main() -> None:
    corpus_path, spec_dir, package_dir, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    with open(corpus_path, encoding="utf-8") as f:
        corpus = json.load(f)
    impls = _implementations(spec_dir, package_dir)
    messages: list[str] = corpus["realistic"]
    realistic_bytes = sum(len(m.encode("utf-8")) for m in messages)
    out: dict[str, Any] = {"python": sys.version.split()[0], "realistic_messages": len(messages), "realistic_bytes": realistic_bytes}
    for name, fn in impls.items():
        secs = _best_of(lambda: [fn(m) for m in messages], 3)
        prose = corpus["prose"]
        prose_secs = _best_of(lambda: fn(prose), 3)
        out[name] = {"realistic_seconds": secs, "prose_seconds": prose_secs, "prose_bytes": len(prose.encode("utf-8"))}
    hostile = []
    # One throwaway child run first: the first child process of a run measured up to
    # twice as slow as the same case run again.
    for name in impls:
        _timed_case(spec_dir, package_dir, name, corpus["hostile"][0]["text"], timeout)
    for case in corpus["hostile"]:
        row = {"kind": case["kind"], "size": case["size"]}
        for name in impls:
            row[name] = _timed_case(spec_dir, package_dir, name, case["text"], timeout)
        hostile.append(row)
    out["hostile"] = hostile
    print(json.dumps(out))


if __name__ == "__main__":
    main()
