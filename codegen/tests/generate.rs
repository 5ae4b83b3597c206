//! End-to-end tests of the generator on the real spec and on broken copies.

use agent_sentences_codegen::{generate, lint, Mode, Severity};

mod common;

use common::{replace_once, root};

/// The drift check as a plain test: `cargo test` alone catches a stale
/// `generated/`.
#[test]
fn generated_dir_matches_the_spec() {
    let g =
        generate(&root().join("schema")).unwrap_or_else(|r| panic!("the spec has errors:\n{r}"));
    let drifts = g.sync(&root().join("generated"), Mode::Check).unwrap();
    let shown: Vec<String> = drifts.iter().map(|d| d.to_string()).collect();
    assert!(
        drifts.is_empty(),
        "generated/ differs from the spec; run `cargo xtask gen`:\n{}",
        shown.join("\n")
    );
}

/// The Python package's `SkipReason` literal is the runtime's list (P226):
/// the same names in the same order, each documented with the runtime's
/// summary, in the committed file (a hand edit of either side fails here).
#[test]
fn python_skip_reasons_are_the_runtimes() {
    use agent_sentences_runtime::scan::SkipReason;
    let path = root().join("generated/python/agent_sentences/scanner.py");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find("SkipReason = Literal[\n")
        .expect("the SkipReason literal")
        + 22;
    let end = start + text[start..].find("]\n").expect("the literal closes");
    let python: Vec<&str> = text[start..end]
        .lines()
        .map(|l| l.trim().trim_end_matches(',').trim_matches('"'))
        .collect();
    let rust: Vec<&str> = SkipReason::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(python, rust, "{}", path.display());
    let doc = &text[end..];
    let doc = &doc[..doc.find("\n\"\"\"\n").expect("the docstring closes")];
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    for r in SkipReason::ALL {
        let entry = format!("- ``{}``: {}", r.as_str(), r.summary().replace('`', "``"));
        let entry = entry.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            doc.contains(&entry),
            "{r:?} is documented with its summary: {entry}"
        );
    }
}

#[test]
fn generation_is_deterministic_and_idempotent() {
    let a = generate(&root().join("schema")).unwrap();
    let b = generate(&root().join("schema")).unwrap();
    assert_eq!(a.files, b.files);
    let out = tempfile::tempdir().unwrap();
    let first = a.sync(out.path(), Mode::Write).unwrap();
    assert_eq!(
        first.len(),
        a.files.len(),
        "every file is new the first time"
    );
    // A time no write today can give the file: a rewrite would change it,
    // whatever the clock's resolution.
    let lib = out.path().join("rust/src/lib.rs");
    let before = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(&lib)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let second = b.sync(out.path(), Mode::Write).unwrap();
    assert!(
        second.is_empty(),
        "a second run changes nothing: {second:?}"
    );
    assert_eq!(
        std::fs::metadata(&lib).unwrap().modified().unwrap(),
        before,
        "unchanged files are not rewritten"
    );
}

#[test]
fn every_generated_file_is_marked_generated() {
    let g = generate(&root().join("schema")).unwrap();
    for (path, text) in &g.files {
        assert!(
            text.contains("@generated"),
            "{path} has no @generated marker"
        );
        assert!(
            text.contains("cargo xtask gen"),
            "{path} does not name the command that regenerates it"
        );
    }
}

