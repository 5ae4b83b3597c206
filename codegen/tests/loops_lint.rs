//! The lint of `schema/loops.json`: each fault it reports, located, all at
//! once; and a spec without the file generates no tracker.

mod common;

use agent_sentences_codegen::{generate, lint_with, Python, Severity};
use common::{edited_spec, replace_once, root};

fn findings(dir: &std::path::Path) -> Vec<(String, String, String)> {
    let report = lint_with(dir, &Python::Off);
    report
        .diagnostics
        .iter()
        .filter(|d| d.file.ends_with("loops.json") && d.severity == Severity::Error)
        .map(|d| (d.code.to_owned(), d.pointer.clone(), d.message.clone()))
        .collect()
}

#[test]
fn the_real_loops_file_is_clean() {
    assert!(findings(&root().join("schema")).is_empty());
}

#[test]
fn every_fault_of_the_loops_file_is_reported_at_once_and_located() {
    let spec = edited_spec("loops.json", |t| {
        replace_once(t, r#""claimed_by": "claim""#, r#""claimed_by": "clam""#);
        replace_once(t, r#""ack": "dm_id""#, r#""ack": "sender""#);
        replace_once(
            t,
            r#""no_action": "job_id""#,
            r#""no_action": "job_id", "job_marker": "job_id", "tool_call": "op""#,
        );
        replace_once(t, r#""count": "count""#, r#""count": "counter""#);
        replace_once(t, r#""max_nudges": 3"#, r#""max_nudges": 0"#);
    });
    let got = findings(spec.path());
    let codes: Vec<(&str, &str)> = got
        .iter()
        .map(|(c, p, _)| (c.as_str(), p.as_str()))
        .collect();
    for expected in [
        ("unknown-structure", "/claimed_by"),
        ("loop-id-missing", "/loop_id"),
        ("loop-id-not-required", "/loop_id/ack"),
        ("move-not-one-step", "/loop_id/tool_call"),
        ("nudge-role-not-required", "/nudge/count"),
        ("nudge-field-without-role", "/nudge"),
        ("sla-zero", "/sla"),
    ] {
        assert!(codes.contains(&expected), "{expected:?} not in {got:#?}");
    }
    // `[JOB …]`'s `dispatched -> tracked` is one move: allowed as a rule (it can never fire).
    assert!(
        !codes.contains(&("move-not-one-step", "/loop_id/job_marker")),
        "{got:#?}"
    );
    let (_, _, message) = got
        .iter()
        .find(|(c, _, _)| c == "loop-id-not-required")
        .unwrap();
    assert_eq!(
        message,
        "`sender` is not a required field of `ack`: every sentence must name its loop"
    );
    // Nothing is generated from a spec with errors.
    assert!(generate(spec.path()).is_err());
}

#[test]
fn a_spec_without_a_loops_file_generates_no_tracker() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["structures.json", "regex_patterns.json", "directives.json"] {
        std::fs::copy(root().join("schema").join(f), dir.path().join(f)).unwrap();
    }
    let g = generate(dir.path()).unwrap_or_else(|r| panic!("{r}"));
    assert!(!g.files["rust/src/lib.rs"].contains("pub mod loops"));
    assert!(!g.files.contains_key("python/agent_sentences/loops.py"));
    assert!(!g.files["python/native/src/lib.rs"].contains("fn tracker"));
    let real = generate(&root().join("schema")).unwrap();
    assert!(real.files["rust/src/lib.rs"].contains("pub mod loops"));
}
