//! A downstream user of the generated `agent-sentences` crate: it depends on
//! it by path and turns replies into loop events, as an orchestrator would.

use agent_sentences::{Sentence, SentenceKind, Status};

/// What a reply does to a tracked loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopEvent {
    /// The loop `id` was acknowledged.
    Acknowledged(String),
    /// The loop `id` was claimed.
    Claimed(String),
    /// The loop `id` closed; `ok` is true only for an explicit OK or SUCCESS.
    Closed {
        /// Loop id.
        id: String,
        /// Whether the result reports success.
        ok: bool,
    },
    /// The loop `id` was declined or needed no action.
    Dropped(String),
}

/// The loop event a whole-text reply carries, if it is a lifecycle reply.
pub fn loop_event(text: &str) -> Option<LoopEvent> {
    match text.parse::<Sentence>().ok()? {
        Sentence::Ack(a) => Some(LoopEvent::Acknowledged(a.dm_id)),
        Sentence::Claim(c) => Some(LoopEvent::Claimed(c.job_id)),
        Sentence::ResultSentence(r) => Some(LoopEvent::Closed {
            id: r.job_id,
            ok: matches!(r.status, Some(Status::Ok | Status::Success)),
        }),
        Sentence::Decline(d) => Some(LoopEvent::Dropped(d.job_id)),
        Sentence::NoAction(n) => Some(LoopEvent::Dropped(n.job_id)),
        _ => None,
    }
}

/// The names of all structures the crate knows, as `box-docs sentence` lists them.
pub fn structure_keys() -> Vec<&'static str> {
    SentenceKind::ALL.iter().map(|k| k.key()).collect()
}

/// The properties every scan result holds, checked on one text: every span
/// is non-empty, in range and on character boundaries; found items and
/// skipped candidates are each in text order, and no two spans overlap;
/// every sentence found reads back as itself; every directive, written as a
/// `tool_call`, reads back as itself; every skip has a message; `scan` is the
/// first half of `scan_with_diagnostics`. Used by the property tests
/// (`tests/scan_props.rs`) and the fuzz target (`fuzz/`).
///
/// # Errors
/// The first property that does not hold, with the text.
pub fn scan_invariants(text: &str) -> Result<(), String> {
    use agent_sentences::scan::{scan, scan_with_diagnostics, Item};
    use agent_sentences::ToolCall;

    let (found, skipped) = scan_with_diagnostics(text);
    let fail = |what: String| Err(format!("{text:?}: {what}"));
    // A candidate in a later block of a sentence's free text is reported
    // inside that sentence's span (P196); every other span stands apart.
    let in_free_text = |s: &&agent_sentences::scan::Skipped| {
        s.reason == agent_sentences::scan::SkipReason::InFreeText
    };
    for k in skipped.iter().filter(in_free_text) {
        if !found.iter().any(|f| {
            matches!(f.item, Item::Sentence { .. })
                && f.span.start < k.span.start
                && k.span.end <= f.span.end
        }) {
            return fail(format!(
                "{:?} is reported in free text outside every sentence",
                k.span
            ));
        }
    }
    let mut spans: Vec<std::ops::Range<usize>> = found
        .iter()
        .map(|f| f.span.clone())
        .chain(
            skipped
                .iter()
                .filter(|s| !in_free_text(s))
                .map(|s| s.span.clone()),
        )
        .collect();
    for s in &spans {
        if !(s.start < s.end
            && s.end <= text.len()
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end))
        {
            return fail(format!(
                "span {s:?} is empty, out of range or not on character boundaries"
            ));
        }
    }
    if !found.windows(2).all(|w| w[0].span.start < w[1].span.start)
        || !skipped
            .windows(2)
            .all(|w| w[0].span.start < w[1].span.start)
    {
        return fail("items out of order".to_owned());
    }
    spans.sort_by_key(|s| s.start);
    if let Some(w) = spans.windows(2).find(|w| w[0].end > w[1].start) {
        return fail(format!("{:?} overlaps {:?}", w[0], w[1]));
    }
    if scan(text) != found {
        return fail("scan() differs from scan_with_diagnostics()".to_owned());
    }
    for f in &found {
        let piece = &text[f.span.clone()];
        match &f.item {
            Item::Sentence { value } => {
                if value.kind().parse(piece).as_ref() != Ok(value) {
                    return fail(format!("{piece:?} does not read back as {value:?}"));
                }
            }
            Item::Directive { directive } => {
                let call = ToolCall {
                    op: directive.op.clone(),
                    args_json: directive.args.clone(),
                };
                if call.to_string().parse::<ToolCall>().as_ref() != Ok(&call) {
                    return fail(format!("{call} does not read back"));
                }
            }
        }
    }
    if let Some(s) = skipped.iter().find(|s| s.message.is_empty()) {
        return fail(format!("skip {s:?} has no message"));
    }
    Ok(())
}

/// The README's Rust examples, run as doctests (`cargo test --doc -p downstream-example`).
/// Every page of `docs/guide/` with Rust examples is included below too
/// (`xtask/tests/tidy.rs` fails on one that is not).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

/// `docs/guide/rust.md`'s Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/rust.md")]
pub struct GuideRustExamples;

/// `docs/guide/loops.md`'s Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/loops.md")]
pub struct GuideLoopsExamples;

/// `docs/guide/ops.md`'s Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/ops.md")]
pub struct GuideOpsExamples;

/// `docs/guide/envelope.md`'s Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/envelope.md")]
pub struct GuideEnvelopeExamples;

/// `docs/guide/grammar.md`'s Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/grammar.md")]
pub struct GuideGrammarExamples;

/// `docs/guide/streaming.md`'s Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/streaming.md")]
pub struct GuideStreamingExamples;
