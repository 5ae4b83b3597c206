//! Every pattern's full match, and `Sentence` parsing, stay linear on
//! adversarial near-misses of a mebibyte (issue 13), built from the spec's
//! examples by the rules of `tests/python/near_miss.py` (the Python side of
//! the same test): for every pattern and every group some match example
//! captures (the first such example), the capture is repeated to a mebibyte
//! and a suffix appended (nothing, a NUL, a line break and the example
//! again). The expected reading is that of the same construction with at
//! least 64 bytes of repeated capture, its captures scaled.
//!
//! No clock is read: the tests hold what a big near-miss reads as. The work
//! is bounded by construction, not by a threshold: Rust `regex` runs every
//! pattern in time linear in the text (finite automata, no backtracking),
//! `Sentence::parse` tries each structure once and locates a failure with a
//! fixed list of steps, and the spec lint rejects every pattern a
//! backtracking engine could read in more than linear time (P187).

use std::collections::BTreeMap;

use agent_sentences::patterns::INFO;
use agent_sentences::Sentence;

/// Bytes of repeated capture in a big near-miss (at least): a mebibyte, or
/// `AGENT_SENTENCES_NEAR_MISS_BYTES` (`cargo xtask test --quick` sets 64 KiB).
fn size() -> usize {
    std::env::var("AGENT_SENTENCES_NEAR_MISS_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 20)
}
const SMALL_BYTES: usize = 64;

struct NearMiss {
    pattern: &'static str,
    group: &'static str,
    example: &'static str,
    start: usize,
    end: usize,
    suffix: String,
}

impl NearMiss {
    fn copies(&self, size: usize) -> usize {
        3.max(size.div_ceil(self.end - self.start))
    }
    fn fill(&self, copies: usize) -> String {
        self.example[self.start..self.end].repeat(copies)
    }
    fn text(&self, copies: usize) -> String {
        format!(
            "{}{}{}{}",
            &self.example[..self.start],
            self.fill(copies),
            &self.example[self.end..],
            self.suffix
        )
    }
}

fn cases() -> Vec<NearMiss> {
    let mut out = Vec::new();
    for p in INFO {
        for g in p.groups {
            let Some(m) = p.matches.iter().find(|m| {
                m.captures
                    .iter()
                    .any(|c| c.group == g.name && !c.text.is_empty())
            }) else {
                continue;
            };
            let caps = p
                .full_regex()
                .captures(m.text)
                .expect("a match example matches");
            let span = caps.name(g.name).expect("the group takes part");
            for suffix in ["".to_owned(), "\0".to_owned(), format!("\n{}", m.text)] {
                out.push(NearMiss {
                    pattern: p.key,
                    group: g.name,
                    example: m.text,
                    start: span.start(),
                    end: span.end(),
                    suffix,
                });
            }
        }
    }
    out
}

fn captures(key: &str, text: &str) -> Option<BTreeMap<String, String>> {
    let p = INFO.iter().find(|p| p.key == key).unwrap();
    let re = p.full_regex();
    let caps = re.captures(text)?;
    Some(
        re.capture_names()
            .flatten()
            .filter_map(|n| caps.name(n).map(|m| (n.to_owned(), m.as_str().to_owned())))
            .collect(),
    )
}

fn reading(text: &str) -> String {
    match text.parse::<Sentence>() {
        Ok(s) => s.kind().key().to_owned(),
        Err(e) => {
            let kind = format!("{:?}", e.kind);
            let name = kind
                .split([' ', '{', '('])
                .next()
                .unwrap_or_default()
                .to_owned();
            format!("error {name} {:?} {:?}", e.structure, e.closest)
        }
    }
}

#[test]
fn every_pattern_has_near_misses() {
    let cases = cases();
    for p in INFO {
        assert!(
            cases.iter().any(|c| c.pattern == p.key),
            "no near-miss of `{}`",
            p.key
        );
    }
}

#[test]
fn a_full_match_reads_a_mebibyte_near_miss_as_the_small_one() {
    let mut failures = Vec::new();
    for c in cases() {
        let (small, big) = (c.copies(SMALL_BYTES), c.copies(size()));
        let (small_fill, big_fill) = (c.fill(small), c.fill(big));
        let expected = captures(c.pattern, &c.text(small)).map(|m| {
            m.into_iter()
                .map(|(k, v)| (k, v.replace(&small_fill, &big_fill)))
                .collect::<BTreeMap<_, _>>()
        });
        let got = captures(c.pattern, &c.text(big));
        let id = format!("{}-{}-{}", c.pattern, c.group, c.suffix.len());
        if got != expected {
            failures.push(format!("{id}: read otherwise than the small near-miss"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn parsing_reads_a_mebibyte_near_miss_as_the_small_one() {
    let mut failures = Vec::new();
    for c in cases().into_iter().filter(|c| c.suffix != "\0") {
        let expected = reading(&c.text(c.copies(SMALL_BYTES)));
        let got = reading(&c.text(c.copies(size())));
        let id = format!("{}-{}-{}", c.pattern, c.group, c.suffix.len());
        if got != expected {
            failures.push(format!("{id}: {got}, expected {expected}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
