//! The shared conformance vectors (`tests/vectors/`), run against the generated
//! Rust crate. The Python package runs the same files (`tests/python/vectors.py`);
//! see there for the format. The expected outputs of the scanner vectors
//! (`scan/`) are written by `cargo run -p downstream-example --example
//! scan_vectors` and reviewed by hand.

use std::path::{Path, PathBuf};

use agent_sentences::scan::{scan, scan_with_diagnostics};
use agent_sentences::{patterns, ParseError, ParseErrorKind, Sentence, SentenceKind};
use regex::Regex;
use serde_json::{json, Value};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

/// Every case of `tests/vectors/<kind>/`, as `(file name, case)`, sorted.
fn load(kind: &str) -> Vec<(String, Value)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(vectors_dir().join(kind))
        .unwrap_or_else(|e| panic!("tests/vectors/{kind}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let case: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.file_name().unwrap().to_string_lossy().into_owned(), case)
        })
        .collect()
}

/// The error as the vectors write it: the Python `ParseError.to_dict()` shape,
/// without the JSON reader's own message.
fn error_json(e: &ParseError) -> Value {
    let mut out = json!({"structure": e.structure, "closest": e.closest, "offset": e.offset});
    let kind = match &e.kind {
        ParseErrorKind::NoMatch { expected } => json!({"kind": "no_match", "expected": expected}),
        ParseErrorKind::FixedMismatch {
            group,
            expected,
            found,
        } => {
            json!({"kind": "fixed_mismatch", "group": group, "expected": expected, "found": found})
        }
        ParseErrorKind::UnexpectedGroup { group } => {
            json!({"kind": "unexpected_group", "group": group})
        }
        ParseErrorKind::RepeatMismatch {
            field,
            first,
            other,
        } => {
            json!({"kind": "repeat_mismatch", "field": field, "first": first, "other": other})
        }
        ParseErrorKind::Integer { field } => json!({"kind": "integer", "field": field}),
        ParseErrorKind::Json { field, .. } => json!({"kind": "json", "field": field}),
    };
    out.as_object_mut()
        .unwrap()
        .extend(kind.as_object().unwrap().clone());
    out
}

/// `None` when the crate reads the case as expected, else what differs.
fn check_sentence(case: &Value) -> Option<String> {
    let input = case["input"].as_str().expect("input is a string");
    let parse = |text: &str| match case.get("parse_as").and_then(Value::as_str) {
        Some(key) => SentenceKind::from_key(key)
            .unwrap_or_else(|| panic!("unknown parse_as `{key}`"))
            .parse(text),
        None => Sentence::parse(text),
    };
    let got = match parse(input) {
        Err(e) => {
            if !case["structure"].is_null() {
                return Some(format!(
                    "expected a `{}`, got the error: {e}",
                    case["structure"]
                ));
            }
            let error = error_json(&e);
            return (error != case["error"])
                .then(|| format!("error {error}, expected {}", case["error"]));
        }
        Ok(s) => s,
    };
    if case["structure"].is_null() {
        return Some(format!("expected the error {}, got {got:?}", case["error"]));
    }
    if got.kind().key() != case["structure"] {
        return Some(format!(
            "parsed as `{}`, expected {}",
            got.kind(),
            case["structure"]
        ));
    }
    let value = serde_json::to_value(&got).unwrap();
    if value != case["value"] {
        return Some(format!("value {value}, expected {}", case["value"]));
    }
    let rendered = got.to_string();
    if rendered != case["rendered"] {
        return Some(format!(
            "renders {rendered:?}, expected {}",
            case["rendered"]
        ));
    }
    match parse(&rendered) {
        Ok(again) if again == got => None,
        other => Some(format!("the rendering reads back as {other:?}")),
    }
}

/// `None` when the pattern constant full-matches as expected, else what differs.
fn check_pattern(case: &Value) -> Option<String> {
    let key = case["pattern"].as_str().unwrap();
    let source = patterns::ALL
        .iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("unknown pattern `{key}`"))
        .1;
    let full = Regex::new(&format!(r"\A(?:{source})\z")).unwrap();
    let got = full.captures(case["input"].as_str().unwrap()).map(|caps| {
        let groups: serde_json::Map<String, Value> = full
            .capture_names()
            .flatten()
            .filter_map(|n| {
                caps.name(n)
                    .map(|m| (n.to_owned(), Value::String(m.as_str().to_owned())))
            })
            .collect();
        Value::Object(groups)
    });
    let got = got.unwrap_or(Value::Null);
    (got != case["captures"]).then(|| format!("captures {got}, expected {}", case["captures"]))
}

