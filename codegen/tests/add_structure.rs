//! A structure added to a copy of the spec, as `docs/guide/adding-a-structure.md`
//! says, with no other change: the lint finds nothing new, the
//! generator writes it into every output, the Rust crate generated from the
//! copy compiles and passes its own generated tests (every spec example,
//! the new one included, parsed, rendered and round-tripped), the Python
//! package generated from the copy parses and renders its example and still
//! passes every shared vector, and the generator's reference parser (the
//! generated Rust `parse`'s rules, see `spec_change.rs`) reads it.
//!
//! The structure, `heartbeat` (`[HEARTBEAT {agent_id}]`), is this test's
//! own; the expectations come from it and from the spec, not from lists.

use std::path::Path;
use std::process::Command;

use agent_sentences_codegen::{examples, generate_with, lint_with, Mode, Options, Python, Runtime};
use serde_json::{json, Value};

mod common;

use common::{root, standalone_cargo};

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

/// `cargo test` of the crate generated from the copy: it compiles, and its
/// generated tests pass (`tests/spec_examples.rs` holds a test per spec
/// example, the new structure's among them). The build shares one target
/// directory from run to run, and with the other builds outside the
/// workspace (`target/standalone`, or under `$CARGO_TARGET_DIR`: the
/// generator's `tests/outside.rs` and `cargo xtask test`'s packaging step),
/// so only the first build compiles the dependencies;
/// the workspace's `Cargo.lock` pins them to the versions the workspace
/// builds with, so no registry is asked (`--offline`). The property tests
/// draw 64 cases per structure (`PROPTEST_CASES`; the workspace's run of
/// the real crate draws 1000), which keeps the debug build's round trips
/// of `result` to seconds.
fn cargo_test_generated_crate(crate_dir: &Path) {
    std::fs::copy(root().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let out = standalone_cargo()
        .args(["test", "--offline", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("PROPTEST_CASES", "64")
        .output()
        .expect("cargo runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "the crate generated with the structure added builds and passes its tests:\n{log}"
    );
    // Its tests ran, the new structure's among them.
    for test in [
        format!("{KEY}_example_parses_and_renders_back"),
        format!("pattern_{KEY}_examples"),
    ] {
        assert!(
            log.contains(&format!("test {test} ... ok")),
            "the generated test `{test}` ran and passed:\n{log}"
        );
    }
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

    // The generated crate names this repository's runtime by an absolute
    // path, so it builds from the temporary directory.
    let options = Options {
        runtime: Runtime::Path(root().join("runtime").to_str().unwrap().to_owned()),
        ..Options::default()
    };
    let g = generate_with(spec.path(), &options).unwrap_or_else(|r| panic!("{r}"));
    let s = g
        .model
        .sentences
        .iter()
        .find(|s| s.key == KEY)
        .expect("the structure is in the model");
    assert_eq!(
        examples::reference_parse_within(s, EXAMPLE, usize::MAX).unwrap()["agent_id"].as_deref(),
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
    assert!(
        g.files["rust/src/lib.rs"].contains(&format!("key: {KEY:?}")),
        "the scan table lists {KEY}"
    );
    let out = tempfile::tempdir().unwrap();
    g.sync(out.path(), Mode::Write).unwrap();
    cargo_test_generated_crate(&out.path().join("rust"));

    // Building the Python package's own native module from the copy would
    // take minutes more, so the Python package runs with the installed module
    // (built from the real spec; the scanner in it is the one just tested in
    // Rust), and reads the new structure with its generated Python `parse`.
    let package = out.path().join("python");
    if !common::copy_installed_native_module(
        &common::python(),
        &package,
        "a_structure_added_to_the_spec_alone",
    ) {
        return;
    }
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

/// The decoding grammar follows the spec alone (P205, P206): the new
/// structure becomes a rule of both grammars in both dialects and a reply
/// line, and an op added to the catalogue becomes a call of every form its
/// engines allow, with its own argument schema.
#[test]
fn a_structure_and_an_op_added_to_the_spec_change_the_grammar() {
    let spec = spec_with_a_new_structure();
    let path = spec.path().join("ops.json");
    let mut ops: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    ops["ops"]["ping.send"] = json!({
        "description": "Pings an agent.",
        "engines": ["TOOL"],
        "side_effecting": false,
        "args": {
            "type": "object",
            "properties": { "agent": { "type": "string", "minLength": 1 } },
            "required": ["agent"],
            "additionalProperties": false
        },
        "examples": [{ "agent": "646" }]
    });
    std::fs::write(&path, serde_json::to_string_pretty(&ops).unwrap() + "\n").unwrap();
    let before = agent_sentences_codegen::generate(&root().join("schema")).unwrap();
    let g = agent_sentences_codegen::generate(spec.path()).unwrap_or_else(|r| panic!("{r}"));
    let rule = KEY.to_uppercase();
    for (path, needles) in [
        (
            "grammar/sentences.lark",
            vec![
                format!("\n{rule}: \"[HEARTBEAT \" {rule}_AGENT_ID \"]\"\n"),
                format!("| {rule}\n"),
                "\nBRACKET_TOOL_PING_SEND: \"[TOOL ping.send \" BRACKET_TOOL_PING_SEND_ARGS \"]\"\n".to_owned(),
                // The argument schema as rules (P300): a string of at least one character.
                "\nBRACKET_TOOL_PING_SEND_ARGS_AGENT: \"\\\"\" BRACKET_TOOL_PING_SEND_ARGS_AGENT_CHAR+ \"\\\"\"\n".to_owned(),
            ],
        ),
        (
            "grammar/sentences.gbnf",
            vec![format!("\n{KEY} ::= \"[HEARTBEAT \" {KEY}-agent-id \"]\"\n")],
        ),
        (
            "grammar/reply.lark",
            vec![format!("| LINE_{rule}\n"), "\nCALL_PING_SEND: ".to_owned()],
        ),
    ] {
        for needle in needles {
            assert!(g.files[path].contains(&needle), "{path} lacks {needle:?}");
            assert!(!before.files[path].contains(&needle), "{path} had {needle:?} before the change");
        }
    }
    // EXEC is not among the op's engines: no EXEC form calls it.
    assert!(!g.files["grammar/sentences.lark"].contains("[EXEC ping.send"));
}

/// A field pattern a grammar cannot express (here an anchor inside the
/// group, which both regex engines accept) fails the lint, located at the pattern and naming the
/// structure and the field (P205); the generator writes nothing.
#[test]
fn a_field_pattern_the_grammar_cannot_express_fails_the_lint() {
    let spec = spec_with_a_new_structure();
    let path = spec.path().join("regex_patterns.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace(
        r"(?P<agent_id>[A-Za-z0-9_-]+)",
        r"(?P<agent_id>(?:^)?[A-Za-z0-9_-]+)",
    );
    assert_ne!(edited, text);
    std::fs::write(&path, edited).unwrap();
    let report = lint_with(spec.path(), &Python::Off);
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == "grammar-inexpressible")
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    let d = found[0];
    assert_eq!(d.severity, agent_sentences_codegen::Severity::Error);
    assert!(d.file.ends_with("regex_patterns.json"), "{}", d.file);
    assert_eq!(d.pointer, "/patterns/heartbeat/pattern");
    assert!(
        d.message.contains("structure `heartbeat`") && d.message.contains("field `agent_id`"),
        "{}",
        d.message
    );
    assert!(d.line > 1);
    assert!(agent_sentences_codegen::generate(spec.path()).is_err());
}
