//! `cargo xtask`: a thin command line over `agent-sentences-codegen`.
//!
//! - `cargo xtask gen`: check the spec and write `generated/` (only files that change).
//! - `cargo xtask check`: lint the spec and compare `generated/` with what the
//!   spec produces; writes nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_sentences_codegen::{generate, lint, Mode, Report, Severity};
use clap::{Parser, Subcommand, ValueEnum};

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
    /// Run every test: the drift check and spec lint, the Rust tests, clippy
    /// on the generated crate, and the Python tests with mypy --strict.
    Test,
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
            for w in &generated.warnings.diagnostics {
                eprintln!("{w}");
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
        Command::Check { spec, out, format, deny_warnings } => exit(check(&spec, &out, format, deny_warnings)),
        Command::Test => exit(test::run_all()),
    }
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The lint and drift check; true when both pass.
fn check(spec: &Path, out: &Path, format: Format, deny_warnings: bool) -> bool {
    let report = lint(spec);
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report).expect("report serializes")),
        Format::Human => print_report(&report),
    }
    let mut ok = !(report.has_errors() || (deny_warnings && report.count(Severity::Warning) > 0));
    if let Ok(generated) = generate(spec) {
        match generated.sync(out, Mode::Check) {
            Ok(drifts) if drifts.is_empty() => eprintln!("generated/ is up to date ({} files)", generated.files.len()),
            Ok(drifts) => {
                for d in &drifts {
                    eprint!("{d}");
                }
                eprintln!("{} file(s) differ from what schema/ produces: run `cargo xtask gen` and commit the result", drifts.len());
                ok = false;
            }
            Err(e) => {
                eprintln!("error: reading {}: {e}", out.display());
                ok = false;
            }
        }
    }
    ok
}
