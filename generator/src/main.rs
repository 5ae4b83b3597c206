//! `agent-sentences-gen`: the generator as a standalone command.
//!
//! ```sh
//! cargo install --path generator
//! agent-sentences-gen gen --spec schema --out generated
//! agent-sentences-gen check --spec schema --out generated --against HEAD
//! ```
//!
//! `--spec` and `--out` are relative to the current directory. Elsewhere
//! than this repository it writes the runtime it carries beside the
//! generated crate (`<out>/runtime`) unless `--runtime-version` or
//! `--runtime-path` is given; with this repository's `schema` and
//! `generated` it writes what `cargo xtask gen` writes.

use std::process::ExitCode;

use agent_sentences_gen::{run_check, run_gen, CheckArgs, Context, GenArgs};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "agent-sentences-gen",
    version,
    about = "Generate and check the agent-sentences outputs (Rust crate, Markdown docs, Python package) from a spec directory",
    after_help = "Paths are relative to the current directory. Exit status: 0 success, 1 a failed check or a spec with errors, 2 usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check the spec and write every output under the output directory (only files that change; orphans removed).
    Gen(GenArgs),
    /// Lint the spec, check that the output directory is what the spec produces, and with --against compare with an earlier spec. Writes nothing.
    Check(CheckArgs),
}

fn main() -> ExitCode {
    // The version names the runtime the generated crate depends on, a
    // constant of a dependency, which `#[command(version = …)]` cannot take.
    let version = format!(
        "{} (generates crates for agent-sentences-runtime {})",
        env!("CARGO_PKG_VERSION"),
        agent_sentences_codegen::RUNTIME_VERSION
    );
    let matches = Cli::command()
        .version(&*Box::leak(version.into_boxed_str()))
        .get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let ctx = Context::standalone("agent-sentences-gen");
    let ok = match &cli.command {
        Command::Gen(args) => run_gen(&ctx, args),
        Command::Check(args) => run_check(&ctx, args),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
