//! What one CommonMark reader shows of a text: the [`Reader`] trait and its
//! [`Reading`].
//!
//! A reader parses the normalized text (see `normalize.rs`) and reports,
//! with **byte** offsets into it (half-open), the stretches it shows as
//! written ([`TextRun`]s, each with the block it belongs to), the fenced code
//! blocks outside every container whose info string's first word is a
//! directive fence's, the links whose text starts with their `[`, and what
//! each region that shows no text is ([`Region`]), for diagnostics. A reader
//! reports what its parser reports, and nothing it derives from the raw bytes
//! beside it: where readers differ, the meet removes the text (`meet.rs`).

use std::collections::HashSet;
use std::ops::Range;

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
    /// Anything else a reader reports inside a block, or the place where
    /// readers stop agreeing.
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

/// A stretch of one block's source that a reader shows as written: text,
/// line breaks, the indentation a line break strips, and the backslashes of
/// escapes (P151).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextRun {
    /// Its bytes in the text.
    pub span: Range<usize>,
    /// What ends it.
    pub breaker: Breaker,
    /// The start of the first inline content of its block.
    pub block_start: usize,
    /// The end of the last inline content of its block (at or after
    /// `span.end`): a sentence's free-text field may run to it (P153).
    pub block_end: usize,
}

impl TextRun {
    /// Its block, as a reader names it: from the start of the block's first
    /// inline content to the end of its last. Two readers read the same
    /// block when they give it the same extent.
    pub(crate) fn block(&self) -> Range<usize> {
        self.block_start..self.block_end
    }
}

/// A fenced code block outside every container whose info string's first
/// word is a directive fence's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fence {
    /// From the opening fence run to the end of the closing fence (or of the
    /// text, when it never closes).
    pub span: Range<usize>,
    /// The info string's first word, as written.
    pub word: Range<usize>,
    /// The body's source bytes without the whitespace around them (empty
    /// at `span.end` for an empty body).
    pub body: Range<usize>,
    /// Whether a closing fence ends it.
    pub closed: bool,
}

impl Fence {
    /// Whether `other` is the same fenced block: readers differ only on
    /// whether its extent takes in the line break that ends the text.
    pub(crate) fn same(&self, other: &Fence, text: &str) -> bool {
        let end =
            |f: &Fence| f.span.start + text[f.span.clone()].trim_end_matches(['\n', '\r']).len();
        self.span.start == other.span.start
            && end(self) == end(other)
            && self.word == other.word
            && (self.body == other.body || self.body.is_empty() && other.body.is_empty())
            && self.closed == other.closed
    }
}

/// What a reader shows in a region where it shows no text as written: the
/// names a `hidden-by` diagnostic gives (`comrak: html_block`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    /// An HTML block.
    HtmlBlock,
    /// An indented code block.
    IndentedCode,
    /// A fenced code block.
    FencedCode,
    /// A blockquote (quoted by decision, P150).
    Blockquote,
    /// An image description (quoted by decision).
    Image,
    /// A table, outside the cells it shows (a cell past the header's
    /// column count is dropped).
    Table,
    /// A code span.
    CodeSpan,
    /// Inline HTML.
    InlineHtml,
    /// Link markup.
    Link,
    /// Emphasis or strikethrough markup.
    Emphasis,
    /// A block of another kind (a footnote definition, front matter).
    OtherBlock,
}

impl Shown {
    /// Its name in a diagnostic.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shown::HtmlBlock => "html_block",
            Shown::IndentedCode => "indented_code",
            Shown::FencedCode => "fenced_code",
            Shown::Blockquote => "blockquote",
            Shown::Image => "image_description",
            Shown::Table => "table_outside_cells",
            Shown::CodeSpan => "code_span",
            Shown::InlineHtml => "inline_html",
            Shown::Link => "link",
            Shown::Emphasis => "emphasis",
            Shown::OtherBlock => "other_block",
        }
    }
}

/// A region a reader shows as something other than text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region {
    /// Its bytes.
    pub span: Range<usize>,
    /// What it is.
    pub shown: Shown,
}

