//! The tracker's checks: a config's durations and counts (checked
//! arithmetic, P191) and a saved state (checked as a fed one, P192), each
//! fault located by JSON pointer.

use std::fmt;

use jiff::{SignedDuration, Timestamp};

use super::{one_of, Config, State, Tracker};

/// Why a config or a saved state is refused: what is wrong, and where (a
/// JSON pointer into the config or the state, e.g. `/loops/7f/nudges`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopError {
    /// JSON pointer of the faulty value (`""` for the whole).
    pub pointer: String,
    /// What is wrong with it.
    pub message: String,
}

impl LoopError {
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        LoopError {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LoopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.pointer, self.message)
    }
}

impl std::error::Error for LoopError {}

/// The longest duration a config may name, in seconds: the span of the
/// times the tracker can hold (years -9999 to 9999), so every deadline and
/// nudge time is computed without overflow.
pub const MAX_SECONDS: i64 = 631_107_230_401;

/// The most lines a tracker counts (2^53, the largest integer every JSON
/// reader holds exactly); a saved state past it is refused.
pub const MAX_LINES: usize = 1 << 53;

impl Config {
    /// Checks that every duration is 0 or more and that the latest time the
    /// tracker computes from a loop's opening (its deadline plus every nudge
    /// interval) stays within [`MAX_SECONDS`]: checked arithmetic, nothing
    /// wraps or saturates.
    ///
    /// # Errors
    /// A [`LoopError`] at the first value that does not fit (its pointer in
    /// the config, e.g. `/nudge_interval_seconds`).
    pub fn check(&self) -> Result<(), LoopError> {
        let in_range = |pointer: String, secs: i64| {
            if (0..=MAX_SECONDS).contains(&secs) {
                Ok(())
            } else {
                Err(LoopError::at(
                    pointer,
                    format!("{secs} seconds is outside 0..={MAX_SECONDS}"),
                ))
            }
        };
        in_range("/default_sla_seconds".into(), self.default_sla_seconds)?;
        for (k, v) in &self.sla_seconds {
            in_range(format!("/sla_seconds/{}", pointer_token(k)), *v)?;
        }
        in_range(
            "/nudge_interval_seconds".into(),
            self.nudge_interval_seconds,
        )?;
        let longest_sla = self
            .sla_seconds
            .values()
            .copied()
            .chain([self.default_sla_seconds])
            .max()
            .unwrap_or(0);
        let total = self
            .nudge_interval_seconds
            .checked_mul(i64::from(self.max_nudges))
            .and_then(|n| n.checked_add(longest_sla))
            .filter(|t| *t <= MAX_SECONDS);
        if total.is_none() {
            return Err(LoopError::at(
                "/max_nudges",
                format!(
                    "{} nudges {} seconds apart after a deadline {longest_sla} seconds away run past {MAX_SECONDS} seconds",
                    self.max_nudges, self.nudge_interval_seconds
                ),
            ));
        }
        Ok(())
    }

    /// The deadline of a loop opened at `at` by `opener`'s sentence: `at`
    /// plus the opener's SLA; `None` when it, or the loop's breach time
    /// (the deadline plus `max_nudges` intervals), falls past the last time
    /// the tracker holds ([`Timestamp::MAX`], year 9999), refused never
    /// clamped (P216).
    pub(super) fn deadline(&self, opener: &str, at: Timestamp) -> Option<Timestamp> {
        let sla = self
            .sla_seconds
            .get(opener)
            .copied()
            .unwrap_or(self.default_sla_seconds);
        let deadline = at.checked_add(SignedDuration::from_secs(sla)).ok()?;
        deadline
            .checked_add(self.nudge_offset(self.max_nudges.saturating_add(1)))
            .ok()?;
        Some(deadline)
    }

    /// Seconds from a loop's deadline to nudge `k`'s time (`k - 1`
    /// intervals; `k = max + 1` is the breach). [`Config::check`] bounds it.
    pub(super) fn nudge_offset(&self, k: u32) -> SignedDuration {
        let secs = self
            .nudge_interval_seconds
            .checked_mul(i64::from(k.saturating_sub(1)))
            .unwrap_or(MAX_SECONDS)
            .min(MAX_SECONDS);
        SignedDuration::from_secs(secs)
    }
}

