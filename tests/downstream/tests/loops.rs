//! The loop tracker of the generated crate: every move the spec allows,
//! every kind of rejected event, SLA and nudge timing, resume, replay. The
//! expectations come from the generated machine (`loops::MACHINE`, lowered
//! from `schema/loops.json` and the structures' `lifecycle_transition`), so a
//! spec change that keeps the rules passes.

use std::collections::{BTreeMap, VecDeque};

use agent_sentences::loops::{self, LoopEvent, Timestamp, Tracker, MACHINE};
use proptest::prelude::*;

fn at(minute: i64) -> Timestamp {
    Timestamp::from_second(1_796_000_000 + minute * 60).unwrap()
}

fn event(structure: &'static str, id: &str) -> LoopEvent {
    LoopEvent {
        structure,
        id: id.to_owned(),
        count: None,
    }
}

/// Structures whose events lead from the initial state to each state (the
/// shortest way), by breadth-first search over the machine's rules.
fn ways() -> BTreeMap<&'static str, Vec<&'static str>> {
    let mut ways = BTreeMap::from([(MACHINE.initial, Vec::new())]);
    let mut queue = VecDeque::from([MACHINE.initial]);
    while let Some(state) = queue.pop_front() {
        for r in MACHINE.rules.iter().filter(|r| r.from.contains(&state)) {
            if !ways.contains_key(r.to) {
                let mut way = ways[state].clone();
                way.push(r.structure);
                ways.insert(r.to, way);
                queue.push_back(r.to);
            }
        }
    }
    ways
}

/// A tracker holding loop `id` in `state`, every event sent by `worker`.
fn loop_in(state: &str, id: &str) -> Tracker {
    let mut t = loops::tracker(loops::default_config());
    assert_eq!(t.feed(at(0), "super", &[event(MACHINE.opener, id)]), 1);
    for (i, structure) in ways()[state].iter().enumerate() {
        assert_eq!(
            t.feed(at(1 + i as i64), "worker", &[event(structure, id)]),
            1,
            "{structure} on the way to {state}"
        );
    }
    assert_eq!(t.state().loops[id].state, state);
    t
}

#[test]
fn the_machine_is_the_specs() {
    assert_eq!((MACHINE.opener, MACHINE.initial), ("work_order", "open"));
    let moves: Vec<(&str, Vec<&str>, &str)> = MACHINE
        .rules
        .iter()
        .map(|r| (r.structure, r.from.to_vec(), r.to))
        .collect();
    // Each structure's lifecycle_transition, read as P30 reads it.
    assert_eq!(
        moves,
        [
            ("ack", vec!["open"], "acknowledged"),
            ("claim", vec!["acknowledged"], "claimed"),
            ("result", vec!["running", "claimed"], "resolved"),
            ("decline", vec!["open", "claimed"], "declined"),
            ("no_action", vec!["open", "claimed"], "no-action"),
        ]
    );
    // Nothing moves a loop to `running` (tool calls name no loop, P132), so it is never reached.
    assert!(!ways().contains_key("running"));
}

#[test]
fn every_move_the_machine_allows_applies() {
    let reachable = ways();
    let mut applied = 0;
    for r in MACHINE.rules {
        for from in r.from.iter().filter(|s| reachable.contains_key(**s)) {
            let mut t = loop_in(from, "l1");
            assert_eq!(
                t.feed(at(30), "worker", &[event(r.structure, "l1")]),
                1,
                "{} from {from}",
                r.structure
            );
            let l = &t.state().loops["l1"];
            assert_eq!(
                (l.state.as_str(), l.closed),
                (r.to, r.closes),
                "{} from {from}",
                r.structure
            );
            assert_eq!(
                l.history
                    .last()
                    .map(|s| (s.from_state.as_deref(), s.to_state.as_str(), s.line)),
                Some((Some(*from), r.to, t.state().lines))
            );
            if r.closes {
                assert_eq!(l.closed_at, Some(at(30)));
            }
            applied += 1;
        }
    }
    assert!(
        applied >= MACHINE.rules.len(),
        "every rule applied from at least one state"
    );
}

