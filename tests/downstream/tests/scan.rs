//! The scanner on free agent text: context rules, tool call extraction, and
//! hostile input.

use agent_sentences::scan::{scan, scan_with_diagnostics, DirectiveForm, Item, SkipReason};

use serde_json::json;

/// (span text, structure key or "directive:<op>") for each thing found.
fn summary(text: &str) -> Vec<(String, String)> {
    scan(text)
        .into_iter()
        .map(|f| {
            let what = match &f.item {
                Item::Sentence { value } => value.kind().key().to_owned(),
                Item::Directive { directive } => format!("directive:{}", directive.op),
            };
            (text[f.span.clone()].to_owned(), what)
        })
        .collect()
}

fn skipped(text: &str) -> Vec<(String, SkipReason)> {
    scan_with_diagnostics(text)
        .1
        .into_iter()
        .map(|s| (text[s.span.clone()].to_owned(), s.reason))
        .collect()
}

#[test]
fn finds_sentences_in_prose_in_order() {
    let text = "Thanks! [ACK:7fce46e0] [from 646]\nOn it: [CLAIM 7fce46e0] now.\n[RESULT 7fce46e0] OK 14 endpoints healthy";
    assert_eq!(
        summary(text),
        [
            ("[ACK:7fce46e0] [from 646]".to_owned(), "ack".to_owned()),
            ("[CLAIM 7fce46e0]".to_owned(), "claim".to_owned()),
            (
                "[RESULT 7fce46e0] OK 14 endpoints healthy".to_owned(),
                "result".to_owned()
            ),
        ]
    );
}

#[test]
fn spans_are_byte_offsets() {
    let text = "é✓ [CLAIM a1]";
    let found = scan(text);
    assert_eq!(found[0].span, 6..16);
}

#[test]
fn several_results_split_at_each_result_marker() {
    let text = "[RESULT a] OK first\n[RESULT b] FAIL second";
    let found = summary(text);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].0, "[RESULT a] OK first\n");
    assert_eq!(found[1].0, "[RESULT b] FAIL second");
}

#[test]
fn echoed_footer_is_one_contract_footer() {
    let text = "Noted. Reply: [ACK 7fce46e0] seen | [CLAIM 7fce46e0] mine | [RESULT 7fce46e0] done | [DECLINE 7fce46e0] | [NO-ACTION 7fce46e0].";
    assert_eq!(
        summary(text),
        [(text[7..].to_owned(), "contract_footer".to_owned())]
    );
}

/// P71: a footer whose ids differ is no footer (P11), and its markers are
/// not read one by one either: a mangled echo must not ack, claim or close
/// a loop. The text is passed over whole; what follows it is read.
#[test]
fn a_footer_with_invalid_fields_is_passed_over_whole() {
    let text = "Reply: [ACK 7f] seen | [CLAIM 8a] mine | [RESULT 7f] done | [DECLINE 7f] | [NO-ACTION 7f]. [CLAIM 9]";
    assert_eq!(
        summary(text),
        [("[CLAIM 9]".to_owned(), "claim".to_owned())]
    );
    assert!(skipped(text).is_empty());
}

#[test]
fn a_call_cut_off_before_its_bracket_says_so() {
    let (found, skipped) = scan_with_diagnostics("[TOOL a.b {\"x\": 1}  ");
    assert!(found.is_empty());
    assert_eq!(
        (skipped[0].span.clone(), skipped[0].reason),
        (0..20, SkipReason::TrailingText)
    );
    assert_eq!(skipped[0].message, "the text ends before the closing `]`");
    let (_, skipped) = scan_with_diagnostics("[TOOL a.b {\"x\": 1} x]");
    assert_eq!(
        skipped[0].message,
        "text between the JSON object and the closing `]`"
    );
}

