"""The decoding grammar (``generated/grammar/``, issue 26) against the
generated parsers, through llguidance with a byte-level tokenizer: it accepts
every valid text the spec and the vectors hold, rejects every text the
parsers or ``ops.resolve`` refuse, and the two agree on samples from both
sides. No model, no GPU."""

from __future__ import annotations

import json
import random
import unicodedata
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import agent_sentences
import vectors
from agent_sentences import ops
from grammar_support import Checker, canonical_json, compile_warnings, lark_text, left_out, with_id

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "schema"
STRUCTURES = json.loads((SPEC / "structures.json").read_text(encoding="utf-8"))["structures"]
OPS = json.loads((SPEC / "ops.json").read_text(encoding="utf-8"))["ops"]
DIRECTIVES = json.loads((SPEC / "directives.json").read_text(encoding="utf-8"))
ENVELOPE = json.loads((SPEC / "envelope.json").read_text(encoding="utf-8"))
FILES = ["sentences.lark", "reply.lark", "sentences.gbnf", "reply.gbnf"]
VERDICT_ID = ENVELOPE["example"]["id"]


def reply_text(name: str, id_: str = VERDICT_ID) -> str:
    text = (ROOT / "generated" / "grammar" / name).read_text(encoding="utf-8")
    if name.endswith(".gbnf"):
        text = re.sub(r"(?m)^id ::= .*$", "id ::= " + json.dumps(id_), text)
        return lark_text_of_gbnf(text)
    return with_id(text, id_)


def lark_text_of_gbnf(text: str) -> str:
    from llguidance.gbnf_to_lark import gbnf_to_lark

    return gbnf_to_lark(text)


@cache
def checker(name: str, id_: str | None = None) -> Checker:
    return Checker(reply_text(name, id_) if id_ is not None else lark_text(name))


def sentences_of(name: str) -> Checker:
    return checker(name.replace("reply", "sentences"))


LEFT_OUT = left_out(lark_text("sentences.lark"))


def resolves(directive: Any) -> bool:
    try:
        ops.resolve(directive)
    except ops.ResolveError:
        return False
    return True


def fields_plain(sentence: Any) -> bool:
    """True when every text field of ``sentence`` is in the characters the
    grammar gives every field (P303)."""
    return all(plain(v) for v in sentence.to_dict().values() if isinstance(v, str))


def found_whole(text: str) -> str | None:
    """None when ``scan`` finds ``text`` whole (P303): one item, its span the
    whole text, a sentence with the value ``parse`` gives or a call that
    resolves with the arguments as written; else what differs."""
    found, skipped = agent_sentences.scan_with_diagnostics(text)
    if skipped or len(found) != 1 or (found[0].span.start, found[0].span.end) != (0, len(text.encode())):
        return f"scan {found} {skipped}"
    item = found[0].item
    if isinstance(item, agent_sentences.ToolDirective):
        if not resolves(item) or canonical_json(item.args) not in text:
            return f"not a resolvable canonical call: {item}"
        return None
    try:
        parsed = agent_sentences.parse(text)
    except agent_sentences.ParseError as e:
        return f"scan finds {item}, parse refuses: {e}"
    if parsed.to_dict() != item.to_dict() or parsed.render() != text:
        return f"scan {item.to_dict()} parse {parsed.to_dict()}"
    return None


def spec_examples() -> list[str]:
    """Each structure's example, the part that is a sentence, rendered."""
    out = []
    for key, s in STRUCTURES.items():
        if key in LEFT_OUT:
            continue
        found = [f for f in agent_sentences.scan(s["example"]) if f.span.start == 0]
        assert found, f"the example of {key} scans to nothing"
        text = s["example"].encode()[: found[0].span.end].decode()
        if fields_plain(agent_sentences.parse(text)):
            out.append(text)
    return out


def sentence_cases() -> tuple[list[str], list[str]]:
    """(canonical renderings the grammar must accept, texts it must reject)."""
    good, bad = [], []
    for _, case in vectors.load("sentences"):
        if case.get("structure") is None:
            # A case parsed as one structure only may be another's text.
            if not case.get("parse_as"):
                bad.append(case["input"])
            continue
        if case["structure"] in LEFT_OUT:
            continue
        rendered = case["rendered"]
        if not fields_plain(agent_sentences.parse(rendered)):
            # A field the scanner may not find whole (P303): never offered.
            bad.append(rendered)
            continue
        if case["structure"] == "tool_call":
            # A tool call is valid when it runs: one call that resolves.
            calls = [f.item for f in agent_sentences.scan(rendered) if isinstance(f.item, agent_sentences.ToolDirective)]
            (good if len(calls) == 1 and resolves(calls[0]) else bad).append(rendered)
            continue
        good.append(rendered)
    return good, bad


