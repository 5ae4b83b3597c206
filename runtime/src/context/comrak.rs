//! The comrak reader: a port of cmark-gfm, what GitHub renders with,
//! CommonMark with the GFM tables and strikethrough extensions (P170).
//!
//! comrak reports source positions as lines and columns (bytes, 1-based,
//! inclusive), and merges adjacent text nodes: a text node's literal is its
//! source with escapes and entities decoded. What is shown as written is
//! found by reading the literal beside the source; where they part in a way
//! no escape or entity explains, the rest of the node shows no text as
//! written (fail closed).

use std::ops::Range;

use comrak::arena_tree::NodeEdge;
use comrak::nodes::{NodeValue, Sourcepos};
use comrak::{parse_document, Arena, Options};

use super::reader::{outside, Ask, ceil_boundary, fence, floor_boundary, Breaker, Labels, Reader, Reading, Region, RunBuilder, Shown};

/// Resolves a reference to a label defined in an earlier section of a
/// stream (comrak's broken-link callback).
struct Carried<'l>(&'l Labels);

impl comrak::options::BrokenLinkCallback for Carried<'_> {
    fn resolve(
        &self,
        reference: comrak::options::BrokenLinkReference,
    ) -> Option<comrak::ResolvedReference> {
        self.0
            .resolves_in_comrak(reference.normalized)
            .then(|| comrak::ResolvedReference {
                url: String::new(),
                title: String::new(),
            })
    }
}

/// comrak, as [`Reader`].
pub(crate) struct Comrak;

/// The options the text is parsed with (P170).
fn options() -> Options<'static> {
    let mut o = Options::default();
    o.extension.table = true;
    o.extension.strikethrough = true;
    o
}

/// Byte offsets of source positions.
struct Lines<'t> {
    /// The whole text.
    text: &'t str,
    /// The offset where each line starts.
    starts: Vec<usize>,
    /// The parsed text's offset in the whole text.
    from: usize,
    len: usize,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str, from: usize) -> Self {
        let source = &text.as_bytes()[from..];
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source).map(|k| k + 1));
        Lines {
            text,
            starts,
            from,
            len: source.len(),
        }
    }

    /// The offset of line `line`, column `column` (1-based; column 0 is the
    /// line's start).
    fn at(&self, line: usize, column: usize) -> usize {
        let start = match line.checked_sub(1).and_then(|l| self.starts.get(l)) {
            Some(&s) => s,
            None => return self.from + self.len,
        };
        self.from + (start + column.saturating_sub(1)).min(self.len)
    }

    /// The half-open byte range of `pos`, widened to whole characters:
    /// comrak's columns can fall inside a character (after some link
    /// reference definitions), where no range of the text may end.
    fn range(&self, pos: Sourcepos) -> Range<usize> {
        let start = self.at(pos.start.line, pos.start.column);
        let end = if pos.end.column == 0 {
            self.at(pos.end.line, 0)
        } else {
            self.at(pos.end.line, pos.end.column) + 1
        };
        let end = end.max(start).min(self.from + self.len);
        floor_boundary(self.text, start)..ceil_boundary(self.text, end)
    }

    /// The bytes of line `line` (1-based) without its line ending, if the
    /// text has that line.
    fn line(&self, line: usize) -> Option<&'t str> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self.starts.get(line).map_or(self.len, |&s| s - 1);
        self.text.get(self.from + start..self.from + end)
    }

    /// The start of the line after the one holding `at`.
    fn next_line(&self, at: usize) -> usize {
        let k = self.starts.partition_point(|&s| s + self.from <= at);
        self.starts
            .get(k)
            .map_or(self.from + self.len, |&s| s + self.from)
    }
}

