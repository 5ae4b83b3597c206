//! A reader added to a copy of the runtime as `runtime/src/context/mod.rs`
//! says (P260): its file beside the others and its entry at the end of the
//! `readers!` list, with no other change. The new reader reads as
//! pulldown-cmark does (its file is `pulldown.rs` under another name), so
//! the context is the same: every shared vector (`tests/vectors/`, the
//! scanner's among them, messages included) still passes with the copy, and
//! the copy's readers are three, the new one last.
//!
//! The build shares `target/standalone` with the other builds outside the
//! workspace (`add_structure.rs`, the generator's `tests/outside.rs`, the
//! packaging step), pinned by the workspace's `Cargo.lock` (`--offline`),
//! so only the copied runtime, the generated crate and the vectors test
//! compile.

mod common;

use common::{copy_dir, root, standalone_cargo};

/// The new reader's module, type and name.
const MODULE: &str = "pulldown_again";
const TYPE: &str = "PulldownAgain";
const NAME: &str = "pulldown-cmark-again";

#[test]
fn a_reader_added_as_one_file_and_one_entry_passes_every_vector() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = dir.path();
    let runtime = scratch.join("runtime");
    copy_dir(&root().join("runtime"), &runtime, &["target"]);
    copy_dir(
        &root().join("generated/rust"),
        &scratch.join("generated/rust"),
        &["target"],
    );
    copy_dir(
        &root().join("tests/vectors"),
        &scratch.join("tests/vectors"),
        &["target"],
    );
    // (The vectors test reads the spec's own examples too.)
    copy_dir(&root().join("schema"), &scratch.join("schema"), &["target"]);

    // The reader: pulldown-cmark's file under another module, type and name.
    let context = runtime.join("src/context");
    let source = std::fs::read_to_string(context.join("pulldown.rs")).unwrap();
    let reader = source
        .replace("Pulldown", TYPE)
        .replace("\"pulldown-cmark\"", &format!("{NAME:?}"));
    assert!(reader.contains(NAME) && reader.contains(TYPE));
    std::fs::write(context.join(format!("{MODULE}.rs")), reader).unwrap();
    // Its entry, at the end of the list.
    let list = std::fs::read_to_string(context.join("mod.rs")).unwrap();
    let last = "    comrak::Comrak,\n}";
    assert_eq!(list.matches(last).count(), 1, "the list ends with comrak");
    let list = list.replacen(
        last,
        &format!("    comrak::Comrak,\n    {MODULE}::{TYPE},\n}}"),
        1,
    );
    std::fs::write(context.join("mod.rs"), list).unwrap();

    // A crate that runs the shared vectors against the copy (the workspace's
    // own vectors test) and checks the copy reads with three readers.
    let check = scratch.join("tests/check");
    std::fs::create_dir_all(check.join("tests")).unwrap();
    std::fs::write(
        check.join("Cargo.toml"),
        "[package]\nname = \"add-reader-check\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\npath = \"lib.rs\"\n\n\
         [dependencies]\nagent-sentences = { path = \"../../generated/rust\" }\n\
         agent-sentences-runtime = { path = \"../../runtime\" }\n\
         serde_json = { version = \"1\", features = [\"preserve_order\", \"float_roundtrip\"] }\n\
         regex = \"1\"\n",
    )
    .unwrap();
    std::fs::write(
        check.join("lib.rs"),
        "//! Nothing: the tests are the check.\n",
    )
    .unwrap();
    std::fs::copy(
        root().join("tests/downstream/tests/vectors.rs"),
        check.join("tests/vectors.rs"),
    )
    .unwrap();
    std::fs::write(
        check.join("tests/readers.rs"),
        format!(
            "#[test]\nfn the_new_reader_reads_last() {{\n    \
             let d = agent_sentences_runtime::context::describe(\"a [b] c\");\n    \
             let names: Vec<&str> = d.lines().filter_map(|l| l.split_once(\": \")).map(|(n, _)| n).collect();\n    \
             assert_eq!(names, [\"pulldown-cmark\", \"comrak\", {NAME:?}, \"meet\"], \"{{d}}\");\n    \
             assert!(agent_sentences_runtime::vendor::FILES.iter().any(|(p, _)| *p == \"src/context/{MODULE}.rs\"));\n}}\n"
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), check.join("Cargo.lock")).unwrap();

    let out = standalone_cargo()
        .args(["test", "--offline", "--manifest-path"])
        .arg(check.join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "the runtime with a reader added passes every vector:\n{log}"
    );
    for test in ["the_new_reader_reads_last", "scan_vectors"] {
        assert!(
            log.contains(&format!("test {test} ... ok")),
            "`{test}` ran and passed:\n{log}"
        );
    }
}
