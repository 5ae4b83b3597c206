//! `cargo xtask test`: every test the project has, in one command.
//!
//! 1. the spec lint and the drift check (`cargo xtask check`);
//! 2. the Python package built and installed into `.tools/venv` (`python.rs`),
//!    with pinned tools installed there when missing;
//! 3. `cargo test --workspace`;
//! 4. `cargo clippy` and `cargo doc` on the generated crate, and clippy on the
//!    Python binding (the runtime's `python` feature and the PyO3 crate
//!    `generated/python/native`), warnings denied; the doctests (generated
//!    crate, README), and `cargo package` of the published crates (runtime,
//!    generated crate, generator library and binary);
//! 5. `mypy --strict` on the installed package and on user code, and pytest.

use std::path::Path;
use std::process::Command;

use agent_sentences_gen::{run_check, CheckArgs, Context, Format, GenArgs};

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Prints a step's outcome and returns it.
pub(crate) fn step(name: &str, ok: bool) -> bool {
    eprintln!("== {name}: {}", if ok { "passed" } else { "FAILED" });
    ok
}

/// Runs one step's command, printing it and its outcome; true when it exits 0.
pub(crate) fn run(name: &str, cmd: &mut Command) -> bool {
    eprintln!("== {name}: {cmd:?}");
    let ok = cmd.status().map(|s| s.success()).unwrap_or_else(|e| {
        eprintln!("cannot run {name}: {e}");
        false
    });
    step(name, ok)
}

/// `cargo package` of the published crates: the runtime, the generated
/// crate, the generator library and the standalone generator.
pub const PACKAGE_ARGS: &[&str] = &[
    "package",
    "--quiet",
    "--allow-dirty",
    "-p",
    "agent-sentences-runtime",
    "-p",
    "agent-sentences",
    "-p",
    "agent-sentences-codegen",
    "-p",
    "agent-sentences-gen",
];

/// Runs every step, even after a failure, and reports each; true when all pass.
pub fn run_all(ctx: &Context) -> bool {
    let mut results = Vec::new();
    let check = CheckArgs {
        paths: GenArgs { spec: None, out: None, runtime_path: None },
        format: Format::Human,
        deny_warnings: false,
        python: "python3".to_owned(),
        against: None,
    };
    results.push(("lint and drift check", step("lint and drift check", run_check(ctx, &check))));
    // The Python package first: some Rust tests (codegen/tests/spec_change.rs)
    // run the Python vector runner on it.
    let python = if Path::new("generated/python").exists() { crate::python::prepare() } else { None };
    results.push(("Python package built and installed into .tools/venv", python.is_some()));
    results.push(("cargo test", run("cargo test", cargo().args(["test", "--workspace", "--all-targets"]))));
    results.push((
        "clippy on the generated crate",
        run("clippy on the generated crate", cargo().args(["clippy", "-p", "agent-sentences", "--all-targets", "--", "-D", "warnings"])),
    ));
    results.push((
        "clippy on the Python binding (runtime `python` feature, generated/python/native)",
        run(
            "clippy on the Python binding",
            cargo().args([
                "clippy",
                "-p",
                "agent-sentences-runtime",
                "-p",
                "agent-sentences-native",
                "--features",
                "agent-sentences-runtime/python",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        ),
    ));
    results.push((
        "rustdoc on the generated crate",
        run("rustdoc on the generated crate", cargo().args(["doc", "--quiet", "--no-deps", "-p", "agent-sentences"]).env("RUSTDOCFLAGS", "-D warnings")),
    ));
    // `--all-targets` leaves doctests out: the generated crate's entry
    // points and the README's Rust examples (included by tests/downstream).
    results.push(("doctests", run("doctests", cargo().args(["test", "--quiet", "--doc", "-p", "agent-sentences", "-p", "downstream-example"]))));
    // Every crate a user gets from a registry, packaged and verified together
    // (each verification builds against the ones packaged before it, from a
    // local registry cargo makes under target/package).
    results.push((
        "cargo package",
        run(
            "cargo package",
            cargo().args(PACKAGE_ARGS),
        ),
    ));
    if let Some(python) = python {
        results.push(("python: mypy --strict and pytest", crate::python::run_tests(python)));
    }
    eprintln!();
    for (name, ok) in &results {
        eprintln!("{:>7}  {name}", if *ok { "ok" } else { "FAILED" });
    }
    results.iter().all(|(_, ok)| *ok)
}