/// `key` as one token of a JSON pointer (`~` and `/` escaped).
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl Tracker {
    pub(super) fn check_state(&self, s: &State) -> Result<(), LoopError> {
        let m = self.machine;
        s.config.check().map_err(|e| LoopError {
            pointer: format!("/config{}", e.pointer),
            message: e.message,
        })?;
        if s.lines > MAX_LINES {
            return Err(LoopError::at(
                "/lines",
                format!(
                    "{} lines is past the most a tracker counts ({MAX_LINES})",
                    s.lines
                ),
            ));
        }
        let line_ok = |pointer: String, line: usize| {
            if (1..=s.lines).contains(&line) {
                Ok(())
            } else {
                Err(LoopError::at(
                    pointer,
                    format!("line {line} is not one of the {} lines fed", s.lines),
                ))
            }
        };
        for (key, l) in &s.loops {
            let at = |field: &str| format!("/loops/{}{field}", pointer_token(key));
            if *key != l.id {
                return Err(LoopError::at(
                    at("/id"),
                    format!("loop `{}` is saved under the key `{key}`", l.id),
                ));
            }
            if !(self.writable_id)(key) {
                return Err(LoopError::at(
                    at(""),
                    format!("the loop id {key:?} cannot be written back into a sentence"),
                ));
            }
            if s.pruned.contains(key) {
                return Err(LoopError::at(
                    at(""),
                    "the loop id is also listed as pruned",
                ));
            }
            if !m.states.contains(&l.state.as_str()) {
                return Err(LoopError::at(
                    at("/state"),
                    format!("`{}` is not a state ({})", l.state, one_of(m.states)),
                ));
            }
            let closed = m.closed_states.contains(&l.state.as_str());
            if l.closed != closed {
                return Err(LoopError::at(
                    at("/closed"),
                    format!(
                        "state `{}` is {}closed",
                        l.state,
                        if closed { "" } else { "not " }
                    ),
                ));
            }
            if l.closed_at.is_some() && !l.closed {
                return Err(LoopError::at(
                    at("/closed_at"),
                    "an open loop has no closing time",
                ));
            }
            if l.nudges > s.config.max_nudges {
                return Err(LoopError::at(
                    at("/nudges"),
                    format!(
                        "{} nudges is past max_nudges ({})",
                        l.nudges, s.config.max_nudges
                    ),
                ));
            }
            let Some(first) = l.history.first() else {
                return Err(LoopError::at(
                    at("/history"),
                    "a loop has at least its opening",
                ));
            };
            if first.from_state.is_some() || first.structure != m.opener {
                return Err(LoopError::at(
                    at("/history/0"),
                    format!("a loop's history starts with its opening by `{}`", m.opener),
                ));
            }
            for (i, step) in l.history.iter().enumerate() {
                line_ok(at(&format!("/history/{i}/line")), step.line)?;
                // The clock is the time of the last message applied: no step
                // is later (a later clock would reject the messages between).
                if s.last_at.is_none_or(|last| step.at > last) {
                    return Err(LoopError::at(
                        "/last_at",
                        format!(
                            "the clock ({}) is not at or after the step at {} of loop `{key}`",
                            s.last_at
                                .map_or_else(|| "none".to_owned(), |t| t.to_string()),
                            step.at
                        ),
                    ));
                }
                if !m.states.contains(&step.to_state.as_str()) {
                    return Err(LoopError::at(
                        at(&format!("/history/{i}/to_state")),
                        format!("`{}` is not a state", step.to_state),
                    ));
                }
            }
            if l.history.last().map(|h| h.to_state.as_str()) != Some(l.state.as_str()) {
                return Err(LoopError::at(
                    at("/history"),
                    format!("the history does not end in the loop's state `{}`", l.state),
                ));
            }
            self.check_replay(s, key, l)?;
        }
        for (i, r) in s.rejected.iter().enumerate() {
            line_ok(format!("/rejected/{i}/line"), r.line)?;
        }
        for id in &s.pruned {
            if !(self.writable_id)(id) {
                return Err(LoopError::at(
                    "/pruned",
                    format!("the loop id {id:?} cannot be written back into a sentence"),
                ));
            }
        }
        Ok(())
    }

    /// The fields feeding derives from a loop's history, derived again and
    /// compared (P215): the opening time is the first step's, each step is a
    /// move of the machine from the state the step before left, at or after
    /// it, and the owner, the closing time and the deadline are what those
    /// steps and the config make them. A state edited by hand, or saved by
    /// another version, is refused at the first field that differs.
    fn check_replay(&self, s: &State, key: &str, l: &super::Loop) -> Result<(), LoopError> {
        let m = self.machine;
        let at = |field: &str| format!("/loops/{}{field}", pointer_token(key));
        let first = &l.history[0];
        if l.opened_at != first.at {
            return Err(LoopError::at(
                at("/opened_at"),
                format!(
                    "opened at {} but its opening step is at {}",
                    l.opened_at, first.at
                ),
            ));
        }
        let mut state = m.initial;
        let mut owner: Option<&str> = None;
        let mut closed_at = None;
        for (i, w) in l.history.windows(2).enumerate() {
            let (before, step) = (&w[0], &w[1]);
            let here = |f: &str| at(&format!("/history/{}{f}", i + 1));
            if step.at < before.at || step.line < before.line {
                return Err(LoopError::at(
                    here(""),
                    format!(
                        "the step (line {}, {}) comes before the one before it (line {}, {})",
                        step.line, step.at, before.line, before.at
                    ),
                ));
            }
            let rule = m
                .rule(&step.structure)
                .filter(|r| r.to == step.to_state && r.from.contains(&state));
            let Some(rule) = rule.filter(|_| step.from_state.as_deref() == Some(state)) else {
                return Err(LoopError::at(
                    here(""),
                    format!(
                        "`{}` from `{}` to `{}` is not a move of the machine from `{state}`",
                        step.structure,
                        step.from_state.as_deref().unwrap_or("(none)"),
                        step.to_state
                    ),
                ));
            };
            if let Some(o) = owner.filter(|o| *o != step.from) {
                return Err(LoopError::at(
                    here("/from"),
                    format!(
                        "the loop is claimed by `{o}`: `{}` does not move it",
                        step.from
                    ),
                ));
            }
            state = rule.to;
            if Some(rule.structure) == m.claim {
                owner = Some(&step.from);
            }
            if rule.closes {
                closed_at = Some(step.at);
            }
        }
        if l.owner.as_deref() != owner {
            return Err(LoopError::at(
                at("/owner"),
                format!(
                    "the owner is {} but the history's claim makes it {}",
                    l.owner
                        .as_deref()
                        .map_or("none".to_owned(), |o| format!("`{o}`")),
                    owner.map_or("none".to_owned(), |o| format!("`{o}`")),
                ),
            ));
        }
        if l.closed_at != closed_at {
            return Err(LoopError::at(
                at("/closed_at"),
                format!(
                    "the closing time is {} but the history closes the loop at {}",
                    l.closed_at.map_or("none".to_owned(), |t| t.to_string()),
                    closed_at.map_or("none".to_owned(), |t| t.to_string()),
                ),
            ));
        }
        match s.config.deadline(&first.structure, l.opened_at) {
            None => Err(LoopError::at(
                at("/deadline"),
                format!(
                    "a loop opened at {} would have its deadline or a nudge past {} (the last time the tracker holds)",
                    l.opened_at,
                    Timestamp::MAX
                ),
            )),
            Some(d) if d != l.deadline => Err(LoopError::at(
                at("/deadline"),
                format!(
                    "the deadline {} is not the opening time plus the SLA ({d})",
                    l.deadline
                ),
            )),
            Some(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_seconds_is_the_span_of_the_times_held() {
        assert_eq!(
            MAX_SECONDS,
            Timestamp::MAX.as_second() - Timestamp::MIN.as_second()
        );
    }
}
