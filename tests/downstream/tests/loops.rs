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
    let mut t = loops::tracker(loops::default_config()).unwrap();
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
    let mut t = loops::tracker(loops::default_config()).unwrap();
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
    let mut t = loops::tracker(config).unwrap();
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
    let mut u = loops::tracker(loops::default_config()).unwrap();
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
    let mut t = loops::tracker(loops::default_config()).unwrap();
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
        let mut a = loops::tracker(loops::default_config()).unwrap();
        let mut b = loops::tracker(loops::default_config()).unwrap();
        run(&picks, &mut a, 0);
        run(&picks, &mut b, 0);
        prop_assert_eq!(serde_json::to_string(a.state()).unwrap(), serde_json::to_string(b.state()).unwrap());
        // Save half way through, restore from JSON, go on: the same state.
        let cut = cut.min(picks.len());
        let mut c = loops::tracker(loops::default_config()).unwrap();
        let minute = run(&picks[..cut], &mut c, 0);
        let saved = serde_json::to_string(c.state()).unwrap();
        let mut d = loops::restore(serde_json::from_str(&saved).unwrap()).unwrap();
        run(&picks[cut..], &mut d, minute);
        prop_assert_eq!(serde_json::to_string(d.state()).unwrap(), serde_json::to_string(a.state()).unwrap());
    }
}

/// A state saved from a tracker with one loop `7f` nudged once, as JSON, to be
/// broken one value at a time.
fn saved() -> serde_json::Value {
    let mut t = loops::tracker(loops::default_config()).unwrap();
    loops::feed(&mut t, at(0), "super", "[WO:7f] [from super] Audit — check");
    let due = t.due(at(60));
    t.nudged(&due);
    serde_json::to_value(t.state()).unwrap()
}

fn restored(state: serde_json::Value) -> Result<Tracker, loops::LoopError> {
    loops::restore(serde_json::from_value(state).unwrap())
}

#[test]
fn a_config_that_would_overflow_is_refused_at_construction() {
    let max = loops::default_config().max_nudges;
    let cases: [(i64, i64, &str); 5] = [
        (loops::MAX_SECONDS / 2, 1800, "/max_nudges"),
        (i64::MAX / 2, 1800, "/nudge_interval_seconds"),
        (900, i64::MAX, "/default_sla_seconds"),
        (-1, 1800, "/nudge_interval_seconds"),
        (900, -60, "/default_sla_seconds"),
    ];
    for (interval, sla, pointer) in cases {
        let config = loops::Config {
            nudge_interval_seconds: interval,
            default_sla_seconds: sla,
            sla_seconds: Default::default(),
            max_nudges: max,
        };
        let e = loops::tracker(config.clone()).unwrap_err();
        assert_eq!(e.pointer, pointer, "{interval} {sla}: {e}");
        // Restored, the same config is refused at the same place, under /config.
        let mut state = saved();
        state["config"] = serde_json::to_value(&config).unwrap();
        let e = restored(state).unwrap_err();
        assert_eq!(e.pointer, format!("/config{pointer}"), "{e}");
    }
    // The longest config that fits still computes every nudge time, for a
    // loop opened early enough that its breach time is one the tracker holds.
    let config = loops::Config {
        nudge_interval_seconds: loops::MAX_SECONDS / i64::from(max + 1),
        default_sla_seconds: 0,
        sla_seconds: Default::default(),
        max_nudges: max,
    };
    let mut t = loops::tracker(config).unwrap();
    t.feed(Timestamp::MIN, "super", &[event("work_order", "a")]);
    assert_eq!(t.due(Timestamp::MIN).len(), 1);
    assert!(t.due(Timestamp::MAX).iter().all(|d| !d.breached));
    // Opened later, its breach time would fall past the last time held: the
    // work order is rejected (P216), where its deadline used to be clamped.
    t.feed(at(0), "super", &[event("work_order", "b")]);
    let r = &t.state().rejected[0];
    assert_eq!((r.line, r.id.as_deref()), (2, Some("b")));
    assert!(
        r.reason.ends_with("would have its deadline or a nudge past 9999-12-30T22:00:00.999999999Z (the last time the tracker holds)"),
        "{}",
        r.reason
    );
}

