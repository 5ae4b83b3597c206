//! Definitions that came late (P267): a link reference definition that
//! arrives after an item it would have hidden was committed is reported as
//! a skip, since an item once committed is never retracted. The stream
//! notes, for each committed item, the references over it whose label
//! nothing defined, and each later reading's definitions and link regions
//! are held against them.

use super::*;

impl<S: 'static> Stream<'_, S> {
    /// The definitions of `definitions` that end by `bound` and would have
    /// hidden a committed item, each reported once (P267).
    pub(super) fn late(
        &mut self,
        definitions: &[(String, Range<usize>)],
        bound: usize,
        before: usize,
    ) -> Vec<Skipped> {
        let mut out = Vec::new();
        if self.references.is_empty() {
            return out;
        }
        for (label, span) in definitions {
            // A definition that only became one after the item was
            // committed (its title closed on a later line) is late too,
            // though it starts in text already committed.
            if span.end > bound || span.end <= self.closed || span.start >= before {
                continue;
            }
            let folded = fold_label(label);
            for item in self.references.remove(&folded).unwrap_or_default() {
                self.section_items.retain(|i| *i != item);
                out.push(Skipped {
                    // Events come in the order of the text: the part of the
                    // definition not yet committed.
                    span: span.start.max(self.closed)..span.end,
                    reason: SkipReason::LateDefinition,
                    message: format!(
                        "the link reference definition at bytes {}..{} arrived after the item at bytes {}..{} was committed; \
                         it would have made a link of the reference there, but a definition counts only for items not yet committed",
                        span.start, span.end, item.start, item.end
                    ),
                });
            }
        }
        out
    }

    /// The definitions no reader reported by label (`uncarried`: the `]:`
    /// of each, read by comrak alone, P366) that end by `bound` and would
    /// have hidden a committed item, each reported once, as [`Stream::late`]
    /// reports those with a label. The label is the one written before the
    /// `]:`: the text after the last `[` not escaped (a label holds no
    /// bracket that is not escaped); a label written across a container's
    /// lines (a quote's `>`) is not the one comrak compares, and matches no
    /// reference (the gap P267 leaves). The items of the open section are
    /// left to the watch (`late_links`), which reports a link over them.
    pub(super) fn late_unlabelled(
        &mut self,
        uncarried: &[usize],
        bound: usize,
        before: usize,
    ) -> Vec<Skipped> {
        let mut out = Vec::new();
        if self.references.is_empty() {
            return out;
        }
        for &p in uncarried {
            let Some(open) = written_label_start(self.text.as_bytes(), p) else {
                continue;
            };
            let span = open..p + 2;
            if span.end > bound || span.end <= self.closed || span.start >= before {
                continue;
            }
            let label = fold_label(&self.text[open + 1..p]);
            let Some(items) = self.references.remove(&label) else {
                continue;
            };
            // The items of the open section are watched: a link over one in
            // a later reading reports it (`late_links`).
            let (watched, items): (Vec<_>, Vec<_>) = items
                .into_iter()
                .partition(|item| self.section_items.contains(item));
            if !watched.is_empty() {
                self.references.insert(label, watched);
            }
            for item in items {
                out.push(Skipped {
                    span: span.start.max(self.closed)..span.end,
                    reason: SkipReason::LateDefinition,
                    message: format!(
                        "the link reference definition whose label is at bytes {}..{} arrived after the item at bytes {}..{} was committed; \
                         it would have made a link of the reference there, but a definition counts only for items not yet committed",
                        span.start, span.end, item.start, item.end
                    ),
                });
            }
        }
        out
    }

    /// The committed items of the open section that a link or an image of
    /// `linked` now covers, each reported once: a definition some reader
    /// read in the text after them (up to `end`) came late (P267), though
    /// no reader reported it by its label (comrak reports no definitions).
    pub(super) fn late_links(&mut self, linked: &[Range<usize>], end: usize) -> Vec<Skipped> {
        let (closed, mut out) = (self.closed, Vec::new());
        if closed >= end {
            return out;
        }
        self.section_items.retain(|item| {
            let covered = linked
                .iter()
                .any(|l| l.start <= item.start && item.start < l.end);
            if covered {
                out.push(Skipped {
                    span: closed..end,
                    reason: SkipReason::LateDefinition,
                    message: format!(
                        "a link reference definition in bytes {closed}..{end} arrived after the item at bytes {}..{} was committed; \
                         a reader now reads a link or an image over it, but a definition counts only for items not yet committed",
                        item.start, item.end
                    ),
                });
            }
            !covered
        });
        out
    }

    /// Notes, for each item of `committed`, the references over it whose
    /// label nothing defined: a later definition of one is late. The
    /// readers report them (`broken`, when they read the section), and
    /// the bracket pairs with no bracket inside that start in the item are
    /// noted too (P367): a trivial text (P174) has no escapes and no `][`,
    /// so these are its only possible references over an item, and where
    /// the readers read, pulldown-cmark misses some that comrak reads.
    pub(super) fn note_references(
        &mut self,
        committed: &[Event<S>],
        broken: &[(String, Range<usize>)],
        by_readers: bool,
    ) {
        let b = self.text.as_bytes();
        for e in committed {
            let Event::Found(f) = e else { continue };
            let mut labels: Vec<(String, Range<usize>)> = Vec::new();
            if by_readers {
                labels.extend(
                    broken
                        .iter()
                        .filter(|(_, r)| r.start < f.span.end && f.span.start < r.end)
                        .cloned(),
                );
            }
            // The bracket pairs with no bracket inside that start in the
            // item, from the readers' reading too: pulldown-cmark reports
            // no broken reference for `[x]` before an escaped bracket
            // (`[x]\[f]`), which comrak reads as a shortcut reference
            // (P367).
            {
                let mut p = f.span.start;
                while let Some(k) = memchr::memchr(b'[', &b[p..f.span.end]) {
                    let open = p + k;
                    // A label is at most 999 characters: the search stops there.
                    let window = &b[open + 1..(open + 1001).min(b.len())];
                    let close = memchr::memchr2(b'[', b']', window).map(|k| open + 1 + k);
                    p = open + 1;
                    if let Some(close) = close.filter(|&c| b[c] == b']') {
                        let label = &self.text[open + 1..close];
                        if !label.trim().is_empty() && label.len() < 1000 {
                            labels.push((fold_label(label), open..close + 1));
                        }
                    }
                }
            }
            // Each label once: both ways may find the same pair.
            labels.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            labels.dedup_by(|a, b| a.0 == b.0);
            for (label, _) in labels {
                self.references
                    .entry(label)
                    .or_default()
                    .push(f.span.clone());
            }
        }
    }
}

/// Where the label that ends at `]` = `b[p]` starts (its `[`): the last `[`
/// before `p` that no backslash escapes, within a label's 999 characters
/// (4 bytes each at most); `None` if a `]` no backslash escapes comes
/// between, or none is found.
fn written_label_start(b: &[u8], p: usize) -> Option<usize> {
    let lo = p.saturating_sub(4 * 999 + 1);
    let escaped = |i: usize| b[lo..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    let mut end = p;
    while let Some(k) = memchr::memrchr2(b'[', b']', &b[lo..end]) {
        let i = lo + k;
        end = i;
        if escaped(i) {
            continue;
        }
        return (b[i] == b'[').then_some(i);
    }
    None
}