/// What one reader shows of a text (offsets into the normalized text).
#[derive(Debug, Default, Clone)]
pub(crate) struct Reading {
    /// The text runs, in order, none overlapping.
    pub runs: Vec<TextRun>,
    /// The directive fences (fenced code blocks outside every container
    /// whose first info word is a fence word), in order.
    pub fences: Vec<Fence>,
    /// The links whose text starts with their `[`, in order.
    pub links: Vec<Range<usize>>,
    /// The regions shown as no text, in the order they open (an inner
    /// region after its outer one).
    pub regions: Vec<Region>,
    /// The extent of each top-level block, in order: where a stream may
    /// start a new section (no block spans the blank line before it).
    pub blocks: Vec<Range<usize>>,
    /// The link reference definitions it read: each label as the reader
    /// gives it and the definition's bytes, in no particular order.
    pub definitions: Vec<(String, Range<usize>)>,
    /// The references it read whose label nothing defines (its broken-link
    /// callback's calls): each label's [`fold_label`] and the reference's
    /// bytes.
    pub broken: Vec<(String, Range<usize>)>,
    /// Where it read a link reference definition it reports no label for:
    /// the offset of the definition's `]:`, in order. comrak reports none of
    /// its definitions; a `]:` that lies in none of its leaf blocks is one
    /// (P366). Recorded with [`Reading::definitions`].
    pub unlabelled: Vec<usize>,
}

/// What a reading records beyond what the readers show: a stream asks for
/// each only where a later reading could use it (P364), and a reading that
/// records neither with nothing carried runs without a broken-link
/// callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Records {
    /// The link reference definitions ([`Reading::definitions`]): labels to
    /// carry to later sections, or definitions that came late.
    pub definitions: bool,
    /// The references whose label nothing defines ([`Reading::broken`]):
    /// what a later definition would make late.
    pub broken: bool,
}

impl Records {
    /// Both records.
    pub(crate) const ALL: Records = Records {
        definitions: true,
        broken: true,
    };
}

/// What a reading is asked beside its text.
#[derive(Clone, Copy)]
pub(crate) struct Ask<'a> {
    /// The directive fences' info words.
    pub fence_words: &'a [&'a str],
    /// The labels of earlier sections' definitions: a reference to one
    /// that the text does not define resolves as a link.
    pub carried: &'a Labels,
    /// Whether to fill [`Reading::definitions`], [`Reading::broken`] and
    /// [`Reading::unlabelled`] (else they stay empty).
    pub records: Records,
}

/// The labels of link reference definitions read in earlier sections of a
/// stream: a reference to one resolves as in the whole text, through each
/// reader's broken-link callback, by that reader's own matching (P365).
///
/// A label is kept once per reader, as that reader compares labels:
/// pulldown-cmark's label (which it gives with its runs of ASCII whitespace
/// already one space, and trimmed), Unicode case folded; and comrak's
/// normalized label (trimmed of spaces, tabs and line endings, its runs of
/// any Unicode whitespace one space, case folded by `caseless`), which its
/// callback is given. A broader match (one fold for both, [`fold_label`])
/// made a link of a reference that neither reader links in the whole text,
/// and dropped the call there unreported.
#[derive(Debug, Default, Clone)]
pub(crate) struct Labels {
    /// pulldown-cmark's labels, folded.
    pulldown: HashSet<String>,
    /// comrak's normalized labels.
    comrak: HashSet<String>,
}

impl Labels {
    /// No label.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether no label is carried.
    pub(crate) fn is_empty(&self) -> bool {
        self.pulldown.is_empty()
    }

    /// Carries the definition whose label pulldown-cmark read as `label`,
    /// written as `source` (the definition's bytes).
    ///
    /// pulldown-cmark trims a vertical tab or a form feed at a label's end
    /// (after collapsing it to a space), comrak keeps it as a space: where
    /// `source` holds either, comrak's label may have had a space at either
    /// end, and each is carried (a broader match, which fails closed).
    pub(crate) fn insert(&mut self, label: &str, source: &str) {
        let key = comrak_label(label);
        if memchr::memchr2(0x0b, 0x0c, source.as_bytes()).is_some() {
            for k in [format!(" {key}"), format!("{key} "), format!(" {key} ")] {
                self.comrak.insert(k);
            }
        }
        self.comrak.insert(key);
        self.pulldown.insert(pulldown_label(label));
    }

