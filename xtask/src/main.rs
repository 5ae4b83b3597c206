//! `cargo xtask`: a thin command line over `agent-sentences-codegen`.
//!
//! - `cargo xtask gen`: check the spec and write `generated/` (only files that change).
//! - `cargo xtask check`: lint the spec and compare `generated/` with what the
//!   spec produces (and with `--against`, the spec with an earlier one); writes nothing.
//! - `cargo xtask readme`: rewrite the `box-docs` output the README and the
//!   guide show.
//! - `cargo xtask bench [--record | --scanner | --grammar]`: the benchmarks
//!   (BENCHMARKS.md); with `--record` the report is also kept under
//!   `bench/runs/`; `--scanner` runs only the Rust scanner beside its
//!   CommonMark readers; `--grammar` only the decoding grammar's rows.
//!
//! Both are `agent_sentences_gen`'s, the standalone generator's, with this
//! repository's defaults.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_sentences_gen::{run_check, run_gen, CheckArgs, Context, GenArgs};
use clap::{Parser, Subcommand};

mod bench;
mod python;
mod readme;
mod steps;
mod test;
mod test_binaries;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Generate and check the agent-sentences outputs from schema/"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the spec and write every output under generated/ (only files
    /// that change; orphans removed). Paths given are relative to the
    /// current directory; the defaults are the repository's.
    Gen(GenArgs),
    /// Run every test: the drift check and spec lint (new warnings denied),
    /// `cargo fmt --check`, the Python package built into .tools/venv, every
    /// Rust test binary (none stops the others), clippy on the workspace with
    /// warnings denied, rustdoc and the doctests, `cargo package` of the
    /// published crates, and the Python tests with mypy --strict; then a
    /// summary.
    Test {
        /// The inner loop: the lint, the Rust tests and the Python tests
        /// only (no fmt, clippy, rustdoc, doctests, package or mypy), with
        /// 64 KiB near-misses instead of 1 MiB.
        #[arg(long)]
        quick: bool,
        /// Only tests whose name contains this text (passed to `cargo test`
        /// and, as `-k`, to pytest); implies skipping what --quick skips.
        filter: Option<String>,
    },
    /// Benchmark the Rust scanner, the generated Python package and the seed
    /// approach on one corpus, and print one table (also written to
    /// target/bench/report.md).
    Bench {
        /// Also keep the report as a run of the project's record:
        /// bench/runs/<date>-<commit>/report.md (see BENCHMARKS.md).
        #[arg(long, conflicts_with = "scanner")]
        record: bool,
        /// Only the Rust scanner against the CommonMark readers (both
        /// corpora, prose, the Markdown-stressing hostile inputs, peak
        /// memory): the criterion rows and the Markdown-context section,
        /// written to target/bench/scanner-report.md.
        #[arg(long, conflicts_with = "grammar")]
        scanner: bool,
        /// Only the decoding grammar's rows (llguidance compile time of each
        /// generated grammar, checking the corpus's found items, each
        /// engine's compile and mask time, the grammar test file's wall
        /// time), written to target/bench/grammar-report.md.
        #[arg(long, conflicts_with = "record")]
        grammar: bool,
    },
    /// Rewrite the output shown in the `console` blocks of README.md and
    /// docs/guide/*.md from the `box-docs` binary (built first), so a spec
    /// change that changes what it prints is regenerated too; --check only
    /// compares.
    Readme {
        /// Write nothing; fail when a page's output is stale.
        #[arg(long)]
        check: bool,
    },
    /// Lint the spec and check that generated/ is what the spec produces;
    /// with --against, also compare the spec with an earlier one. Writes nothing.
    Check(CheckArgs),
}

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_owned()
}

/// Runs from the workspace root so the defaults (and the paths printed in
/// diagnostics) are the same from any directory; returns the context that
/// resolves paths given on the command line against the directory the
/// command was run from.
fn enter_workspace_root() -> Context {
    let base = std::env::current_dir().unwrap_or_else(|_| root());
    let root = root();
    if let Err(e) = std::env::set_current_dir(&root) {
        eprintln!(
            "warning: cannot enter the workspace root {}: {e}",
            root.display()
        );
    }
    Context::repository("cargo xtask", base, root)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ctx = enter_workspace_root();
    match cli.command {
        Command::Gen(args) => exit(run_gen(&ctx, &args)),
        Command::Check(args) => exit(run_check(&ctx, &args)),
        Command::Test { quick, filter } => exit(test::run_all(&ctx, quick, filter.as_deref())),
        Command::Readme { check } => exit(readme::run(check)),
        Command::Bench { scanner: true, .. } => exit(
            bench::run_scanner()
                .map_err(|e| eprintln!("error: {e}"))
                .is_ok(),
        ),
        Command::Bench { grammar: true, .. } => exit(match python::ensure_tools() {
            Some(py) => bench::run_grammar(&py)
                .map_err(|e| eprintln!("error: {e}"))
                .is_ok(),
            None => false,
        }),
        Command::Bench {
            scanner: false,
            grammar: false,
            record,
        } => exit(match python::ensure_tools() {
            Some(py) => bench::run_all(&py)
                .and_then(|report| {
                    if record {
                        bench::record(&report)
                    } else {
                        Ok(())
                    }
                })
                .map_err(|e| eprintln!("error: {e}"))
                .is_ok(),
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
