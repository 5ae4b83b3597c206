"""The generated grammars in every engine that serves models (issue 36,
P304): llguidance, xgrammar (vLLM's and SGLang's default backend) and
llama.cpp's reading of GBNF (``grammar_engines``). For each engine and file:
it compiles, accepts and rejects the shared corpus of ``test_grammar`` exactly,
every ``reply_grammar`` form compiles, the schema's largest integer passes,
and a random "model" sampling byte by byte under the engine's mask writes only
valid UTF-8 that ``scan`` finds whole."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import agent_sentences
from agent_sentences import grammar as grammar_api
from grammar_engines import Engine, LlamaCpp, Llguidance, Xgrammar, accepts, llama_gbnf_to_lark, sample
from test_grammar import OPS, VERDICT_ID, check_reply_sample, found_whole, op_calls, scan_cases, sentence_cases, spec_examples

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR_DIR = ROOT / "generated" / "grammar"


@cache
def _engine(name: str) -> Engine | str:
    """The engine, or why llama.cpp's could not be built (tried once)."""
    if name == "llama.cpp":
        try:
            return LlamaCpp()
        except RuntimeError as e:
            return f"llama.cpp's grammar engine could not be built: {e}"
    return {"llguidance": Llguidance, "xgrammar": Xgrammar}[name]()


def engine(name: str) -> Engine:
    e = _engine(name)
    if isinstance(e, str):
        pytest.skip(e)
    return e


# (engine, file) pairs: llama.cpp reads GBNF only.
CASES = [(e, f) for e in ("llguidance", "xgrammar") for f in ("sentences.lark", "reply.lark", "sentences.gbnf", "reply.gbnf")]
CASES += [("llama.cpp", f) for f in ("sentences.gbnf", "reply.gbnf")]


def text_of(name: str, id_: str | None = None) -> str:
    """A grammar file; the reply grammar filled for ``id_`` by ``reply_grammar``."""
    if name.startswith("reply") and id_ is not None:
        return grammar_api.reply_grammar(id_, dialect=name.split(".")[1])  # type: ignore[arg-type]
    return (GRAMMAR_DIR / name).read_text(encoding="utf-8")


@cache
def compiled(engine_name: str, name: str, id_: str | None = None) -> Any:
    return engine(engine_name).compile(text_of(name, id_), name.split(".")[1])


def sentence_corpus() -> tuple[list[str], list[str]]:
    good, bad = sentence_cases()
    _, refused = scan_cases()
    bad = bad + [t for t in refused if t.startswith(("[TOOL", "[EXEC", "[DM", "```"))]
    good = spec_examples() + good + op_calls()
    return good + IN_M_GOOD, bad + IN_M_BAD + ["[RESULT 7fce46e0] OK done [", "[RESULT 7fce46e0] OK done `x`"]


def reply_corpus() -> tuple[list[str], list[str]]:
    good, refused = scan_cases()
    verdict = f"[RESULT {VERDICT_ID}] OK done"
    ok = [t for t, i in good if i == VERDICT_ID] + [c + "\n" + verdict for c in IN_M_GOOD]
    bad = [c + "\n" + verdict for c in refused + IN_M_BAD] + ["Done.", verdict + "\n", f"[RESULT other] OK done"]
    return ok, bad


# The op schema's integer bounds (P300): `in_m` from 1 to i64's largest;
# JSON the renderers never write is refused (P206).
_MAX = 9223372036854775807
IN_M_GOOD = [f'[TOOL followup.create {{"in_m": {n}}}]' for n in (1, 999999999999999999, 1000000000000000000, _MAX - 1, _MAX)]
IN_M_GOOD += ['[TOOL followup.create {"in_m": 5, "prompt": "say \\"hi\\" now"}]']
IN_M_BAD = [f'[TOOL followup.create {{"in_m": {n}}}]' for n in ("0", "-1", "01", str(_MAX + 1), "10000000000000000000", "1.5")]
IN_M_BAD += [
    '[TOOL followup.create {"in_m":5}]',
    '[TOOL followup.create { "in_m": 5 }]',
    '[TOOL followup.create {"in_m": 5,\n "prompt": "x"}]',
    '[TOOL followup.create {"in_m": 5, "prompt": ""}]',
    '[TOOL tools.list { }]',
]


def test_the_largest_integer_is_the_schema_s() -> None:
    """The op's `in_m` reaches i64's largest value and no further."""
    assert OPS["followup.create"]["args"]["properties"]["in_m"].get("maximum", _MAX) == _MAX
    assert [found_whole(t) for t in IN_M_GOOD] == [None] * len(IN_M_GOOD)


