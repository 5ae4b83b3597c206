//! The Rust envelope's answers, as the shared envelope vectors write them:
//! `cargo run -p downstream-example --example envelope_vectors` rewrites the
//! expected `text` (or `error`) of every `tests/vectors/envelope/*.json` from
//! `agent_sentences::envelope::wrap` (review the diff by hand before
//! committing it). Both languages' tests then hold their `wrap` to them.

use std::path::Path;

use serde_json::Value;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/envelope");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the vectors directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (message, id) = (
            v["message"].as_str().unwrap().to_owned(),
            v["id"].as_str().unwrap().to_owned(),
        );
        match agent_sentences::envelope::wrap(&message, &id) {
            Ok(text) => {
                v["text"] = Value::String(text);
                v["error"] = Value::Null;
            }
            Err(e) => {
                v["text"] = Value::Null;
                v["error"] = Value::String(e.message);
            }
        }
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
        println!("{}", path.display());
    }
}
