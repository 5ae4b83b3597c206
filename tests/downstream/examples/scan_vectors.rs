//! The Rust scanner's answers, as the shared scanner vectors write them.
//!
//! - `cargo run -p downstream-example --example scan_vectors` rewrites the
//!   expected `found` and `skipped` of every `tests/vectors/scan/*.json` from
//!   the Rust scanner (review the diff by hand before committing it);
//! - `… --example scan_vectors -- --stdin` reads a JSON array of texts on
//!   standard input and prints, for each, `{"found": […], "skipped": […]}`:
//!   the Rust scanner's answers for any texts, in the vectors' form (to
//!   compare two builds of the scanner on many generated texts, or to write
//!   a new vector's expectation).
//!
//! A skipped candidate's message is the scanner's own and compared exactly in
//! both languages, except where it is the strict JSON reader's wording (P25:
//! serde's messages end with `at line N column M`): there the vector holds
//! `null` and the runners compare only the span and the reason.

use std::io::Read;
use std::path::Path;

use agent_sentences::scan::scan_with_diagnostics;
use serde_json::{json, Value};

/// True when a skip message is the JSON reader's wording (serde's error
/// positions), which the Python reader words differently (P25).
fn reader_wording(message: &str) -> bool {
    let Some((_, tail)) = message.rsplit_once(" at line ") else {
        return false;
    };
    let mut parts = tail.split(" column ");
    matches!((parts.next(), parts.next(), parts.next()), (Some(l), Some(c), None)
        if !l.is_empty() && !c.is_empty() && l.bytes().chain(c.bytes()).all(|b| b.is_ascii_digit()))
}

/// `{"found": […], "skipped": […]}` for one text.
fn answer(text: &str) -> Value {
    let (found, skipped) = scan_with_diagnostics(text);
    let skipped: Vec<Value> = skipped
        .iter()
        .map(|s| {
            let mut v = serde_json::to_value(s).expect("a skip serializes");
            if reader_wording(&s.message) {
                v["message"] = Value::Null;
            }
            v
        })
        .collect();
    json!({"found": serde_json::to_value(&found).expect("found items serialize"), "skipped": skipped})
}

fn main() {
    if std::env::args().any(|a| a == "--stdin") {
        let mut input = String::new();
        std::io::stdin()
            .read_to_string(&mut input)
            .expect("UTF-8 on standard input");
        let texts: Vec<String> = serde_json::from_str(&input).expect("a JSON array of strings");
        let out: Vec<Value> = texts.iter().map(|t| answer(t)).collect();
        println!("{}", serde_json::to_string(&out).expect("serializes"));
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/scan");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable");
        let mut case: serde_json::Map<String, Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let input = case["input"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: input is a string", path.display()))
            .to_owned();
        let a = answer(&input);
        case.insert("found".into(), a["found"].clone());
        case.insert("skipped".into(), a["skipped"].clone());
        let out = serde_json::to_string_pretty(&Value::Object(case)).expect("serializes") + "\n";
        if out != text {
            std::fs::write(path, out).expect("writable");
            println!("updated {}", path.display());
        }
    }
    println!("{} scanner vectors", paths.len());
}
