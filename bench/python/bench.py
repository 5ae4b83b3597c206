"""The Python side of `cargo xtask bench`.

Usage: python bench.py CORPUS.json SPEC_DIR BASELINE_DIR TIMEOUT_SECONDS
       python bench.py --memory CASE MIB

Times, on the corpus that `cargo xtask bench` wrote, the installed package's
scanner (the Rust scanner through the native module: ``scan`` in a loop and
``scan_many``), the pure-Python scanner it replaced (the package as generated
before, which `cargo xtask bench` extracts from git into BASELINE_DIR as
``agent_sentences_pure``) and the seed approach (seed_reference.py), and prints
one JSON document. Each hostile case runs in a child process killed after the
timeout, so a quadratic case cannot hang the run. ``--memory`` scans one text
of MIB mebibytes in this process and prints its peak memory (RSS) above what
the process held before the scan.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import subprocess
import sys
import time
from typing import Any, Callable

from timing import interleaved, quantile, spread  # beside this file: a script's directory is on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))


def _implementations(spec_dir: str, baseline_dir: str) -> dict[str, Callable[[str], int]]:
    sys.path.insert(0, HERE)
    import agent_sentences  # noqa: E402  (the installed package)
    import seed_reference  # noqa: E402

    seed = seed_reference.load_seed_patterns(os.path.join(spec_dir, "regex_patterns.json"))
    impls: dict[str, Callable[[str], int]] = {
        "generated": lambda text: len(agent_sentences.scan(text)),
        "seed": lambda text: len(seed_reference.scan(seed, text)),
    }
    if baseline_dir and os.path.isdir(os.path.join(baseline_dir, "agent_sentences_pure")):
        sys.path.insert(0, baseline_dir)
        import agent_sentences_pure  # noqa: E402  (the pure-Python scanner, as generated before)

        impls["pure"] = lambda text: len(agent_sentences_pure.scan(text))
    return impls


MEMORY_CASES: dict[str, Callable[[int], str]] = {
    # One result whose summary is the whole text.
    "long-summary": lambda n: "[RESULT a1] OK " + "word " * ((n - 15) // 5),
    # One nudge whose deadline is the whole text.
    "long-nudge": lambda n: "[NUDGE a] [nudge 1/3] Deadline " + "a " * ((n - 31) // 2),
    # Calls back to back, each with a 1 KiB argument.
    "dense-calls": lambda n: ('[TOOL box.exec {"cmd": "' + "x" * 1000 + '"}]\n') * (n // 1029),
    # Small calls back to back: the result itself (about 0.5 KB of objects per
    # 21-byte call) outweighs the text.
    "dense-small-calls": lambda n: '[TOOL a.b {"k": 1}]\n' * (n // 20),
}


def _status_kib(key: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {key} in /proc/self/status")


def _rss_kib() -> int:
    return _status_kib("VmRSS")


def memory(case: str, mib: int) -> dict[str, Any]:
    """Peak RSS above the RSS before the scan, and what the result keeps, in bytes."""
    import agent_sentences

    text = MEMORY_CASES[case](mib << 20)
    agent_sentences.scan("warm up [CLAIM 1]")
    before = _rss_kib()
    t = time.thread_time()
    found = agent_sentences.scan(text)
    secs = time.thread_time() - t
    # The process's peak so far (VmHWM: the high-water mark of this process's
    # own memory; ru_maxrss would count the parent's RSS at fork): the scan's,
    # or (when building the text peaked higher) an upper bound of it.
    peak = _status_kib("VmHWM")
    kept = _rss_kib() - before
    return {
        "case": case,
        "input_bytes": len(text),
        "found": len(found),
        "seconds": secs,
        "peak_above_before": (peak - before) * 1024,
        "kept": kept * 1024,
    }


REALISTIC_ROUNDS = 25
"""How many rounds of every implementation on the realistic corpus the bench
times. A round takes about 0.13 s; the machine's second core is sometimes
slowed by its host for a second or more, so the rounds are spread over about
3 s, and each ratio is taken within a round (see `timing.interleaved`)."""


def _run_case(args: tuple[str, str, str, str], queue: "mp.Queue[float]") -> None:
    """Best of five runs, by the thread's CPU time, each one's time sent as it
    ends, so that a case whose repeats run past the timeout still reports the
    runs that finished."""
    spec_dir, baseline_dir, impl, text = args
    fn = _implementations(spec_dir, baseline_dir)[impl]
    for _ in range(5):
        t = time.thread_time()
        fn(text)
        queue.put(time.thread_time() - t)


def _timed_case(spec_dir: str, baseline_dir: str, impl: str, text: str, timeout: float) -> float | None:
    """The best time of the runs that finished within ``timeout`` seconds (None: none did)."""
    queue: "mp.Queue[float]" = mp.Queue()
    p = mp.Process(target=_run_case, args=((spec_dir, baseline_dir, impl, text), queue))
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
    if sys.argv[1] == "--memory":
        print(json.dumps(memory(sys.argv[2], int(sys.argv[3]))))
        return
    corpus_path, spec_dir, baseline_dir, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    with open(corpus_path, encoding="utf-8") as f:
        corpus = json.load(f)
    impls = _implementations(spec_dir, baseline_dir)
    messages: list[str] = corpus["realistic"]
    realistic_bytes = sum(len(m.encode("utf-8")) for m in messages)
    out: dict[str, Any] = {"python": sys.version.split()[0], "realistic_messages": len(messages), "realistic_bytes": realistic_bytes}
    import agent_sentences

    # Every implementation on the corpus, round by round, the order rotated
    # each round, each row timed by the thread's CPU time from the call to
    # the freeing of what it returned (`timing.interleaved`), and each ratio
    # taken within a round: on a shared machine, load that comes and goes
    # then touches both sides of a ratio alike. The implementations' loops
    # drop each result as they go (`fn` returns a count). `scan_many` is the
    # batch call on every core: it works on other threads, so it is compared
    # by wall time with `loop`, `[scan(t) for t in texts]` with its whole
    # result kept (the like-for-like call: `scan_many` keeps its list too,
    # and frees it on the interpreter's thread alone).
    rows: dict[str, Callable[[], Any]] = {}
    for name, fn in impls.items():
        rows[name] = lambda fn=fn: [fn(m) for m in messages]
        if name == "generated":
            rows["scan_many"] = lambda: agent_sentences.scan_many(messages)
            rows["loop"] = lambda: [agent_sentences.scan(m) for m in messages]
    times = interleaved(rows, REALISTIC_ROUNDS, wall=frozenset({"scan_many"}))

    def cpu(name: str) -> list[float]:
        return [t["call"] + t["free"] for t in times[name]]

    def wall(name: str) -> list[float]:
        return [t["wall_call"] + t["wall_free"] for t in times[name]]

    def per_round(num: list[float], den: list[float]) -> dict[str, float]:
        return spread([a / b for a, b in zip(num, den)])

    prose = corpus["prose"]
    prose_times = interleaved({name: (lambda fn=fn: fn(prose)) for name, fn in impls.items()}, 5)
    for name in impls:
        out[name] = {
            "realistic_seconds": quantile(cpu(name), 0.5),
            "prose_seconds": quantile([t["call"] + t["free"] for t in prose_times[name]], 0.5),
            "prose_bytes": len(prose.encode("utf-8")),
        }
    out["scan_many"] = {"realistic_seconds": quantile(wall("scan_many"), 0.5), "cores": os.cpu_count(), "rounds": REALISTIC_ROUNDS}
    out["ratios"] = {
        "scan_vs_seed": per_round(cpu("seed"), cpu("generated")),
        "scan_many_vs_loop": per_round(wall("loop"), wall("scan_many")),
    }
    if "pure" in impls:
        out["ratios"]["scan_vs_pure"] = per_round(cpu("pure"), cpu("generated"))
    out["kept"] = {
        name: {
            "call_seconds": quantile([t["wall_call"] for t in times[name]], 0.5),
            "free_seconds": quantile([t["wall_free"] for t in times[name]], 0.5),
        }
        for name in ("loop", "scan_many")
    }
    out["memory"] = []
    for case in MEMORY_CASES:
        child = subprocess.run([sys.executable, __file__, "--memory", case, "16"], capture_output=True, text=True, check=True)
        out["memory"].append(json.loads(child.stdout))
    hostile = []
    # One throwaway child run first: the first child process of a run measured up to
    # twice as slow as the same case run again.
    # The pure-Python scanner's hostile times are in the earlier runs under bench/runs/.
    hostile_impls = [name for name in impls if name != "pure"]
    for name in hostile_impls:
        _timed_case(spec_dir, baseline_dir, name, corpus["hostile"][0]["text"], timeout)
    for case in corpus["hostile"]:
        row = {"kind": case["kind"], "size": case["size"]}
        for name in hostile_impls:
            row[name] = _timed_case(spec_dir, baseline_dir, name, case["text"], timeout)
        hostile.append(row)
    out["hostile"] = hostile
    print(json.dumps(out))


if __name__ == "__main__":
    main()
