"""The harvest bench (issue 17), run by `cargo xtask bench` and on its own.

Usage: python bench/python/harvest_bench.py [--sizes MB,MB,...] [--repeat N] [--dir DIR] [--json]

For each size, writes a JSON Lines log of that many megabytes (short messages
from ``tests/python/harvest_logs.py``; the first size is generated, larger
ones repeat it), and measures, each in a fresh child process:

- ``harvest``: ``agent_sentences.harvest.harvest([log], out)`` on one machine,
  wall time and peak RSS (``VmHWM``);
- ``scan_many`` (first size only): the same texts, read beforehand, scanned
  with ``scan_many`` in batches of the harvest's batch size (so that its
  objects fit in memory), the scan time only.

The acceptance: harvest throughput at least 0.7× ``scan_many``'s on the same
texts, and peak memory flat from the smallest size to the largest. Prints a
Markdown table (or JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _peak_rss_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def child_harvest(log: str, out: str) -> dict[str, Any]:
    from agent_sentences import harvest

    # Imports are paid once per process, not per byte: outside the timing.
    harvest.schema()
    harvest._parquet()
    t = time.perf_counter()
    summary = harvest.harvest([log], out)
    secs = time.perf_counter() - t
    f = summary.files[0]
    return {"seconds": secs, "messages": f.messages, "rows": f.rows, "ok": summary.ok, "peak_rss": _peak_rss_bytes()}


def child_scan_many(log: str) -> dict[str, Any]:
    from agent_sentences import harvest, scan_many

    batches: list[list[str]] = []
    with open(log, "rb") as f:
        while True:
            lines = f.readlines(harvest.BATCH_BYTES)
            if not lines:
                break
            batches.append([json.loads(line)["text"] for line in lines])
    items = 0
    t = time.perf_counter()
    for batch in batches:
        items += sum(len(found) for found in scan_many(batch))
    secs = time.perf_counter() - t
    return {"seconds": secs, "messages": sum(len(b) for b in batches), "items": items}


def _child(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{out.stderr}")
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def make_logs(directory: str, sizes_mb: list[int]) -> list[tuple[int, str, int]]:
    """``(MB, path, bytes)`` per size: the first written, the others repeating it."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
    from harvest_logs import write_log

    os.makedirs(directory, exist_ok=True)
    base_mb = sizes_mb[0]
    base = os.path.join(directory, f"log-{base_mb}mb.jsonl")
    if not os.path.exists(base):
        # About 95 bytes a message.
        write_log(base, base_mb * 1_000_000 // 95)
    logs = []
    for mb in sizes_mb:
        path = os.path.join(directory, f"log-{mb}mb.jsonl")
        if not os.path.exists(path):
            copies = max(1, round(mb / base_mb))
            with open(path + ".tmp", "wb") as out:
                for _ in range(copies):
                    with open(base, "rb") as src:
                        shutil.copyfileobj(src, out, 16 << 20)
            os.replace(path + ".tmp", path)
        logs.append((mb, path, os.path.getsize(path)))
    return logs


def _harvest(directory: str, mb: int, path: str) -> dict[str, Any]:
    out = os.path.join(directory, f"out-{mb}mb.parquet")
    if os.path.exists(out):
        os.remove(out)
    h = _child("harvest", path, out)
    os.remove(out)
    return h


def run(sizes_mb: list[int], directory: str, repeat: int) -> dict[str, Any]:
    logs = make_logs(directory, sizes_mb)
    results: dict[str, Any] = {"cores": os.cpu_count(), "repeat": repeat, "sizes": []}
    for i, (mb, path, size) in enumerate(logs):
        row: dict[str, Any] = {"mb": mb, "bytes": size}
        if i == 0:
            # Alternated, best of `repeat` each: the machine is shared.
            hs, ms = [], []
            for _ in range(repeat):
                hs.append(_harvest(directory, mb, path))
                ms.append(_child("scan_many", path))
            row["harvest"] = min(hs, key=lambda h: h["seconds"]) | {"peak_rss": max(h["peak_rss"] for h in hs)}
            row["scan_many"] = min(ms, key=lambda m: m["seconds"])
        else:
            row["harvest"] = _harvest(directory, mb, path)
        results["sizes"].append(row)
    first = results["sizes"][0]
    results["throughput_ratio"] = first["scan_many"]["seconds"] / first["harvest"]["seconds"]
    peaks = [s["harvest"]["peak_rss"] for s in results["sizes"]]
    results["peak_growth"] = peaks[-1] / peaks[0]
    return results


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"Harvest on one machine ({r['cores']} cores): JSON Lines of short messages to Parquet "
        f"(smallest input: best of {r['repeat']} alternated runs)\n",
        "| input | messages | rows | harvest s | harvest MB/s | `scan_many` s (same texts) | peak RSS |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in r["sizes"]:
        h = s["harvest"]
        many = f"{s['scan_many']['seconds']:.2f}" if "scan_many" in s else "–"
        lines.append(
            f"| {s['bytes'] / 1e6:.0f} MB | {h['messages']} | {h['rows']} | {h['seconds']:.2f} | "
            f"{s['bytes'] / 1e6 / h['seconds']:.1f} | {many} | {h['peak_rss'] / 1e6:.0f} MB |"
        )
    lines.append(
        f"\nHarvest throughput ÷ `scan_many`'s: {r['throughput_ratio']:.2f} (wanted ≥ 0.7); "
        f"peak RSS, largest ÷ smallest input: {r['peak_growth']:.2f} (flat ≈ 1)"
    )
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        what, *rest = sys.argv[2:]
        print(json.dumps(child_harvest(*rest) if what == "harvest" else child_scan_many(*rest)))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="100,1000", help="input sizes in MB, comma-separated, smallest first")
    p.add_argument("--dir", default=os.path.join(ROOT, "target", "bench", "harvest"))
    p.add_argument("--repeat", type=int, default=3, help="runs of the smallest size, best taken")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    r = run([int(x) for x in a.sizes.split(",")], a.dir, a.repeat)
    print(json.dumps(r, indent=2) if a.json else markdown(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
