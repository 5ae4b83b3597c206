"""The streaming scan from Python (``agent_sentences.stream``): every way of
cutting a text gives the events of the batch scan of the whole text, the Python
events are Rust's, and the adapters over model response streams feed every
delta and finish the stream.

The tests hold with any correct streaming engine: they compare what a stream
gives in all with the batch scan, never when an event comes."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

import agent_sentences as A
import vectors
from agent_replies import reply
from agent_sentences import _native
from agent_sentences.stream import Event

SEED = 35
TEXTS = [case["input"] for _, case in vectors.load("scan")] + [reply(i).text for i in range(12)]
TOKEN = re.compile(r"\s*\S+")


def batch(text: str) -> list[Event]:
    found, skipped = A.scan_with_diagnostics(text)
    return [*found, *skipped]


def key(e: Event) -> tuple[int, int, str]:
    return (e.span.start, e.span.end, json.dumps(e.to_dict(), sort_keys=True))


def in_order(events: list[Event]) -> list[Event]:
    """The events sorted by span and content: a stream commits in its own order,
    a batch scan lists found items, then skips."""
    return sorted(events, key=key)


def feed(pieces: list[str]) -> list[Event]:
    s = A.scan_stream()
    events: list[Event] = []
    for p in pieces:
        events += s.push(p)
    return events + s.finish()


def feed_bytes(pieces: list[bytes]) -> list[Event]:
    s = A.scan_stream()
    events: list[Event] = []
    for p in pieces:
        events += s.push_bytes(p)
    return events + s.finish()


def cut(seq: Any, rng: random.Random, most: int) -> list[Any]:
    """``seq`` cut at random points, pieces of 1 to ``most`` items."""
    out, i = [], 0
    while i < len(seq):
        n = rng.randint(1, most)
        out.append(seq[i : i + n])
        i += n
    return out


def tokens(text: str, rng: random.Random) -> list[str]:
    """Pieces of one to four words with the blanks before them, as a model's tokens come."""
    words = TOKEN.findall(text)
    tail = text[len("".join(words)) :]
    pieces = ["".join(w) for w in cut(words, rng, 4)]
    return pieces + [tail] if tail else pieces


def chunkings(text: str, i: int) -> Iterator[tuple[str, list[Event]]]:
    rng = random.Random(SEED * 7919 + i)
    yield "one character a piece", feed(list(text))
    yield "random cuts", feed(cut(text, rng, 40))
    yield "token-like pieces", feed(tokens(text, rng))
    data = text.encode()
    yield "random byte cuts", feed_bytes(cut(data, rng, 5))


@pytest.mark.parametrize("i", range(len(TEXTS)))
def test_every_chunking_gives_the_batch_scan(i: int) -> None:
    text = TEXTS[i]
    expected = in_order(batch(text))
    for how, events in chunkings(text, i):
        # Equal as objects: spans with their str indexes, items, reasons, messages;
        # nothing lost and nothing twice.
        assert in_order(events) == expected, (how, text)


def test_python_events_are_rusts_call_by_call() -> None:
    rng = random.Random(SEED)
    for text in TEXTS[::7]:
        pieces = cut(text, rng, 16)
        s = A.scan_stream()
        calls = [s.push(p) for p in pieces] + [s.finish()]
        got = [[{"event": "found" if isinstance(e, A.Found) else "skipped", **e.to_dict()} for e in call] for call in calls]
        assert got == json.loads(_native.stream_json(pieces)), text


def test_spans_count_from_the_start_of_the_stream_in_bytes_and_characters() -> None:
    text = "é😀 [CLAIM 7fce46e0]\n\nsee [ACK 7fce46e0]"
    events = in_order(feed(["é", "😀 [CLA", "IM 7fce46e0]\n", "\nsee [ACK 7fce46e0]"]))
    assert [text[e.span.char_start : e.span.char_end] for e in events] == ["[CLAIM 7fce46e0]", "[ACK 7fce46e0]"]
    data = text.encode()
    assert [data[e.span.start : e.span.end].decode() for e in events] == ["[CLAIM 7fce46e0]", "[ACK 7fce46e0]"]
    # Bytes cut inside each multi-byte character give the same events.
    assert in_order(feed_bytes([data[i : i + 1] for i in range(len(data))])) == events


def test_bytes_that_are_not_utf8_fail_the_stream_at_their_offset() -> None:
    s = A.scan_stream()
    s.push("ok [CLAIM 7f]\n\n")
    with pytest.raises(A.StreamError) as bad:
        s.push_bytes(b"ab\xffcd")
    assert bad.value.at == len("ok [CLAIM 7f]\n\nab") and str(bad.value.at) in str(bad.value)
    with pytest.raises(ValueError, match="failed"):
        s.push("more")
    cut_short = A.scan_stream()
    cut_short.push_bytes("x é".encode()[:-1])
    assert cut_short.offset == 3
    with pytest.raises(A.StreamError) as end:
        cut_short.finish()
    assert end.value.at == 2


