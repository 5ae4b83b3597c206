//! Uses the generated crate's types the way a downstream crate does.

use agent_sentences::*;
use downstream_example::{loop_event, structure_keys, LoopEvent};

#[test]
fn lists_every_structure_of_the_spec_in_spec_order() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schema/structures.json");
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let keys: Vec<&str> = spec["structures"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(structure_keys(), keys);
}

#[test]
fn loop_events_from_replies() {
    assert_eq!(
        loop_event("[ACK:7fce46e0] [from 646]"),
        Some(LoopEvent::Acknowledged("7fce46e0".into()))
    );
    assert_eq!(
        loop_event("[ACK 7fce46e0]"),
        Some(LoopEvent::Acknowledged("7fce46e0".into()))
    );
    assert_eq!(
        loop_event("[CLAIM swarm-99a/1]"),
        Some(LoopEvent::Claimed("swarm-99a/1".into()))
    );
    assert_eq!(
        loop_event("[RESULT 7fce46e0] FAIL disk full"),
        Some(LoopEvent::Closed {
            id: "7fce46e0".into(),
            ok: false
        })
    );
    assert_eq!(
        loop_event("[RESULT 7fce46e0] OKAY-ish, see log"),
        Some(LoopEvent::Closed {
            id: "7fce46e0".into(),
            ok: false
        })
    );
    assert_eq!(
        loop_event("[DECLINE 7fce46e0] out of scope"),
        Some(LoopEvent::Dropped("7fce46e0".into()))
    );
    assert_eq!(
        loop_event("[CLAIM 7fce46e0] mine"),
        None,
        "a claim is the bracket alone"
    );
    assert_eq!(loop_event("[fleet-alert] WARN: disk 91%"), None);
}

#[test]
fn absent_optional_fields_leave_no_stray_text() {
    let ack = Ack {
        dm_id: "7fce46e0".into(),
        sender: None,
    };
    assert_eq!(ack.to_string(), "[ACK:7fce46e0]");
    let r = ResultSentence {
        job_id: "x1".into(),
        status: None,
        summary: "all done".into(),
    };
    assert_eq!(r.to_string(), "[RESULT x1] all done");
    let n = Nudge {
        loop_id: "7f".into(),
        count: 2,
        max_nudges: 3,
        deadline_utc: "19:45 UTC".into(),
        prompt: None,
    };
    assert_eq!(n.to_string(), "[NUDGE 7f] [nudge 2/3] Deadline 19:45 UTC");
    assert_eq!(n.to_string().parse::<Nudge>().unwrap(), n);
}

#[test]
fn typed_fields() {
    let n: Nudge = "[NUDGE 7f] [nudge 12/30] Deadline 2026-11-30T19:45Z: ping"
        .parse()
        .unwrap();
    assert_eq!((n.count, n.max_nudges), (12, 30));
    let j: JobMarker = "[JOB swarm-4a2b/7]".parse().unwrap();
    assert_eq!((j.job_id.as_str(), j.slot), ("swarm-4a2b/7", Some(7)));
    let j: JobMarker = "[JOB ml-646-20261005]".parse().unwrap();
    assert_eq!(j.slot, None);
    let t: ToolCall = r#"[TOOL box.exec {"a": [{"b": 1}], "c": "}]"}]"#.parse().unwrap();
    assert_eq!(t.op, "box.exec");
    assert_eq!(t.args_json["c"], "}]");
    assert_eq!(t.args_json["a"][0]["b"], 1);
    let f: ContractFooter = "Reply: [ACK 42] seen | [CLAIM 42] mine | [RESULT 42] done | [DECLINE 42] | [NO-ACTION 42].".parse().unwrap();
    assert_eq!(f.id, "42");
}

#[test]
fn parse_errors_name_the_structure_and_where_it_stopped() {
    let e = "[WO:7fce46e0] [from super] Audit without a dash"
        .parse::<WorkOrder>()
        .unwrap_err();
    assert_eq!(e.structure, Some("work_order"));
    assert_eq!(
        e.offset,
        "[WO:7fce46e0] [from super] Audit without a dash".len()
    );
    assert_eq!(
        e.to_string(),
        "not a `work_order` sentence: the text stopped fitting at byte 47: expected `—`"
    );

    let e = "[CLAIM 7fce46e0".parse::<Claim>().unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (
            15,
            ParseErrorKind::NoMatch {
                expected: "`]`".into()
            }
        )
    );

    let e = "[DECLINE 7fce46e0] busy".parse::<Claim>().unwrap_err();
    assert_eq!(
        (e.offset, e.kind),
        (
            18,
            ParseErrorKind::NoMatch {
                expected: "the end of the text".into()
            }
        )
    );

    let e = "[ACK 7fce46e0]".parse::<Claim>().unwrap_err();
    assert_eq!(e.to_string(), "not a `claim` sentence: group `verb` at byte 1 is `ACK`, but this structure requires `CLAIM`");

    let e = "Reply: [ACK 42] seen | [CLAIM 43] mine | [RESULT 42] done | [DECLINE 42] | [NO-ACTION 42].".parse::<ContractFooter>().unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::RepeatMismatch {
            field: "id",
            first: "42".into(),
            other: "43".into()
        }
    );
    assert_eq!(e.offset, 30);

    let e = r#"[TOOL a.b {"x": 1, "x": 2}]"#.parse::<ToolCall>().unwrap_err();
    assert!(e.to_string().contains("duplicate key `x`"), "{e}");
    assert_eq!(e.offset, 10);

    let e = r#"[EXEC a.b {"x": 1}]"#.parse::<ToolCall>().unwrap_err();
    assert!(
        matches!(
            e.kind,
            ParseErrorKind::FixedMismatch {
                group: "engine",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn any_sentence_reports_the_closest_structure() {
    let e = "[NUDGE 7f] [nudge 1/3] Deadlin 19:45"
        .parse::<Sentence>()
        .unwrap_err();
    assert_eq!(e.structure, None);
    assert_eq!(e.closest, Some("nudge"));
    assert_eq!(e.offset, 23);
    assert!(
        e.to_string()
            .starts_with("no sentence structure matches (closest: `nudge`)"),
        "{e}"
    );
}

#[test]
fn serde_shape_is_tagged_by_structure() {
    let s: Sentence = "[ACK:7fce46e0]".parse().unwrap();
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"structure": "ack", "dm_id": "7fce46e0", "sender": null})
    );
    let back: Sentence = serde_json::from_value(json).unwrap();
    assert_eq!(back, s);
    let r: Sentence = "[RESULT 7f] SUCCESS ok".parse().unwrap();
    assert_eq!(serde_json::to_value(&r).unwrap()["status"], "SUCCESS");
}

#[test]
fn kind_metadata_comes_from_the_spec() {
    let k = SentenceKind::from_key("work_order").unwrap();
    assert_eq!(k.tag(), "[WO:]");
    assert_eq!(
        k.template(),
        "[WO:{dm_id}] [from {sender}] {title} — {body}"
    );
    assert_eq!(k.fields(), ["dm_id", "sender", "title", "body"]);
    assert_eq!(
        SentenceKind::JobMarker.example_sentence(),
        "[JOB swarm-4a2b/1]"
    );
    assert_eq!(SentenceKind::Decline.pattern_key(), "decline");
    assert_eq!(SentenceKind::Decline.regex_ref(), "verb");
    assert!(patterns::work_order().is_match("x\n[WO:1] [from a] t — b"));
}
