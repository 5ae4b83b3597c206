//! Runs the `box-docs` binary on every verb, as text and as JSON, from
//! arguments and from standard input, and on its error paths.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

/// What one run printed and how it exited.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", self.stdout))
    }
}

fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_box-docs"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("box-docs runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().expect("exited"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

/// Runs and expects success with nothing on stderr.
fn ok(args: &[&str]) -> Run {
    let r = run(args);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, ""),
        "box-docs {args:?}\nstdout:\n{}",
        r.stdout
    );
    r
}

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

// --- tools and parse --resolve (the op catalogue, schema/ops.json) -------

fn ops_json() -> serde_json::Map<String, Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/ops.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file["ops"].as_object().unwrap().clone()
}

#[test]
fn tools_json_is_the_tools_list_response() {
    let r = ok(&["tools", "--json"]);
    assert_eq!(
        r.json(),
        serde_json::to_value(agent_sentences::ops::tools_list()).unwrap()
    );
    let listed: Vec<(String, bool, Value)> = r.json()["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap().to_owned(),
                o["side_effecting"].as_bool().unwrap(),
                o["args"].clone(),
            )
        })
        .collect();
    let want: Vec<(String, bool, Value)> = ops_json()
        .iter()
        .map(|(k, o)| {
            (
                k.clone(),
                o["side_effecting"].as_bool().unwrap(),
                o.get("args").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    assert_eq!(listed, want);
}

#[test]
fn tools_format_prints_each_api_s_tool_list() {
    // P296: the tool list is JSON with or without --json; the crate's own
    // rendering (held to each API's shape in tests/downstream) is what prints.
    for (format, api) in [
        ("openai", agent_sentences::ops::NativeApi::OpenAi),
        ("anthropic", agent_sentences::ops::NativeApi::Anthropic),
        ("mcp", agent_sentences::ops::NativeApi::Mcp),
    ] {
        let want = agent_sentences::ops::native_tools(api);
        assert_eq!(ok(&["tools", "--format", format]).json(), want);
        assert_eq!(ok(&["tools", "--format", format, "--json"]).json(), want);
    }
    let listed = ok(&["tools", "--format", "anthropic"]).json();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.is_empty()
            && names
                .iter()
                .all(|n| agent_sentences::ops::is_native_name(n)),
        "{names:?}"
    );
    assert_eq!(run(&["tools", "--format", "gemini"]).code, 2);
    assert_eq!(run(&["tools", "tools", "--format", "mcp"]).code, 2);
}

#[test]
fn tools_lists_every_op_one_per_line_and_shows_each_in_full() {
    let r = ok(&["tools"]);
    let ops = ops_json();
    assert_eq!(r.stdout.lines().count(), ops.len() + 1, "{}", r.stdout);
    for (name, op) in &ops {
        let line = r
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} listed"));
        let side = if op["side_effecting"].as_bool().unwrap() {
            "yes"
        } else {
            "no"
        };
        assert!(line.split_whitespace().nth(1) == Some(side), "{line}");
        let one = ok(&["tools", name]);
        assert!(
            one.stdout.starts_with(&format!("{name}\n")),
            "{}",
            one.stdout
        );
        if let Some(args) = op.get("args") {
            assert!(one.stdout.contains("args (JSON Schema 2020-12):"));
            assert_eq!(ok(&["tools", name, "--json"]).json()["args"], *args);
        } else {
            assert!(
                one.stdout
                    .contains(&format!("no: {}", op["missing"].as_str().unwrap())),
                "{}",
                one.stdout
            );
        }
    }
    // An alias names its op; an unknown op is a usage error.
    assert!(ok(&["tools", "tools"]).stdout.starts_with("tools.list\n"));
    let bad = run(&["tools", "fs.rm"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.starts_with("error: no op named `fs.rm`"),
        "{}",
        bad.stderr
    );
}

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

/// The events of a `--stream` run as JSON values, in a canonical order (a
/// stream commits in its own order).
fn sorted_events(mut events: Vec<Value>) -> Vec<Value> {
    events.sort_by_key(|e| (e["span"]["start"].as_u64(), e.to_string()));
    events
}

/// `parse --stream` reads standard input as it arrives: after each piece is
/// written, every event the scanner makes final with that piece is printed
/// before more input comes (the test reads those lines back before writing the
/// next piece: it waits on the events, never on time), and in all it prints
/// the batch scan's items and skips, one JSON line each.
#[test]
fn parse_stream_prints_each_event_once_the_input_makes_it_final() {
    use std::io::{BufRead, BufReader};
    use std::sync::{mpsc, Arc, Mutex};

    use agent_sentences::scan::{scan_with_diagnostics, Event, Stream};

    let pieces = [
        "On it [CLAIM 7fce",
        "46e0]\n\n",
        "[TOOL health.check {\"node\": \"warp-dev\"}]\n",
        "\n[TOOL a.b {\"x\": 1,}]\n\n[RESULT 7fce46e0] OK first\n\n[RESULT 8a12bc44] OK ",
        "second\n\n[WO:7fce46e0] [from super] Audit — check",
        " endpoints\n",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_box-docs"))
        .args(["parse", "--stream"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("box-docs runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    let mut output = BufReader::new(child.stdout.take().expect("stdout is piped"));
    // A run that waits for input it already has would block this test for
    // good: past a generous bound the child is killed, and the read fails.
    let child = Arc::new(Mutex::new(child));
    let (done, watch) = mpsc::channel::<()>();
    let watchdog = {
        let child = Arc::clone(&child);
        std::thread::spawn(move || {
            if watch
                .recv_timeout(std::time::Duration::from_secs(300))
                .is_err()
            {
                let _ = child.lock().unwrap().kill();
            }
        })
    };
    let mut reference = Stream::new();
    let mut lines: Vec<Value> = Vec::new();
    for piece in pieces {
        input.write_all(piece.as_bytes()).unwrap();
        input.flush().unwrap();
        for _ in &reference.push(piece) {
            let mut line = String::new();
            output.read_line(&mut line).unwrap();
            assert!(
                line.ends_with('\n'),
                "the run ended before its event: {line:?}"
            );
            lines.push(serde_json::from_str(&line).unwrap());
        }
    }
    drop(input);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut output, &mut rest).unwrap();
    lines.extend(
        rest.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()),
    );
    let status = child.lock().unwrap().wait().unwrap();
    let _ = done.send(());
    watchdog.join().unwrap();
    let mut stderr = String::new();
    let taken = child.lock().unwrap().stderr.take();
    std::io::Read::read_to_string(&mut taken.unwrap(), &mut stderr).unwrap();

    let text = pieces.concat();
    let (found, skipped) = scan_with_diagnostics(&text);
    let batch: Vec<Value> = found
        .into_iter()
        .map(Event::Found)
        .chain(skipped.into_iter().map(Event::Skipped))
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(sorted_events(lines), sorted_events(batch.clone()));
    let n_found = batch.iter().filter(|e| e["event"] == "found").count();
    assert_eq!(
        stderr,
        format!("{n_found} found, {} skipped\n", batch.len() - n_found)
    );
    assert!(n_found >= 4, "{batch:?}");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn parse_stream_exits_as_parse_does() {
    let r = run_with(&["parse", "--stream", "--json"], Some(b"no markers here\n"));
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (1, "", ""));
    // With --resolve, a directive's line holds what `parse --resolve` says of it.
    let call = "[DM {\"to\": \"646\", \"text\": \"hi\"}]";
    let r = run_with(
        &["parse", "--stream", "-", "--resolve"],
        Some(call.as_bytes()),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(r.stdout.trim_end()).unwrap();
    let mut resolved = ok(&["parse", "--resolve", "--json", call]).json()["resolved"][0].take();
    resolved.as_object_mut().unwrap().shift_remove("span");
    assert_eq!(
        (&v["event"], &v["op"], &v["resolved"]),
        (&json!("found"), &json!("dm.send"), &resolved)
    );
    // Bytes that are not UTF-8 end the run: a usage error, nothing after them read.
    let r = run_with(
        &["parse", "--stream"],
        Some(b"[CLAIM 7f]\n\n\xff [CLAIM 8a]\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "error: standard input is not UTF-8 (invalid byte at offset 12)\n"
    );
    assert!(!r.stdout.contains("8a"), "{}", r.stdout);
    let r = run_with(&["parse", "--stream", "[CLAIM 7f]"], None);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            2,
            "error: --stream reads standard input: give `-` or no TEXT\n"
        )
    );
}
