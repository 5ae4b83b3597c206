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
    ("src/context/comrak.rs", include_str!("context/comrak.rs")),
    ("src/context/meet.rs", include_str!("context/meet.rs")),
    ("src/context/mod.rs", include_str!("context/mod.rs")),
    (
        "src/context/normalize.rs",
        include_str!("context/normalize.rs"),
    ),
    (
        "src/context/pulldown.rs",
        include_str!("context/pulldown.rs"),
    ),
    ("src/context/reader.rs", include_str!("context/reader.rs")),
    ("src/context/trivial.rs", include_str!("context/trivial.rs")),
    ("src/envelope.rs", include_str!("envelope.rs")),
    ("src/grammar.rs", include_str!("grammar.rs")),
    ("src/json.rs", include_str!("json.rs")),
    ("src/json/once.rs", include_str!("json/once.rs")),
    ("src/lib.rs", include_str!("lib.rs")),
    ("src/loops.rs", include_str!("loops.rs")),
    ("src/loops/check.rs", include_str!("loops/check.rs")),
    ("src/meta.rs", include_str!("meta.rs")),
    ("src/ops.rs", include_str!("ops.rs")),
    ("src/ops/native.rs", include_str!("ops/native.rs")),
    ("src/python/batch.rs", include_str!("python/batch.rs")),
    ("src/python/harvest.rs", include_str!("python/harvest.rs")),
    ("src/python/json.rs", include_str!("python/json.rs")),
    ("src/python/loops.rs", include_str!("python/loops.rs")),
    ("src/python/mod.rs", include_str!("python/mod.rs")),
    ("src/python/objects.rs", include_str!("python/objects.rs")),
    (
        "src/python/serialize.rs",
        include_str!("python/serialize.rs"),
    ),
    ("src/python/text.rs", include_str!("python/text.rs")),
    ("src/scan/mod.rs", include_str!("scan/mod.rs")),
    ("src/scan/shell.rs", include_str!("scan/shell.rs")),
    ("src/scan/tails.rs", include_str!("scan/tails.rs")),
    ("src/scan/types.rs", include_str!("scan/types.rs")),
    ("src/scan/visibility.rs", include_str!("scan/visibility.rs")),
    ("src/scan/walk.rs", include_str!("scan/walk.rs")),
    ("src/vendor.rs", include_str!("vendor.rs")),
];
