//! A field added to the tool directive's grammar with changes to the spec,
//! the runtime's directive type and its use only (P331): in a copy of the
//! runtime, the generator and the spec, the curl form gains
//! `insecure_options` (options that turn off certificate checks, which
//! reject the command with their own reason). `schema/directives.json`
//! gets the list, the runtime's `CurlForm` the field, and the scanner's curl
//! reader (`runtime/src/scan/shell.rs`) its use; nothing of the generator
//! changes. The generator built from the copy then writes the crate, whose
//! scanner reads the new field, and the spec format's JSON Schema, which
//! describes it; the generated crate's tests (every spec example parsed,
//! rendered and round-tripped) pass against the copied runtime.
//!
//! The builds share `target/standalone` with the other builds outside the
//! workspace (`add_structure.rs`, `add_reader.rs`, the generator's
//! `tests/outside.rs`, the packaging step), with their settings (no debug
//! info, no workspace profile), pinned by the workspace's `Cargo.lock`
//! (`--offline`): only the copied runtime, generator library and command,
//! and the generated crate compile.

use std::path::Path;
use std::process::Command;

mod common;

use common::{copy_dir, root, standalone_cargo};

/// The new field, its options and the reason it gives.
const FIELD: &str = "insecure_options";
const OPTIONS: [&str; 2] = ["-k", "--insecure"];
const REASON: &str = "turns off certificate checks";

/// Replaces the one occurrence of `from` in the file at `path`.
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "`{from}` occurs once in {}",
        path.display()
    );
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Cargo, for a build in `target/standalone` as every build there.
fn cargo() -> Command {
    let mut cargo = standalone_cargo();
    cargo.env_remove("RUSTFLAGS");
    cargo
}

fn run(command: &mut Command, what: &str) -> String {
    let out = command.output().expect("cargo runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what}:\n{log}");
    log
}

#[test]
fn a_directive_field_added_to_the_spec_and_the_runtime_reaches_the_generated_scanner() {
    let dir = tempfile::tempdir().unwrap();
    // The copies sit under `copy/`, a path no other build in
    // `target/standalone` has: cargo tells path crates apart by their path
    // from the workspace root, and a copy at `runtime/` would share the
    // repository runtime's build directory (its build script's output, the
    // list of files it vendors, naming the copy's files).
    let ws = dir.path().join("ws");
    let copy = ws.join("copy");
    for member in ["runtime", "codegen", "generator"] {
        copy_dir(
            &root().join(member),
            &copy.join(member),
            &["target", "tests"],
        );
    }
    copy_dir(
        &root().join("schema"),
        &ws.join("schema"),
        &["target", "tests"],
    );
    // The workspace of the three crates, with the real one's shared
    // dependency table and none of its profiles (as every standalone build).
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let package = manifest.find("[workspace.package]").unwrap();
    let profiles = manifest.find("\n# The few dependencies").unwrap();
    std::fs::write(
        ws.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"2\"\nmembers = [\"copy/runtime\", \"copy/codegen\", \"copy/generator\"]\n\n{}",
            &manifest[package..profiles]
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();

    // 1. The spec.
    let spec = ws.join("schema/directives.json");
    let mut directives: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&spec).unwrap()).unwrap();
    directives["curl"][FIELD] = serde_json::json!(OPTIONS);
    std::fs::write(&spec, serde_json::to_string_pretty(&directives).unwrap()).unwrap();
    // 2. The runtime's directive type.
    edit(
        &copy.join("runtime/src/scan/types.rs"),
        "    pub url_options: Vec<String>,\n",
        &format!(
            "    pub url_options: Vec<String>,\n    /// Options that turn off certificate checks: they reject the command.\n    pub {FIELD}: Vec<String>,\n"
        ),
    );
    // 3. Its use, where the curl reader reads options.
    edit(
        &copy.join("runtime/src/scan/shell.rs"),
        "                if d.takes_value(w) {",
        &format!(
            "                if d.{FIELD}.iter().any(|o| o == w) {{\n                    problem.get_or_insert_with(|| format!(\"option `{{w}}` {REASON}\"));\n                }}\n                if d.takes_value(w) {{"
        ),
    );

    let out = dir.path().join("out");
    run(
        cargo()
            .current_dir(&ws)
            .args([
                "run",
                "--offline",
                "--quiet",
                "-p",
                "agent-sentences-gen",
                "--",
            ])
            .args(["gen", "--spec", "schema", "--out"])
            .arg(&out)
            .arg("--runtime-path")
            .arg(copy.join("runtime")),
        "the generator built from the copy generates from the spec with the new field",
    );

    // The spec format's JSON Schema describes the field (from the runtime's type).
    let schema = std::fs::read_to_string(out.join("schema/directives.schema.json")).unwrap();
    assert!(schema.contains(&format!("\"{FIELD}\"")), "{schema}");

    // The generated scanner reads it: a curl call with one of the options is
    // skipped with the field's reason; without it, the same call is found.
    let call = "curl -X POST https://box.example/exec -d '{\"op\": \"tools.list\", \"args\": {}}'";
    let test = format!(
        r#"use agent_sentences::scan::{{scan_with_diagnostics, Item, SkipReason}};

#[test]
fn the_new_field_is_read() {{
    let call = {call:?};
    let (found, _) = scan_with_diagnostics(call);
    assert!(matches!(&found[..], [f] if matches!(&f.item, Item::Directive {{ .. }})), "{{found:?}}");
    for option in {OPTIONS:?} {{
        let text = call.replacen("curl ", &format!("curl {{option}} "), 1);
        let (found, skipped) = scan_with_diagnostics(&text);
        assert!(found.is_empty(), "{{found:?}}");
        assert_eq!(skipped.len(), 1, "{{skipped:?}}");
        assert_eq!(skipped[0].reason, SkipReason::CurlPayload);
        assert_eq!(skipped[0].message, format!("option `{{option}}` {REASON}"));
    }}
}}
"#
    );
    std::fs::write(out.join("rust/tests/new_directive_field.rs"), test).unwrap();
    std::fs::copy(root().join("Cargo.lock"), out.join("rust/Cargo.lock")).unwrap();
    let log = run(
        cargo()
            .args(["test", "--offline", "--tests", "--manifest-path"])
            .arg(out.join("rust/Cargo.toml"))
            .env("PROPTEST_CASES", "64"),
        "the crate generated with the new field builds and passes its tests",
    );
    for test in [
        "the_new_field_is_read",
        "ack_example_parses_and_renders_back",
    ] {
        assert!(
            log.contains(&format!("test {test} ... ok")),
            "`{test}` ran and passed:\n{log}"
        );
    }
}