    /// Whether a reference pulldown-cmark read as `label` resolves.
    pub(crate) fn resolves_in_pulldown(&self, label: &str) -> bool {
        self.pulldown.contains(&pulldown_label(label))
    }

    /// Whether a reference whose label comrak normalized to `normalized`
    /// resolves.
    pub(crate) fn resolves_in_comrak(&self, normalized: &str) -> bool {
        self.comrak.contains(normalized)
    }
}

impl<'a> FromIterator<&'a str> for Labels {
    /// The labels of definitions as pulldown-cmark reads them, each its own
    /// source.
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut labels = Labels::new();
        for label in iter {
            labels.insert(label, label);
        }
        labels
    }
}

/// A label as pulldown-cmark compares it: as it gives it (whitespace already
/// collapsed), Unicode case folded (`unicase`, which its labels are).
fn pulldown_label(label: &str) -> String {
    unicase::UniCase::new(label).to_folded_case()
}

/// A label as comrak normalizes it (`strings::normalize_label`, private to
/// comrak): trimmed of spaces, tabs, LFs and CRs, each run of Unicode
/// whitespace one space, case folded by `caseless` (its fold, whose Unicode
/// version is not `unicase`'s).
fn comrak_label(label: &str) -> String {
    let trimmed = label.trim_matches([' ', '\t', '\n', '\r']);
    let mut out = String::with_capacity(trimmed.len());
    let mut space = false;
    for c in trimmed.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    caseless::default_case_fold_str(&out)
}

/// A link label folded broadly: Unicode case folded, its runs of any
/// whitespace one space, without leading or trailing whitespace. Two labels
/// either reader matches fold alike (and some that neither does): a stream
/// holds a later definition against the references over committed items by
/// it, so a definition that may have hidden one is reported (P267).
pub(crate) fn fold_label(label: &str) -> String {
    if label.is_ascii() {
        return fold_ascii_label(label);
    }
    let collapsed = label.split_whitespace().collect::<Vec<_>>().join(" ");
    unicase::UniCase::new(collapsed).to_folded_case()
}

/// [`fold_label`] of an ASCII label in one pass, with one allocation: an
/// ASCII letter's case folding is its lower case, and no other ASCII byte
/// folds; its whitespace is what `split_whitespace` splits at (tab, line
/// feed, vertical tab, form feed, carriage return, space). Both readers read
/// every bracketed candidate as a reference, so this runs for each one.
fn fold_ascii_label(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut space = false;
    for b in label.bytes() {
        if matches!(b, b'\t'..=b'\r' | b' ') {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(char::from(b.to_ascii_lowercase()));
        }
    }
    out
}

/// What one reader shows at a byte: the data a `hidden-by` report is
/// written from (P172).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Showing {
    /// Text as written, of the block with this extent ([`TextRun::block`]).
    Text(Range<usize>),
    /// The innermost region that holds it.
    Region(Shown),
    /// No text and no region: a reference definition, a blank line.
    Nothing,
}

impl Showing {
    /// Its name in a diagnostic: `text`, a region's name, `no text`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Showing::Text(_) => "text",
            Showing::Region(shown) => shown.name(),
            Showing::Nothing => "no text",
        }
    }
}

impl Reading {
    /// What this reading shows at byte `at`: text as written (with its
    /// block), else the innermost region that holds it, else nothing.
    pub(crate) fn showing_at(&self, at: usize) -> Showing {
        let k = self.runs.partition_point(|r| r.span.end <= at);
        if let Some(run) = self.runs.get(k).filter(|r| r.span.start <= at) {
            return Showing::Text(run.block());
        }
        // The last region opened at or before `at` that holds it: regions
        // nest, so an inner one opens after its outer one. A bounded look
        // back keeps a query cheap on hostile nesting.
        let k = self.regions.partition_point(|r| r.span.start <= at);
        self.regions[..k]
            .iter()
            .rev()
            .take(64)
            .find(|r| r.span.end > at)
            .map_or(Showing::Nothing, |r| Showing::Region(r.shown))
    }
}