def op_calls() -> list[str]:
    """Every op example of the catalogue, in every form that may run it."""
    out = []
    for name, op in OPS.items():
        if "args" not in op or op.get("missing"):
            continue
        for ex in op["examples"]:
            args = canonical_json(ex)
            for engine in DIRECTIVES["bracket"]["engines"]:
                if engine in op["engines"]:
                    out.append(f"[{engine} {name} {args}]")
            for word, engine in DIRECTIVES["fences"]["info_strings"].items():
                if engine in op["engines"]:
                    out.append(f"```{word}\n{name} {args}\n```")
    return out


REPLY_LINE_STRUCTURES = {
    name.lower().removeprefix("line_") for name in re.findall(r"[A-Z_]+", re.search(r"(?m)^REPLY_SENTENCE: (.*)$", lark_text("reply.lark")).group(1))
}
# What a reply's free text never holds (P207): Markdown inline syntax,
# line breaks, and controls, format and other unseen characters.
FREE_TEXT_EXCLUDED = set("\r\n[]`<>&*_\\~!|")


def plain(text: str) -> bool:
    """True when ``text`` holds only characters a reply's free text may hold."""
    return "\ufffd" not in text and not (set(text) & FREE_TEXT_EXCLUDED) and all(
        unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp") and (c == " " or unicodedata.category(c) != "Zs") for c in text
    )


def scan_cases() -> tuple[list[tuple[str, str]], list[str]]:
    """(replies of found items, each with the id its verdict answers;
    found calls that ``resolve`` refuses and found sentences a reply may not
    hold (P207), as a reply line)."""
    good, bad = [], []
    for _, case in vectors.load("scan"):
        text = case["input"].encode()
        for f in case["found"]:
            item = text[f["span"]["start"] : f["span"]["end"]].decode()
            if f.get("kind") == "directive":
                found = agent_sentences.scan(item)
                if not found or not resolves(found[0].item):
                    bad.append(item)
                    continue
                canon = found[0].item
                item = f"[{canon.engine} {canon.op} {canonical_json(canon.args)}]"
                good.append((item + f"\n[RESULT {VERDICT_ID}] OK done", VERDICT_ID))
                continue
            sentence = agent_sentences.parse(item)
            item = sentence.render()
            if sentence.KIND.key in LEFT_OUT:
                continue
            if isinstance(sentence, agent_sentences.Result):
                # The verdict: a status and a one-line summary of free text.
                if sentence.status is not None and plain(sentence.summary):
                    good.append((item, sentence.job_id))
                else:
                    bad.append(item)
            elif sentence.KIND.key in REPLY_LINE_STRUCTURES and all(plain(v) for v in sentence.to_dict().values() if isinstance(v, str)):
                good.append((item + f"\n[RESULT {VERDICT_ID}] OK done", VERDICT_ID))
            else:
                bad.append(item)
    return good, bad


@pytest.mark.parametrize("name", FILES)
def test_grammar_compiles_without_warnings(name: str) -> None:
    assert compile_warnings(lark_text(name)) == (False, [])


@pytest.mark.parametrize("name", ["sentences.lark", "sentences.gbnf"])
def test_sentence_grammar_accepts_every_valid_text(name: str) -> None:
    g = checker(name)
    good, _ = sentence_cases()
    texts = spec_examples() + good + op_calls()
    assert len(texts) > 100
    refused = [t for t in texts if not g.accepts(t)]
    assert refused == []
    # The corpus holds what `scan` finds whole (P303).
    assert [(t, why) for t in texts if (why := found_whole(t))] == []


@pytest.mark.parametrize("name", ["sentences.lark", "sentences.gbnf"])
def test_sentence_grammar_rejects_every_refused_text(name: str) -> None:
    g = checker(name)
    _, bad = sentence_cases()
    _, refused = scan_cases()
    refused_calls = [t for t in refused if t.startswith(("[TOOL", "[EXEC", "[DM", "```"))]
    texts = bad + refused_calls
    assert len(texts) > 100
    accepted = [t for t in texts if g.accepts(t)]
    assert accepted == []


@pytest.mark.parametrize("name", ["reply.lark", "reply.gbnf"])
def test_reply_grammar_accepts_the_example_and_every_found_item(name: str) -> None:
    replies, _ = scan_cases()
    example = ROOT / "generated" / "docs" / "GRAMMAR.md"
    texts = replies
    if example.exists():
        m = re.search(r"<!-- example reply -->\n```text\n(.*?)\n```", example.read_text(encoding="utf-8"), re.S)
        assert m, "GRAMMAR.md shows no example reply"
        texts = texts + [(m.group(1), VERDICT_ID)]
    assert len(texts) > 20
    refused = [(t, i) for t, i in texts if not checker(name, i).accepts(t)]
    assert refused == []


