"""Every pattern's `fullmatch`, and `parse`, stay linear on adversarial
near-misses of a mebibyte (issue 13): built by `near_miss.py` from the
spec's examples, each read as the same near-miss of 64 bytes reads.

No clock is read: the tests hold what a big near-miss reads as. That the
read takes linear time is held where it can be decided, not by a
threshold: the spec lint rejects every pattern Python's backtracking
``re`` could read in more than linear time (decision P187, the
``nested-quantifier`` family of findings); ``parse`` runs the same
patterns, once per structure, and locates a failure with a fixed list of
steps."""

from __future__ import annotations

import re

import pytest

import agent_sentences as A
from near_miss import SIZE, SMALL_BYTES, NearMiss, scale, spec_patterns, suffixes

def cases() -> list[NearMiss]:
    out = []
    for key, p in spec_patterns().items():
        compiled = A.patterns.COMPILED[key]
        for group in p["groups"]:  # type: ignore[union-attr]
            example = next(
                (m["text"] for m in p["matches"] if m["captures"].get(group)),  # type: ignore[union-attr, index]
                None,
            )
            if example is None:
                continue
            found = compiled.fullmatch(example)
            assert found is not None, (key, example)
            start, end = found.span(group)
            for suffix in suffixes(example):
                out.append(NearMiss(key, group, example, start, end, suffix))
    return out


CASES = cases()


def captures(pattern: re.Pattern[str], text: str) -> dict[str, str] | None:
    found = pattern.fullmatch(text)
    if found is None:
        return None
    return {k: v for k, v in found.groupdict().items() if v is not None}


def reading(text: str) -> str:
    try:
        return A.parse(text).to_sentence_dict()["structure"]  # type: ignore[no-any-return]
    except A.ParseError as e:
        # The kind's name and the structures involved; its details (the
        # repeated text, a JSON message) scale with the text.
        return f"error {type(e.kind).__name__} {e.structure} {e.closest}"


def test_every_pattern_has_near_misses() -> None:
    assert {c.pattern for c in CASES} == set(spec_patterns())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.pattern}-{c.group}-{len(c.suffix)}")
def test_fullmatch_reads_a_mebibyte_near_miss_as_the_small_one(case: NearMiss) -> None:
    pattern = A.patterns.COMPILED[case.pattern]
    small, big = case.copies(SMALL_BYTES), case.copies(SIZE)
    expected = scale(captures(pattern, case.text(small)), case.fill(small), case.fill(big))
    assert captures(pattern, case.text(big)) == expected


@pytest.mark.parametrize("case", [c for c in CASES if c.suffix != "\x00"], ids=lambda c: f"{c.pattern}-{c.group}-{len(c.suffix)}")
def test_parse_reads_a_mebibyte_near_miss_as_the_small_one(case: NearMiss) -> None:
    expected = reading(case.text(case.copies(SMALL_BYTES)))
    assert reading(case.text(case.copies(SIZE))) == expected


def test_two_results_whose_first_summary_spans_lines() -> None:
    # The text, grown: each line of the first summary 64 KiB.
    line = "y" * (1 << 16)
    text = "[RESULT a] OK x\n" + "\n".join([line] * 16) + " [RESULT b] OK z"
    assert A.patterns.COMPILED["result"].fullmatch(text) is None
    with pytest.raises(A.ParseError) as e:
        A.Result.parse(text)
    assert e.value.offset == len(text.encode()) - len("[RESULT b] OK z")
    first = A.patterns.COMPILED["result"].match(text)
    assert first is not None and first.group("summary") == "x\n" + "\n".join([line] * 16)