@pytest.mark.parametrize(("engine_name", "name"), CASES)
def test_engine_accepts_and_rejects_the_corpus(engine_name: str, name: str) -> None:
    e = engine(engine_name)
    if name.startswith("sentences"):
        c = compiled(engine_name, name)
        good, bad = sentence_corpus()
    else:
        c = compiled(engine_name, name, VERDICT_ID)
        good, bad = reply_corpus()
    assert len(good) > 20 and len(bad) > 20
    assert [t for t in good if not accepts(e, c, t)] == []
    assert [t for t in bad if accepts(e, c, t)] == []


@pytest.mark.parametrize("engine_name", ["llguidance", "xgrammar", "llama.cpp"])
def test_engine_compiles_every_reply_grammar_form(engine_name: str) -> None:
    e = engine(engine_name)
    dialects = ["gbnf"] if engine_name == "llama.cpp" else ["lark", "gbnf"]
    verdict = f"[RESULT {VERDICT_ID}] OK done"
    call = IN_M_GOOD[-1]
    for dialect in dialects:
        for ops in (None, [], ["tools.list"], ["followup.create"], list(grammar_api.OFFERED_OPS)):
            c = e.compile(grammar_api.reply_grammar(VERDICT_ID, ops=ops, dialect=dialect), dialect)  # type: ignore[arg-type]
            assert accepts(e, c, "Checked.\n" + verdict)
            offered = ops is None or "followup.create" in ops
            assert accepts(e, c, call + "\n" + verdict) == offered, (dialect, ops)


# Samples per (engine, file): modest, CI time is tight.
SAMPLES = {"sentences": 120, "reply": 60}


@pytest.mark.parametrize(("engine_name", "name"), CASES)
def test_engine_samples_are_valid_utf8_found_whole_by_scan(engine_name: str, name: str) -> None:
    e = engine(engine_name)
    kind = name.split(".")[0]
    c = compiled(engine_name, name, VERDICT_ID if kind == "reply" else None)
    rng = random.Random(36)
    steer = f"\n[RESULT {VERDICT_ID}] OK done".encode()
    counts: Counter[str] = Counter()
    failures = []
    invalid: list[bytes] = []
    for _ in range(SAMPLES[kind]):
        raw = sample(e, c, rng, steer=steer if kind == "reply" else b"")
        if raw is None:
            counts["unfinished"] += 1
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            invalid.append(raw)
            continue
        counts["finished"] += 1
        why = found_whole(text) if kind == "sentences" else check_reply_sample(text, VERDICT_ID)
        if why:
            failures.append((text, why))
    assert failures[:3] == []
    assert counts["unfinished"] <= SAMPLES[kind] * 0.15, counts
    # Positive classes only, never across the surrogates (P302): llguidance
    # and xgrammar let the model write valid UTF-8 only. llama.cpp's matcher
    # still lets through overlong forms and a character cut by the end (its
    # partial UTF-8 check), which no grammar can prevent: the caller's UTF-8
    # check (docs/guide/grammar.md) drops them, and they are all it lets through.
    if engine_name == "llama.cpp":
        assert all(overlong_or_cut(t) for t in invalid), invalid[:3]
    else:
        assert invalid == []


def overlong_or_cut(raw: bytes) -> bool:
    """True when the only faults of ``raw`` as UTF-8 are overlong forms
    (``C0``/``C1``, ``E0`` then below ``A0``, ``F0`` then below ``90``) and a
    character cut short at the end."""
    i = 0
    while i < len(raw):
        try:
            raw[i:].decode("utf-8")
            return True
        except UnicodeDecodeError as e:
            at = i + e.start
            lead, nxt = raw[at], raw[at + 1 : at + 2]
            if e.reason == "unexpected end of data":
                return True
            if lead in (0xC0, 0xC1) or (lead == 0xE0 and nxt and nxt[0] < 0xA0) or (lead == 0xF0 and nxt and nxt[0] < 0x90):
                i = at + {0xC0: 2, 0xC1: 2, 0xE0: 3, 0xF0: 4}[lead]
                continue
            return False
    return True


def test_gbnf_files_parse_as_llama_cpp_reads_them() -> None:
    """A port of llama.cpp's GBNF parser (escapes, classes, repetitions)
    reads both files and the language it reads is the one llguidance reads
    from the Lark file: the corpus, without a build of llama.cpp."""
    lark = Llguidance()
    for name in ("sentences", "reply"):
        text = text_of(f"{name}.gbnf", VERDICT_ID if name == "reply" else None)
        c = lark.compile(llama_gbnf_to_lark(text), "lark")
        good, bad = sentence_corpus() if name == "sentences" else reply_corpus()
        assert [t for t in good if not accepts(lark, c, t)] == []
        assert [t for t in bad if accepts(lark, c, t)] == []
