//! The steps of `cargo xtask test`, as its modules run them: a command run
//! as a named step (its outcome and time printed, a heartbeat while it
//! runs) and `cargo` with the profile override the tests build with.
//!
//! It names no other module of xtask: `test.rs` (the order of the steps),
//! `python.rs` (the Python steps) and `test_binaries.rs` (the Rust test
//! binaries) all use it, and none of them reaches back into `test.rs`.

use std::process::Command;
use std::time::Instant;

/// The profile override `cargo xtask test` builds with, beside the
/// workspace manifest's: proptest optimized for the generated crate's
/// property tests. Not in `Cargo.toml`, where it matched no package of
/// `cargo install --path cli` and cargo warned (P287).
pub const PROPTEST_OPT: &str = "profile.dev.package.proptest.opt-level=2";

/// The profile overrides the `cargo xtask` alias builds xtask with
/// (`.cargo/config.toml`): the generator's hot dependencies optimized, so
/// that `cargo xtask gen` takes well under a second of CPU after the first
/// build (issue 37). The builds `cargo xtask test` starts use them too, so
/// that they and the alias agree on xtask's binary (else each would rebuild
/// it after the other); the generator's own crate stays unoptimized, as
/// optimizing it would optimize each of its many test targets. Not in
/// `Cargo.toml`: `cargo install --path cli` builds none of these (P287).
pub const GEN_OPT: [&str; 3] = [
    "profile.dev.package.tera.opt-level=2",
    "profile.dev.package.pest.opt-level=2",
    "profile.dev.package.hashbrown.opt-level=2",
];

/// `cargo`, with [`PROPTEST_OPT`] and [`GEN_OPT`].
pub fn cargo() -> Command {
    let mut c = cargo_standalone();
    for opt in GEN_OPT {
        c.args(["--config", opt]);
    }
    c
}

/// `cargo` as the builds in `target/standalone` run it (the tests that
/// build whole crates there use no [`GEN_OPT`]), with [`PROPTEST_OPT`].
pub fn cargo_standalone() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.args(["--config", PROPTEST_OPT]);
    c
}

thread_local! {
    /// When the last step ended (or the run started): a step's time is the
    /// wall-clock time from there to its outcome.
    static LAST_STEP: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
}

/// Seconds since the last step ended (or since the first call), and restarts
/// the clock.
pub fn lap() -> f64 {
    let now = Instant::now();
    LAST_STEP
        .with(|c| c.replace(Some(now)))
        .map_or(0.0, |t| now.duration_since(t).as_secs_f64())
}

/// Prints a step's outcome and the seconds it took, and returns the outcome.
pub fn step(name: &str, ok: bool) -> bool {
    eprintln!(
        "== {name}: {} ({:.0} s)",
        if ok { "passed" } else { "FAILED" },
        lap()
    );
    ok
}

/// How often a step that prints nothing of its own says it is still running.
pub const HEARTBEAT_SECS: u64 = 30;

/// Runs one step's command, printing it and its outcome; true when it exits
/// 0. While it runs, a line every [`HEARTBEAT_SECS`] says it still does, so
/// no step is silent for longer (a test binary prints nothing until its
/// tests end).
pub fn run(name: &str, cmd: &mut Command) -> bool {
    eprintln!("== {name}: {cmd:?}");
    let started = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot run {name}: {e}");
            return step(name, false);
        }
    };
    let mut next = HEARTBEAT_SECS;
    let ok = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) => {
                std::thread::sleep(std::time::Duration::from_millis(200));
                let secs = started.elapsed().as_secs();
                if secs >= next {
                    eprintln!("== {name}: still running ({secs} s)");
                    next = secs + HEARTBEAT_SECS;
                }
            }
            Err(e) => {
                eprintln!("cannot wait for {name}: {e}");
                break false;
            }
        }
    };
    step(name, ok)
}

#[cfg(test)]
mod tests {
    use super::GEN_OPT;

    /// The `cargo xtask` alias builds xtask with exactly [`GEN_OPT`], so that
    /// the xtask `cargo xtask test` builds is the one the alias built.
    #[test]
    fn the_alias_builds_with_the_generators_profile() {
        let config = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cargo/config.toml"),
        )
        .expect("the workspace's cargo config");
        let alias = config
            .lines()
            .find(|l| l.starts_with("xtask = "))
            .expect("the xtask alias");
        let opts: Vec<&str> = alias
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .filter(|w| w[0] == "--config")
            .map(|w| w[1])
            .collect();
        assert_eq!(opts, GEN_OPT);
    }
}
