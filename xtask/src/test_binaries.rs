//! The Rust test binaries of `cargo xtask test`: built by one `cargo test
//! --no-run`, then run [`jobs`] at a time.
//!
//! `cargo test` runs its binaries one after another, and most of them spend
//! their time in one thread or waiting on a child process (a generated crate
//! built, a command run), so on two cores it kept about 1.1 of them busy.
//! Each binary runs as cargo runs it (from its package's directory, with
//! `CARGO_MANIFEST_DIR` and the target's library directories set); its output
//! is held and printed whole when it ends, so two binaries never interleave.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::steps::{step, HEARTBEAT_SECS};

/// How many test binaries run at once: the machine's cores, at least two
/// (a binary waiting on a child process leaves its core to another).
pub fn jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

/// One test binary: what `cargo test` would run for one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestBinary {
    /// The package's name, e.g. `agent-sentences-codegen`.
    pub package: String,
    /// The target's kind and name as cargo prints them, e.g. `test lint`.
    pub target: String,
    /// The executable.
    pub path: PathBuf,
    /// The package's directory: the binary's working directory.
    pub dir: PathBuf,
}

/// The test binaries in the lines of `cargo test --no-run
/// --message-format=json`: every `compiler-artifact` of a test profile with
/// an executable. Integration tests and benches first (they hold nearly all
/// the time), then the unit tests and examples, each group in cargo's order.
/// Lines that are not JSON (none, from cargo) are skipped.
pub fn parse_artifacts(lines: &str) -> Vec<TestBinary> {
    let mut out: Vec<TestBinary> = Vec::new();
    for line in lines.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-artifact" || v["profile"]["test"] != true {
            continue;
        }
        let (Some(exe), Some(manifest)) = (v["executable"].as_str(), v["manifest_path"].as_str())
        else {
            continue;
        };
        let kind = v["target"]["kind"][0].as_str().unwrap_or("?");
        let name = v["target"]["name"].as_str().unwrap_or("?");
        let package = v["package_id"]
            .as_str()
            .map(package_name)
            .unwrap_or_default();
        out.push(TestBinary {
            package,
            target: format!("{kind} {name}"),
            path: PathBuf::from(exe),
            dir: Path::new(manifest)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        });
    }
    let integration =
        |b: &TestBinary| b.target.starts_with("test ") || b.target.starts_with("bench ");
    let (mut first, rest): (Vec<_>, Vec<_>) = out.into_iter().partition(integration);
    first.extend(rest);
    // A stable sort: the builders first, the rest in the order above.
    first.sort_by_key(|b| !BUILDERS.contains(&b.target.as_str()));
    first
}

/// The integration tests that build whole crates in `target/standalone`
/// (cold on a clean clone, minutes each): started first, so that no worker
/// is left alone with one at the end.
const BUILDERS: &[&str] = &[
    "test outside",
    "test add_structure",
    "test add_reader",
    "test add_directive_field",
];

/// A package's name from a cargo package id: `path+file:///…/codegen#agent-sentences-codegen@0.1.0`
/// (or the older `name 0.1.0 (path+…)`).
fn package_name(id: &str) -> String {
    if let Some((_, tail)) = id.rsplit_once('#') {
        let name = tail.split('@').next().unwrap_or(tail);
        // `…/runtime#0.1.0`: the name is the directory's.
        if name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            let dir = id[..id.len() - tail.len() - 1].rsplit('/').next();
            return dir.unwrap_or(name).to_owned();
        }
        return name.to_owned();
    }
    id.split(' ').next().unwrap_or(id).to_owned()
}