#[test]
fn a_rejected_or_empty_message_does_not_move_the_clock() {
    let mut t = loops::tracker(loops::default_config()).unwrap();
    assert_eq!(
        loops::feed(&mut t, at(0), "super", "[WO:7f] [from super] Audit — go"),
        1
    );
    let far = Timestamp::from_second(4_000_000_000).unwrap();
    // Future-dated: one rejected event, then one message with no sentence.
    assert_eq!(loops::feed(&mut t, far, "x", "[RESULT 7f] OK done"), 0);
    assert_eq!(loops::feed(&mut t, far, "x", "no sentence here"), 0);
    assert_eq!(t.state().last_at, Some(at(0)));
    // The next message in time still applies.
    assert_eq!(loops::feed(&mut t, at(1), "646", "[ACK:7f] [from 646]"), 1);
    assert_eq!(t.state().loops["7f"].state, "acknowledged");
    assert_eq!(
        t.state()
            .rejected
            .iter()
            .map(|r| r.line)
            .collect::<Vec<_>>(),
        [2]
    );
}

#[test]
fn a_restored_state_is_checked_as_a_fed_one() {
    assert!(restored(saved()).is_ok());
    type Break = fn(&mut serde_json::Value);
    let cases: [(&str, Break, &str); 11] = [
        (
            "a clock before a step",
            |s| s["last_at"] = "2020-01-01T00:00:00Z".into(),
            "/last_at",
        ),
        (
            "no clock with a loop",
            |s| s["last_at"] = serde_json::Value::Null,
            "/last_at",
        ),
        (
            "a key that is not its loop's id",
            |s| s["loops"]["7f"]["id"] = "8a".into(),
            "/loops/7f/id",
        ),
        (
            "an unknown state",
            |s| s["loops"]["7f"]["state"] = "limbo".into(),
            "/loops/7f/state",
        ),
        (
            "closed in an open state",
            |s| s["loops"]["7f"]["closed"] = true.into(),
            "/loops/7f/closed",
        ),
        (
            "nudges past the max",
            |s| s["loops"]["7f"]["nudges"] = 4.into(),
            "/loops/7f/nudges",
        ),
        (
            "a line past the lines fed",
            |s| s["loops"]["7f"]["history"][0]["line"] = 9.into(),
            "/loops/7f/history/0/line",
        ),
        (
            "lines past the most counted",
            |s| s["lines"] = (1u64 << 60).into(),
            "/lines",
        ),
        (
            "a history that ends elsewhere",
            |s| s["loops"]["7f"]["history"][0]["to_state"] = "claimed".into(),
            "/loops/7f/history",
        ),
        (
            "an empty history",
            |s| s["loops"]["7f"]["history"] = serde_json::json!([]),
            "/loops/7f/history",
        ),
        (
            "an id with a line break",
            |s| {
                let mut l = s["loops"]["7f"].take();
                l["id"] = "7f\n[WO:9a] [from x] T — b".into();
                s["loops"] = serde_json::json!({ "7f\n[WO:9a] [from x] T — b": l });
            },
            "/loops/7f\n[WO:9a] [from x] T — b",
        ),
    ];
    for (what, break_it, pointer) in cases {
        let mut state = saved();
        break_it(&mut state);
        let e = restored(state).map(|_| ()).unwrap_err();
        assert_eq!(e.pointer, pointer, "{what}: {e}");
    }
}

