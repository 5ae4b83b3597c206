//! The Markdown context of a text: where a CommonMark renderer shows ordinary
//! text, and which fenced code blocks are directive fences.
//!
//! The context comes from pulldown-cmark's offset iterator (CommonMark, with
//! the GFM tables and strikethrough extensions that chat interfaces render,
//! P150), never from hand-written Markdown rules. The scanner reads
//! candidates only inside the [`TextRun`]s found here: a run is a stretch of
//! one block's source that is shown as it is written. Code (fenced, indented,
//! spans), HTML (blocks, inline, comments), blockquotes, image descriptions,
//! link destinations and titles, and reference definitions are in no run.
//!
//! All offsets are **byte** offsets into the text given to [`Context::of`],
//! half-open.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// What ends a [`TextRun`]: the end of its block, or something shown
/// otherwise than it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Breaker {
    /// The block ends (a paragraph, heading, table cell or list item).
    Block,
    /// A code span starts.
    CodeSpan,
    /// Inline HTML (a tag or a comment).
    InlineHtml,
    /// Emphasis, strong emphasis or strikethrough markup.
    Emphasis,
    /// A link's or an image's markup.
    Link,
    /// An entity or a character reference (`&amp;`, `&#42;`), shown as the
    /// character it names.
    Entity,
    /// Anything else pulldown-cmark reports inside a block.
    Other,
}

impl Breaker {
    /// What a diagnostic calls it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Breaker::Block => "the end of its block",
            Breaker::CodeSpan => "a code span",
            Breaker::InlineHtml => "inline HTML",
            Breaker::Emphasis => "emphasis or strikethrough markup",
            Breaker::Link => "link or image markup",
            Breaker::Entity => "an entity",
            Breaker::Other => "Markdown markup",
        }
    }
}

/// A stretch of one block's source that a CommonMark renderer shows as
/// written: text, line breaks, the indentation a line break strips, and the
/// backslashes of escapes (P151).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextRun {
    /// Its bytes in the text.
    pub span: Range<usize>,
    /// What ends it.
    pub breaker: Breaker,
    /// The end of the last inline content of its block (at or after
    /// `span.end`): a sentence's free-text field may run to it (P153).
    pub block_end: usize,
    /// The start of the first inline content of its block.
    pub block_start: usize,
    /// Whether its block is inside a list item or a blockquote.
    pub nested: bool,
}

/// A fenced code block outside every container whose info string's first
/// word is a directive fence's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fence {
    /// From the opening fence run to the end of the closing fence (or of the
    /// text, when it never closes).
    pub span: Range<usize>,
    /// The info string's first word.
    pub word: Range<usize>,
    /// The body's source bytes (from its first line to the end of its last).
    pub body: Range<usize>,
    /// Whether a closing fence ends it.
    pub closed: bool,
}

/// The Markdown context of a text (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Context {
    /// The text runs, in order, none overlapping.
    pub runs: Vec<TextRun>,
    /// The directive fences, in order.
    pub fences: Vec<Fence>,
    /// The links whose text starts with their `[`, in order: a candidate
    /// there is shown as a link, without its brackets.
    pub links: Vec<Range<usize>>,
}

/// `runs` without what lies in an inline CDATA section (`<![CDATA[` to
/// `]]>`, within its block): pulldown-cmark 0.13 reads one that spans lines
/// as text, CommonMark as inline HTML (P150).
fn without_cdata(text: &str, runs: Vec<TextRun>) -> Vec<TextRun> {
    const OPEN: &[u8] = b"<![CDATA[";
    let b = text.as_bytes();
    // The sections, from the source (markup inside one, such as a link, may
    // split the runs that show its opener): each `<![CDATA[` to the next
    // `]]>`; an opener that nothing closes is text, and so is every later one.
    let mut hidden: Vec<Range<usize>> = Vec::new();
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&b[from..], OPEN) {
        let open = from + k;
        let Some(c) = memchr::memmem::find(&b[open + OPEN.len()..], b"]]>") else {
            break;
        };
        from = open + OPEN.len() + c + 3;
        hidden.push(open..from);
    }
    if hidden.is_empty() {
        return runs;
    }
    let mut out = Vec::with_capacity(runs.len());
    let mut first = 0;
    for run in runs {
        while hidden.get(first).is_some_and(|h| h.end <= run.span.start) {
            first += 1;
        }
        let mut start = run.span.start;
        let mut k = first;
        while start < run.span.end {
            match hidden.get(k) {
                Some(h) if h.start < run.span.end => {
                    if h.start > start {
                        out.push(TextRun {
                            span: start..h.start,
                            breaker: Breaker::InlineHtml,
                            ..run.clone()
                        });
                    }
                    start = start.max(h.end);
                    k += 1;
                }
                _ => {
                    out.push(TextRun {
                        span: start..run.span.end,
                        ..run.clone()
                    });
                    break;
                }
            }
        }
    }
    out
}

