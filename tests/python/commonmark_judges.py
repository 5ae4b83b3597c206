"""The two judges of the CommonMark differential test (``test_commonmark.py``):
independent CommonMark implementations, neither of them a reader inside the
scanner, each asked what it shows of a text.

- markdown-it-py (its ``commonmark`` preset with the GFM ``table`` and
  ``strikethrough`` rules, nothing else), read from its token stream;
- cmark-gfm, GitHub's C implementation, through the ``cmarkgfm`` package
  (extensions ``table`` and ``strikethrough``, safe mode: raw HTML is omitted
  from the output, as GitHub omits it), read from the HTML it renders with
  ``html.parser`` (and its source positions, for directive fences).

Both are pinned in ``requirements.txt``. Each gives a :class:`Reference`: the
runs of ordinary text it shows (whitespace collapsed), the directive fences
it shows, and where else text went, to name why a call is not shown.

What "shows as ordinary text" means
-----------------------------------
The text is given to each judge as a renderer receives it: a leading byte
order mark is dropped first (cmark, commonmark.js and micromark drop it;
markdown-it-py does not, and would otherwise read ``BOM    code`` as a
paragraph). Both normalize CRLF and lone CR to LF themselves.

A call or sentence written inline is shown as ordinary text only if its text
as written (the found span, every run of ASCII whitespace collapsed to one
space, since a renderer shows a line break or an indent inside a paragraph as
a space) lies inside the *rendered* text of one run of text with no markup in
between, in one block, outside every blockquote. Rendered text means what a
reader sees: entities decoded, backslash escapes applied, emphasis,
strikethrough, link and code span delimiters removed. So:

- inside a code span, inline HTML or an HTML comment, an image description or
  title, a link destination or title, a reference definition, a fenced or
  indented code block, an HTML block, a table cell past the header's count
  (cmark-gfm drops it), or any block inside a blockquote, it is not;
- where an emphasis, strikethrough or link delimiter, a code span, inline
  HTML, a hard break by backslash, an entity or an escape starts or ends
  inside it, the rendered characters differ from the source, so it is not;
- across two blocks it is in no single run, so it is not;
- wholly inside emphasis, strong text, strikethrough, link text, a heading or
  a table cell, it is (the reader sees those characters, styled).

markdown-it-py: a run is consecutive ``text`` / ``softbreak`` / ``hardbreak``
children of one ``inline`` token outside blockquotes. cmark-gfm: a run is the
character data between two tags (a ``<br />`` is a line break inside the run)
inside a ``p``, heading, ``li``, ``td`` or ``th`` element, outside ``code``,
``pre`` and ``blockquote``; an omitted raw HTML part (``<!-- raw HTML omitted
-->``) ends a run.

A *fence* call is shown as a call only if the judge shows a top-level fenced
code block (not inside a list item or a blockquote) whose info string *as
written* (no entity or escape decoding) has ``tool``, ``exec`` or ``box`` as
its first word, whose closing fence is present, and whose content, whitespace
collapsed, is exactly the op and object the generator wrote. markdown-it-py
gives the fence's lines in its token; cmark-gfm gives them as source
positions (``CMARK_OPT_SOURCEPOS``), and the info string and the closing line
are read from those lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, Callable
from urllib.parse import unquote

import cmarkgfm
from cmarkgfm.cmark import Options as CmarkOptions
from markdown_it import MarkdownIt

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
WS = re.compile(r"[ \t\n\r\f\v]+")
LINES = re.compile(r"\r\n|\r|\n")
DIRECTIVE_WORDS = ("tool", "exec", "box")
SPLIT = "not shown as written (split by markup, an entity, a link or a block boundary)"
OMITTED = "not in the output (raw HTML omitted, a table cell past the header's count, or a reference definition)"


def collapse(s: str) -> str:
    return WS.sub(" ", s)


@dataclass
class Reference:
    """What one judge shows of one text."""

    judge: str
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
        return SPLIT if self.judge == "markdown-it-py" else OMITTED


def _src(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def _closed_fence(lines: list[str], first: int, last: int, run: str) -> bool:
    """Whether source lines ``first``..``last`` (0-based) are a fence closed on its last line."""
    if last <= first or last >= len(lines):
        return False
    stripped = lines[last].lstrip(" ")
    if len(lines[last]) - len(stripped) > 3:
        return False
    close = len(stripped) - len(stripped.lstrip(run[0]))
    return close >= len(run) and stripped[close:].strip(" \t") == ""


def _markdown_it_closed(lines: list[str], token: Any) -> bool:
    return _closed_fence(lines, token.map[0], token.map[1] - 1, token.markup)


def markdown_it(text: str) -> Reference:
    """markdown-it-py's reading of ``text``."""
    src = _src(text)
    env: dict[str, Any] = {}
    tokens = MD.parse(src, env)
    lines = LINES.split(src)
    ref = Reference("markdown-it-py")
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
            if first in DIRECTIVE_WORDS and t.level == 0 and _markdown_it_closed(lines, t):
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
            ref.other.append((SPLIT, collapse(t.content)))
    return ref