/// Builds every test binary (`cargo test --workspace --no-run`, with
/// `--all-targets` when `all_targets`), cargo's progress on stderr, and
/// prints the outcome with the build's own time; the binaries, or `None`
/// when the build failed.
pub fn build(all_targets: bool) -> Option<Vec<TestBinary>> {
    let mut cmd = crate::steps::cargo();
    cmd.args([
        "test",
        "--workspace",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ]);
    if all_targets {
        cmd.arg("--all-targets");
    }
    eprintln!("== cargo test, build: {cmd:?}");
    let started = Instant::now();
    // Its own time, not the time since the last step: it runs beside the
    // Python package's build.
    let outcome = |ok: bool| {
        eprintln!(
            "== cargo test, build: {} ({:.0} s)",
            if ok { "passed" } else { "FAILED" },
            started.elapsed().as_secs_f64()
        );
    };
    let out = match cmd.stderr(Stdio::inherit()).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cannot run cargo: {e}");
            outcome(false);
            return None;
        }
    };
    let bins = parse_artifacts(&String::from_utf8_lossy(&out.stdout));
    let ok = out.status.success() && !bins.is_empty();
    outcome(ok);
    ok.then_some(bins)
}

/// Runs every binary, [`jobs`] at a time, each with `args` (a name filter)
/// and `env`; prints each one's output whole when it ends, then a line per
/// failure. True when every binary exits 0.
pub fn run(bins: Vec<TestBinary>, args: &[&str], env: &[(&str, &str)]) -> bool {
    let total = bins.len();
    eprintln!("== cargo test: {total} test binaries, {} at a time", jobs());
    let queue = Arc::new(Mutex::new(VecDeque::from(bins)));
    let running: Arc<Mutex<Vec<String>>> = Arc::default();
    let failed: Arc<Mutex<Vec<String>>> = Arc::default();
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let library_path = library_path();
    let workers: Vec<_> = (0..jobs())
        .map(|_| {
            let (queue, running, failed) = (queue.clone(), running.clone(), failed.clone());
            let (args, env, library_path) = (args.clone(), env.clone(), library_path.clone());
            std::thread::spawn(move || loop {
                let Some(bin) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let label = format!("{} {}", bin.package, bin.target);
                running.lock().unwrap().push(label.clone());
                let started = Instant::now();
                let out = Command::new(&bin.path)
                    .args(&args)
                    .current_dir(&bin.dir)
                    .env("CARGO_MANIFEST_DIR", &bin.dir)
                    .env("CARGO_PKG_NAME", &bin.package)
                    .env(library_path.0, &library_path.1)
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .stdin(Stdio::null())
                    .output();
                running.lock().unwrap().retain(|l| *l != label);
                let secs = started.elapsed().as_secs_f64();
                let ok = match out {
                    Ok(o) => {
                        // One write each, so outputs do not interleave.
                        let mut all = format!("     Running {} ({})\n", label, bin.path.display())
                            .into_bytes();
                        all.extend_from_slice(&o.stdout);
                        all.extend_from_slice(&o.stderr);
                        all.extend_from_slice(
                            format!(
                                "== {label}: {} ({secs:.0} s)\n",
                                if o.status.success() {
                                    "passed"
                                } else {
                                    "FAILED"
                                }
                            )
                            .as_bytes(),
                        );
                        use std::io::Write;
                        let _ = std::io::stderr().lock().write_all(&all);
                        o.status.success()
                    }
                    Err(e) => {
                        eprintln!("cannot run {}: {e}", bin.path.display());
                        false
                    }
                };
                if !ok {
                    failed.lock().unwrap().push(label);
                }
            })
        })
        .collect();
    let started = Instant::now();
    let mut next = HEARTBEAT_SECS;
    while workers.iter().any(|w| !w.is_finished()) {
        std::thread::sleep(Duration::from_millis(200));
        let secs = started.elapsed().as_secs();
        if secs >= next {
            let now = running.lock().unwrap().join(", ");
            let left = queue.lock().unwrap().len();
            eprintln!("== cargo test: still running ({secs} s): {now}; {left} to start");
            next = secs + HEARTBEAT_SECS;
        }
    }
    let mut panicked = false;
    for w in workers {
        panicked |= w.join().is_err();
    }
    let failed = failed.lock().unwrap();
    for label in failed.iter() {
        eprintln!("FAILED: {label}");
    }
    step(
        &format!(
            "cargo test ({} of {total} binaries passed)",
            total - failed.len()
        ),
        failed.is_empty() && !panicked,
    )
}

