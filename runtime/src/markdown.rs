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
//! Where CommonMark readers differ on a text (the differential against
//! markdown-it, P158), guards take the reading that shows less: each only
//! removes runs, never adds one. Some read the source's lines beside
//! pulldown-cmark's events (a container's `>` and indentation, a definition's
//! label, a fence line), to find where a reader may place a line otherwise
//! (P150, P159–P167).
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
    /// Whether a fenced code block runs to the text's end without a closing
    /// fence: read inside a longer text, it may go on past it.
    pub open_at_end: bool,
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
    without_hidden(runs, &hidden, Breaker::InlineHtml)
}

/// `runs` without what lies in the `hidden` ranges (in order, none
/// overlapping): a run that reaches one ends before it, with `breaker`.
fn without_hidden(runs: Vec<TextRun>, hidden: &[Range<usize>], breaker: Breaker) -> Vec<TextRun> {
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
                            breaker,
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

/// `runs` without the text of what another CommonMark reader may take for a
/// full or collapsed reference link or image, `[text][label]` or
/// `![text][]`, where pulldown-cmark shows text: a definition it does not
/// find (one inside a container whose lines readers place differently) makes
/// the text a link's or an image's description to such a reader. Fail
/// closed: from the `[` that opens the text to the `]` that closes the
/// label, nothing is live text, when the label (or, collapsed, the text) is
/// one that a `[label]:` anywhere in the text may define (P167).
fn without_reference_texts(text: &str, runs: Vec<TextRun>) -> Vec<TextRun> {
    let b = text.as_bytes();
    if memchr::memmem::find(b, b"][").is_none() || memchr::memmem::find(b, b"]:").is_none() {
        return runs;
    }
    // Every label a reader may find defined: the text from a `[` to a `]:`
    // (no bracket between), compared as CommonMark compares labels (case
    // folded, blanks collapsed).
    let key = label_key;
    let escaped = |at: usize| b[..at].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    let mut defined = std::collections::HashSet::new();
    for colon in memchr::memmem::find_iter(b, b"]:") {
        if escaped(colon) {
            continue;
        }
        let from = colon.saturating_sub(LABEL_BYTES);
        // Back to the `[` that opens the label, past escaped brackets.
        let mut to = colon;
        while let Some(k) = memchr::memrchr2(b'[', b']', &b[from..to]) {
            let at = from + k;
            if escaped(at) {
                to = at;
                continue;
            }
            if b[at] == b'[' {
                defined.insert(key(&b[at + 1..colon]));
            }
            break;
        }
    }
    let mut hidden: Vec<Range<usize>> = Vec::new();
    let mut opens: Vec<usize> = Vec::new();
    let mut block = usize::MAX;
    for r in &runs {
        if r.block_end == block {
            continue;
        }
        block = r.block_end;
        opens.clear();
        let end = r.block_end.min(b.len());
        let mut i = r.block_start;
        while i < end {
            match b[i] {
                b'\\' => i += 1,
                b'[' => opens.push(i),
                b']' => {
                    if let Some(open) = opens.pop() {
                        if b.get(i + 1) == Some(&b'[') {
                            // The label: to the next `]`, with no `[` inside.
                            let stop = b.len().min(i + 2 + LABEL_BYTES);
                            let label = &b[(i + 2).min(stop)..stop];
                            if let Some(k) = unescaped_bracket(label) {
                                // A collapsed reference's label is its text.
                                let name = if k == 0 { &b[open + 1..i] } else { &label[..k] };
                                if label[k] == b']' && defined.contains(&key(name)) {
                                    hidden.push(open..i + 2 + k + 1);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    if hidden.is_empty() {
        return runs;
    }
    hidden.sort_by_key(|h| h.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(hidden.len());
    for h in hidden {
        match merged.last_mut() {
            Some(last) if h.start <= last.end => last.end = last.end.max(h.end),
            _ => merged.push(h),
        }
    }
    without_hidden(runs, &merged, Breaker::Link)
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
        let stop = to_blank_line(b, start, |line| line >= limit).end.min(limit);
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
            if alone.open_at_end {
                // Read on its own the region ends in an open fence: in the
                // text, that fence may hide what follows, up to the end.
                unstable.push(region.start..b.len());
                break;
            }
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

/// Whether the line at `line` starts a block that ends a paragraph for
/// every CommonMark reader, after at most three blanks: an ATX heading, a
/// fence, a bullet list item or one numbered 1, a thematic break.
fn interrupts_paragraph(b: &[u8], line: usize) -> bool {
    let blanks = b[line..].iter().take_while(|&&c| c == b' ').count();
    if blanks > 3 {
        return false;
    }
    let rest = &b[line + blanks..line_end(b, line)];
    let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
    // A list item that interrupts a paragraph has content after its marker.
    let item = |k: usize| {
        matches!(rest.get(k), Some(b' ' | b'\t'))
            && rest[k..].iter().any(|&c| c != b' ' && c != b'\t')
    };
    match rest.first() {
        Some(b'#') => {
            let hashes = rest.iter().take_while(|&&c| c == b'#').count();
            hashes <= 6 && matches!(rest.get(hashes), None | Some(b' ' | b'\t'))
        }
        Some(&c @ (b'`' | b'~')) => {
            let run = rest.iter().take_while(|&&x| x == c).count();
            run >= 3 && (c == b'~' || !rest[run..].contains(&b'`'))
        }
        Some(&c @ (b'-' | b'*' | b'_'))
            if rest.iter().filter(|&&x| x == c).count() >= 3
                && rest.iter().all(|&x| x == c || x == b' ' || x == b'\t') =>
        {
            true
        }
        Some(b'-' | b'+' | b'*') => item(1),
        Some(b'1') => matches!(rest.get(1), Some(b'.' | b')')) && item(2),
        _ => false,
    }
}

/// Drops every run that starts in the lines right after a blockquote that
/// may take a lazy line (its last leaf block is a paragraph or a tight list
/// item's text, or the next line holds four or more blanks and `>`), up to
/// the next blank line or the next line that starts a block that ends a
/// paragraph ([`interrupts_paragraph`]), and to the end of every list item
/// or blockquote that starts there. CommonMark readers differ on where such a
/// blockquote ends: markdown-it takes a line of four or more blanks and `>`
/// for the quote's next line, and reads a table row or a paragraph there as a
/// lazy line of the quote, where pulldown-cmark ends the quote (an indented
/// code block, a table, a new paragraph). Fail closed: those lines show no
/// live text (P163).
fn without_lines_after_quotes(
    ctx: &mut Context,
    text: &str,
    mut ends: Vec<(usize, bool)>,
    containers: &[(Container, Range<usize>)],
) {
    if ends.is_empty() || ctx.runs.is_empty() {
        return;
    }
    let b = text.as_bytes();
    ends.sort_unstable();
    // The stretches, in order, none overlapping: an end inside the stretch
    // before it shares that stretch's end, so each line is read once.
    let mut stretches: Vec<Range<usize>> = Vec::new();
    for (end, lazy) in ends {
        let mut start = end.min(b.len());
        if start > 0 && b[start - 1] != b'\n' {
            start = (line_end(b, start) + 1).min(b.len());
        }
        if stretches.last().is_some_and(|last| start <= last.end) {
            continue;
        }
        let blanks = b[start..].iter().take_while(|&&c| c == b' ').count();
        let quote_line = blanks >= 4 && b.get(start + blanks) == Some(&b'>');
        if !(lazy || quote_line) {
            continue;
        }
        let mut stretch = to_blank_line(b, start, |line| interrupts_paragraph(b, line));
        // A container that starts there is wholly where readers differ: to
        // one, its first line is a lazy line of the quote.
        let lo = containers.partition_point(|(_, c)| c.start < stretch.start);
        let hi = containers.partition_point(|(_, c)| c.start < stretch.end);
        if let Some(end) = containers[lo..hi].iter().map(|(_, c)| c.end).max() {
            stretch.end = stretch.end.max(end);
        }
        if !stretch.is_empty() {
            stretches.push(stretch);
        }
    }
    without_runs_in(ctx, &stretches);
}

/// A container block as pulldown-cmark reports it: its kind and its bytes
/// (a list item's from its line's start or its marker, a blockquote's from
/// its `>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Quote,
    Item,
}

/// A container enclosing the blocks being checked, as read from its first
/// line (see [`without_doubtful_containers`]).
struct Open {
    kind: Container,
    /// Where it starts and ends (pulldown-cmark's range).
    start: usize,
    end: usize,
    /// Where its content starts on its first line, as a byte and as a
    /// column.
    content: usize,
    content_col: usize,
    /// For a list item, the columns of blanks a continuation line needs
    /// (from the end of the enclosing containers' markers).
    width: usize,
    /// Whether its first line, or an enclosing container's, does not read as
    /// CommonMark's container syntax (a tab, a marker not where expected).
    odd: bool,
}

/// The end of the line holding byte `at` (its `\n`, or the text's end).
fn line_end(b: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |k| at + k)
}

/// The start of the line holding byte `at`.
fn line_start(b: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &b[..at]).map_or(0, |k| k + 1)
}

/// Where the content of `stack` (outermost first) starts on the line that
/// starts at `line`, when every container carries on there as CommonMark's
/// syntax says without a lazy line: a blockquote's `>` after at most three
/// spaces (and one optional space), a list item's `width` columns of spaces.
/// `None` when one does not (a lazy line, a tab, an odd container).
fn container_prefix(b: &[u8], stack: &[Open], line: usize) -> Option<usize> {
    // The byte order mark, which CommonMark readers skip.
    let line = if line == 0 && b.starts_with(BOM.as_bytes()) {
        BOM.len()
    } else {
        line
    };
    let Some(top) = stack.last() else {
        return Some(line);
    };
    if top.odd {
        return None;
    }
    // A container that starts on this line was read there when it opened:
    // its content starts where it was found (containers start in order, so
    // the innermost one's content is the line's).
    if top.start >= line {
        return Some(top.content);
    }
    let end = line_end(b, line);
    let mut pos = line;
    // Columns: a tab reaches the next tab stop, and one that reaches past
    // a list item's content (a partial tab) fails.
    let mut col = 0;
    for o in stack {
        match o.kind {
            Container::Quote => {
                let blanks = b[pos..end].iter().take_while(|&&c| c == b' ').count();
                if blanks > 3 || b.get(pos + blanks) != Some(&b'>') {
                    return None;
                }
                pos += blanks + 1;
                col += blanks + 1;
                match b.get(pos) {
                    Some(b' ') => {
                        pos += 1;
                        col += 1;
                    }
                    Some(b'\t') => return None,
                    _ => {}
                }
            }
            Container::Item => {
                let target = col + o.width;
                while col < target {
                    match b.get(pos) {
                        Some(b' ') => col += 1,
                        Some(b'\t') if (col / 4 + 1) * 4 <= target => col = (col / 4 + 1) * 4,
                        _ => return None,
                    }
                    pos += 1;
                }
            }
        }
    }
    Some(pos)
}

/// Whether the line at `line`, which does not carry every container of
/// `stack`, is one CommonMark readers may place differently: an odd
/// container, four or more columns of blanks (an indented code block to a
/// reader that ends the paragraph), a tab, or a first byte that may start a
/// block (`>`, a list marker, a heading, a rule, a fence, a table row, HTML).
/// Other lazy lines (`- a` then `b`) are read alike, as a continuation of
/// the paragraph.
fn doubtful_lazy_line(b: &[u8], stack: &[Open], line: usize) -> bool {
    if stack.last().is_some_and(|o| o.odd) {
        return true;
    }
    let blanks = b[line..].iter().take_while(|&&c| c == b' ').count();
    let at = line + blanks;
    let next = b.get(at + 1).copied();
    let ends = |c: Option<u8>| matches!(c, None | Some(b' ' | b'\t' | b'\r' | b'\n'));
    blanks >= 4
        || match b.get(at) {
            Some(b'\t' | b'>' | b'#' | b'|' | b'<') => true,
            Some(&c @ (b'-' | b'+' | b'*' | b'_' | b'=')) => ends(next) || next == Some(c),
            Some(&c @ (b'`' | b'~')) => next == Some(c) && b.get(at + 2) == Some(&c),
            Some(b'0'..=b'9') => b[at..]
                .iter()
                .find(|c| !c.is_ascii_digit())
                .is_some_and(|&c| c == b'.' || c == b')'),
            _ => false,
        }
}

/// Reads the container `kind` at `range` on its first line, inside `stack`.
fn open_container(b: &[u8], stack: &[Open], kind: Container, range: &Range<usize>) -> Open {
    let mut open = Open {
        kind,
        start: range.start,
        end: range.end,
        content: range.start,
        content_col: 0,
        width: 0,
        odd: true,
    };
    let line = match line_start(b, range.start) {
        0 if b.starts_with(BOM.as_bytes()) => BOM.len(),
        line => line,
    };
    let end = line_end(b, range.start);
    let Some(pos) = container_prefix(b, stack, line) else {
        return open;
    };
    let blanks = b[pos..end].iter().take_while(|&&c| c == b' ').count();
    let marker = pos + blanks;
    if blanks > 3 || marker < range.start || b.get(marker) == Some(&b'\t') {
        return open;
    }
    let after = match kind {
        Container::Quote if b.get(marker) == Some(&b'>') => marker + 1,
        Container::Item if matches!(b.get(marker), Some(b'-' | b'+' | b'*')) => marker + 1,
        Container::Item => {
            let digits = b[marker..end]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if !(1..=9).contains(&digits) || !matches!(b.get(marker + digits), Some(b'.' | b')')) {
                return open;
            }
            marker + digits + 1
        }
        Container::Quote => return open,
    };
    // Columns from here on: a tab after a list marker reaches the next tab
    // stop (CommonMark's reading; a tab anywhere else before the content
    // makes the container odd).
    let pos_col = stack
        .last()
        .filter(|o| o.start >= line)
        .map_or(pos - line, |o| o.content_col);
    let after_col = pos_col + (after - pos);
    let (mut at, mut col) = (after, after_col);
    while at < end && matches!(b[at], b' ' | b'\t') {
        if b[at] == b'\t' && kind == Container::Quote {
            return open;
        }
        col = if b[at] == b'\t' {
            (col / 4 + 1) * 4
        } else {
            col + 1
        };
        at += 1;
    }
    let blank = matches!(b.get(at), None | Some(b'\r' | b'\n'));
    (open.content, open.content_col) = match kind {
        Container::Quote => {
            let one = usize::from(at > after);
            (after + one, after_col + one)
        }
        // A blank first line, or an indented code block after the marker:
        // the content starts one column after it.
        Container::Item if blank || col - after_col >= 5 => ((after + 1).min(end), after_col + 1),
        Container::Item => (at, col),
    };
    open.width = open.content_col - pos_col;
    open.odd = false;
    open
}

/// Drops every run of a block that reaches or follows, inside the same
/// outermost list or blockquote, a line that pulldown-cmark reads inside a
/// container without the container's syntax (a lazy line) and that CommonMark
/// readers may place differently ([`doubtful_lazy_line`]: four or more
/// blanks, a tab, a block marker), or a container whose first line does not
/// read as its syntax. Which container or block such a line belongs to,
/// and so every block after it in that container, is where CommonMark
/// readers differ (markdown-it reads an indented code block, a blockquote or
/// a definition where pulldown-cmark reads a lazy paragraph line). Fail
/// closed: from that line to the outermost container's end nothing is live
/// text (P166).
fn without_doubtful_containers(
    ctx: &mut Context,
    text: &str,
    containers: &[(Container, Range<usize>)],
) {
    if containers.is_empty() || ctx.runs.is_empty() {
        return;
    }
    let b = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut next = 0;
    // From a doubtful line to its outermost container's end, in order.
    let mut doubtful: Vec<Range<usize>> = Vec::new();
    // The first of the lazy lines just read.
    let mut lazy: Option<usize> = None;
    let mut line = 0;
    while line < b.len() {
        let end = line_end(b, line);
        while stack.last().is_some_and(|o| o.end <= line) {
            stack.pop();
        }
        if stack.is_empty() {
            // Skip to the next container's line.
            match containers.get(next) {
                Some((_, c)) if c.start > end => {
                    lazy = None;
                    line = line_start(b, c.start);
                    continue;
                }
                None => break,
                _ => {}
            }
        }
        let mut opened = false;
        while let Some((kind, range)) = containers.get(next).filter(|(_, c)| c.start <= end) {
            next += 1;
            while stack.last().is_some_and(|o| o.end <= range.start) {
                stack.pop();
            }
            let open = open_container(b, &stack, *kind, range);
            stack.push(open);
            opened = true;
        }
        let blank = b[line..end]
            .iter()
            .all(|&c| matches!(c, b' ' | b'\t' | b'\r'));
        let mut doubt = None;
        if blank || stack.is_empty() {
            lazy = None;
        } else if container_prefix(b, &stack, line).is_none() {
            if doubtful_lazy_line(b, &stack, line) {
                doubt = Some(lazy.unwrap_or(line));
            }
            lazy.get_or_insert(line);
        } else if let Some(from) = lazy.take().filter(|_| !opened) {
            // A line that carries the containers again after lazy lines:
            // readers differ on whether the lazy lines ended the container.
            doubt = Some(from);
        }
        if let Some(from) = doubt {
            let mut outer = stack[0].end;
            // A fence there that no later line there closes may be, to
            // another reader, one outside the containers that nothing
            // closes: it hides the rest of the text.
            let mut open: Option<(u8, usize)> = None;
            let mut at = from;
            while at < outer.min(b.len()) {
                let e = line_end(b, at);
                let t = &b[at..e];
                let t = &t[t.iter().take_while(|&&c| c == b' ' || c == b'\t').count()..];
                let t = t.strip_suffix(b"\r").unwrap_or(t);
                if let Some(&c @ (b'`' | b'~')) = t.first() {
                    let run = t.iter().take_while(|&&x| x == c).count();
                    match open {
                        Some((o, len))
                            if o == c
                                && run >= len
                                && t[run..].iter().all(|&x| x == b' ' || x == b'\t') =>
                        {
                            open = None
                        }
                        None if run >= 3 => open = Some((c, run)),
                        _ => {}
                    }
                }
                at = e + 1;
            }
            if open.is_some() {
                outer = b.len();
            }
            lazy = None;
            if doubtful.last().is_some_and(|d| d.end >= from) {
                let last = doubtful.last_mut().expect("checked");
                last.end = last.end.max(outer);
            } else {
                doubtful.push(from..outer.max(end));
            }
            // Nothing after this line, to the outermost end, is looked at.
            stack.clear();
            while containers.get(next).is_some_and(|(_, c)| c.start < outer) {
                next += 1;
            }
            line = outer.max(end + 1);
            continue;
        }
        line = end + 1;
    }
    if doubtful.is_empty() {
        return;
    }
    // A block that reaches a doubtful stretch goes whole.
    let hit = |r: &TextRun| {
        let k = doubtful.partition_point(|d| d.end <= r.block_start.min(r.span.start));
        doubtful
            .get(k)
            .is_some_and(|d| d.start < r.block_end.max(r.span.end))
    };
    ctx.runs.retain(|r| !hit(r));
}

/// How a setext heading may read as a reference definition to a reader
/// whose definitions run on over a setext underline (markdown-it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetextDefinition {
    /// Not at all.
    No,
    /// The heading: its text's last line ends with `]:` (`[TOOL a.b {}]:`
    /// over `===`), and the underline reads as the destination.
    Heading,
    /// The heading and the lines after it: its text starts with a `[` whose
    /// label the heading does not close, or with `[label]:`, so that the
    /// label, destination or title may run on past the underline.
    RunsOn,
}

/// Whether the setext heading at `r` reads as a reference definition to
/// another reader (see [`SetextDefinition`]). pulldown-cmark shows a heading
/// there, markdown-it a definition, which shows nothing: such a heading,
/// and, where the definition may run on, the lines after it up to the next
/// blank line, have no live text (P161).
fn setext_definition(text: &str, r: &Range<usize>) -> SetextDefinition {
    let heading = text[r.clone()].trim_end_matches(['\n', '\r']);
    let Some(nl) = heading.rfind('\n') else {
        return SetextDefinition::No;
    };
    let underline = heading[nl + 1..].trim_matches([' ', '\t']);
    if underline.is_empty() || !underline.bytes().all(|c| c == b'=' || c == b'-') {
        return SetextDefinition::No;
    }
    let body = &heading[..nl];
    if let Some(label) = body.trim_start_matches(' ').strip_prefix('[') {
        let label = label.as_bytes();
        match unescaped_bracket(label) {
            // The label runs on: a definition only if the first bracket
            // after the heading (within a label's 999 characters) is a `]`
            // and a `:` follows it.
            None => {
                let b = text.as_bytes();
                let after = &b[r.end..b.len().min(r.end + LABEL_BYTES)];
                if let Some(k) = unescaped_bracket(after) {
                    if after[k..].starts_with(b"]:") {
                        return SetextDefinition::RunsOn;
                    }
                }
            }
            Some(k) if label[k..].starts_with(b"]:") => return SetextDefinition::RunsOn,
            _ => {}
        }
    }
    if body.trim_end_matches(['\r', ' ', '\t']).ends_with("]:") {
        SetextDefinition::Heading
    } else {
        SetextDefinition::No
    }
}

/// The most bytes a link label's 999 characters take.
const LABEL_BYTES: usize = 999 * 4;

/// The first `[` or `]` in `b` that no backslash escapes.
fn unescaped_bracket(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(k) = memchr::memchr3(b'\\', b'[', b']', &b[i..]) {
        if b[i + k] != b'\\' {
            return Some(i + k);
        }
        i += k + 2;
        if i >= b.len() {
            return None;
        }
    }
    None
}

/// A label as CommonMark readers compare labels, coarsened so that every
/// reader's match is one here: blanks collapsed, and case folded through
/// lower, upper and lower case again (`ẞ`, `ß` and `SS` are `ss`; `ς`, `Σ`
/// are `σ`; `ﬀ` is `ff`).
fn label_key(label: &[u8]) -> String {
    let label = String::from_utf8_lossy(label);
    let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
    label.to_lowercase().to_uppercase().to_lowercase()
}

/// From `start` (a line's start) to the next blank line or the text's end.
fn to_blank_line(b: &[u8], start: usize, stops: impl Fn(usize) -> bool) -> Range<usize> {
    let mut stop = start;
    while stop < b.len() {
        let next = line_end(b, stop);
        if b[stop..next]
            .iter()
            .all(|&c| matches!(c, b' ' | b'\t' | b'\r'))
            || stops(stop)
        {
            break;
        }
        stop = (next + 1).min(b.len());
    }
    start..stop
}

/// Drops every run that starts in one of `stretches` (in order, none
/// overlapping).
fn without_runs_in(ctx: &mut Context, stretches: &[Range<usize>]) {
    if stretches.is_empty() {
        return;
    }
    let within = |at: usize| {
        let k = stretches.partition_point(|s| s.end <= at);
        stretches.get(k).is_some_and(|s| s.contains(&at))
    };
    ctx.runs.retain(|r| !within(r.span.start));
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
        // Where each blockquote ends (see `without_lines_after_quotes`).
        let mut quote_ends: Vec<(usize, bool)> = Vec::new();
        // The lines after a setext heading that may be a definition's
        // (P161), in order.
        let mut runs_on: Vec<Range<usize>> = Vec::new();
        // Whether the code block being read is fenced, and whether a fenced
        // one runs unclosed to the end.
        let mut fenced = false;
        let mut open_at_end = false;
        // Whether the last leaf block read is a paragraph or a tight list
        // item's text (a blockquote that ends with it may take a lazy line),
        // and whether a code or HTML block is being read.
        let mut last_is_text = false;
        let mut in_code = false;
        // The leaf blocks, in order: a line in none of them that starts with
        // `[` may be a reference definition (see `definition_lines`).
        let mut leaves: Vec<Range<usize>> = Vec::new();
        // The list items and blockquotes, in order (see `without_doubtful_containers`).
        let mut container_list: Vec<(Container, Range<usize>)> = Vec::new();
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
            match &event {
                Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => {
                    in_code = true;
                    last_is_text = false;
                }
                Event::End(TagEnd::CodeBlock | TagEnd::HtmlBlock) => in_code = false,
                Event::End(TagEnd::Heading(_)) | Event::Rule => last_is_text = false,
                Event::Text(_) if !in_code => last_is_text = true,
                _ => {}
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
                        container_list.push((Container::Quote, r.clone()));
                        b.end_block();
                        quoted += 1;
                        containers += 1;
                        b.containers = containers;
                    }
                    Tag::Item => {
                        container_list.push((Container::Item, r.clone()));
                        b.end_block();
                        containers += 1;
                        b.containers = containers;
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
                        fenced = matches!(kind, CodeBlockKind::Fenced(_));
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
                        last_is_text = true;
                        b.end_block();
                    }
                    TagEnd::Heading(_) => {
                        match setext_definition(read, &r) {
                            SetextDefinition::No => {}
                            SetextDefinition::Heading => b.unshown = true,
                            SetextDefinition::RunsOn => {
                                b.unshown = true;
                                let after = (line_end(read.as_bytes(), r.end.saturating_sub(1))
                                    + 1)
                                .min(read.len());
                                // A heading inside the last stretch shares its
                                // blank line: each line is read once.
                                if runs_on.last().is_none_or(|last| after > last.end) {
                                    let stretch = to_blank_line(read.as_bytes(), after, |_| false);
                                    if !stretch.is_empty() {
                                        runs_on.push(stretch);
                                    }
                                }
                            }
                        }
                        b.end_block();
                    }
                    TagEnd::Image => {
                        quoted -= 1;
                        b.inline(&r, Breaker::Link);
                    }
                    TagEnd::BlockQuote(_) => {
                        quote_ends.push((r.end, last_is_text));
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
                    TagEnd::Table => {
                        last_is_text = false;
                        b.end_block();
                        if table_broken {
                            table_broken = false;
                            quoted -= 1;
                        }
                    }
                    TagEnd::CodeBlock => {
                        b.end_block();
                        quoted -= 1;
                        if std::mem::take(&mut fenced) && r.end >= read.len() {
                            let f = fence_at(read, r.start..r.end);
                            open_at_end |= !closes(read, &f, r.end);
                        }
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
            runs: without_reference_texts(read, without_cdata(read, b.runs)),
            fences,
            links,
            open_at_end,
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
        without_doubtful_containers(&mut ctx, read, &container_list);
        without_lines_after_quotes(&mut ctx, read, quote_ends, &container_list);
        without_runs_in(&mut ctx, &runs_on);
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
    fn plain_lazy_lines_stay_live_and_doubtful_ones_end_the_list() {
        // A plain lazy line; a tab that reaches the item's content exactly
        // (its block has a tab in a line's prefix, P150, the next does not).
        assert_eq!(runs("- a [b]\nc [d]\n"), ["a [b]\nc [d]"]);
        assert_eq!(runs("1.  a\n\tb\n\n    [c]\n"), ["[c]"]);
        // A tab that reaches past it (a partial tab) is doubtful.
        assert_eq!(runs("-  a\n\tb\n\n   [c]\n"), Vec::<&str>::new());
        // A lazy line of four blanks: nothing to the list's end.
        assert_eq!(runs("10.    a\n      b [c]\n   d\n\n[e]"), ["[e]"]);
        // A lazy line, then one that carries the item again: nothing to the
        // item's end.
        assert_eq!(runs("- a\nb\n  [c]\n\n- [d]\n\n[e]"), ["[d]", "[e]"]);
        // A new item after a lazy line is no return.
        assert_eq!(runs("- a\nb\n- [c]\n"), ["a\nb", "[c]"]);
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
