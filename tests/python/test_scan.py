"""The Python API of the scanner beyond the shared vectors, against the native
module: hostile floods at 1 MiB (the result is asserted, not the time),
properties over random strings and mutated valid messages (stdlib ``random``,
fixed seed, bounded cases), and what only Python can show (lone surrogates,
``str`` indexes)."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import agent_sentences as A
from scan_props import mutated_message, random_text

ROOT = Path(__file__).resolve().parents[2]
MIB = 1 << 20
SEED = 20261201
CASES = 1500
FOOTER = "Reply: [ACK 7f] seen | [CLAIM 7f] mine | [RESULT 7f] done | [DECLINE 7f] | [NO-ACTION 7f]. "


def flood(unit: str) -> str:
    """``unit`` repeated to just over 1 MiB."""
    return unit * (MIB // len(unit) + 1)


# (name, text, found, skipped, the first skipped item as (start, end, reason, message) or None).
# Most of these are also Rust tests (tests/downstream/tests/scan.rs); here they
# go through the Python API, the objects built for every item.
FLOODS: list[tuple[str, Callable[[], str], int, int, tuple[int, int, str, str] | None]] = [
    # The first broken call runs to its line end (P87): the flood is one line.
    ("unclosed-tool-calls", lambda: flood("[TOOL op {"), 0, 1,
     (0, len(flood("[TOOL op {")), "invalid-json", "expected a string key or `}` at byte 10")),
    ("result-openers", lambda: flood("[RESULT "), 0, 0, None),
    ("results", lambda: flood("[RESULT a] OK x "), MIB // 16 + 1, 0, None),
    ("work-order-line-without-dash", lambda: "[WO:7f] [from super] " + " word" * (MIB // 5), 0, 0, None),
    ("work-order-long-title", lambda: "[WO:7f] [from super] " + "x" * MIB, 0, 0, None),
    ("brackets", lambda: flood("["), 0, 0, None),
    ("blank-brackets", lambda: flood(" ["), 0, 0, None),
    ("backticks", lambda: flood("`"), 0, 0, None),
    ("backtick-runs", lambda: flood("` `` "), 0, 0, None),
    ("deep-objects", lambda: "[TOOL a.b " + '{"a": ' * (MIB // 6) + "1" + "}" * (MIB // 6) + "]", 0, 1,
     (0, 1223346, "invalid-json", "the arguments are longer than 65536 bytes")),
    ("deep-arrays-unclosed", lambda: '[TOOL a.b {"a": ' + "[" * MIB, 0, 1,
     (0, MIB + 16, "invalid-json", "the text ends inside the JSON value (expected a value)")),
    # One line: the first broken call runs to its line end (P87).
    ("strings", lambda: flood('[TOOL op {"a": "'), 0, 1, (0, len(flood('[TOOL op {"a": "')), "invalid-json", "expected `,` or a closing bracket at byte 27")),
    ("unterminated-string", lambda: '[TOOL op {"a": "' + "x" * MIB, 0, 1, (0, MIB + 16, "invalid-json", "unterminated or invalid string")),
    ("backslash-runs", lambda: '[TOOL op {"a": "' + "\\\\" * (MIB // 2) + '"}]', 0, 1,
     (0, MIB + 19, "invalid-json", "the arguments are longer than 65536 bytes")),
    ("fences", lambda: flood("```tool\n"), 0, 1, (0, MIB + 8, "unclosed-fence", "the ```tool fence is never closed")),
    ("curl-lines", lambda: flood("curl https://h/exec -d '\n"), 0, 20972, None),
    ("curl-continued-lines", lambda: flood("curl x \\\n"), 0, 0, None),
    ("footer-heads", lambda: flood("Reply: ["), 0, 0, None),
    ("footers", lambda: flood(FOOTER), MIB // len(FOOTER) + 1, 0, None),
    ("footers-ids-differ", lambda: flood(FOOTER.replace("[CLAIM 7f]", "[CLAIM 8a]")), 0, 0, None),
    ("directive-openers", lambda: flood("[Directive: ["), 0, 1,
     (0, MIB + 4, "unclosed-directive", "a `directive` that does not close; its text is quoted to the end of the line")),
    # One line of bare `[DM `: the first runs to the end of the line (P81).
    ("bare-dm", lambda: flood("[DM "), 0, 1, (0, MIB + 4, "shorthand-without-object", "`[DM` without a JSON object is ignored (D3)")),
    ("bare-dm-lines", lambda: flood("[DM \n"), 0, MIB // 5 + 1, (0, 4, "shorthand-without-object", "`[DM` without a JSON object is ignored (D3)")),
    ("broken-strings", lambda: flood('[TOOL a {"k": "\\q [TOOL b {}]"}] '), 0, MIB // 33 + 1,
     (0, 32, "invalid-json", "invalid escape `\\q` in a string at byte 15")),
    ("no-object-lines", lambda: flood('[TOOL a -v {"k": "[TOOL b {}]"}]\n'), 0, MIB // 33 + 1,
     (0, 32, "no-object", "`[TOOL a` is not followed by a JSON object")),
    ("newlines", lambda: flood("\n"), 0, 0, None),
    # One long line of candidates that each stop early: each is read to where it stops, not to the line end.
    ("directive-brackets", lambda: flood("[Directive:]"), 0, 0, None),
    ("no-object-line", lambda: flood("[TOOL a x] "), 0, MIB // 11 + 1, (0, 10, "no-object", "`[TOOL a` is not followed by a JSON object")),
    # Lines of `curl \"`: the string that never closes is searched for once.
    ("curl-escaped-quotes", lambda: flood('curl \\"\n'), 0, MIB // 8 + 1,
     (0, 7, "curl-payload", "an unclosed quote: the command is read to the end of its first line and not run")),
    # Broken objects on many lines.
    ("trailing-commas", lambda: flood('[TOOL a {"k": 1,}]\n'), 0, MIB // 19 + 1, (0, 18, "invalid-json", "trailing comma before `}` at byte 16")),
    ("non-ascii-claims", lambda: flood("é✓🔥 [CLAIM a1] "), MIB // 15 + 1, 0, None),
    ("crlf-calls", lambda: flood('[TOOL a.b {"x": 1}]\r\n'), MIB // 21 + 1, 0, None),
]


@pytest.mark.parametrize("name, make, n_found, n_skipped, first", FLOODS, ids=[f[0] for f in FLOODS])
def test_floods_at_one_mebibyte(
    name: str, make: Callable[[], str], n_found: int, n_skipped: int, first: tuple[int, int, str, str] | None
) -> None:
    text = make()
    found, skipped = A.scan_with_diagnostics(text)
    assert (len(found), len(skipped)) == (n_found, n_skipped)
    if first is not None:
        assert (skipped[0].span.start, skipped[0].span.end, skipped[0].reason, skipped[0].message) == first
    if found:
        last = found[-1].span
        assert last.end <= len(text.encode("utf-8")) and text[last.char_start : last.char_end]


def test_nudge_deadline_of_colons_at_one_mebibyte() -> None:
    # `:` then a blank separates the prompt (P82): a deadline of `a:a:…` has one
    # reading, so the parse is linear (before, Python took quadratic time).
    head = "[NUDGE a] [nudge 1/3] Deadline "
    deadline = "a:" * (MIB // 2) + "a"
    nudge = A.Nudge.parse(head + deadline)
    assert (nudge.deadline_utc, nudge.prompt) == (deadline, None)
    with pytest.raises(A.ParseError) as e:
        A.Nudge.parse(head + deadline + "\n")
    assert (e.value.structure, e.value.offset) == ("nudge", len(head) + len(deadline))
    found = A.scan(head + deadline + "\n")
    assert [(f.span.start, f.span.end) for f in found] == [(0, len(head) + len(deadline))]


def test_flood_spans_are_bytes_far_into_the_text() -> None:
    text = flood("é✓🔥 [CLAIM a1] ")
    found = A.scan(text)
    unit = len("é✓🔥 [CLAIM a1] ".encode("utf-8"))
    assert [(f.span.start, f.span.end) for f in found[-2:]] == [
        (unit * (len(found) - 2) + 10, unit * (len(found) - 2) + 20),
        (unit * (len(found) - 1) + 10, unit * (len(found) - 1) + 20),
    ]
    assert found[-1].span.char_start == len("é✓🔥 [CLAIM a1] ") * (len(found) - 1) + 4


# Issue 25's superlinear shapes, at 1 MiB, whatever code serves them: each
# took quadratic time in the Markdown context (at 1 MiB, minutes). Nested `[`
# closed by collapsed references `][]`, with one definition of the label, then
# a call in a paragraph of its own, which every reader shows as text.
def nested_collapsed_references() -> str:
    k = MIB // 4
    return "[" * k + "a" + "][]" * k + "\n\n[a]: /u\n\nthen [TOOL t.c1 {}]\n"


# Many list markers on one line, then a call: a list item nested 512K deep.
def list_markers_on_one_line() -> str:
    return "- " * (MIB // 2) + "[TOOL t.c1 {}]\n"


def test_nested_collapsed_references_at_one_mebibyte() -> None:
    text = nested_collapsed_references()
    found, skipped = A.scan_with_diagnostics(text)
    assert [(f.item.op, f.span.end) for f in found] == [("t.c1", len(text) - 1)]
    assert skipped == []


def test_list_markers_on_one_line_at_one_mebibyte() -> None:
    # The call is run, or reported (a reader may not show text that deep): never lost.
    text = list_markers_on_one_line()
    found, skipped = A.scan_with_diagnostics(text)
    assert [f.item.op for f in found] + [s.span.end for s in skipped] in (["t.c1"], [len(text) - 1])


def test_a_run_of_brackets_at_32_mebibytes_in_linear_memory() -> None:
    # One scan of 32 MiB of `[` in a child process: nothing found, and the
    # process's peak resident memory above its resident memory before the scan
    # (the text already built) at most 8 times the input (it was 65 times).
    child = (
        "import agent_sentences as A\n"
        "def status(field):\n"
        "    line = next(l for l in open('/proc/self/status') if l.startswith(field))\n"
        "    return int(line.split()[1]) * 1024\n"
        "text = '[' * (32 << 20) + '\\n\\nthen [TOOL t.c1 {}]\\n'\n"
        "before = status('VmRSS:')\n"
        "found, skipped = A.scan_with_diagnostics(text)\n"
        "print(len(found), len(skipped), status('VmHWM:') - before)\n"
    )
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True)
    found, skipped, peak = (int(x) for x in out.stdout.split())
    assert (found, skipped) == (1, 0)
    assert peak <= 8 * (32 << 20), f"peak {peak / (32 << 20):.1f} times the input"


SURROGATE = re.compile("[\ud800-\udfff]")


def check_properties(text: str) -> None:
    """No exception but the documented one; spans in range, ordered, non-overlapping; every
    sentence found reads back as itself; ``scan`` is ``scan_with_diagnostics``' first half."""
    try:
        found, skipped = A.scan_with_diagnostics(text)
    except A.ParseError as e:
        assert SURROGATE.search(text), f"{text!r}: {e}"
        assert isinstance(e.kind, A.NoMatch) and "surrogate" in e.kind.expected
        return
    assert not SURROGATE.search(text), text
    data = text.encode("utf-8")
    items: list[tuple[A.Span, Any]] = [(f.span, f) for f in found] + [(s.span, s) for s in skipped]
    for span, _ in items:
        assert 0 <= span.start < span.end <= len(data), (text, span)
        assert len(text[: span.char_start].encode("utf-8")) == span.start, (text, span)
        assert len(text[span.char_start : span.char_end].encode("utf-8")) == span.end - span.start, (text, span)
    for group in (found, skipped):
        assert [x.span.start for x in group] == sorted(x.span.start for x in group), text
    # A candidate in a later block of a sentence's free text is reported inside that
    # sentence's span (P196); every other span stands apart.
    for s in skipped:
        if s.reason == "in-free-text":
            assert any(
                not isinstance(f.item, A.ToolDirective) and f.span.start < s.span.start and s.span.end <= f.span.end
                for f in found
            ), (text, s.span)
    items = [(span, x) for span, x in items if not (isinstance(x, A.Skipped) and x.reason == "in-free-text")]
    items.sort(key=lambda item: item[0].start)
    for (a, _), (b, _) in zip(items, items[1:]):
        assert a.end <= b.start, (text, a, b)
    assert [f.to_dict() for f in A.scan(text)] == [f.to_dict() for f in found]
    for f in found:
        piece = text[f.span.char_start : f.span.char_end]
        if isinstance(f.item, A.ToolDirective):
            assert f.item.form in A.DIRECTIVE_FORMS and re.fullmatch(r"[A-Za-z0-9_.-]+", f.item.written_op)
            assert A.parse_object(A.render_object(f.item.args)) == f.item.args
        else:
            assert A.PARSERS[f.item.KIND.key](piece) == f.item, (text, piece)
    for s in skipped:
        assert s.reason in A.SKIP_REASONS and s.message
    json.dumps([f.to_dict() for f in found] + [s.to_dict() for s in skipped], ensure_ascii=False)