/// How the positions comrak reports inside a block map to the text.
///
/// comrak removes the link reference definitions that start a paragraph (or
/// a setext heading's text) from its content, and then reports the positions
/// of the inline content as if what is left started on the block's first
/// line: the lines are counted from the definition's line, and each line's
/// columns are measured from where the line of that index before the
/// removal starts (`resolve_reference_link_definitions` in comrak 0.59's
/// `parser/mod.rs` shortens the content but neither the block's start nor
/// its lines' offsets). Such a block's lines are moved down by the number of
/// lines removed, and each line's columns by what comrak itself reports of
/// that line's end: the line break that ends it, and, for its last line, the
/// end of its last node against the line's last non-blank byte (P256).
enum Shift {
    /// Positions are the text's own.
    None,
    /// Lines removed before the content, and per line of the content (from
    /// the block's first line) the columns to add.
    Lines {
        start: usize,
        removed: usize,
        columns: Vec<isize>,
    },
    /// Positions that cannot be mapped (a line whose end comrak does not
    /// report): the block shows no text as written (fail closed).
    Unknown,
}

impl Shift {
    /// The shift of the block `node` (one whose children are inlines).
    fn of<'a>(node: &'a comrak::nodes::AstNode<'a>, lines: &Lines<'_>) -> Shift {
        let block = node.data.borrow();
        let pos = block.sourcepos;
        let setext = matches!(&block.value, NodeValue::Heading(h) if h.setext);
        let content_end = pos.end.line.saturating_sub(usize::from(setext));
        let mut last = 0;
        let mut breaks: Vec<(usize, usize)> = Vec::new();
        for d in node.descendants().skip(1) {
            let ast = d.data.borrow();
            last = last.max(ast.sourcepos.end.line);
            if matches!(ast.value, NodeValue::SoftBreak | NodeValue::LineBreak) {
                breaks.push((ast.sourcepos.end.line, ast.sourcepos.end.column));
            }
        }
        if last == 0 || last >= content_end || last < pos.start.line {
            return Shift::None;
        }
        let removed = content_end - last;
        let n = last - pos.start.line + 1;
        let mut columns: Vec<Option<isize>> = vec![None; n];
        let col = |c: usize| isize::try_from(c).unwrap_or(isize::MAX);
        for (line, column) in breaks {
            // The break's last byte is its line's LF (lone CRs are LFs).
            let k = line - pos.start.line;
            if let (Some(slot), Some(text)) = (columns.get_mut(k), lines.line(line + removed)) {
                *slot = Some(col(text.len() + 1) - col(column));
            }
        }
        // The content's last line ends at its last byte that is not blank
        // (comrak trims the content's end).
        let end = node
            .descendants()
            .skip(1)
            .map(|d| d.data.borrow().sourcepos.end)
            .filter(|e| e.line == last)
            .map(|e| e.column)
            .max();
        if let (Some(end), Some(text)) = (end, lines.line(content_end)) {
            let kept = text.trim_end_matches([' ', '\t', '\u{b}', '\u{c}', '\r', '\n']);
            columns[n - 1] = Some(col(kept.len()) - col(end));
        }
        match columns.into_iter().collect::<Option<Vec<isize>>>() {
            Some(columns) => Shift::Lines {
                start: pos.start.line,
                removed,
                columns,
            },
            None => Shift::Unknown,
        }
    }

    /// `pos`, an inline node's position inside the block, in the text;
    /// `None` where it cannot be mapped.
    fn map(&self, pos: Sourcepos) -> Option<Sourcepos> {
        let Shift::Lines {
            start,
            removed,
            columns,
        } = self
        else {
            return matches!(self, Shift::None).then_some(pos);
        };
        let one = |lc: comrak::nodes::LineColumn| {
            let k = lc.line.checked_sub(*start)?;
            let column = if lc.column == 0 {
                0
            } else {
                usize::try_from(isize::try_from(lc.column).ok()? + columns.get(k)?).ok()?
            };
            Some(comrak::nodes::LineColumn {
                line: lc.line + removed,
                column,
            })
        };
        Some(Sourcepos {
            start: one(pos.start)?,
            end: one(pos.end)?,
        })
    }
}