@pytest.mark.parametrize("name", ["reply.lark", "reply.gbnf"])
def test_reply_grammar_rejects_refused_calls_missing_verdicts_and_wrong_ids(name: str) -> None:
    g = checker(name, VERDICT_ID)
    verdict = f"[RESULT {VERDICT_ID}] OK done"
    _, refused = scan_cases()
    assert len(refused) > 10
    texts = [c + "\n" + verdict for c in refused]
    texts += [c for c in refused if c.startswith("[RESULT")]
    texts += ["Done.", "Done.\n", "[CLAIM x]", verdict + "\n", verdict + "\nmore"]
    texts += [f"[RESULT {VERDICT_ID}x] OK done", f"[RESULT other] OK done", f"[RESULT {VERDICT_ID}] done"]
    texts += [f"text [CLAIM {VERDICT_ID}] inside\n" + verdict, "```\n[CLAIM x]\n```\n" + verdict, "curl -X POST x/exec\n" + verdict]
    accepted = [t for t in texts if g.accepts(t)]
    assert accepted == []
    assert g.accepts(verdict)


def check_sentence_sample(text: str) -> str | None:
    """None when ``scan`` finds ``text`` whole with the value ``parse``
    gives (a call: one that resolves), else what differs (P303)."""
    return found_whole(text)


def check_reply_sample(text: str, id_: str) -> str | None:
    """None when ``text`` scans as lines of sentences and calls, each at a
    line start, every call resolving, and the verdict last with ``id_``."""
    found, skipped = agent_sentences.scan_with_diagnostics(text)
    if skipped:
        return f"skipped {skipped}"
    raw = text.encode()
    for f in found:
        if f.span.start > 0 and raw[f.span.start - 1 : f.span.start] != b"\n":
            return f"{f} does not start a line"
        if isinstance(f.item, agent_sentences.ToolDirective) and not resolves(f.item):
            return f"{f} does not resolve"
    if not found or not isinstance(found[-1].item, agent_sentences.Result):
        return "no verdict"
    last = found[-1]
    if last.item.job_id != id_ or last.item.status is None or last.span.end != len(raw):
        return f"verdict {last}"
    return None


def test_samples_of_the_sentence_grammar_parse_and_render_back() -> None:
    g = checker("sentences.lark")
    rng = random.Random(26)
    samples = [g.sample(rng) for _ in range(10_000)]
    failures = [(s, why) for s in samples if (why := check_sentence_sample(s))]
    assert failures[:5] == []
    # The samples reach every structure the grammar offers.
    kinds = set()
    for s in samples:
        try:
            kinds.add(agent_sentences.parse(s).KIND.key)
        except agent_sentences.ParseError:
            kinds.add("call")
    assert kinds >= {k for k in STRUCTURES if k not in LEFT_OUT} | {"call"}


def test_samples_of_the_reply_grammar_scan_as_lines_and_a_verdict() -> None:
    g = checker("reply.lark", VERDICT_ID)
    rng = random.Random(2026)
    steer = f"[RESULT {VERDICT_ID}] ".encode()
    samples = [g.sample(rng, steer=steer, lines=rng.randrange(6)) for _ in range(2_000)]
    assert sum(s.count("\n") for s in samples) > 2_000
    failures = [(s, why) for s in samples if (why := check_reply_sample(s, VERDICT_ID))]
    assert failures[:5] == []


ALPHABET = list("abcXYZ019 _-./:'\"—éß中🚀!?[]{}()#*`<>&|~\\") + ["\t", "\n", "\r", "\u00a0", "\u200d"]
PLAIN = [c for c in ALPHABET if plain(c)]


def random_text(rng: random.Random, pool: list[str]) -> str:
    return "".join(rng.choice(pool) for _ in range(rng.randrange(1, 16)))


def field_value(rng: random.Random, field: Any, flags: int, example: Any) -> Any:
    """A value of ``field`` its pattern accepts: random text, or the spec
    example's value with random characters put in; None when none was drawn."""
    if field.type == "enum":
        return rng.choice(field.values)
    if field.type == "integer":
        return rng.choice([0, 1, 7, 42, rng.randrange(10**9)])
    seed = getattr(example, field.attr, None)
    for _ in range(200):
        if isinstance(seed, str) and rng.random() < 0.5:
            at = rng.randrange(len(seed) + 1)
            text = seed[:at] + random_text(rng, ALPHABET)[: rng.randrange(4)] + seed[at:]
        else:
            text = random_text(rng, ALPHABET)
        if re.fullmatch(field.pattern, text, flags):
            return text
    return None