/// `None` when the scanner returns exactly the case's `found` and `skipped`
/// (serde JSON, byte spans), else what differs. A skipped message written
/// `null` is the JSON reader's own wording (P25): only its span and reason count.
fn check_scan(case: &Value) -> Option<String> {
    let input = case["input"].as_str().expect("input is a string");
    let (found, skipped) = scan_with_diagnostics(input);
    let found = serde_json::to_value(&found).unwrap();
    let mut skipped = serde_json::to_value(&skipped).unwrap();
    let expected_skipped = case["skipped"].as_array().expect("skipped is an array");
    for (got, expected) in skipped
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip(expected_skipped)
    {
        if expected["message"].is_null() {
            if expected["reason"] != "invalid-json" {
                return Some(format!(
                    "a `null` message stands only for the JSON reader's wording, not {}",
                    expected["reason"]
                ));
            }
            got["message"] = Value::Null;
        }
    }
    if found != case["found"] {
        return Some(format!("found {found}, expected {}", case["found"]));
    }
    if skipped != case["skipped"] {
        return Some(format!("skipped {skipped}, expected {}", case["skipped"]));
    }
    let plain = serde_json::to_value(scan(input)).unwrap();
    (plain != found).then(|| format!("scan() gives {plain}, scan_with_diagnostics() {found}"))
}

fn run(kind: &str, check: fn(&Value) -> Option<String>) -> usize {
    let cases = load(kind);
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(name, case)| check(case).map(|m| format!("{kind}/{name}: {m}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} vectors fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases.len()
}

#[test]
fn sentence_vectors() {
    assert!(run("sentences", check_sentence) >= 250);
}

#[test]
fn pattern_vectors() {
    assert!(run("patterns", check_pattern) >= 100);
}

#[test]
fn scan_vectors() {
    assert!(run("scan", check_scan) >= 100);
}

#[test]
fn a_wrong_scan_expectation_is_reported() {
    let cases = load("scan");
    let (_, case) = cases
        .iter()
        .find(|(n, _)| n == "json-duplicate-keys.json")
        .unwrap();
    assert_eq!(check_scan(case), None);
    let mut wrong = case.clone();
    wrong["found"][0]["span"]["end"] = json!(75);
    assert!(check_scan(&wrong).unwrap().starts_with("found "));
    let mut wrong = case.clone();
    wrong["skipped"][0]["message"] = json!("not the message");
    assert!(
        check_scan(&wrong).unwrap().starts_with("skipped "),
        "a reader message is compared when the vector gives one"
    );
    let (_, case) = cases
        .iter()
        .find(|(n, _)| n == "bracket-no-object.json")
        .unwrap();
    let mut wrong = case.clone();
    wrong["skipped"][0]["message"] = Value::Null;
    assert!(check_scan(&wrong)
        .unwrap()
        .contains("only for the JSON reader"));
}

#[test]
fn a_wrong_expectation_is_reported() {
    let (_, mut case) = load("sentences")
        .into_iter()
        .find(|(n, _)| n == "ack-no-sender.json")
        .unwrap();
    assert_eq!(check_sentence(&case), None);
    case["value"]["sender"] = json!("646");
    assert!(check_sentence(&case).unwrap().starts_with("value "));
    let (_, mut case) = load("patterns")
        .into_iter()
        .find(|(n, _)| n == "spec-ack-match-0.json")
        .unwrap();
    case["captures"]["sender"] = json!("647");
    assert!(check_pattern(&case).is_some());
}

/// The spec's examples are vectors themselves, read from the spec (no hand
/// copy is needed, so a structure added to the spec alone is covered): each
/// pattern's matches with their captures and its non-matches, as pattern
/// cases, and each structure's example sentence, which parses as that
/// structure and renders back as itself.
#[test]
fn spec_examples_are_vectors() {
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(vectors_dir().join("../../schema/regex_patterns.json")).unwrap(),
    )
    .unwrap();
    let mut failures = Vec::new();
    for (key, p) in spec["patterns"].as_object().unwrap() {
        let matches = p["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| json!({"pattern": key, "input": m["text"], "captures": m["captures"]}));
        let non = p["non_matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| json!({"pattern": key, "input": t, "captures": null}));
        for case in matches.chain(non) {
            if let Some(e) = check_pattern(&case) {
                failures.push(format!("pattern `{key}` example {}: {e}", case["input"]));
            }
        }
    }
    for kind in SentenceKind::ALL {
        let text = kind.example_sentence();
        match text.parse::<Sentence>() {
            Ok(s) if s.kind().key() == kind.key() && s.to_string() == text => {}
            Ok(s) => failures.push(format!(
                "structure `{}` example {text:?} reads as `{}`, renders {:?}",
                kind.key(),
                s.kind().key(),
                s.to_string()
            )),
            Err(e) => failures.push(format!("structure `{}` example {text:?}: {e}", kind.key())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
