//! The spec lint, one finding kind at a time.
//!
//! Each case copies the real spec, edits it in one place, and asserts exactly
//! what the lint reports beyond what it reports on the real spec: severity,
//! code, file, JSON pointer, line:column, message and hint. No line number of
//! the real spec is written here: the expected line:column is where the
//! case's `at` text first occurs in the edited file after the keys of the
//! finding's JSON pointer (found in the text, not through the generator's
//! locator), so a spec edit elsewhere moves nothing, and a position that is
//! off by one cannot pass.
//! The last test applies several cases at once and expects all their findings.

use std::path::{Path, PathBuf};

use agent_sentences_codegen::{lint_with, Diagnostic, Python, Severity};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// One textual edit of one spec file; `from` must occur exactly once.
#[derive(Clone, Copy)]
struct Edit {
    file: &'static str,
    from: &'static str,
    to: &'static str,
}

/// One expected finding.
#[derive(Clone, Copy, Debug)]
struct Want {
    severity: Severity,
    code: &'static str,
    file: &'static str,
    pointer: &'static str,
    /// The text the finding points at: the first occurrence, in the edited
    /// file, after where the pointer's path is written ([`position`]); its
    /// line:column is the finding's.
    at: &'static str,
    message: &'static str,
    hint: Option<&'static str>,
}

/// Which Python a case lints with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Py {
    /// No Python check (most cases: they are about other checks).
    Off,
    /// The real `python3`.
    Real,
    /// An interpreter that does not exist.
    Missing,
}

/// A fixture: edits, the findings they add to the real spec's, and the real
/// spec's findings they replace, by (code, pointer).
struct Case {
    edits: Vec<Edit>,
    python: Py,
    want: Vec<Want>,
    gone: Vec<(&'static str, &'static str)>,
}

const S: &str = "structures.json";
const P: &str = "regex_patterns.json";
const O: &str = "ops.json";
const D: &str = "directives.json";
const N: &str = "envelope.json";
const W: Severity = Severity::Warning;
const E: Severity = Severity::Error;

fn python() -> Python {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "these tests need `python3` on PATH (the lint compares the patterns with Python's `re`)"
    );
    Python::default()
}

