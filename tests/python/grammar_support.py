"""Helpers of the grammar tests: a matcher per grammar that checks whole
texts in llguidance (over ``grammar_engines``' byte vocabulary), and a
sampler that walks a grammar with random allowed bytes."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import llguidance
from llguidance.gbnf_to_lark import gbnf_to_lark

from grammar_engines import EOS, LLG_TOKENIZER  # 256 one-byte tokens and an end token

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR_DIR = ROOT / "generated" / "grammar"
# Bytes that end a part of a text: past its length limit, the sampler
# prefers them.
CLOSERS = sorted(set(b"]\"}`')\n.: " + "—".encode()))


TOKENIZER = LLG_TOKENIZER


def lark_text(name: str) -> str:
    """The Lark text of ``generated/grammar/<name>``, GBNF converted back."""
    text = (GRAMMAR_DIR / name).read_text(encoding="utf-8")
    return gbnf_to_lark(text) if name.endswith(".gbnf") else text


def compile_warnings(lark: str) -> tuple[bool, list[str]]:
    """(is_error, messages) of llguidance's validation of ``lark``."""
    return llguidance.LLMatcher.validate_grammar_with_warnings(llguidance.LLMatcher.grammar_from_lark(lark), TOKENIZER)


class Checker:
    """One compiled grammar: ``accepts(text)`` says whether it is a whole text of it."""

    def __init__(self, lark: str) -> None:
        self.fresh = llguidance.LLMatcher(TOKENIZER, lark, log_level=0)
        # The bytes of the grammar's literals: the sampler leans on them to
        # reach the literal that ends a free-text part (a ` — `, a `]`).
        literals = "".join(_loads(m) for m in re.findall(r'"(?:[^"\\\n]|\\.)*"', lark) if _loads(m) is not None)
        self.literal_bytes = sorted(set(literals.encode("utf-8")) | set(b'"}]'))
        assert not self.fresh.is_error(), self.fresh.get_error()

    def accepts(self, text: str) -> bool:
        # A refused byte leaves a matcher in its error state for good: each
        # text gets a copy of the fresh one.
        m = self.fresh.deep_copy()
        return bool(m.consume_tokens(list(text.encode("utf-8"))) and m.is_accepting() and m.consume_token(EOS))

    def sample(self, rng: random.Random, stop: float = 0.3, limit: int = 80, steer: bytes = b"", lines: int = 0) -> str:
        """A text of the grammar: random allowed bytes (mostly ASCII) until
        the end token is drawn; past ``limit`` bytes it is drawn whenever allowed.
        At the start of a line after ``lines`` line breaks, the bytes of ``steer``
        are taken while the grammar allows them (to reach a reply's verdict)."""
        m = self.fresh.deep_copy()
        out = bytearray()
        while True:
            if steer and (not out or out.endswith(b"\n")) and out.count(b"\n") >= lines:
                taken = 0
                for b in steer:
                    mask = int.from_bytes(m.compute_bitmask(), "little")
                    if not mask >> b & 1:
                        break
                    assert m.consume_token(b)
                    out.append(b)
                    taken += 1
                if taken == len(steer):
                    steer = b""
            mask = int.from_bytes(m.compute_bitmask(), "little")
            eos = mask >> EOS & 1
            if eos and (rng.random() < stop or len(out) > limit):
                break
            pick = -1
            if rng.random() < (0.2 if len(out) < limit else 0.9):
                prefer = self.literal_bytes if len(out) < limit or rng.random() < 0.3 else CLOSERS
                near = [b for b in prefer if mask >> b & 1]
                if near:
                    pick = rng.choice(near)
            for _ in range(8 if pick < 0 else 0):
                b = rng.randrange(128) if rng.random() < 0.9 else rng.randrange(256)
                if mask >> b & 1:
                    pick = b
                    break
            if pick < 0:
                choices = [b for b in range(256) if mask >> b & 1]
                if not choices:
                    assert eos, f"no byte allowed after {bytes(out)!r}"
                    break
                pick = rng.choice(choices)
            assert m.consume_token(pick)
            out.append(pick)
        return out.decode("utf-8")


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def with_id(lark: str, id_: str) -> str:
    """``reply.lark`` with its id rule holding ``id_`` (what ``reply_grammar`` does)."""
    return re.sub(r"(?m)^ID: .*$", "ID: " + json.dumps(id_), lark)


def canonical_json(value: Any) -> str:
    """A JSON value as the renderers write it."""
    return json.dumps(value, ensure_ascii=False)


def left_out(lark: str) -> set[str]:
    """Structures the grammar says it leaves out."""
    return set(re.findall(r"(?m)^// Left out: `([a-z_]+)`", lark))
