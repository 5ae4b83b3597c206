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
