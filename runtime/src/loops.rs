//! The loop tracker: work orders open loops, the other sentences move them
//! through the lifecycle the spec states, and loops that go quiet are due a
//! nudge.
//!
//! Written once, for any spec: the generated crate supplies the state
//! machine ([`Machine`], lowered from each structure's
//! `lifecycle_transition`) and turns each scanned sentence into a
//! [`LoopEvent`] (its structure and loop id); nothing here knows a structure.
//!
//! # Rules (decisions P130–P137, `docs/decisions/loops.md`)
//! - The opener's sentence (a work order) opens a loop in the machine's
//!   initial state; its id names the loop. Every other event names a loop by
//!   id in the same id space (`[WO:id]`, `[ACK:id]`, `[CLAIM id]`,
//!   `[RESULT id]`, … the contract footer writes one id for all of them).
//! - An event moves its loop from one of its rule's `from` states to its
//!   `to` state, and nothing else: any other state, an unknown loop, a second
//!   opener for an open id, a claim of a loop someone else claimed, or a
//!   close by someone other than the loop's owner is *rejected* with a
//!   reason and changes nothing.
//! - A message older than the last one applied is rejected whole. The clock
//!   (the time of the last message applied) moves only when a message applies
//!   an event: a rejected or empty message changes nothing (P190).
//! - Durations and counts are checked: a config or a restored state whose
//!   deadlines, nudge times or counts would overflow, or that does not hold
//!   together (a key that is not its loop's id, an unknown state, a count past
//!   the config's, an id a nudge cannot carry), is refused with a located
//!   [`LoopError`] (P191, P192).
//! - A nudge sentence in the stream counts as a nudge of its loop (no state
//!   change); a nudge of a closed or unknown loop, and one whose count is 0 or
//!   past the configured `max_nudges`, is rejected (P193).
//! - One message never both opens a loop and moves it: an event naming a
//!   loop opened earlier in the same message is rejected (P197; the scanner
//!   already reads what follows a work order as its body, P196).
//! - Closed loops can be pruned ([`Tracker::prune`]); a pruned loop's id is
//!   remembered, so it still opens no second loop (P194).
//! - SLA: a loop's deadline is its opening time plus the default SLA of its
//!   opener's structure ([`Config`]); nudge `k` of `max` is due at the
//!   deadline plus `(k - 1)` nudge intervals; a loop that got `max` nudges
//!   and is still open one interval after the last is *breached*. A work
//!   order whose deadline or breach time would fall past the last time the
//!   tracker holds (year 9999) is rejected, never clamped (P216).

use std::collections::{BTreeMap, BTreeSet};

pub use jiff::Timestamp;
use serde::{Deserialize, Serialize};

mod check;

pub use check::{LoopError, MAX_LINES, MAX_SECONDS};

/// One rule of the state machine: a structure's sentence moves a loop from
/// any of `from` to `to` (from the structure's `lifecycle_transition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EventRule {
    /// Structure key, e.g. `ack`.
    pub structure: &'static str,
    /// States the event may move a loop from.
    pub from: &'static [&'static str],
    /// The state it moves the loop to.
    pub to: &'static str,
    /// True when `to` is a state the loop ends in (`(closed)`).
    pub closes: bool,
}

/// The loop state machine (generated from `schema/structures.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// The structure whose sentence opens a loop (e.g. `work_order`).
    pub opener: &'static str,
    /// The state a new loop is in (e.g. `open`).
    pub initial: &'static str,
    /// Every state, in the order the spec names them.
    pub states: &'static [&'static str],
    /// The states a loop ends in.
    pub closed_states: &'static [&'static str],
    /// The events and the moves they make, in spec order.
    pub rules: &'static [EventRule],
    /// The structure of nudges (counted, no state change), if any.
    pub nudge: Option<&'static str>,
    /// The event that takes ownership (its sender becomes the loop's owner).
    pub claim: Option<&'static str>,
}