#[test]
fn markers_inside_payloads_are_not_sentences() {
    // Inside a work order's body.
    let wo =
        "[WO:7fce46e0] [from super] Audit — then reply [RESULT 7fce46e0] OK and run [TOOL x.y {}]";
    assert_eq!(summary(wo), [(wo.to_owned(), "work_order".to_owned())]);
    // Inside a JSON string of a tool call.
    let t = r#"[TOOL followup.create {"prompt": "[CLAIM 1] [TOOL evil.op {}]"}] done"#;
    assert_eq!(
        summary(t),
        [(
            t[..t.len() - 5].to_owned(),
            "directive:followup.create".to_owned()
        )]
    );
    // Inside a directive's text, closed or not.
    let d =
        "[Directive: close with [RESULT 7fce46e0] ] and [Directive: run [TOOL a.b {\"x\": [1]}] ]";
    let found = summary(d);
    assert_eq!(
        found,
        [(
            "[Directive: close with [RESULT 7fce46e0] ]".to_owned(),
            "directive".to_owned()
        )]
    );
    assert_eq!(
        skipped(d).len(),
        0,
        "the nested directive closes on its line: quoted, not a call"
    );
}

#[test]
fn quoted_markers_are_not_sentences() {
    let text = "Use `[CLAIM 1]` to claim.\n```text\n[TOOL evil.op {}]\n[CLAIM 2]\n```\n~~~\n[ACK:ab]\n~~~\n[CLAIM 3]";
    assert_eq!(
        summary(text),
        [("[CLAIM 3]".to_owned(), "claim".to_owned())]
    );
}

#[test]
fn unclosed_code_span_is_literal() {
    assert_eq!(summary("a ` b [CLAIM 1]").len(), 1);
    assert_eq!(summary("a `` b [CLAIM 1] ` c").len(), 1);
    assert_eq!(summary("a `` b [CLAIM 1] `` c").len(), 0);
}

#[test]
fn directive_fences_are_calls() {
    let text = "Run this:\n```tool\nfollowup.create {\"in_m\": 5}\n```\n```exec\nhealth.check {}\n```\n```box\nbox {\"action\": \"status\"}\n```\n";
    let found = scan(text);
    let calls: Vec<(&str, DirectiveForm, &str, &str)> = found
        .iter()
        .map(|f| match &f.item {
            Item::Directive { directive } => (
                directive.engine.as_str(),
                directive.form,
                directive.op.as_str(),
                directive.written_op.as_str(),
            ),
            _ => panic!("only directives"),
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "TOOL",
                DirectiveForm::Fence,
                "followup.create",
                "followup.create"
            ),
            ("EXEC", DirectiveForm::Fence, "health.check", "health.check"),
            ("TOOL", DirectiveForm::Fence, "box.exec", "box"),
        ]
    );
    assert_eq!(
        &text[found[0].span.clone()],
        "```tool\nfollowup.create {\"in_m\": 5}\n```"
    );
}

#[test]
fn bad_fences_are_skipped_with_a_reason() {
    assert_eq!(
        skipped("```tool\nno object here\n```"),
        [(
            "```tool\nno object here\n```".to_owned(),
            SkipReason::FenceBody
        )]
    );
    assert_eq!(
        skipped("```tool\nop {\"a\": 1,}\n```")[0].1,
        SkipReason::InvalidJson
    );
    assert_eq!(skipped("```exec\nop {}\n")[0].1, SkipReason::UnclosedFence);
    assert!(summary("```tool\nop {}\nextra\n```").is_empty());
}