/// The lint's findings on the real spec are the known inconsistencies of the
/// owner's spec, each with a decision in `docs/decisions/`. Runs `python3` too: the
/// real spec must read the same in both engines.
#[test]
fn real_spec_has_only_the_known_warnings() {
    let report = lint(&root().join("schema"));
    assert!(!report.has_errors(), "{report}");
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.severity == Severity::Warning),
        "{report}"
    );
    // Every finding is acknowledged in the spec with its decision, and every
    // acknowledgement names a finding: the list is the spec's, not the test's.
    let found: Vec<(&str, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    let spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/regex_patterns.json")).unwrap(),
    )
    .unwrap();
    let known: Vec<(&str, &str)> = spec["known_findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["code"].as_str().unwrap(), k["pointer"].as_str().unwrap()))
        .collect();
    let mut sorted_known = known.clone();
    sorted_known.sort();
    let mut sorted_found = found.clone();
    sorted_found.sort();
    assert_eq!(
        sorted_found, sorted_known,
        "the real spec's findings are the acknowledged ones"
    );
    assert!(
        report.new_findings().next().is_none()
            && report.stale_known().is_empty()
            && !report.has_new_warnings()
    );
    let mut decisions = String::new();
    for e in std::fs::read_dir(root().join("docs/decisions")).unwrap() {
        decisions.push_str(&std::fs::read_to_string(e.unwrap().path()).unwrap());
    }
    for k in spec["known_findings"].as_array().unwrap() {
        let decision = k["decision"].as_str().unwrap();
        assert!(
            decisions.contains(&format!("\n## {decision}\n")),
            "decision {decision} is not in docs/decisions/"
        );
    }
    // The messages of the kinds `docs/spec-known-issues.md` names, one of each.
    let messages = [
        (
            "marker-format-mismatch",
            "/structures/contract_footer/template",
            "`[ACK {id}]` does not have the form of the `ack` marker, whose template writes `[ACK:{dm_id}]`",
            "write it as the template does (`[ACK:id]`), or record a decision for accepting both forms",
        ),
        (
            "regex-ref-enum-wider",
            "/structures/claim/regex_ref",
            "regex_ref `verb` accepts the `verb` values `ACK`, `RESULT`, `DECLINE`, `NO-ACTION` too, but the structure's template writes only `CLAIM`",
            "the binding fixes `verb` to `CLAIM` (/bindings/claim/fixed/verb), so no other value parses as `claim`",
        ),
        (
            "regex-ref-enum-wider",
            "/structures/tool_call/regex_ref",
            "regex_ref `tool_call` accepts the `engine` values `EXEC` too, but the structure's template writes only `TOOL`",
            "the binding fixes `engine` to `TOOL` (/bindings/tool_call/fixed/engine), so no other value parses as `tool_call`",
        ),
        (
            "regex-ref-enum-wider",
            "/structures/decline/regex_ref",
            "regex_ref `verb` accepts the `verb` values `ACK`, `CLAIM`, `RESULT`, `NO-ACTION` too, but the structure's template writes only `DECLINE`",
            "the binding parses `decline` with pattern `decline` instead (/bindings/decline/pattern)",
        ),
        (
            "regex-ref-cannot-parse",
            "/structures/no_action/regex_ref",
            "regex_ref `verb` cannot parse `no_action`: no group of it captures the required field(s) `reason`",
            "the binding parses `no_action` with pattern `no_action` instead (/bindings/no_action/pattern)",
        ),
    ];
    for (code, pointer, message, hint) in messages {
        let d = report
            .diagnostics
            .iter()
            .find(|d| d.code == code && d.pointer == pointer)
            .unwrap();
        assert_eq!(
            (d.message.as_str(), d.hint.as_deref()),
            (message, Some(hint)),
            "{code} at {pointer}"
        );
    }
}

pub fn broken_spec(file: &str, edit: impl FnOnce(&mut String)) -> tempfile::TempDir {
    common::edited_spec(file, edit)
}

#[test]
fn several_faults_are_all_reported_with_locations() {
    let dir = broken_spec("structures.json", |t| {
        replace_once(t, "\"regex_ref\": \"nudge\"", "\"regex_ref\": \"nudgee\"");
        replace_once(
            t,
            "\"template\": \"[CLAIM {job_id}]\"",
            "\"template\": \"[CLAIM {job}]\"",
        );
        replace_once(
            t,
            "\"example\": \"[ACK:7fce46e0] [from 646]\"",
            "\"example\": \"[ACK:zz] [from 646]\"",
        );
    });
    let edited = std::fs::read_to_string(dir.path().join("structures.json")).unwrap();
    // The 1-based line and column where `needle`, which occurs once, is.
    let at = |needle: &str| {
        assert_eq!(edited.matches(needle).count(), 1, "{needle}");
        let offset = edited.find(needle).unwrap();
        let line_start = edited[..offset].rfind('\n').map_or(0, |i| i + 1);
        (
            edited[..offset].matches('\n').count() + 1,
            edited[line_start..offset].chars().count() + 1,
        )
    };
    let report = generate(dir.path()).unwrap_err();
    let found: Vec<(&str, &str, usize, usize)> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.code, d.pointer.as_str(), d.line, d.column))
        .collect();
    assert!(
        found.contains(&{
            let (line, column) = at("\"[ACK:zz] [from 646]\"");
            ("example-no-match", "/structures/ack/example", line, column)
        }),
        "{found:?}"
    );
    assert!(
        found.contains(&{
            let (line, column) = at("\"nudgee\"");
            (
                "unknown-regex-ref",
                "/structures/nudge/regex_ref",
                line,
                column,
            )
        }),
        "{found:?}"
    );
    assert!(
        found.contains(&{
            let (line, column) = at("\"[CLAIM {job}]\"");
            (
                "placeholder-not-field",
                "/structures/claim/template",
                line,
                column,
            )
        }),
        "{found:?}"
    );
    let nudge = report
        .diagnostics
        .iter()
        .find(|d| d.code == "unknown-regex-ref")
        .unwrap();
    assert_eq!(nudge.hint.as_deref(), Some("did you mean `nudge`?"));
    assert!(nudge.file.ends_with("structures.json"));
}

