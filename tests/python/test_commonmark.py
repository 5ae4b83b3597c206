"""The CommonMark differential test (issue 12): what runs is what a reader sees.

``commonmark_texts.text(i)`` writes ``COUNT`` Markdown texts with numbered
calls at many points; the scanner (``agent_sentences.scan_many``, the native
Rust scanner) scans them, and an independent CommonMark implementation,
markdown-it-py (pinned in ``requirements.txt``; its ``commonmark`` preset with
the GFM ``table`` and ``strikethrough`` rules enabled, nothing else: no
linkify, no typographer), judges every call the scanner found.

What "the reference shows it as ordinary text" means here
---------------------------------------------------------
The text is given to markdown-it-py as a renderer receives it: a leading
byte order mark is dropped first (cmark, commonmark.js and micromark drop it;
markdown-it-py does not, and would otherwise read ``BOM    code`` as a
paragraph). markdown-it normalizes CRLF and lone CR to LF itself.

A found *inline* call or sentence (bracket, shorthand, curl, sentence) is shown
as ordinary text only if its text as written in the source (the found span,
with every run of ASCII whitespace collapsed to one space, since a renderer
shows a line break or an indent inside a paragraph as a space) lies inside the
*rendered* text of one run of consecutive ``text`` / ``softbreak`` /
``hardbreak`` children of one ``inline`` token, that inline token being outside
every blockquote. Rendered text means the text tokens' content: entities
decoded, backslash escapes applied, emphasis, strikethrough, link and code
span delimiters removed. So a call is ordinary text only if a reader sees
exactly the characters that run, in one piece, in one block:

- inside a code span (``code_inline``), inline HTML or an HTML comment
  (``html_inline``), an image description or title (the ``image`` token and
  its children), a link destination or title (attributes), a reference
  definition (no token at all), a fenced or indented code block, an HTML
  block, or any block inside a blockquote, it is not (it is quoted or hidden);
- where an emphasis, strikethrough or link delimiter, a code span, inline HTML,
  a hard break by backslash, an entity or an escape starts or ends inside it,
  the rendered characters differ from the source (``*`` wildcards vanish,
  ``&amp;`` shows as ``&``, ``[call](/u)`` loses its brackets), so it is not;
- across two blocks (a paragraph line then a heading, an indented code block,
  a fence, a list item or a blockquote) it is in no single run, so it is not;
- wholly inside emphasis, strong text, strikethrough, link text, a heading or
  a table cell, it is (the reader sees those characters, styled).

A found *fence* call is shown as a call only if markdown-it reports a
top-level ``fence`` token (level 0: not inside a list item or a blockquote,
the fail-closed decision of issue 12) whose info string *as written* (no
entity or escape decoding) has ``tool``, ``exec`` or ``box`` as its first
word, whose closing fence is present (an unclosed fence runs to the end of the
text), and whose content, whitespace collapsed, is exactly the op and object
the generator wrote.

Anything else the scanner finds (an item no call of the generator accounts
for) is a failure too. The test asserts that no found item fails the judge,
and reports (as a warning, so that ``-q`` runs show it) how many calls the
reference shows as ordinary text (or as a top-level directive fence) that the
scanner did not find: the fail-closed cost.
"""

from __future__ import annotations

import re
import json
import warnings
from pathlib import Path
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from markdown_it import MarkdownIt

import agent_sentences as A
import commonmark_texts as C

COUNT = 20_000
"""How many generated texts the differential test judges."""
REPORT = 5
"""How many failing texts the assertion message shows (minimised)."""

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
WS = re.compile(r"[ \t\n\r\f\v]+")
DIRECTIVE_WORDS = ("tool", "exec", "box")


def collapse(s: str) -> str:
    return WS.sub(" ", s)