def test_properties_over_random_strings() -> None:
    rng = random.Random(SEED)
    for _ in range(CASES):
        check_properties(random_text(rng))


def test_properties_over_mutated_valid_messages() -> None:
    rng = random.Random(SEED + 1)
    found = 0
    for _ in range(CASES):
        text = mutated_message(rng)
        check_properties(text)
        found += len(A.scan(text)) if not SURROGATE.search(text) else 0
    assert found > CASES, "mutated messages still hold many valid items"


def test_a_broken_property_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = A.scan_with_diagnostics

    def overlapping(text: str) -> tuple[list[A.Found], list[A.Skipped]]:
        found, skipped = real(text)
        return found, [*skipped, A.Skipped(found[0].span, "invalid-json", "overlaps the sentence")]

    check_properties("[CLAIM 1]")
    monkeypatch.setattr(A, "scan_with_diagnostics", overlapping)
    with pytest.raises(AssertionError):
        check_properties("[CLAIM 1]")


def test_lone_surrogates_are_rejected_with_a_byte_offset() -> None:
    with pytest.raises(A.ParseError) as e:
        A.scan("é [CLAIM 1] \udc00")
    assert (e.value.structure, e.value.offset) == (None, 13)
    with pytest.raises(A.ParseError):
        A.scan_with_diagnostics('[TOOL a {"x": "\ud800"}]')
    # Before the first item, between items, and in a text with no item at all: the first one is reported.
    for text, offset in [("é \ud800 [CLAIM 1]", 3), ("[CLAIM 1] é \udfff [CLAIM 2] \ud800", 13), ("é \ud800 \udc00", 3)]:
        with pytest.raises(A.ParseError) as e:
            A.scan(text)
        assert e.value.offset == offset, text


