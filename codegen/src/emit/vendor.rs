//! The vendored runtime ([`Runtime::Vendored`]): the sources of
//! `agent-sentences-runtime` that the generator carries
//! ([`agent_sentences_runtime::vendor::FILES`]), under
//! `<out>/`[`VENDORED_RUNTIME_DIR`], each with a header that names the
//! command that wrote it. They are outputs like every other: written and
//! checked by [`crate::files::sync`].
//!
//! [`Runtime::Vendored`]: crate::options::Runtime::Vendored

use crate::emit::header::vendored_sentence;
use crate::options::{Provenance, VENDORED_RUNTIME_DIR};

/// Every file of the vendored runtime: `(path relative to the output
/// directory, text)`.
pub fn runtime_files(p: &Provenance) -> Vec<(String, String)> {
    let sentence = vendored_sentence(p);
    agent_sentences_runtime::vendor::FILES
        .iter()
        .map(|(path, text)| {
            let header = if path.ends_with(".rs") {
                format!("// {sentence}\n")
            } else if path.ends_with(".toml") {
                format!("# {sentence}\n")
            } else {
                format!("<!-- {sentence} -->\n")
            };
            (format!("{VENDORED_RUNTIME_DIR}/{path}"), header + text)
        })
        .collect()
}
