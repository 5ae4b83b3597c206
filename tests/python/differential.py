"""Compares the Python scanner with the Rust scanner on many generated texts.

Not part of ``cargo xtask test`` (it needs the Rust example built); run by
hand for a longer check than the shared vectors::

    cargo build -p downstream-example --example scan_vectors
    python tests/python/differential.py [--cases N] [--seed S]

Texts come from ``scan_props.py`` (random strings over a pool of the
scanner's own tokens, and mutations of valid messages). Each is scanned by
``target/debug/examples/scan_vectors --stdin`` and by the generated package;
the JSON must be equal, skip messages included except where the Rust side
marks them as the JSON reader's wording (``null``, P25). Exit status 1 on any
difference, printing the first few.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "generated" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import agent_sentences as A  # noqa: E402
import scan_props  # noqa: E402
from vectors import canonical, scan_answer  # noqa: E402

RUST = ROOT / "target" / "debug" / "examples" / "scan_vectors"


def rust_answers(texts: list[str]) -> list[dict[str, Any]]:
    """The Rust scanner's answers, through the example binary."""
    out = subprocess.run([str(RUST), "--stdin"], input=json.dumps(texts), capture_output=True, text=True, check=True)
    answers: list[dict[str, Any]] = json.loads(out.stdout)
    return answers


def differences(texts: list[str]) -> list[str]:
    """Every text whose Python answer differs from Rust's, with both answers."""
    out = []
    for text, expected in zip(texts, rust_answers(texts)):
        got = scan_answer(A, text)
        for s_got, s_exp in zip(got["skipped"], expected["skipped"]):
            if s_exp["message"] is None:
                s_got["message"] = None
        if canonical(got) != canonical(expected):
            out.append(f"{text!r}\n  python: {canonical(got)}\n  rust:   {canonical(expected)}")
    return out


def main() -> int:
    """Runs the comparison; exit status 1 on a difference."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--cases", type=int, default=20000)
    args.add_argument("--seed", type=int, default=1)
    ns = args.parse_args()
    rng = random.Random(ns.seed)
    texts = [scan_props.random_text(rng) if k % 2 else scan_props.mutated_message(rng) for k in range(ns.cases)]
    # A lone surrogate has no UTF-8 form: Rust cannot receive it, Python rejects it (P22).
    texts = [t for t in texts if not any("\ud800" <= c <= "\udfff" for c in t)]
    diffs = differences(texts)
    for d in diffs[:10]:
        print(d)
    print(f"{len(texts) - len(diffs)} of {len(texts)} texts agree")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
