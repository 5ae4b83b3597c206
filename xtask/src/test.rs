//! `cargo xtask test`: every test the project has, in one command.
//!
//! 1. the spec lint and the drift check (`cargo xtask check --deny-warnings`:
//!    a warning `/known_findings` does not acknowledge fails, P93);
//! 2. `cargo fmt --check` on every package but the generated crate (the
//!    generator formats that one);
//! 3. `cargo test --workspace --all-targets --no-fail-fast`: every test
//!    binary runs, whichever fails;
//! 4. `cargo clippy --workspace --all-targets` and `cargo doc` on the
//!    generated crate, warnings denied;
//! 5. the Python tests and `mypy --strict` on the generated package, with
//!    pinned tools installed into `.tools/venv` when missing.
//!
//! Every step runs whatever the others did; a summary ends the run, one line
//! per step. `--quick` and a name filter make the inner loop (README, "The
//! two commands").

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

/// The workspace's packages but the generated crate, whose formatting is the
/// generator's (prettyplease; the drift check holds it to the spec).
fn hand_written_packages() -> Vec<String> {
    let out = cargo().args(["metadata", "--no-deps", "--format-version", "1"]).output();
    let meta: serde_json::Value = out.ok().and_then(|o| serde_json::from_slice(&o.stdout).ok()).unwrap_or_default();
    meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| !p["manifest_path"].as_str().unwrap_or_default().replace('\\', "/").contains("/generated/"))
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect()
}

/// The environment variable that sets the near-miss size of
/// `tests/python/test_near_miss.py` and `tests/downstream/tests/near_miss.rs`.
pub const NEAR_MISS_BYTES: &str = "AGENT_SENTENCES_NEAR_MISS_BYTES";

/// Runs every step, even after a failure, and reports each; true when all
/// pass. `quick` leaves out fmt, clippy, rustdoc and mypy and reads 64 KiB
/// near-misses; `filter` runs only the tests whose names contain it (and
/// implies `quick`'s leaving out).
pub fn run_all(quick: bool, filter: Option<&str>) -> bool {
    let full = !quick && filter.is_none();
    let env: Vec<(&str, &str)> = if quick { vec![(NEAR_MISS_BYTES, "65536")] } else { vec![] };
    let mut results: Vec<(String, bool)> = Vec::new();
    let check = crate::check(Path::new("schema"), Path::new("generated"), Format::Human, true);
    results.push(("lint and drift check".to_owned(), step("lint and drift check", check)));
    if full {
        let mut fmt = cargo();
        fmt.args(["fmt", "--check"]);
        for p in hand_written_packages() {
            fmt.args(["-p", &p]);
        }
        results.push(("cargo fmt --check".to_owned(), run("cargo fmt --check", &mut fmt)));
    }
    let mut test = cargo();
    test.args(["test", "--workspace", "--no-fail-fast"]);
    if full {
        test.arg("--all-targets");
    }
    if let Some(f) = filter {
        test.arg(f);
    }
    test.envs(env.iter().copied());
    results.push(("cargo test".to_owned(), run("cargo test", &mut test)));
    if full {
        results.push((
            "clippy".to_owned(),
            run("clippy", cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])),
        ));
        results.push((
            "rustdoc on the generated crate".to_owned(),
            run("rustdoc on the generated crate", cargo().args(["doc", "--quiet", "--no-deps", "-p", "agent-sentences"]).env("RUSTDOCFLAGS", "-D warnings")),
        ));
    }
    if Path::new("generated/python").exists() {
        results.extend(crate::python::run_tests(full, filter, &env));
    }
    eprintln!();
    eprintln!("summary:");
    for (name, ok) in &results {
        eprintln!("{:>7}  {name}", if *ok { "ok" } else { "FAILED" });
    }
    let failed = results.iter().filter(|(_, ok)| !ok).count();
    eprintln!("{} of {} steps passed{}", results.len() - failed, results.len(), if full { "" } else { " (a partial run: see `cargo xtask test --help`)" });
    failed == 0
}