impl Machine {
    fn rule(&self, structure: &str) -> Option<&EventRule> {
        self.rules.iter().find(|r| r.structure == structure)
    }
}

/// A sentence as the tracker sees it: its structure and the loop id it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopEvent {
    /// Structure key.
    pub structure: &'static str,
    /// The loop id the sentence names.
    pub id: String,
    /// For a nudge: its count (`[nudge n/max]`).
    pub count: Option<u32>,
}

/// SLA settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Seconds from a loop's opening to its deadline, by opener structure
    /// key; [`Config::default_sla_seconds`] for others.
    pub sla_seconds: BTreeMap<String, i64>,
    /// Seconds to the deadline when `sla_seconds` has no entry.
    pub default_sla_seconds: i64,
    /// Seconds between two nudges of one loop.
    pub nudge_interval_seconds: i64,
    /// Nudges before a loop is breached.
    pub max_nudges: u32,
}

impl Default for Config {
    /// 30 minutes to the deadline, a nudge every 15 minutes, 3 nudges.
    fn default() -> Self {
        Config {
            sla_seconds: BTreeMap::new(),
            default_sla_seconds: 30 * 60,
            nudge_interval_seconds: 15 * 60,
            max_nudges: 3,
        }
    }
}

/// One move of a loop, and the message that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based number of the message fed.
    pub line: usize,
    /// When the message was sent (RFC 3339).
    pub at: Timestamp,
    /// Who sent it.
    pub from: String,
    /// The structure of the sentence.
    pub structure: String,
    /// The state before (`None` for the opening).
    pub from_state: Option<String>,
    /// The state after.
    pub to_state: String,
}

/// A loop and everything that happened to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    /// The loop id (the work order's id).
    pub id: String,
    /// Its state.
    pub state: String,
    /// True in a closed state.
    pub closed: bool,
    /// When it was opened.
    pub opened_at: Timestamp,
    /// When it was closed.
    pub closed_at: Option<Timestamp>,
    /// Who claimed it.
    pub owner: Option<String>,
    /// Nudges so far (sent in the stream, or marked by [`Tracker::nudged`]).
    pub nudges: u32,
    /// The SLA deadline.
    pub deadline: Timestamp,
    /// Every move, in order.
    pub history: Vec<Step>,
}

/// An event that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    /// 1-based number of the message fed.
    pub line: usize,
    /// The loop id the sentence named (`None` for a whole message).
    pub id: Option<String>,
    /// The structure of the sentence (`None` for a whole message).
    pub structure: Option<String>,
    /// Why it was not applied.
    pub reason: String,
}

/// A nudge due at a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Due {
    /// The loop id.
    pub id: String,
    /// The canonical `[NUDGE …]` sentence to send (`None` when breached).
    pub sentence: Option<String>,
    /// True when the loop got every nudge and is still open past the last.
    pub breached: bool,
}

/// Renders a nudge sentence: `(loop id, count, max, deadline)`.
pub type RenderNudge = fn(&str, u32, u32, &str) -> String;

/// The tracker's state: what serializes, and what [`Tracker::restore`] takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// SLA settings.
    pub config: Config,
    /// Loops by id, in id order.
    pub loops: BTreeMap<String, Loop>,
    /// Events not applied, in order.
    pub rejected: Vec<Rejected>,
    /// Messages fed so far.
    pub lines: usize,
    /// Time of the last message that applied an event (the clock).
    pub last_at: Option<Timestamp>,
    /// Ids of the closed loops [`Tracker::prune`] removed (an id opens one
    /// loop, pruned or not).
    #[serde(default)]
    pub pruned: BTreeSet<String>,
    /// How many rejected events [`Tracker::prune_rejected`] dropped, so far.
    #[serde(default)]
    pub rejected_pruned: usize,
}

/// True when a loop id can be written back into a sentence the tracker
/// writes (the generated crate's check: the nudge rendered for it reads back
/// with this id).
pub type WritableId = fn(&str) -> bool;

