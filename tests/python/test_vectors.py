"""The shared conformance vectors, one pytest case each, against generated/python."""

from __future__ import annotations

from typing import Any

import pytest

import agent_sentences
import vectors

SENTENCES = vectors.load("sentences")
PATTERNS = vectors.load("patterns")


@pytest.mark.parametrize("case", [c for _, c in SENTENCES], ids=[n for n, _ in SENTENCES])
def test_sentence_vector(case: dict[str, Any]) -> None:
    assert vectors.check_sentence(agent_sentences, case) is None, vectors.check_sentence(agent_sentences, case)


@pytest.mark.parametrize("case", [c for _, c in PATTERNS], ids=[n for n, _ in PATTERNS])
def test_pattern_vector(case: dict[str, Any]) -> None:
    assert vectors.check_pattern(agent_sentences, case) is None, vectors.check_pattern(agent_sentences, case)


def test_there_are_vectors_of_every_structure_and_outcome() -> None:
    structures = {c["structure"] for _, c in SENTENCES}
    assert structures == {k.key for k in agent_sentences.KINDS} | {None}
    assert len(SENTENCES) >= 250 and len(PATTERNS) >= 100
    assert any(c["captures"] is None for _, c in PATTERNS) and any(c["captures"] for _, c in PATTERNS)


def test_a_wrong_expectation_is_reported() -> None:
    name, case = next((n, c) for n, c in SENTENCES if n == "ack-no-sender.json")
    wrong = dict(case, value=dict(case["value"], sender="646"))
    assert vectors.check_sentence(agent_sentences, wrong) is not None
    wrong = dict(case, rendered="[ACK 7fce46e0]")
    assert "renders" in (vectors.check_sentence(agent_sentences, wrong) or "")
