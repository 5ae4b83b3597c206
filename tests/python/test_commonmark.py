"""The CommonMark differential test: what runs is what every reader shows.

Three generators write Markdown texts with numbered calls at many points:
``commonmark_texts.text(i)`` (CommonMark constructs drawn at random,
``COUNT`` texts), ``agent_replies.reply(i)`` (realistic agent replies,
``REPLIES`` texts) and ``reference_docs.doc(i)`` (realistic documents with
link reference definitions, ``DOCS`` texts). The scanner (``agent_sentences.scan_many_with_diagnostics``,
the native Rust scanner) scans them, and two independent CommonMark
implementations that are not readers inside the scanner judge them:
markdown-it-py and cmark-gfm (``commonmark_judges.py`` says what "shows as
ordinary text" means for each). The test asserts, over every text:

- **no fail-open**: every call or sentence the scanner runs is ordinary text
  (or, for a fence, a closed top-level directive fence) to *each* judge, and
  is a call the generator wrote;
- **no silent drop**: every call that *both* judges show as ordinary text and
  the scanner does not run is covered by a ``Skipped`` entry (its span holds
  the call's number as written);
- **no refusal after a definition**: of the calls written on the line right
  after a link reference definition (``reference_docs``) that both judges
  show, at most ``AFTER_DEFINITION`` are not run;
- **a fail-closed budget**: of the calls both judges show as ordinary text (so
  outside blockquotes and image descriptions, which are quoted by decision),
  at most ``BUDGET`` are not run. The figure and its breakdown by skip reason
  are printed (and warned, so that ``-q`` runs show them).

Failures are reported with the generator and index that reproduce them and
the text minimised to the lines that keep the failure.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

import agent_sentences as A
import agent_replies as R
import commonmark_judges as J
import commonmark_texts as C
import reference_docs as D

COUNT = 20_000
"""How many ``commonmark_texts`` texts the differential test judges."""
REPLIES = 10_000
"""How many ``agent_replies`` texts it judges."""
DOCS = 4_000
"""How many ``reference_docs`` documents it judges."""
AFTER_DEFINITION = 0.001
"""The share of the calls right after a link reference definition, shown by both judges, that may be left unrun."""
BUDGET_TARGET = 0.01
"""The share of the calls both judges show as ordinary text that may be left unrun (fail closed), as wanted (P182)."""
BUDGET = 0.031
"""The share asserted today (P182, P261): 2.97% measured. Most of it is one shape, a table whose header row has
no leading ``|`` under a prose line, which comrak and both judges read as a table and pulldown-cmark, by
design, as a paragraph; the readers' meet can only remove text, so no reader added brings it back. The rest
is refused by decision (a curl command after markup, P176; a call written as a curl argument, P255). The
assertion keeps the figure from growing; the target stays ``BUDGET_TARGET``."""
MARKDOWN_IT_ONLY = 81
"""Found items markdown-it-py alone shows otherwise (P178): pulldown-cmark, comrak and cmark-gfm all show
them as ordinary text, and so does commonmark.js, the reference implementation (P245, P262): markdown-it departs
from CommonMark there. A third reader that agrees with markdown-it was tried and is superlinear; the test
allows at most these many (and ``LATE_UNREPORTED``), and for cmark-gfm only ``LATE_UNREPORTED``."""
LATE_UNREPORTED = 1
"""Found items run where a judge hides them because of a link reference definition that arrived after
they were committed (P267: a definition counts only for items not yet committed) and that the stream did
not report as ``late-definition``: a definition in a later section that only comrak reads (pulldown-cmark
reads the line after it as a setext underline, comrak as a lazy continuation of its title), and comrak
reports no definitions. The running item is by the rule; the missing report is the gap, recorded in P267.
The test allows at most these many beyond ``MARKDOWN_IT_ONLY``, for either judge."""
REPORT = 5
"""How many failing texts an assertion message shows (minimised)."""
SILENT = "silent: no Skipped entry"


@dataclass
class Source:
    """One generated text and the generator call that reproduces it."""

    where: str
    g: C.GenText


def sources() -> list[Source]:
    return [Source(f"commonmark_texts.text({i})", C.text(i)) for i in range(COUNT)] + [
        Source(f"agent_replies.reply({i})", R.reply(i)) for i in range(REPLIES)
    ] + [Source(f"reference_docs.doc({i})", D.doc(i)) for i in range(DOCS)]


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


def anchor(g: C.GenText, n: int) -> tuple[int, int] | None:
    """The byte span from call ``n``'s first byte to the end of its number as written (``abcd{n}]`` or ``"n": {n}``): where a Skipped entry for it must lie."""
    call = g.calls[n]
    pattern = rf"abcd{n}\]" if call.form == "sentence" else rf'"n": {n}(?![0-9])'
    m = re.search(pattern, g.text)
    if m is None:
        return None
    # From the call's first byte where it is written as generated: a Skipped entry that starts at the
    # call and stops before its number (a JSON reader stopped on an earlier line) still names it.
    # (Its first line: a generator may write the later lines with other line endings and indentation.)
    head = call.text.split("\n", 1)[0]
    first = g.text.rfind(head, 0, m.end())
    begin = first if first != -1 and first <= m.start() else m.start()
    start = len(g.text[:begin].encode("utf-8"))
    return start, start + len(g.text[begin : m.end()].encode("utf-8"))


