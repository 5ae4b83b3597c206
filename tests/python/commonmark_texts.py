"""Generated Markdown texts with tool calls at many points, for the CommonMark
differential test (``test_commonmark.py``, issue 12).

``text(i)`` is the i-th text: deterministic (its own ``random.Random`` seeded
from ``SEED`` and ``i``, so one failing index is reproduced alone), a mix of
CommonMark blocks and inlines (fences of both kinds, several lengths, indents
and info strings; indented code after blank lines, headings, thematic breaks
and fences; list items of every marker and width, tabs after markers; nested
containers; blockquotes with lazy continuation lines; code spans of several
backtick lengths, across lines; HTML blocks of all seven kinds; inline HTML
and comments; links, images, reference definitions; entities, backslash
escapes, emphasis and strikethrough delimiters; GFM tables; LF, CRLF and lone
CR line endings; a BOM; tabs), with calls written into all of them.

Every call carries its own number ``n``, unique in its text, so that what the
scanner finds is traced back to the call the generator wrote:

- a bracket call ``[TOOL t.c{n} {"n": n}]`` / ``[EXEC …]`` (op ``t.c{n}``),
  sometimes with its object over several lines, sometimes with a string
  argument holding Markdown (``*`` wildcards, ``~~``, entities, backticks,
  HTML, link syntax);
- a shorthand ``[DM {"to": "x", "n": n}]`` (``args["n"]``);
- a directive fence (```` ```tool ```` / ``~~~exec`` / ``box``, body
  ``t.c{n} {"n": n}``, one line or several);
- a curl line posting ``{"op": "t.c{n}", "args": {"n": n}}`` to ``/exec``
  (texts with LF line endings only: a shell's reading of CR is the vectors'
  matter, not CommonMark's);
- a sentence ``[ACK:abcd{n}] [from x]`` or ``[CLAIM abcd{n}]`` (the id).

No call holds a backslash: how a backslash before a JSON escape is read is a
recorded decision of the scanner (JSON's ``\\"`` keeps working although
CommonMark would show ``"``), not something the reference can judge.
"""

from __future__ import annotations

import random
import re

from calls_core import CallWriter, GenText, rng

SEED = 20261212
"""The generator's seed; text ``i`` is drawn from ``Random(SEED * 1_000_003 + i)``."""

TAGS = (
    "fence-backtick", "fence-tilde", "fence-indented", "fence-long", "fence-unclosed", "fence-short-close",
    "directive-fence", "directive-fence-in-container", "directive-fence-info-entity", "fence-info-backtick",
    "indented-code-after-blank", "indented-code-after-heading", "indented-code-after-break",
    "indented-code-after-fence", "indented-code-tab",
    "atx-heading", "setext-heading", "thematic-break",
    "list-dash", "list-star", "list-plus", "list-dot", "list-10-dot", "list-paren", "list-tab", "list-wide",
    "list-lazy", "nested-list",
    "blockquote", "blockquote-lazy", "blockquote-in-list", "list-in-blockquote", "nested-blockquote",
    "code-span-1", "code-span-2", "code-span-3", "code-span-across-lines", "lone-backtick",
    "html-block-1", "html-block-2", "html-block-3", "html-block-4", "html-block-5", "html-block-6", "html-block-7",
    "inline-html", "inline-comment", "html-attribute",
    "link", "link-text-call", "link-title", "link-destination", "image", "image-title", "reference-link",
    "reference-definition", "reference-shortcut", "reference-label-call", "autolink",
    "entity", "escape", "emphasis", "strong", "strikethrough", "half-emphasis", "hard-break",
    "call-markdown-arg", "multi-line-call", "table", "curl",
    "lf", "crlf", "cr", "bom",
)


