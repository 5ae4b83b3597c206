//! The generated crate's manifest and registry README
//! (`generated/rust/Cargo.toml`, `generated/rust/README.md`).

use crate::emit::header::{MD_HEADER, TOML_HEADER};
use crate::lower::Model;
use crate::options::Runtime;

/// The edition, minimum Rust version and license the generated crate
/// declares (the workspace's, written out: the crate must build outside it).
pub const CRATE_EDITION: &str = "2021";
/// See [`CRATE_EDITION`].
pub const CRATE_RUST_VERSION: &str = "1.85";
/// See [`CRATE_EDITION`].
pub const CRATE_LICENSE: &str = "MIT";
/// The repository the generated crate's manifest names (the workspace's
/// `repository`).
pub const CRATE_REPOSITORY: &str = crate::emit::header::REPOSITORY;

/// `generated/rust/README.md`: the crate's README for its registry page
/// (the manifest's `readme`): the spec it is generated from and how to use it.
pub fn readme_md(model: &Model) -> String {
    format!(
        "{MD_HEADER}\n# agent-sentences\n\nTyped sentence structures, parsers and renderers of \"{title}\" (spec version {version}),\ngenerated from the spec: one type per structure with `FromStr` (`parse`) and\n`Display` (`render`), `Sentence` for any structure, and `scan::scan` for every\nsentence and tool directive in free text, with byte spans. A `ParseError` names\nthe structure expected, the byte where the text stopped fitting and what was\nexpected there.\n\n```rust\nlet any: agent_sentences::Sentence = \"[ACK:7fce46e0] [from 646]\".parse().unwrap();\nassert_eq!(any.kind().key(), \"ack\");\n```\n\nIt depends on one crate, `agent-sentences-runtime`. Licensed under {CRATE_LICENSE}.\n",
        title = model.title,
        version = model.version
    )
}

/// The licence's text, written as `LICENSE` beside the generated crate's and
/// the Python package's manifests (their `license` is [`CRATE_LICENSE`]), so
/// that the crate's package and the wheel hold it (P287). From this crate's
/// `LICENSE`, the repository's (a link; `cargo package` copies its text).
pub const LICENSE_TEXT: &str = include_str!("../../../LICENSE");

/// A TOML basic string holding `s`, every control character escaped (the
/// generated manifests write paths and versions with it).
pub fn toml_str(s: &str) -> String {
    // A TOML basic string: JSON's escapes are TOML's, but JSON leaves DEL
    // raw, which TOML forbids in a string (a `--runtime-path` holding one
    // made the manifest unreadable, P285); every control is `\uXXXX`.
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `generated/rust/Cargo.toml`: a self-contained manifest (no workspace
/// inheritance) whose version is the spec's. The runtime is named as
/// [`Runtime::dependency`] says: by the version the generator was built with
/// (`agent_sentences_runtime::VERSION`) or the one the user named, and, for
/// a path or a vendored copy, also by that path relative to the crate's
/// directory, as prost names prost-types: the path is used in a checkout, the
/// version from a registry (`cargo package` drops the path).
pub fn cargo_toml(model: &Model, runtime: &Runtime) -> String {
    let (version, path) = runtime.dependency();
    let runtime_version = toml_str(&version);
    let runtime = match path {
        Some(path) => format!(
            "{{ version = {runtime_version}, path = {} }}",
            toml_str(&path)
        ),
        None => format!("{{ version = {runtime_version} }}"),
    };
    format!(
        r#"{TOML_HEADER}
[package]
name = "agent-sentences"
version = {version}
description = "Typed sentence structures, parsers and renderers of the agent messaging protocol, generated from schema/."
edition = "{CRATE_EDITION}"
rust-version = "{CRATE_RUST_VERSION}"
license = "{CRATE_LICENSE}"
repository = "{CRATE_REPOSITORY}"
readme = "README.md"
documentation = "https://docs.rs/agent-sentences"
keywords = ["agents", "protocol", "parser", "codegen"]
categories = ["parser-implementations"]

[features]
default = []
# Derive `schemars::JsonSchema` on every type.
schemars = ["dep:schemars"]

[dependencies]
# Also re-exports what the generated code uses: regex, serde, serde_json.
agent-sentences-runtime = {runtime}
schemars = {{ version = "0.8", features = ["preserve_order", "indexmap2"], optional = true }}

[dev-dependencies]
proptest = "1"

[lints.rust]
missing_docs = "warn"
"#,
        version = toml_str(&model.version)
    )
}

#[cfg(test)]
mod tests {
    use super::toml_str;

    /// P285: every control character is escaped, so TOML reads the string
    /// back as it was (JSON's escaping left DEL raw: an unreadable manifest).
    #[test]
    fn toml_strings_read_back_with_every_control_character() {
        for s in [
            "../runtime",
            "a\u{7f}b",
            "q\"uo\\te",
            "tab\tnl\nnul\0",
            "bidi\u{202e}x",
            "é",
        ] {
            let doc: toml_edit::DocumentMut = format!("path = {}\n", toml_str(s)).parse().unwrap();
            assert_eq!(doc["path"].as_str(), Some(s), "{s:?}");
        }
        assert_eq!(toml_str("a\u{7f}b"), r#""a\u007Fb""#);
    }
}