/// After a reference definition, CommonMark readers differ on what the
/// lines up to the next blank line are: a continuation of the definition's
/// paragraph, or blocks of their own (an indented code block, an HTML
/// block). Those lines are parsed again on their own; unless both readings
/// give the same runs and directive fences there, none of them is kept
/// (P150).
fn recheck_after_definitions(
    ctx: &mut Context,
    text: &str,
    defs: Vec<Range<usize>>,
    fence_words: &[&str],
) {
    let b = text.as_bytes();
    let mut unstable: Vec<Range<usize>> = Vec::new();
    for (i, def) in defs.iter().enumerate() {
        let end = def.end;
        let start = match memchr::memchr(b'\n', &b[end..]) {
            Some(k) => end + k + 1,
            None => continue,
        };
        // To the next blank line, the next definition, or the end of the
        // text: the stretches of the definitions never overlap, so each line
        // is parsed again at most once.
        let limit = defs
            .get(i + 1)
            .map_or(b.len(), |next| next.start.max(start));
        let mut stop = start;
        while stop < limit {
            let line_end = memchr::memchr(b'\n', &b[stop..]).map_or(b.len(), |k| stop + k);
            if text[stop..line_end]
                .trim_matches([' ', '\t', '\r'])
                .is_empty()
            {
                break;
            }
            stop = (line_end + 1).min(b.len());
        }
        let stop = stop.min(limit);
        if stop <= start {
            continue;
        }
        let region = start..stop;
        let alone = Context::parse(&text[region.clone()], fence_words, false);
        let shift = |r: &Range<usize>| r.start + start..r.end + start;
        // The runs and fences that start in the region (both lists are in order).
        let runs = {
            let lo = ctx.runs.partition_point(|r| r.span.start < region.start);
            let hi = ctx.runs.partition_point(|r| r.span.start < region.end);
            &ctx.runs[lo..hi]
        };
        let fences = {
            let lo = ctx.fences.partition_point(|f| f.span.start < region.start);
            let hi = ctx.fences.partition_point(|f| f.span.start < region.end);
            &ctx.fences[lo..hi]
        };
        let same_runs = runs
            .iter()
            .map(|r| r.span.clone())
            .eq(alone.runs.iter().map(|r| shift(&r.span)));
        let same_fences = fences
            .iter()
            .map(|f| f.span.clone())
            .eq(alone.fences.iter().map(|f| shift(&f.span)));
        if !(same_runs && same_fences) {
            unstable.push(region);
        }
    }
    if unstable.is_empty() {
        return;
    }
    let stable = |at: usize| {
        let k = unstable.partition_point(|u| u.end <= at);
        unstable.get(k).is_none_or(|u| !u.contains(&at))
    };
    ctx.runs.retain(|r| stable(r.span.start));
    ctx.fences.retain(|f| stable(f.span.start));
}