@dataclass
class Reference:
    """What markdown-it-py shows of one text."""

    plain: list[str] = field(default_factory=list)
    """Every run of ordinary text (collapsed), outside blockquotes."""
    fences: list[str] = field(default_factory=list)
    """The collapsed, stripped content of every closed top-level directive fence."""
    other: list[tuple[str, str]] = field(default_factory=list)
    """(where, collapsed text) of everything else shown or hidden, to name why a call is rejected."""

    def is_plain(self, written: str) -> bool:
        needle = collapse(written).strip()
        return any(needle in run for run in self.plain)

    def is_fence(self, body: str) -> bool:
        return collapse(body).strip() in self.fences

    def why_not(self, written: str) -> str:
        """The first place (in a fixed order) where the call's text is found, or why none is."""
        needle = collapse(written).strip()
        for where, content in self.other:
            if needle in content or needle.upper() in content:
                return where
        return "not shown as written (split by markup, an entity, a link or a block boundary)"


def _closed(lines: list[str], token: Any) -> bool:
    """Whether a top-level fence token ends on a closing fence line."""
    last = lines[token.map[1] - 1] if token.map[1] - 1 < len(lines) else ""
    if token.map[1] - token.map[0] < 2:
        return False
    stripped = last.lstrip(" ")
    if len(last) - len(stripped) > 3:
        return False
    run = len(stripped) - len(stripped.lstrip(token.markup[0]))
    return run >= len(token.markup) and stripped[run:].strip(" \t") == ""


def reference(text: str) -> Reference:
    """markdown-it-py's reading of ``text``."""
    src = text[1:] if text.startswith("\ufeff") else text
    env: dict[str, Any] = {}
    tokens = MD.parse(src, env)
    lines = re.split(r"\r\n|\r|\n", src)
    ref = Reference()
    for label, d in env.get("references", {}).items():
        ref.other.append(("a reference definition", collapse(f"{label} {d.get('href', '')} {d.get('title', '')}").upper()))
        ref.other.append(("a reference definition", collapse(f"[{label}]: <{d.get('href', '')}> '{d.get('title', '')}'")))
    quote = 0
    for t in tokens:
        if t.type == "blockquote_open":
            quote += 1
        elif t.type == "blockquote_close":
            quote -= 1
        elif t.type == "fence":
            first = (t.info.split() or [""])[0]
            content = collapse(t.content).strip()
            if first in DIRECTIVE_WORDS and t.level == 0 and _closed(lines, t):
                ref.fences.append(content)
            else:
                where = "a directive fence in a list item or blockquote" if first in DIRECTIVE_WORDS and t.level > 0 else (
                    "an unclosed directive fence" if first in DIRECTIVE_WORDS and t.level == 0 else "a fenced code block")
                ref.other.append((where, content))
        elif t.type == "code_block":
            ref.other.append(("an indented code block", collapse(t.content)))
        elif t.type == "html_block":
            ref.other.append(("an HTML block", collapse(t.content)))
        elif t.type == "inline":
            if quote > 0:
                ref.other.append(("a blockquote", collapse(t.content)))
                continue
            run: list[str] = []
            for c in t.children or []:
                if c.type == "text":
                    run.append(c.content)
                    continue
                if c.type in ("softbreak", "hardbreak"):
                    run.append("\n")
                    continue
                if run:
                    ref.plain.append(collapse("".join(run)))
                    run = []
                if c.type == "code_inline":
                    ref.other.append(("a code span", collapse(c.content)))
                elif c.type == "html_inline":
                    ref.other.append(("inline HTML", collapse(c.content)))
                elif c.type == "image":
                    alt = "".join(x.content for x in c.children or [])
                    ref.other.append(("an image description", collapse(alt)))
                    ref.other.append(("an image description", collapse(str(c.attrs.get("title", "")))))
                    ref.other.append(("an image description", collapse(unquote(str(c.attrs.get("src", ""))))))
                elif c.type == "link_open":
                    href = unquote(str(c.attrs.get("href", "")))
                    ref.other.append(("a link destination or title", collapse(f"{href} {c.attrs.get('title', '')}")))
            if run:
                ref.plain.append(collapse("".join(run)))
            # The raw inline, for naming why a split call is not shown.
            ref.other.append(("not shown as written (split by markup, an entity, a link or a block boundary)", collapse(t.content)))
    return ref