impl Reader for Comrak {
    fn name(&self) -> &'static str {
        "comrak"
    }

    fn parse(&self, text: &str) -> usize {
        let arena = Arena::new();
        parse_document(&arena, text, &options()).descendants().count()
    }

    /// comrak reports no definitions and no broken references: with
    /// `ask.records.definitions`, the `]:` of each definition it read is
    /// recorded without its label ([`Reading::unlabelled`]).
    fn read(&self, text: &str, from: usize, ask: Ask<'_>) -> Reading {
        let arena = Arena::new();
        let mut opts: Options<'_> = options();
        if !ask.carried.is_empty() {
            opts.parse.broken_link_callback = Some(std::sync::Arc::new(Carried(ask.carried)));
        }
        let root = parse_document(&arena, &text[from..], &opts);
        let lines = Lines::new(text, from);
        let mut out = Reading::default();
        let mut b = RunBuilder::new(text);
        let mut quoted = 0usize;
        let mut containers = 0usize;
        let mut open: Vec<usize> = Vec::new();
        // The shift of the block whose inlines are being read (P256).
        let mut shift = Shift::None;
        // The extent of each leaf block (a block with no block inside).
        let mut leaves: Vec<Range<usize>> = Vec::new();
        for edge in root.traverse() {
            let (node, start) = match edge {
                NodeEdge::Start(n) => (n, true),
                NodeEdge::End(n) => (n, false),
            };
            let ast = node.data.borrow();
            let inline = !ast.value.block();
            if !inline && ast.value.contains_inlines() {
                shift = if start {
                    Shift::of(node, &lines)
                } else {
                    Shift::None
                };
            }
            let r = if inline {
                match shift.map(ast.sourcepos) {
                    Some(pos) => lines.range(pos),
                    // Positions that cannot be mapped: no text as written
                    // in its block (fail closed).
                    None => continue,
                }
            } else {
                lines.range(ast.sourcepos)
            };
            if ask.records.definitions && start && !inline {
                if let Some(leaf) = leaf(&ast.value, &shift, &r, &lines) {
                    leaves.push(leaf);
                }
            }
            let region = |out: &mut Reading, open: &mut Vec<usize>, shown| {
                if start {
                    open.push(out.regions.len());
                    out.regions.push(Region {
                        span: r.clone(),
                        shown,
                    });
                } else {
                    open.pop();
                }
            };
            match &ast.value {
                NodeValue::Text(literal) => {
                    if start && quoted == 0 {
                        shown_as_written(&mut b, text, r, literal);
                    }
                }
                NodeValue::SoftBreak | NodeValue::LineBreak => {
                    if start && quoted == 0 {
                        b.line_break(r);
                    }
                }
                NodeValue::Code(_) => {
                    if start {
                        b.inline(&r, Breaker::CodeSpan);
                        out.regions.push(Region {
                            span: r,
                            shown: Shown::CodeSpan,
                        });
                    }
                }
                NodeValue::HtmlInline(_) | NodeValue::Raw(_) => {
                    if start {
                        b.inline(&r, Breaker::InlineHtml);
                        out.regions.push(Region {
                            span: r,
                            shown: Shown::InlineHtml,
                        });
                    }
                }
                NodeValue::Emph
                | NodeValue::Strong
                | NodeValue::Strikethrough
                | NodeValue::Superscript
                | NodeValue::Subscript
                | NodeValue::Underline
                | NodeValue::Highlight
                | NodeValue::Insert
                | NodeValue::SpoileredText => {
                    if quoted == 0 {
                        b.inline(&r, Breaker::Emphasis);
                    }
                    if start {
                        out.regions.push(Region {
                            span: r,
                            shown: Shown::Emphasis,
                        });
                    }
                }
                NodeValue::Link(_) | NodeValue::WikiLink(_) => {
                    if quoted == 0 {
                        b.inline(&r, Breaker::Link);
                    }
                    if start {
                        if quoted == 0 && text.as_bytes().get(r.start) == Some(&b'[') {
                            out.links.push(r.clone());
                        }
                        out.regions.push(Region {
                            span: r,
                            shown: Shown::Link,
                        });
                    }
                }
                NodeValue::Image(_) => {
                    if start {
                        if quoted == 0 {
                            b.inline(&r, Breaker::Link);
                        }
                        quoted += 1;
                    } else {
                        quoted -= 1;
                        if quoted == 0 {
                            b.inline(&r, Breaker::Link);
                        }
                    }
                    region(&mut out, &mut open, Shown::Image);
                }
                NodeValue::BlockQuote | NodeValue::MultilineBlockQuote(_) | NodeValue::Alert(_) => {
                    b.end_block();
                    if start {
                        quoted += 1;
                        containers += 1;
                    } else {
                        quoted -= 1;
                        containers -= 1;
                    }
                    region(&mut out, &mut open, Shown::Blockquote);
                }
                NodeValue::Item(_) | NodeValue::TaskItem(_) | NodeValue::DescriptionItem(_) => {
                    b.end_block();
                    if start {
                        containers += 1;
                    } else {
                        containers -= 1;
                    }
                }
                NodeValue::Table(_) => {
                    b.end_block();
                    region(&mut out, &mut open, Shown::Table);
                }
                NodeValue::CodeBlock(c) => {
                    b.end_block();
                    let shown = if c.fenced {
                        Shown::FencedCode
                    } else {
                        Shown::IndentedCode
                    };
                    region(&mut out, &mut open, shown);
                    if start && c.fenced && containers == 0 && quoted == 0 && !r.is_empty() {
                        let body_start = lines.next_line(r.start).min(r.end);
                        let body_end = if c.closed {
                            // The start of the closing fence's line.
                            let last = ast.sourcepos.end.line;
                            lines.at(last, 0).max(body_start)
                        } else {
                            r.end
                        };
                        let f = fence(text, r.start, r.end, body_start..body_end, c.closed);
                        if ask.fence_words.contains(&&text[f.word.clone()]) {
                            out.fences.push(f);
                        }
                    }
                }
                NodeValue::HtmlBlock(_) => {
                    b.end_block();
                    region(&mut out, &mut open, Shown::HtmlBlock);
                }
                NodeValue::FootnoteDefinition(_) | NodeValue::FrontMatter(_) => {
                    b.end_block();
                    region(&mut out, &mut open, Shown::OtherBlock);
                }
                NodeValue::Document | NodeValue::List(_) => {}
                // Blocks whose inline content is text: paragraphs,
                // headings, table cells; and the rest.
                _ => {
                    if node.data.borrow().value.block() {
                        b.end_block();
                    } else if quoted == 0 {
                        b.inline(&r, Breaker::Other);
                    }
                }
            }
        }
        b.end_block();
        out.runs = b.runs;
        out.blocks = root
            .children()
            .map(|n| lines.range(n.data.borrow().sourcepos))
            .collect();
        if ask.records.definitions {
            out.unlabelled = outside_leaves(text, from, leaves);
        }
        out
    }
}