def parser_side_samples(rng: random.Random, count: int) -> list[str]:
    """Texts the generated renderers write from values the field patterns
    accept, each parsing back to itself; calls of the runnable ops with
    plain string arguments (P206) that the scanner finds and resolves."""
    kinds = [k for k in agent_sentences.KINDS if k.key not in LEFT_OUT and k.key != "tool_call"]
    runnable = [(n, op) for n, op in OPS.items() if "args" in op and not op.get("missing")]
    out: list[str] = []
    while len(out) < count:
        if rng.random() < 0.2:
            name, op = rng.choice(runnable)
            args: dict[str, Any] = {}
            for key, schema in op["args"]["properties"].items():
                if key in op["args"].get("required", []) or rng.random() < 0.5:
                    args[key] = rng.randrange(1, 10**6) if schema["type"] == "integer" else random_text(rng, PLAIN)
            engine = rng.choice([e for e in DIRECTIVES["bracket"]["engines"] if e in op["engines"]])
            text = f"[{engine} {name} {canonical_json(args)}]"
            found, skipped = agent_sentences.scan_with_diagnostics(text)
            if len(found) == 1 and not skipped and resolves(found[0].item):
                out.append(text)
            continue
        kind = rng.choice(kinds)
        cls = agent_sentences.PARSERS[kind.key]
        flags = re.S if "s" in kind.flag_prefix else 0
        example = agent_sentences.parse(kind.example_sentence)
        values = {}
        for f in kind.fields:
            if f.derived_from or (not f.required and rng.random() < 0.3):
                continue
            values[f.attr] = field_value(rng, f, flags, example)
        if any(v is None for v in values.values()):
            continue
        sentence_cls = type(example)
        try:
            text = sentence_cls(**values).render()
            if agent_sentences.parse(text).render() != text:
                continue
        except (agent_sentences.ParseError, ValueError, TypeError):
            continue
        del cls
        out.append(text)
    return out


def test_the_sentence_grammar_accepts_what_the_parsers_render() -> None:
    g = checker("sentences.lark")
    samples = parser_side_samples(random.Random(7), 10_000)

    def offered(text: str) -> bool:
        try:
            return fields_plain(agent_sentences.parse(text))
        except agent_sentences.ParseError:
            return True  # a call, its string arguments plain

    good = [s for s in samples if offered(s)]
    bad = [s for s in samples if not offered(s)]
    kinds = {agent_sentences.parse(s).KIND.key for s in good if not s.startswith("[EXEC")}
    assert kinds == {k.key for k in agent_sentences.KINDS if k.key not in LEFT_OUT}
    assert len(bad) > 1_000
    refused = [s for s in good if not g.accepts(s)]
    assert refused[:5] == []
    accepted = [s for s in bad if g.accepts(s)]
    assert accepted[:5] == []


def test_reply_grammar_api() -> None:
    """``agent_sentences.grammar`` holds the generated texts, and
    ``reply_grammar`` fills the id and the ops or refuses (P208)."""
    from agent_sentences import grammar

    for name in FILES:
        const = getattr(grammar, name.replace(".", "_").upper())
        assert const == (ROOT / "generated" / "grammar" / name).read_text(encoding="utf-8")
    runnable = tuple(n for n, op in OPS.items() if "args" in op and not op.get("missing"))
    assert grammar.OFFERED_OPS == runnable
    verdict = f"[RESULT {VERDICT_ID}] OK done"
    call = f"[TOOL {runnable[-1]} {canonical_json(OPS[runnable[-1]]['examples'][0])}]"
    other = f"[TOOL {runnable[0]} {canonical_json(OPS[runnable[0]]['examples'][0])}]"
    for dialect in ("lark", "gbnf"):
        text = grammar.reply_grammar(VERDICT_ID, ops=[runnable[-1]], dialect=dialect)
        lark = lark_text_of_gbnf(text) if dialect == "gbnf" else text
        assert compile_warnings(lark) == (False, [])
        g = Checker(lark)
        assert g.accepts(call + "\n" + verdict)
        assert not g.accepts(other + "\n" + verdict)
        assert not g.accepts("[RESULT other] OK done")
        none = Checker(grammar.reply_grammar(VERDICT_ID, ops=[], dialect=dialect) if dialect == "lark" else lark_text_of_gbnf(grammar.reply_grammar(VERDICT_ID, ops=[], dialect=dialect)))
        assert none.accepts("Checked.\n" + verdict) and not none.accepts(call + "\n" + verdict)
    for bad_id in ["", "a b", 'a"b', "a]\n[RESULT b", VERDICT_ID + "\n"]:
        with pytest.raises(ValueError):
            grammar.reply_grammar(bad_id)
    with pytest.raises(ValueError):
        grammar.reply_grammar(VERDICT_ID, ops=["no.such.op"])
    incomplete = next(n for n, op in OPS.items() if "args" not in op)
    with pytest.raises(ValueError):
        grammar.reply_grammar(VERDICT_ID, ops=[incomplete])