/// The lines of `text` that may hold a reference definition pulldown-cmark
/// does not list: each line whose first byte after blanks and container
/// markers (`>`, `-`, `+`, `*`, a number and `.` or `)`) is `[` and lies in
/// none of the `covered` ranges (the leaf blocks, the text shown, the listed
/// definitions; each list in order, its ranges ending in order), from that
/// byte to the line's end. A line taken wrongly only has the lines after it
/// parsed again (fail closed).
fn definition_lines(text: &str, covered: &[&[Range<usize>]; 3]) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    // Per list, the first range that does not end before the current line.
    let mut next = [0usize; 3];
    let mut line = 0;
    while line < b.len() {
        let end = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |k| line + k);
        let mut p = line;
        while p < end
            && (matches!(b[p], b' ' | b'\t' | b'>' | b'-' | b'+' | b'*')
                || (b[p].is_ascii_digit()
                    && b[p..end]
                        .iter()
                        .find(|c| !c.is_ascii_digit())
                        .is_some_and(|&c| c == b'.' || c == b')')))
        {
            p += 1;
            if b[p - 1].is_ascii_digit() {
                while p < end && b[p].is_ascii_digit() {
                    p += 1;
                }
                p += 1;
            }
        }
        if p < end && b[p] == b'[' {
            let mut within = false;
            for (list, k) in covered.iter().zip(&mut next) {
                while *k < list.len() && list[*k].end <= p {
                    *k += 1;
                }
                within |= list.get(*k).is_some_and(|r| r.start <= p);
            }
            if !within {
                out.push(p..end);
            }
        }
        line = end + 1;
    }
    out
}

/// Drops every run of a block inside a list item or blockquote one of whose
/// lines holds a tab before the block's text on that line (in its
/// indentation or among its container markers: `>\t`, `-\t`, `1.\t`): how
/// far such a tab reaches decides which container or code block a line
/// belongs to, and CommonMark readers differ on it (P150). Fail closed: such
/// a block shows no live text.
fn without_tabbed_prefixes(ctx: &mut Context, text: &str) {
    let b = text.as_bytes();
    if memchr::memchr(b'\t', b).is_none() {
        return;
    }
    let mut tabbed = std::collections::HashSet::new();
    // Where the previous run ended: a run that starts on the same line is not
    // the first text of its line, and its line's prefix was looked at.
    let mut previous_end = 0;
    for r in &ctx.runs {
        let since = std::mem::replace(&mut previous_end, r.span.end);
        if !r.nested || tabbed.contains(&r.block_end) {
            continue;
        }
        // Each line the run starts or reaches: the bytes before its text.
        let mut at = r.span.start;
        let mut line = match memchr::memrchr(b'\n', &b[since.min(at)..at]) {
            Some(k) => Some(since + k + 1),
            // The text's first run starts the first line.
            None if since == 0 => Some(0),
            None => None,
        };
        loop {
            if line.is_some_and(|line| memchr::memchr(b'\t', &b[line..at]).is_some()) {
                tabbed.insert(r.block_end);
                break;
            }
            let Some(nl) = memchr::memchr(b'\n', &b[at..r.span.end]) else {
                break;
            };
            at = at + nl + 1;
            line = Some(at);
            while at < r.span.end && matches!(b[at], b' ' | b'\t') {
                at += 1;
            }
        }
    }
    if !tabbed.is_empty() {
        ctx.runs.retain(|r| !tabbed.contains(&r.block_end));
    }
}

/// Whether the setext heading at `r` reads as a reference definition to a
/// reader that takes its underline for the destination: its text's last line
/// ends with `]:` (`[TOOL a.b {}]:` over `===`). pulldown-cmark shows a
/// heading there, markdown-it a definition, which shows nothing; such a
/// heading has no live text (P161).
fn definition_over_underline(text: &str, r: &Range<usize>) -> bool {
    let heading = text[r.clone()].trim_end_matches(['\n', '\r']);
    let Some(nl) = heading.rfind('\n') else {
        return false;
    };
    let underline = heading[nl + 1..].trim_matches([' ', '\t']);
    let line = heading[..nl].trim_end_matches(['\r', ' ', '\t']);
    !underline.is_empty()
        && underline.bytes().all(|c| c == b'=' || c == b'-')
        && line.ends_with("]:")
}

