//! The loop state machine: `schema/loops.json` (which structure opens,
//! claims and nudges a loop, which field is the loop id) with each
//! structure's `lifecycle_transition` (the moves, read by
//! [`crate::lifecycle::parse`], P30), checked ([`check`], stage 2) and lowered
//! to a [`MachineIr`] ([`lower`], stage 3) that the Rust emitter writes as the
//! generated crate's `loops` module and the docs as a table.
//!
//! How the transitions are read (decisions P130–P137, `docs/decisions/loops.md`):
//! - the opener's path (`open -> acknowledged -> running -> closed`) names
//!   the state a new loop is in (its first) and the machine's states;
//! - every other structure of `/loop_id` has a two-step path
//!   (`open/claimed -> declined (closed)`): its sentence moves a loop from
//!   any state of the first step to the state of the second, and nothing
//!   else moves a loop;
//! - a state written `(closed)`, or named `closed`, ends the loop.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::lifecycle::{self, Transition, CLOSED};
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::model::{NudgeRoles, Sla};

const L: SpecFile = SpecFile::Loops;

/// One move of the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleIr {
    /// The structure whose sentence makes the move.
    pub structure: String,
    /// The states it moves a loop from.
    pub from: Vec<String>,
    /// The state it moves a loop to.
    pub to: String,
    /// True when `to` ends the loop.
    pub closes: bool,
}

/// The lowered state machine.
#[derive(Debug, Clone, Serialize)]
pub struct MachineIr {
    /// The structure that opens loops.
    pub opener: String,
    /// The state of a new loop.
    pub initial: String,
    /// The structure whose sender becomes the owner.
    pub claim: String,
    /// Every state, in order of first appearance (opener's path, then rules).
    pub states: Vec<String>,
    /// The states that end a loop.
    pub closed_states: Vec<String>,
    /// The moves, in `/loop_id` order.
    pub rules: Vec<RuleIr>,
    /// `(structure key, field name)` of the loop id, in `/loop_id` order.
    pub ids: Vec<(String, String)>,
    /// The nudge structure's roles.
    pub nudge: NudgeRoles,
    /// SLA defaults.
    pub sla: Sla,
}

fn is_closed(s: &lifecycle::StateRef) -> bool {
    s.closed || s.name == CLOSED
}

