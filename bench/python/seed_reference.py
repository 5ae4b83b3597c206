"""The approach the generated package replaces, as the seeds describe it.

The seed's own regexes (`seed_pattern` in schema/regex_patterns.json, read
from the spec, not copied) run with ``re.finditer`` over each message, plus
the brace-counting tool-call scan of seed 003's harvester: from each
``[TOOL``/``[EXEC`` opener, count braces (skipping JSON strings) until they
balance, then ``json.loads`` the object.
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


_OPENER = re.compile(r"\[(TOOL|EXEC)\s+([a-zA-Z0-9_.-]+)\s+\{")


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
                        calls.append((m.group(2), json.loads(text[start : i + 1])))
                    except ValueError:
                        pass
                    break
    return calls


def scan(patterns: list[re.Pattern[str]], text: str) -> int:
    """Everything the seed approach finds in one message; returns the count."""
    n = 0
    for p in patterns:
        for _ in p.finditer(text):
            n += 1
    return n + len(brace_scan(text))
