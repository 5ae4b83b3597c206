"""Realistic agent replies with numbered calls, the second generator of the
CommonMark differential test (``test_commonmark.py``).

``commonmark_texts.py`` draws CommonMark constructs at random, each in the
form its author thought of; this generator writes what agents actually send:
a reply of prose, headings, nested lists, GFM tables, quotes of earlier
messages, code fences, inline code, links, HTML comments and ``<details>``,
emphasis and strikethrough, with calls and sentences where an agent puts
them. It writes the shapes that readers are known to read differently and
that the first generator cannot produce:

- list items with lazy (unindented) or under-indented continuation lines, a
  tab after the list marker (``2.\\t[TOOL …]``), nested lists indented by two
  or four spaces;
- GFM tables whose header row does not start with ``|``, right under a prose
  line; rows with more cells than the header (cmark-gfm drops the extra
  cells); a delimiter row written ``- | -`` (a list item to every CommonMark
  reader); a table followed by an HTML line (which ends the table in
  cmark-gfm) or by a line indented four spaces;
- a paragraph right after a quote (``> a``, ``>``, then ``x [TOOL …]``);
- single tildes around words (``~3~ *items*``) beside emphasis;
- ``<details>`` with and without a blank line after its summary.

``reply(i)`` is the i-th reply: deterministic (its own ``random.Random``
seeded from ``SEED`` and ``i``). Calls are numbered as in
``commonmark_texts.py``, one number per call, unique in its text:
``[TOOL t.c{n} {"n": n}]`` / ``[EXEC …]`` (op ``t.c{n}``), ``[DM {"to": …,
"n": n}]``, a directive fence with the body ``t.c{n} {"n": n}``, a curl line
posting ``{"op": "t.c{n}", "args": {"n": n}}`` to ``/exec``, and the
sentences ``[ACK:abcd{n}] [from x]``, ``[CLAIM abcd{n}]``,
``[RESULT abcd{n}] OK …`` and ``[DECLINE abcd{n}] …`` (the id). No call
holds a backslash (see ``commonmark_texts.py``).
"""

from __future__ import annotations

from calls_core import CallWriter, GenText, curl_text, rng

SEED = 20261202
"""The generator's seed; reply ``i`` is drawn from ``Random(SEED * 1_000_003 + i)``."""

TAGS = (
    "prose", "heading", "heading-call", "list", "ordered-list", "nested-list", "list-lazy", "list-under-indented",
    "list-tab", "list-continuation", "list-fence", "table", "table-no-leading-pipe", "table-extra-cells",
    "table-dash-delimiter", "table-then-html", "table-then-indented", "table-call-in-cell", "quote",
    "quote-then-paragraph", "quote-lazy", "code-fence", "code-fence-call", "directive-fence", "inline-code",
    "link", "html-comment", "html-comment-block", "details", "details-tight", "emphasis", "single-tilde",
    "strikethrough", "indented-code", "thematic-break", "curl", "sign-off", "crlf", "tab",
)

SUBJECTS = ("the build", "the deploy", "CI", "the migration", "the parser", "the test suite", "the cache", "the API",
            "the report", "the index", "staging", "the job")
VERBS = ("passed", "failed", "is green", "timed out", "needs a retry", "looks fine", "is blocked", "finished",
         "was skipped", "is flaky")
FILLER = ("I checked", "Next,", "Then", "Also", "Note that", "As discussed,", "For now", "After that", "Finally,",
          "First,", "Looks like", "OK:", "Done:", "Plan:")
FILES = ("src/main.rs", "README.md", "tests/test_api.py", "config/app.yaml", "Cargo.toml", "docs/setup.md",
         "scripts/deploy.sh", "package.json")
LANGS = ("bash", "sh", "python", "json", "yaml", "text", "diff", "console", "")
ARGS = ('"path": "src/main.rs"', '"cmd": "cargo test"', '"query": "status"', '"branch": "main"', '"glob": "**/*.py"',
        '"pattern": "TODO"', '"url": "https://example.com/api"', '"retries": 3', '"dry_run": true',
        '"note": "see *logs*"', '"files": ["a.py", "b.py"]')


