"""Code as a user writes it against the installed package; ``cargo xtask test``
checks it with ``mypy --strict`` (and pytest imports it, so it runs too). Every
name used here is public API: the types come from the package and from the
native module's ``.pyi``, so a change that loses a type fails here."""

from __future__ import annotations

from typing import Any

import agent_sentences as A
from agent_sentences import Found, ParseError, Skipped, ToolDirective, scan, scan_many, scan_with_diagnostics
from agent_sentences.harvest import COLUMNS, FileReport, harvest


def calls_to_run(text: str) -> list[tuple[str, dict[str, object]]]:
    """The op and arguments of every tool call in a message."""
    return [(f.item.op, dict(f.item.args)) for f in scan(text) if isinstance(f.item, ToolDirective)]


def loops_closed(texts: list[str]) -> set[str]:
    """The job ids closed by results, across a batch."""
    closed: set[str] = set()
    for found in scan_many(texts):
        for f in found:
            if isinstance(f.item, A.Result):
                closed.add(f.item.job_id)
    return closed


def report(text: str) -> list[str]:
    """One line per found or skipped item, with `str` indexes."""
    found, skipped = scan_with_diagnostics(text)
    lines: list[str] = []
    for f in found:
        piece: str = text[f.span.char_start : f.span.char_end]
        lines.append(f"{f.span.start}-{f.span.end} {f.kind} {piece}")
    for s in skipped:
        reason: A.SkipReason = s.reason
        lines.append(f"{s.span.start}-{s.span.end} skipped {reason}: {s.message}")
    return lines


def first_found(text: str) -> Found | Skipped | None:
    found, skipped = scan_with_diagnostics(text)
    return found[0] if found else (skipped[0] if skipped else None)


def safe_scan(text: str) -> list[Found] | ParseError:
    try:
        return scan(text)
    except ParseError as e:
        return e


def harvest_or_explain(logs: list[str], out: str) -> list[str]:
    """A harvest's bad lines (typed without PyArrow's types: the package's own are enough)."""
    summary = harvest(logs, out, diagnostics=True)
    reports: list[FileReport] = summary.files
    return [e for r in reports for e in r.errors] + [name for name, _, _ in COLUMNS if name == "file"]


def test_typed_usage_runs() -> None:
    assert calls_to_run('[TOOL box {"cmd": "ls"}]') == [("box.exec", {"cmd": "ls"})]
    assert loops_closed(["[RESULT a1] OK done", "[RESULT b2] FAIL x", "none"]) == {"a1", "b2"}
    assert report('é [CLAIM 7f] [DM x]') == ["3-13 sentence [CLAIM 7f]", "14-20 skipped shorthand-without-object: `[DM` without a JSON object is ignored (D3)"]
    assert isinstance(first_found("[ACK 7f]"), Found)
    assert isinstance(safe_scan("\ud800"), ParseError)


def wrapped_or_none(message: str, id: str) -> str | None:
    """A typed use of the prompt envelope: the wrapped message, or None when it would not read back."""
    from agent_sentences import envelope

    try:
        return envelope.wrap(message, id)
    except envelope.EnvelopeError:
        return None


def resolved_minutes(text: str) -> int | None:
    """A typed use of the op catalogue: the minutes of the first follow-up call that would run."""
    from agent_sentences import ops

    for f in scan(text):
        if isinstance(f.item, ToolDirective):
            try:
                call = ops.resolve(f.item)
            except ops.ResolveError:
                continue
            if isinstance(call, ops.FollowupCreateArgs):
                return call.in_m
    return None


def native_minutes(name: str, arguments: str) -> int | None:
    """A typed use of native tool calls: an OpenAI-style tool call's follow-up minutes, if it would run."""
    from agent_sentences import ops

    tools: list[dict[str, Any]] = ops.native_tools("openai")
    listed: dict[str, Any] = ops.native_tools("mcp")
    assert len(tools) == len(listed["tools"])
    try:
        call = ops.resolve_native(name, arguments)
    except ops.ResolveError:
        return None
    return call.in_m if isinstance(call, ops.FollowupCreateArgs) else None


def test_typed_native_usage_runs() -> None:
    assert native_minutes("followup_create", '{"in_m": 5}') == 5
    assert native_minutes("followup.create", '{"in_m": 5}') is None


def test_typed_envelope_usage_runs() -> None:
    from agent_sentences import envelope

    assert wrapped_or_none(envelope.EXAMPLE_MESSAGE, envelope.EXAMPLE_ID) == envelope.EXAMPLE_TEXT
    assert wrapped_or_none(envelope.EXAMPLE_MESSAGE, "not an id") is None


def streamed_calls(pieces: list[str]) -> list[tuple[int, str]]:
    """A typed use of the streaming scan: each call's byte offset and op, as each becomes final."""
    stream = A.scan_stream()
    calls: list[tuple[int, str]] = []
    for piece in [*pieces, None]:
        events: list[Found | Skipped] = stream.finish() if piece is None else stream.push(piece)
        calls += [(e.span.start, e.item.op) for e in events if isinstance(e, Found) and isinstance(e.item, ToolDirective)]
    return calls


def chunk_calls(chunks: list[A.stream.ChatCompletionChunk]) -> int:
    """The chat-completion chunks of a model's response, typed as the protocol the adapter reads."""
    return sum(isinstance(e, Found) for e in A.scan_deltas(chunks))


def test_typed_stream_usage_runs() -> None:
    assert streamed_calls(['[TOOL box {"cmd": ', '"ls"}]\n\nok']) == [(0, "box.exec")]
    assert chunk_calls([]) == 0