/// The loop tracker. Feed it messages in order ([`Tracker::feed`]).
#[derive(Debug, Clone)]
pub struct Tracker {
    machine: &'static Machine,
    render_nudge: RenderNudge,
    writable_id: WritableId,
    state: State,
}

impl Tracker {
    /// A tracker with no loops.
    ///
    /// # Errors
    /// A [`LoopError`] when `config` does not pass [`Config::check`].
    pub fn new(
        machine: &'static Machine,
        render_nudge: RenderNudge,
        writable_id: WritableId,
        config: Config,
    ) -> Result<Self, LoopError> {
        config.check()?;
        Ok(Tracker {
            machine,
            render_nudge,
            writable_id,
            state: State {
                config,
                ..State::default()
            },
        })
    }

    /// A tracker resuming from `state` (as [`Tracker::state`] gave it),
    /// checked as a fed one would be ([`Tracker::with_state`]).
    ///
    /// # Errors
    /// A [`LoopError`] at the first value of `state` that does not hold.
    pub fn restore(
        machine: &'static Machine,
        render_nudge: RenderNudge,
        writable_id: WritableId,
        state: State,
    ) -> Result<Self, LoopError> {
        let t = Tracker {
            machine,
            render_nudge,
            writable_id,
            state: State::default(),
        };
        t.with_state(state)
    }

    /// A tracker with this one's machine resuming from `state`. The state
    /// must be one feeding could have made: its config passes
    /// [`Config::check`]; each loop sits under its own id, an id a nudge can
    /// carry, in a state of the machine, `closed` as that state is, with
    /// `closed_at` only when closed, at most `max_nudges` nudges, a history
    /// that starts with its opening and ends in its state, no step after the
    /// clock (`last_at`); every line named is between 1 and `lines`, and
    /// `lines` at most [`MAX_LINES`]. Each loop's history is replayed
    /// (P215): every step a move of the machine from the state before, in
    /// order, by the owner once claimed; `opened_at`, `owner`, `closed_at`
    /// and `deadline` are what the history and the config make them, and
    /// the loop's last nudge time falls within the times the tracker holds
    /// (P216).
    ///
    /// # Errors
    /// A [`LoopError`] at the first value that does not hold (its JSON
    /// pointer in the state, e.g. `/loops/7f/state`).
    pub fn with_state(&self, state: State) -> Result<Tracker, LoopError> {
        self.check_state(&state)?;
        Ok(Tracker {
            machine: self.machine,
            render_nudge: self.render_nudge,
            writable_id: self.writable_id,
            state,
        })
    }