/// Writes the edited spec to a temporary directory.
fn edited_spec(edits: &[Edit]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in [S, P, "directives.json", "loops.json", "ops.json", N] {
        let mut text = std::fs::read_to_string(root().join("schema").join(f)).unwrap();
        for e in edits.iter().filter(|e| e.file == f) {
            assert_eq!(
                text.matches(e.from).count(),
                1,
                "`{}` must occur once in {f}",
                e.from
            );
            text = text.replacen(e.from, e.to, 1);
        }
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    dir
}

/// The findings with `file` reduced to the file name, so the findings of
/// two spec directories compare.
fn findings(dir: &Path, python: &Python) -> Vec<Diagnostic> {
    lint_with(dir, python)
        .diagnostics
        .into_iter()
        .map(|mut d| {
            d.file = Path::new(&d.file)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            d
        })
        .collect()
}

/// The byte offset of key `key` (its opening quote) at or after `from`:
/// the key as JSON writes it, followed by blanks and a colon, not inside a
/// string (no backslash before it).
fn find_key(text: &str, from: usize, key: &str) -> Option<usize> {
    let quoted = serde_json::to_string(key).unwrap();
    let mut at = from;
    while let Some(i) = text[at..].find(&quoted) {
        let start = at + i;
        let after = text[start + quoted.len()..].trim_start();
        if after.starts_with(':') && !text[..start].ends_with('\\') {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// The 1-based line and character column where `at` first occurs in `text`
/// after the keys of `pointer`: each key is looked for after the one
/// before; an array index `n` followed by a key takes that key's `n`+1-th
/// occurrence (or its first, when fewer elements hold it); the last key's own position counts (a duplicate key's `at`
/// starts after it).
fn position(text: &str, pointer: &str, at: &str) -> (usize, usize) {
    let segments: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut pos = 0;
    let mut i = 0;
    let missing =
        |what: &str| -> ! { panic!("{what} of `{pointer}` not found in the edited file") };
    while i < segments.len() {
        let seg = &segments[i];
        let is_index = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
        if is_index {
            if let Some(next) = segments.get(i + 1) {
                let n: usize = seg.parse().unwrap();
                // (When fewer elements hold the key, the first that does.)
                let start = pos;
                for _ in 0..=n {
                    match find_key(text, pos, next) {
                        Some(k) => pos = k + 1,
                        None if pos > start => {
                            pos = find_key(text, start, next).unwrap_or_else(|| missing(next)) + 1;
                            break;
                        }
                        None => missing(next),
                    }
                }
                i += 2;
                continue;
            }
        } else {
            pos = find_key(text, pos, seg).unwrap_or_else(|| missing(seg)) + 1;
        }
        i += 1;
    }
    let offset = pos + text[pos..].find(at).unwrap_or_else(|| missing(at));
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..offset].matches('\n').count() + 1,
        text[line_start..offset].chars().count() + 1,
    )
}

fn run(case: &Case) {
    let python = match case.python {
        Py::Off => Python::Off,
        Py::Real => python(),
        Py::Missing => Python::Command("/nonexistent/python3".into()),
    };
    // The baseline never runs Python, so a case's Python findings show, and
    // the real spec's own Python reading is a case of its own.
    static BASELINE: std::sync::OnceLock<Vec<Diagnostic>> = std::sync::OnceLock::new();
    let baseline = BASELINE.get_or_init(|| findings(&root().join("schema"), &Python::Off));
    let dir = edited_spec(&case.edits);
    let found = findings(dir.path(), &python);
    // A finding of the real spec is the same finding in the edited one
    // wherever its line moved: compared by all but line:column.
    let same = |a: &Diagnostic, b: &Diagnostic| {
        (a.severity, a.code, &a.file, &a.pointer, &a.message, &a.hint)
            == (b.severity, b.code, &b.file, &b.pointer, &b.message, &b.hint)
    };
    let added: Vec<&Diagnostic> = found
        .iter()
        .filter(|d| !baseline.iter().any(|b| same(b, d)))
        .collect();
    let removed: Vec<&Diagnostic> = baseline
        .iter()
        .filter(|b| !found.iter().any(|d| same(b, d)))
        .collect();
    let shown = |ds: &[&Diagnostic]| {
        ds.iter()
            .map(|d| format!("{d:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let gone: Vec<(&str, &str)> = removed
        .iter()
        .map(|d| (d.code, d.pointer.as_str()))
        .collect();
    assert_eq!(
        gone,
        case.gone,
        "findings of the real spec that the edit hides:\n{}",
        shown(&removed)
    );
    let mut want: Vec<Diagnostic> = case
        .want
        .iter()
        .map(|w| {
            let text = std::fs::read_to_string(dir.path().join(w.file)).unwrap();
            let (line, column) = position(&text, w.pointer, w.at);
            Diagnostic {
                severity: w.severity,
                code: w.code,
                file: w.file.to_owned(),
                pointer: w.pointer.to_owned(),
                line,
                column,
                message: w.message.to_owned(),
                hint: w.hint.map(str::to_owned),
            }
        })
        .collect();
    // The report is sorted by file, line, column, code, message.
    want.sort_by(|a, b| {
        (&a.file, a.line, a.column, a.code, &a.message)
            .cmp(&(&b.file, b.line, b.column, b.code, &b.message))
    });
    let got: Vec<Diagnostic> = added.iter().map(|d| (*d).clone()).collect();
    let literal = |d: &Diagnostic| {
        format!(
            "Want {{ severity: {}, code: {:?}, file: {}, pointer: {:?}, at: \"\", message: {:?}, hint: {:?} }}, // at {}:{}",
            if d.severity == E { "E" } else { "W" },
            d.code,
            match d.file.as_str() {
                S => "S",
                P => "P",
                O => "O",
                N => "N",
                _ => "D",
            },
            d.pointer,
            d.message,
            d.hint,
            d.line,
            d.column
        )
    };
    assert_eq!(
        got,
        want,
        "\nfound:\n{}",
        added
            .iter()
            .map(|d| literal(d))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// --- a pattern group that fills no field, and a field no group fills ------

fn group_without_field() -> Case {
    Case {
        edits: vec![
            Edit {
                file: P,
                from: r#"(?:[ \\t]+\\[from[ \\t]+(?P<sender>[A-Za-z0-9_-]+)\\])?""#,
                to: r#"(?:[ \\t]+\\[from[ \\t]+(?P<sender>[A-Za-z0-9_-]+)\\])?(?:[ \\t]+\\[via[ \\t]+(?P<via>[a-z]+)\\])?""#,
            },
            Edit {
                file: P,
                from: "\"description\": \"Identity of the acknowledging operator or agent.\",\n          \"type\": \"string\"\n        }",
                to: "\"description\": \"Identity of the acknowledging operator or agent.\",\n          \"type\": \"string\"\n        }, \"via\": {\"description\": \"Relay.\", \"type\": \"string\"}",
            },
        ],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "group-without-field", file: P, pointer: "/patterns/ack/groups/via", at: "{\"description\": \"Relay.\"", message: "group `via` of `ack` fills no field of structure `ack`: `ack` does not match when it takes part", hint: Some("fix it in the binding of `ack`, or map it to a field") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_group_that_fills_no_field() {
    run(&group_without_field());
}

fn required_field_not_captured() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: "\"description\": \"The alert text; one line.\",\n          \"type\": \"string\"",
            to: "\"description\": \"The alert text; one line.\",\n          \"type\": \"string\", \"field\": \"text\"",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "group-without-field", file: P, pointer: "/patterns/fleet_alert/groups/message", at: "{", message: "group `message` of `fleet_alert` fills no field of structure `fleet_alert`: `fleet_alert` does not match when it takes part", hint: Some("fix it in the binding of `fleet_alert`, or map it to a field") },
            Want { severity: E, code: "required-field-not-captured", file: S, pointer: "/structures/fleet_alert/required_fields/1", at: "\"message\"", message: "required field `message` is captured by no group of pattern `fleet_alert`", hint: Some("add a group `(?P<message>…)` to `fleet_alert`, or map a group to it with `\"field\": \"message\"`") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_required_field_that_no_group_captures() {
    run(&required_field_not_captured());
}

// --- templates ------------------------------------------------------------

fn placeholder_not_field() -> Case {
    Case {
        edits: vec![Edit { file: S, from: "\"template\": \"[CLAIM {job_id}]\"", to: "\"template\": \"[CLAIM {job}]\"" }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "field-not-in-template", file: S, pointer: "/structures/claim/template", at: "\"[CLAIM {job}]\"", message: "field `job_id` is captured but the template never writes it, so rendering loses it", hint: None },
            Want { severity: E, code: "placeholder-not-field", file: S, pointer: "/structures/claim/template", at: "\"[CLAIM {job}]\"", message: "placeholder `{job}` is neither a required nor an optional field", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_placeholder_that_is_not_a_field() {
    run(&placeholder_not_field());
}

fn repeated_placeholder() -> Case {
    Case {
        edits: vec![Edit {
            file: S,
            from: "\"template\": \"[fleet-alert] {severity}: {message}\"",
            to: "\"template\": \"[fleet-alert] {severity}: {message} ({message})\"",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "repeated-placeholder", file: S, pointer: "/structures/fleet_alert/template", at: "\"[fleet-alert] {severity}: {message} ({message})\"", message: "placeholder `{message}` appears 2 times but 1 group(s) fill it, so nothing says the repeats are equal", hint: Some("give the pattern one group per repeat, each with `\"field\": \"message\"`; the parser then requires equal captures") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_placeholder_repeated_with_no_rule_that_the_repeats_are_equal() {
    run(&repeated_placeholder());
}

fn optional_field_not_captured() -> Case {
    Case {
        edits: vec![Edit {
            file: S,
            from: "\"optional_fields\": [],\n      \"regex_ref\": \"verb\",\n      \"reply_expectation\": \"Worker",
            to: "\"optional_fields\": [\"note\"],\n      \"regex_ref\": \"verb\",\n      \"reply_expectation\": \"Worker",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "optional-field-not-captured", file: S, pointer: "/structures/claim/optional_fields/0", at: "\"note\"", message: "optional field `note` is captured by no group of pattern `verb`: it can never be parsed or rendered, and is left out of the generated types", hint: Some("add a group `(?P<note>…)` to `verb`, or map a group to it with `\"field\": \"note\"`") },
        ],
        gone: vec![],
    }
}

#[test]
fn an_optional_field_in_neither_template_nor_pattern() {
    run(&optional_field_not_captured());
}

// --- enumerations ---------------------------------------------------------

fn enum_list_incomplete() -> Case {
    Case {
        edits: vec![Edit {
            file: S,
            from: "evidence of a completed task and closes the tracked loop.\"",
            to: "evidence of a completed task and closes the tracked loop. Status options: OK, FAIL, SUCCESS, DECLINE.\"",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "enum-differs-from-text", file: S, pointer: "/structures/result/description", at: "OK, FAIL, SUCCESS, DECLINE.", message: "the text lists the `status` values `OK`, `FAIL`, `SUCCESS`, `DECLINE`, but pattern `result` also accepts `ERROR`", hint: Some("list every value of /patterns/result/groups/status/values, or narrow the group") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_text_that_lists_fewer_values_than_the_structures_enum() {
    run(&enum_list_incomplete());
}

fn enum_list_extra() -> Case {
    Case {
        edits: vec![Edit { file: S, from: "or [NO-ACTION id].", to: "or [DONE id]." }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "enum-differs-from-text", file: S, pointer: "/structures/work_order/reply_expectation", at: "[DONE id]", message: "the text lists `DONE` with values of group `verb` of pattern `verb`, which does not accept it", hint: Some("the group's values are `ACK`, `CLAIM`, `RESULT`, `DECLINE`, `NO-ACTION`") },
            Want { severity: W, code: "unknown-marker", file: S, pointer: "/structures/work_order/reply_expectation", at: "[DONE id]", message: "`[DONE id]` names the marker `DONE`, which no structure's template begins with", hint: Some("name a marker the spec defines, or add the structure") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_text_that_lists_a_value_the_enum_lacks() {
    run(&enum_list_extra());
}

fn regex_ref_enum_unbound() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: "\"claim\": {\n      \"pattern\": \"verb\",\n      \"fixed\": {\n        \"verb\": \"CLAIM\"\n      }\n    },\n    ",
            to: "",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "group-without-field", file: P, pointer: "/patterns/verb/groups/verb", at: "{", message: "group `verb` of `verb` fills no field of structure `claim`: `claim` does not match when it takes part", hint: Some("fix it in the binding of `claim`, or map it to a field") },
            Want { severity: W, code: "regex-ref-enum-wider", file: S, pointer: "/structures/claim/regex_ref", at: "\"verb\"", message: "regex_ref `verb` accepts the `verb` values `ACK`, `RESULT`, `DECLINE`, `NO-ACTION` too, but the structure's template writes only `CLAIM`", hint: Some("fix the group in the binding: /bindings/claim {\"fixed\": {\"verb\": \"CLAIM\"}}") },
            Want { severity: E, code: "example-no-match", file: S, pointer: "/structures/claim/example", at: "\"[CLAIM 7fce46e0]\"", message: "the example is not a `claim` sentence: group `verb` takes part but fills no field", hint: None },
        ],
        gone: vec![("regex-ref-enum-wider", "/structures/claim/regex_ref")],
    }
}

#[test]
fn a_regex_ref_enum_wider_than_the_template_with_no_binding() {
    run(&regex_ref_enum_unbound());
}

// --- references -----------------------------------------------------------

fn unknown_regex_ref() -> Case {
    Case {
        edits: vec![Edit {
            file: S,
            from: "\"regex_ref\": \"ack\"",
            to: "\"regex_ref\": \"akc\"",
        }],
        python: Py::Off,
        want: vec![Want {
            severity: E,
            code: "unknown-regex-ref",
            file: S,
            pointer: "/structures/ack/regex_ref",
            at: "\"akc\"",
            message: "regex_ref `akc` names no pattern in regex_patterns.json",
            hint: Some("did you mean `ack`?"),
        }],
        gone: vec![],
    }
}

#[test]
fn a_regex_ref_that_names_no_pattern() {
    run(&unknown_regex_ref());
}

// --- what the owner's files leave unsaid (P311, P312) ---------------------

fn unmarked_optional_placeholder() -> Case {
    Case {
        edits: vec![Edit {
            file: S,
            from: "\"required_fields\": [\n        \"severity\",\n        \"message\"\n      ],\n      \"optional_fields\": [],",
            to: "\"required_fields\": [\n        \"severity\"\n      ],\n      \"optional_fields\": [\"message\"],",
        }],
        python: Py::Off,
        want: vec![Want {
            severity: W,
            code: "optional-placeholder-unmarked",
            file: S,
            pointer: "/structures/fleet_alert/template",
            at: "{message}",
            message: "the template writes the optional field `message` as `{message}` with nothing saying which text goes with it when it is absent; the pattern's optional group decides",
            hint: None,
        }],
        gone: vec![],
    }
}

#[test]
fn an_unmarked_optional_placeholder_is_reported() {
    run(&unmarked_optional_placeholder());
}

#[test]
fn a_data_file_naming_the_metaschema_is_reported() {
    run(&Case {
        edits: vec![Edit {
            file: S,
            from: "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"",
            to: "\"$schema\": \"http://json-schema.org/draft-07/schema#\"",
        }],
        python: Py::Off,
        want: vec![Want {
            severity: W,
            code: "schema-names-a-metaschema",
            file: S,
            pointer: "/$schema",
            at: "\"http",
            message: "`$schema` is `http://json-schema.org/draft-07/schema#`, the JSON Schema meta-schema, but structures.json is data, not a schema: a validator following it checks nothing of the structures",
            hint: Some("name the schema of the spec format (generated/schema/), or leave `$schema` out"),
        }],
        gone: vec![("schema-names-a-metaschema", "/$schema")],
    });
    // The spec format's own schema is no meta-schema: no finding.
    run(&Case {
        edits: vec![Edit {
            file: S,
            from: "\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"",
            to: "\"$schema\": \"../generated/schema/structures.schema.json\"",
        }],
        python: Py::Off,
        want: vec![],
        gone: vec![("schema-names-a-metaschema", "/$schema")],
    });
}

// --- the two engines ------------------------------------------------------

fn python_rejects() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: "\"pattern\": \"(?P<hex>[0-9a-f]{6,12})\"",
            to: "\"pattern\": \"(?P<hex>[0-9a-f]{6,12})^*\"",
        }],
        python: Py::Real,
        want: vec![Want {
            severity: E,
            code: "python-rejects-pattern",
            file: P,
            pointer: "/patterns/short_hex/pattern",
            at: "\"(?P<hex>[0-9a-f]{6,12})^*\"",
            message: "Python 3.11.7's `re` rejects the pattern at character 24: nothing to repeat",
            hint: Some("write it in the dialect both engines accept (see docs/decisions/sentences.md, P2 and P10)"),
        }],
        gone: vec![],
    }
}

#[test]
fn a_pattern_python_rejects() {
    run(&python_rejects());
}

#[test]
fn a_pattern_the_engines_read_differently() {
    run(&Case {
        edits: vec![Edit { file: P, from: "\"pattern\": \"(?P<hex>[0-9a-f]{6,12})\"", to: "\"pattern\": \"(?P<hex>[0-9a-f]{ 6,12})\"" }],
        python: Py::Real,
        want: vec![
            Want { severity: E, code: "pattern-dialect", file: P, pointer: "/patterns/short_hex/pattern", at: "\"(?P<hex>[0-9a-f]{ 6,12})\"", message: "byte 16: `{ 6,12}`: Rust allows spaces inside a counted repetition, Python reads the braces as literal text: write it without spaces", hint: None },
            Want { severity: E, code: "python-reads-differently", file: P, pointer: "/patterns/short_hex/matches/0/text", at: "\"7fce46e0\"", message: "the engines read this text differently: Python's `re` gives no full match, Rust's `regex` gives {\"hex\": \"7fce46e0\"}", hint: Some("rewrite the construct that the engines read differently; generated parsers in both languages must agree") },
            Want { severity: E, code: "python-reads-differently", file: P, pointer: "/patterns/short_hex/matches/1/text", at: "\"4a2b8e\"", message: "the engines read this text differently: Python's `re` gives no full match, Rust's `regex` gives {\"hex\": \"4a2b8e\"}", hint: Some("rewrite the construct that the engines read differently; generated parsers in both languages must agree") },
        ],
        gone: vec![],
    });
}

#[test]
fn a_missing_python_is_one_warning() {
    run(&Case { edits: vec![], python: Py::Missing, want: vec![
            Want { severity: W, code: "python-not-checked", file: P, pointer: "/patterns", at: "{", message: "the patterns were not checked with Python's `re`: cannot run `/nonexistent/python3`: No such file or directory (os error 2)", hint: Some("install Python 3.11 or later as `python3`, or name the interpreter with `cargo xtask check --python PATH`") },
        ], gone: vec![] });
}

#[test]
fn the_real_spec_reads_the_same_in_python() {
    run(&Case {
        edits: vec![],
        python: Py::Real,
        want: vec![],
        gone: vec![],
    });
}

// --- examples -------------------------------------------------------------

#[test]
fn a_match_example_that_does_not_match() {
    run(&Case {
        edits: vec![Edit {
            file: P,
            from: "\"text\": \"[ACK:7fce46e0]\",",
            to: "\"text\": \"[ACK:7fce46e0]x\",",
        }],
        python: Py::Off,
        want: vec![Want {
            severity: E,
            code: "match-example-fails",
            file: P,
            pointer: "/patterns/ack/matches/2/text",
            at: "\"[ACK:7fce46e0]x\"",
            message: "this example does not match the pattern in full",
            hint: None,
        }],
        gone: vec![],
    });
}

#[test]
fn a_match_example_that_captures_other_values() {
    run(&Case {
        edits: vec![Edit { file: P, from: "\"dm_id\": \"8a12bc44\",", to: "\"dm_id\": \"8a12bc45\"," }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "captures-differ", file: P, pointer: "/patterns/ack/matches/1/captures", at: "{", message: "declared captures {\"dm_id\": \"8a12bc45\", \"sender\": \"646\"}, the pattern captures {\"dm_id\": \"8a12bc44\", \"sender\": \"646\"}", hint: None },
        ],
        gone: vec![],
    });
}

fn non_match_matches() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: "\"[CLAIM 7fce 46e0]\"",
            to: "\"[CLAIM 7fce46e0]\"",
        }],
        python: Py::Off,
        want: vec![Want {
            severity: E,
            code: "non-match-matches",
            file: P,
            pointer: "/patterns/verb/non_matches/2",
            at: "\"[CLAIM 7fce46e0]\"",
            message: "this text must not match, but the pattern matches it in full",
            hint: None,
        }],
        gone: vec![],
    }
}

#[test]
fn a_non_match_example_that_matches() {
    run(&non_match_matches());
}

fn structure_example_no_match() -> Case {
    Case {
        edits: vec![Edit {
            file: S,
            from: "\"example\": \"[Runtime Context: https://box.muse-dev.online/thread/7fce46e0]\"",
            to: "\"example\": \"[Runtime Context: box.muse-dev.online/thread/7fce46e0]\"",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "example-no-match", file: S, pointer: "/structures/runtime_context/example", at: "\"[Runtime Context: box.", message: "the example is not a `runtime_context` sentence: no full match", hint: None },
            Want { severity: E, code: "example-not-declared", file: S, pointer: "/structures/runtime_context/example", at: "\"[Runtime Context: box.", message: "pattern `runtime_context` does not list this example among its `matches`, so its expected values are not declared", hint: Some("add {\"text\": …, \"captures\": …} for it to /patterns/runtime_context/matches") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_structure_example_that_does_not_match() {
    run(&structure_example_no_match());
}

#[test]
fn an_example_that_does_not_render_back_identically() {
    run(&Case {
        edits: vec![Edit {
            file: S,
            from: "\"template\": \"[fleet-alert] {severity}: {message}\"",
            to: "\"template\": \"[fleet-alert] {severity}:  {message}\"",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "example-render-differs", file: S, pointer: "/structures/fleet_alert/example", at: "\"[fleet-alert] CRITICAL: VM unreachable x2 on port 22\"", message: "rendering the template with the example's values gives `[fleet-alert] CRITICAL:  VM unreachable x2 on port 22`, not the example", hint: None },
        ],
        gone: vec![],
    });
}

// --- documented formats ---------------------------------------------------

fn protocol_tag_mismatch() -> Case {
    Case {
        edits: vec![Edit { file: S, from: "\"protocol_tag\": \"[WO:]\"", to: "\"protocol_tag\": \"[WO ]\"" }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "protocol-tag-mismatch", file: S, pointer: "/structures/work_order/protocol_tag", at: "\"[WO ]\"", message: "the protocol tag `[WO ]` does not describe how the template begins: `[WO:{dm_id}] [from {sender}] {title} — {body}`", hint: Some("a tag of the template's form is `[WO:]`") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_protocol_tag_that_is_not_how_the_template_begins() {
    run(&protocol_tag_mismatch());
}

fn marker_format_mismatch() -> Case {
    Case {
        edits: vec![Edit { file: S, from: "post [RESULT id] when", to: "post [RESULT:id] when" }],
        python: Py::Off,
        want: vec![
            Want { severity: W, code: "marker-format-mismatch", file: S, pointer: "/structures/claim/reply_expectation", at: "[RESULT:id]", message: "`[RESULT:id]` does not have the form of the `result` marker, whose template writes `[RESULT {job_id}]`", hint: Some("write it as the template does (`[RESULT id]`), or record a decision for accepting both forms") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_marker_documented_in_another_form_than_its_template() {
    run(&marker_format_mismatch());
}

// --- all at once ----------------------------------------------------------

#[test]
fn several_faults_at_once_are_all_reported() {
    let parts = [
        unknown_regex_ref(),
        repeated_placeholder(),
        protocol_tag_mismatch(),
        enum_list_incomplete(),
        marker_format_mismatch(),
        optional_field_not_captured(),
        python_rejects(),
        non_match_matches(),
        enum_list_extra(),
        // An example fault is still found while other structures have errors.
        structure_example_no_match(),
        nested_quantifier(),
        a_duplicate_key_case(),
        a_curl_path_with_a_query_string_case(),
        a_limit_past_what_the_engines_read_case(),
    ];
    let case = Case {
        edits: parts.iter().flat_map(|c| c.edits.clone()).collect(),
        python: Py::Real,
        // `run` sorts them as the report is sorted.
        want: parts.iter().flat_map(|c| c.want.clone()).collect(),
        gone: parts.iter().flat_map(|c| c.gone.clone()).collect(),
    };
    assert!(
        case.want.len() >= parts.len(),
        "every part expects a finding"
    );
    run(&case);
}

// --- the op catalogue: every fault of ops.json at once -------------------

#[test]
fn every_fault_of_the_op_catalogue_is_reported_at_once() {
    run(&Case {
        edits: vec![
            Edit { file: O, from: "\"examples\": [{}]", to: "\"examples\": [{\"Name\": 1}]" },
            Edit { file: O, from: "\"properties\": {},", to: "\"properties\": {\"Name\": {\"type\": \"string\"}}," },
            Edit { file: O, from: "\"engines\": [\"TOOL\", \"EXEC\"],\n      \"side_effecting\": true,\n      \"args\"", to: "\"engines\": [\"TOOL\", \"SHELL\"],\n      \"side_effecting\": true,\n      \"args\"" },
            Edit { file: O, from: "\"minimum\": 1,", to: "\"minimum\": \"one\"," },
            Edit { file: D, from: "\"tools\": \"tools.list\"", to: "\"tools\": \"tools.lst\"" },
        ],
        python: Py::Off,
        // Sorted as the report is: by file, line, column.
        want: vec![
            Want { severity: E, code: "unknown-op", file: D, pointer: "/aliases/tools", at: "\"tools.lst\"", message: "alias `tools` stands for `tools.lst`, which is not an op of ops.json", hint: None },
            Want { severity: E, code: "unknown-engine", file: O, pointer: "/ops/followup.create/engines/1", at: "\"SHELL\"", message: "engine `SHELL` is not declared in /engines of directives.json", hint: None },
            Want { severity: E, code: "args-not-schema", file: O, pointer: "/ops/followup.create/args/properties/in_m/minimum", at: "\"one\"", message: "not a JSON Schema (draft 2020-12): \"one\" is not of type \"number\"", hint: None },
            Want { severity: E, code: "args-outside-subset", file: O, pointer: "/ops/tools.list/args/properties/Name", at: "{\"type\"", message: "argument key `Name` must be lower-case snake_case (`[a-z][a-z0-9_]*`) to be a field in both languages", hint: None },
            Want { severity: E, code: "example-invalid", file: O, pointer: "/ops/tools.list/examples/0/Name", at: "1}]", message: "the example does not fit `tools.list`'s args: 1 is not of type \"string\"", hint: None },
        ],
        gone: vec![],
    });
}

// --- native tool names (P290) ---------------------------------------------

/// A complete op named `name` (no other finding of its own), inserted first.
const NEW_OPS: &str = "\"ops\": {\n    \"cron_create\": { \"description\": \"x\", \"engines\": [\"TOOL\"], \"side_effecting\": true, \"args\": { \"type\": \"object\", \"properties\": {}, \"additionalProperties\": false }, \"examples\": [{}] },\n    \"reconcile.every.scheduled.follow_up.across.all.nodes.of.the.fleet.now\": { \"description\": \"x\", \"engines\": [\"TOOL\"], \"side_effecting\": true, \"args\": { \"type\": \"object\", \"properties\": {}, \"additionalProperties\": false }, \"examples\": [{}] },\n    \"followup.create\": {";

#[test]
fn native_names_that_collide_or_that_agent_apis_refuse() {
    run(&Case {
        edits: vec![
            Edit { file: O, from: "\"ops\": {\n    \"followup.create\": {", to: NEW_OPS },
            Edit { file: D, from: "\"tools\": \"tools.list\"", to: "\"tools\": \"tools.list\", \"followup_create\": \"followup.create\", \"box:ro\": \"box.exec\"" },
            // An op pattern that takes `:`, which no agent API's names do.
            Edit { file: D, from: "\"op_pattern\": \"[A-Za-z0-9_.-]+\"", to: "\"op_pattern\": \"[A-Za-z0-9_.:-]+\"" },
        ],
        python: Py::Off,
        // Two ops that collide also collide as Rust variants; the aliases
        // and the over-long name are the native rule's alone.
        want: vec![
            Want { severity: E, code: "native-name-collision", file: D, pointer: "/aliases/followup_create", at: "\"followup.create\"", message: "alias `followup_create` and op `followup.create` have one native name, `followup_create`: a native call of it could not say which it means", hint: None },
            Want { severity: E, code: "native-name-invalid", file: D, pointer: "/aliases/box:ro", at: "\"box.exec\"", message: "alias `box:ro` has the native name `box:ro`, which agent APIs refuse: a tool name is letters, digits, `_` and `-` (the rule writes only `.` as `_`)", hint: None },
            Want { severity: E, code: "native-name-too-long", file: O, pointer: "/ops/reconcile.every.scheduled.follow_up.across.all.nodes.of.the.fleet.now", at: "{", message: "op `reconcile.every.scheduled.follow_up.across.all.nodes.of.the.fleet.now` has the native name `reconcile_every_scheduled_follow_up_across_all_nodes_of_the_fleet_now`, 69 characters: agent APIs take at most 64", hint: None },
            Want { severity: E, code: "name-collision", file: O, pointer: "/ops/cron.create", at: "{", message: "op `cron.create` becomes the Rust op variant `CronCreate`, as op `cron_create` does: the generated code would hold two of that name", hint: Some("rename one of the two") },
            Want { severity: E, code: "native-name-collision", file: O, pointer: "/ops/cron.create", at: "{", message: "op `cron.create` and op `cron_create` have one native name, `cron_create`: a native call of it could not say which it means", hint: None },
        ],
        gone: vec![],
    });
}

// --- patterns that take more than linear time in Python `re` --------------

fn nested_quantifier() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: r#"(?P<message>[^ \\t\\r\\n][^\\r\\n]*)"#,
            to: r#"(?P<message>(?:[^ \\t\\r\\n]+[^\\r\\n]*)+)"#,
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "nested-quantifier", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 70: nested quantifier: `[^ \\t\\r\\n]+` inside `(?:[^ \\t\\r\\n]+[^\\r\\n]*)+` can read on where the next repetition could start, so a backtracking engine (Python `re`) tries every split of such a run: write each run so that the character after it ends it (an unrolled loop)", hint: None },
            Want { severity: E, code: "nested-quantifier", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 70: nested quantifier: `[^\\r\\n]*` inside `(?:[^ \\t\\r\\n]+[^\\r\\n]*)+` can read on where the next repetition could start, so a backtracking engine (Python `re`) tries every split of such a run: write each run so that the character after it ends it (an unrolled loop)", hint: None },
            Want { severity: E, code: "overlapping-quantifiers", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 73: overlapping quantifiers: `[^ \\t\\r\\n]+` and `[^\\r\\n]*` right after it can read the same run of text, so on a text that almost matches a backtracking engine (Python `re`) tries every split of each such run between them (quadratic for two, a higher power for more in a row): make the character that ends one unable to start the other, or merge them", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_pattern_with_a_nested_quantifier() {
    run(&nested_quantifier());
}

/// Four adjacent runs of one class: on a near-miss Python's `fullmatch`
/// tries every split of the text between them (a fourth power: 53 s on
/// 400 characters), though no quantifier nests in another.
fn adjacent_quantifiers() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: r#"(?P<message>[^ \\t\\r\\n][^\\r\\n]*)"#,
            to: r#"(?P<message>[^\\r\\n]+[^\\r\\n]+[^\\r\\n]+[^\\r\\n]+)"#,
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "overlapping-quantifiers", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 52: overlapping quantifiers: `[ \\t]+` and `[^\\r\\n]+` right after it can read the same run of text, so on a text that almost matches a backtracking engine (Python `re`) tries every split of each such run between them (quadratic for two, a higher power for more in a row): make the character that ends one unable to start the other, or merge them", hint: None },
            Want { severity: E, code: "overlapping-quantifiers", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 70: overlapping quantifiers: `[^\\r\\n]+` and `[^\\r\\n]+` right after it can read the same run of text, so on a text that almost matches a backtracking engine (Python `re`) tries every split of each such run between them (quadratic for two, a higher power for more in a row): make the character that ends one unable to start the other, or merge them", hint: None },
            Want { severity: E, code: "overlapping-quantifiers", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 78: overlapping quantifiers: `[^\\r\\n]+` and `[^\\r\\n]+` right after it can read the same run of text, so on a text that almost matches a backtracking engine (Python `re`) tries every split of each such run between them (quadratic for two, a higher power for more in a row): make the character that ends one unable to start the other, or merge them", hint: None },
            Want { severity: E, code: "overlapping-quantifiers", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 86: overlapping quantifiers: `[^\\r\\n]+` and `[^\\r\\n]+` right after it can read the same run of text, so on a text that almost matches a backtracking engine (Python `re`) tries every split of each such run between them (quadratic for two, a higher power for more in a row): make the character that ends one unable to start the other, or merge them", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_pattern_with_adjacent_overlapping_quantifiers() {
    run(&adjacent_quantifiers());
}

/// A repetition whose part can be read as one repetition or two: no
/// quantifier nests in another and no alternation overlaps, yet Python's
/// `fullmatch` doubles its time with each pair of characters of a near miss
/// (as with `(?:[0-9a-f][0-9a-f]?)+` on hex digits then `!`).
fn ambiguous_repetition() -> Case {
    Case {
        edits: vec![Edit {
            file: P,
            from: r#"(?P<message>[^ \\t\\r\\n][^\\r\\n]*)"#,
            to: r#"(?P<message>(?:[!-~][!-~]?[ ]?)+)"#,
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "ambiguous-repetition", file: P, pointer: "/patterns/fleet_alert/pattern", at: "\"\\\\[fleet-alert", message: "byte 70: ambiguous repetition: `(?:[!-~][!-~]?[ ]?)+` reads `!!` in more than one way (its repetitions split it differently, or its part does), so on a text that almost matches a backtracking engine (Python `re`) tries every reading of each run of it, exponentially many: make the repeated part read any text in one way only", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_pattern_whose_repetition_reads_a_text_two_ways() {
    run(&ambiguous_repetition());
}

// --- faults that generate wrong code (issue 13) ---------------------------

fn an_unknown_regex_ref_on_a_structure_with_a_binding_case() -> Case {
    Case {
        edits: vec![Edit { file: S, from: r#""Explicitly declines or rejects a work order with justification (e.g. rate limit, outside domain).",
      "required_fields": [
        "job_id",
        "reason"
      ],
      "optional_fields": [],
      "regex_ref": "verb""#, to: r#""Explicitly declines or rejects a work order with justification (e.g. rate limit, outside domain).",
      "required_fields": [
        "job_id",
        "reason"
      ],
      "optional_fields": [],
      "regex_ref": "verbs""# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "unknown-regex-ref", file: S, pointer: "/structures/decline/regex_ref", at: "\"verbs\"", message: "regex_ref `verbs` names no pattern in regex_patterns.json (the binding's pattern `decline` parses the structure, but the docs show and link the regex_ref)", hint: Some("did you mean `verb`?") },
        ],
        gone: vec![("regex-ref-cannot-parse", "/structures/decline/regex_ref"), ("regex-ref-enum-wider", "/structures/decline/regex_ref")],
    }
}

#[test]
fn an_unknown_regex_ref_on_a_structure_with_a_binding() {
    run(&an_unknown_regex_ref_on_a_structure_with_a_binding_case());
}

fn an_empty_fence_info_string_case() -> Case {
    Case {
        edits: vec![Edit { file: D, from: r#""tool": "TOOL","#, to: r#""": "TOOL","# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "empty-keyword", file: D, pointer: "/fences/info_strings/", at: "\"TOOL\"", message: "an empty fence info string mapped to an engine would make every plain code block a call", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn an_empty_fence_info_string() {
    run(&an_empty_fence_info_string_case());
}

fn an_empty_shorthand_keyword_case() -> Case {
    Case {
        edits: vec![Edit {
            file: D,
            from: r#""DM": {"#,
            to: r#""": {"#,
        }],
        python: Py::Off,
        want: vec![Want {
            severity: E,
            code: "empty-keyword",
            file: D,
            pointer: "/shorthands/",
            at: "{",
            message: "an empty shorthand keyword would make every bracket `[ {…}]` a call",
            hint: None,
        }],
        gone: vec![],
    }
}

#[test]
fn an_empty_shorthand_keyword() {
    run(&an_empty_shorthand_keyword_case());
}

fn a_control_character_in_a_name_case() -> Case {
    Case {
        edits: vec![Edit {
            file: D,
            from: r#""dm": "dm.send","#,
            to: r#""d\u0000m": "dm.send","#,
        }],
        python: Py::Off,
        want: vec![
            Want {
                severity: E,
                code: "control-character",
                file: D,
                pointer: "/aliases/d\0m",
                at: "\"dm.send\"",
                message: "the name \"d\\0m\" holds the control character U+0000",
                hint: Some(
                    "names become identifiers, keys and table cells: use printable characters",
                ),
            },
            Want {
                severity: E,
                code: "invalid-op",
                file: D,
                pointer: "/aliases/d\0m",
                at: "\"dm.send\"",
                message: "alias `d\0m` → `dm.send`: both must match the op pattern",
                hint: None,
            },
        ],
        gone: vec![],
    }
}

#[test]
fn a_control_character_in_a_name() {
    run(&a_control_character_in_a_name_case());
}

fn a_duplicate_key_case() -> Case {
    Case {
        edits: vec![Edit { file: S, from: r#""name": "Task Claim","#, to: r#""name": "Task Claim", "name": "Task Claim","# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "duplicate-key", file: S, pointer: "/structures/claim/name", at: "\"name\": \"Task Claim\"", message: "the key `name` occurs twice in this object: a JSON reader keeps one of them without a word", hint: Some("remove one of them, or merge them") },
        ],
        gone: vec![],
    }
}

#[test]
fn a_duplicate_key() {
    run(&a_duplicate_key_case());
}

fn an_op_pattern_that_matches_almost_anything_case() -> Case {
    Case {
        edits: vec![Edit { file: D, from: r#""op_pattern": "[A-Za-z0-9_.-]+","#, to: r#""op_pattern": ".*","# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "op-pattern-too-wide", file: D, pointer: "/op_pattern", at: "\".*\"", message: "the op pattern matches the empty text and admits ' ', '\\t', '\\r', '\"', '\\'', '[', ']', '{', '}': an op is one word, and the scanner finds where it ends by it", hint: Some("list the characters an op may hold, e.g. `[A-Za-z0-9_.-]+`") },
        ],
        gone: vec![],
    }
}

#[test]
fn an_op_pattern_that_matches_almost_anything() {
    run(&an_op_pattern_that_matches_almost_anything_case());
}

fn a_curl_path_with_a_query_string_case() -> Case {
    Case {
        edits: vec![Edit { file: D, from: r#""path": "/exec","#, to: r#""path": "/exec?run=1","# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "curl-path", file: D, pointer: "/curl/path", at: "\"/exec?run=1\"", message: "the curl path `/exec?run=1` holds '?': it is compared with a URL's path, which never holds a query, a fragment or a blank", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_curl_path_with_a_query_string() {
    run(&a_curl_path_with_a_query_string_case());
}

fn a_flag_that_is_a_data_flag_and_a_flag_option_case() -> Case {
    Case {
        edits: vec![Edit { file: D, from: r#"      "-s","#, to: r#"      "-s",
      "--data","# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "curl-option-twice", file: D, pointer: "/curl/flag_options/1", at: "\"--data\"", message: "`--data` is listed in /curl/data_flags and in /curl/flag_options: an option either takes the payload, takes a value or takes none", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_flag_that_is_a_data_flag_and_a_flag_option() {
    run(&a_flag_that_is_a_data_flag_and_a_flag_option_case());
}

fn a_limit_past_what_the_engines_read_case() -> Case {
    Case {
        edits: vec![Edit { file: D, from: r#""max_json_depth": 64,"#, to: r#""max_json_depth": 500,"# }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "limit-too-large", file: D, pointer: "/limits/max_json_depth", at: "500", message: "max_json_depth 500 is past what the engines read: Rust's JSON reader stops at 128 levels (Python's recursion near 1,000)", hint: None },
        ],
        gone: vec![],
    }
}

#[test]
fn a_limit_past_what_the_engines_read() {
    run(&a_limit_past_what_the_engines_read_case());
}

// --- the prompt envelope: each check, one fault at a time (P149) ----------

fn envelope_case(from: &'static str, to: &'static str, want: Vec<Want>) -> Case {
    Case {
        edits: vec![Edit { file: N, from, to }],
        python: Py::Off,
        want,
        gone: vec![],
    }
}

#[test]
fn an_envelope_footer_line_with_text() {
    run(&envelope_case(
        r#"{ "footer": "contract_footer" }"#,
        r#"{ "footer": "contract_footer", "text": "x" }"#,
        vec![Want {
            severity: E,
            code: "envelope-line",
            file: N,
            pointer: "/lines/2",
            at: r#"{ "footer""#,
            message: "a footer line is the footer alone: no `text`, `advertise` or `mention`",
            hint: None,
        }],
    ));
}

#[test]
fn an_envelope_placeholder_no_line_fills() {
    run(&envelope_case("Tools: {advertised}.", "Tools: {advertized}.", vec![
        Want { severity: E, code: "envelope-placeholder", file: N, pointer: "/lines/0/text", at: "Tools: {advertized}", message: "the line has `advertise` but its text has no `{advertised}`: it would show nothing of it", hint: None },
        Want { severity: E, code: "envelope-placeholder", file: N, pointer: "/lines/0/text", at: "{advertized}", message: "`{advertized}` is no placeholder this line fills (`{advertised}` needs `advertise`, `{mention}` needs `mention`, `{values}` needs `mention.values_of`)", hint: None },
    ]));
}

#[test]
fn an_envelope_mention_of_an_unknown_structure() {
    run(&envelope_case(
        r#""structure": "result""#,
        r#""structure": "reslt""#,
        vec![Want {
            severity: E,
            code: "envelope-unknown-structure",
            file: N,
            pointer: "/lines/1/mention/structure",
            at: r#""reslt""#,
            message: "mention `reslt` is no structure the scanner finds in structures.json",
            hint: None,
        }],
    ));
}

#[test]
fn an_envelope_advertising_an_unknown_op() {
    let mut case = envelope_case(
        r#""ops": ["swarm.spawn", "cron.create"]"#,
        r#""ops": ["swarm.spawn", "cron.make"]"#,
        vec![Want {
            severity: E,
            code: "envelope-unknown-op",
            file: N,
            pointer: "/lines/0/advertise/ops/1",
            at: r#""cron.make""#,
            message: "the envelope advertises `cron.make`, which is not an op of ops.json",
            hint: None,
        }],
    );
    case.gone = vec![("envelope-op-incomplete", "/lines/0/advertise/ops/1")];
    run(&case);
}

#[test]
fn an_envelope_advertising_on_an_unknown_engine() {
    let mut case = envelope_case(r#""engine": "TOOL""#, r#""engine": "SHELL""#, vec![
        Want { severity: E, code: "envelope-unknown-engine", file: N, pointer: "/lines/0/advertise/engine", at: r#""SHELL""#, message: "`SHELL` is no bracket engine of directives.json (TOOL, EXEC)", hint: None },
        Want { severity: W, code: "envelope-op-incomplete", file: N, pointer: "/lines/0/advertise/ops/0", at: r#""swarm.spawn""#, message: "the envelope advertises `swarm.spawn`, which the catalogue leaves incomplete: a call of it is not run", hint: None },
        Want { severity: W, code: "envelope-op-incomplete", file: N, pointer: "/lines/0/advertise/ops/1", at: r#""cron.create""#, message: "the envelope advertises `cron.create`, which the catalogue leaves incomplete: a call of it is not run", hint: None },
    ]);
    // The ops move one column: their warnings stay (compared without position).
    case.want.retain(|w| w.code != "envelope-op-incomplete");
    run(&case);
}

#[test]
fn an_envelope_advertising_an_op_on_an_engine_it_does_not_allow() {
    run(&Case {
        edits: vec![Edit {
            file: O,
            from: "as `[TOOL cron.create]`.\",\n      \"engines\": [\"TOOL\", \"EXEC\"],",
            to: "as `[TOOL cron.create]`.\",\n      \"engines\": [\"EXEC\"],",
        }],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "envelope-unknown-engine", file: N, pointer: "/lines/0/advertise/ops/1", at: r#""cron.create""#, message: "the envelope advertises `cron.create` as `[TOOL cron.create]`, an engine the op does not allow (EXEC)", hint: None },
        ],
        gone: vec![],
    });
}

#[test]
fn an_envelope_advert_the_scanner_does_not_read_as_one() {
    // In a code span the adverts are quoted: with an object they would be no call either.
    run(&envelope_case("Tools: {advertised}.", "Tools: `{advertised}`.", vec![
        Want { severity: E, code: "envelope-advert-misread", file: N, pointer: "/lines/0/advertise/ops/0", at: r#""swarm.spawn""#, message: "the advert `[TOOL swarm.spawn]` (bytes 80..98 of the example) is not read as an advertised op: with an object (`[TOOL swarm.spawn {}]`) it is no call either: the scanner reads no marker there (quoted?)", hint: None },
        Want { severity: E, code: "envelope-advert-misread", file: N, pointer: "/lines/0/advertise/ops/1", at: r#""cron.create""#, message: "the advert `[TOOL cron.create]` (bytes 99..117 of the example) is not read as an advertised op: with an object (`[TOOL cron.create {}]`) it is no call either: the scanner reads no marker there (quoted?)", hint: None },
    ]));
}

#[test]
fn an_envelope_mention_the_scanner_reads_as_a_sentence() {
    // `[Directive: ...]`, the directive structure's tag, is itself a directive sentence.
    run(&Case {
        edits: vec![
            Edit { file: N, from: r#""structure": "result", "values_of": "status""#, to: r#""structure": "directive""# },
            Edit { file: N, from: " ({values})", to: "" },
        ],
        python: Py::Off,
        want: vec![
            Want { severity: E, code: "envelope-mention-misread", file: N, pointer: "/lines/1/mention", at: r#"{ "structure": "directive""#, message: "the mention `[Directive: ...]` (bytes 225..241 of the example) is not read as a mention of `directive`: the scanner reads a `directive` sentence at bytes 225..241", hint: None },
        ],
        gone: vec![],
    });
}

#[test]
fn an_envelope_footer_the_scanner_does_not_read_as_the_footer() {
    // A blank in the id: the footer's pattern does not read it.
    run(&envelope_case(r#""id": "swarm-4a2b/1""#, r#""id": "swarm 4a2b/1""#, vec![
        Want { severity: E, code: "envelope-footer-misread", file: N, pointer: "/lines/2/footer", at: r#""contract_footer""#, message: "the footer `Reply: [ACK swarm 4a2b/1] seen | [CLAIM swarm 4a2b/1] mine | [RESULT swarm 4a2b/1] done | [DECLINE swarm 4a2b/1] | [NO-ACTION swarm 4a2b/1].` (bytes 325..465 of the example, id `swarm 4a2b/1`) is not read as one `contract_footer` carrying the id: the scanner reads nothing there", hint: None },
    ]));
}

#[test]
fn an_envelope_text_with_a_stray_marker() {
    run(&envelope_case("tools.list lists every op.", "tools.list lists every op, e.g. [CLAIM 7fce46e0].", vec![
        Want { severity: E, code: "envelope-stray-marker", file: N, pointer: "/lines/0/text", at: r#""Tools:"#, message: "the example, wrapped, holds a `claim` sentence at bytes 201..217 that no marker of the envelope claims: an envelope text must read as plain text", hint: None },
    ]));
}

#[test]
fn positions_are_found_again_when_the_spec_moves() {
    // Lines added before the fault (as a structure inserted before it
    // would add them) move the expected position with the finding.
    let mut case = unknown_regex_ref();
    case.edits.push(Edit {
        file: S,
        from: "\"version\": \"1.0.0\",",
        to: "\"version\": \"1.0.0\",\n\n\n",
    });
    run(&case);
}

/// P330: what the checks prove intact is the structures whose own
/// definition (their `structures.json` entry, their binding, the pattern
/// bound to them) holds no error; an error elsewhere (here, the op
/// catalogue's) holds back no structure, and a broken pattern holds back
/// exactly the structures bound to it.
#[test]
fn the_checks_prove_intact_the_structures_whose_definition_holds_no_error() {
    use agent_sentences_codegen::{check, load};
    use serde_json::Value;
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("schema")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let edit = |name: &str, f: &dyn Fn(&mut Value)| {
        let path = dir.path().join(name);
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    };
    let whole = load::load(dir.path()).unwrap();
    let checked = check::check(&whole);
    assert!(!checked.has_errors(), "{:?}", checked.diags);
    let every: std::collections::BTreeSet<String> =
        whole.structures.structures.keys().cloned().collect();
    assert_eq!(
        checked.intact, every,
        "the real spec: every structure intact"
    );

    edit(P, &|v| {
        v["patterns"]["verb"]["pattern"] = Value::from("(unclosed")
    });
    edit(O, &|v| {
        let first = v["ops"].as_object().unwrap().keys().next().unwrap().clone();
        v["ops"][first]["engines"] = serde_json::json!(["NO-SUCH-ENGINE"]);
    });
    let spec = load::load(dir.path()).unwrap();
    let checked = check::check(&spec);
    let errors_at = |prefix: &str| {
        checked
            .diags
            .iter()
            .any(|d| d.severity == E && d.pointer.starts_with(prefix))
    };
    assert!(
        errors_at("/patterns/verb") && errors_at("/ops/"),
        "{:?}",
        checked.diags
    );
    let bound_to_verb: Vec<&String> = every
        .iter()
        .filter(|k| load::bound_pattern(&spec, k) == "verb")
        .collect();
    assert!(!bound_to_verb.is_empty());
    let want: std::collections::BTreeSet<String> = every
        .iter()
        .filter(|k| !bound_to_verb.contains(k))
        .cloned()
        .collect();
    assert_eq!(checked.intact, want);
}