/// The bytes of a block (`value`, at `r`, its inlines' `shift`) in which a
/// `]:` is no definition's, if it is a leaf block (no block inside): a
/// paragraph's or a setext heading's after the lines of the definitions
/// comrak took from its start (which it keeps in the block's position,
/// P256), none where those cannot be told (fail closed); a code block's, an
/// HTML block's, a table cell's or an ATX heading's whole. A container (a quote, a list item) that held
/// only definitions is no leaf.
fn leaf(
    value: &NodeValue,
    shift: &Shift,
    r: &Range<usize>,
    lines: &Lines<'_>,
) -> Option<Range<usize>> {
    match (value, shift) {
        (v, Shift::Lines { start, removed, .. }) if v.contains_inlines() => {
            Some(lines.at(start + removed, 0).max(r.start).min(r.end)..r.end)
        }
        (v, Shift::Unknown) if v.contains_inlines() => None,
        (v, Shift::None) if v.contains_inlines() => Some(r.clone()),
        (
            NodeValue::CodeBlock(_)
            | NodeValue::HtmlBlock(_)
            | NodeValue::ThematicBreak
            | NodeValue::FrontMatter(_)
            | NodeValue::Raw(_),
            _,
        ) => Some(r.clone()),
        _ => None,
    }
}

/// The offset of each `]:` of `text[from..]` that lies in none of `leaves`
/// (comrak's leaf blocks): the definitions comrak read, which it removes
/// from the paragraphs that held them and reports nowhere (P366). A `]:`
/// anywhere else (text, code, a link's destination, HTML) lies in a leaf
/// block, and a definition's label ends in one: its `]` is followed by its
/// `:` directly.
fn outside_leaves(text: &str, from: usize, leaves: Vec<Range<usize>>) -> Vec<usize> {
    let marks = memchr::memmem::find_iter(&text.as_bytes()[from..], b"]:").map(|p| p + from);
    outside(marks, leaves)
}