def failures_of(
    g: C.GenText, found: list[Any], ref: J.Reference, skipped: list[Any] | None = None
) -> list[tuple[int | None, str, str]]:
    """(call number, found text, why the judge does not show it so) for every found item the judge rejects.

    An item committed before a link reference definition that would hide it is not one: the
    definition came too late for it (P267) and the scanner reports it as a `late-definition` skip,
    whose span is the definition's, after the item."""
    late = [s.span.start for s in skipped or [] if s.reason == "late-definition"]
    out = []
    for f in found:
        if any(d >= f.span.end for d in late):
            continue
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


def shown_calls(g: C.GenText, ref: J.Reference) -> set[int]:
    """The calls the judge shows as ordinary text (inline forms) or as a top-level directive fence."""
    out = set()
    for n, call in g.calls.items():
        if call.form == "fence":
            if ref.is_fence(call.text):
                out.add(n)
        elif ref.is_plain(call.text):
            out.add(n)
    return out


def unrun(g: C.GenText, found: list[Any], skipped: list[Any], refs: list[J.Reference]) -> dict[int, str]:
    """Every call all ``refs`` show as ordinary text that the scanner does not run, with the reason of the Skipped entry over it (or ``SILENT``)."""
    shown = set.intersection(*(shown_calls(g, ref) for ref in refs))
    got = {_number(f) for f in found}
    out = {}
    for n in sorted(shown - got):
        span = anchor(g, n)
        reasons = [s.reason for s in skipped if span is not None and s.span.start < span[1] and span[0] < s.span.end]
        out[n] = reasons[0] if reasons else SILENT
    return out