def test_spans_give_bytes_and_str_indexes() -> None:
    text = "é✓ [CLAIM a1] [TOOL x.y {\"k\": \"🔥\"}]"
    found = A.scan(text)
    assert [(f.span.start, f.span.end) for f in found] == [(6, 16), (17, 41)]
    assert [text[f.span.char_start : f.span.char_end] for f in found] == ["[CLAIM a1]", '[TOOL x.y {"k": "🔥"}]']
    assert [f.kind for f in found] == ["sentence", "directive"]
    assert found[0].item == A.Claim(job_id="a1")


def test_serde_shape_of_found_items() -> None:
    # The same text and JSON as the Rust test `serde_shape_of_found_items`.
    found = A.scan('[ACK:ab] [DM {"to": "x"}]')
    assert [f.to_dict() for f in found] == [
        {"span": {"start": 0, "end": 8}, "kind": "sentence", "value": {"structure": "ack", "dm_id": "ab", "sender": None}},
        {"span": {"start": 9, "end": 25}, "kind": "directive", "form": "shorthand", "engine": "TOOL", "op": "dm.send",
         "written_op": "dm.send", "args": {"to": "x"}},
    ]
    _, skipped = A.scan_with_diagnostics("[DM hi]")
    assert [s.to_dict() for s in skipped] == [
        {"span": {"start": 0, "end": 7}, "reason": "shorthand-without-object", "message": "`[DM` without a JSON object is ignored (D3)"}
    ]