/// Feeds `b` the parts of the text node at `r` that show as written, reading
/// its `literal` beside the source: an escape's backslash is part of a run
/// (P151), an entity ends one; where the two part otherwise, the rest of the
/// node shows no text as written.
fn shown_as_written(b: &mut RunBuilder<'_>, text: &str, r: Range<usize>, literal: &str) {
    let src = text.as_bytes();
    let lit = literal.as_bytes();
    if &src[r.clone()] == lit {
        return b.text(r);
    }
    let (mut i, mut j) = (r.start, 0);
    let mut piece = i;
    while i < r.end {
        let c = src[i];
        if c == b'\\'
            && i + 1 < r.end
            && src[i + 1].is_ascii_punctuation()
            && lit.get(j) == Some(&src[i + 1])
        {
            i += 2;
            j += 1;
            continue;
        }
        if c == b'&' {
            if let Some(len) = entity_len(&src[i..r.end]) {
                if !lit[j..].starts_with(&src[i..i + len]) {
                    if i > piece {
                        b.text(piece..i);
                    }
                    b.inline(&(i..i + len), Breaker::Entity);
                    // The characters it names (one or two).
                    let shown = literal[j..].chars().next().map_or(0, char::len_utf8);
                    j += shown;
                    i += len;
                    if i < r.end && lit.get(j) != Some(&src[i]) {
                        j += literal[j..].chars().next().map_or(0, char::len_utf8);
                    }
                    piece = i;
                    continue;
                }
            }
        }
        if lit.get(j) == Some(&c) {
            i += 1;
            j += 1;
            continue;
        }
        // Parted: nothing from here on is shown as written.
        if i > piece {
            b.text(piece..i);
        }
        b.inline(&(i..r.end), Breaker::Other);
        return;
    }
    if j != lit.len() {
        return b.inline(&(piece..r.end), Breaker::Other);
    }
    if i > piece {
        b.text(piece..r.end);
    }
}

/// The length of the entity or character reference that `b` starts with,
/// if it has the shape of one (`&name;`, `&#digits;`, `&#xhex;`).
fn entity_len(b: &[u8]) -> Option<usize> {
    let semi = memchr::memchr(b';', &b[..b.len().min(40)])?;
    let body = &b[1..semi];
    let ok = match body {
        [b'#', b'x' | b'X', hex @ ..] => !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit),
        [b'#', digits @ ..] => !digits.is_empty() && digits.iter().all(u8::is_ascii_digit),
        name => !name.is_empty() && name.iter().all(u8::is_ascii_alphanumeric),
    };
    ok.then_some(semi + 1)
}
