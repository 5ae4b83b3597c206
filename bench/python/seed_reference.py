"""The approach the generated package replaces, as the seeds describe it.

- Seed 001's own regexes (``seed_pattern`` in schema/regex_patterns.json, read
  from the spec, not copied) run with ``re.finditer`` over each message; each
  match gives its ``groupdict()``, the "structured dictionary mapping" that
  seed 001's ``docs parse --json`` prints.
- Seed 003's harvester, ``parse_tool_calls()``: from each ``[TOOL op``,
  ``[EXEC op`` or ``[DM`` opener (the ``[DM {…}]`` shorthand for ``dm.send``),
  count braces (skipping JSON strings) until they balance, then ``json.loads``
  the object; and the fenced ```` ```box ````/``tool``/``exec`` blocks, whose
  body is ``op {json}``. Broken JSON is skipped silently (D4).

Not reproduced: 003's curl-to-``/exec`` payloads, for which the seeds give no
pattern.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FLAGS = {"MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL}


def load_seed_patterns(spec_path: str) -> list[re.Pattern[str]]:
    """Compiles every pattern the seed printed, with its flags."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    out = []
    for entry in spec["patterns"].values():
        seed = entry.get("seed_pattern")
        if seed is None:
            continue
        flags = 0
        for name in entry.get("flags", []):
            flags |= _FLAGS[name]
        out.append(re.compile(seed, flags))
    return out


_OPENER = re.compile(r"\[(?:(?:TOOL|EXEC)\s+([a-zA-Z0-9_.-]+)|(DM))\s*\{")
_FENCE = re.compile(r"^```(?:box|tool|exec)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_FENCE_BODY = re.compile(r"\s*([a-zA-Z0-9_.-]+)\s+(\{.*\})\s*", re.DOTALL)


def brace_scan(text: str) -> list[tuple[str, Any]]:
    """Tool calls found by counting braces from each opener."""
    calls = []
    for m in _OPENER.finditer(text):
        start = m.end() - 1
        depth = 0
        in_string = False
        escaped = False
        for i in range(start, len(text)):
            c = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    try:
                        calls.append((m.group(1) or "dm.send", json.loads(text[start : i + 1])))
                    except ValueError:
                        pass
                    break
    return calls


def fence_calls(text: str) -> list[tuple[str, Any]]:
    """Tool calls in directive fences: the body is ``op {json}``."""
    calls = []
    for m in _FENCE.finditer(text):
        body = _FENCE_BODY.fullmatch(m.group(1))
        if body is None:
            continue
        try:
            calls.append((body.group(1), json.loads(body.group(2))))
        except ValueError:
            pass
    return calls


def scan(patterns: list[re.Pattern[str]], text: str) -> list[Any]:
    """Everything the seed approach finds in one message: each pattern match's
    ``groupdict()``, then the tool calls as ``(op, args)``."""
    found: list[Any] = [m.groupdict() for p in patterns for m in p.finditer(text)]
    return found + brace_scan(text) + fence_calls(text)
