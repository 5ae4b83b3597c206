//! `box-docs loops`: a log of messages as JSON Lines read into loops, bad
//! lines named, the clock and the pruning, and what the text output escapes.

mod common;

use common::{run, run_with};
use serde_json::json;

#[test]
fn loops_reads_json_lines_and_names_bad_lines() {
    let log = concat!(
        r#"{"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:7f] [from super] Audit — go"}"#,
        "\n",
        r#"{"at": "2026-12-01T09:01:00Z", "from": "646", "text": "[ACK:7f] [from 646] [CLAIM 7f]"}"#,
        "\n{\"at\": \"later\", \"from\": \"x\", \"text\": \"[CLAIM 7f]\"}\n",
        r#"{"from": "x", "text": "no time"}"#,
        "\n\n",
        r#"{"at": "2026-12-01T09:02:00Z", "from": "777", "text": "[RESULT 7f] OK mine"}"#,
        "\n",
    );
    let r = run_with(
        &["loops", "--json", "--at", "2026-12-01T09:30:00Z", "-"],
        Some(log.as_bytes()),
    );
    // A line that is not a message: named on stderr, in `rejected`, the rest still read (exit 1).
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("line 3: not a message") && r.stderr.contains("line 4: not a message"),
        "{}",
        r.stderr
    );
    let v = r.json();
    assert_eq!(v["loops"][0]["id"], "7f");
    assert_eq!(
        (
            v["loops"][0]["state"].as_str(),
            v["loops"][0]["owner"].as_str()
        ),
        (Some("claimed"), Some("646"))
    );
    let lines: Vec<u64> = v["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 4, 6]);
    assert_eq!(
        v["rejected"][2]["reason"],
        "loop `7f` is claimed by `646`, not by `777`"
    );
    assert_eq!(
        v["due"],
        json!([{ "id": "7f", "sentence": "[NUDGE 7f] [nudge 1/3] Deadline 2026-12-01T09:30Z", "breached": false }])
    );
    let keys: Vec<&str> = v["loops"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "state",
            "closed",
            "opened_at",
            "closed_at",
            "owner",
            "nudges",
            "deadline",
            "history"
        ]
    );
    // Text output; a good log exits 0; a bad --at is a usage error.
    let good: String = log.lines().take(2).map(|l| format!("{l}\n")).collect();
    let r = run_with(&["loops", "-"], Some(good.as_bytes()));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("LOOP") && r.stdout.contains("7f") && r.stdout.contains("claimed"),
        "{}",
        r.stdout
    );
    let r = run_with(&["loops", "--at", "noon", "-"], Some(good.as_bytes()));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--at noon: not an RFC 3339 time"),
        "{}",
        r.stderr
    );
    let r = run(&["loops", "/no/such/file.jsonl"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot read /no/such/file.jsonl"),
        "{}",
        r.stderr
    );
}

#[test]
fn loops_a_future_dated_rejected_line_is_named_and_does_not_stop_the_clock() {
    let log = concat!(
        r#"{"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:7f] [from super] Audit — go"}"#,
        "\n",
        r#"{"at": "2099-01-01T00:00:00Z", "from": "x", "text": "[RESULT 7f] OK done"}"#,
        "\n",
        r#"{"at": "2099-01-01T00:00:00Z", "from": "x", "text": "nothing to track"}"#,
        "\n",
        r#"{"at": "2026-12-01T09:01:00Z", "from": "646", "text": "[ACK:7f] [from 646]"}"#,
        "\n",
    );
    let r = run_with(&["loops", "--json", "-"], Some(log.as_bytes()));
    // The rejected event is named on stderr and the exit status says so.
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "line 2 (7f): `result` moves a loop from `running` or `claimed` to `resolved`, not from `open`\n"
    );
    let v = r.json();
    assert_eq!(v["loops"][0]["state"], "acknowledged");
    assert_eq!(v["rejected"].as_array().unwrap().len(), 1);
}

#[test]
fn loops_a_bad_byte_is_a_bad_line() {
    let mut log = Vec::new();
    log.extend_from_slice(
        br#"{"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:7f] [from super] Audit"#,
    );
    log.extend_from_slice(" — go\"}\n".as_bytes());
    let bad: &[u8] = b"{\"at\": \"2026-12-01T09:00:30Z\", \"from\": \"x\", \"text\": \"\xff\"}\r\n";
    let offset = bad.iter().position(|&b| b == 0xff).unwrap();
    log.extend_from_slice(bad);
    log.extend_from_slice(
        br#"{"at": "2026-12-01T09:01:00Z", "from": "646", "text": "[ACK:7f] [from 646]"}"#,
    );
    let r = run_with(&["loops", "--json", "-"], Some(&log));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        format!("line 2: not UTF-8 (invalid byte at offset {offset} of the line)\n")
    );
    assert_eq!(r.json()["loops"][0]["state"], "acknowledged");
}

