//! The meet of the readings: a byte is live only where every reader shows
//! it as text of the same block, and a directive fence counts only where
//! every reader reads the same fenced block (P170, P171).

use std::ops::Range;

use super::reader::{Breaker, Fence, Reading, TextRun};

/// A stretch that one reader shows as text and the meet does not: a
/// candidate there is reported (`hidden-by`), never run (P172).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unshared {
    /// The reader (its index in the readings).
    pub reader: usize,
    /// Its run, as that reader reads it.
    pub run: TextRun,
    /// The part of the run that is not live.
    pub span: Range<usize>,
}

/// The runs both `a` and `b` show as text of the same block.
fn intersect(a: &[TextRun], b: &[TextRun]) -> Vec<TextRun> {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (&a[i], &b[j]);
        let start = x.span.start.max(y.span.start);
        let end = x.span.end.min(y.span.end);
        if start < end && x.block() == y.block() {
            let breaker = match (x.span.end == end, y.span.end == end) {
                (true, true) if x.breaker == Breaker::Block => y.breaker,
                (true, _) => x.breaker,
                (false, _) => y.breaker,
            };
            out.push(TextRun {
                span: start..end,
                breaker,
                block_start: x.block_start,
                block_end: x.block_end,
            });
        } else if start < end {
            // The readers place it in different blocks: where the live text
            // before it ends, their agreement ends.
            if let Some(last) = out
                .last_mut()
                .filter(|l: &&mut TextRun| l.span.end == start)
            {
                last.breaker = Breaker::Other;
            }
        }
        if x.span.end <= y.span.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// `runs` without the `live` runs (both in order): the pieces of each run
/// that are not live.
fn unshared(reader: usize, runs: &[TextRun], live: &[TextRun], out: &mut Vec<Unshared>) {
    let mut k = 0;
    for run in runs {
        while live.get(k).is_some_and(|l| l.span.end <= run.span.start) {
            k += 1;
        }
        let mut at = run.span.start;
        let mut m = k;
        while let Some(l) = live.get(m).filter(|l| l.span.start < run.span.end) {
            if l.span.start > at {
                out.push(Unshared {
                    reader,
                    run: run.clone(),
                    span: at..l.span.start,
                });
            }
            at = at.max(l.span.end);
            m += 1;
        }
        if at < run.span.end {
            out.push(Unshared {
                reader,
                run: run.clone(),
                span: at..run.span.end,
            });
        }
    }
}

/// What the readings agree on.
#[derive(Debug, Default)]
pub(crate) struct Meet {
    /// The live runs, in order.
    pub runs: Vec<TextRun>,
    /// The directive fences every reader reads alike, in order.
    pub fences: Vec<Fence>,
    /// The directive fences some reader reads and another does not read
    /// alike, in order: each is reported, never run.
    pub disputed: Vec<Fence>,
    /// The links any reader reads, in order, none inside another.
    pub links: Vec<Range<usize>>,
    /// What some reader shows as text and the meet does not, in order.
    pub unshared: Vec<Unshared>,
}

/// The meet of `readings` (at least one).
pub(crate) fn meet(text: &str, readings: &[Reading]) -> Meet {
    let Some((first, rest)) = readings.split_first() else {
        return Meet::default();
    };
    let mut runs = first.runs.clone();
    for r in rest {
        runs = intersect(&runs, &r.runs);
    }
    let mut unshared_runs = Vec::new();
    for (k, r) in readings.iter().enumerate() {
        unshared(k, &r.runs, &runs, &mut unshared_runs);
    }
    unshared_runs.sort_by_key(|u| (u.span.start, u.reader));
    let same = |o: &Reading, f: &Fence| {
        o.fences
            .binary_search_by_key(&f.span.start, |g| g.span.start)
            .is_ok_and(|i| o.fences[i].same(f, text))
    };
    let fences: Vec<Fence> = first
        .fences
        .iter()
        .filter(|f| rest.iter().all(|o| same(o, f)))
        .cloned()
        .collect();
    let mut disputed: Vec<Fence> = readings
        .iter()
        .flat_map(|r| r.fences.iter())
        .filter(|f| {
            fences
                .binary_search_by_key(&f.span.start, |g| g.span.start)
                .map_or(true, |i| !fences[i].same(f, text))
        })
        .cloned()
        .collect();
    disputed.sort_by_key(|f| f.span.start);
    disputed.dedup_by_key(|f| f.span.start);
    let mut links: Vec<Range<usize>> = readings
        .iter()
        .flat_map(|r| r.links.iter().cloned())
        .collect();
    links.sort_by_key(|l| (l.start, std::cmp::Reverse(l.end)));
    let mut kept: Vec<Range<usize>> = Vec::with_capacity(links.len());
    for l in links {
        if kept.last().is_none_or(|k| l.start >= k.end) {
            kept.push(l);
        }
    }
    Meet {
        runs,
        fences,
        disputed,
        links: kept,
        unshared: unshared_runs,
    }
}
