"""Rewrites ``commonmark_disagreements.json``: every call the scanner runs in the
CommonMark differential's texts where markdown-it-py shows no ordinary text,
with the reference's reading and a minimised text (P158).

Run from the repository root with the test venv, after a scanner change that
``test_commonmark.py`` reports, and review the diff by hand:
``.tools/venv/bin/python tests/python/record_commonmark_disagreements.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import agent_sentences as A  # noqa: E402
import commonmark_texts as C  # noqa: E402
import test_commonmark as T  # noqa: E402

DESCRIPTION = (
    "Calls the scanner runs (pulldown-cmark's reading) where markdown-it-py shows no ordinary text: "
    "the two CommonMark readers disagree on these texts. Empty since P166 and P167; a new entry needs a guard "
    "or a recorded reason. Each entry: the generated text's index (commonmark_texts.text(i)), the call's number, "
    "the call as written, the reference's reading, and the text minimised to what keeps the disagreement. Written by "
    "record_commonmark_disagreements.py, checked exactly by test_commonmark.py (P158)."
)


def main() -> None:
    texts = [C.text(i) for i in range(T.COUNT)]
    results = A.scan_many([g.text for g in texts])
    out: list[dict[str, Any]] = []
    for g, found in zip(texts, results):
        for n, written, why in T.failures_of(g, found, T.reference(g.text)):
            out.append({"text": g.index, "call": n, "written": written, "reference": why, "minimised": T.minimise(g, n)})
    doc = {"description": DESCRIPTION, "disagreements": out}
    T.KNOWN.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(out)} disagreements written to {T.KNOWN}")


if __name__ == "__main__":
    main()