#[test]
fn every_move_the_machine_does_not_allow_is_rejected() {
    let mut rejected = 0;
    for state in ways().keys() {
        for r in MACHINE.rules.iter().filter(|r| !r.from.contains(state)) {
            let mut t = loop_in(state, "l1");
            let before = t.state().loops["l1"].clone();
            assert_eq!(
                t.feed(at(30), "worker", &[event(r.structure, "l1")]),
                0,
                "{} from {state}",
                r.structure
            );
            assert_eq!(
                t.state().loops["l1"],
                before,
                "a rejected event changes nothing"
            );
            let last = t.state().rejected.last().unwrap();
            assert!(
                last.reason.contains(&format!("not from `{state}`")),
                "{last:?}"
            );
            rejected += 1;
        }
    }
    assert!(rejected > 10, "{rejected}");
}

#[test]
fn events_that_do_not_fit_are_rejected_with_a_reason() {
    let mut t = loops::tracker(loops::default_config());
    t.feed(at(0), "super", &[event("work_order", "a")]);
    let cases: [(&str, &str, LoopEvent, &str); 4] = [
        (
            "a result for an unknown loop",
            "w",
            event("result", "zz"),
            "no loop `zz` is open",
        ),
        (
            "a second work order for an open id",
            "super",
            event("work_order", "a"),
            "already open",
        ),
        (
            "a nudge of an unknown loop",
            "bot",
            event("nudge", "zz"),
            "no loop `zz`",
        ),
        (
            "a claim before the ack",
            "w",
            event("claim", "a"),
            "not from `open`",
        ),
    ];
    for (what, from, e, reason) in cases {
        assert_eq!(t.feed(at(1), from, &[e]), 0, "{what}");
        assert!(
            t.state().rejected.last().unwrap().reason.contains(reason),
            "{what}: {:?}",
            t.state().rejected.last()
        );
    }
    // A claim of a loop someone else claimed, and a close by someone else.
    t.feed(at(2), "w1", &[event("ack", "a")]);
    t.feed(at(3), "w1", &[event("claim", "a")]);
    assert_eq!(t.state().loops["a"].owner.as_deref(), Some("w1"));
    for structure in ["claim", "result", "decline"] {
        assert_eq!(t.feed(at(4), "w2", &[event(structure, "a")]), 0);
        assert_eq!(
            t.state().rejected.last().unwrap().reason,
            "loop `a` is claimed by `w1`, not by `w2`"
        );
    }
    // A message older than the last one: rejected whole.
    assert_eq!(t.feed(at(1), "w1", &[event("result", "a")]), 0);
    let last = t.state().rejected.last().unwrap();
    assert!(
        last.id.is_none() && last.reason.contains("older than the last one"),
        "{last:?}"
    );
    assert_eq!(t.state().loops["a"].state, "claimed");
    // The owner closes it; a nudge of a closed loop is rejected.
    assert_eq!(t.feed(at(5), "w1", &[event("result", "a")]), 1);
    assert_eq!(
        t.feed(
            at(6),
            "bot",
            &[LoopEvent {
                structure: "nudge",
                id: "a".into(),
                count: Some(1)
            }]
        ),
        0
    );
    assert!(t
        .state()
        .rejected
        .last()
        .unwrap()
        .reason
        .contains("is closed"));
    assert_eq!(
        t.state()
            .rejected
            .iter()
            .map(|r| r.line)
            .collect::<Vec<_>>(),
        [2, 3, 4, 5, 8, 9, 10, 11, 13]
    );
}

