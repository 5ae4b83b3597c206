"""The prompt envelope through the Python package (P149): ``wrap`` gives the
shared vectors' texts and errors, which the Rust crate's ``wrap`` gives too
(``tests/downstream/tests/envelope.rs``): the same output in both languages.
The pieces are the spec's, and the example renders and scans back as
``schema/envelope.json`` says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import agent_sentences as A
from agent_sentences import envelope

ROOT = Path(__file__).resolve().parents[2]
SPEC: dict[str, Any] = json.loads((ROOT / "schema" / "envelope.json").read_text(encoding="utf-8"))
VECTORS = sorted((ROOT / "tests" / "vectors" / "envelope").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    v: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return v


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_wrap_gives_the_vectors_text_or_error(path: Path) -> None:
    v = load(path)
    if v["text"] is not None:
        assert envelope.wrap(v["message"], v["id"]) == v["text"]
    else:
        with pytest.raises(envelope.EnvelopeError) as e:
            envelope.wrap(v["message"], v["id"])
        assert str(e.value) == v["error"]


def test_the_vectors_hold_texts_and_errors() -> None:
    kinds = {load(p)["text"] is None for p in VECTORS}
    assert kinds == {True, False}


def test_the_example_is_the_spec_and_scans_back() -> None:
    message, id = SPEC["example"]["message"], SPEC["example"]["id"]
    assert (envelope.EXAMPLE_MESSAGE, envelope.EXAMPLE_ID) == (message, id)
    text = envelope.wrap(message, id)
    assert text == envelope.EXAMPLE_TEXT
    lines = text[len(message) + 2 :].split("\n")
    assert text.startswith(message + "\n\n") and len(lines) == len(SPEC["lines"])
    message_bytes = len(message.encode())
    found, skipped = A.scan_with_diagnostics(text)
    after = [f for f in found if f.span.end > message_bytes]
    assert [s for s in skipped if s.span.end > message_bytes] == []
    assert len(after) == 1 and isinstance(after[0].item, A.ContractFooter) and after[0].item.id == id
    assert text[after[0].span.char_start : after[0].span.char_end] == lines[-1]
    advertised = [op for entry in SPEC["lines"] if "advertise" in entry for op in entry["advertise"]["ops"]]
    assert list(envelope.ADVERTISED) == advertised
    for entry, line in zip(SPEC["lines"], lines):
        if "advertise" in entry:
            engine = entry["advertise"]["engine"]
            for op in entry["advertise"]["ops"]:
                advert = f"[{engine} {op}]"
                assert advert in line
                call = A.scan(text.replace(advert, f"[{engine} {op} {{}}]", 1))
                directives = [f.item for f in call if isinstance(f.item, A.ToolDirective)]
                assert [(d.op, d.engine) for d in directives] == [(op, engine)]


def test_render_is_wrap_without_the_check() -> None:
    text, (start, end) = envelope.render("é", "7fce46e0")
    assert text.encode()[start:end].decode() == text.split("\n")[-1]
    with pytest.raises(envelope.EnvelopeError):
        envelope.wrap("é", "7fce 46e0")