/// The columns of blanks that start the line holding byte `at` (a tab
/// counts 4), up to its first other byte.
fn indent(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let at = at.min(b.len());
    let line = memchr::memrchr(b'\n', &b[..at]).map_or(0, |k| k + 1);
    b[line..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .map(|&c| if c == b'\t' { 4 } else { 1 })
        .sum()
}

/// `text` with every CR that no LF follows replaced by an LF, when it has one.
fn lone_crs_as_lf(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let lone = |i: usize| b.get(i + 1) != Some(&b'\n');
    memchr::memchr_iter(b'\r', b).find(|&i| lone(i))?;
    let mut out = b.to_vec();
    for i in memchr::memchr_iter(b'\r', b).filter(|&i| lone(i)) {
        out[i] = b'\n';
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(out).ok()
}

/// The options the context is parsed with (P150).
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// Whether anything in `text` could be a candidate: a `[` (every bracket
/// form and sentence head, and `Reply:` before one), a fence run of three
/// backticks or tildes, or `curl`. Where nothing can be, the Markdown parse is
/// skipped.
pub(crate) fn may_hold_candidates(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr(b'[', b).is_some()
        || memchr::memmem::find(b, b"```").is_some()
        || memchr::memmem::find(b, b"~~~").is_some()
        || memchr::memmem::find(b, b"curl").is_some()
}

/// The byte order mark, which CommonMark readers skip at the start of a text.
pub(crate) const BOM: &str = "\u{feff}";

struct Builder<'t> {
    text: &'t str,
    runs: Vec<TextRun>,
    /// The run being read.
    open: Option<Range<usize>>,
    /// Runs of the current block, waiting for its end.
    block_first: usize,
    block_end: usize,
    block_start: Option<usize>,
    /// Depth of list items and blockquotes.
    containers: usize,
    /// Whether the current block holds a strikethrough between single
    /// tildes (P160).
    single_tilde: bool,
    /// Whether the current block shows no live text whatever it holds
    /// (P161, P163).
    unshown: bool,
}

impl Builder<'_> {
    fn close(&mut self, breaker: Breaker) {
        if let Some(span) = self.open.take() {
            self.runs.push(TextRun {
                span,
                breaker,
                block_end: 0,
                block_start: 0,
                nested: self.containers > 0,
            });
        }
    }

    /// Ends the current block: its runs learn where it ends, or are dropped
    /// when it shows no live text.
    fn end_block(&mut self) {
        self.close(Breaker::Block);
        let start = self.block_start.take().unwrap_or(0);
        // Strikethrough between single tildes is GFM's, not every renderer's:
        // where one reads `~` as text, the `*` or `_` inside it may pair with
        // one outside (an emphasis across a call, P160).
        let tilde_emphasis = std::mem::take(&mut self.single_tilde)
            && memchr::memchr2(b'*', b'_', &self.text.as_bytes()[start..self.block_end]).is_some();
        if std::mem::take(&mut self.unshown) || tilde_emphasis {
            self.runs.truncate(self.block_first);
        }
        for run in &mut self.runs[self.block_first..] {
            run.block_end = self.block_end.max(run.span.end);
            run.block_start = start.min(run.span.start);
        }
        self.block_first = self.runs.len();
    }

    /// Text shown as written at `r` (or a line break, `text: false`).
    fn shown(&mut self, r: Range<usize>, text: bool) {
        self.block_end = self.block_end.max(r.end);
        self.block_start.get_or_insert(r.start);
        if let Some(open) = &mut self.open {
            let gap = &self.text[open.end..r.start];
            if gap.is_empty() || gap == "\\" || gap.bytes().all(|b| b == b' ' || b == b'\t') {
                open.end = r.end;
                return;
            }
            self.close(Breaker::Other);
        }
        if text {
            self.open = Some(r);
        }
    }

    fn inline(&mut self, r: &Range<usize>, breaker: Breaker) {
        self.block_end = self.block_end.max(r.end);
        self.block_start.get_or_insert(r.start);
        self.close(breaker);
    }
}

impl Context {
    /// The context of `text`, or an empty one when nothing in it could be a
    /// candidate ([`may_hold_candidates`]).
    ///
    /// `fence_words` are the info-string words of directive fences
    /// (`schema/directives.json`, `/fences`). A directive fence counts only
    /// outside every container: one in a list item or a blockquote is quoted
    /// code (P152).
    pub(crate) fn of(text: &str, fence_words: &[&str]) -> Context {
        Self::parse(text, fence_words, true)
    }

