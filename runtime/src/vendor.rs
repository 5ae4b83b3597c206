//! This crate's own sources, for the generator to write beside a generated
//! crate as a vendored copy (`agent-sentences-gen gen` does unless it is
//! given `--runtime-version` or `--runtime-path`), so the generated crate
//! builds with no registry.
//!
//! Each entry is a path relative to the crate's directory (`/`-separated)
//! and the file's text, embedded when this crate is compiled: the copy is
//! always the runtime the generator was built with ([`crate::VERSION`]).
//! The manifest is the one this crate is built from (spelled out, with no
//! workspace inheritance, so it builds on its own; a published copy is
//! cargo's normalized one).

/// Every file of this crate a build needs, `(path, text)`, in path order.
pub const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../Cargo.toml")),
    ("README.md", include_str!("../README.md")),
    ("src/envelope.rs", include_str!("envelope.rs")),
    ("src/json.rs", include_str!("json.rs")),
    ("src/lib.rs", include_str!("lib.rs")),
    ("src/loops.rs", include_str!("loops.rs")),
    ("src/markdown.rs", include_str!("markdown.rs")),
    ("src/ops.rs", include_str!("ops.rs")),
    ("src/python.rs", include_str!("python.rs")),
    ("src/scan.rs", include_str!("scan.rs")),
    ("src/vendor.rs", include_str!("vendor.rs")),
];
