//! A deliberate change to one pattern in `schema/regex_patterns.json` reaches
//! every generated output that carries the pattern (the Rust crate, the Python
//! package, and any later output such as the docs) and makes a shared vector
//! (`tests/vectors/`) fail in both languages until the vector is updated.
//!
//! The edit: `fleet_alert` accepts a message right after the colon
//! (`:[ \t]*` instead of `:[ \t]+`). The spec stays valid (its own examples
//! still pass), so only the vectors can notice, and
//! `sentences/fleet-alert-no-space-after-colon.json` does.
//!
//! - Python: the package generated from the edited spec is written to a
//!   temporary directory and the Python vector runner (`tests/python/vectors.py
//!   --package-dir`) is run against it: it fails on that vector, and passes on
//!   `generated/python`.
//! - Rust: compiling a second crate here would take minutes, so the test runs
//!   the vectors through the generator's reference parser
//!   (`examples::reference_parse`), which builds the same `\A(?:…)\z` regex from
//!   the model and applies the same fixed, unbound and repeated-group rules as
//!   the generated `parse`. On the real spec the reference parser agrees with
//!   every sentence vector, as the generated crate does
//!   (`tests/downstream/tests/vectors.rs`); on the edited spec it disagrees
//!   with that vector, and the regenerated crate embeds exactly the edited
//!   regex (checked below), so the regenerated crate fails it too.

use std::path::Path;
use std::process::Command;

use agent_sentences_codegen::lower::{FieldTy, Model};
use agent_sentences_codegen::{examples, generate, Mode};
use indexmap::IndexMap;
use serde_json::Value;

const OLD: &str = r":[ \t]+(?P<message>";
const NEW: &str = r":[ \t]*(?P<message>";
const VECTOR: &str = "fleet-alert-no-space-after-colon.json";

mod common;

use common::root;

/// A copy of the real spec with the `fleet_alert` pattern edited.
fn edited_spec() -> tempfile::TempDir {
    common::edited_spec("regex_patterns.json", |text| {
        common::replace_once(text, &OLD.replace('\\', "\\\\"), &NEW.replace('\\', "\\\\"));
    })
}

/// The first structure (spec order) whose reference parse accepts `text`,
/// with each field's canonical text.
fn reference_outcome(
    model: &Model,
    text: &str,
) -> Option<(String, IndexMap<String, Option<String>>)> {
    model.sentences.iter().find_map(|s| {
        examples::reference_parse_within(s, text, model.directives.limits.max_args_bytes)
            .ok()
            .map(|v| (s.key.clone(), v))
    })
}

/// `None` when the reference parser of `model` reads a sentence vector as the
/// vector says, else what differs. Cases parsed as one structure
/// (`parse_as`) are skipped: they test error details, not the pattern.
fn reference_check(model: &Model, case: &Value) -> Option<String> {
    if case.get("parse_as").is_some() {
        return None;
    }
    let got = reference_outcome(model, case["input"].as_str().unwrap());
    let (key, values) = match (got, case["structure"].as_str()) {
        (None, None) => return None,
        (Some((key, _)), None) => {
            return Some(format!("reads as `{key}`, the vector expects no sentence"))
        }
        (None, Some(want)) => {
            return Some(format!(
                "no structure accepts it, the vector expects `{want}`"
            ))
        }
        (Some((key, _)), Some(want)) if key != want => {
            return Some(format!("reads as `{key}`, the vector expects `{want}`"))
        }
        (Some(got), Some(_)) => got,
    };
    let sentence = model.sentences.iter().find(|s| s.key == key).unwrap();
    for f in &sentence.fields {
        let want = match (&case["value"][&f.name], &f.ty) {
            (Value::Null, _) => None,
            (Value::Object(m), FieldTy::JsonObject) => {
                Some(agent_sentences_runtime::json::render_object(m))
            }
            (Value::String(s), _) => Some(s.clone()),
            (other, _) => Some(other.to_string()),
        };
        if values[&f.name] != want {
            return Some(format!(
                "field `{}` is {:?}, the vector says {want:?}",
                f.name, values[&f.name]
            ));
        }
    }
    None
}