/// The dynamic library search path cargo gives the binaries it runs: the
/// target's `deps` directory before the inherited path.
fn library_path() -> (&'static str, String) {
    let var = if cfg!(target_os = "macos") {
        "DYLD_FALLBACK_LIBRARY_PATH"
    } else if cfg!(windows) {
        "PATH"
    } else {
        "LD_LIBRARY_PATH"
    };
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".to_owned());
    let deps = std::env::current_dir()
        .unwrap_or_default()
        .join(target)
        .join("debug")
        .join("deps");
    let mut paths = vec![deps];
    if let Some(old) = std::env::var_os(var) {
        paths.extend(std::env::split_paths(&old));
    }
    let joined = std::env::join_paths(paths)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    (var, joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_binaries_are_read_from_cargo_s_messages_integration_tests_first() {
        let lines = [
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/runtime#agent-sentences-runtime@0.1.0","manifest_path":"/w/runtime/Cargo.toml","target":{"kind":["lib"],"name":"agent_sentences_runtime"},"profile":{"test":true},"executable":"/w/target/debug/deps/agent_sentences_runtime-1"}"#,
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/runtime#agent-sentences-runtime@0.1.0","manifest_path":"/w/runtime/Cargo.toml","target":{"kind":["lib"],"name":"agent_sentences_runtime"},"profile":{"test":false},"executable":null}"#,
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/codegen#0.1.0","manifest_path":"/w/codegen/Cargo.toml","target":{"kind":["test"],"name":"lint"},"profile":{"test":true},"executable":"/w/target/debug/deps/lint-2"}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "not json",
        ]
        .join("\n");
        let bins = parse_artifacts(&lines);
        assert_eq!(
            bins,
            vec![
                TestBinary {
                    package: "codegen".to_owned(),
                    target: "test lint".to_owned(),
                    path: PathBuf::from("/w/target/debug/deps/lint-2"),
                    dir: PathBuf::from("/w/codegen"),
                },
                TestBinary {
                    package: "agent-sentences-runtime".to_owned(),
                    target: "lib agent_sentences_runtime".to_owned(),
                    path: PathBuf::from("/w/target/debug/deps/agent_sentences_runtime-1"),
                    dir: PathBuf::from("/w/runtime"),
                },
            ]
        );
    }

    #[test]
    fn the_builders_start_first() {
        let line = |package: &str, kind: &str, name: &str| {
            format!(
                r#"{{"reason":"compiler-artifact","package_id":"path+file:///w/{package}#{package}@0.1.0","manifest_path":"/w/{package}/Cargo.toml","target":{{"kind":["{kind}"],"name":"{name}"}},"profile":{{"test":true}},"executable":"/w/target/debug/deps/{name}-1"}}"#
            )
        };
        let lines = [
            line("codegen", "lib", "codegen"),
            line("codegen", "test", "lint"),
            line("codegen", "test", "add_structure"),
            line("generator", "test", "cli"),
            line("generator", "test", "outside"),
        ]
        .join("\n");
        let order: Vec<String> = parse_artifacts(&lines)
            .into_iter()
            .map(|b| b.target)
            .collect();
        assert_eq!(
            order,
            [
                "test add_structure",
                "test outside",
                "test lint",
                "test cli",
                "lib codegen"
            ]
        );
    }

    #[test]
    fn a_package_id_gives_its_name_in_both_forms() {
        assert_eq!(
            package_name("path+file:///w/codegen#agent-sentences-codegen@0.1.0"),
            "agent-sentences-codegen"
        );
        assert_eq!(package_name("path+file:///w/xtask#0.1.0"), "xtask");
        assert_eq!(package_name("xtask 0.1.0 (path+file:///w/xtask)"), "xtask");
    }
}
