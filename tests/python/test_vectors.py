"""The shared conformance vectors, one pytest case each, against generated/python."""

from __future__ import annotations

import json
from typing import Any

import pytest

import agent_sentences
import vectors

SENTENCES = vectors.load("sentences")
PATTERNS = vectors.load("patterns")
SCANS = vectors.load("scan")


def spec_pattern_cases() -> list[tuple[str, dict[str, Any]]]:
    """The spec's own examples as pattern vectors (no hand copy needed): each
    pattern's matches with their captures, and its non-matches."""
    with (vectors.ROOT / "schema" / "regex_patterns.json").open(encoding="utf-8") as f:
        spec = json.load(f)["patterns"]
    out = []
    for key, p in spec.items():
        for i, m in enumerate(p["matches"]):
            out.append((f"spec-{key}-match-{i}", {"pattern": key, "input": m["text"], "captures": m["captures"]}))
        for i, t in enumerate(p["non_matches"]):
            out.append((f"spec-{key}-non-match-{i}", {"pattern": key, "input": t, "captures": None}))
    return out


SPEC_PATTERNS = spec_pattern_cases()


@pytest.mark.parametrize("case", [c for _, c in SPEC_PATTERNS], ids=[n for n, _ in SPEC_PATTERNS])
def test_spec_example_is_a_pattern_vector(case: dict[str, Any]) -> None:
    assert vectors.check_pattern(agent_sentences, case) is None, vectors.check_pattern(agent_sentences, case)


@pytest.mark.parametrize("kind", agent_sentences.KINDS, ids=[k.key for k in agent_sentences.KINDS])
def test_spec_example_sentence_parses_renders_and_scans_as_its_structure(kind: Any) -> None:
    text = kind.example_sentence
    sentence = agent_sentences.parse(text)
    assert sentence.to_sentence_dict()["structure"] == kind.key and sentence.render() == text
    if kind.key in agent_sentences.SCAN_SOURCES:
        (found,) = agent_sentences.scan(text)
        assert found.kind == "sentence" and found.item.to_sentence_dict()["structure"] == kind.key


@pytest.mark.parametrize("case", [c for _, c in SENTENCES], ids=[n for n, _ in SENTENCES])
def test_sentence_vector(case: dict[str, Any]) -> None:
    assert vectors.check_sentence(agent_sentences, case) is None, vectors.check_sentence(agent_sentences, case)


@pytest.mark.parametrize("case", [c for _, c in PATTERNS], ids=[n for n, _ in PATTERNS])
def test_pattern_vector(case: dict[str, Any]) -> None:
    assert vectors.check_pattern(agent_sentences, case) is None, vectors.check_pattern(agent_sentences, case)


@pytest.mark.parametrize("case", [c for _, c in SCANS], ids=[n for n, _ in SCANS])
def test_scan_vector(case: dict[str, Any]) -> None:
    assert vectors.check_scan(agent_sentences, case) is None, vectors.check_scan(agent_sentences, case)


def test_scan_vectors_cover_every_form_reason_and_scanned_structure() -> None:
    assert len(SCANS) >= 100
    found = [f for _, c in SCANS for f in c["found"]]
    skipped = [s for _, c in SCANS for s in c["skipped"]]
    assert {f["form"] for f in found if f["kind"] == "directive"} == set(agent_sentences.DIRECTIVE_FORMS)
    assert {s["reason"] for s in skipped} == set(agent_sentences.SKIP_REASONS)
    # Every scanned structure is found by some hand vector, or by its spec
    # example (test_spec_example_sentence_parses_renders_and_scans_as_its_structure).
    structures = {f["value"]["structure"] for f in found if f["kind"] == "sentence"}
    assert structures <= set(agent_sentences.SCAN_SOURCES)
    # Reader wording (null) is the exception: most messages are compared exactly.
    assert 0 < sum(s["message"] is None for s in skipped) < len(skipped) // 3


def test_a_wrong_scan_expectation_is_reported() -> None:
    case = next(c for n, c in SCANS if n == "json-duplicate-keys.json")
    assert vectors.check_scan(agent_sentences, case) is None
    wrong = json.loads(json.dumps(case))
    wrong["found"][0]["span"]["end"] = 75
    assert (vectors.check_scan(agent_sentences, wrong) or "").startswith("found ")
    wrong = json.loads(json.dumps(case))
    wrong["skipped"][0]["message"] = "not the message"
    assert (vectors.check_scan(agent_sentences, wrong) or "").startswith("skipped ")
    case = next(c for n, c in SCANS if n == "bracket-no-object.json")
    wrong = json.loads(json.dumps(case))
    wrong["skipped"][0]["message"] = None
    assert "only for the JSON reader" in (vectors.check_scan(agent_sentences, wrong) or "")


def test_there_are_vectors_of_every_structure_and_outcome() -> None:
    # Every structure has a sentence vector, by hand or as its spec example
    # (test_spec_example_sentence_parses_renders_and_scans_as_its_structure).
    structures = {c["structure"] for _, c in SENTENCES}
    assert structures <= {k.key for k in agent_sentences.KINDS} | {None} and None in structures
    assert len(SENTENCES) >= 250 and len(PATTERNS) + len(SPEC_PATTERNS) >= 100
    assert any(c["captures"] is None for _, c in PATTERNS) and any(c["captures"] for _, c in PATTERNS)


def test_a_wrong_expectation_is_reported() -> None:
    name, case = next((n, c) for n, c in SENTENCES if n == "ack-no-sender.json")
    wrong = dict(case, value=dict(case["value"], sender="646"))
    assert vectors.check_sentence(agent_sentences, wrong) is not None
    wrong = dict(case, rendered="[ACK 7fce46e0]")
    assert "renders" in (vectors.check_sentence(agent_sentences, wrong) or "")
