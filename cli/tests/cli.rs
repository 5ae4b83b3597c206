//! Runs the `box-docs` binary on every verb, as text and as JSON, from
//! arguments and from standard input, and on its error paths.

mod common;

use common::{ok, run, run_with};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn schema_entry(file: &str, table: &str, key: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(file);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file[table][key].clone()
}

/// The keys of a spec table, in the spec's order.
fn spec_keys(file: &str, table: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(file);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file[table].as_object().unwrap().keys().cloned().collect()
}

fn structure_keys() -> Vec<String> {
    spec_keys("structures.json", "structures")
}

fn pattern_keys() -> Vec<String> {
    spec_keys("regex_patterns.json", "patterns")
}

/// The line of a `KEY …` listing that is `key`'s.
fn line_of<'a>(lines: &[&'a str], key: &str) -> &'a str {
    lines
        .iter()
        .find(|l| l.split_whitespace().next() == Some(key))
        .unwrap_or_else(|| panic!("no line for `{key}`"))
}

/// The entry of a `--json` listing whose `key` is `key`.
fn entry_of<'a>(list: &'a Value, key: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == key)
        .unwrap_or_else(|| panic!("no entry for `{key}`"))
}

/// The `key`s of a `--json` listing, in order.
fn keys_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap().to_owned())
        .collect()
}

/// The first word of every line after the header line: a listing's keys.
fn first_words_after_header<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    lines[1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect()
}

// ---- sentence ----