/// Every problem of `loops.json` against the structures, each located.
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let Some(loops) = &spec.loops else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let structures = &spec.structures.structures;
    let err = |out: &mut Vec<Diagnostic>, code: &'static str, pointer: String, message: String| {
        out.push(spec.diag(Severity::Error, code, L, &pointer, message));
    };
    let fields_of = |key: &str| -> Option<(Vec<String>, Vec<String>)> {
        structures
            .get(key)
            .map(|s| (s.required_fields.clone(), s.optional_fields.clone()))
    };
    for (pointer, key) in [
        ("/opened_by", &loops.opened_by),
        ("/claimed_by", &loops.claimed_by),
        ("/nudge/structure", &loops.nudge.structure),
    ] {
        if !structures.contains_key(key) {
            err(
                &mut out,
                "unknown-structure",
                pointer.to_owned(),
                format!("`{key}` is not a structure of structures.json"),
            );
        }
    }
    for key in [&loops.opened_by, &loops.claimed_by] {
        if !loops.loop_id.contains_key(key) {
            err(
                &mut out,
                "loop-id-missing",
                "/loop_id".to_owned(),
                format!("`{key}` needs the field of its loop id in /loop_id"),
            );
        }
    }
    for (key, field) in &loops.loop_id {
        let pointer = child("/loop_id", key);
        let Some((required, _)) = fields_of(key) else {
            err(
                &mut out,
                "unknown-structure",
                pointer,
                format!("`{key}` is not a structure of structures.json"),
            );
            continue;
        };
        if !required.contains(field) {
            err(&mut out, "loop-id-not-required", pointer.clone(), format!("`{field}` is not a required field of `{key}`: every sentence must name its loop"));
        }
        let transition = lifecycle::parse(&structures[key].lifecycle_transition);
        let steps = match &transition {
            Transition::Path { steps } => steps.len(),
            Transition::Label { .. } => 0,
        };
        if *key == loops.opened_by {
            if steps < 2 {
                err(
                    &mut out,
                    "opener-without-path",
                    pointer,
                    format!("the opener `{key}`'s lifecycle_transition is no path (`a -> b …`)"),
                );
            }
        } else if steps != 2
            || matches!(&transition, Transition::Path { steps } if steps[1].len() != 1)
        {
            let message = format!("`{key}` moves a loop, so its lifecycle_transition must be one move `a/b -> c`, not `{}`", structures[key].lifecycle_transition);
            err(&mut out, "move-not-one-step", pointer, message);
        }
    }
    if let Some((required, optional)) = fields_of(&loops.nudge.structure) {
        let roles = [
            ("loop_id", &loops.nudge.loop_id),
            ("count", &loops.nudge.count),
            ("max", &loops.nudge.max),
            ("deadline", &loops.nudge.deadline),
        ];
        for (role, field) in roles {
            if !required.contains(field) {
                let message = format!(
                    "`{field}` is not a required field of `{}`",
                    loops.nudge.structure
                );
                err(
                    &mut out,
                    "nudge-role-not-required",
                    format!("/nudge/{role}"),
                    message,
                );
            }
        }
        let played: Vec<&String> = roles.iter().map(|(_, f)| *f).collect();
        for f in required.iter().filter(|f| !played.contains(f)) {
            let message = format!("the required field `{f}` of `{}` plays no part: the tracker could not write a nudge", loops.nudge.structure);
            err(
                &mut out,
                "nudge-field-without-role",
                "/nudge".to_owned(),
                message,
            );
        }
        let _ = optional;
    }
    if loops.sla.max_nudges == 0 || loops.sla.nudge_every_minutes == 0 {
        err(
            &mut out,
            "sla-zero",
            "/sla".to_owned(),
            "max_nudges and nudge_every_minutes must be at least 1".to_owned(),
        );
    }
    out
}

/// The machine, when the spec has a `loops.json`. Lowering runs on specs
/// with errors too (for the other checks), so it reads defensively: what
/// [`check`] reports is left out, never a panic.
pub fn lower(spec: &Spec) -> Option<MachineIr> {
    let loops = spec.loops.as_ref()?;
    let structures = &spec.structures.structures;
    let mut states: Vec<String> = Vec::new();
    let mut closed_states: Vec<String> = Vec::new();
    let mut note = |s: &lifecycle::StateRef, states: &mut Vec<String>| {
        if !states.contains(&s.name) {
            states.push(s.name.clone());
        }
        if is_closed(s) && !closed_states.contains(&s.name) {
            closed_states.push(s.name.clone());
        }
    };
    let Transition::Path { steps } =
        lifecycle::parse(&structures.get(&loops.opened_by)?.lifecycle_transition)
    else {
        return None;
    };
    let initial = steps.first()?.first()?.name.clone();
    for s in steps.iter().flatten() {
        note(s, &mut states);
    }
    let mut rules = Vec::new();
    for key in loops.loop_id.keys().filter(|k| **k != loops.opened_by) {
        let Some(st) = structures.get(key) else {
            continue;
        };
        let Transition::Path { steps } = lifecycle::parse(&st.lifecycle_transition) else {
            continue;
        };
        let Some(to) = steps
            .get(1)
            .and_then(|s| s.first())
            .filter(|_| steps.len() == 2)
        else {
            continue;
        };
        for s in steps.iter().flatten() {
            note(s, &mut states);
        }
        rules.push(RuleIr {
            structure: key.clone(),
            from: steps[0].iter().map(|s| s.name.clone()).collect(),
            to: to.name.clone(),
            closes: is_closed(to),
        });
    }
    Some(MachineIr {
        opener: loops.opened_by.clone(),
        initial,
        claim: loops.claimed_by.clone(),
        states,
        closed_states,
        rules,
        ids: loops
            .loop_id
            .iter()
            .map(|(k, f)| (k.clone(), f.clone()))
            .collect(),
        nudge: loops.nudge.clone(),
        sla: loops.sla.clone(),
    })
}