    /// The state: loops, rejected events, settings.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The machine the tracker runs.
    pub fn machine(&self) -> &'static Machine {
        self.machine
    }

    /// The next line's number (counts never wrap: past [`MAX_LINES`] they
    /// stay there).
    fn next_line(&mut self) -> usize {
        self.state.lines = self.state.lines.saturating_add(1).min(MAX_LINES);
        self.state.lines
    }

    /// Counts a line that holds no message (blank, or not one: then `reason`
    /// is rejected with its number), so that numbers stay those of the input.
    pub fn skip_line(&mut self, reason: Option<String>) {
        let line = self.next_line();
        if let Some(reason) = reason {
            self.reject(line, None, None, reason);
        }
    }

    /// Applies a message's events, in order, and returns how many were
    /// applied. A message older than the last one applied is rejected whole;
    /// an event naming a loop the same message opened is rejected (P197).
    /// The clock (the time of the last message applied) moves only when an
    /// event applies: a message whose events are all rejected, or that has
    /// none, changes nothing but the line count.
    pub fn feed(&mut self, at: Timestamp, from: &str, events: &[LoopEvent]) -> usize {
        let line = self.next_line();
        if let Some(last) = self.state.last_at {
            if at < last {
                self.reject(
                    line,
                    None,
                    None,
                    format!("the message is older than the last one ({last})"),
                );
                return 0;
            }
        }
        // A message never moves a loop it opens (P197): a reply written in
        // the same message as its work order is not one.
        let mut opened: Vec<&str> = Vec::new();
        let mut applied = 0;
        for e in events {
            if e.structure != self.machine.opener && opened.contains(&e.id.as_str()) {
                let reason = format!(
                    "loop `{}` is opened by this message: a message does not move the loop it opens",
                    e.id
                );
                self.reject(line, Some(&e.id), Some(e.structure), reason);
                continue;
            }
            if self.apply(line, at, from, e) {
                applied += 1;
                if e.structure == self.machine.opener {
                    opened.push(&e.id);
                }
            }
        }
        if applied > 0 {
            self.state.last_at = Some(at);
        }
        applied
    }

    /// Removes every closed loop, remembering its id (a pruned id still
    /// opens no second loop, and events naming it are rejected); returns how
    /// many were removed. The report counts them all ([`Report::pruned`]).
    pub fn prune(&mut self) -> usize {
        let closed: Vec<String> = self
            .state
            .loops
            .values()
            .filter(|l| l.closed)
            .map(|l| l.id.clone())
            .collect();
        for id in &closed {
            self.state.loops.remove(id);
            self.state.pruned.insert(id.clone());
        }
        closed.len()
    }

    /// Drops every rejected event held so far (a log of junk would grow a
    /// saved state without bound otherwise); returns how many. The report
    /// counts them all ([`Report::rejected_pruned`]), P284.
    pub fn prune_rejected(&mut self) -> usize {
        let n = self.state.rejected.len();
        self.state.rejected.clear();
        self.state.rejected_pruned += n;
        n
    }

    fn reject(
        &mut self,
        line: usize,
        id: Option<&str>,
        structure: Option<&str>,
        reason: String,
    ) -> bool {
        self.state.rejected.push(Rejected {
            line,
            id: id.map(str::to_owned),
            structure: structure.map(str::to_owned),
            reason,
        });
        false
    }

    fn apply(&mut self, line: usize, at: Timestamp, from: &str, e: &LoopEvent) -> bool {
        let m = self.machine;
        let (id, structure) = (e.id.as_str(), e.structure);
        if !(self.writable_id)(id) {
            return self.reject(
                line,
                Some(id),
                Some(structure),
                format!("the loop id {id:?} cannot be written back into a sentence"),
            );
        }
        if self.state.pruned.contains(id) {
            return self.reject(
                line,
                Some(id),
                Some(structure),
                format!("loop `{id}` was closed and pruned; an id opens one loop"),
            );
        }
        if structure == m.opener {
            if let Some(l) = self.state.loops.get(id) {
                let reason = format!("loop `{id}` is already open (state `{}`)", l.state);
                if !l.closed {
                    return self.reject(line, Some(id), Some(structure), reason);
                }
                return self.reject(
                    line,
                    Some(id),
                    Some(structure),
                    format!("loop `{id}` was closed; an id opens one loop"),
                );
            }
            let Some(deadline) = self.state.config.deadline(structure, at) else {
                return self.reject(
                    line,
                    Some(id),
                    Some(structure),
                    format!(
                        "loop `{id}` opened at {at} would have its deadline or a nudge past {} (the last time the tracker holds)",
                        Timestamp::MAX
                    ),
                );
            };
            let step = Step {
                line,
                at,
                from: from.to_owned(),
                structure: structure.to_owned(),
                from_state: None,
                to_state: m.initial.to_owned(),
            };
            let l = Loop {
                id: id.to_owned(),
                state: m.initial.to_owned(),
                closed: m.closed_states.contains(&m.initial),
                opened_at: at,
                closed_at: None,
                owner: None,
                nudges: 0,
                deadline,
                history: vec![step],
            };
            self.state.loops.insert(id.to_owned(), l);
            return true;
        }
        let Some(l) = self.state.loops.get(id) else {
            return self.reject(
                line,
                Some(id),
                Some(structure),
                format!("no loop `{id}` is open"),
            );
        };
        if Some(structure) == m.nudge {
            if l.closed {
                return self.reject(
                    line,
                    Some(id),
                    Some(structure),
                    format!("loop `{id}` is closed (`{}`)", l.state),
                );
            }
            let max = self.state.config.max_nudges;
            let count = match e.count {
                Some(n) => n,
                None => l.nudges.saturating_add(1),
            };
            if count == 0 || count > max {
                return self.reject(
                    line,
                    Some(id),
                    Some(structure),
                    format!("nudge {count} is not one of the {max} nudges a loop gets"),
                );
            }
            let l = self.state.loops.get_mut(id).expect("looked up above");
            l.nudges = l.nudges.max(count);
            return true;
        }
        let Some(rule) = m.rule(structure) else {
            return self.reject(
                line,
                Some(id),
                Some(structure),
                format!("`{structure}` moves no loop"),
            );
        };
        // Ownership first: a claimed loop moves only for its owner.
        if let Some(owner) = &l.owner {
            if owner != from {
                let reason = format!("loop `{id}` is claimed by `{owner}`, not by `{from}`");
                return self.reject(line, Some(id), Some(structure), reason);
            }
        }
        if !rule.from.contains(&l.state.as_str()) {
            let reason = format!(
                "`{structure}` moves a loop from {} to `{}`, not from `{}`",
                one_of(rule.from),
                rule.to,
                l.state
            );
            return self.reject(line, Some(id), Some(structure), reason);
        }
        let l = self.state.loops.get_mut(id).expect("looked up above");
        l.history.push(Step {
            line,
            at,
            from: from.to_owned(),
            structure: structure.to_owned(),
            from_state: Some(l.state.clone()),
            to_state: rule.to.to_owned(),
        });
        l.state = rule.to.to_owned();
        if Some(structure) == m.claim {
            l.owner = Some(from.to_owned());
        }
        if rule.closes {
            l.closed = true;
            l.closed_at = Some(at);
        }
        true
    }

    /// The loops due a nudge at `at`, in id order, each with its canonical
    /// `[NUDGE …]` sentence (the next count, the configured max), and the
    /// loops past their last nudge (breached). Every time computed fits: a
    /// loop whose deadline or last nudge would fall past the last time the
    /// tracker holds is refused when opened or restored (P216).
    pub fn due(&self, at: Timestamp) -> Vec<Due> {
        let c = &self.state.config;
        let mut due = Vec::new();
        for l in self.state.loops.values().filter(|l| !l.closed) {
            let next = l.nudges.saturating_add(1);
            // Opening and restoring refuse a loop whose last nudge time the
            // tracker cannot hold (P216): this never falls through.
            let Some(when) = l
                .deadline
                .checked_add(c.nudge_offset(next.min(c.max_nudges.saturating_add(1))))
                .ok()
            else {
                continue;
            };
            if at < when {
                continue;
            }
            if next > c.max_nudges {
                due.push(Due {
                    id: l.id.clone(),
                    sentence: None,
                    breached: true,
                });
                continue;
            }
            let deadline = l.deadline.strftime("%Y-%m-%dT%H:%MZ").to_string();
            due.push(Due {
                id: l.id.clone(),
                sentence: Some((self.render_nudge)(&l.id, next, c.max_nudges, &deadline)),
                breached: false,
            });
        }
        due
    }

    /// Marks the nudges of `due` as sent (their loops' counts go up by one,
    /// never past `max_nudges`).
    pub fn nudged(&mut self, due: &[Due]) {
        let max = self.state.config.max_nudges;
        for d in due.iter().filter(|d| !d.breached) {
            if let Some(l) = self.state.loops.get_mut(&d.id) {
                l.nudges = l.nudges.saturating_add(1).min(max);
            }
        }
    }
}