def test_text_after_bytes_cut_inside_a_character_fails_the_stream_there() -> None:
    # P351: the character can never be completed; nothing after it is scanned.
    s = A.scan_stream()
    head = "é [CLAIM 7f]\n\n".encode()
    assert s.push_bytes(head + "é".encode()[:1]) == []
    # `push` raises ValueError when the stream fails (its documented error).
    with pytest.raises(ValueError, match=f"not UTF-8 at byte {len(head)}'"):
        s.push("x\n\n[ACK 7f]\n\nz\n")
    with pytest.raises(ValueError, match="failed"):
        s.finish()


def test_a_finished_stream_takes_nothing_more() -> None:
    s = A.scan_stream()
    assert s.push("[CLAIM 7f]") + s.finish() == A.scan("[CLAIM 7f]")
    for call in (lambda: s.push("x"), lambda: s.push_bytes(b"x"), s.finish):
        with pytest.raises(ValueError, match="finished"):
            call()


def test_a_lone_surrogate_is_refused_at_its_stream_offset_and_nothing_is_pushed() -> None:
    s = A.scan_stream()
    s.push("é ")
    with pytest.raises(A.ParseError) as e:
        s.push("ab\ud800")
    assert e.value.offset == len("é ab".encode())
    assert s.offset == 3
    assert [f.span.start for f in s.push("[CLAIM 7f]") + s.finish()] == [3]
    with pytest.raises(TypeError):
        s.push(b"x")  # type: ignore[arg-type]


REPLY = 'On it.\n\n[CLAIM 7fce46e0]\n\n[TOOL health.check {"node": "warp-dev"}]\n\n[TOOL a.b {"x": 1,}]\n\nDone [ACK 7fce46e0]'


def openai_chunks(text: str, as_objects: bool) -> list[Any]:
    """A fake OpenAI chat-completion stream of ``text``: a role chunk, content
    chunks for choice 0 interleaved with choice 1's, an empty finish chunk and a
    usage chunk without choices."""

    def chunk(choices: list[dict[str, Any]]) -> Any:
        c = {"id": "c", "object": "chat.completion.chunk", "choices": choices}
        if not as_objects:
            return c
        return SimpleNamespace(**{**c, "choices": [SimpleNamespace(index=x["index"], delta=SimpleNamespace(**x["delta"])) for x in choices]})

    out = [chunk([{"index": 0, "delta": {"role": "assistant", "content": None}}])]
    for piece in tokens(text, random.Random(SEED)):
        out.append(chunk([{"index": 1, "delta": {"content": "[CLAIM 99]\n\n"}}]))
        out.append(chunk([{"index": 0, "delta": {"content": piece}}]))
    out.append(chunk([{"index": 0, "delta": {"content": None}}]))
    out.append(chunk([]))
    return out


@pytest.mark.parametrize("as_objects", [False, True])
def test_scan_deltas_reads_openai_chunks_of_choice_0_and_finishes(as_objects: bool) -> None:
    events = list(A.scan_deltas(openai_chunks(REPLY, as_objects)))
    assert in_order(events) == in_order(batch(REPLY))
    assert any(isinstance(e.item, A.Ack) for e in events if isinstance(e, A.Found)), "the last item comes at the end"
    other = list(A.scan_deltas(openai_chunks(REPLY, as_objects), choice=1))
    assert in_order(other) == in_order(batch("[CLAIM 99]\n\n" * len(tokens(REPLY, random.Random(SEED)))))


def test_scan_deltas_reads_strings_bytes_and_response_events() -> None:
    pieces: list[A.stream.Delta] = [
        {"type": "response.created"},
        {"type": "response.output_text.delta", "delta": REPLY[:30]},
        REPLY[30:60],
        REPLY[60:].encode(),
        SimpleNamespace(type="response.completed"),
    ]
    assert in_order(list(A.scan_deltas(pieces))) == in_order(batch(REPLY))


def test_scan_deltas_fails_loudly() -> None:
    with pytest.raises(TypeError, match="chunk 1"):
        list(A.scan_deltas(["[CLAIM 7f]", 7]))  # type: ignore[list-item]
    with pytest.raises(TypeError, match="chunk 0"):
        list(A.scan_deltas([{"id": "x"}]))
    with pytest.raises(ValueError, match="rate limited"):
        list(A.scan_deltas(["a", {"error": {"message": "rate limited"}}]))
    with pytest.raises(A.StreamError):
        list(A.scan_deltas([b"\xff"]))

    def broken() -> Iterator[str]:
        yield "[CLAIM 7fce46e0]"
        raise ConnectionError("reset")

    # A cut reply is not finished: its last item, which only the end of the reply
    # makes final, is not committed.
    seen: list[Event] = []
    with pytest.raises(ConnectionError):
        for event in A.scan_deltas(broken()):
            seen.append(event)
    assert seen == []


def test_ascan_deltas_gives_what_scan_deltas_gives() -> None:
    chunks = openai_chunks(REPLY, as_objects=False)

    async def source() -> AsyncIterator[Any]:
        for c in chunks:
            await asyncio.sleep(0)
            yield c

    async def collect() -> list[Event]:
        return [e async for e in A.ascan_deltas(source())]

    assert asyncio.run(collect()) == list(A.scan_deltas(chunks))