def minimise(g: C.GenText, fails: Callable[[C.GenText], bool]) -> str:
    """The text with lines removed while ``fails`` still holds of it."""
    parts = g.text.splitlines(keepends=True)
    chunk = max(1, len(parts) // 2)
    budget = 300
    while chunk >= 1 and budget > 0:
        i = 0
        while i < len(parts) and budget > 0:
            budget -= 1
            trial = parts[:i] + parts[i + chunk:]
            if trial and fails(C.GenText(g.index, "".join(trial), g.calls, g.tags)):
                parts = trial
            else:
                i += chunk
        chunk //= 2
    return "".join(parts)


@dataclass
class Tally:
    """What the differential found over every text."""

    texts: int = 0
    calls: int = 0
    found: int = 0
    shown: Counter[str] = field(default_factory=Counter)
    """Calls each judge shows as ordinary text (or a top-level directive fence)."""
    shown_by_both: int = 0
    fail_open: dict[str, list[tuple[Source, int | None, str, str]]] = field(default_factory=dict)
    """Per judge: (text, call number, found text, why not shown) of every found item the judge rejects."""
    unrun: Counter[str] = field(default_factory=Counter)
    """Calls both judges show that do not run, by the reason of their Skipped entry (or ``SILENT``)."""
    silent: list[tuple[Source, int]] = field(default_factory=list)
    by_generator: dict[str, tuple[list[int], Counter[str]]] = field(default_factory=dict)
    """Per generator: [calls both judges show, those not run], and those not run by reason."""
    after_definition: int = 0
    """Calls right after a link reference definition that both judges show."""
    after_definition_unrun: list[tuple[Source, int, str]] = field(default_factory=list)
    """Those of them not run: (text, call number, reason)."""

    def summary(self) -> str:
        lost = sum(self.unrun.values())
        share = lost / self.shown_by_both if self.shown_by_both else 0.0
        return (
            f"CommonMark differential: {self.texts} texts ({COUNT} commonmark_texts, {REPLIES} agent_replies, "
            f"{DOCS} reference_docs), {self.calls} calls written, {self.found} found by the scanner; shown as ordinary text (or a top-level "
            f"directive fence): {dict(self.shown)}, by both {self.shown_by_both}; fail-open: "
            f"{ {j: len(v) for j, v in self.fail_open.items()} }; silent drops: {len(self.silent)}; fail-closed: "
            f"{lost} of {self.shown_by_both} not run ({share:.2%}, budget {BUDGET:.1%}): {dict(self.unrun.most_common())}; "
            f"after a definition: {len(self.after_definition_unrun)} of {self.after_definition} not run; by generator: "
            + ", ".join(f"{g} {lost} of {shown} ({lost / shown if shown else 0:.2%}: {dict(why.most_common())})"
                        for g, ((shown, lost), why) in self.by_generator.items())
        )


@lru_cache(maxsize=1)
def tally() -> Tally:
    """Scans and judges every text once, for the tests below."""
    texts = sources()
    scans = A.scan_many_with_diagnostics([s.g.text for s in texts])
    t = Tally(texts=len(texts), fail_open={name: [] for name in J.JUDGES})
    for s, (found, skipped) in zip(texts, scans):
        refs = {name: judge(s.g.text) for name, judge in J.JUDGES.items()}
        t.calls += len(s.g.calls)
        t.found += len(found)
        for name, ref in refs.items():
            t.shown[name] += len(shown_calls(s.g, ref))
            t.fail_open[name].extend(
                (s, n, written, why) for n, written, why in failures_of(s.g, found, ref, skipped)
            )
        both = set.intersection(*(shown_calls(s.g, ref) for ref in refs.values()))
        t.shown_by_both += len(both)
        lost = unrun(s.g, found, skipped, list(refs.values()))
        counts, why = t.by_generator.setdefault(s.where.split("(", 1)[0], ([0, 0], Counter()))
        counts[0] += len(both)
        counts[1] += len(lost)
        why.update(lost.values())
        after = D.after_definition(s.g) & both
        t.after_definition += len(after)
        t.after_definition_unrun.extend((s, n, lost[n]) for n in sorted(after & set(lost)))
        t.unrun.update(lost.values())
        t.silent.extend((s, n) for n, why in lost.items() if why == SILENT)
    summary = t.summary()
    print(summary)
    warnings.warn(summary, stacklevel=1)
    return t


def test_each_judge_reads_commonmark_as_a_reader_does() -> None:
    call = '[TOOL t.c1 {"n": 1}]'
    for name, judge in J.JUDGES.items():
        assert judge(f"see {call} now\n").is_plain(call), name
        assert judge(f"# *{call}*\n").is_plain(call), name
        assert judge(f"- a\n- [x]({call[1:-1]}) {call}\n").is_plain(call), name
        assert judge(f"| a |\n| - |\n| {call} |\n").is_plain(call), name
        assert judge(f"<details>\n<summary>x</summary>\n\n{call}\n\n</details>\n").is_plain(call), name
        for hidden in (f"`{call}`", f"> {call}", f"> a\n{call}", f"<!-- {call} -->", f"![{call}](/i)", f"{call}(/u)",
                       f"[x]: /u '{call}'", f"# x\n    {call}", f"***\n    {call}", f"```\n```\n    {call}", "\ufeff    " + call,
                       f"a\r\r    {call}", f"<details>\n{call}", '[TOOL t.c1 {"n": 1, "p": "*a*"}]', f"- > {call}",
                       f"[TOOL t.c1 {{\n\n    \"n\": 1}}]", f"| a | b |\n| - | - |\n| c | d | {call} |"):
            ref = judge(hidden + "\n")
            assert not any(ref.is_plain(c) for c in (call, '[TOOL t.c1 {"n": 1, "p": "*a*"}]', '[TOOL t.c1 {\n\n    "n": 1}]')), (name, hidden)
        body = 't.c1 {"n": 1}'
        assert judge(f"```tool\n{body}\n```\n").is_fence(body), name
        assert judge(f"~~~~exec x\n{body}\n~~~~~\n").is_fence(body), name
        assert judge(f"é\n\n   ```box\n{body}\n  ````\n").is_fence(body), name
        for not_a_call in (f"- ```tool\n  {body}\n  ```", f"> ```tool\n> {body}\n> ```", f"```tool\n{body}\n", f"```t&#111;ol\n{body}\n```",
                           f"```tool`\n{body}\n```", f"    ```tool\n    {body}\n    ```", f"1. x\n\n   ```box\n   {body}\n   ```",
                           f"```tool\n{body}\n  ``"):
            assert not judge(not_a_call + "\n").is_fence(body), (name, not_a_call)


def test_the_judges_differ_where_github_hides_what_markdown_it_shows() -> None:
    # The two judges are independent readings: cmark-gfm (GitHub's) ends a
    # table at a line that opens an HTML block and drops a cell past the
    # header's count; markdown-it-py keeps the line in the table.
    call = '[TOOL t.c8 {"n": 8}]'
    table_then_html = f"| a | b |\n| --- | :-: |\n<x-y>\n{call}\n"
    assert J.markdown_it(table_then_html).is_plain(call)
    assert not J.cmark_gfm(table_then_html).is_plain(call)
    extra_cell = f"Summary of the run:\nStep | Result\n--- | ---\ndeploy | ok | {call}\n"
    assert not J.cmark_gfm(extra_cell).is_plain(call)
    assert J.cmark_gfm(extra_cell).is_plain("deploy") and J.cmark_gfm(extra_cell).is_plain("ok")


def test_the_generators_are_deterministic_and_cover_every_construct() -> None:
    assert C.text(17).text == C.text(17).text and C.text(17).text != C.text(18).text
    assert R.reply(17).text == R.reply(17).text and R.reply(17).text != R.reply(18).text
    assert D.doc(17).text == D.doc(17).text and D.doc(17).text != D.doc(18).text
    for tags, make in ((C.TAGS, C.text), (R.TAGS, R.reply), (D.TAGS, D.doc)):
        sample = [make(i) for i in range(3000)]
        # (A document's `after-definition:<n>` tags name its calls, not constructs.)
        constructs = set().union(*(g.tags for g in sample)) - {t for g in sample for t in g.tags if ":" in t}
        assert constructs >= set(tags) and (make is D.doc or constructs == set(tags)), set(tags) ^ constructs
        forms = Counter(c.form for g in sample for c in g.calls.values())
        assert set(forms) == {"bracket", "shorthand", "fence", "curl", "sentence"}
        for g in sample[:300]:
            # A call drawn but not written (an alternative not taken) has no anchor, and is never shown.
            written = [n for n, c in g.calls.items() if "\n" not in c.text and c.text in g.text]
            assert all(anchor(g, n) is not None for n in written), g.index


def _fail_open_report(judge: str, rows: list[tuple[Source, int | None, str, str]]) -> str:
    why = Counter(w for _, _, _, w in rows)
    lines = [f"{len(rows)} found items run where {judge} shows no ordinary text:"]
    lines += [f"  {count:6}  {w}" for w, count in why.most_common()]
    seen: set[str] = set()
    for s, n, written, w in rows:
        if s.where in seen or len(seen) >= REPORT:
            continue
        seen.add(s.where)

        def fails(h: C.GenText, n: int | None = n) -> bool:
            found, skipped = A.scan_with_diagnostics(h.text)
            return any(m == n for m, _, _ in failures_of(h, found, J.JUDGES[judge](h.text), skipped))

        lines.append(f"{s.where}, call {n} {written!r}: {w}")
        lines.append(f"  minimised: {minimise(s.g, fails)!r}")
    return "\n".join(lines)


def test_no_call_runs_where_either_judge_shows_anything_but_ordinary_text() -> None:
    t = tally()
    assert t.found > 0 and all(t.shown[j] > 0 for j in J.JUDGES)
    allowed = {"markdown-it-py": MARKDOWN_IT_ONLY + LATE_UNREPORTED, "cmark-gfm": LATE_UNREPORTED}
    reports = [_fail_open_report(j, rows) for j, rows in t.fail_open.items() if len(rows) > allowed.get(j, 0)]
    assert not reports, "\n".join(reports)


def test_no_call_both_judges_show_is_dropped_silently() -> None:
    t = tally()
    if t.silent:
        forms = Counter(s.g.calls[n].form for s, n in t.silent)
        lines = [f"{len(t.silent)} calls both judges show as ordinary text neither run nor reported as Skipped ({dict(forms)}):"]
        seen: set[str] = set()
        for s, n in t.silent:
            if s.where in seen or len(seen) >= REPORT:
                continue
            seen.add(s.where)

            def fails(h: C.GenText, n: int = n) -> bool:
                found, skipped = A.scan_with_diagnostics(h.text)
                refs = [judge(h.text) for judge in J.JUDGES.values()]
                return unrun(h, found, skipped, refs).get(n) == SILENT

            lines.append(f"{s.where}, call {n} {s.g.calls[n].text!r}")
            lines.append(f"  minimised: {minimise(s.g, fails)!r}")
        raise AssertionError("\n".join(lines))


def test_fail_closed_cost_is_within_budget() -> None:
    t = tally()
    lost = sum(t.unrun.values())
    assert t.shown_by_both > t.calls // 4, "the judges show too few calls for the budget to mean anything"
    assert lost <= BUDGET * t.shown_by_both, (
        f"{lost} of {t.shown_by_both} calls both judges show as ordinary text are not run "
        f"({lost / t.shown_by_both:.2%}, budget {BUDGET:.1%}); by reason: {dict(t.unrun.most_common())}"
    )


def test_calls_right_after_a_reference_definition_run() -> None:
    t = tally()
    assert t.after_definition > DOCS // 2, "the documents hold too few calls after a definition for the share to mean anything"
    lines = [f"{s.where}, call {n} {s.g.calls[n].text!r}: {why}" for s, n, why in t.after_definition_unrun[:REPORT]]
    assert len(t.after_definition_unrun) <= AFTER_DEFINITION * t.after_definition, (
        f"{len(t.after_definition_unrun)} of {t.after_definition} calls right after a link reference definition "
        f"are not run (budget {AFTER_DEFINITION:.1%}):\n" + "\n".join(lines)
    )
