//! The generator of the agent messaging protocol's code and docs.
//!
//! The spec under `schema/` goes through four stages, each in its own
//! module. Its files: `structures.json` (the owner's structures),
//! `regex_patterns.json` (the patterns, their typed groups and examples,
//! bindings and acknowledged findings), `directives.json` (the tool directive
//! grammar), and, each optional, `ops.json` (the op catalogue), `loops.json`
//! (how the loop tracker reads the sentences) and `envelope.json` (the prompt
//! envelope); [`load`] names them.
//!
//! 1. [`load`]: read the files and validate them against the serde model ([`model`]);
//! 2. [`check`]: cross-check references, fields, templates, patterns and examples,
//!    and ([`prose`]) the structures' own text against templates and enums;
//!    [`check::check`] returns what it proved: the findings, and the
//!    structures whose definition holds no error;
//! 3. [`lower`]: build the whole intermediate model the emitters read, once
//!    (with the loop lifecycle read by [`lifecycle`], the envelope laid out
//!    and the decoding grammars of the intact structures, [`grammar`]; its
//!    findings join the lint's: a field pattern no grammar can express is an
//!    error), then [`examples`]: every intact structure's example parsed and
//!    rendered through that model, and [`check::envelope`]: the envelope's
//!    example scanned back;
//! 4. [`emit`]: render every output file from the model and the options
//!    only, one function per file.
//!
//! Each stage names only the stages before it (and shared helpers such as
//! [`diagnostic`], [`pattern`], [`template`]): no module of the crate reaches
//! one that reaches it back (`tests/module_cycles.rs`).
//!
//! [`files::sync`] is the one place that touches the output directory.
//! [`lint`] adds the Python side of the dialect check ([`pycheck`]), which
//! [`generate`] does not run.
//!
//! # Use from a build script
//! ```no_run
//! let generated = agent_sentences_codegen::generate(std::path::Path::new("schema")).unwrap();
//! let lib = &generated.files["rust/src/lib.rs"];
//! # let _ = lib;
//! ```
//! Or write everything, as `cargo xtask gen` does:
//! ```no_run
//! use agent_sentences_codegen::{generate, files::Mode};
//! let generated = generate("schema".as_ref()).unwrap();
//! generated.sync("generated".as_ref(), Mode::Write).unwrap();
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ambiguity;
pub mod backtrack;
pub mod check;
pub mod compat;
pub mod diagnostic;
pub mod emit;
pub mod examples;
pub mod files;
pub mod free_text;
pub mod grammar;
pub mod ident;
pub mod lifecycle;
pub mod load;
pub mod locate;
pub mod loops;
pub mod lower;
pub mod model;
pub mod names;
pub mod ops;
pub mod options;
pub mod pattern;
pub mod prose;
pub mod pycheck;
pub mod seed;
pub mod template;

use std::collections::BTreeMap;
use std::path::Path;

pub use diagnostic::{Diagnostic, Report, Severity};
pub use files::{Drift, DriftKind, Mode, SyncError};
pub use options::{Options, Provenance, Runtime, REPO_RUNTIME_PATH, RUNTIME_VERSION};
pub use pycheck::Python;

/// Everything the generator produces from one spec.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Output files keyed by path relative to the output directory (`/`-separated).
    pub files: BTreeMap<String, String>,
    /// Warnings found while checking (errors would have stopped generation).
    pub warnings: Report,
    /// The lowered model, for tools that want more than files.
    pub model: lower::Model,
}

impl Generated {
    /// Writes ([`Mode::Write`]) or checks ([`Mode::Check`]) the output directory.
    ///
    /// # Errors
    /// As [`files::sync_with`].
    pub fn sync(&self, out_dir: &Path, mode: Mode) -> Result<Vec<Drift>, SyncError> {
        files::sync(out_dir, &self.files, mode)
    }

    /// [`Generated::sync`], with diff headers naming files `<label>/<path>`.
    ///
    /// # Errors
    /// As [`files::sync_with`].
    pub fn sync_in(
        &self,
        out_dir: &Path,
        label: &str,
        mode: Mode,
    ) -> Result<Vec<Drift>, SyncError> {
        files::sync_in(out_dir, label, &self.files, mode)
    }

    /// [`Generated::sync_in`], forced or not ([`files::sync_with`]: forced,
    /// a write goes into a non-empty directory without a manifest and
    /// replaces files it did not write; it still removes nothing it did not
    /// write and writes through no link).
    ///
    /// # Errors
    /// As [`files::sync_with`].
    pub fn sync_with(
        &self,
        out_dir: &Path,
        label: &str,
        mode: Mode,
        force: bool,
    ) -> Result<Vec<Drift>, SyncError> {
        files::sync_with(out_dir, label, &self.files, mode, force)
    }
}

/// Every finding in the spec at `spec_dir`, errors and warnings, sorted,
/// with the patterns also checked by `python3` (see [`pycheck`]).
pub fn lint(spec_dir: &Path) -> Report {
    lint_with(spec_dir, &Python::default())
}