/// A CommonMark reader that reports source positions.
pub(crate) trait Reader: Sync {
    /// Its name in diagnostics (`pulldown-cmark`, `comrak`).
    fn name(&self) -> &'static str;
    /// What it shows of `text`, the normalized text, of which it parses
    /// `text[from..]` (after a byte order mark), as `ask` asks; offsets
    /// are into `text`.
    fn read(&self, text: &str, from: usize, ask: Ask<'_>) -> Reading;
    /// A bare parse of `text` with the options [`Reader::read`] parses
    /// with, every event or node visited once and nothing else: how many.
    /// The bench times it beside the scan (P260).
    fn parse(&self, text: &str) -> usize;
}

/// What [`RunBuilder::shown`] is given: text, or a line break.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piece {
    Text,
    LineBreak,
}

/// Collects a reader's text runs, block by block: the shared bookkeeping of
/// the readers (each feeds it what its parser reports).
pub(crate) struct RunBuilder<'t> {
    text: &'t str,
    /// The runs so far.
    pub runs: Vec<TextRun>,
    /// The run being read.
    open: Option<Range<usize>>,
    /// The first run of the current block.
    block_first: usize,
    block_start: Option<usize>,
    block_end: usize,
}

impl<'t> RunBuilder<'t> {
    /// A builder over `text` (the normalized text).
    pub(crate) fn new(text: &'t str) -> Self {
        RunBuilder {
            text,
            runs: Vec::new(),
            open: None,
            block_first: 0,
            block_start: None,
            block_end: 0,
        }
    }

    /// Ends the run being read with `breaker`.
    pub(crate) fn close(&mut self, breaker: Breaker) {
        if let Some(span) = self.open.take() {
            self.runs.push(TextRun {
                span,
                breaker,
                block_start: 0,
                block_end: 0,
            });
        }
    }

    /// Ends the current block: its runs learn its extent.
    pub(crate) fn end_block(&mut self) {
        self.close(Breaker::Block);
        let start = self.block_start.take().unwrap_or(0);
        for run in &mut self.runs[self.block_first..] {
            run.block_end = self.block_end.max(run.span.end);
            run.block_start = start.min(run.span.start);
        }
        self.block_first = self.runs.len();
        self.block_end = 0;
    }

    /// Text shown as written at `r`: it joins the run being read when only
    /// blanks or an escape's backslash lie between them.
    pub(crate) fn text(&mut self, r: Range<usize>) {
        self.shown(r, Piece::Text);
    }

    /// A line break at `r`: it joins the run being read as [`Self::text`]
    /// does, and starts none.
    pub(crate) fn line_break(&mut self, r: Range<usize>) {
        self.shown(r, Piece::LineBreak);
    }

    fn shown(&mut self, r: Range<usize>, what: Piece) {
        // A reader's position inside a character (comrak's, after some link
        // reference definitions) shows only the whole characters within it;
        // none at all: nothing shown as written there (fail closed).
        let inner = self.ceil(r.start)..self.floor(r.end);
        if inner.start >= inner.end && r.start < r.end {
            return self.inline(&r, Breaker::Other);
        }
        let r = inner.start..inner.end.max(inner.start);
        self.extend(&r);
        if let Some(open) = &mut self.open {
            let gap = self.text.get(open.end..r.start).unwrap_or("\u{0}");
            if gap.is_empty() || gap == "\\" || gap.bytes().all(|b| b == b' ' || b == b'\t') {
                open.end = open.end.max(r.end);
                return;
            }
            self.close(Breaker::Other);
        }
        if what == Piece::Text {
            self.open = Some(r);
        }
    }

