//! Generates the sentence types from the spec at build time.
use std::path::{Path, PathBuf};

fn main() {
    // A crate that vendors the spec would point at its own copy; this one
    // uses the repository's.
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema");
    for f in [
        "structures.json",
        "regex_patterns.json",
        "directives.json",
        "loops.json",
    ] {
        println!("cargo:rerun-if-changed={}", spec.join(f).display());
    }
    let module = agent_sentences_codegen::rust_module(&spec)
        .unwrap_or_else(|report| panic!("the spec has errors:\n{report}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("sentences.rs");
    std::fs::write(out, module).expect("writes the generated module");
}