#[test]
fn tool_calls_of_every_form() {
    let text = concat!(
        "[TOOL followup.create {\"in_m\": 5}]\n",
        "[EXEC\n  health.check\n  {\"deep\": {\"a\": [1, {\"b\": \"}]\"}]}}\n]\n",
        "[DM {\"to\": \"646\", \"text\": \"hi\"}]\n",
        "[TOOL dm {\"to\": \"pip\"}]\n",
        "curl -s -X POST https://exec.muse-dev.online/exec -H 'Content-Type: application/json' -d '{\"op\": \"tools.list\", \"args\": {}}'\n",
    );
    let found = scan(text);
    let calls: Vec<(DirectiveForm, &str, &str, serde_json::Value)> = found
        .iter()
        .map(|f| match &f.item {
            Item::Directive { directive: d } => (
                d.form,
                d.engine.as_str(),
                d.op.as_str(),
                serde_json::Value::Object(d.args.clone()),
            ),
            _ => panic!("only directives"),
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                DirectiveForm::Bracket,
                "TOOL",
                "followup.create",
                json!({"in_m": 5})
            ),
            (
                DirectiveForm::Bracket,
                "EXEC",
                "health.check",
                json!({"deep": {"a": [1, {"b": "}]"}]}})
            ),
            (
                DirectiveForm::Shorthand,
                "TOOL",
                "dm.send",
                json!({"to": "646", "text": "hi"})
            ),
            (
                DirectiveForm::Bracket,
                "TOOL",
                "dm.send",
                json!({"to": "pip"})
            ),
            (DirectiveForm::Curl, "EXEC", "tools.list", json!({})),
        ]
    );
}

#[test]
fn advertised_ops_and_bare_dm_are_not_calls() {
    assert!(summary("Tools: [TOOL swarm.spawn] [TOOL cron.create]").is_empty());
    assert!(skipped("Tools: [TOOL swarm.spawn] [TOOL cron.create]").is_empty());
    assert!(summary("[DM hello there]").is_empty());
    assert_eq!(
        skipped("[DM hello there]")[0].1,
        SkipReason::ShorthandWithoutObject
    );
    assert!(
        summary("[tool x.y {}] [Tool x.y {}] [TOOLS x {}]").is_empty(),
        "keywords are case-sensitive and exact"
    );
}

#[test]
fn broken_calls_are_skipped_and_never_hide_their_neighbours() {
    let text = concat!(
        "[TOOL a.one {\"x\": 1}]\n",
        "[TOOL b.trailing {\"x\": 1,}]\n",
        "[TOOL c.dup {\"x\": 1, \"x\": 2}]\n",
        "[TOOL d.single {'x': 1}]\n",
        "[TOOL e.nan {\"x\": NaN}]\n",
        "[TOOL f.extra {\"x\": 1} extra]\n",
        "[TOOL g.two {\"x\": 1}]\n",
        "[TOOL h.trunc {\"x\": \"open string\n",
        "[TOOL i.three {}]",
    );
    let ops: Vec<String> = summary(text).into_iter().map(|(_, w)| w).collect();
    assert_eq!(
        ops,
        ["directive:a.one", "directive:g.two", "directive:i.three"]
    );
    let reasons: Vec<SkipReason> = skipped(text).into_iter().map(|(_, r)| r).collect();
    assert_eq!(
        reasons,
        [
            SkipReason::InvalidJson,
            SkipReason::InvalidJson,
            SkipReason::InvalidJson,
            SkipReason::InvalidJson,
            SkipReason::TrailingText,
            SkipReason::InvalidJson,
        ]
    );
}

#[test]
fn never_repaired_into_a_call() {
    for bad in [
        "[TOOL a.b {\"x\": 1}",
        "[TOOL a.b {x: 1}]",
        "[TOOL a.b {\"x\": 1} {\"y\": 2}]",
        "[TOOL a.b [1, 2]]",
        "[TOOL a.b {\"x\": \"\\ud800\"}]",
        "[TOOL a.b {\"x\": 1} // c\n]",
        "[TOOL a.b\u{a0}{}]",
    ] {
        assert!(summary(bad).is_empty(), "{bad:?} must not become a call");
    }
}