fn one_of(states: &[&str]) -> String {
    states
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// One message of a JSON Lines log (`{"at", "from", "text"}`; other keys are
/// ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct Message {
    /// When it was sent (RFC 3339).
    pub at: Timestamp,
    /// Who sent it.
    pub from: String,
    /// The text.
    pub text: String,
}

/// Feeds every line of a JSON Lines log to `tracker`, in order, through
/// `feed` (which scans a text and applies its events). Blank lines are
/// passed over; a line that is not a message (not JSON, a missing key, a bad
/// time) is rejected with its number and why, and the others are still fed.
/// Returns the numbers of the bad lines. The same as [`replay_bytes`] of the
/// text's bytes.
pub fn replay(
    tracker: &mut Tracker,
    jsonl: &str,
    feed: impl FnMut(&mut Tracker, &Message),
) -> Vec<usize> {
    replay_bytes(tracker, jsonl.as_bytes(), feed)
}

/// [`replay`] of raw bytes: a UTF-8 byte order mark at the start is passed
/// over, lines end at `\n` (a `\r` before it is removed, as [`str::lines`]
/// does), and a line that is not UTF-8 is a bad line like
/// any other (named with the offset of its first invalid byte in the line),
/// so one bad byte costs one line, not the log. Linear in the input: each
/// line is read once.
pub fn replay_bytes(
    tracker: &mut Tracker,
    jsonl: &[u8],
    mut feed: impl FnMut(&mut Tracker, &Message),
) -> Vec<usize> {
    let mut bad = Vec::new();
    // A UTF-8 byte order mark (some editors write one) is not part of line 1.
    let jsonl = jsonl.strip_prefix(b"\xef\xbb\xbf").unwrap_or(jsonl);
    let body = jsonl.strip_suffix(b"\n").unwrap_or(jsonl);
    if jsonl.is_empty() {
        return bad;
    }
    for raw in body.split(|&b| b == b'\n') {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = match std::str::from_utf8(raw) {
            Ok(line) => line,
            Err(e) => {
                tracker.skip_line(Some(format!(
                    "not UTF-8 (invalid byte at offset {} of the line)",
                    e.valid_up_to()
                )));
                bad.push(tracker.state.lines);
                continue;
            }
        };
        if line.trim().is_empty() {
            tracker.skip_line(None);
            continue;
        }
        match serde_json::from_str::<Message>(line) {
            Ok(m) => feed(tracker, &m),
            Err(e) => {
                tracker.skip_line(Some(format!(
                    "not a message `{{\"at\", \"from\", \"text\"}}`: {e}"
                )));
                bad.push(tracker.state.lines);
            }
        }
    }
    bad
}

