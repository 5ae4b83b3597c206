//! The benchmark corpus: realistic agent messages and hostile inputs, made
//! deterministically from a fixed seed and the generated crate's own spec
//! examples (no downloaded data, no example written twice).

use agent_sentences::{Sentence, SentenceKind};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

mod markdown_rich;

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), in seconds:
/// what every bench row is timed by, so that other processes on a shared
/// machine are not counted.
///
/// # Panics
/// When the clock is not available (not Linux or another POSIX system).
pub fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec`, which `t` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is available");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

pub use markdown_rich::markdown_rich;

/// The fixed seed of the corpus.
pub const SEED: u64 = 0x5eed_2026;

/// Sizes of each hostile input, in bytes.
pub const HOSTILE_SIZES: [usize; 4] = [256 << 10, 512 << 10, 1 << 20, 2 << 20];

/// A message of the realistic corpus.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    /// The text.
    pub text: String,
}

/// One hostile input at one size.
#[derive(Debug, Clone, Serialize)]
pub struct Hostile {
    /// What kind, e.g. `unclosed-tool`.
    pub kind: &'static str,
    /// Size in bytes.
    pub size: usize,
    /// The text.
    pub text: String,
}

const WORDS: &[&str] = &[
    "the",
    "audit",
    "endpoint",
    "checked",
    "node",
    "is",
    "healthy",
    "and",
    "we",
    "will",
    "retry",
    "after",
    "deploy",
    "logs",
    "show",
    "nothing",
    "unusual",
    "please",
    "confirm",
    "status",
    "of",
    "proxy",
    "warp",
    "latency",
    "rose",
    "during",
    "window",
    "ok",
    "thanks",
    "see",
    "below",
    "for",
    "details",
    "running",
    "now",
    "queued",
    "Ünïcode",
    "✓",
    "—",
    "report",
    "swarm",
    "slot",
    "done",
    "next",
    "step",
];

pub(crate) fn prose(rng: &mut ChaCha8Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(if rng.gen_ratio(1, 12) { '\n' } else { ' ' });
        }
        s.push_str(WORDS.choose(rng).expect("words"));
    }
    s.push('.');
    s
}

fn hex_id(rng: &mut ChaCha8Rng) -> String {
    format!("{:08x}", rng.gen::<u32>())
}

fn nested_json(rng: &mut ChaCha8Rng, depth: usize) -> String {
    if depth == 0 {
        return match rng.gen_range(0..4) {
            0 => format!("{}", rng.gen_range(0..1000)),
            1 => "\"text with } and ] inside\"".to_owned(),
            2 => "true".to_owned(),
            _ => "[1, 2, {\"k\": null}]".to_owned(),
        };
    }
    format!(
        "{{\"in_m\": {}, \"prompt\": \"check [CLAIM x]\", \"n\": {}}}",
        rng.gen_range(1..60),
        nested_json(rng, depth - 1)
    )
}

/// A marker: a spec example with a fresh id where the structure has one, or
/// a tool directive with nested JSON.
pub(crate) fn marker(rng: &mut ChaCha8Rng) -> String {
    if rng.gen_ratio(1, 4) {
        let depth = rng.gen_range(0..4);
        let json = nested_json(rng, depth);
        return match rng.gen_range(0..4) {
            0 => format!("[TOOL followup.create {json}]"),
            1 => format!("[EXEC health.check {json}]"),
            2 => format!("[DM {{\"to\": \"646\", \"text\": \"hi\", \"meta\": {json}}}]"),
            _ => format!("```tool\nfollowup.create {json}\n```"),
        };
    }
    let kind = SentenceKind::ALL.choose(rng).expect("kinds");
    let example = kind.example_sentence();
    let id = hex_id(rng);
    let text = example.replace("7fce46e0", &id);
    // Keep only markers that still parse (they all do; this guards the corpus).
    match text.parse::<Sentence>() {
        Ok(_) => text,
        Err(_) => example.to_owned(),
    }
}

/// The realistic corpus: `count` messages of 50–2,000 characters, prose
/// around one to four markers of every kind.
pub fn realistic(count: usize) -> Vec<Message> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    (0..count)
        .map(|_| {
            let target = rng.gen_range(50..=2000);
            let mut text = String::new();
            let markers = rng.gen_range(1..=4);
            for _ in 0..markers {
                if !text.is_empty() {
                    text.push('\n');
                }
                let words = rng.gen_range(3..30);
                text.push_str(&prose(&mut rng, words));
                text.push('\n');
                text.push_str(&marker(&mut rng));
            }
            while text.chars().count() < target {
                text.push(' ');
                text.push_str(&prose(&mut rng, 10));
            }
            Message { text }
        })
        .collect()
}

/// A long streamed reply of at least `bytes` bytes (UTF-8): realistic
/// messages, a blank line after each, as one agent would write them in one
/// long answer. The stream's cost rows feed it one byte at a time.
pub fn long_reply(bytes: usize) -> String {
    let mut reply = String::new();
    let mut count = 64;
    loop {
        for m in realistic(count) {
            if reply.len() >= bytes {
                return reply;
            }
            reply.push_str(&m.text);
            reply.push_str("\n\n");
        }
        reply.clear();
        count *= 2;
    }
}

/// Marker-free prose of about `bytes` bytes.
pub fn prose_only(bytes: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 1);
    let mut s = String::new();
    while s.len() < bytes {
        s.push_str(&prose(&mut rng, 20));
        s.push(' ');
    }
    s
}

fn fill(unit: &str, size: usize) -> String {
    let mut s = unit.repeat(size / unit.len());
    while s.len() < size {
        s.push(' ');
    }
    s
}

/// Every hostile input at every size in [`HOSTILE_SIZES`].
pub fn hostile() -> Vec<Hostile> {
    let mut out = Vec::new();
    for &size in &HOSTILE_SIZES {
        let kib_unclosed = {
            let mut s = String::new();
            while s.len() + 1024 <= size {
                s.push_str("[TOOL op {");
                s.push_str(&" x".repeat((1024 - 10) / 2));
            }
            fill(&s, size)
        };
        let cases: [(&'static str, String); 7] = [
            ("unclosed-tool", fill("[TOOL op {", size)),
            ("unclosed-tool-every-kib", kib_unclosed),
            ("result-openers", fill("[RESULT ", size)),
            (
                "wo-no-em-dash",
                fill(
                    &format!("[WO:7fce46e0] [from super] {}", " ".repeat(size - 40)),
                    size,
                ),
            ),
            ("brackets", fill("[", size)),
            (
                "nested-json",
                fill(&format!("[TOOL a.b {}", "{\"a\": [".repeat(size / 8)), size),
            ),
            ("backticks", fill("` `` ``` ", size)),
        ];
        for (kind, text) in cases {
            out.push(Hostile { kind, size, text });
        }
    }
    out
}

/// Sizes of each Markdown-stressing hostile input (issue 12), in bytes:
/// 256 KiB to 4 MiB, Rust only.
pub const MARKDOWN_HOSTILE_SIZES: [usize; 5] = [256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20];

/// Inputs that stress a Markdown parser (issue 12): runs of `[`, backticks,
/// `*`, `<`, nested brackets and emphasis, deep lists and quotes, each with
/// calls, at every size of [`MARKDOWN_HOSTILE_SIZES`].
pub fn markdown_hostile() -> Vec<Hostile> {
    MARKDOWN_HOSTILE_SIZES
        .iter()
        .flat_map(|&size| markdown_hostile_at(size))
        .collect()
}

/// Every Markdown-stressing hostile input (see [`markdown_hostile`]) at one
/// size, in bytes.
pub fn markdown_hostile_at(size: usize) -> Vec<Hostile> {
    let mut out = Vec::new();
    {
        let nested = |open: &str, close: &str| {
            let depth = size / (open.len() + close.len()) / 2;
            fill(
                &format!(
                    "{}[TOOL a.b {{}}]{}",
                    open.repeat(depth),
                    close.repeat(depth)
                ),
                size,
            )
        };
        let deep = |marker: &str| {
            let mut s = String::new();
            let mut d = 0usize;
            while s.len() < size {
                s.push_str(&marker.repeat(d % 64));
                s.push_str("[TOOL a.b {}] x\n");
                d += 1;
            }
            s.truncate(size);
            s
        };
        let definitions = {
            let mut s = String::new();
            let mut i = 0;
            while s.len() < size {
                s.push_str(&format!("[d{i}]: /u\n"));
                i += 1;
            }
            s.truncate(size);
            s
        };
        // Issue 25's superlinear shapes: nested `[` closed by collapsed
        // references `][]` with one definition of the label, and many list
        // markers on one line before a call.
        let collapsed = {
            let k = (size - 40) / 4;
            fill(
                &format!(
                    "{}a{}\n\n[a]: /u\n\n[TOOL a.b {{}}]\n",
                    "[".repeat(k),
                    "][]".repeat(k)
                ),
                size,
            )
        };
        let markers = fill(
            &format!("{}[TOOL a.b {{}}]\n", "- ".repeat((size - 20) / 2)),
            size,
        );
        let cases: [(&'static str, String); 14] = [
            ("md-collapsed-references", collapsed),
            ("md-list-markers-one-line", markers),
            ("md-brackets-calls", fill("[[TOOL a.b {}] [", size)),
            (
                "md-backtick-runs",
                fill("`` ` ``` [TOOL a.b {}] ```` ", size),
            ),
            (
                "md-stars",
                fill("* ** *** [TOOL a.b {\"p\": \"*\"}] ", size),
            ),
            ("md-angles", fill("< <a <!-- [TOOL a.b {}] <b> ", size)),
            ("md-nested-brackets", nested("[", "]")),
            ("md-nested-emphasis", nested("*_", "_*")),
            ("md-links", fill("[a](b [TOOL a.b {}]](c \"", size)),
            ("md-deep-lists", deep("- ")),
            ("md-deep-quotes", deep("> ")),
            // Hostile review: a definition per line, each re-read alone before;
            // one long list-item line of runs with a tab in the text.
            ("md-definitions", definitions),
            (
                "md-tabbed-list",
                fill(
                    &format!("- {}[x\n\n\tx", "a *b* ".repeat(size / 6 - 2)),
                    size,
                ),
            ),
            // One paragraph of calls in link text and calls beside them, not
            // ASCII; each link's call threw away the paragraph's bidi search
            // before.
            (
                "md-link-text-calls",
                fill("[TOOL a.b {}](u) [TOOL a.b {}] é ", size),
            ),
        ];
        for (kind, text) in cases {
            out.push(Hostile { kind, size, text });
        }
    }
    out
}

/// The size of the large run of `[` (issue 25), in bytes: 32 MiB.
pub const LARGE_BRACKETS: usize = 32 << 20;

/// The kind of [`large_hostile`]'s input.
pub const LARGE_KIND: &str = "md-brackets-32mib";

/// The large hostile input measured once, for its time and peak memory (issue
/// 25): a run of [`LARGE_BRACKETS`] bytes of `[`, then a call in a paragraph
/// of its own.
pub fn large_hostile() -> Hostile {
    Hostile {
        kind: LARGE_KIND,
        size: LARGE_BRACKETS,
        text: fill(
            &format!("{}\n\n[TOOL a.b {{}}]\n", "[".repeat(LARGE_BRACKETS - 20)),
            LARGE_BRACKETS,
        ),
    }
}

/// The strong baseline of issue 12: what a good engineer writes without
/// context rules. One regex over every marker head, then, at each hit, the
/// structure patterns anchored there (the generated crate's, first match
/// wins), and `serde_json` for a call's arguments. It knows no Markdown.
pub struct Baseline {
    heads: regex_automata::meta::Regex,
    op: regex_automata::meta::Regex,
    structures: Vec<regex_automata::meta::Regex>,
}

impl Default for Baseline {
    fn default() -> Self {
        Self::new()
    }
}

impl Baseline {
    /// Compiles the heads and the generated patterns of every structure.
    pub fn new() -> Self {
        use regex_automata::meta::Regex;
        let heads = Regex::new(
            r"\[(?:TOOL|EXEC)[ \t\r\n]|\[DM[ \t\r\n]|\[(?:WO:|ACK|CLAIM|RESULT|DECLINE|NO-ACTION|NUDGE|JOB|fleet-alert\]|SUBAGENT-UPDATE\]|Directive:|Runtime Context:)|Reply:",
        )
        .expect("a valid pattern");
        let op = Regex::new(r"\[(?:TOOL|EXEC)[ \t\r\n]+[A-Za-z0-9_.-]+[ \t\r\n]+|\[DM[ \t\r\n]+")
            .expect("a valid pattern");
        let structures = agent_sentences::patterns::ALL
            .iter()
            .filter(|(key, _)| !matches!(*key, "tool_call" | "uuid" | "short_hex"))
            .filter_map(|(_, p)| Regex::new(p).ok())
            .collect();
        Baseline {
            heads,
            op,
            structures,
        }
    }

    /// How many calls and sentences the baseline finds in `text`.
    pub fn scan(&self, text: &str) -> usize {
        use regex_automata::{Anchored, Input};
        let mut found = 0;
        let mut pos = 0;
        while let Some(m) = self.heads.search(&Input::new(text).range(pos..)) {
            let i = m.start();
            let anchored = Input::new(text).range(i..).anchored(Anchored::Yes);
            if let Some(head) = self.op.search(&anchored) {
                let mut args = serde_json::Deserializer::from_str(&text[head.end()..])
                    .into_iter::<serde_json::Value>();
                if let Some(Ok(serde_json::Value::Object(_))) = args.next() {
                    let end = head.end() + args.byte_offset();
                    let rest = text[end..].trim_start();
                    if rest.starts_with(']') {
                        found += 1;
                        pos = text.len() - rest.len() + 1;
                        continue;
                    }
                }
                pos = i + 1;
                continue;
            }
            match self.structures.iter().find_map(|r| r.search(&anchored)) {
                Some(s) => {
                    found += 1;
                    pos = s.end().max(i + 1);
                }
                None => pos = i + 1,
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_is_deterministic_and_in_range() {
        let a = realistic(200);
        let b = realistic(200);
        assert_eq!(
            a.iter().map(|m| &m.text).collect::<Vec<_>>(),
            b.iter().map(|m| &m.text).collect::<Vec<_>>()
        );
        assert!(a.iter().all(|m| m.text.chars().count() >= 50));
        let found: usize = a
            .iter()
            .map(|m| agent_sentences::scan::scan(&m.text).len())
            .sum();
        assert!(found >= 200, "every message carries markers: {found}");
    }

    #[test]
    fn hostile_inputs_have_their_sizes() {
        for h in hostile() {
            assert_eq!(h.text.len(), h.size, "{}", h.kind);
        }
    }
}

/// The realistic corpus turned into a conversation of loops: each group of
/// four messages works one loop through its life (a work order, its ack, a
/// claim, the result), the loop's marker put before the message's own text,
/// one minute apart, from the sender the step needs. The messages' own
/// markers name other ids, as in real traffic (most are rejected as unknown
/// loops). `(seconds since the start, sender, text)`.
pub fn conversation(corpus: &[Message]) -> Vec<(i64, &'static str, String)> {
    corpus
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let id = format!("{:08x}", i / 4);
            let (from, marker) = match i % 4 {
                0 => ("super", format!("[WO:{id}] [from super] Task {id} — ")),
                1 => ("worker", format!("[ACK:{id}] [from worker] ")),
                2 => ("worker", format!("[CLAIM {id}] ")),
                _ => ("worker", format!("[RESULT {id}] OK ")),
            };
            (i as i64 * 60, from, format!("{marker}{}", m.text))
        })
        .collect()
}

#[cfg(test)]
mod conversation_tests {
    use agent_sentences::loops;

    #[test]
    fn the_conversation_works_its_loops_through_their_life() {
        let corpus = super::realistic(400);
        let talk = super::conversation(&corpus);
        let mut t = loops::tracker(loops::default_config())
            .expect("the spec's SLA defaults pass the check");
        let start = loops::Timestamp::from_second(1_796_000_000).unwrap();
        for (s, from, text) in &talk {
            loops::feed(
                &mut t,
                start
                    .checked_add(std::time::Duration::from_secs(*s as u64))
                    .unwrap(),
                from,
                text,
            );
        }
        let loops = &t.state().loops;
        // Every group of four opens a loop and closes it with its result (the
        // messages' own work orders open others).
        for group in 0..100 {
            let l = &loops[&format!("{group:08x}")];
            assert_eq!(
                (l.state.as_str(), l.owner.as_deref(), l.history.len()),
                ("resolved", Some("worker"), 4),
                "{l:?}"
            );
        }
    }
}