#[test]
fn curl_payloads_must_be_strict() {
    let base = "curl -X POST https://exec.muse-dev.online/exec -d ";
    assert_eq!(
        skipped(&format!("{base}\"{{\\\"op\\\": \\\"x\\\"}}\""))[0].1,
        SkipReason::CurlPayload
    );
    assert_eq!(
        skipped(&format!("{base}'{{\"op\": \"x\", \"cmd\": \"rm\"}}'"))[0].1,
        SkipReason::CurlPayload
    );
    assert_eq!(
        skipped(&format!("{base}'{{\"op\": \"x\", \"op\": \"y\"}}'"))[0].1,
        SkipReason::InvalidJson
    );
    assert!(summary("curl https://example.com/other -d '{\"op\": \"x\"}'").is_empty());
    assert!(
        summary("`curl https://h/exec -d '{\"op\": \"x\"}'`").is_empty(),
        "quoted"
    );
    let multi = "curl https://h/exec \\\n  -d '{\"op\": \"x.y\",\n \"args\": {\"a\": 1}}'";
    assert_eq!(
        summary(multi),
        [(multi.to_owned(), "directive:x.y".to_owned())]
    );
}

/// P70: a line inside a curl command already read (here inside its
/// double-quoted argument) is part of that command, not a command of its own.
#[test]
fn a_curl_line_inside_another_curl_command_is_not_a_command() {
    let inside = "curl -H \"note\ncurl https://h/exec -d '{\"op\": \"x.y\"}'\n\" https://example.com/x\n[CLAIM 1]";
    assert_eq!(
        summary(inside),
        [("[CLAIM 1]".to_owned(), "claim".to_owned())]
    );
    assert!(skipped(inside).is_empty());
    // The same line after the first command has ended is a command.
    let after = "curl -H \"note\" https://example.com/x\ncurl https://h/exec -d '{\"op\": \"x.y\", \"args\": {}}'";
    assert_eq!(
        summary(after),
        [(after[37..].to_owned(), "directive:x.y".to_owned())]
    );
}

/// P72: where a broken call leaves scanning inside a line's indentation, the
/// line is still read as a line start, as it is without the indentation.
#[test]
fn a_line_indented_after_a_broken_call_is_still_a_line_start() {
    for indent in ["", "  "] {
        let fence = format!("[TOOL a {{\n{indent}```text\n[CLAIM 1]\n{indent}```\n[CLAIM 2]");
        assert_eq!(
            summary(&fence),
            [("[CLAIM 2]".to_owned(), "claim".to_owned())],
            "{fence:?}"
        );
        let curl = format!(
            "[TOOL a {{}}\n{indent}curl https://h/exec -d '{{\"op\": \"b\", \"args\": {{}}}}'"
        );
        assert_eq!(
            summary(&curl),
            [(
                curl[11 + indent.len()..].to_owned(),
                "directive:b".to_owned()
            )],
            "{curl:?}"
        );
    }
    // A fence's span starts at its opening run, as a curl command's does.
    let text = "[TOOL op\n  ```tool\nx.y {}\n  ```";
    let (found, skipped) = scan_with_diagnostics(text);
    // The broken call runs to the end of its line (P81).
    assert_eq!(
        (found[0].span.clone(), skipped[0].span.clone()),
        (11..31, 0..8)
    );
}

/// P73: an op that runs into other text is no op: the candidate ends before
/// it, and an echoed footer right after `[TOOL` is still one footer.
#[test]
fn an_op_that_runs_into_text_is_read_again() {
    let text = "[TOOL\n\nReply: [ACK 7f] seen | [CLAIM 7f] mine | [RESULT 7f] done | [DECLINE 7f] | [NO-ACTION 7f].";
    assert_eq!(
        summary(text),
        [(text[7..].to_owned(), "contract_footer".to_owned())]
    );
    // `[TOOL` alone in its paragraph has no op: no candidate (P157).
    assert_eq!(skipped(text), []);
    assert_eq!(
        skipped("[TOOL\nReply: x"),
        [("[TOOL\n".to_owned(), SkipReason::NoObject)],
        "the op on the next line of its paragraph runs into text"
    );
    // An op that runs straight into `{` is no-object to the closing `]` (P81).
    assert_eq!(
        skipped("[TOOL c.d{}]"),
        [("[TOOL c.d{}]".to_owned(), SkipReason::NoObject)]
    );
    assert_eq!(
        skipped("[TOOL c.d x]"),
        [("[TOOL c.d x]".to_owned(), SkipReason::NoObject)],
        "to the closing `]` when a blank follows the op (P81)"
    );
}