    /// Inline content shown otherwise than written at `r`: it ends the run.
    pub(crate) fn inline(&mut self, r: &Range<usize>, breaker: Breaker) {
        // Widened to whole characters (see `shown`).
        let r = self.floor(r.start)..self.ceil(r.end);
        self.extend(&r);
        self.close(breaker);
    }

    fn floor(&self, at: usize) -> usize {
        floor_boundary(self.text, at)
    }

    fn ceil(&self, at: usize) -> usize {
        ceil_boundary(self.text, at)
    }

    fn extend(&mut self, r: &Range<usize>) {
        self.block_end = self.block_end.max(r.end);
        let start = self.block_start.get_or_insert(r.start);
        *start = (*start).min(r.start);
    }
}

/// The fence opening at `start` and ending at `end`: its info string's first
/// word as written (after spaces and tabs, up to a space, tab or line end,
/// P84), its body `body` without the whitespace around it, and `closed`.
pub(crate) fn fence(
    text: &str,
    start: usize,
    end: usize,
    body: Range<usize>,
    closed: bool,
) -> Fence {
    let bytes = text.as_bytes();
    let ch = bytes[start];
    let run = bytes[start..end].iter().take_while(|&&c| c == ch).count();
    let mut w = start + run;
    while w < end && matches!(bytes[w], b' ' | b'\t') {
        w += 1;
    }
    let len = bytes[w..end]
        .iter()
        .take_while(|&&c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .count();
    let ws = |c: &u8| c.is_ascii_whitespace();
    let lead = bytes[body.clone()].iter().take_while(|c| ws(c)).count();
    let trail = bytes[body.start + lead..body.end]
        .iter()
        .rev()
        .take_while(|c| ws(c))
        .count();
    let body = if body.start + lead >= body.end - trail {
        end..end
    } else {
        body.start + lead..body.end - trail
    };
    Fence {
        span: start..end,
        word: w..w + len,
        body,
        closed,
    }
}

/// The last character boundary of `text` at or before byte `at` (at most
/// `text.len()`): where a reader's position inside a character moves back to.
pub(crate) fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The offsets of `points` (in order) that lie in none of `ranges`: one
/// sweep over both, the ranges sorted by start here.
pub(crate) fn outside(
    points: impl IntoIterator<Item = usize>,
    mut ranges: Vec<Range<usize>>,
) -> Vec<usize> {
    ranges.sort_unstable_by_key(|r| r.start);
    let (mut k, mut reach) = (0, 0);
    let mut out = Vec::new();
    for p in points {
        while k < ranges.len() && ranges[k].start <= p {
            reach = reach.max(ranges[k].end);
            k += 1;
        }
        if reach <= p {
            out.push(p);
        }
    }
    out
}

/// The first character boundary of `text` at or after byte `at` (at most
/// `text.len()`): where a reader's position inside a character moves on to.
pub(crate) fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass fold of ASCII labels is the general fold, on every
    /// label of up to three bytes from a set of letters, digits, symbols and
    /// every ASCII whitespace byte, and on longer ones.
    #[test]
    fn ascii_labels_fold_as_unicode_labels_do() {
        let general = |l: &str| {
            let collapsed = l.split_whitespace().collect::<Vec<_>>().join(" ");
            unicase::UniCase::new(collapsed).to_folded_case()
        };
        let bytes: Vec<u8> = b"aZ0 \t\n\x0b\x0c\r_[]:-\x1c\x7f".to_vec();
        let mut labels: Vec<String> = vec![String::new()];
        let mut last = labels.clone();
        for _ in 0..3 {
            last = last
                .iter()
                .flat_map(|l| bytes.iter().map(move |&b| format!("{l}{}", char::from(b))))
                .collect();
            labels.extend(last.iter().cloned());
        }
        labels.push("  TOOL   Box.EXEC\r\n{\"Cmd\": 1}  ".into());
        labels.push("WO:7fce46e0] [from SUPER".into());
        for l in &labels {
            assert_eq!(fold_ascii_label(l), general(l), "{l:?}");
            assert_eq!(fold_label(l), general(l), "{l:?}");
        }
        assert!(labels.len() > 4000, "{}", labels.len());
    }
}