def _number(f: Any) -> int | None:
    """The generator's number of a found item, or None."""
    item = f.item
    if f.kind == "sentence":
        d = item.to_sentence_dict()
        ident = d.get("dm_id") or d.get("job_id") or ""
        m = re.fullmatch(r"abcd(\d+)", ident)
        return int(m.group(1)) if m else None
    if item.op == "dm.send":
        n = item.args.get("n")
        return n if isinstance(n, int) else None
    m = re.fullmatch(r"t\.c(\d+)", item.op)
    return int(m.group(1)) if m else None


def _byte_slice(text: str, start: int, end: int) -> str:
    return text.encode("utf-8")[start:end].decode("utf-8")


def failures_of(g: C.GenText, found: list[Any], ref: Reference | None = None) -> list[tuple[int | None, str, str]]:
    """(call number, found text, why the reference does not show it so) for every found item the judge rejects."""
    ref = ref or reference(g.text)
    out = []
    for f in found:
        written = _byte_slice(g.text, f.span.start, f.span.end)
        n = _number(f)
        call = g.calls.get(n) if n is not None else None
        if call is None:
            out.append((n, written, "found something the generator did not write as a call"))
            continue
        if f.kind == "directive" and f.item.form == "fence":
            if call.form != "fence":
                out.append((n, written, f"a {call.form} call found as a fence"))
            elif not ref.is_fence(call.text):
                out.append((n, written, ref.why_not(call.text) if not ref.is_plain(call.text) else "a fence body shown as ordinary text"))
        elif not ref.is_plain(written):
            out.append((n, written, ref.why_not(written)))
    return out