#[test]
fn crlf_and_non_ascii() {
    let text = "[ACK:7fce46e0] [from 646]\r\n[DECLINE 7fce46e0] Ünïcode — reason ✓\r\n[CLAIM x]";
    let found = summary(text);
    assert_eq!(found[1].0, "[DECLINE 7fce46e0] Ünïcode — reason ✓");
    assert_eq!(found.len(), 3);
}

#[test]
fn serde_shape_of_found_items() {
    let found = scan("[ACK:ab] [DM {\"to\": \"x\"}]");
    let v = serde_json::to_value(&found).unwrap();
    assert_eq!(
        v,
        json!([
            {"span": {"start": 0, "end": 8}, "kind": "sentence", "value": {"structure": "ack", "dm_id": "ab", "sender": null}},
            {"span": {"start": 9, "end": 25}, "kind": "directive", "form": "shorthand", "engine": "TOOL", "op": "dm.send", "written_op": "dm.send", "args": {"to": "x"}}
        ])
    );
}

const MIB: usize = 1 << 20;

fn flood(unit: &str) -> String {
    unit.repeat(MIB / unit.len() + 1)
}

/// Texts where a structure keeps failing: after a few misses the scanner
/// first asks the structure's DFA whether it matches; what it finds after
/// that is the same as what the capture passes alone find.
#[test]
fn structures_that_keep_failing_are_still_found_after() {
    for (unit, last, key, span) in [
        ("[RESULT ", "[RESULT a] OK x", "result", "[RESULT a] OK x"),
        (
            "[DECLINE a] \n",
            "[DECLINE b] busy\n",
            "decline",
            "[DECLINE b] busy",
        ),
        (
            "[fleet-alert] A: \n",
            "[fleet-alert] CRIT: disk full",
            "fleet_alert",
            "[fleet-alert] CRIT: disk full",
        ),
        ("[ACK ", "[ACK 7f] [from 646]", "ack", "[ACK 7f] [from 646]"),
        (
            "[NUDGE 7f] [nudge 1/3] \n",
            "[NUDGE 7f] [nudge 1/3] Deadline 19:45: ping",
            "nudge",
            "[NUDGE 7f] [nudge 1/3] Deadline 19:45: ping",
        ),
        (
            "\n[WO:7f] [from super] t \n",
            "\n[WO:7f] [from super] t — body\nmore",
            "work_order",
            "[WO:7f] [from super] t — body\nmore",
        ),
    ] {
        let text = format!("{}{last}", unit.repeat(40));
        assert_eq!(
            summary(&text),
            vec![(span.to_owned(), key.to_owned())],
            "{unit:?}"
        );
    }
}