/// A rejected event as the report writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RejectedReport {
    /// 1-based line (message) number.
    pub line: usize,
    /// The loop id named, if any.
    pub id: Option<String>,
    /// Why it was not applied.
    pub reason: String,
}

/// Every loop, every rejected event, the nudges due at a time, and how many
/// closed loops and rejected events were pruned: `{"loops": [..],
/// "rejected": [..], "due": [..], "pruned": n, "rejected_pruned": n}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Every loop, in id order.
    pub loops: Vec<Loop>,
    /// Every rejected event, in order.
    pub rejected: Vec<RejectedReport>,
    /// The nudges due at the time asked (empty without one).
    pub due: Vec<Due>,
    /// How many closed loops were pruned ([`Tracker::prune`]), so far.
    pub pruned: usize,
    /// How many rejected events were dropped ([`Tracker::prune_rejected`]), so far.
    pub rejected_pruned: usize,
}

impl Tracker {
    /// The report: loops, rejected events, and with `due_at` the nudges due
    /// then.
    pub fn report(&self, due_at: Option<Timestamp>) -> Report {
        Report {
            loops: self.state.loops.values().cloned().collect(),
            rejected: self
                .state
                .rejected
                .iter()
                .map(|r| RejectedReport {
                    line: r.line,
                    id: r.id.clone(),
                    reason: r.reason.clone(),
                })
                .collect(),
            due: due_at.map(|at| self.due(at)).unwrap_or_default(),
            pruned: self.state.pruned.len(),
            rejected_pruned: self.state.rejected_pruned,
        }
    }
}
