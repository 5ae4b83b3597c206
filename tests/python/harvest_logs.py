"""Deterministic JSON Lines message logs (``{"at", "from", "text"}``) for the
harvest tests and the harvest bench: short agent messages with sentences,
tool directives of every form, broken candidates and plain prose."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from typing import IO

_TEMPLATES = (
    "[ACK {id}] on it",
    "[ACK:{id}] [from {who}]",
    "[CLAIM {id}]",
    "[RESULT {id}] OK verified {n} endpoints",
    "[RESULT {id}] FAIL timeout after {n}s",
    "[DECLINE {id}] rate limited",
    "[NO-ACTION {id}] transient flap",
    "[JOB swarm-{id}/{n}] started",
    "[NUDGE {id}] [nudge 1/3] Deadline 19:45 UTC: please ack",
    "[fleet-alert] WARN: disk {n}% on node-{n}",
    '[TOOL followup.create {{"in_m": {n}, "prompt": "check {id}"}}]',
    '[DM {{"to": "{who}", "text": "done é {n}"}}]',
    '[EXEC box.run {{"cmd": "ls", "n": {n}.5}}]',
    '[TOOL a.b {{"x": {n},}}] broken, then [CLAIM {id}]',
    "[TOOL health.check] advertised only",
    "plain prose with no marker at all, {n} words",
    "`[CLAIM {id}]` is how to claim; [Directive: ship {id}]",
    "é 😀 [ACK {id}] and [RESULT {id}] OK done",
    "[Runtime Context: https://example.test/t/{id}]",
    "```tool\nfleet.status {{\"node\": \"n{n}\"}}\n```",
)
_SENDERS = ("super", "646", "agent-7", "ops_bot")


def messages(n: int, seed: int = 17) -> Iterator[dict[str, str]]:
    """``n`` messages, the same for the same seed."""
    rng = random.Random(seed)
    for i in range(n):
        text = rng.choice(_TEMPLATES).format(id=f"{rng.getrandbits(32):08x}", who=rng.choice(_SENDERS), n=rng.randrange(100))
        yield {"at": f"2026-01-{1 + i % 28:02d}T{i % 24:02d}:00:00Z", "from": rng.choice(_SENDERS), "text": text}


def write_log(path: str, n: int, seed: int = 17) -> int:
    """Writes ``n`` messages to ``path`` (gzip when it ends with ``.gz``); the bytes written (uncompressed)."""
    out: IO[bytes] = gzip.open(path, "wb", compresslevel=1) if path.endswith(".gz") else open(path, "wb")
    size = 0
    with out:
        for m in messages(n, seed):
            line = (json.dumps(m, ensure_ascii=False) + "\n").encode()
            out.write(line)
            size += len(line)
    return size
