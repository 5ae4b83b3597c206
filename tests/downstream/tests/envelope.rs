//! The prompt envelope of the generated crate (P149): `wrap` gives the
//! shared vectors' texts and errors (`tests/vectors/envelope/`, which the
//! Python tests hold the Python `wrap` to), and the spec's example renders
//! and scans back as `schema/envelope.json` says: the adverts are no calls
//! but would be calls of the advertised ops with an object, the mention is no
//! sentence, the footer is the footer carrying the id, and nothing else of the
//! envelope is read. Expectations come from `schema/envelope.json` and
//! `schema/ops.json` read here as plain JSON.

use std::path::Path;

use agent_sentences::ops::{self, ResolveErrorKind};
use agent_sentences::scan::{self, Item};
use agent_sentences::{envelope, Sentence};
use serde_json::Value;

fn spec(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schema/").to_owned() + name;
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn vectors() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/envelope");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let v = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_stem().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn wrap_gives_every_vectors_text_or_error() {
    let all = vectors();
    assert!(
        all.iter().any(|(_, v)| v["text"].is_string())
            && all.iter().any(|(_, v)| v["error"].is_string())
    );
    for (name, v) in all {
        let got = envelope::wrap(v["message"].as_str().unwrap(), v["id"].as_str().unwrap());
        match (&got, v["text"].as_str(), v["error"].as_str()) {
            (Ok(text), Some(want), None) => assert_eq!(text, want, "{name}"),
            (Err(e), None, Some(want)) => assert_eq!(e.message, want, "{name}"),
            _ => panic!("{name}: {got:?} against {v}"),
        }
    }
}

#[test]
fn the_spec_example_is_a_vector() {
    let example = &spec("envelope.json")["example"];
    let v = vectors()
        .into_iter()
        .find(|(n, _)| n == "spec-example")
        .unwrap()
        .1;
    assert_eq!(
        (&v["message"], &v["id"]),
        (&example["message"], &example["id"])
    );
}

#[test]
fn the_example_renders_and_scans_back_as_the_spec_says() {
    let file = spec("envelope.json");
    let (message, id) = (
        file["example"]["message"].as_str().unwrap(),
        file["example"]["id"].as_str().unwrap(),
    );
    let text = envelope::wrap(message, id).unwrap();
    // The message, a blank line, one line per entry of /lines.
    let lines = file["lines"].as_array().unwrap();
    assert!(text.starts_with(&format!("{message}\n\n")));
    let envelope_lines: Vec<&str> = text[message.len() + 2..].split('\n').collect();
    assert_eq!(envelope_lines.len(), lines.len());
    // Past the message the scanner finds the footer alone, carrying the id.
    let (found, skipped) = scan::scan_with_diagnostics(&text);
    let after: Vec<_> = found
        .iter()
        .filter(|f| f.span.end > message.len())
        .collect();
    assert!(
        skipped.iter().all(|s| s.span.end <= message.len()),
        "{skipped:?}"
    );
    assert_eq!(after.len(), 1, "{after:?}");
    let Item::Sentence {
        value: Sentence::ContractFooter(footer),
    } = &after[0].item
    else {
        panic!("{after:?}")
    };
    assert_eq!(footer.id, id);
    assert_eq!(
        &text[after[0].span.clone()],
        *envelope_lines.last().unwrap()
    );
    let ops_spec = spec("ops.json");
    for (line, entry) in envelope_lines.iter().zip(lines) {
        if let Some(a) = entry.get("advertise") {
            let engine = a["engine"].as_str().unwrap();
            for op in a["ops"].as_array().unwrap() {
                let op = op.as_str().unwrap();
                let advert = format!("[{engine} {op}]");
                assert!(line.contains(&advert), "{line}");
                // With an object the advert would be a call of the op, which
                // resolves as the catalogue says (incomplete ops do not run).
                let call = text.replacen(&advert, &format!("[{engine} {op} {{}}]"), 1);
                let d = scan::scan(&call)
                    .into_iter()
                    .find_map(|f| match f.item {
                        Item::Directive { directive } => Some(directive),
                        Item::Sentence { .. } => None,
                    })
                    .unwrap();
                assert_eq!((d.op.as_str(), d.engine.as_str()), (op, engine));
                assert!(envelope::ADVERTISED.contains(&op));
                let runnable = ops_spec["ops"][op].get("args").is_some()
                    && ops_spec["ops"][op].get("missing").is_none();
                if !runnable {
                    assert_eq!(
                        ops::resolve(&d).unwrap_err().kind,
                        ResolveErrorKind::Incomplete
                    );
                }
            }
        }
        if let Some(m) = entry.get("mention") {
            let key = m["structure"].as_str().unwrap();
            let kind = agent_sentences::SentenceKind::ALL
                .iter()
                .find(|k| k.key() == key)
                .unwrap();
            let marker = kind.tag().replace(" ]", "]");
            assert!(line.contains(&marker), "{line} names {marker}");
            if let Some(field) = m.get("values_of") {
                assert_eq!(field, "status");
                for status in agent_sentences::Status::ALL {
                    assert!(line.contains(status.as_str()), "{line} lists {status}");
                }
            }
        }
    }
}

#[test]
fn render_is_wrap_without_the_check() {
    // A work order's body runs to the end of the text: rendered, but not wrapped.
    let wo = agent_sentences::SentenceKind::WorkOrder.example_sentence();
    let (text, footer) = envelope::render(wo, "7fce46e0");
    assert!(text.starts_with(wo) && text.ends_with(&text[footer.clone()]));
    let e = envelope::wrap(wo, "7fce46e0").unwrap_err();
    assert!(
        e.message
            .starts_with("the envelope does not read as itself: a sentence at bytes 0.."),
        "{e}"
    );
}

#[test]
fn the_guide_shows_the_example_as_wrap_renders_it() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/guide/envelope.md"
    ))
    .unwrap();
    let file = spec("envelope.json");
    let text = envelope::wrap(
        file["example"]["message"].as_str().unwrap(),
        file["example"]["id"].as_str().unwrap(),
    )
    .unwrap();
    assert!(
        readme.contains(&format!("```text\n{text}\n```")),
        "docs/guide/envelope.md's envelope example is stale:\n{text}"
    );
}