    fn parse(text: &str, fence_words: &[&str], recheck: bool) -> Context {
        if !may_hold_candidates(text) {
            return Context::default();
        }
        let skip = if text.starts_with(BOM) { BOM.len() } else { 0 };
        // A lone CR is a line ending (CommonMark); pulldown-cmark 0.13 reads
        // an indented code block on over one, so it is parsed as an LF, which
        // keeps every offset (P150).
        let normalized = lone_crs_as_lf(text);
        let read = normalized.as_deref().unwrap_or(text);
        let source = &read[skip..];
        let mut links = Vec::new();
        let mut b = Builder {
            text: read,
            runs: Vec::new(),
            open: None,
            block_first: 0,
            block_end: 0,
            block_start: None,
            containers: 0,
            single_tilde: false,
            unshown: false,
        };
        let mut fences = Vec::new();
        // Depth of what shows no live text (blockquotes, images, code and
        // HTML blocks), and of containers (list items, blockquotes).
        let mut quoted = 0usize;
        let mut containers = 0usize;
        let mut fence: Option<Fence> = None;
        // The indentation of the current table's delimiter row, and whether
        // a row indented past it ended the table's live text.
        let mut delimiter = 0usize;
        let mut table_broken = false;
        // Where the last paragraph ended, and where the last blockquote
        // ended when its last block was a paragraph (a lazy line may follow,
        // P163).
        let mut paragraph_end = usize::MAX;
        let mut lazy_from: Option<usize> = None;
        // The leaf blocks, in order: a line in none of them that starts with
        // `[` may be a reference definition (see `definition_lines`).
        let mut leaves: Vec<Range<usize>> = Vec::new();
        let mut events = Parser::new_ext(source, options()).into_offset_iter();
        for (event, r) in events.by_ref() {
            let r = r.start + skip..r.end + skip;
            if let (
                true,
                Event::Rule
                | Event::Start(
                    Tag::Paragraph
                    | Tag::Heading { .. }
                    | Tag::CodeBlock(_)
                    | Tag::HtmlBlock
                    | Tag::Table(_),
                ),
            ) = (recheck, &event)
            {
                leaves.push(r.clone());
            }
            match event {
                Event::Text(t) if quoted == 0 => {
                    if *t == read[r.clone()] {
                        b.shown(r, true);
                    } else {
                        b.inline(&r, Breaker::Entity);
                    }
                }
                Event::Text(_) => {
                    if let Some(f) = &mut fence {
                        if f.body.is_empty() {
                            f.body = r.clone();
                        }
                        f.body.end = r.end;
                    }
                }
                Event::SoftBreak | Event::HardBreak if quoted == 0 => b.shown(r, false),
                Event::Code(_) => b.inline(&r, Breaker::CodeSpan),
                Event::InlineHtml(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                    b.inline(&r, Breaker::InlineHtml)
                }
                Event::Start(tag) => match tag {
                    Tag::Strikethrough if read.as_bytes().get(r.start + 1) != Some(&b'~') => {
                        b.single_tilde = true;
                        b.inline(&r, Breaker::Emphasis);
                    }
                    Tag::Emphasis
                    | Tag::Strong
                    | Tag::Strikethrough
                    | Tag::Superscript
                    | Tag::Subscript => b.inline(&r, Breaker::Emphasis),
                    Tag::Link { .. } => {
                        b.inline(&r, Breaker::Link);
                        if quoted == 0 && text.as_bytes()[r.start] == b'[' {
                            links.push(r.clone());
                        }
                    }
                    Tag::Image { .. } => {
                        b.inline(&r, Breaker::Link);
                        quoted += 1;
                    }
                    Tag::BlockQuote(_) => {
                        b.end_block();
                        quoted += 1;
                        containers += 1;
                        b.containers = containers;
                    }
                    Tag::Item => {
                        b.end_block();
                        containers += 1;
                        b.containers = containers;
                    }
                    Tag::Paragraph
                        if lazy_from.is_some_and(|at| {
                            at <= r.start
                                && read.as_bytes()[at..r.start]
                                    .iter()
                                    .all(|&c| c == b' ' || c == b'\t')
                        }) =>
                    {
                        // A paragraph on the line right after a blockquote
                        // that ends in a paragraph: CommonMark reads it as a
                        // lazy line of the quote; pulldown-cmark does not
                        // where the line looks like a table row. Fail closed:
                        // it shows no live text (P163).
                        b.end_block();
                        b.unshown = true;
                    }
                    Tag::TableRow if !table_broken && indent(read, r.start) >= delimiter + 4 => {
                        // A row indented four columns past where the table's
                        // container starts (the text's start at the top
                        // level, three columns before the delimiter row in a
                        // container): markdown-it ends the table there (an
                        // indented code block), pulldown-cmark reads on. Fail
                        // closed: the rest of the table is quoted (P150).
                        b.end_block();
                        table_broken = true;
                        quoted += 1;
                    }
                    Tag::CodeBlock(kind) => {
                        b.end_block();
                        if let (CodeBlockKind::Fenced(_), 0) = (&kind, containers) {
                            // The word as written: pulldown-cmark's info string has
                            // its entities and escapes decoded (`t&#111;ol`).
                            let f = fence_at(text, r.clone());
                            if fence_words.contains(&&text[f.word.clone()]) {
                                fence = Some(f);
                            }
                        }
                        quoted += 1;
                    }
                    Tag::HtmlBlock | Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_) => {
                        b.end_block();
                        quoted += 1;
                    }
                    _ => b.end_block(),
                },
                Event::End(tag) => match tag {
                    TagEnd::Emphasis
                    | TagEnd::Strong
                    | TagEnd::Strikethrough
                    | TagEnd::Superscript
                    | TagEnd::Subscript => b.inline(&r, Breaker::Emphasis),
                    TagEnd::Link => b.inline(&r, Breaker::Link),
                    TagEnd::Paragraph => {
                        paragraph_end = r.end;
                        b.end_block();
                    }
                    TagEnd::Heading(_) if definition_over_underline(read, &r) => {
                        b.unshown = true;
                        b.end_block();
                    }
                    TagEnd::Image => {
                        quoted -= 1;
                        b.inline(&r, Breaker::Link);
                    }
                    TagEnd::BlockQuote(_) => {
                        lazy_from = (paragraph_end == r.end).then_some(r.end);
                        b.end_block();
                        quoted -= 1;
                        containers -= 1;
                        b.containers = containers;
                    }
                    TagEnd::Item => {
                        b.end_block();
                        containers -= 1;
                        b.containers = containers;
                    }
                    TagEnd::TableHead => {
                        b.end_block();
                        let next =
                            memchr::memchr(b'\n', &read.as_bytes()[r.end.saturating_sub(1)..])
                                .map_or(read.len(), |k| r.end.saturating_sub(1) + k + 1);
                        delimiter = if containers == 0 {
                            0
                        } else {
                            indent(read, next).saturating_sub(3)
                        };
                    }
                    TagEnd::Table if table_broken => {
                        b.end_block();
                        table_broken = false;
                        quoted -= 1;
                    }
                    TagEnd::CodeBlock => {
                        b.end_block();
                        quoted -= 1;
                        if let Some(mut f) = fence.take() {
                            f.span.end = r.end;
                            f.closed = closes(text, &f, r.end);
                            if f.body.is_empty() {
                                f.body = f.word.end..f.word.end;
                            }
                            fences.push(f);
                        }
                    }
                    TagEnd::HtmlBlock | TagEnd::FootnoteDefinition | TagEnd::MetadataBlock(_) => {
                        b.end_block();
                        quoted -= 1;
                    }
                    _ => b.end_block(),
                },
                _ if quoted == 0 => b.inline(&r, Breaker::Other),
                _ => {}
            }
        }
        b.end_block();
        let mut defs: Vec<Range<usize>> = events
            .reference_definitions()
            .iter()
            .map(|(_, d)| d.span.start + skip..d.span.end + skip)
            .collect();
        defs.sort_by_key(|d| d.start);
        // pulldown-cmark lists one definition per label: the others of a
        // label defined twice (`[r]`, `[R]`) are found from the source. They
        // are rechecked on their own, so that a line taken for one wrongly
        // never shortens the stretch after a listed one.
        let mut ctx = Context {
            runs: without_cdata(read, b.runs),
            fences,
            links,
        };
        let more = if recheck && !defs.is_empty() {
            // Text shown (in a run or a link) is no definition: a tight list
            // item's text is in no paragraph.
            let mut shown: Vec<Range<usize>> = ctx.runs.iter().map(|r| r.span.clone()).collect();
            shown.extend(ctx.links.iter().cloned());
            shown.sort_by_key(|r| r.start);
            definition_lines(read, &[&leaves, &shown, &defs])
        } else {
            Vec::new()
        };
        if recheck {
            recheck_after_definitions(&mut ctx, read, defs, fence_words);
            recheck_after_definitions(&mut ctx, read, more, fence_words);
        }
        without_tabbed_prefixes(&mut ctx, read);
        ctx
    }
}