#[test]
fn sla_deadlines_nudges_and_breaches() {
    let config = loops::default_config();
    let (sla, every, max) = (
        config.default_sla_seconds / 60,
        config.nudge_interval_seconds / 60,
        config.max_nudges,
    );
    let mut t = loops::tracker(config);
    t.feed(
        at(0),
        "super",
        &[event("work_order", "a"), event("work_order", "b")],
    );
    assert_eq!(t.feed(at(1), "w", &[event("decline", "b")]), 1);
    assert!(
        t.due(at(sla - 1)).is_empty(),
        "nothing is due before the deadline"
    );
    let mut sent = Vec::new();
    for k in 1..=max {
        let now = at(sla + (i64::from(k) - 1) * every);
        assert!(
            t.due(Timestamp::from_second(now.as_second() - 1).unwrap())
                .is_empty()
                || k == 1 && sla == 0
        );
        let due = t.due(now);
        assert_eq!(due.len(), 1, "loop b is closed; a is due nudge {k}");
        let deadline = at(sla).strftime("%Y-%m-%dT%H:%MZ").to_string();
        let expected = format!("[NUDGE a] [nudge {k}/{max}] Deadline {deadline}");
        assert_eq!(due[0].sentence.as_deref(), Some(expected.as_str()));
        assert!(!due[0].breached);
        // The sentence is a nudge the scanner reads back as one.
        assert!(
            matches!(&agent_sentences::Sentence::parse(&expected).unwrap(), agent_sentences::Sentence::Nudge(n) if n.count == k && n.max_nudges == max)
        );
        sent.push(expected);
        t.nudged(&due);
    }
    let past_last = at(sla + i64::from(max) * every);
    assert!(t
        .due(Timestamp::from_second(past_last.as_second() - 1).unwrap())
        .is_empty());
    let due = t.due(past_last);
    assert_eq!(
        (due.len(), due[0].breached, due[0].sentence.is_none()),
        (1, true, true)
    );
    // A nudge seen in the stream counts as one.
    let mut u = loops::tracker(loops::default_config());
    loops::feed(&mut u, at(0), "super", "[WO:7f] [from super] Audit — check");
    loops::feed(
        &mut u,
        at(sla),
        "bot",
        &sent[0].replace("[NUDGE a]", "[NUDGE 7f]"),
    );
    assert_eq!(u.state().loops["7f"].nudges, 1);
    assert_eq!(u.due(at(sla)).len(), 0);
    assert_eq!(
        u.due(at(sla + every))[0]
            .sentence
            .as_deref()
            .map(|s| s.contains("[nudge 2/")),
        Some(true)
    );
}

#[test]
fn sentences_in_text_move_loops() {
    let mut t = loops::tracker(loops::default_config());
    let texts = [
        ("super", "[WO:7fce46e0] [from super] Audit — run the checks"),
        ("646", "[ACK:7fce46e0] [from 646] on it"),
        (
            "646",
            "[CLAIM 7fce46e0] and a call [TOOL box {\"cmd\": \"ls\"}]",
        ),
        ("646", "[RESULT 7fce46e0] OK all green"),
    ];
    for (i, (from, text)) in texts.iter().enumerate() {
        assert_eq!(loops::feed(&mut t, at(i as i64), from, text), 1, "{text}");
    }
    let l = &t.state().loops["7fce46e0"];
    assert_eq!(
        (l.state.as_str(), l.closed, l.owner.as_deref()),
        ("resolved", true, Some("646"))
    );
    assert_eq!(
        l.history
            .iter()
            .map(|s| s.structure.as_str())
            .collect::<Vec<_>>(),
        ["work_order", "ack", "claim", "result"]
    );
    assert!(t.state().rejected.is_empty());
}

fn pool() -> Vec<(&'static str, LoopEvent)> {
    let mut pool = Vec::new();
    for id in ["a", "b"] {
        for s in [
            "work_order",
            "ack",
            "claim",
            "result",
            "decline",
            "no_action",
            "nudge",
        ] {
            for from in ["w1", "w2"] {
                pool.push((
                    from,
                    LoopEvent {
                        structure: s,
                        id: id.to_owned(),
                        count: (s == "nudge").then_some(1),
                    },
                ));
            }
        }
    }
    pool
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn replay_gives_the_same_state_and_resuming_is_replaying(picks in proptest::collection::vec((0usize..28, 0i64..3), 0..40), cut in 0usize..40) {
        let pool = pool();
        let run = |picks: &[(usize, i64)], t: &mut Tracker, mut minute: i64| {
            for (p, step) in picks {
                minute += step - 1; // sometimes a message older than the last
                let (from, e) = &pool[*p % pool.len()];
                t.feed(at(minute), from, std::slice::from_ref(e));
            }
            minute
        };
        let mut a = loops::tracker(loops::default_config());
        let mut b = loops::tracker(loops::default_config());
        run(&picks, &mut a, 0);
        run(&picks, &mut b, 0);
        prop_assert_eq!(serde_json::to_string(a.state()).unwrap(), serde_json::to_string(b.state()).unwrap());
        // Save half way through, restore from JSON, go on: the same state.
        let cut = cut.min(picks.len());
        let mut c = loops::tracker(loops::default_config());
        let minute = run(&picks[..cut], &mut c, 0);
        let saved = serde_json::to_string(c.state()).unwrap();
        let mut d = loops::restore(serde_json::from_str(&saved).unwrap());
        run(&picks[cut..], &mut d, minute);
        prop_assert_eq!(serde_json::to_string(d.state()).unwrap(), serde_json::to_string(a.state()).unwrap());
    }
}
