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

/// Every file of this crate a build needs, `(path, text)`, in path order:
/// the manifest, the README, the build script and every Rust file under
/// `src/`, listed by the build script (`build.rs`) from the crate's tree, so
/// a file added there is vendored with no other change.
pub const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/vendor_files.rs"));