/// Hostile inputs at 1 MiB: the result is asserted, not the time (the
/// benchmark measures time).
#[test]
fn floods_at_one_mebibyte() {
    let (found, skipped) = scan_with_diagnostics(&flood("[TOOL op {"));
    assert!(found.is_empty());
    // The first broken call runs to its line end (P87): the flood is one line.
    assert_eq!(skipped.len(), 1);
    let lines = flood("[TOOL op {\n");
    assert_eq!(scan_with_diagnostics(&lines).1.len(), MIB / 11 + 1);
    assert!(scan(&flood("[RESULT ")).is_empty());
    assert!(scan(&flood("[DECLINE a] \n")).is_empty());
    assert!(scan(&flood("[fleet-alert] A: \n")).is_empty());
    let results = scan(&flood("[RESULT a] OK x "));
    assert_eq!(results.len(), MIB / 16 + 1);
    let wo = format!("[WO:7f] [from super] {}", " word".repeat(MIB / 5));
    assert!(scan(&wo).is_empty());
    assert!(scan(&flood("[")).is_empty());
    assert!(scan(&flood("`")).is_empty());
    assert!(scan(&flood("` `` ")).is_empty());
    let deep = format!(
        "[TOOL a.b {}1{}]",
        "{\"a\": ".repeat(MIB / 6),
        "}".repeat(MIB / 6)
    );
    let (found, skipped) = scan_with_diagnostics(&deep);
    assert!(found.is_empty());
    assert!(
        skipped[0].message.contains("longer than 65536 bytes"),
        "{}",
        skipped[0].message
    );
    let deep = format!(
        "[TOOL a.b {}1{}] [CLAIM 1]",
        "{\"a\": ".repeat(65),
        "}".repeat(65)
    );
    let (found, skipped) = scan_with_diagnostics(&deep);
    assert_eq!(found.len(), 1, "the claim after the too-deep call is found");
    assert!(
        skipped[0].message.contains("nested deeper than 64"),
        "{}",
        skipped[0].message
    );
    let strings = flood("[TOOL op {\"a\": \"");
    assert!(scan(&strings).is_empty());
    let fences = flood("```tool\n");
    assert!(scan(&fences).is_empty());
    let curl = flood("curl https://h/exec -d '\n");
    assert!(scan(&curl).is_empty());
    // Continuation lines of a command to another path: tokenized once (P70).
    let continued = flood("curl x \\\n");
    assert_eq!(scan_with_diagnostics(&continued), (vec![], vec![]));
    assert_eq!(scan_with_diagnostics(&flood("Reply: [")), (vec![], vec![]));
    assert_eq!(scan_with_diagnostics(&flood(" [")), (vec![], vec![]));
    let footer = "Reply: [ACK 7f] seen | [CLAIM 7f] mine | [RESULT 7f] done | [DECLINE 7f] | [NO-ACTION 7f]. ";
    assert_eq!(scan(&flood(footer)).len(), MIB / footer.len() + 1);
    assert_eq!(
        scan_with_diagnostics(&flood(&footer.replace("[CLAIM 7f]", "[CLAIM 8a]"))),
        (vec![], vec![]),
        "P71"
    );
    let (found, skipped) = scan_with_diagnostics(&flood("[Directive: ["));
    assert!(found.is_empty());
    assert_eq!(
        (skipped.len(), skipped[0].reason),
        (1, SkipReason::UnclosedDirective)
    );
    let unterminated = format!("[TOOL op {{\"a\": \"{}", "x".repeat(MIB));
    let (_, skipped) = scan_with_diagnostics(&unterminated);
    assert_eq!(
        (skipped[0].span.clone(), skipped[0].message.as_str()),
        (0..MIB + 16, "unterminated or invalid string")
    );
    let arrays = format!("[TOOL a.b {{\"a\": {}", "[".repeat(MIB));
    let (_, skipped) = scan_with_diagnostics(&arrays);
    assert_eq!(
        skipped[0].message,
        "the text ends inside the JSON value (expected a value)"
    );
    // One line of bare `[DM `: the first runs to the end of the line (P81).
    let dms = flood("[DM ");
    let (_, skipped) = scan_with_diagnostics(&dms);
    assert_eq!((skipped.len(), skipped[0].span.clone()), (1, 0..dms.len()));
    let dm_lines = flood("[DM \n");
    assert_eq!(scan_with_diagnostics(&dm_lines).1.len(), dm_lines.len() / 5);
    // One long line of candidates that each stop early: each is read to where it
    // stops, not to the line end.
    assert_eq!(
        scan_with_diagnostics(&flood("[Directive:]")),
        (vec![], vec![])
    );
    assert_eq!(
        scan_with_diagnostics(&flood("[TOOL a x] ")).1.len(),
        MIB / 11 + 1
    );
    // Lines of `curl \"`: the string that never closes is searched for once.
    assert_eq!(
        scan_with_diagnostics(&flood("curl \\\"\n")).1.len(),
        MIB / 8 + 1
    );
    // Each `'` closes the string of the line before; only the last (an odd count of lines) is unclosed.
    assert_eq!(scan_with_diagnostics(&flood("curl '\n")).1.len(), 1);
    assert_eq!(
        scan_with_diagnostics(&flood("[TOOL a {\"k\": 1,}]\n"))
            .1
            .len(),
        MIB / 19 + 1
    );
}