def minimise(g: C.GenText, n: int | None) -> str:
    """The text with lines removed while the scanner still finds call ``n`` where the reference rejects it."""

    def fails(t: str) -> bool:
        h = C.GenText(g.index, t, g.calls, g.tags)
        return any(m == n for m, _, _ in failures_of(h, A.scan(t)))

    parts = g.text.splitlines(keepends=True)
    chunk = max(1, len(parts) // 2)
    budget = 300
    while chunk >= 1 and budget > 0:
        i = 0
        while i < len(parts) and budget > 0:
            budget -= 1
            trial = parts[:i] + parts[i + chunk:]
            if trial and fails("".join(trial)):
                parts = trial
            else:
                i += chunk
        chunk //= 2
    return "".join(parts)


def shown_calls(g: C.GenText, ref: Reference) -> set[int]:
    """The calls the reference shows as ordinary text (inline forms) or as a top-level directive fence."""
    out = set()
    for n, call in g.calls.items():
        if call.form == "fence":
            if ref.is_fence(call.text):
                out.add(n)
        elif ref.is_plain(call.text):
            out.add(n)
    return out


KNOWN = Path(__file__).with_name("commonmark_disagreements.json")
"""The calls that run although markdown-it-py shows them otherwise, each a
case where pulldown-cmark and markdown-it-py read the same CommonMark
differently (nested containers, lazy lines, definitions inside containers):
recorded with the reference's reading and a minimised text, so that a new one
fails the test and a fixed one must be removed (P158, docs/decisions/commonmark-differential.md)."""


def _known_disagreements() -> dict[tuple[int, int | None], dict[str, Any]]:
    entries = json.loads(KNOWN.read_text(encoding="utf-8"))["disagreements"]
    return {(e["text"], e["call"]): e for e in entries}


def test_the_judge_reads_commonmark_as_a_reader_does() -> None:
    call = '[TOOL t.c1 {"n": 1}]'
    assert reference(f"see {call} now\n").is_plain(call)
    assert reference(f"# *{call}*\n").is_plain(call)
    assert reference(f"- a\n- [x]({call[1:-1]}) {call}\n").is_plain(call)
    assert reference(f"| a |\n| - |\n| {call} |\n").is_plain(call)
    for hidden in (f"`{call}`", f"> {call}", f"> a\n{call}", f"<!-- {call} -->", f"![{call}](/i)", f"{call}(/u)",
                   f"[x]: /u '{call}'", f"# x\n    {call}", f"***\n    {call}", f"```\n```\n    {call}", "\ufeff    " + call,
                   f"a\r\r    {call}", f"<details>\n{call}", '[TOOL t.c1 {"n": 1, "p": "*a*"}]', f"- > {call}",
                   f"[TOOL t.c1 {{\n\n    \"n\": 1}}]"):
        ref = reference(hidden + "\n")
        assert not any(ref.is_plain(c) for c in (call, '[TOOL t.c1 {"n": 1, "p": "*a*"}]', '[TOOL t.c1 {\n\n    "n": 1}]')), hidden
    body = 't.c1 {"n": 1}'
    assert reference(f"```tool\n{body}\n```\n").is_fence(body)
    assert reference(f"~~~~exec x\n{body}\n~~~~~\n").is_fence(body)
    for not_a_call in (f"- ```tool\n  {body}\n  ```", f"> ```tool\n> {body}\n> ```", f"```tool\n{body}\n", f"```t&#111;ol\n{body}\n```",
                       f"```tool`\n{body}\n```", f"    ```tool\n    {body}\n    ```", f"1. x\n\n   ```box\n   {body}\n   ```"):
        assert not reference(not_a_call + "\n").is_fence(body), not_a_call


def test_the_generator_is_deterministic_and_covers_every_construct() -> None:
    assert C.text(17).text == C.text(17).text and C.text(17).text != C.text(18).text
    sample = [C.text(i) for i in range(3000)]
    assert set().union(*(g.tags for g in sample)) == set(C.TAGS)
    forms = Counter(c.form for g in sample for c in g.calls.values())
    assert set(forms) == {"bracket", "shorthand", "fence", "curl", "sentence"}


def test_no_call_runs_where_commonmark_shows_anything_but_ordinary_text() -> None:
    texts = [C.text(i) for i in range(COUNT)]
    results = A.scan_many([g.text for g in texts])
    failing: list[tuple[C.GenText, list[tuple[int | None, str, str]]]] = []
    why: Counter[str] = Counter()
    found_total = calls_total = shown_total = missed = 0
    missed_forms: Counter[str] = Counter()
    for g, found in zip(texts, results):
        ref = reference(g.text)
        bad = failures_of(g, found, ref)
        if bad:
            failing.append((g, bad))
            why.update(w for _, _, w in bad)
        found_total += len(found)
        calls_total += len(g.calls)
        shown = shown_calls(g, ref)
        shown_total += len(shown)
        got = {_number(f) for f in found}
        for n in shown - got:
            missed += 1
            missed_forms[g.calls[n].form] += 1
    summary = (
        f"CommonMark differential: {COUNT} texts, {calls_total} calls written, {found_total} found by the scanner, "
        f"{shown_total} shown as ordinary text (or a top-level directive fence) by markdown-it-py; "
        f"fail-closed cost: {missed} of those not found ({dict(sorted(missed_forms.items()))})"
    )
    known = _known_disagreements()
    now = {(g.index, n): (written, w) for g, bad in failing for n, written, w in bad}
    stale = sorted(set(known) - set(now))
    failing = [(g, [b for b in bad if (g.index, b[0]) not in known]) for g, bad in failing]
    failing = [(g, bad) for g, bad in failing if bad]
    why = Counter(w for _, bad in failing for _, _, w in bad)
    summary += f"; {len(known)} known disagreements of the two readers ({KNOWN.name})"
    print(summary)
    warnings.warn(summary, stacklevel=1)
    assert not stale, f"these recorded disagreements no longer occur; remove them from {KNOWN.name}: {stale}"
    if failing:
        rejected = sum(why.values())
        lines = [f"{rejected} found items in {len(failing)} texts run where markdown-it-py shows no ordinary text:"]
        lines += [f"  {count:6}  {w}" for w, count in why.most_common()]
        for g, bad in failing[:REPORT]:
            n, written, w = bad[0]
            small = minimise(g, n)
            w = next((x for m, _, x in failures_of(C.GenText(g.index, small, g.calls, g.tags), A.scan(small)) if m == n), w)
            lines.append(f"text {g.index} (commonmark_texts.text({g.index})), call {n} {written!r}: {w}")
            lines.append(f"  minimised: {small!r}")
        raise AssertionError("\n".join(lines))
