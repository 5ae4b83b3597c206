r"""The conformance kit's adapter for the seed's harvester: the four patterns
seed 001 (``REGEX-PATTERNS.md``) prints, written here exactly as the seed
writes them, with the seed's flags, run the way its harvester runs them
(P317):

- a scan runs each pattern over the text with ``finditer``; a whole sentence
  (``"mode": "sentence"``) is each pattern's ``fullmatch``, as the seed's
  ``docs regex NAME --test`` checks a text;
- a match becomes the item of the structure whose ``regex_ref`` names its
  pattern: ``work_order`` (the seed's ``wo_id`` is the field ``dm_id``);
  ``verb`` by its verb, ``CLAIM`` a ``claim``, ``DECLINE`` a ``decline``,
  ``NO-ACTION`` a ``no_action`` (an ``ACK`` or ``RESULT`` verb match is left
  to ``ack`` and ``result``, whose ``regex_ref`` is not ``verb``);
  ``result``; ``tool_call``, whose ``args`` group is ``json.loads``-ed (in a
  scan a call, in a whole sentence a ``tool_call``); a group that took no
  part is absent;
- a JSON payload that does not load is skipped silently (seed 003, D4), and
  nothing is ever refused with a reason: the seed reports none;
- offsets are converted from characters to UTF-8 bytes.

    box-docs conformance python3 conformance/adapters/seed_regexes.py

``tests/python/test_conformance.py`` checks that these are the spec's
``seed_pattern``s.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

# Seed 001, section 2, verbatim (flags as the seed lists them).
SEED_PATTERNS: dict[str, tuple[str, int]] = {
    "work_order": (r"^\[WO:(?P<wo_id>[a-f0-9-]+)\]\s+\[from\s+(?P<sender>[a-zA-Z0-9_-]+)\]\s+(?P<title>[^—\n]+?)\s*—\s*(?P<body>.+)$", re.MULTILINE | re.DOTALL),
    "verb": (r"\[(?P<verb>ACK|CLAIM|RESULT|DECLINE|NO-ACTION)\s+(?P<job_id>[A-Za-z0-9_/-]+)\]", 0),
    "result": (r"\[RESULT\s+(?P<job_id>[A-Za-z0-9_/-]+)\]\s*(?P<status>OK|FAIL|DECLINE|SUCCESS|ERROR)?\s*(?P<summary>.*?)(?=\[RESULT\s|\Z)", re.DOTALL),
    "tool_call": (r"\[(?P<engine>TOOL|EXEC)\s+(?P<op>[a-zA-Z0-9_.-]+)\s+(?P<args>\{.*?\})\]", 0),
}
COMPILED = {key: re.compile(p, flags) for key, (p, flags) in SEED_PATTERNS.items()}
VERB_STRUCTURES = {"CLAIM": "claim", "DECLINE": "decline", "NO-ACTION": "no_action"}


def to_bytes(text: str, index: int) -> int:
    """A character offset of ``text`` as a UTF-8 byte offset."""
    return len(text[:index].encode("utf-8"))


def item(key: str, m: re.Match[str], text: str, whole: bool) -> dict[str, Any] | None:
    """The kit item of one match of pattern ``key``, or None when the harvester would drop it."""
    span = [to_bytes(text, m.start()), to_bytes(text, m.end())]
    groups = {k: v for k, v in m.groupdict().items() if v is not None}
    if key == "work_order":
        groups["dm_id"] = groups.pop("wo_id")
        return {"span": span, "kind": "sentence", "structure": "work_order", "value": groups}
    if key == "verb":
        structure = VERB_STRUCTURES.get(groups.pop("verb"))
        return None if structure is None else {"span": span, "kind": "sentence", "structure": structure, "value": groups}
    if key == "result":
        return {"span": span, "kind": "sentence", "structure": "result", "value": groups}
    try:
        args = json.loads(groups["args"])
    except ValueError:
        return None  # seed 003, D4: broken JSON is skipped silently
    if whole:
        return {"span": span, "kind": "sentence", "structure": "tool_call", "value": {"op": groups["op"], "args_json": args}}
    return {"span": span, "kind": "directive", "engine": groups["engine"], "op": groups["op"], "args": args}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """What the seed's harvester reads in one request's text."""
    text = request["text"]
    whole = request["mode"] == "sentence"
    items = []
    for key, pattern in COMPILED.items():
        matches = [m for m in [pattern.fullmatch(text)] if m] if whole else list(pattern.finditer(text))
        items += [i for i in (item(key, m, text, whole) for m in matches) if i is not None]
    if request.get("as"):
        items = [i for i in items if i["structure"] == request["as"]]
    return {"id": request["id"], "items": items, "refusals": []}


def main() -> int:
    """Answers every request line until standard input closes."""
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        out = answer(request)
        try:
            # NaN, Infinity or a lone surrogate, which json.loads takes, have no
            # JSON text or no UTF-8: the call is reported as unrepresentable
            # (no kit item matches it), not dropped.
            json.dumps(out, ensure_ascii=False, allow_nan=False).encode("utf-8")
            written = json.dumps(out, ensure_ascii=True)
        except ValueError:
            written = json.dumps({"id": request["id"], "items": [{"unrepresentable": ascii(out["items"])}], "refusals": []})
        sys.stdout.write(written + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
