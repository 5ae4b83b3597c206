//! `cargo xtask test`: every test the project has, in one command.
//!
//! 1. the spec lint and the drift check (`cargo xtask check`);
//! 2. `cargo test --workspace`;
//! 3. `cargo clippy` and `cargo doc` on the generated crate, warnings denied;
//! 4. the Python tests and `mypy --strict` on the generated package, with
//!    pinned tools installed into `.tools/venv` when missing.

use std::path::Path;
use std::process::Command;

use crate::Format;

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

/// Runs every step, even after a failure, and reports each; true when all pass.
pub fn run_all() -> bool {
    let mut results = Vec::new();
    results.push(("lint and drift check", step("lint and drift check", crate::check(Path::new("schema"), Path::new("generated"), Format::Human, true))));
    results.push(("cargo test", run("cargo test", cargo().args(["test", "--workspace", "--all-targets"]))));
    results.push((
        "clippy on the generated crate",
        run("clippy on the generated crate", cargo().args(["clippy", "-p", "agent-sentences", "--all-targets", "--", "-D", "warnings"])),
    ));
    results.push((
        "rustdoc on the generated crate",
        run("rustdoc on the generated crate", cargo().args(["doc", "--quiet", "--no-deps", "-p", "agent-sentences"]).env("RUSTDOCFLAGS", "-D warnings")),
    ));
    if Path::new("generated/python").exists() {
        results.push(("python", crate::python::run_tests()));
    }
    eprintln!();
    for (name, ok) in &results {
        eprintln!("{:>7}  {name}", if *ok { "ok" } else { "FAILED" });
    }
    results.iter().all(|(_, ok)| *ok)
}
