//! The pulldown-cmark reader: its offset iterator, CommonMark with the GFM
//! tables and strikethrough extensions (P170).

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::reader::{Ask, fence, fold_label, Breaker, Reader, Reading, Region, RunBuilder, Shown};

/// pulldown-cmark, as [`Reader`].
pub(crate) struct Pulldown;

/// The options the text is parsed with (P170).
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

impl Reader for Pulldown {
    fn name(&self) -> &'static str {
        "pulldown-cmark"
    }

    fn parse(&self, text: &str) -> usize {
        Parser::new_ext(text, options()).into_offset_iter().count()
    }

    fn read(&self, text: &str, from: usize, ask: Ask<'_>) -> Reading {
        let mut out = Reading::default();
        let mut b = RunBuilder::new(text);
        // Depth of what shows no live text (blockquotes, images, code and
        // HTML blocks), and of containers (list items, blockquotes).
        let mut quoted = 0usize;
        let mut containers = 0usize;
        // The code block being read: where it opens, whether it is fenced,
        // whether it is a directive fence, and its body's extent.
        let mut code: Option<(usize, bool, bool, Option<std::ops::Range<usize>>)> = None;
        // Open regions, by the index of their entry in `out.regions`.
        let mut open: Vec<usize> = Vec::new();
        let region = |out: &mut Reading, open: &mut Vec<usize>, start: usize, shown| {
            open.push(out.regions.len());
            out.regions.push(Region {
                span: start..usize::MAX,
                shown,
            });
        };
        // A label defined in an earlier section of a stream resolves. With
        // nothing carried and no broken reference to record, the callback
        // could change nothing: the parse runs without it (P364).
        let broken = std::cell::RefCell::new(Vec::new());
        let resolve = |link: pulldown_cmark::BrokenLink<'_>| {
            if ask.carried.resolves_in_pulldown(&link.reference) {
                return Some(("".into(), "".into()));
            }
            if ask.records.broken {
                let span = link.span.start + from..link.span.end + from;
                broken
                    .borrow_mut()
                    .push((fold_label(&link.reference), span));
            }
            None
        };
        let callback = (ask.records.broken || !ask.carried.is_empty()).then_some(resolve);
        let mut events = Parser::new_with_broken_link_callback(&text[from..], options(), callback)
            .into_offset_iter();
        // Per open link or image: the `[]` its range leaves out. pulldown-cmark
        // ends a collapsed reference (`[foo][]`) at its label's `]` (its
        // tracker: #1077); the link is read to its end, as comrak reads it
        // (P259).
        let mut collapsed: Vec<usize> = Vec::new();
        // How deep the events nest: a start at depth 0 opens a top-level block.
        let mut depth = 0usize;
        for (event, r) in events.by_ref() {
            let mut r = r.start + from..r.end + from;
            match &event {
                Event::Start(Tag::Link { link_type, .. } | Tag::Image { link_type, .. }) => {
                    let left_out =
                        matches!(link_type, LinkType::Collapsed | LinkType::CollapsedUnknown)
                            && text[r.end..].starts_with("[]");
                    collapsed.push(if left_out { 2 } else { 0 });
                    r.end += collapsed.last().copied().unwrap_or(0);
                }
                Event::End(TagEnd::Link | TagEnd::Image) => {
                    r.end += collapsed.pop().unwrap_or(0);
                }
                _ => {}
            }
            match &event {
                Event::Start(_) => {
                    if depth == 0 {
                        out.blocks.push(r.clone());
                    }
                    depth += 1;
                }
                Event::End(_) => depth = depth.saturating_sub(1),
                _ if depth == 0 => out.blocks.push(r.clone()),
                _ => {}
            }
            match event {
                Event::Text(t) if quoted == 0 => {
                    if *t == text[r.clone()] {
                        b.text(r);
                    } else {
                        b.inline(&r, Breaker::Entity);
                    }
                }
                Event::Text(_) => {
                    if let Some((_, _, _, body)) = &mut code {
                        let body = body.get_or_insert(r.clone());
                        body.end = r.end;
                    }
                }
                Event::SoftBreak | Event::HardBreak if quoted == 0 => b.line_break(r),
                Event::Code(_) => {
                    b.inline(&r, Breaker::CodeSpan);
                    out.regions.push(Region {
                        span: r,
                        shown: Shown::CodeSpan,
                    });
                }
                Event::InlineHtml(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                    b.inline(&r, Breaker::InlineHtml);
                    out.regions.push(Region {
                        span: r,
                        shown: Shown::InlineHtml,
                    });
                }
                Event::Start(tag) => match tag {
                    Tag::Emphasis
                    | Tag::Strong
                    | Tag::Strikethrough
                    | Tag::Superscript
                    | Tag::Subscript => {
                        b.inline(&r, Breaker::Emphasis);
                        out.regions.push(Region {
                            span: r,
                            shown: Shown::Emphasis,
                        });
                    }
                    Tag::Link { .. } => {
                        b.inline(&r, Breaker::Link);
                        if quoted == 0 && text.as_bytes()[r.start] == b'[' {
                            out.links.push(r.clone());
                        }
                        out.regions.push(Region {
                            span: r,
                            shown: Shown::Link,
                        });
                    }
                    Tag::Image { .. } => {
                        b.inline(&r, Breaker::Link);
                        quoted += 1;
                        region(&mut out, &mut open, r.start, Shown::Image);
                    }
                    Tag::BlockQuote(_) => {
                        b.end_block();
                        quoted += 1;
                        containers += 1;
                        region(&mut out, &mut open, r.start, Shown::Blockquote);
                    }
                    Tag::Item => {
                        b.end_block();
                        containers += 1;
                    }
                    Tag::Table(_) => {
                        b.end_block();
                        region(&mut out, &mut open, r.start, Shown::Table);
                    }
                    Tag::CodeBlock(kind) => {
                        b.end_block();
                        let fenced = matches!(kind, CodeBlockKind::Fenced(_));
                        // The word as written: pulldown-cmark's info string
                        // has its entities and escapes decoded (`t&#111;ol`).
                        let directive = fenced && containers == 0 && quoted == 0 && {
                            let f = fence(text, r.start, r.end, r.end..r.end, false);
                            ask.fence_words.contains(&&text[f.word])
                        };
                        code = Some((r.start, fenced, directive, None));
                        quoted += 1;
                        let shown = if fenced {
                            Shown::FencedCode
                        } else {
                            Shown::IndentedCode
                        };
                        region(&mut out, &mut open, r.start, shown);
                    }
                    Tag::HtmlBlock => {
                        b.end_block();
                        quoted += 1;
                        region(&mut out, &mut open, r.start, Shown::HtmlBlock);
                    }
                    Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_) => {
                        b.end_block();
                        quoted += 1;
                        region(&mut out, &mut open, r.start, Shown::OtherBlock);
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
                    TagEnd::Image => {
                        quoted -= 1;
                        b.inline(&r, Breaker::Link);
                        close_region(&mut out, &mut open, r.end);
                    }
                    TagEnd::BlockQuote(_) => {
                        b.end_block();
                        quoted -= 1;
                        containers -= 1;
                        close_region(&mut out, &mut open, r.end);
                    }
                    TagEnd::Item => {
                        b.end_block();
                        containers -= 1;
                    }
                    TagEnd::Table => {
                        b.end_block();
                        close_region(&mut out, &mut open, r.end);
                    }
                    TagEnd::CodeBlock => {
                        b.end_block();
                        quoted -= 1;
                        close_region(&mut out, &mut open, r.end);
                        if let Some((start, fenced, directive, body)) = code.take() {
                            let closed = fenced && closes(text, start, r.end);
                            if directive {
                                let body = body.unwrap_or(r.end..r.end);
                                out.fences.push(fence(text, start, r.end, body, closed));
                            }
                        }
                    }
                    TagEnd::HtmlBlock | TagEnd::FootnoteDefinition | TagEnd::MetadataBlock(_) => {
                        b.end_block();
                        quoted -= 1;
                        close_region(&mut out, &mut open, r.end);
                    }
                    _ => b.end_block(),
                },
                _ if quoted == 0 => b.inline(&r, Breaker::Other),
                _ => {}
            }
        }
        b.end_block();
        out.runs = b.runs;
        if ask.records.definitions {
            out.definitions = events
                .reference_definitions()
                .iter()
                .map(|(label, def)| {
                    (
                        label.to_owned(),
                        def.span.start + from..def.span.end + from,
                    )
                })
                .collect();
        }
        drop(events);
        out.broken = broken.into_inner();
        out
    }
}

/// Closes the innermost open region at `end`.
fn close_region(out: &mut Reading, open: &mut Vec<usize>, end: usize) {
    if let Some(k) = open.pop() {
        out.regions[k].span.end = end;
    }
}

/// Whether the fenced code block from `start` to `end` (outside every
/// container) ends with a closing fence line: pulldown-cmark does not say,
/// so its last line is read as CommonMark reads a closing fence: at most
/// three spaces of indentation, a run of the opening run's character at
/// least as long, then only spaces and tabs (P258).
fn closes(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let ch = bytes[start];
    let open = bytes[start..end].iter().take_while(|&&c| c == ch).count();
    let block = text[start..end].trim_end_matches(['\n', '\r']);
    match block.rfind(['\n', '\r']) {
        Some(k) => {
            let line = &block.as_bytes()[k + 1..];
            let indent = line.iter().take_while(|&&c| c == b' ').count();
            let run = line[indent..].iter().take_while(|&&c| c == ch).count();
            indent <= 3
                && run >= open
                && line[indent + run..]
                    .iter()
                    .all(|&c| c == b' ' || c == b'\t')
        }
        None => false,
    }
}