fn sentence_vectors() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(root().join("tests/vectors/sentences"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn failing(model: &Model) -> Vec<String> {
    sentence_vectors()
        .iter()
        .filter_map(|(n, c)| reference_check(model, c).map(|m| format!("{n}: {m}")))
        .collect()
}

/// Runs the vector runner on the package in `package_dir`, or on the
/// installed one (`None`).
fn python_vectors(package_dir: Option<&Path>) -> (bool, String) {
    let mut cmd = Command::new(common::python());
    cmd.arg(root().join("tests/python/vectors.py"));
    if let Some(dir) = package_dir {
        cmd.arg("--package-dir").arg(dir);
    }
    let out = cmd
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("Python 3.11+ runs the Python vector runner (set PYTHON to pick one)");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_reference_parser_agrees_with_every_vector_on_the_real_spec() {
    let real = generate(&root().join("schema")).unwrap();
    let fails = failing(&real.model);
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// The test below, as `cargo xtask test` filters it.
const TEST: &str = "a_pattern_change_reaches_every_output";

#[test]
fn a_pattern_change_reaches_every_output_and_fails_a_vector_in_both_languages() {
    let real = generate(&root().join("schema")).unwrap();
    let spec = edited_spec();
    let edited =
        generate(spec.path()).unwrap_or_else(|r| panic!("the edited spec stays valid:\n{r}"));

    // Every output that carried the old pattern now carries the new one.
    let source = |m: &Model| {
        m.patterns
            .iter()
            .find(|p| p.key == "fleet_alert")
            .unwrap()
            .source
            .clone()
    };
    let (old_src, new_src) = (source(&real.model), source(&edited.model));
    assert_eq!(new_src, old_src.replace(OLD, NEW));
    let carriers: Vec<&String> = real
        .files
        .iter()
        .filter(|(_, text)| text.contains(&old_src))
        .map(|(p, _)| p)
        .collect();
    for required in ["rust/src/lib.rs", "python/agent_sentences/patterns.py"] {
        assert!(
            carriers.iter().any(|p| *p == required),
            "{required} carries the pattern: {carriers:?}"
        );
    }
    for path in &carriers {
        let text = &edited.files[*path];
        assert!(
            text.contains(&new_src) && !text.contains(&old_src),
            "{path} was not updated with the pattern"
        );
    }
    assert!(
        edited.files["rust/src/lib.rs"].contains(&format!(r"\A(?:{new_src})\z")),
        "the crate full-matches the edited pattern"
    );
    for path in [
        "rust/src/lib.rs",
        "python/agent_sentences/patterns.py",
        "python/agent_sentences/sentences.py",
    ] {
        assert_ne!(real.files[path], edited.files[path], "{path} changed");
    }

    // Rust (through the reference parser): exactly that vector now fails.
    let fails = failing(&edited.model);
    assert_eq!(fails.len(), 1, "{fails:#?}");
    assert!(
        fails[0].starts_with(VECTOR) && fails[0].contains("reads as `fleet_alert`"),
        "{fails:#?}"
    );

    // Python: the package generated from the edited spec fails the vector; the real one passes.
    // The generated package needs its compiled module: the installed one (built
    // from the real spec by `cargo xtask test`) serves, since sentences are
    // parsed in Python and the edit changes no structure, only a pattern.
    let out = tempfile::tempdir().unwrap();
    edited.sync(out.path(), Mode::Write).unwrap();
    if !common::copy_installed_native_module(&common::python(), &out.path().join("python"), TEST) {
        return;
    }
    let (ok, log) = python_vectors(Some(&out.path().join("python")));
    assert!(
        !ok && log.contains(&format!("sentences/{VECTOR}: expected the error")),
        "{log}"
    );
    let (ok, log) = python_vectors(None);
    assert!(ok && log.contains(" 0 failed"), "{log}");
}