class Reply(CallWriter):
    """Draws one reply."""

    # ---- calls ---------------------------------------------------------------

    def call(self, sentences: bool = True) -> str:
        """A fresh one-line call or sentence."""
        r = self.r
        n = self.new()
        kind = r.random()
        if sentences and kind < 0.12:
            text = f"[ACK:abcd{n}] [from x]" if self.chance(0.5) else f"[CLAIM abcd{n}]"
            return self.record(n, "sentence", text)
        if kind < 0.3:
            who = r.choice(("lead", "reviewer", "ops", "x"))
            text = f'[DM {{"to": "{who}", "n": {n}}}]'
            return self.record(n, "shorthand", text)
        engine = "TOOL" if kind < 0.85 else "EXEC"
        extra = f", {r.choice(ARGS)}" if self.chance(0.4) else ""
        text = f'[{engine} t.c{n} {{"n": {n}{extra}}}]'
        return self.record(n, "bracket", text)

    def sign_off(self) -> str:
        """A closing sentence with free text, alone in its paragraph."""
        self.tags.add("sign-off")
        n = self.new()
        text = self.r.choice((f"[RESULT abcd{n}] OK all checks pass", f"[RESULT abcd{n}] FAIL two tests still fail",
                              f"[DECLINE abcd{n}] out of scope for this run", f"[ACK:abcd{n}] [from x]"))
        return self.record(n, "sentence", text)

    def curl(self) -> str:
        return self.curl_line("-X POST " if self.chance(0.5) else "")

    # ---- inlines -------------------------------------------------------------

    def words(self, k: int | None = None) -> str:
        r = self.r
        k = r.randint(1, 3) if k is None else k
        parts = [f"{r.choice(SUBJECTS)} {r.choice(VERBS)}" for _ in range(k)]
        return ", ".join(parts)

    def inline_piece(self) -> str:
        r = self.r
        c = r.randrange(24)
        if c < 8:
            return self.call()
        if c < 11:
            return self.words()
        if c == 11:
            self.tags.add("inline-code")
            return f"`{r.choice(FILES)}`"
        if c == 12:
            self.tags.add("inline-code")
            return f"`{self.call()}`"
        if c == 13:
            self.tags.add("link")
            return r.choice((f"[the docs](https://example.com/{r.choice(FILES)})", f"<https://example.com/{self.n}>",
                             f"see [PR #{r.randint(1, 999)}](https://example.com/pr/{r.randint(1, 999)})"))
        if c == 14:
            self.tags.add("emphasis")
            return r.choice(("**important**", "*really*", "_note_", f"**{self.words(1)}**", f"*{self.call()}*"))
        if c == 15:
            self.tags.add("single-tilde")
            return r.choice(("~3~ *items*", "~approx~", "~2 min~", f"~a~ b *c* {self.call()}", "about ~10s~"))
        if c == 16:
            self.tags.add("strikethrough")
            return r.choice(("~~old plan~~", f"~~{self.call()}~~", "~~done~~ redo"))
        if c == 17:
            self.tags.add("html-comment")
            return r.choice(("<!-- todo -->", f"<!-- {self.call()} -->"))
        if c == 18:
            return f"({self.call()})"
        if c == 19:
            return f"{self.call()}:"
        if c == 20:
            return f"in `{self.r.choice(FILES)}` {self.call()}"
        return f"{r.choice(FILLER)} {self.words(1)}"

    def sentence_line(self) -> str:
        r = self.r
        parts = [r.choice(FILLER)] + [self.inline_piece() for _ in range(r.randint(1, 3))]
        line = " ".join(parts)
        if self.chance(0.1):
            self.tags.add("tab")
            line = line.replace(" ", "\t", 1)
        return line + r.choice((".", "", ":", " ."))

    # ---- blocks --------------------------------------------------------------

    def paragraph(self) -> list[str]:
        self.tags.add("prose")
        return [self.sentence_line() for _ in range(self.r.randint(1, 3))]

    def heading(self) -> list[str]:
        self.tags.add("heading")
        title = self.r.choice(("Summary", "Plan", "Next steps", "Results", "What I changed", "Open questions", "Status"))
        if self.chance(0.2):
            self.tags.add("heading-call")
            title += f": {self.call()}"
        return [f"{'#' * self.r.randint(1, 4)} {title}"]

    def list_block(self, depth: int = 0) -> list[str]:
        r = self.r
        ordered = self.chance(0.4)
        self.tags.add("ordered-list" if ordered else "list")
        bullet = r.choice(("-", "*", "+"))
        out: list[str] = []
        for k in range(r.randint(1, 4)):
            marker = f"{k + 1}{r.choice('.)') if self.chance(0.1) else '.'}" if ordered else bullet
            sep = " "
            if self.chance(0.12):
                self.tags.add("list-tab")
                sep = "\t"
            width = len(marker) + 1 if sep == " " else (4 if len(marker) < 4 else 8)
            out.append(f"{marker}{sep}{self.sentence_line()}")
            if self.chance(0.25):
                c = r.random()
                if c < 0.4:
                    self.tags.add("list-lazy")
                    out.append(self.sentence_line())
                elif c < 0.7:
                    self.tags.add("list-under-indented")
                    out.append(" " * r.randint(1, max(1, width - 1)) + self.sentence_line())
                else:
                    out.append(" " * width + self.sentence_line())
            if depth < 2 and self.chance(0.3):
                self.tags.add("nested-list")
                indent = r.choice((width, width, 2, 4))
                for line in self.list_block(depth + 1):
                    out.append(" " * indent + line if line else "")
            if self.chance(0.12):
                self.tags.add("list-continuation")
                out.append("")
                out.append(" " * r.choice((width, width, 2)) + self.sentence_line())
            if self.chance(0.06):
                self.tags.add("list-fence")
                pad = " " * width
                out.append("")
                out.extend(pad + line for line in self.code_fence())
            if self.chance(0.15):
                out.append("")
        return out

    def table(self) -> list[str]:
        r = self.r
        self.tags.add("table")
        cols = r.randint(2, 4)
        heads = r.sample(("Step", "Result", "File", "Owner", "Status", "Notes", "Time"), cols)
        lead = self.chance(0.6)
        out: list[str] = []
        if not lead:
            self.tags.add("table-no-leading-pipe")
            out.append(r.choice(("Summary of the run:", "Here is what I found:", "Results:", self.sentence_line())))
        elif self.chance(0.3):
            out.extend([self.sentence_line(), ""])

        def row(cells: list[str]) -> str:
            return ("| " + " | ".join(cells) + " |") if lead else " | ".join(cells)

        out.append(row(heads))
        if not lead and cols == 2 and self.chance(0.3):
            self.tags.add("table-dash-delimiter")
            out.append("- | -")
        else:
            out.append(row([r.choice(("---", ":--", "--:", ":-:")) for _ in range(cols)]))
        for _ in range(r.randint(1, 4)):
            cells = []
            for _ in range(cols):
                c = r.random()
                if c < 0.3:
                    self.tags.add("table-call-in-cell")
                    cells.append(self.call(sentences=False))
                elif c < 0.45:
                    cells.append(f"`{r.choice(FILES)}`")
                else:
                    cells.append(r.choice(("ok", "failed", "n/a", "2 min", "done", "**yes**", "pending")))
            if self.chance(0.2):
                self.tags.add("table-extra-cells")
                cells.append(self.call(sentences=False))
            out.append(row(cells))
        c = r.random()
        if c < 0.12:
            self.tags.add("table-then-html")
            out.append(r.choice(("<br>", "<x-y>", "<div>", "</details>", "<!-- end -->", "<span>")))
            out.append(self.sentence_line())
        elif c < 0.22:
            self.tags.add("table-then-indented")
            out.append("    " + self.sentence_line())
        return out

    def quote(self) -> list[str]:
        r = self.r
        self.tags.add("quote")
        out = [f"> {r.choice(('You wrote:', 'From the last message:', 'Earlier:'))} {self.sentence_line()}"]
        for _ in range(r.randint(0, 2)):
            out.append(r.choice(("> ", ">")) + self.sentence_line())
        c = r.random()
        if c < 0.3:
            self.tags.add("quote-then-paragraph")
            out.extend([">", self.sentence_line()])
        elif c < 0.45:
            self.tags.add("quote-lazy")
            out.append(self.sentence_line())
        else:
            out.extend(["", self.sentence_line()])
        return out

    def code_fence(self) -> list[str]:
        r = self.r
        self.tags.add("code-fence")
        ch = "`" if self.chance(0.85) else "~"
        lang = r.choice(LANGS)
        body = []
        for _ in range(r.randint(1, 4)):
            c = r.random()
            if c < 0.3:
                self.tags.add("code-fence-call")
                body.append(self.call())
            elif c < 0.45 and lang in ("bash", "sh", "console"):
                n = self.new()
                body.append(self.record(n, "curl", curl_text(n)))
            else:
                body.append(r.choice(("cargo test --all", "ls -la", "def f(x):", "    return x", '{"ok": true}',
                                      "- item", "> quoted", "| a | b |", "# comment", "")))
        return [ch * 3 + lang, *body, ch * 3]

    def directive_fence(self) -> list[str]:
        self.tags.add("directive-fence")
        info = self.r.choice(("tool", "tool", "exec", "box", "tool json"))
        return ["```" + info, *self.fence_body(), "```"]

    def html_comment_block(self) -> list[str]:
        self.tags.add("html-comment-block")
        return ["<!--", f"status: {self.call()}", "-->"]

    def details(self) -> list[str]:
        self.tags.add("details")
        summary = self.r.choice(("Logs", "Full output", "Details"))
        if self.chance(0.35):
            self.tags.add("details-tight")
            return ["<details>", f"<summary>{summary}</summary>", self.sentence_line(), "</details>"]
        inner = self.r.choice((self.paragraph, self.code_fence, self.list_block))()
        return ["<details>", f"<summary>{summary}</summary>", "", *inner, "", "</details>"]

    def indented_code(self) -> list[str]:
        self.tags.add("indented-code")
        return ["", "    " + self.call(), "    " + self.words(1)]

    def block(self) -> list[str]:
        r = self.r
        c = r.randrange(100)
        if c < 24:
            return self.paragraph()
        if c < 32:
            return self.heading()
        if c < 50:
            return self.list_block()
        if c < 62:
            return self.table()
        if c < 70:
            return self.quote()
        if c < 78:
            return self.code_fence()
        if c < 85:
            return self.directive_fence()
        if c < 88:
            return self.html_comment_block()
        if c < 92:
            return self.details()
        if c < 94:
            return self.indented_code()
        if c < 96:
            self.tags.add("thematic-break")
            return ["---"]
        return [self.curl()]


def reply(i: int) -> GenText:
    """The i-th reply."""
    r = rng(SEED, i)
    g = Reply(r)
    crlf = r.random() < 0.2
    lines: list[str] = []
    for k in range(r.randint(2, 7)):
        if k > 0:
            lines.append("")
        lines.extend(g.block())
    if r.random() < 0.3:
        lines.extend(["", g.sign_off()])
    eol = "\r\n" if crlf else "\n"
    if crlf:
        g.tags.add("crlf")
        # A shell's reading of CR is the vectors' matter: curl lines only in LF texts.
        for n in [n for n, c in g.calls.items() if c.form == "curl"]:
            del g.calls[n]
        lines = [line.replace("curl ", "curl-x ") for line in lines]
    body = eol.join(lines) + (eol if r.random() < 0.8 else "")
    return GenText(i, body, g.calls, g.tags)