# String arguments that CommonMark renders otherwise than written.
MARKDOWN_ARGS = (
    '"/tmp/*/x*.log"', '"a*b*c"', '"**/*.rs"', '"_x_"', '"__init__"', '"~~x~~"', '"a~~b~~c"', '"a&amp;b"',
    '"&#42;"', '"&lt;b&gt;"', '"`x`"', '"a ` b"', '"<b>x</b>"', '"<!-- c -->"', '"x](y)"', '"[x]"', '"a|b"',
    '"http://x.y/z"', '"<http://a.b/c>"', '"# h"', '"- x"', '"*"', '"a * b"', '"~"', '"&"', '"<"', '"x]: y"',
)
JSON_SEPS = ("\n", "\n  ", "\n\n", "\n    ", "\n\n    ", "\n> ", "\n- ", "\n# ", "\n```\n", "\n\t", "\n---\n", "\n===\n")
WORDS = ("see", "then", "run", "ok", "note:", "and", "the", "call", "x", "a.b", "path", "done", "1.", "-", "*", "+", ">", "#", "|", "_", "~")
ENTITIES = ("&amp;", "&#91;", "&#x5D;", "&copy;", "&nbsp;", "&quot;", "&lt;", "&#96;", "&ast;", "&notanentity;")
ESCAPES = ("\\[", "\\]", "\\*", "\\`", "\\\\", "\\<", "\\_", "\\~", "\\#", "\\&")
INFOS = ("", "bash", "sh", "python", "json", "text", "tool", "exec", "box", " tool", "tool json", "Tool", "tools", "bash tool")
DIRECTIVE_INFOS = ("tool", "exec", "box", "tool json", " tool", "exec x")
HTML6 = ("div", "details", "table", "p", "section", "ul", "blockquote", "summary")
HTML7 = ("span", "a", "kbd", "x-y", "b", "custom-tag")


