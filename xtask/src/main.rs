//! `cargo xtask`: a thin command line over `agent-sentences-codegen`.
//!
//! - `cargo xtask gen`: check the spec and write `generated/` (only files that change).
//! - `cargo xtask check`: lint the spec and compare `generated/` with what the
//!   spec produces; writes nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_sentences_codegen::{generate, lint_and_generate, Drift, DriftKind, Mode, Python, Report, Severity};
use clap::{Parser, Subcommand, ValueEnum};

mod bench;
mod python;
mod test;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Generate and check the agent-sentences outputs from schema/")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the spec and write every output under generated/.
    Gen {
        /// The spec directory.
        #[arg(long, default_value = "schema")]
        spec: PathBuf,
        /// The output directory.
        #[arg(long, default_value = "generated")]
        out: PathBuf,
    },
    /// Run every test: the drift check and spec lint (new warnings denied),
    /// `cargo fmt --check`, every Rust test binary (none stops the others),
    /// clippy on the workspace with warnings denied, rustdoc on the generated
    /// crate, and the Python tests with mypy --strict; then a summary.
    Test {
        /// The inner loop: the lint, the Rust tests and the Python tests
        /// only (no fmt, clippy, rustdoc or mypy), with 64 KiB near-misses
        /// instead of 1 MiB.
        #[arg(long)]
        quick: bool,
        /// Only tests whose name contains this text (passed to `cargo test`
        /// and, as `-k`, to pytest); implies skipping fmt, clippy, rustdoc and
        /// mypy.
        filter: Option<String>,
    },
    /// Benchmark the Rust scanner, the generated Python package and the seed
    /// approach on one corpus, and print one table (also written to
    /// target/bench/report.md).
    Bench,
    /// Lint the spec and check that generated/ is what the spec produces. Writes nothing.
    Check {
        /// The spec directory.
        #[arg(long, default_value = "schema")]
        spec: PathBuf,
        /// The output directory.
        #[arg(long, default_value = "generated")]
        out: PathBuf,
        /// Output format of the lint findings.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Fail on warnings too.
        #[arg(long)]
        deny_warnings: bool,
        /// The Python interpreter the patterns are also checked with; `off`
        /// skips that check.
        #[arg(long, default_value = "python3")]
        python: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    Human,
    Json,
}

/// Paths given relative are taken from the workspace root, so the commands
/// work from any directory inside the repository.
fn root_relative(p: &Path) -> PathBuf {
    p.to_owned()
}

/// Runs from the workspace root so relative paths (and the paths printed in
/// diagnostics) are the same from any directory.
fn enter_workspace_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace");
    if let Err(e) = std::env::set_current_dir(root) {
        eprintln!("warning: cannot enter the workspace root {}: {e}", root.display());
    }
}

fn print_report(report: &Report) {
    if !report.diagnostics.is_empty() {
        eprintln!("{report}");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    enter_workspace_root();
    match cli.command {
        Command::Gen { spec, out } => {
            let generated = match generate(&root_relative(&spec)) {
                Ok(g) => g,
                Err(report) => {
                    print_report(&report);
                    eprintln!("nothing was written: fix the errors above and run `cargo xtask gen` again");
                    return ExitCode::FAILURE;
                }
            };
            for w in generated.warnings.new_findings() {
                eprintln!("{w}");
            }
            if let Some(line) = generated.warnings.known_line() {
                eprintln!("{line}");
            }
            match generated.sync(&root_relative(&out), Mode::Write) {
                Ok(changes) => {
                    for c in &changes {
                        eprintln!("wrote generated/{} ({:?})", c.path, c.kind);
                    }
                    eprintln!("{} file(s) changed, {} up to date", changes.len(), generated.files.len().saturating_sub(changes.len()));
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: writing {}: {e}", out.display());
                    ExitCode::FAILURE
                }
            }
        }
        Command::Check { spec, out, format, deny_warnings, python } => {
            let python = if python == "off" { Python::Off } else { Python::Command(python.into()) };
            exit(check_with(&spec, &out, format, deny_warnings, &python))
        }
        Command::Test { quick, filter } => exit(test::run_all(quick, filter.as_deref())),
        Command::Bench => exit(match python::ensure_tools() {
            Some(py) => bench::run_all(&py).map_err(|e| eprintln!("error: {e}")).is_ok(),
            None => false,
        }),
    }
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Quotes a path for a POSIX shell when it needs it.
fn shell_word(p: &Path) -> String {
    let s = p.to_string_lossy();
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c)) {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The exact command that rewrites `out` from `spec`.
fn fix_command(spec: &Path, out: &Path) -> String {
    let mut cmd = "cargo xtask gen".to_owned();
    if spec != Path::new("schema") {
        cmd.push_str(&format!(" --spec {}", shell_word(spec)));
    }
    if out != Path::new("generated") {
        cmd.push_str(&format!(" --out {}", shell_word(out)));
    }
    cmd
}

fn drift_kind(kind: DriftKind) -> &'static str {
    match kind {
        DriftKind::Stale => "stale",
        DriftKind::Missing => "missing",
        DriftKind::Orphan => "orphan",
    }
}

/// The lint and drift check with `python3`; true when both pass.
fn check(spec: &Path, out: &Path, format: Format, deny_warnings: bool) -> bool {
    check_with(spec, out, format, deny_warnings, &Python::default())
}

/// The lint and drift check; true when both pass.
///
/// Human format: findings, then the drift, on standard error. JSON format:
/// one object on standard output, `{"ok", "errors", "warnings",
/// "diagnostics": [..], "drift": null | [{"path", "kind", "diff"}], "fix":
/// null | "cargo xtask gen …"}`; `drift` is null when the spec has errors
/// (nothing can be generated to compare with).
fn check_with(spec: &Path, out: &Path, format: Format, deny_warnings: bool, python: &Python) -> bool {
    let (report, generated) = lint_and_generate(spec, python);
    let mut ok = !(report.has_errors() || (deny_warnings && report.has_new_warnings()));
    let drift: Option<Vec<Drift>> = match &generated {
        None => None,
        Some(g) => match g.sync(out, Mode::Check) {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("error: reading {}: {e}", out.display());
                return false;
            }
        },
    };
    let fix = fix_command(spec, out);
    if drift.as_ref().is_some_and(|d| !d.is_empty()) {
        ok = false;
    }
    match format {
        Format::Json => {
            let json = serde_json::json!({
                "ok": ok,
                "errors": report.count(Severity::Error),
                "warnings": report.count(Severity::Warning),
                "diagnostics": report,
                "drift": drift.as_ref().map(|d| d.iter().map(|x| serde_json::json!({
                    "path": x.path,
                    "kind": drift_kind(x.kind),
                    "diff": x.diff,
                })).collect::<Vec<_>>()),
                "fix": drift.as_ref().filter(|d| !d.is_empty()).map(|_| fix.clone()),
            });
            println!("{}", serde_json::to_string_pretty(&json).expect("serializes"));
        }
        Format::Human => {
            print_report(&report);
            match (&drift, &generated) {
                (None, _) => eprintln!("drift check skipped: the spec has errors, so there is nothing to compare {} with", out.display()),
                (Some(d), Some(g)) if d.is_empty() => eprintln!("{} is up to date ({} files)", out.display(), g.files.len()),
                (Some(d), _) => {
                    for x in d {
                        eprintln!("{}/{} {}", out.display(), x.path, x.kind.describe());
                        eprint!("{}", x.diff);
                    }
                    eprintln!("{} file(s) under {} differ from what {} produces: run `{fix}` and commit the result", d.len(), out.display(), spec.display());
                }
            }
        }
    }
    ok
}
