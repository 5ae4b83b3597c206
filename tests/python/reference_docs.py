"""Realistic documents with link reference definitions, the third generator of
the CommonMark differential test (``test_commonmark.py``).

READMEs, design notes and long replies keep their link targets in reference
definitions (``[docs]: https://…``): at the end of the document, between
paragraphs, right before the line they serve, inside list items, indented by
up to three spaces, with titles, over two lines. Prose beside them uses the
labels as full (``[the guide][docs]``), collapsed (``[docs][]``) and shortcut
(``[docs]``) references, at the end of a paragraph too. This generator writes
such documents with the calls of ``agent_replies.py`` where an author puts
them: on the line right after a definition (a paragraph that starts once the
definitions end), in list items under one, before and after definition
blocks, and in paragraphs that end with a reference.

``doc(i)`` is the i-th document: deterministic (its own ``random.Random``
seeded from ``SEED`` and ``i``). Calls are numbered as in ``agent_replies.py``.
``GenText.tags`` holds ``after-definition:<n>`` for each call ``n`` written on
the first line after a definition's last line (the shape the issue measured),
so the test counts the refusals there apart.
"""

from __future__ import annotations

import random

from agent_replies import Reply
from calls_core import GenText, rng

SEED = 20261207
"""The generator's seed; document ``i`` is drawn from ``Random(SEED * 1_000_003 + i)``."""

TAGS = (
    "definition-end", "definition-between", "definition-before-call", "definition-in-list", "definition-indented",
    "definition-title", "definition-two-lines", "reference-full", "reference-collapsed", "reference-shortcut",
    "reference-ends-paragraph", "image-reference", "curl-argument",
)

LABELS = ("docs", "guide", "api", "issue 12", "PR", "ci", "1", "2", "spec", "Changelog")
URLS = ("https://example.com/docs", "https://example.com/guide.html", "/api/v1", "https://example.com/issues/12",
        "<https://example.com/pr/7>", "https://ci.example.com/job/3", "./CHANGELOG.md")


class Doc(Reply):
    """Draws one document."""

    def __init__(self, rng: random.Random):
        super().__init__(rng)
        self.defined: list[str] = []

    def label(self) -> str:
        label = self.r.choice(LABELS)
        if label not in self.defined:
            self.defined.append(label)
        return label

    def definition(self, indent: int = 0) -> list[str]:
        """One definition, on one line or two."""
        r = self.r
        label, url = self.label(), r.choice(URLS)
        pad = " " * indent
        if indent:
            self.tags.add("definition-indented")
        title = ""
        if self.chance(0.3):
            self.tags.add("definition-title")
            title = " " + r.choice(('"The guide"', "'API reference'", "(issue)"))
        if self.chance(0.15):
            self.tags.add("definition-two-lines")
            return [f"{pad}[{label}]:", f"{pad}  {url}{title}"]
        return [f"{pad}[{label}]: {url}{title}"]

    def definitions(self, indent: int = 0) -> list[str]:
        out: list[str] = []
        for _ in range(self.r.randint(1, 3)):
            out.extend(self.definition(indent))
        return out

    def reference(self) -> str:
        r = self.r
        label = self.label()
        c = r.random()
        if c < 0.35:
            self.tags.add("reference-full")
            return f"[{r.choice(('the guide', 'this', 'the docs', 'here'))}][{label}]"
        if c < 0.7:
            self.tags.add("reference-collapsed")
            return f"[{label}][]"
        if c < 0.9:
            self.tags.add("reference-shortcut")
            return f"[{label}]"
        self.tags.add("image-reference")
        return f"![{label}][]"

    def line(self) -> str:
        """A prose line with a call and, often, a reference."""
        r = self.r
        parts = [r.choice(("See", "Then", "Per", "Run", "Also", "Next:", "Done:"))]
        pieces = [self.call(), self.words(1)]
        if self.chance(0.6):
            pieces.append(self.reference())
        r.shuffle(pieces)
        parts.extend(pieces)
        if self.chance(0.25):
            self.tags.add("reference-ends-paragraph")
            parts.append(self.reference())
        return " ".join(parts)

    def after_definition(self) -> list[str]:
        """Definitions, then at once the lines they serve, the first with a call."""
        self.tags.add("definition-before-call")
        out = self.definitions(self.r.choice((0, 0, 0, 1, 3)))
        first = self.n + 1
        out.append(self.line())
        for n in range(first, self.n + 1):
            self.tags.add(f"after-definition:{n}")
        for _ in range(self.r.randint(0, 2)):
            out.append(self.line())
        return out

    def list_with_definitions(self) -> list[str]:
        r = self.r
        self.tags.add("definition-in-list")
        marker = r.choice(("-", "*", "1."))
        width = len(marker) + 1
        out: list[str] = []
        for k in range(r.randint(1, 3)):
            m = f"{k + 1}." if marker == "1." else marker
            c = r.random()
            if c < 0.4:
                # The item starts with a definition; its text follows at once.
                first, *rest = self.definitions()
                out.append(f"{m} {first}")
                out.extend(" " * width + line.lstrip() for line in rest)
                start = self.n + 1
                out.append(" " * width + self.line())
                for n in range(start, self.n + 1):
                    self.tags.add(f"after-definition:{n}")
            elif c < 0.7:
                out.append(f"{m} {self.line()}")
                out.append("")
                out.extend(" " * width + line for line in self.definitions())
                out.append("")
            else:
                out.append(f"{m} {self.line()}")
        return out

    def block(self) -> list[str]:
        r = self.r
        c = r.randrange(100)
        if c < 30:
            return [self.line() for _ in range(r.randint(1, 3))]
        if c < 55:
            return self.after_definition()
        if c < 70:
            self.tags.add("definition-between")
            return self.definitions(r.choice((0, 0, 2)))
        if c < 85:
            return self.list_with_definitions()
        if c < 86:
            self.tags.add("curl-argument")
            return [f"curl {self.call()}"]
        return super().block()


def doc(i: int) -> GenText:
    """The i-th document."""
    r = rng(SEED, i)
    g = Doc(r)
    lines: list[str] = [f"# {r.choice(('Setup', 'Release notes', 'Design', 'Runbook', 'Status'))}"]
    for _ in range(r.randint(2, 6)):
        lines.append("")
        lines.extend(g.block())
    if g.defined and r.random() < 0.7:
        g.tags.add("definition-end")
        lines.append("")
        lines.extend(f"[{label}]: {r.choice(URLS)}" for label in g.defined)
    body = "\n".join(lines) + "\n"
    return GenText(i, body, g.calls, g.tags)


def after_definition(g: GenText) -> set[int]:
    """The calls of ``g`` written on the first line after a definition."""
    return {int(t.split(":", 1)[1]) for t in g.tags if t.startswith("after-definition:")}
