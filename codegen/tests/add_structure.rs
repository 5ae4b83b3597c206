//! A structure added to a copy of the spec, as the README's "Adding a
//! structure" says, with no other change: the lint finds nothing new, the
//! generator writes it into every output, the Python package generated from
//! the copy parses, renders and scans its example and still passes every
//! shared vector, and the generator's reference parser (the generated Rust
//! `parse`'s rules, see `spec_change.rs`) reads it.
//!
//! The structure, `heartbeat` (`[HEARTBEAT {agent_id}]`), is this test's
//! own; the expectations come from it and from the spec, not from lists.

use std::path::Path;
use std::process::Command;

use agent_sentences_codegen::{check, generate, lint_with, Mode, Python};
use serde_json::{json, Value};

mod common;

use common::root;

const KEY: &str = "heartbeat";
const EXAMPLE: &str = "[HEARTBEAT 646]";

/// The real spec (with its op catalogue, whose findings it acknowledges)
/// with `heartbeat` added at the end of both files.
fn spec_with_a_new_structure() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "structures.json",
        "regex_patterns.json",
        "directives.json",
        "ops.json",
        "envelope.json",
    ] {
        std::fs::copy(root().join("schema").join(f), dir.path().join(f)).unwrap();
    }
    let edit = |name: &str, f: &dyn Fn(&mut Value)| {
        let path = dir.path().join(name);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
    };
    edit("structures.json", &|v| {
        v["structures"][KEY] = json!({
            "name": "Heartbeat",
            "protocol_tag": "[HEARTBEAT ]",
            "template": "[HEARTBEAT {agent_id}]",
            "description": "Periodic liveness signal from an agent session.",
            "required_fields": ["agent_id"],
            "optional_fields": [],
            "regex_ref": KEY,
            "reply_expectation": "No reply expected.",
            "example": EXAMPLE,
            "lifecycle_transition": "heartbeat"
        });
    });
    edit("regex_patterns.json", &|v| {
        v["patterns"][KEY] = json!({
            "purpose": "Parses a liveness signal: [HEARTBEAT <agent id>].",
            "pattern": r"\[HEARTBEAT[ \t]+(?P<agent_id>[A-Za-z0-9_-]+)\]",
            "flags": [],
            "groups": {"agent_id": {"description": "The agent session that is alive.", "type": "string"}},
            "matches": [{"text": EXAMPLE, "captures": {"agent_id": "646"}}],
            "non_matches": ["[HEARTBEAT]", "[heartbeat 646]"]
        });
    });
    dir
}

fn run_python(package_dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(common::python())
        .args(args)
        .env("PYTHONPATH", package_dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("Python 3.11+ runs the generated package (set PYTHON to pick one)");
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
fn a_structure_added_to_the_spec_alone_is_generated_and_read_in_both_languages() {
    let spec = spec_with_a_new_structure();
    let report = lint_with(spec.path(), &Python::Off);
    assert!(
        !report.has_errors() && !report.has_new_warnings(),
        "{report}"
    );

    let g = generate(spec.path()).unwrap_or_else(|r| panic!("{r}"));
    let s = g
        .model
        .sentences
        .iter()
        .find(|s| s.key == KEY)
        .expect("the structure is in the model");
    assert_eq!(
        check::reference_parse_within(s, EXAMPLE, usize::MAX).unwrap()["agent_id"].as_deref(),
        Some("646")
    );
    for (path, needle) in [
        ("rust/src/lib.rs", "pub struct Heartbeat"),
        ("python/agent_sentences/sentences.py", "class Heartbeat"),
        ("docs/SENTENCE-STRUCTURE.md", EXAMPLE),
        ("docs/REGEX-PATTERNS.md", "HEARTBEAT"),
    ] {
        assert!(g.files[path].contains(needle), "{path} lacks {needle:?}");
    }

    // The scanner is the Rust crate's (the Python package scans through its
    // compiled module): the new structure is in the generated scan table.
    // Compiling the regenerated crate and module here would take minutes, so
    // the Python package runs with the installed module (built from the real
    // spec), and reads the new structure with its generated Python `parse`.
    assert!(
        g.files["rust/src/lib.rs"].contains(&format!("key: {KEY:?}")),
        "the scan table lists {KEY}"
    );
    let out = tempfile::tempdir().unwrap();
    g.sync(out.path(), Mode::Write).unwrap();
    let package = out.path().join("python");
    common::copy_installed_native_module(&common::python(), &package);
    let probe = format!(
        "import agent_sentences as A\n\
         s = A.parse({EXAMPLE:?})\n\
         assert s.to_sentence_dict() == {{'structure': {KEY:?}, 'agent_id': '646'}}, s.to_sentence_dict()\n\
         assert s.render() == {EXAMPLE:?}\n"
    );
    let (ok, log) = run_python(&package, &["-c", &probe]);
    assert!(ok, "{log}");
    let runner = root().join("tests/python/vectors.py");
    let (ok, log) = run_python(
        &package,
        &[
            runner.to_str().unwrap(),
            "--package-dir",
            package.to_str().unwrap(),
        ],
    );
    assert!(
        ok,
        "the shared vectors still hold with the structure added:\n{log}"
    );
}