#[test]
fn sentence_lists_every_structure_one_per_line() {
    let r = ok(&["sentence"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let listed = first_words_after_header(&lines);
    assert_eq!(
        listed,
        structure_keys(),
        "a header, then one line per structure, in spec order:\n{}",
        r.stdout
    );
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["KEY", "TAG", "PURPOSE"]
    );
    let wo = line_of(&lines, "work_order");
    assert!(wo.starts_with("work_order       [WO:]  "), "{wo}");
    assert!(wo.ends_with("Structured task dispatched between operators or from orchestrator to agent. Initiates a trackable loop."));
    let footer = line_of(&lines, "contract_footer");
    assert!(
        footer.starts_with("contract_footer  Reply: [ACK id] seen ...  Appended to prompts"),
        "{footer}"
    );
    let purpose_column = wo.find("Structured").unwrap();
    assert!(
        lines
            .iter()
            .skip(1)
            .all(|l| l.char_indices().nth(purpose_column).is_some()),
        "purposes are aligned"
    );
}

#[test]
fn sentence_list_as_json() {
    let v = ok(&["sentence", "--json"]).json();
    let list = &v["structures"];
    assert_eq!(keys_of(list), structure_keys());
    assert_eq!(
        entry_of(list, "result"),
        &json!({
            "key": "result",
            "name": "Task Completion Result",
            "tag": "[RESULT ]",
            "description": "Delivers the final output, verdict, or evidence of a completed task and closes the tracked loop."
        })
    );
    assert_eq!(
        run(&["--json", "sentence"]).stdout,
        run(&["sentence", "--json"]).stdout,
        "--json goes anywhere"
    );
}

#[test]
fn sentence_shows_one_structure_in_full() {
    let r = ok(&["sentence", "result"]);
    let expected_head = "\
result: Task Completion Result
  tag        [RESULT ]
  purpose    Delivers the final output, verdict, or evidence of a completed task and closes the tracked loop.
  template   [RESULT {job_id}] {status} {summary}
  example    [RESULT 7fce46e0] OK Audit complete: 14 allowlisted ops confirmed healthy, 0 errors.
  reply      Closes the loop; no further reply required unless sender issues new work order.
  lifecycle  running/claimed -> resolved (closed)
  pattern    result
fields:
  job_id   string                                required  Target task ID.
";
    assert!(r.stdout.starts_with(expected_head), "{}", r.stdout);
    assert!(r.stdout.contains("\n  status   enum (OK|FAIL|DECLINE|SUCCESS|ERROR)  optional  Optional explicit status keyword"));
}

#[test]
fn sentence_shows_bindings_omitted_fields_and_the_sentence_part_of_an_example() {
    assert!(ok(&["sentence", "claim"])
        .stdout
        .contains("\n  pattern    verb, group `verb` = CLAIM\n"));
    let decline = ok(&["sentence", "decline"]).stdout;
    assert!(decline.contains("\n  pattern    decline (the spec's regex_ref is `verb`)\n  binding    The owner's regex_ref is `verb`"));
    let wo = ok(&["sentence", "work_order"]).stdout;
    assert!(
        wo.ends_with("not generated: priority, due (optional; no pattern group captures them)\n"),
        "{wo}"
    );
    let job = ok(&["sentence", "job_marker"]).stdout;
    assert!(job.contains("\n  example    [JOB swarm-4a2b/1] Task for swarm slot 1: Run identity variance audit.\n  sentence   [JOB swarm-4a2b/1]\n"));
    assert!(job.contains("(derived from job_id)"));
}

#[test]
fn sentence_as_json_has_fields_with_types() {
    let v = ok(&["sentence", "result", "--json"]).json();
    assert_eq!(v["key"], "result");
    assert_eq!(v["pattern"], "result");
    assert_eq!(v["binding_note"], Value::Null);
    assert_eq!(v["omitted_fields"], json!([]));
    assert_eq!(
        v["fields"][2],
        json!({
            "name": "status",
            "type": "enum",
            "values": ["OK", "FAIL", "DECLINE", "SUCCESS", "ERROR"],
            "rust_type": "Option<Status>",
            "required": false,
            "description": "Optional explicit status keyword; it must be followed by a space, so `OKAY` is summary text.",
            "groups": ["status"],
            "derived_from": null
        })
    );
    let claim = ok(&["sentence", "claim", "--json"]).json();
    assert_eq!(claim["fixed_groups"], json!({ "verb": "CLAIM" }));
    assert_eq!(claim["regex_ref"], "verb");
}

#[test]
fn unknown_structure_is_a_usage_error_with_a_suggestion() {
    let r = run(&["sentence", "work_ordr"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        format!(
            "error: no structure named `work_ordr`\n  did you mean `work_order`?\n  valid structures: {}\n",
            structure_keys().join(", ")
        )
    );
    let r = run(&["sentence", "verb"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("  note: `verb` is a pattern: see `box-docs regex verb`\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn unknown_name_with_json_is_a_json_error_on_stderr() {
    let r = run(&["sentence", "no-action", "--json"]);
    assert_eq!((r.code, r.stdout.as_str()), (2, ""));
    let e: Value = serde_json::from_str(&r.stderr).unwrap();
    assert_eq!(e["error"]["kind"], "unknown_name");
    assert_eq!(e["error"]["table"], "structures");
    assert_eq!(e["error"]["name"], "no-action");
    assert_eq!(e["error"]["closest"], "no_action");
    assert_eq!(e["error"]["valid"], json!(structure_keys()));
    assert_eq!(e["error"]["message"], "no structure named `no-action`");
}

// ---- regex ----

#[test]
fn regex_lists_the_pattern_directory() {
    let r = ok(&["regex"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let listed = first_words_after_header(&lines);
    assert_eq!(
        listed,
        pattern_keys(),
        "a header, then one line per pattern, in spec order:\n{}",
        r.stdout
    );
    assert_eq!(line_of(&lines, "verb"), "verb             Matches a bare lifecycle verb marker: [ACK|CLAIM|RESULT|DECLINE|NO-ACTION <id>].");
    let v = ok(&["regex", "--json"]).json();
    assert_eq!(keys_of(&v["patterns"]), pattern_keys());
    let verb = entry_of(&v["patterns"], "verb");
    assert_eq!(verb["groups"], json!(["verb", "job_id"]));
    assert_eq!(verb["structures"], json!(["claim"]));
    assert_eq!(
        entry_of(&v["patterns"], "uuid")["structures"],
        json!([]),
        "uuid parses no structure"
    );
}

#[test]
fn regex_shows_one_pattern_in_full() {
    let r = ok(&["regex", "work_order"]);
    assert!(
        r.stdout
            .starts_with("work_order\n  purpose     Parses a work order:"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\n  flags       MULTILINE, DOTALL\n"));
    assert!(r.stdout.contains("\ngroups:\n  wo_id   string  -> dm_id  The unique tracking ID of the work order (lower-case hex and dashes).\n"));
    assert!(
        r.stdout
            .contains("\n  \"[WO:7fce46e0] [from 646] Rotate keys — step 1\\nstep 2 — done\"\n"),
        "multi-line text is quoted"
    );
    assert!(
        r.stdout
            .ends_with("\n  \"[WO:7fce46e0] [from super] Title — \"\n"),
        "trailing space is visible"
    );
    let v = ok(&["regex", "work_order", "--json"]).json();
    assert_eq!(v["key"], "work_order");
    assert_eq!(v["flags"], json!(["MULTILINE", "DOTALL"]));
    assert_eq!(
        v["groups"][0],
        json!({"name": "wo_id", "type": "string", "values": [], "field": "dm_id", "description": "The unique tracking ID of the work order (lower-case hex and dashes)."})
    );
    assert_eq!(
        v["matches"][1],
        json!({"text": "[WO:7fce46e0] [from super] Audit — Check stats", "captures": [
        {"group": "wo_id", "text": "7fce46e0"}, {"group": "sender", "text": "super"},
        {"group": "title", "text": "Audit"}, {"group": "body", "text": "Check stats"}]})
    );
    assert_eq!(v["structures"], json!(["work_order"]));
    assert!(v["source"].as_str().unwrap().starts_with("(?ms)^\\[WO:"));
}

#[test]
fn regex_test_matches_the_whole_text_and_shows_each_group() {
    let r = ok(&[
        "regex",
        "result",
        "--test",
        "[RESULT 7fce46e0] OK Task complete",
    ]);
    assert_eq!(
        r.stdout,
        "match: pattern `result` matches the whole text (bytes 0..34)\n  job_id   7fce46e0\n  status   OK\n  summary  Task complete\n"
    );
    let v = ok(&[
        "regex",
        "work_order",
        "--test",
        "[WO:8a12bc44] [from super] Audit — verify 200",
        "--json",
    ])
    .json();
    assert_eq!(
        v,
        json!({
            "pattern": "work_order", "mode": "full", "matched": true, "span": {"start": 0, "end": 47},
            "groups": {"wo_id": "8a12bc44", "sender": "super", "title": "Audit", "body": "verify 200"},
            "search_span": null
        })
    );
}

#[test]
fn regex_test_shows_groups_that_took_no_part() {
    let r = ok(&["regex", "result", "--test", "[RESULT 7fce46e0] OKAY then"]);
    assert!(
        r.stdout
            .contains("\n  status   (none)\n  summary  OKAY then\n"),
        "{}",
        r.stdout
    );
    let v = ok(&[
        "regex",
        "result",
        "--test",
        "[RESULT 7fce46e0] OKAY then",
        "--json",
    ])
    .json();
    assert_eq!(
        v["groups"],
        json!({"job_id": "7fce46e0", "status": null, "summary": "OKAY then"})
    );
}

#[test]
fn regex_test_without_a_match_exits_1_and_says_where_a_search_finds_it() {
    let r = run(&["regex", "result", "--test", "see [RESULT 7fce46e0] OK done"]);
    assert_eq!((r.code, r.stderr.as_str()), (1, ""));
    assert_eq!(
        r.stdout,
        "no match: pattern `result` does not match the whole text\n  it is found inside the text at bytes 4..29 (use --search)\n"
    );
    let r = run(&[
        "regex",
        "result",
        "--test",
        "see [RESULT 7fce46e0] OK done",
        "--json",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.json(),
        json!({"pattern": "result", "mode": "full", "matched": false, "span": null, "groups": null, "search_span": {"start": 4, "end": 29}})
    );
    let r = run(&["regex", "ack", "--test", "[CLAIM 7fce46e0]"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, "no match: pattern `ack` does not match the whole text\n")
    );
}

#[test]
fn regex_test_search_finds_the_first_match_anywhere() {
    let v = ok(&[
        "regex",
        "result",
        "--test",
        "see [RESULT 7fce46e0] OK done",
        "--search",
        "--json",
    ])
    .json();
    assert_eq!(v["mode"], "search");
    assert_eq!(v["span"], json!({"start": 4, "end": 29}));
    assert_eq!(v["groups"]["summary"], "done");
    let r = run(&["regex", "uuid", "--test", "no id here", "--search"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, "no match: pattern `uuid` is not found in the text\n")
    );
}

#[test]
fn regex_test_reads_standard_input_less_one_line_break() {
    let text =
        b"[WO:7fce46e0] [from 646] Rotate keys \xe2\x80\x94 step 1\nstep 2 \xe2\x80\x94 done\n";
    let r = run_with(
        &["regex", "work_order", "--test", "-", "--json"],
        Some(text),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["groups"]["body"], "step 1\nstep 2 — done");
    let r = run_with(&["regex", "work_order", "--test", "-"], Some(text));
    assert!(
        r.stdout
            .ends_with("\n  body    \"step 1\\nstep 2 — done\"\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn regex_usage_errors_exit_2() {
    let r = run(&["regex", "--test", "x"]);
    assert_eq!(r.code, 2, "--test needs a pattern");
    assert!(r.stderr.contains("<NAME>"), "{}", r.stderr);
    let r = run(&["regex", "claim", "--test", "[CLAIM 7f]"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with("error: no pattern named `claim`\n  note: `claim` is a structure, parsed by pattern `verb`"), "{}", r.stderr);
    assert_eq!(
        run(&["regex", "result", "--search"]).code,
        2,
        "--search needs --test"
    );
}

// ---- parse ----

#[test]
fn parse_shows_every_sentence_and_directive_with_spans() {
    let r = ok(&[
        "parse",
        "[WO:7fce46e0] [from super] Run audit — check endpoints",
    ]);
    assert_eq!(
        r.stdout,
        "bytes 0..56  sentence  work_order\n    dm_id   7fce46e0\n    sender  super\n    title   Run audit\n    body    check endpoints\n1 found\n"
    );
    let r = ok(&[
        "parse",
        "[ACK 7fce46e0] seen. [TOOL followup.create {\"in_m\": 5, \"prompt\": \"check\"}]",
    ]);
    assert_eq!(
        r.stdout,
        "bytes 0..14  sentence  ack\n    dm_id   7fce46e0\n    sender  (none)\n\
         bytes 21..74  directive  followup.create\n    form    bracket\n    engine  TOOL\n    op      followup.create\n    args    {\"in_m\":5,\"prompt\":\"check\"}\n\
         2 found\n"
    );
}

#[test]
fn parse_as_json_serializes_the_scanner_items() {
    let v = ok(&[
        "parse",
        "[RESULT 7fce46e0] OK Verified 14 endpoints",
        "--json",
    ])
    .json();
    assert_eq!(
        v,
        json!({"found": [{"span": {"start": 0, "end": 42}, "kind": "sentence",
            "value": {"structure": "result", "job_id": "7fce46e0", "summary": "Verified 14 endpoints", "status": "OK"}}]})
    );
    let v = ok(&[
        "parse",
        "[DM {\"to\": \"pip\", \"text\": \"hi\"}]",
        "--json",
    ])
    .json();
    assert_eq!(
        v["found"][0],
        json!({"span": {"start": 0, "end": 32}, "kind": "directive", "form": "shorthand", "engine": "TOOL",
            "op": "dm.send", "written_op": "dm.send", "args": {"to": "pip", "text": "hi"}})
    );
}

#[test]
fn parse_diagnostics_adds_skipped_directives_and_why() {
    let text = "[CLAIM 7f] then [TOOL a.b {\"x\": 1, \"x\": 2}] and [TOOL c.d {\"ok\": true}]";
    let r = ok(&["parse", "--diagnostics", text]);
    assert_eq!(
        r.stdout,
        "bytes 0..10  sentence  claim\n    job_id  7f\n\
         skipped bytes 16..43  invalid-json: duplicate key `x` at line 1 column 12\n\
         bytes 48..71  directive  c.d\n    form    bracket\n    engine  TOOL\n    op      c.d\n    args    {\"ok\":true}\n\
         2 found, 1 skipped\n",
        "skipped candidates stand in text order"
    );
    assert!(r.stdout.ends_with("\n2 found, 1 skipped\n"), "{}", r.stdout);
    assert!(
        !ok(&["parse", text]).stdout.contains("skipped"),
        "skipped only with --diagnostics"
    );
    let v = ok(&["parse", "--diagnostics", "--json", text]).json();
    assert_eq!(v["skipped"][0]["reason"], "invalid-json");
    assert_eq!(v["skipped"][0]["span"], json!({"start": 16, "end": 43}));
    assert_eq!(v["found"].as_array().unwrap().len(), 2);
    assert!(ok(&["parse", "--json", text])
        .json()
        .get("skipped")
        .is_none());
}

#[test]
fn parse_reads_standard_input() {
    let r = run_with(
        &["parse", "-", "--json"],
        Some(b"[CLAIM 7fce46e0]\n[RESULT 7fce46e0] FAIL disk full\n"),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v["found"][0]["span"], json!({"start": 0, "end": 16}));
    assert_eq!(
        v["found"][1]["value"],
        json!({"structure": "result", "job_id": "7fce46e0", "summary": "disk full", "status": "FAIL"})
    );
    assert_eq!(
        v["found"][1]["span"]["end"], 49,
        "the trailing line break is not part of the summary"
    );
}

#[test]
fn parse_finding_nothing_exits_1() {
    let r = run(&["parse", "just prose, `[CLAIM 7f]` in code"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (1, "nothing found\n", "")
    );
    let r = run(&["parse", "--json", ""]);
    assert_eq!((r.code, r.json()), (1, json!({"found": []})));
}

#[test]
fn invalid_utf8_on_standard_input_is_a_usage_error() {
    let r = run_with(&["parse", "-"], Some(b"[CLAIM 7f]\xff"));
    assert_eq!((r.code, r.stdout.as_str()), (2, ""));
    assert_eq!(
        r.stderr,
        "error: standard input is not UTF-8 (invalid byte at offset 10)\n"
    );
    let r = run_with(&["parse", "-", "--json"], Some(b"\xff"));
    assert_eq!(r.code, 2);
    assert_eq!(
        serde_json::from_str::<Value>(&r.stderr).unwrap()["error"]["kind"],
        "input"
    );
}

// ---- get ----

#[test]
fn get_prints_the_raw_spec_entry() {
    let r = ok(&["get", "regex_patterns", "work_order", "--json"]);
    assert_eq!(
        r.json(),
        schema_entry("regex_patterns.json", "patterns", "work_order")
    );
    assert!(
        r.stdout
            .starts_with("{\n  \"purpose\": \"Parses a work order:"),
        "keys in the spec's order"
    );
    let r = ok(&["get", "structures", "tool_call", "--json"]);
    assert_eq!(
        r.json(),
        schema_entry("structures.json", "structures", "tool_call")
    );
    assert_eq!(
        ok(&["get", "structures", "tool_call"]).stdout,
        r.stdout,
        "JSON with or without --json"
    );
}

#[test]
fn get_with_an_unknown_table_or_name_exits_2() {
    let r = run(&["get", "patterns", "ack"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("[possible values: structures, regex_patterns]"),
        "{}",
        r.stderr
    );
    let r = run(&["get", "structures", "verb", "--json"]);
    assert_eq!(r.code, 2);
    let e: Value = serde_json::from_str(&r.stderr).unwrap();
    assert_eq!(
        e["error"]["hint"],
        "`verb` is a pattern: see `box-docs regex verb`"
    );
    let r = run(&["get", "regex_patterns", "job_marker"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("did you mean `job_tag`?"), "{}", r.stderr);
}

// ---- help and version ----

#[test]
fn version_names_the_spec() {
    assert_eq!(
        ok(&["--version"]).stdout,
        format!(
            "box-docs {} (spec \"Agent Sentence Structures & Protocols\" 1.0.0)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

/// Splits a help example into words: spaces separate, single quotes group.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut started) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

#[test]
fn every_help_has_examples_that_run() {
    let mut ran = 0;
    for verb in [
        None,
        Some("sentence"),
        Some("regex"),
        Some("parse"),
        Some("get"),
    ] {
        let args: Vec<&str> = verb.into_iter().chain(["--help"]).collect();
        let help = ok(&args).stdout;
        let examples = help
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("no examples in {args:?}"));
        for line in examples
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("box-docs ") && !l.split(' ').any(|w| w == "-"))
        {
            let w = words(line);
            let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
            let r = run(&args);
            assert_eq!(
                r.code, 0,
                "help example `{line}` failed:\n{}{}",
                r.stdout, r.stderr
            );
            ran += 1;
        }
    }
    assert!(ran >= 12, "only {ran} help examples ran");
}

// --- tools and parse --resolve (the op catalogue, schema/ops.json) -------

#[test]
fn parse_resolve_shows_each_directive_resolved_or_why_it_would_not_run() {
    let text = r#"[TOOL followup.create {"in_m": 0, "prompt": ""}] [DM {"to": "646"}] [TOOL tools {}] [EXEC .fs.rm. {}] [ACK 7f]"#;
    let r = ok(&["parse", "--resolve", "--json", text]);
    let resolved = r.json()["resolved"].clone();
    let kinds: Vec<(bool, &str, Value)> = resolved
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["runs"].as_bool().unwrap(),
                x["op"].as_str().unwrap(),
                x.pointer("/error/kind").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            (false, "followup.create", json!("invalid-args")),
            (false, "dm.send", json!("incomplete")),
            (true, "tools.list", Value::Null),
            (false, ".fs.rm.", json!("unknown-op")),
        ]
    );
    let faults: Vec<&str> = resolved[0]["error"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(faults, ["/in_m", "/prompt"]);
    assert_eq!(resolved[2]["args"], json!({}));
    assert_eq!(resolved[2]["span"], json!({"start": 68, "end": 83}));
    let t = ok(&["parse", "--resolve", text]);
    assert!(
        t.stdout.contains("    resolve  runs: tools.list\n"),
        "{}",
        t.stdout
    );
    assert!(
        t.stdout
            .contains("      at /in_m: 0 is less than the minimum of 1\n"),
        "{}",
        t.stdout
    );
    assert!(
        t.stdout
            .ends_with("5 found, 1 of 4 directive(s) would run\n"),
        "{}",
        t.stdout
    );
    // Without --resolve nothing is resolved.
    assert!(ok(&["parse", "--json", text])
        .json()
        .get("resolved")
        .is_none());
}

/// A near miss (P212): nothing found, but a structure's marker starts a
/// text that does not fit it; `parse` names the structure, the byte and
/// what was expected there, from the library's own `ParseError`.
#[test]
fn parse_explains_a_near_miss_with_the_library_s_parse_error() {
    use agent_sentences::{ParseErrorKind, SentenceKind};
    let cases = [
        // An upper-case id, after some prose.
        (
            "on it: [ACK:7FCE46E0]",
            SentenceKind::Ack,
            7,
            Some("FCE46E0]"),
        ),
        // A lower-case marker.
        (
            "[wo:7fce46e0] [from super] Audit — x",
            SentenceKind::WorkOrder,
            0,
            Some("[wo:7fce46e0]"),
        ),
        ("[RESULT] OK", SentenceKind::ResultSentence, 0, Some("]")),
        ("[RESULT", SentenceKind::ResultSentence, 0, None),
    ];
    for (text, kind, start, found) in cases {
        let e = kind.parse(&text[start..]).unwrap_err();
        let offset = start + e.offset;
        let ParseErrorKind::NoMatch { expected } = &e.kind else {
            panic!("{text}: {e}")
        };
        let r = run(&["parse", text]);
        assert_eq!(r.code, 1, "{text}: {}", r.stderr);
        let shown = found.map_or("the end of the text".to_owned(), |f| format!("`{f}`"));
        let line = format!(
            "near miss at byte {start}: {e}, found {shown}\n",
            e = agent_sentences::ParseError {
                offset,
                ..e.clone()
            },
        );
        assert_eq!(r.stdout, format!("{line}nothing found\n"), "{text}");
        let v = run(&["parse", "--json", text]).json();
        assert_eq!(
            v["near_misses"],
            json!([{
                "start": start,
                "structure": kind.key(),
                "offset": offset,
                "kind": "no_match",
                "expected": expected,
                "found": found,
                "message": line.split_once(": ").unwrap().1.trim_end(),
            }]),
            "{text}"
        );
    }
    // The hyphen: where ` — ` was expected as the structure is written
    // (P281), not the end of the text, where the title's reading stopped.
    let r = run(&[
        "parse",
        "[WO:7fce46e0] [from super] Audit - check endpoints",
    ]);
    assert_eq!(
        r.stdout,
        "near miss at byte 0: not a `work_order` sentence: the text stops fitting at byte 32: expected ` — `, found ` - ` (` - ` is not ` — `)\nnothing found\n"
    );
    // A word where a status would be, that is none, is said under the sentence.
    let r = run(&["parse", "[RESULT 7fce46e0] DONE all good"]);
    assert!(
        r.stdout.contains("    note: `DONE` is not a `status` (OK, FAIL, DECLINE, SUCCESS, ERROR): read as the start of the `summary`\n"),
        "{}",
        r.stdout
    );
    let v = run(&["parse", "--json", "[RESULT 7fce46e0] DONE all good"]).json();
    assert_eq!(
        (&v["notes"][0]["word"], &v["notes"][0]["start"]),
        (&json!("DONE"), &json!(18))
    );
    // A sentence the scanner leaves out (in a code span) is no near miss;
    // text with no marker has none.
    for text in [
        "just prose, `[CLAIM 7f]` in code",
        "[WORKFLOW] nothing here",
    ] {
        let r = run(&["parse", text]);
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (1, "nothing found\n"),
            "{text}"
        );
    }
}

/// Suggestions rank by similarity to the name typed (P213): `nope` is like
/// no op, so none is offered; a misspelt op is.
#[test]
fn suggestions_rank_by_the_name_typed() {
    let r = run(&["tools", "nope"]);
    assert_eq!(r.code, 2);
    assert!(!r.stderr.contains("did you mean"), "{}", r.stderr);
    let r = run(&["tools", "dm.snd"]);
    assert!(r.stderr.contains("did you mean `dm.send`?"), "{}", r.stderr);
    let r = run(&["sentence", "RESULT"]);
    assert!(r.stderr.contains("did you mean `result`?"), "{}", r.stderr);
}

/// `completions SHELL` prints a completion script naming every verb.
#[test]
fn completions_print_a_script_for_each_shell() {
    let verbs = [
        "sentence",
        "regex",
        "parse",
        "tools",
        "loops",
        "get",
        "completions",
    ];
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let r = ok(&["completions", shell]);
        assert!(r.stdout.contains("box-docs"), "{shell}");
        for verb in verbs {
            assert!(r.stdout.contains(verb), "{shell}: no {verb}");
        }
    }
    let r = ok(&["completions", "bash"]);
    assert!(r.stdout.contains("complete -F _box__docs "), "{}", r.stdout);
    // The script is valid bash.
    let o = Command::new("bash")
        .args(["-n", "-c", &r.stdout])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(run(&["completions", "tcsh"]).code, 2);
}