#[test]
fn ids_a_nudge_cannot_carry_and_counts_past_the_max_are_rejected() {
    let mut t = loops::tracker(loops::default_config()).unwrap();
    for id in ["7f\n[WO:9a] [from x] T — b", "a]b", "a b", ""] {
        assert_eq!(
            t.feed(at(0), "super", &[event("work_order", id)]),
            0,
            "{id:?}"
        );
        assert!(
            t.state()
                .rejected
                .last()
                .unwrap()
                .reason
                .contains("cannot be written back"),
            "{:?}",
            t.state().rejected.last()
        );
    }
    assert!(t.state().loops.is_empty());
    loops::feed(&mut t, at(0), "super", "[WO:7f] [from super] Audit — go");
    let max = t.state().config.max_nudges;
    for n in [0, max + 1, 999_999_999] {
        let nudge = format!("[NUDGE 7f] [nudge {n}/{n}] Deadline 2026-12-01T09:30Z");
        assert_eq!(loops::feed(&mut t, at(1), "bot", &nudge), 0, "{nudge}");
    }
    assert_eq!(t.state().loops["7f"].nudges, 0);
    let nudge = format!("[NUDGE 7f] [nudge {max}/{max}] Deadline 2026-12-01T09:30Z");
    assert_eq!(loops::feed(&mut t, at(1), "bot", &nudge), 1);
    // Marked sent past the max, the count stays at the max.
    let due: Vec<loops::Due> = (0..3)
        .map(|_| loops::Due {
            id: "7f".into(),
            sentence: Some(String::new()),
            breached: false,
        })
        .collect();
    t.nudged(&due);
    assert_eq!(t.state().loops["7f"].nudges, max);
}

#[test]
fn closed_loops_are_pruned_and_their_ids_stay_used() {
    let mut t = loops::tracker(loops::default_config()).unwrap();
    loops::feed(&mut t, at(0), "super", "[WO:a1] [from super] One — go\n");
    loops::feed(&mut t, at(0), "super", "[WO:b2] [from super] Two — go");
    loops::feed(&mut t, at(1), "646", "[NO-ACTION a1] nothing to do");
    assert_eq!(t.prune(), 1);
    assert_eq!(t.prune(), 0);
    let ids: Vec<&String> = t.state().loops.keys().collect();
    assert_eq!(ids, ["b2"]);
    assert_eq!(t.report(None).pruned, 1);
    assert_eq!(
        loops::feed(&mut t, at(2), "super", "[WO:a1] [from super] Again — go"),
        0
    );
    assert!(t.state().rejected.last().unwrap().reason.contains("pruned"));
    // Saved and restored, the pruned ids come along.
    let again =
        loops::restore(serde_json::from_str(&serde_json::to_string(t.state()).unwrap()).unwrap())
            .unwrap();
    assert_eq!(again.report(None).pruned, 1);
}

/// P284: pruning used to keep every rejected event, so junk grew a saved
/// state without bound; `prune_rejected` drops them and the report counts
/// them, across a save and restore.
#[test]
fn rejected_events_are_pruned_and_counted() {
    let mut t = loops::tracker(loops::default_config()).unwrap();
    for i in 0..1000 {
        loops::feed(
            &mut t,
            at(0),
            "x",
            &format!("[RESULT j{i}] OK nothing open"),
        );
    }
    let saved = serde_json::to_string(t.state()).unwrap().len();
    assert_eq!(t.report(None).rejected.len(), 1000);
    assert_eq!(t.prune_rejected(), 1000);
    assert_eq!(t.prune_rejected(), 0);
    let report = t.report(None);
    assert_eq!((report.rejected.len(), report.rejected_pruned), (0, 1000));
    let state = serde_json::to_string(t.state()).unwrap();
    assert!(state.len() * 50 < saved, "{} of {saved} bytes", state.len());
    let again = loops::restore(serde_json::from_str(&state).unwrap()).unwrap();
    assert_eq!(again.report(None).rejected_pruned, 1000);
    // A state saved before the count existed restores with none dropped.
    let mut old: serde_json::Value = serde_json::from_str(&state).unwrap();
    old.as_object_mut().unwrap().remove("rejected_pruned");
    let old = loops::restore(serde_json::from_value(old).unwrap()).unwrap();
    assert_eq!(old.report(None).rejected_pruned, 0);
}

