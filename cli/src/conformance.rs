//! `box-docs conformance`: the conformance kit's runner, and this build's
//! answers to the kit's protocol (`--serve`).
//!
//! The suite is `conformance/suite.jsonl` (embedded; `--suite` reads another
//! copy), one case a line; its format and the protocol are described in
//! `conformance/README.md` and `docs/guide/conformance.md`. The runner starts
//! the implementation under test as a command, writes one request a line on
//! its standard input (`{"id", "mode", "as"?, "text"}`), reads one answer a
//! line from its standard output (`{"id", "items": […], "refusals": […]}`),
//! and compares each answer with the case's expectation: items exactly (byte
//! spans, kind, structure or engine and op, values; a `null` field is an
//! absent one), refusals by span and reason class only (P315).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use agent_sentences::scan::scan_with_diagnostics;
use agent_sentences::{ParseErrorKind, Sentence, SentenceKind};
use serde_json::{json, Map, Value};

use crate::{Error, Output};

/// The suite this build was made with: `conformance/suite.jsonl`.
pub const SUITE: &str = include_str!("../../conformance/suite.jsonl");

/// The levels, strongest first.
pub const LEVELS: [&str; 3] = ["MUST", "SHOULD", "MAY"];

/// One case of the suite, as the runner needs it.
struct Case {
    /// The case's id, e.g. `scan/bracket-tool` or `scan/bracket-no-object#refusals`.
    id: String,
    /// `MUST`, `SHOULD` or `MAY`.
    level: String,
    /// What the implementation is sent: `{"id", "mode", "as"?, "text"}`.
    request: Value,
    /// `items` or `refusals`.
    expect_key: &'static str,
    /// The expected items or refusals.
    expected: Vec<Value>,
}

/// Reads the suite: one JSON case a line (blank lines passed over).
fn cases(suite: &str) -> Result<Vec<Case>, Error> {
    let mut out = Vec::new();
    for (n, line) in suite.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| Error::Input(format!("suite line {}: {why}", n + 1));
        let case: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let text = |key: &str| case[key].as_str().map(str::to_owned);
        let (Some(id), Some(level), Some(mode), Some(input)) =
            (text("id"), text("level"), text("mode"), text("text"))
        else {
            return Err(bad("a case needs the strings id, level, mode and text"));
        };
        if !LEVELS.contains(&level.as_str()) {
            return Err(bad(&format!(
                "level `{level}` is none of MUST, SHOULD, MAY"
            )));
        }
        let (expect_key, expected) = match (&case["expect"]["items"], &case["expect"]["refusals"]) {
            (Value::Array(items), Value::Null) => ("items", items.clone()),
            (Value::Null, Value::Array(refusals)) => ("refusals", refusals.clone()),
            _ => return Err(bad("`expect` holds one array, `items` or `refusals`")),
        };
        let mut request = json!({"id": id, "mode": mode, "text": input});
        if let Some(structure) = text("as") {
            request["as"] = Value::String(structure);
        }
        out.push(Case {
            id,
            level,
            request,
            expect_key,
            expected,
        });
    }
    Ok(out)
}

/// An item as compared: `null` fields of its value dropped.
fn normal_item(item: &Value) -> Value {
    let mut item = item.clone();
    if let Some(Value::Object(value)) = item.get_mut("value") {
        value.retain(|_, v| !v.is_null());
    }
    item
}

/// The sort key of an item or refusal: its span, then its text.
fn order(v: &Value) -> (u64, u64, String) {
    let at = |i: usize| v["span"][i].as_u64().unwrap_or(0);
    (at(0), at(1), v.to_string())
}

