"""The decoding grammar's bench (issues 26, 36): how long llguidance takes to
compile each generated grammar, and to check every sentence and call that
the scanner finds in the bench's realistic corpus; and, for each engine the
grammar tests drive (llguidance, xgrammar, llama.cpp's grammar engine;
``tests/python/grammar_engines.py``), the compile time of each file it reads
and the time of one token's mask along a text of the corpus.

Usage: python grammar_bench.py CORPUS.json

Prints a Markdown section. The checker is the grammar tests' own
(``tests/python/grammar_support.py``: a byte-level tokenizer, 256 single-byte
tokens and an end token), so the bench measures what the tests run. Each
found item is checked in the form the grammar describes: a sentence as its
renderer writes it, a call as ``[ENGINE op {json}]`` with canonical JSON.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "python"))

import agent_sentences  # noqa: E402
from agent_sentences import ops  # noqa: E402
from grammar_engines import LlamaCpp, Llguidance, Xgrammar  # noqa: E402
from grammar_support import Checker, canonical_json, lark_text, left_out, with_id  # noqa: E402
from timing import best_of  # noqa: E402  (beside this file)

GRAMMARS = ["sentences.lark", "reply.lark", "sentences.gbnf", "reply.gbnf"]
# Compiles timed per grammar, the best kept.
ROUNDS = 5


def grammar_text(name: str) -> str:
    """The Lark text llguidance compiles for ``name``; a reply grammar with
    the envelope example's id filled in (what ``reply_grammar`` does)."""
    text = lark_text(name)
    if name.startswith("reply"):
        envelope = json.loads((ROOT / "schema" / "envelope.json").read_text(encoding="utf-8"))
        text = with_id(text, envelope["example"]["id"])
    return text


def canonical_items(messages: list[str]) -> tuple[list[str], int, int]:
    """(every found sentence and resolvable call in its canonical form, how
    many sentences, how many calls). Structures the grammar leaves out and
    calls that ``ops.resolve`` refuses are not counted: the grammar is meant
    to refuse those."""
    skip = left_out(lark_text("sentences.lark"))
    out: list[str] = []
    sentences = calls = 0
    for text in messages:
        for found in agent_sentences.scan(text):
            item = found.item
            if isinstance(item, agent_sentences.ToolDirective):
                try:
                    ops.resolve(item)
                except ops.ResolveError:
                    continue
                out.append(f"[{item.engine} {item.op} {canonical_json(item.args)}]")
                calls += 1
            elif item.KIND.key not in skip:
                out.append(item.render())
                sentences += 1
    return out, sentences, calls


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        messages: list[str] = json.load(f)["realistic"]
    print("Decoding grammar (llguidance, byte-level tokenizer; `bench/python/grammar_bench.py`)\n")
    print("| grammar | bytes | compile ms (best of 5) |")
    print("| --- | ---: | ---: |")
    for name in GRAMMARS:
        text = grammar_text(name)
        secs = best_of(lambda: Checker(text), ROUNDS)
        print(f"| `{name}` | {len((ROOT / 'generated' / 'grammar' / name).read_bytes())} | {secs * 1e3:.1f} |")
    checker = Checker(grammar_text("sentences.lark"))
    items, sentences, calls = canonical_items(messages)
    size = sum(len(i.encode("utf-8")) for i in items)
    accepted = 0

    def check_all() -> None:
        nonlocal accepted
        accepted = sum(checker.accepts(i) for i in items)

    secs = best_of(check_all, 3)
    print(
        f"\nChecking the corpus's found items against `sentences.lark` ({len(messages)} messages: "
        f"{sentences} sentences and {calls} calls, {size / 1e3:.1f} kB): {secs * 1e3:.1f} ms (best of 3), "
        f"{secs / max(len(items), 1) * 1e6:.1f} µs an item, {size / secs / 1e6:.2f} MB/s; "
        f"accepted {accepted} of {len(items)}"
    )
    engine_rows(items)


def engine_rows(items: list[str]) -> None:
    """Per engine and file: compile time (best of ``ROUNDS``) and the mean
    time of one mask (the engine's allowed tokens, then the byte taken;
    through the tests' Python wrappers) along 40 of the corpus's items (a
    reply grammar: along a reply of nine lines)."""
    print("\nEngines (byte vocabulary of 257 tokens; `tests/python/grammar_engines.py`)\n")
    print("| engine | grammar | compile ms (best of 5) | mask µs a token (mean) |")
    print("| --- | --- | ---: | ---: |")
    reply = "Checked the task.\n" * 8 + "[RESULT 7fce46e0] OK Audit complete."
    for make in (Llguidance, Xgrammar, LlamaCpp):
        try:
            engine = make()
        except (ImportError, RuntimeError) as e:
            print(f"| {make.__name__} | (not available: {str(e)[:80]}) | | |")
            continue
        for name in GRAMMARS:
            dialect = name.split(".")[1]
            if engine.name == "llama.cpp" and dialect != "gbnf":
                continue
            source = (ROOT / "generated" / "grammar" / name).read_text(encoding="utf-8")
            secs = best_of(lambda: engine.compile(source, dialect), ROUNDS)
            compiled = engine.compile(source, dialect)
            masks = 0
            start = time.perf_counter()
            for item in items[:40] if name.startswith("sentences") else [reply]:
                m = engine.fresh(compiled)
                for b in item.encode("utf-8"):
                    if not m.allowed() >> b & 1:
                        break
                    m.consume(b)
                    masks += 1
                m.allowed()
                masks += 1
            per = (time.perf_counter() - start) / max(masks, 1)
            print(f"| {engine.name} | `{name}` | {secs * 1e3:.1f} | {per * 1e6:.0f} |")


if __name__ == "__main__":
    main()
