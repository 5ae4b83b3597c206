"""Text generators for the scanner's property tests (``test_scan.py``) and the
cross-language comparison (``differential.py``): random strings over a pool of
the scanner's own tokens, and valid messages with random mutations."""

from __future__ import annotations

import random

import agent_sentences as A

# Pieces the scanner reacts to, plus ordinary text, non-ASCII and controls.
TOKENS = [
    "[", "]", "{", "}", '"', "\\", "`", "``", "```", "~~~", "\n", "\r\n", "\r", " ", "  ", "\t", ":", ",",
    "[TOOL ", "[EXEC ", "[DM ", "[DM{", "[TOOL\n", "op", "a.b", "dm", "box", "tools", " {", "{}", '{"a": 1}',
    '"x"', '"k": ', "true", "null", "-0", "1e5", "18446744073709551616", "\\u00e9", "\\ud800", "\\n",
    "[RESULT ", "[ACK:", "[ACK ", "[CLAIM ", "[DECLINE ", "[NO-ACTION ", "[JOB ", "[NUDGE ", "[nudge 1/3] ",
    "Deadline ", "[WO:", "[from super] ", "—", "Reply: ", " seen | ", " mine | ", " done | ", "[fleet-alert] ",
    "CRITICAL: ", "[Directive: ", "[Runtime Context: ", "https://h/x", "[SUBAGENT-UPDATE] ", "Subagent 'x' ",
    "(a1b2c3) has posted new output.", "7fce46e0", "OK ", "FAIL ", "curl ", "curl -d ", "https://h/exec",
    "http://h/exec/", " -d ", " --json ", "'", "tool", "exec", "box\n", "é", "🔥", "✓", "\u2028", "\u00a0",
    "\x00", "\x1c", "text ", "word", "\ufeff",
]

# Valid messages: each structure's example and every directive form.
PIECES = [k.example_sentence for k in A.KINDS if k.key != "tool_call"] + [
    '[TOOL followup.create {"in_m": 5, "prompt": "check [CLAIM 1]"}]',
    '[EXEC\n  health.check\n  {"deep": {"a": [1, {"b": "}]"}]}}\n]',
    '[DM {"to": "646", "text": "hi ✓"}]',
    '[TOOL dm {"to": "pip"}]',
    "```tool\nfollowup.create {\"in_m\": 5}\n```",
    "~~~box\nbox {\"action\": \"status\"}\n~~~",
    "```text\n[CLAIM 2]\n```",
    "curl -s https://exec.example/exec -d '{\"op\": \"tools.list\", \"args\": {}}'",
    "Use `[CLAIM 1]` to claim.",
    "[TOOL swarm.spawn] [TOOL cron.create]",
    "Reply: [ACK 7f] seen | [CLAIM 7f] mine | [RESULT 7f] done | [DECLINE 7f] | [NO-ACTION 7f].",
    "plain prose, nothing to find.",
]


def random_text(rng: random.Random, max_tokens: int = 40) -> str:
    """A random string: tokens of :data:`TOKENS` and random code points (a lone surrogate now and then)."""
    out = []
    for _ in range(rng.randint(0, max_tokens)):
        r = rng.random()
        if r < 0.75:
            out.append(rng.choice(TOKENS))
        elif r < 0.995:
            out.append(chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0x80, 0xD7FF), rng.randint(0xE000, 0x10FFFF)])))
        else:
            out.append(chr(rng.randint(0xD800, 0xDFFF)))
    return "".join(out)


def valid_message(rng: random.Random) -> str:
    """Several valid pieces joined by prose, blanks or line breaks."""
    parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 5))]
    return "".join(p + rng.choice([" ", "\n", "\r\n", " and ", "\n\n", ""]) for p in parts)


def mutated_message(rng: random.Random) -> str:
    """A valid message with a few random edits: deletions, insertions of tokens, duplicated or moved slices."""
    text = valid_message(rng)
    for _ in range(rng.randint(1, 4)):
        if not text:
            break
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randint(0, 12))
        op = rng.randrange(5)
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        elif op == 2:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 3:
            k = rng.randrange(len(text) + 1)
            piece, rest = text[i:j], text[:i] + text[j:]
            k = min(k, len(rest))
            text = rest[:k] + piece + rest[k:]
        else:
            text = text[:i] + text[j:][::-1] if rng.random() < 0.3 else text[:i] + text[i:j].upper() + text[j:]
    return text