/// Why an answer does not meet its case, or `None` when it does.
fn judge(case: &Case, answer: Option<&Value>) -> Option<(String, Value)> {
    let Some(answer) = answer else {
        return Some(("no answer".into(), Value::Null));
    };
    let Some(got) = answer[case.expect_key].as_array() else {
        return Some((
            format!("the answer has no `{}` array", case.expect_key),
            answer.clone(),
        ));
    };
    let (mut got, mut expected): (Vec<Value>, Vec<Value>) = if case.expect_key == "items" {
        (
            got.iter().map(normal_item).collect(),
            case.expected.iter().map(normal_item).collect(),
        )
    } else {
        // Refusals: only the span (where the case gives one) and the reason class.
        let keep = |r: &Value, with_span: bool| {
            let mut m = Map::new();
            if with_span {
                m.insert("span".into(), r["span"].clone());
            }
            m.insert("reason".into(), r["reason"].clone());
            Value::Object(m)
        };
        let with_span = case.expected.iter().any(|r| r.get("span").is_some());
        (
            got.iter().map(|r| keep(r, with_span)).collect(),
            case.expected.iter().map(|r| keep(r, with_span)).collect(),
        )
    };
    got.sort_by_key(order);
    expected.sort_by_key(order);
    (got != expected).then(|| {
        (
            format!("{} differ", case.expect_key),
            json!({"got": got, "expected": expected}),
        )
    })
}

/// Runs the implementation `cmd` over the suite and scores it.
pub fn run(cmd: &[String], suite: &str, json_out: bool) -> Result<Output, Error> {
    let cases = cases(suite)?;
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Error::Input(format!("cannot run `{}`: {e}", cmd.join(" "))))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let requests: Vec<String> = cases.iter().map(|c| c.request.to_string()).collect();
    // Requests are written from a thread so that an implementation that
    // answers as it reads never blocks on a full pipe.
    let writer = std::thread::spawn(move || {
        for r in requests {
            if writeln!(stdin, "{r}").is_err() {
                break; // the implementation stopped reading: its missing answers fail
            }
        }
    });
    let mut answers: HashMap<String, Value> = HashMap::new();
    let mut bad_lines = Vec::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    for (n, line) in BufReader::new(stdout).lines().enumerate() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&line) {
            Ok(v) if v["id"].is_string() => {
                answers.insert(v["id"].as_str().unwrap_or_default().to_owned(), v);
            }
            _ => bad_lines.push(n + 1),
        }
    }
    let _ = writer.join();
    let status = child
        .wait()
        .map_err(|e| Error::Input(format!("`{}`: {e}", cmd.join(" "))))?;

    let mut failures = Vec::new();
    let mut score: Vec<(usize, usize)> = vec![(0, 0); LEVELS.len()];
    for case in &cases {
        let l = LEVELS.iter().position(|l| *l == case.level).unwrap_or(0);
        score[l].1 += 1;
        match judge(case, answers.get(&case.id)) {
            None => score[l].0 += 1,
            Some((what, detail)) => failures.push(json!({
                "id": case.id, "level": case.level, "what": what, "detail": detail,
            })),
        }
    }
    let must_failed = score[0].0 < score[0].1;
    let stdout = if json_out {
        let score: Map<String, Value> = LEVELS
            .iter()
            .zip(&score)
            .map(|(l, (p, t))| (l.to_string(), json!({"passed": p, "total": t})))
            .collect();
        format!(
            "{:#}\n",
            json!({
                "implementation": cmd,
                "exit_status": status.code(),
                "unreadable_answer_lines": bad_lines,
                "score": score,
                "failures": failures,
            })
        )
    } else {
        let mut out = String::new();
        for f in &failures {
            let detail = if f["detail"].is_null() {
                String::new()
            } else {
                format!(
                    "\n    got      {}\n    expected {}",
                    f["detail"]["got"], f["detail"]["expected"]
                )
            };
            out.push_str(&format!(
                "FAIL {:<6} {}: {}{detail}\n",
                f["level"].as_str().unwrap_or_default(),
                f["id"].as_str().unwrap_or_default(),
                f["what"].as_str().unwrap_or_default(),
            ));
        }
        if !bad_lines.is_empty() {
            out.push_str(&format!(
                "{} answer line(s) were not JSON objects with an `id`: lines {:?}\n",
                bad_lines.len(),
                bad_lines
            ));
        }
        if !status.success() {
            out.push_str(&format!("the implementation exited with {status}\n"));
        }
        for (l, (p, t)) in LEVELS.iter().zip(&score) {
            out.push_str(&format!("{l:<6} {p}/{t} passed\n"));
        }
        out
    };
    Ok(Output {
        stdout,
        matched: !must_failed,
    })
}