#[test]
fn loops_reads_400_kb_of_bad_lines_once_each() {
    // 400 KB of lines that are not JSON; each is named once, in order.
    let lines = 400 * 1024 / 2;
    let log = "x\n".repeat(lines);
    let r = run_with(&["loops", "--json", "-"], Some(log.as_bytes()));
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr.lines().count(), lines);
    assert!(r
        .stderr
        .lines()
        .last()
        .unwrap()
        .starts_with(&format!("line {lines}: not a message")));
    let v = r.json();
    assert_eq!(v["rejected"].as_array().unwrap().len(), lines);
}

#[test]
fn loops_prune_drops_closed_loops_and_counts_them() {
    let log = concat!(
        r#"{"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:a1] [from super] One — go"}"#,
        "\n",
        r#"{"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:b2] [from super] Two — go"}"#,
        "\n",
        r#"{"at": "2026-12-01T09:01:00Z", "from": "646", "text": "[DECLINE a1] busy"}"#,
        "\n",
    );
    let r = run_with(&["loops", "--json", "--prune", "-"], Some(log.as_bytes()));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(
        (v["loops"].as_array().unwrap().len(), &v["pruned"]),
        (1, &json!(1))
    );
    assert_eq!(v["loops"][0]["id"], "b2");
    let r = run_with(&["loops", "--prune", "-"], Some(log.as_bytes()));
    assert!(
        r.stdout.contains("pruned 1 closed loop(s)\n"),
        "{}",
        r.stdout
    );
    let r = run_with(&["loops", "--json", "-"], Some(log.as_bytes()));
    assert_eq!(
        (
            r.json()["loops"].as_array().unwrap().len(),
            &r.json()["pruned"]
        ),
        (2, &json!(0))
    );
}

#[test]
fn loops_text_escapes_a_sender_the_terminal_would_act_on() {
    // A sender is any JSON string: an escape sequence or a line break in one
    // used to reach the terminal raw, in the OWNER column and in the reasons.
    let who = "646\u{1b}[2J\nfake row";
    let log = [
        serde_json::json!({"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:7f] [from super] Audit — go"}),
        serde_json::json!({"at": "2026-12-01T09:01:00Z", "from": who, "text": "[ACK:7f] [from 646]"}),
        serde_json::json!({"at": "2026-12-01T09:01:00Z", "from": who, "text": "[CLAIM 7f]"}),
        serde_json::json!({"at": "2026-12-01T09:02:00Z", "from": "777\u{9b}", "text": "[RESULT 7f] OK mine"}),
    ]
    .map(|m| m.to_string())
    .join("\n");
    let r = run_with(&["loops", "-"], Some(log.as_bytes()));
    assert_eq!(r.code, 1, "{}", r.stderr);
    for text in [&r.stdout, &r.stderr] {
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
    }
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stdout);
    assert!(
        r.stdout.contains(r#""646\u001b[2J\nfake row""#),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stderr,
        "line 4 (7f): \"loop `7f` is claimed by `646\\u001b[2J\\nfake row`, not by `777\\u009b`\"\n"
    );
    // JSON keeps the sender exactly.
    let r = run_with(&["loops", "--json", "-"], Some(log.as_bytes()));
    assert_eq!(r.json()["loops"][0]["owner"], who);
    // P283: every format character, by its Unicode category, not a list:
    // the Arabic letter mark, the soft hyphen, the Mongolian vowel separator
    // and tag characters used to be printed raw.
    let who = "6\u{61c}4\u{ad}6\u{180e}x\u{e0041}\u{e007f}";
    let log = [
        serde_json::json!({"at": "2026-12-01T09:00:00Z", "from": "super", "text": "[WO:7f] [from super] Audit — go"}),
        serde_json::json!({"at": "2026-12-01T09:01:00Z", "from": who, "text": "[ACK:7f] [from 646]"}),
        serde_json::json!({"at": "2026-12-01T09:01:00Z", "from": who, "text": "[CLAIM 7f]"}),
    ]
    .map(|m| m.to_string())
    .join("\n");
    let r = run_with(&["loops", "-"], Some(log.as_bytes()));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert!(
        r.stdout
            .contains(r#""6\u061c4\u00ad6\u180ex\udb40\udc41\udb40\udc7f""#),
        "{}",
        r.stdout
    );
    for c in ['\u{61c}', '\u{ad}', '\u{180e}', '\u{e0041}'] {
        assert!(!r.stdout.contains(c), "{c:?} raw in {}", r.stdout);
    }
}

#[test]
fn loops_passes_over_a_byte_order_mark_at_the_start() {
    // Line 1 after a UTF-8 byte order mark used to be "not a message".
    let log = "\u{feff}{\"at\": \"2026-12-01T09:00:00Z\", \"from\": \"super\", \"text\": \"[WO:7f] [from super] Audit — go\"}\n";
    let r = run_with(&["loops", "--json", "-"], Some(log.as_bytes()));
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{}", r.stderr);
    assert_eq!(r.json()["loops"][0]["id"], "7f");
}