/// [`lint`] with a chosen Python interpreter, or none ([`Python::Off`]).
pub fn lint_with(spec_dir: &Path, python: &Python) -> Report {
    match analyze(spec_dir) {
        Ok(mut a) => {
            a.diags.extend(pycheck::check(&a.spec, python));
            Report::new(a.diags).with_known(a.spec.patterns.known_findings.clone())
        }
        Err(report) => report,
    }
}

/// The lint's findings and, when they hold no error, everything the spec
/// generates: what `cargo xtask check` needs, from one pass over the spec.
pub fn lint_and_generate(spec_dir: &Path, python: &Python) -> (Report, Option<Generated>) {
    lint_and_generate_with(spec_dir, python, &Options::default())
}

/// [`lint_and_generate`] with chosen output [`Options`].
pub fn lint_and_generate_with(
    spec_dir: &Path,
    python: &Python,
    options: &Options,
) -> (Report, Option<Generated>) {
    match analyze(spec_dir) {
        Ok(mut a) => {
            let py = pycheck::check(&a.spec, python);
            let generated = finish(&a, options);
            a.diags.extend(py);
            let report = Report::new(a.diags).with_known(a.spec.patterns.known_findings.clone());
            let generated = generated.filter(|_| !report.has_errors());
            (report, generated)
        }
        Err(report) => (report, None),
    }
}

/// A loaded spec with its lowered model and the findings of every check but
/// the Python one.
struct Analysis {
    spec: load::Spec,
    model: lower::Model,
    diags: Vec<Diagnostic>,
}

/// Loads, checks and lowers the spec, each stage once. `Err` only when it
/// cannot be loaded.
fn analyze(spec_dir: &Path) -> Result<Analysis, Report> {
    let spec = load::load(spec_dir).map_err(Report::new)?;
    let checked = check::check(&spec);
    let lowered = lower::lower(&spec, &checked.intact);
    let mut diags = checked.diags;
    // The examples of every structure the checks left intact, so one run
    // reports the example faults too.
    diags.extend(examples::check_model(
        &spec,
        &lowered.model,
        &checked.intact,
    ));
    diags.extend(lowered.diags);
    // The envelope read back by the spec's own scanner, which builds only
    // from a spec without error.
    if !diags.iter().any(|d| d.severity == Severity::Error) {
        diags.extend(check::envelope::scan_back(&spec, &lowered.model));
    }
    Ok(Analysis {
        spec,
        model: lowered.model,
        diags,
    })
}

/// Emits the files of an analyzed spec, unless it has errors.
fn finish(a: &Analysis, options: &Options) -> Option<Generated> {
    if a.diags.iter().any(|d| d.severity == Severity::Error) {
        return None;
    }
    let files = emit::emit_all(&a.model, options);
    let warnings = Report::new(a.diags.clone()).with_known(a.spec.patterns.known_findings.clone());
    Some(Generated {
        files,
        warnings,
        model: a.model.clone(),
    })
}

/// Loads, checks, lowers and emits the spec in `spec_dir`. Writes nothing,
/// and runs no Python (the lint does: [`lint`]).
///
/// # Errors
/// A [`Report`] with every problem found (errors and warnings) when the spec
/// has any error.
pub fn generate(spec_dir: &Path) -> Result<Generated, Report> {
    generate_with(spec_dir, &Options::default())
}

/// [`generate`] with chosen output [`Options`].
///
/// # Errors
/// As [`generate`].
pub fn generate_with(spec_dir: &Path, options: &Options) -> Result<Generated, Report> {
    let a = analyze(spec_dir)?;
    finish(&a, options).ok_or_else(|| Report::new(a.diags))
}

/// The generated Rust items of the spec in `spec_dir` as one module, for a
/// build script that vendors the spec: write it to `OUT_DIR` and `include!`
/// it inside a `mod` (`tests/vendored/` is a crate that does). Writes nothing.
///
/// The including crate needs one dependency, `agent-sentences-runtime`
/// (the module reaches `regex`, `serde` and `serde_json` through its
/// re-exports), and the build dependency `agent-sentences-codegen`. The
/// module has no `cfg` of its own, so it builds without warnings in any
/// crate; [`rust_module_with`] adds `schemars::JsonSchema` derives behind a
/// feature.
///
/// ```no_run
/// // build.rs
/// let spec = std::path::Path::new("schema");
/// let module = agent_sentences_codegen::rust_module(spec).unwrap_or_else(|report| panic!("{report}"));
/// let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("sentences.rs");
/// std::fs::write(out, module).unwrap();
/// ```
///
/// # Errors
/// As [`generate`].
pub fn rust_module(spec_dir: &Path) -> Result<String, Report> {
    rust_module_with(spec_dir, None)
}

/// [`rust_module`], with every type deriving `schemars::JsonSchema` under
/// `#[cfg_attr(feature = "<schemars_feature>", …)]` when `schemars_feature`
/// is given: the including crate then declares that feature and an optional
/// `schemars` 0.8 dependency.
///
/// # Errors
/// As [`generate`].
pub fn rust_module_with(spec_dir: &Path, schemars_feature: Option<&str>) -> Result<String, Report> {
    let a = analyze(spec_dir)?;
    if a.diags.iter().any(|d| d.severity == Severity::Error) {
        return Err(Report::new(a.diags));
    }
    Ok(emit::rust::module_rs(&a.model, schemars_feature))
}