def test_to_dict_copies_the_arguments() -> None:
    found = A.scan('[TOOL a.b {"n": [1]}]')
    d = found[0].to_dict()
    d["args"]["n"].append(2)
    assert found[0].item.args == {"n": [1]}


def test_grammar_comes_from_the_spec() -> None:
    with (ROOT / "schema" / "directives.json").open(encoding="utf-8") as f:
        directives = json.load(f)
    assert A.LIMITS == A.Limits(directives["limits"]["max_json_depth"], directives["limits"]["max_args_bytes"])
    # Every scanned structure's scan source is its bound pattern with flags inline (fixed groups reduced).
    for key, source in A.SCAN_SOURCES.items():
        kind = A.kind_from_key(key)
        assert kind is not None and source.startswith(kind.flag_prefix)
        # The pattern as the package compiles it: the spec's, a free-text group's
        # `runs_until` written out (P91).
        assert (source == dict(A.patterns.ALL)[kind.pattern_key]) == (key != "claim"), key
    assert "tool_call" not in A.SCAN_SOURCES, "tool calls are found as directives"
    assert A.SCAN_SOURCES["claim"] == A.patterns.VERB.replace("(?P<verb>ACK|CLAIM|RESULT|DECLINE|NO-ACTION)", "(?P<verb>CLAIM)")


def test_aliases_and_engines_follow_the_spec() -> None:
    with (ROOT / "schema" / "directives.json").open(encoding="utf-8") as f:
        d = json.load(f)
    for alias, op in d["aliases"].items():
        (found,) = A.scan(f"[TOOL {alias} {{}}]")
        assert isinstance(found.item, A.ToolDirective) and (found.item.op, found.item.written_op) == (op, alias)
    for info, engine in d["fences"]["info_strings"].items():
        (found,) = A.scan(f"```{info}\nx.y {{}}\n```")
        assert isinstance(found.item, A.ToolDirective) and (found.item.form, found.item.engine) == ("fence", engine)