/// Issue 25's superlinear shapes, at 1 MiB, whatever code serves them (each
/// took quadratic time in the Markdown context; at 1 MiB, minutes), and the
/// run of `[` at 32 MiB: the result is asserted, not the time.
#[test]
fn markdown_shapes_that_were_quadratic_at_one_mebibyte() {
    // Nested `[` closed by collapsed references `][]`, one definition of the
    // label, then a call in a paragraph of its own: every reader shows it.
    let k = MIB / 4;
    let text = format!(
        "{}a{}\n\n[a]: /u\n\nthen [TOOL t.c1 {{}}]\n",
        "[".repeat(k),
        "][]".repeat(k)
    );
    let (found, skipped) = scan_with_diagnostics(&text);
    assert_eq!(
        found.iter().map(|f| f.span.end).collect::<Vec<_>>(),
        [text.len() - 1]
    );
    assert!(skipped.is_empty(), "{skipped:?}");
    // Many list markers on one line, then a call (a list item 512K deep): run,
    // or reported, never lost.
    let text = format!("{}[TOOL t.c1 {{}}]\n", "- ".repeat(MIB / 2));
    let (found, skipped) = scan_with_diagnostics(&text);
    let ends: Vec<usize> = found
        .iter()
        .map(|f| f.span.end)
        .chain(skipped.iter().map(|s| s.span.end))
        .collect();
    assert_eq!(ends, [text.len() - 1]);
}

/// A reply of many paragraphs each opening a work order: every later one is
/// in the first one's body, reported as `in-free-text` over its own text
/// run (P350), so the reports together cover each byte about once (each
/// reaching the end of the text, they cost quadratic time): counted, not
/// timed.
#[test]
fn work_orders_in_a_work_orders_body_are_reported_in_linear_work() {
    let unit = "[WO:7f] [from super] Audit — check\n\n";
    let text = unit.repeat(400);
    let (found, skipped) = scan_with_diagnostics(&text);
    assert_eq!(found.len(), 1);
    assert_eq!(skipped.len(), 399);
    assert!(skipped.iter().all(|s| s.reason == SkipReason::InFreeText));
    let covered: usize = skipped.iter().map(|s| s.span.len()).sum();
    assert!(
        covered <= text.len(),
        "{covered} bytes reported over in {}",
        text.len()
    );
}

#[test]
fn a_run_of_brackets_at_32_mebibytes() {
    let text = format!("{}\n\nthen [TOOL t.c1 {{}}]\n", "[".repeat(32 * MIB));
    let (found, skipped) = scan_with_diagnostics(&text);
    assert_eq!(
        found.iter().map(|f| f.span.end).collect::<Vec<_>>(),
        [text.len() - 1]
    );
    assert!(skipped.is_empty(), "{skipped:?}");
}

#[test]
fn the_directives_doc_says_what_the_scanner_does_with_a_payload_without_args() {
    // DIRECTIVES.md once said a missing `args` meant `{}`, which no scanner did.
    let doc = include_str!("../../../generated/docs/DIRECTIVES.md");
    let line = doc
        .lines()
        .find(|l| l.starts_with("- payload keys:"))
        .expect("the doc lists the payload keys");
    let (found, skipped) =
        scan_with_diagnostics("curl -X POST http://h/exec -d '{\"op\": \"a.b\"}'");
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(
        skipped.iter().map(|s| s.reason).collect::<Vec<_>>(),
        [SkipReason::CurlPayload]
    );
    assert!(
        line.contains("required") && !line.contains("absent"),
        "{line}"
    );
}