CMARK_EXTENSIONS = ["table", "strikethrough"]
CMARK_OPTIONS = CmarkOptions.CMARK_OPT_SOURCEPOS
"""Safe mode (no ``CMARK_OPT_UNSAFE``): raw HTML is omitted, as GitHub omits it."""
TEXT_BLOCKS = frozenset(("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th"))
SOURCEPOS = re.compile(r"(\d+):(\d+)-(\d+):(\d+)")
FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


class _CmarkHtml(HTMLParser):
    """Walks cmark-gfm's HTML into a :class:`Reference`."""

    def __init__(self, ref: Reference, lines: list[str]):
        super().__init__(convert_charrefs=True)
        self.ref = ref
        self.lines = lines
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.run: list[str] = []
        self.pre: list[str] | None = None
        self.pre_fence: tuple[bool, str] | None = None  # (a closed top-level directive fence, where otherwise)

    def _flush(self) -> None:
        if self.run:
            self.ref.plain.append(collapse("".join(self.run)))
            self.run = []

    def _inside(self, *tags: str) -> bool:
        return any(t in tags for t, _ in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "br":
            self.run.append("\n")
            return
        self._flush()
        if tag == "img":
            self.ref.other.append(("an image description", collapse(f"{a.get('alt') or ''} {a.get('title') or ''}")))
            self.ref.other.append(("an image description", collapse(unquote(a.get("src") or ""))))
            return
        if tag in ("hr", "input"):
            return
        if tag == "a":
            self.ref.other.append(("a link destination or title", collapse(f"{unquote(a.get('href') or '')} {a.get('title') or ''}")))
        if tag == "pre":
            self.pre = []
            self.pre_fence = self._fence(a.get("data-sourcepos") or "")
        self.stack.append((tag, a))

    def _fence(self, pos: str) -> tuple[bool, str]:
        """Whether the ``pre`` at source positions ``pos`` is a closed top-level directive fence, and what it is otherwise."""
        m = SOURCEPOS.fullmatch(pos)
        if m is None:
            return False, "a fenced or indented code block"
        first, col, last, last_col = int(m.group(1)) - 1, int(m.group(2)), int(m.group(3)) - 1, int(m.group(4))
        # Columns count bytes of UTF-8 from 1; a fence in a container starts past the container's marks.
        line = self.lines[first].encode("utf-8")[col - 1:].decode("utf-8", "replace") if first < len(self.lines) else ""
        opening = FENCE_OPEN.fullmatch(line)
        if opening is None:
            return False, "an indented code block"
        word = (re.split(r"[ \t]+", opening.group(2).strip(" \t")) or [""])[0]
        if word not in DIRECTIVE_WORDS:
            return False, "a fenced code block"
        if self._inside("li", "blockquote"):
            return False, "a directive fence in a list item or blockquote"
        if last_col == 0 or not _closed_fence(self.lines, first, last, opening.group(1)):
            return False, "an unclosed directive fence"
        return True, ""

    def handle_endtag(self, tag: str) -> None:
        self._flush()
        if tag == "pre" and self.pre is not None and self.pre_fence is not None:
            content = collapse("".join(self.pre)).strip()
            closed, where = self.pre_fence
            if closed:
                self.ref.fences.append(content)
            else:
                self.ref.other.append((where, content))
            self.pre = None
            self.pre_fence = None
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_comment(self, data: str) -> None:
        self._flush()

    def handle_data(self, data: str) -> None:
        if self.pre is not None:
            self.pre.append(data)
            return
        if self._inside("code"):
            self.ref.other.append(("a code span", collapse(data)))
            return
        if self._inside("blockquote"):
            self.ref.other.append(("a blockquote", collapse(data)))
            return
        if self._inside(*TEXT_BLOCKS):
            self.run.append(data)


def cmark_gfm(text: str) -> Reference:
    """cmark-gfm's reading of ``text`` (through its safe-mode HTML)."""
    src = _src(text)
    html = cmarkgfm.markdown_to_html_with_extensions(src, options=CMARK_OPTIONS, extensions=CMARK_EXTENSIONS)
    ref = Reference("cmark-gfm")
    walker = _CmarkHtml(ref, LINES.split(src))
    walker.feed(html)
    walker.close()
    walker._flush()
    return ref


JUDGES: dict[str, Callable[[str], Reference]] = {"markdown-it-py": markdown_it, "cmark-gfm": cmark_gfm}
"""Every judge, by name."""