/// The shapes of a work order whose own body holds its replies or a call
/// (issue: a work order closes its own loop), each one message.
const REPLIES_IN_THE_BODY: [&str; 4] = [
    "[WO:7f] [from super] Audit — check the endpoints.\n\nIf nothing needs doing, reply:\n\n[NO-ACTION 7f] nothing to do",
    "[WO:7f] [from super] Audit — check the endpoints.\n\n[ACK:7f]\n\n[CLAIM 7f]\n\n[RESULT 7f] OK done\n",
    "[WO:7f] [from super] Audit — check the endpoints.\n\n[DECLINE 7f] busy",
    "[WO:7f] [from super] Audit — check the endpoints.\n\n[TOOL followup.create {\"in_m\": 5}]\n\n[NUDGE 7f] [nudge 3/3] Deadline 2026-12-01T09:30Z",
];

#[test]
fn a_work_order_with_replies_in_its_body_opens_its_loop_and_leaves_it_open() {
    for text in REPLIES_IN_THE_BODY {
        let mut t = loops::tracker(loops::default_config()).unwrap();
        assert_eq!(loops::feed(&mut t, at(0), "super", text), 1, "{text:?}");
        let l = &t.state().loops["7f"];
        assert_eq!(
            (l.state.as_str(), l.closed, l.nudges, l.history.len()),
            (MACHINE.initial, false, 0, 1),
            "{text:?}"
        );
        // The scanner reads the message as parse does: one work order, its
        // body everything after the dash (P196).
        let found = agent_sentences::scan::scan(text);
        assert_eq!(found.len(), 1, "{text:?}");
        let agent_sentences::scan::Item::Sentence { value } = &found[0].item else {
            panic!("{text:?}: not a sentence");
        };
        assert_eq!(
            *value,
            agent_sentences::Sentence::parse(text).unwrap(),
            "{text:?}"
        );
        assert_eq!(found[0].span, 0..text.len());
    }
}

#[test]
fn a_message_never_moves_the_loop_it_opens() {
    // Events built by hand, as a caller of `Tracker::feed` may pass them.
    for structure in ["ack", "decline", "no_action", "nudge"] {
        let mut t = loops::tracker(loops::default_config()).unwrap();
        let open_and_move = [event("work_order", "7f"), event(structure, "7f")];
        assert_eq!(t.feed(at(0), "super", &open_and_move), 1, "{structure}");
        assert_eq!(t.state().loops["7f"].state, MACHINE.initial);
        assert!(
            t.state().rejected[0]
                .reason
                .contains("opened by this message"),
            "{:?}",
            t.state().rejected
        );
        // The next message moves it.
        assert_eq!(
            t.feed(at(1), "646", &[event(structure, "7f")]),
            1,
            "{structure}"
        );
    }
}

#[test]
fn a_result_summary_is_read_alike_by_scan_and_parse() {
    // The summary runs to the next `[RESULT ` (its runs_until), past its
    // paragraph, in both (P196): the call and the no-action are its text.
    let text =
        "[RESULT a1] OK done\n\n[TOOL followup.create {\"in_m\": 5}]\n\n[NO-ACTION a1] nothing";
    let found = agent_sentences::scan::scan(text);
    assert_eq!(found.len(), 1, "{found:?}");
    let agent_sentences::scan::Item::Sentence { value } = &found[0].item else {
        panic!("not a sentence: {found:?}");
    };
    assert_eq!(*value, agent_sentences::Sentence::parse(text).unwrap());
    let mut t = loops::tracker(loops::default_config()).unwrap();
    loops::feed(&mut t, at(0), "super", "[WO:a1] [from super] Audit — go");
    // Only the result is an event (and it does not fit an open loop).
    assert_eq!(loops::feed(&mut t, at(1), "646", text), 0);
    let last = t.state().rejected.last().unwrap();
    assert_eq!(last.structure.as_deref(), Some("result"));
    assert_eq!(t.state().loops["a1"].state, MACHINE.initial);
}