/// A parse error's reason class, as the suite names it.
fn error_class(kind: &ParseErrorKind) -> &'static str {
    match kind {
        ParseErrorKind::NoMatch { .. } => "no_match",
        ParseErrorKind::FixedMismatch { .. } => "fixed_mismatch",
        ParseErrorKind::UnexpectedGroup { .. } => "unexpected_group",
        ParseErrorKind::RepeatMismatch { .. } => "repeat_mismatch",
        ParseErrorKind::Integer { .. } => "integer",
        ParseErrorKind::Json { .. } => "json",
    }
}

/// A sentence as a suite item over `span`.
fn sentence_item(s: &Sentence, span: [usize; 2]) -> Value {
    let mut value = serde_json::to_value(s).expect("a sentence serializes");
    if let Value::Object(m) = &mut value {
        m.remove("structure");
    }
    json!({"span": span, "kind": "sentence", "structure": s.kind().key(), "value": value})
}

/// This build's answer to one request.
fn answer(request: &Value) -> Value {
    let id = request["id"].clone();
    let Some(text) = request["text"].as_str() else {
        return json!({"id": id, "error": "the request has no `text` string"});
    };
    match request["mode"].as_str() {
        Some("sentence") => {
            let parsed = match request["as"].as_str() {
                Some(key) => match SentenceKind::from_key(key) {
                    Some(kind) => kind.parse(text),
                    None => return json!({"id": id, "error": format!("no structure `{key}`")}),
                },
                None => Sentence::parse(text),
            };
            match parsed {
                Ok(s) => {
                    json!({"id": id, "items": [sentence_item(&s, [0, text.len()])], "refusals": []})
                }
                Err(e) => {
                    json!({"id": id, "items": [], "refusals": [{"reason": error_class(&e.kind)}]})
                }
            }
        }
        Some("scan") => {
            let (found, skipped) = scan_with_diagnostics(text);
            let items: Vec<Value> = serde_json::to_value(&found)
                .expect("found items serialize")
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|f| {
                    let span = json!([f["span"]["start"], f["span"]["end"]]);
                    if f["kind"] == "sentence" {
                        let mut value = f["value"].clone();
                        let structure = value["structure"].take();
                        if let Value::Object(m) = &mut value {
                            m.remove("structure");
                        }
                        json!({"span": span, "kind": "sentence", "structure": structure, "value": value})
                    } else {
                        json!({"span": span, "kind": f["kind"], "engine": f["engine"], "op": f["op"], "args": f["args"]})
                    }
                })
                .collect();
            let refusals: Vec<Value> = serde_json::to_value(&skipped)
                .expect("skips serialize")
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|s| json!({"span": [s["span"]["start"], s["span"]["end"]], "reason": s["reason"]}))
                .collect();
            json!({"id": id, "items": items, "refusals": refusals})
        }
        _ => json!({"id": id, "error": "`mode` is `scan` or `sentence`"}),
    }
}

/// `--serve`: answers requests on standard input, one line each, until it
/// closes. Returns false when standard output closed early.
pub fn serve() -> Output {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let out = match serde_json::from_str::<Value>(&line) {
            Ok(request) => answer(&request),
            Err(e) => json!({"id": null, "error": format!("not a JSON request: {e}")}),
        };
        if writeln!(stdout, "{out}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
    }
    Output {
        stdout: String::new(),
        matched: true,
    }
}
