//! Stage 4, emit: one function per output file, each returning the file's
//! full text. [`emit_all`] collects them in a `BTreeMap` keyed by path under
//! `generated/`, so output order is deterministic. Every emitter reads the
//! lowered model and the options only, never the spec.

pub mod docs;
pub mod grammar;
pub mod header;
pub mod python;
pub mod rust;
pub mod schema;
pub mod vendor;

use std::collections::BTreeMap;

use crate::lower::Model;
use crate::options::{Options, Runtime};

pub use header::{JSON_COMMENT, MD_HEADER, PY_HEADER, RUST_HEADER, TOML_HEADER};

/// Every output file, keyed by its path relative to the output directory
/// (`generated/`), with `/` separators.
pub fn emit_all(model: &Model, options: &Options) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    files.insert(
        "docs/SENTENCE-STRUCTURE.md".to_owned(),
        docs::sentence_structure_md(model),
    );
    files.insert(
        "docs/REGEX-PATTERNS.md".to_owned(),
        docs::regex_patterns_md(model),
    );
    files.insert("docs/DIRECTIVES.md".to_owned(), docs::directives_md(model));
    if let Some(ops) = docs::ops_md(model) {
        files.insert("docs/OPS.md".to_owned(), ops);
    }
    let grammars = &model.grammars;
    let grammar_files = grammar::files(grammars);
    for (path, text) in &grammar_files {
        files.insert(path.clone(), text.clone());
    }
    files.insert(
        "schema/structures.schema.json".to_owned(),
        schema::structures_schema(),
    );
    files.insert(
        "schema/regex_patterns.schema.json".to_owned(),
        schema::patterns_schema(),
    );
    files.insert(
        "schema/directives.schema.json".to_owned(),
        schema::directives_schema(),
    );
    files.insert(
        "schema/loops.schema.json".to_owned(),
        schema::loops_schema(),
    );
    files.insert("schema/ops.schema.json".to_owned(), schema::ops_schema());
    files.insert(
        "schema/envelope.schema.json".to_owned(),
        schema::envelope_schema(),
    );
    files.insert(
        "rust/Cargo.toml".to_owned(),
        rust::cargo_toml(model, &options.runtime),
    );
    files.insert(
        "rust/src/lib.rs".to_owned(),
        rust::lib_rs(model) + &grammar::rust_module(grammars, &grammar_files),
    );
    files.insert("rust/README.md".to_owned(), rust::readme_md(model));
    files.insert(
        "rust/tests/spec_examples.rs".to_owned(),
        rust::spec_examples_rs(model),
    );
    files.insert(
        "rust/tests/roundtrip.rs".to_owned(),
        rust::roundtrip_rs(model),
    );
    files.insert(
        "python/pyproject.toml".to_owned(),
        python::pyproject_toml(model),
    );
    files.insert(
        "python/agent_sentences/py.typed".to_owned(),
        python::py_typed(model),
    );
    files.insert(
        "python/agent_sentences/__init__.py".to_owned(),
        python::init_py(model),
    );
    files.insert(
        "python/agent_sentences/errors.py".to_owned(),
        python::errors_py(model),
    );
    files.insert(
        "python/agent_sentences/strict_json.py".to_owned(),
        python::strict_json_py(model),
    );
    files.insert(
        "python/agent_sentences/patterns.py".to_owned(),
        python::patterns_py(model),
    );
    files.insert(
        "python/agent_sentences/sentences.py".to_owned(),
        python::sentences_py(model),
    );
    files.insert(
        "python/agent_sentences/scanner.py".to_owned(),
        python::scanner_py(model),
    );
    files.insert(
        "python/agent_sentences/stream.py".to_owned(),
        python::stream_py(model),
    );
    files.insert(
        "python/agent_sentences/harvest.py".to_owned(),
        python::harvest_py(model),
    );
    files.insert(
        "python/agent_sentences/_native.pyi".to_owned(),
        python::native_pyi(model),
    );
    if let Some(loops) = python::loops_py(model) {
        files.insert("python/agent_sentences/loops.py".to_owned(), loops);
    }
    files.insert("docs/GRAMMAR.md".to_owned(), grammar::grammar_md(grammars));
    files.insert(
        "python/agent_sentences/grammar.py".to_owned(),
        grammar::python_module(grammars),
    );
    if let Some(ops) = python::ops_py(model) {
        files.insert("python/agent_sentences/ops.py".to_owned(), ops);
    }
    if let Some(envelope) = python::envelope_py(model) {
        files.insert("python/agent_sentences/envelope.py".to_owned(), envelope);
    }
    files.insert(
        "python/native/Cargo.toml".to_owned(),
        python::native_cargo_toml(model, &options.runtime),
    );
    files.insert(
        "python/native/src/lib.rs".to_owned(),
        python::native_lib_rs(model),
    );
    // The licence beside each manifest that names it: its text first (tools
    // read it from the top), the marker after it.
    for dir in ["rust", "python"] {
        files.insert(
            format!("{dir}/LICENSE"),
            format!(
                "{}\n{}\n",
                rust::manifest::LICENSE_TEXT,
                header::sentence(&crate::options::Provenance::default())
            ),
        );
    }
    header::restamp(&mut files, &options.provenance);
    if options.runtime == Runtime::Vendored {
        files.extend(vendor::runtime_files(&options.provenance));
    }
    files
}