#[test]
fn shape_errors_in_several_entries_are_all_reported() {
    let dir = broken_spec("regex_patterns.json", |t| {
        replace_once(
            t,
            "\"purpose\": \"6–12 character lower-case hex IDs.\",",
            "\"purpos\": \"x\",",
        );
        replace_once(
            t,
            "\"flags\": [\n        \"DOTALL\"\n      ],\n      \"groups\": {\n        \"engine\"",
            "\"flags\": [\"VERBOSE\"],\n      \"groups\": {\n        \"engine\"",
        );
    });
    let report = generate(dir.path()).unwrap_err();
    let found: Vec<(&str, &str)> = report
        .diagnostics
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(found.len(), 2, "{report}");
    assert!(
        found.contains(&("spec-shape", "/patterns/short_hex/purpos")),
        "{found:?}"
    );
    assert!(
        found.contains(&("spec-shape", "/patterns/tool_call/flags/0")),
        "{found:?}"
    );
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.line > 1 && d.column > 1),
        "{report}"
    );
}

#[test]
fn example_and_pattern_faults_are_reported_together() {
    let dir = broken_spec("regex_patterns.json", |t| {
        // A pattern outside the common dialect, and an example that no longer matches.
        replace_once(
            t,
            r#""pattern": "(?P<hex>[0-9a-f]{6,12})""#,
            r#""pattern": "(?P<hex>\\w{6,12})""#,
        );
        replace_once(t, r#""[CLAIM 7fce 46e0]""#, r#""[CLAIM 7fce46e0]""#);
    });
    let report = generate(dir.path()).unwrap_err();
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&"pattern-dialect"), "{report}");
    assert!(codes.contains(&"non-match-matches"), "{report}");
}

#[test]
fn render_mismatch_is_an_error() {
    let dir = broken_spec("structures.json", |t| {
        replace_once(
            t,
            "\"template\": \"[fleet-alert] {severity}: {message}\"",
            "\"template\": \"[fleet-alert] {severity}:  {message}\"",
        );
    });
    let report = generate(dir.path()).unwrap_err();
    let d = report
        .diagnostics
        .iter()
        .find(|d| d.code == "example-render-differs")
        .expect("render mismatch found");
    assert_eq!(d.pointer, "/structures/fleet_alert/example");
    assert!(
        d.message
            .contains("[fleet-alert] CRITICAL:  VM unreachable"),
        "{}",
        d.message
    );
}

#[test]
fn json_syntax_error_has_line_and_column() {
    let dir = broken_spec("structures.json", |t| {
        replace_once(
            t,
            "\"title\": \"Agent Sentence Structures & Protocols\",",
            "\"title\": \"x\",,",
        )
    });
    let report = generate(dir.path()).unwrap_err();
    assert_eq!(report.diagnostics.len(), 1);
    let d = &report.diagnostics[0];
    assert_eq!((d.code, d.line), ("json-syntax", 3));
}

#[test]
fn directive_grammar_faults_are_all_reported() {
    let dir = broken_spec("directives.json", |t| {
        replace_once(t, "\"box\": \"TOOL\"", "\"box\": \"TOLO\"");
        replace_once(t, "\"tools\": \"tools.list\"", "\"tools\": \"tools list\"");
        replace_once(t, "\"max_json_depth\": 64", "\"max_json_depth\": 0");
    });
    let report = generate(dir.path()).unwrap_err();
    let found: Vec<(&str, &str, usize)> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.code, d.pointer.as_str(), d.line))
        .collect();
    assert_eq!(
        found,
        vec![
            ("unknown-engine", "/fences/info_strings/box", 30),
            ("invalid-op", "/aliases/tools", 104),
            // The catalogue has no such op either (schema/ops.json).
            ("unknown-op", "/aliases/tools", 104),
            ("unusable-limits", "/limits", 106),
        ]
    );
    let engine = &report.diagnostics[0];
    assert_eq!(engine.hint.as_deref(), Some("did you mean `TOOL`?"));
    assert!(engine.file.ends_with("directives.json"));
}