class Gen(CallWriter):
    """Draws one text."""

    def __init__(self, rng: random.Random, eol: str):
        super().__init__(rng)
        self.eol = eol

    # ---- calls ---------------------------------------------------------------

    def call(self, multiline: bool = True) -> str:
        """A fresh inline call (or sentence)."""
        r = self.r
        n = self.new()
        kind = r.random()
        if kind < 0.14:
            text = f"[ACK:abcd{n}] [from x]" if r.random() < 0.6 else f"[CLAIM abcd{n}]"
            return self.record(n, "sentence", text)
        obj_inner = f'"n": {n}'
        if self.chance(0.25):
            self.tags.add("call-markdown-arg")
            obj_inner += f', "p": {r.choice(MARKDOWN_ARGS)}'
        if kind < 0.30:
            if multiline and self.chance(0.15):
                self.tags.add("multi-line-call")
                text = f'[DM {{"to": "x",{r.choice(JSON_SEPS)}{obj_inner}}}]'
            else:
                text = f'[DM {{"to": "x", {obj_inner}}}]'
            return self.record(n, "shorthand", text)
        engine = "TOOL" if kind < 0.8 else "EXEC"
        if multiline and self.chance(0.2):
            self.tags.add("multi-line-call")
            sep = r.choice(JSON_SEPS)
            text = f"[{engine} t.c{n} {{{sep}{obj_inner}{r.choice(JSON_SEPS) if self.chance(0.5) else ''}}}]"
        else:
            text = f"[{engine} t.c{n} {{{obj_inner}}}]"
        return self.record(n, "bracket", text)

    def curl(self) -> str:
        return self.curl_line()

    # ---- inlines -------------------------------------------------------------

    def words(self) -> str:
        return " ".join(self.r.choice(WORDS) for _ in range(self.r.randint(0, 3)))

    def piece(self, depth: int = 0) -> str:
        r = self.r
        c = r.randrange(30)
        if c < 6:
            return self.call()
        if c < 8:
            return self.words()
        if c == 8:
            k = r.randint(1, 3)
            self.tags.add(f"code-span-{k}")
            ticks = "`" * k
            inner = self.call(multiline=False)
            if self.chance(0.3):
                self.tags.add("code-span-across-lines")
                inner = f"{inner}\n{self.words()} {self.call(multiline=False)}" if self.chance(0.5) else f"x\n{inner}"
            return f"{ticks}{' ' if k > 1 else ''}{inner}{' ' if k > 1 else ''}{ticks}"
        if c == 9:
            self.tags.add("lone-backtick")
            return r.choice(("`", "``", "a`b", "``x`"))
        if c == 10:
            self.tags.add("inline-html")
            tag = r.choice(("b", "span", "kbd", "sub", "x-y", "del", "em"))
            return f"<{tag}>{self.call(multiline=False)}</{tag}>" if self.chance(0.7) else f"<{tag}>{self.words()}"
        if c == 11:
            self.tags.add("inline-comment")
            inner = self.call()
            return r.choice((f"<!-- {inner} -->", f"<!--{inner}-->", f"<!-- a\n{inner} -->", f"<? {inner} ?>"))
        if c == 12:
            self.tags.add("html-attribute")
            return f"<a title='{self.call(multiline=False)}'>x</a>" if self.chance(0.6) else f"<img alt='{self.call(multiline=False)}'>"
        if c == 13:
            self.tags.update(("link", "link-text-call"))
            return r.choice((f"[see {self.call(multiline=False)}](/u)", f"{self.call(multiline=False)}(/u)",
                             f"{self.call(multiline=False)}[r1]", f"{self.call(multiline=False)}[]", f"[a]({self.words()}) {self.call()}"))
        if c == 14:
            self.tags.add("link-title")
            return r.choice((f"[x](/u '{self.call(multiline=False)}')", f"[x](/u ({self.call(multiline=False)}))"))
        if c == 15:
            self.tags.add("link-destination")
            return f"[x](<{self.call(multiline=False)}>)"
        if c == 16:
            self.tags.add("image")
            return r.choice((f"![{self.call(multiline=False)}](/i.png)", f"![a {self.call(multiline=False)} b][r1]"))
        if c == 17:
            self.tags.add("image-title")
            return f"![x](/i.png '{self.call(multiline=False)}')"
        if c == 18:
            self.tags.add("reference-link")
            return r.choice(("[x][r1]", "[r1]", "[x][]", "[nolabel][zz]"))
        if c == 19:
            self.tags.add("entity")
            e = r.choice(ENTITIES)
            return r.choice((e, f"{e}{self.call()}", f"{self.call()}{e}"))
        if c == 20:
            self.tags.add("escape")
            e = r.choice(ESCAPES)
            return r.choice((e, f"{e}{self.call()}", f"{self.call()}{e}", f"\\{self.call()}"))
        if c == 21:
            self.tags.add("emphasis")
            d = r.choice(("*", "_"))
            return f"{d}{self.call()}{d}" if self.chance(0.6) else f"{d}a {self.call()} b{d}"
        if c == 22:
            self.tags.add("strong")
            d = r.choice(("**", "__"))
            return f"{d}{self.call()}{d}"
        if c == 23:
            self.tags.add("strikethrough")
            d = r.choice(("~~", "~"))
            return f"{d}{self.call()}{d}" if self.chance(0.6) else f"~~a {self.call()}"
        if c == 24:
            self.tags.add("half-emphasis")
            d = r.choice(("*", "_", "**", "~~"))
            return r.choice((f"{d}{self.call()}", f"{self.call()}{d}", f"a{d}b {self.call()} c{d}d"))
        if c == 25:
            self.tags.add("autolink")
            return r.choice(("<http://a.b/c>", f"<http://a.b/{self.n}> {self.call()}", "<x@y.z>"))
        if c == 26:
            self.tags.add("hard-break")
            return r.choice(("a  \nb", "a\\\nb", f"{self.call()}  \n{self.call()}"))
        if c == 27:
            return self.call() + self.call(multiline=False)
        if c == 28:
            return f"({self.call()})"
        return self.call()

    def inline(self) -> str:
        return " ".join(self.piece() for _ in range(self.r.randint(1, 4)))

    # ---- blocks --------------------------------------------------------------

    def fence(self, directive: bool, in_container: bool = False) -> list[str]:
        r = self.r
        ch = r.choice("`~")
        length = r.choice((3, 3, 3, 4, 5))
        indent = " " * r.choice((0, 0, 0, 1, 2, 3))
        self.tags.add("fence-backtick" if ch == "`" else "fence-tilde")
        if indent:
            self.tags.add("fence-indented")
        if length > 3:
            self.tags.add("fence-long")
        if directive:
            self.tags.add("directive-fence")
            if in_container:
                self.tags.add("directive-fence-in-container")
            info = r.choice(DIRECTIVE_INFOS)
            if self.chance(0.05):
                self.tags.add("directive-fence-info-entity")
                info = r.choice(("t&#111;ol", "\\tool", "to&#x6F;l"))
            body = [indent + line if self.chance(0.8) else line for line in self.fence_body()]
        else:
            info = r.choice(INFOS)
            body = []
            for _ in range(r.randint(1, 3)):
                body.append(r.choice(("", indent, "    ")) + self.call())
            if self.chance(0.3):
                body.extend(indent + line for line in self.fence_body())
        if ch == "`" and self.chance(0.05):
            self.tags.add("fence-info-backtick")
            info += "`x"
        lines = [f"{indent}{ch * length}{info}"]
        for b in body:
            lines.extend(b.split("\n"))
        close = r.random()
        if close < 0.08:
            self.tags.add("fence-unclosed")
            return lines
        if close < 0.15:
            self.tags.add("fence-short-close")
            lines.append(ch * (length - 1))
            lines.append(self.inline())
            lines.append(ch * length)
            return lines
        lines.append(" " * r.choice((0, 0, 1, 3)) + ch * (length + r.choice((0, 0, 1))))
        return lines

    def html_block(self) -> list[str]:
        r = self.r
        k = r.randint(1, 7)
        self.tags.add(f"html-block-{k}")
        call = self.call()
        gap = [""] if self.chance(0.3) else []
        if k == 1:
            tag = r.choice(("pre", "script", "style", "textarea"))
            return [f"<{tag}>", call, *gap, self.call(), f"</{tag}>", self.inline()]
        if k == 2:
            return ["<!--", call, *gap, self.call(), "-->", self.inline()]
        if k == 3:
            return ["<?php", call, *gap, "?>", self.inline()]
        if k == 4:
            return [f"<!DOCTYPE {call}", self.call(), ">", self.inline()]
        if k == 5:
            return ["<![CDATA[", call, *gap, "]]>", self.inline()]
        if k == 6:
            tag = r.choice(HTML6)
            return [f"<{tag}>", call, *gap, self.inline(), f"</{tag}>"]
        tag = r.choice(HTML7)
        return [r.choice((f"<{tag} class='x'>", f"</{tag}>", f"<{tag}>")), call, *gap, self.inline()]

    def table(self) -> list[str]:
        self.tags.add("table")
        return [f"| a | {self.call(multiline=False)} |", "| --- | :-: |", f"| {self.call(multiline=False)} | `{self.call(multiline=False)}` |",
                f"{self.words()} | {self.call(multiline=False)}"]

    def refdef(self) -> list[str]:
        r = self.r
        self.tags.add("reference-definition")
        c = r.randrange(5)
        earlier = [k for k in self.calls.values() if k.form in ("bracket", "shorthand", "sentence") and "\n" not in k.text]
        if c == 4 and earlier:
            # A definition whose label is an earlier call (labels match case-insensitively):
            # that call then renders as a shortcut reference link, its brackets gone.
            self.tags.add("reference-shortcut")
            label = r.choice(earlier).text
            label = label[: label.index("]") + 1]
            return [f"{label.lower()}: /u"]
        if c == 0:
            self.tags.add("reference-label-call")
            return [f"{self.call(multiline=False)}: /u"]
        if c == 1:
            return [f"[r1]: <{self.call(multiline=False)}>"]
        if c == 2:
            return [f"[r1]: /u '{self.call()}'"]
        return [f"[r1]:", f"  /u", f"  ({self.call(multiline=False)})"]

    def list_block(self, depth: int) -> list[str]:
        r = self.r
        marker = r.choice(("-", "*", "+", "1.", "10.", "1)", "999.", "2."))
        self.tags.add({"-": "list-dash", "*": "list-star", "+": "list-plus", "1)": "list-paren", "10.": "list-10-dot",
                       "999.": "list-10-dot"}.get(marker, "list-dot"))
        out: list[str] = []
        for _ in range(r.randint(1, 3)):
            gap = r.choice((" ", " ", "  ", "   ", "    ", "\t", "     "))
            if gap == "\t":
                self.tags.add("list-tab")
            if len(gap) > 1 or len(marker) > 1:
                self.tags.add("list-wide")
            width = len(marker) + (len(gap) if gap not in ("\t", "     ") else 1)
            if gap == "\t":
                width = 4 if len(marker) < 4 else 8
            inner = self.blocks(depth + 1, r.randint(1, 2))
            first = True
            for line in inner:
                if first:
                    out.append(f"{marker}{gap}{line}")
                    first = False
                elif line == "":
                    out.append("")
                elif self.chance(0.1):
                    self.tags.add("list-lazy")
                    out.append(line)
                else:
                    out.append(" " * width + line)
            if self.chance(0.3):
                out.append("")
        return out

    def quote(self, depth: int) -> list[str]:
        self.tags.add("blockquote")
        out = []
        for i, line in enumerate(self.blocks(depth + 1, self.r.randint(1, 2))):
            if i > 0 and line and self.chance(0.2):
                self.tags.add("blockquote-lazy")
                out.append(line)
            else:
                out.append(self.r.choice(("> ", ">", " > ", ">\t")) + line if line else ">")
        if self.chance(0.4):
            self.tags.add("blockquote-lazy")
            out.append(self.call())
        return out

    def block(self, depth: int) -> list[str]:
        r = self.r
        c = r.randrange(100)
        if c < 22:
            return self.inline().split("\n")
        if c < 28:
            self.tags.add("atx-heading")
            return [f"{'#' * r.randint(1, 6)}{r.choice((' ', ' ', '', chr(9)))}{self.piece()}"]
        if c < 31:
            self.tags.add("setext-heading")
            return [self.piece(), r.choice(("===", "---", "-", "= ="))]
        if c < 34:
            self.tags.add("thematic-break")
            return [r.choice(("---", "***", "___", "* * *", "- - -", "-- -"))]
        if c < 42:
            return self.fence(directive=False)
        if c < 52:
            return self.fence(directive=True, in_container=depth > 0)
        if c < 60:
            lead = r.choice(("    ", "    ", "\t", "  \t", "     "))
            if "\t" in lead:
                self.tags.add("indented-code-tab")
            before = r.choice(("blank", "heading", "break", "fence"))
            code = [lead + self.call(), lead + self.piece()]
            if before == "blank":
                self.tags.add("indented-code-after-blank")
                return ["", *code]
            if before == "heading":
                self.tags.add("indented-code-after-heading")
                return [f"## {self.words()}", *code]
            if before == "break":
                self.tags.add("indented-code-after-break")
                return ["***", *code]
            self.tags.add("indented-code-after-fence")
            return ["```", self.words(), "```", *code]
        if c < 68:
            return self.html_block()
        if c < 78 and depth < 3:
            inner = self.list_block(depth)
            if depth > 0:
                self.tags.add("nested-list")
            return inner
        if c < 86 and depth < 3:
            return self.quote(depth)
        if c < 90:
            return self.table()
        if c < 95:
            return self.refdef()
        if self.eol == "\n":
            return [self.curl()]
        return self.inline().split("\n")

    def blocks(self, depth: int, count: int) -> list[str]:
        out: list[str] = []
        for i in range(count):
            lines = self.block(depth)
            if i > 0 and self.chance(0.7):
                out.append("")
            out.extend(lines)
        return out


def text(i: int) -> GenText:
    """The i-th generated text."""
    r = rng(SEED, i)
    eol = r.choices(("\n", "\r\n", "\r"), weights=(6, 2, 2))[0]
    g = Gen(r, eol)
    g.tags.add({"\n": "lf", "\r\n": "crlf", "\r": "cr"}[eol])
    lines = g.blocks(0, r.randint(2, 6))
    for line in lines:
        if line.startswith(("> ", ">")) and any(x in line for x in ("> -", "> *", "> 1.", ">- ")):
            g.tags.add("list-in-blockquote")
        if re.match(r"^(?:[-*+]|\d+[.)])[ \t]+>", line):
            g.tags.add("blockquote-in-list")
        if re.match(r"^>[ \t]*>", line):
            g.tags.add("nested-blockquote")
    body = eol.join(lines)
    if r.random() < 0.7:
        body += eol
    if r.random() < 0.1:
        g.tags.add("bom")
        body = "\ufeff" + body
    return GenText(i, body, g.calls, g.tags)