/// The fence opening at `r.start`: its info string's first word as written
/// (after spaces and tabs, up to a space, tab or line end, P84).
fn fence_at(text: &str, r: Range<usize>) -> Fence {
    let bytes = text.as_bytes();
    let ch = bytes[r.start];
    let run = bytes[r.start..].iter().take_while(|&&c| c == ch).count();
    let mut w = r.start + run;
    while w < r.end && matches!(bytes[w], b' ' | b'\t') {
        w += 1;
    }
    let len = bytes[w..r.end]
        .iter()
        .take_while(|&&c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .count();
    Fence {
        span: r.clone(),
        word: w..w + len,
        body: 0..0,
        closed: false,
    }
}

/// Whether the fence `f`, whose block ends at `end`, ends with a closing
/// fence line (a run of its character at least as long as its opening run).
fn closes(text: &str, f: &Fence, end: usize) -> bool {
    let bytes = text.as_bytes();
    let ch = bytes[f.span.start];
    let open = bytes[f.span.start..end]
        .iter()
        .take_while(|&&c| c == ch)
        .count();
    let block = text[f.span.start..end].trim_end_matches(['\n', '\r']);
    // The last line, which is not the opening line.
    match block.rfind(['\n', '\r']) {
        Some(k) => {
            let close = block[k + 1..].trim_matches([' ', '\t']);
            close.len() >= open && close.bytes().all(|c| c == ch)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(text: &str) -> Vec<&str> {
        Context::of(text, &["tool"])
            .runs
            .iter()
            .map(|r| &text[r.span.clone()])
            .collect()
    }

    #[test]
    fn runs_are_what_is_shown_as_written() {
        assert_eq!(runs("a [b] c"), ["a [b] c"]);
        assert_eq!(runs("a `[b]` c"), ["a ", " c"]);
        assert_eq!(runs("x [a\n  b] y\n\nz["), ["x [a\n  b] y", "z["]);
        assert_eq!(runs("\\[a \\\"b\\\\"), ["[a \\\"b\\\\"]);
        assert_eq!(runs("[a &amp; b"), ["[a ", " b"]);
        assert_eq!(runs("> [a]\n\n    [b]\n\n[c] *d*"), ["[c] ", "d"]);
        assert_eq!(runs("\u{feff}    [a]\n"), Vec::<&str>::new());
        assert_eq!(runs("prose without brackets"), Vec::<&str>::new());
    }

    #[test]
    fn directive_fences_are_top_level_only() {
        let text = "```tool x\na {}\n```\n- ```tool\n  b {}\n  ```\n\n~~~tool\nc {}";
        let ctx = Context::of(text, &["tool"]);
        let fences: Vec<(&str, bool)> = ctx
            .fences
            .iter()
            .map(|f| (&text[f.body.clone()], f.closed))
            .collect();
        assert_eq!(fences, [("a {}\n", true), ("c {}", false)]);
    }
}
