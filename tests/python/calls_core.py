"""The core the CommonMark differential's text generators share
(``commonmark_texts.py``, ``agent_replies.py``, and through the latter
``reference_docs.py``): the generated text and its calls, and the writer of
numbered calls each generator's drawer extends.

Every call carries a number ``n``, unique in its text, that the test finds
it by: ``[TOOL t.c{n} {"n": n}]`` / ``[EXEC …]`` (op ``t.c{n}``), ``[DM {…,
"n": n}]``, a directive fence with the body ``t.c{n} {"n": n}``, a curl line
posting ``{"op": "t.c{n}", "args": {"n": n}}`` to ``/exec``, and sentences
whose id is ``abcd{n}``. The generators differ in where they put calls and
in what text surrounds them; how a call is numbered, recorded and written
in the forms they share is here, once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class Call:
    """One call the generator wrote: its form and its text (for a fence, the body)."""

    n: int
    form: str  # bracket, shorthand, fence, curl, sentence
    text: str


@dataclass
class GenText:
    """A generated text, its calls by number and the constructs it holds."""

    index: int
    text: str
    calls: dict[int, Call]
    tags: set[str] = field(default_factory=set)


def rng(seed: int, i: int) -> random.Random:
    """The random source of a generator's ``i``-th text: its own, so each
    text is drawn alike whatever is drawn before it."""
    return random.Random(seed * 1_000_003 + i)


def curl_text(n: int, options: str = "") -> str:
    """The curl command line of call ``n``, ``options`` before the URL."""
    return f"curl {options}https://h/exec -d '{{\"op\": \"t.c{n}\", \"args\": {{\"n\": {n}}}}}'"


class CallWriter:
    """Numbers and records the calls of one text; the drawers extend it."""

    def __init__(self, rng: random.Random):
        self.r = rng
        self.n = 0
        self.calls: dict[int, Call] = {}
        self.tags: set[str] = set()

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def new(self) -> int:
        """The next call's number."""
        self.n += 1
        return self.n

    def record(self, n: int, form: str, text: str) -> str:
        """Records call ``n`` and returns its text."""
        self.calls[n] = Call(n, form, text)
        return text

    def fence_body(self) -> list[str]:
        """The body of a directive fence: a fresh call, one line or several."""
        n = self.new()
        if self.chance(0.3):
            lines = [f"t.c{n} {{", f'  "n": {n}', "}"]
        else:
            lines = [f't.c{n} {{"n": {n}}}']
        self.record(n, "fence", "\n".join(lines))
        return lines

    def curl_line(self, options: str = "") -> str:
        """A fresh curl line posting a call to ``/exec``, ``options`` before the URL."""
        self.tags.add("curl")
        n = self.new()
        return self.record(n, "curl", curl_text(n, options))
