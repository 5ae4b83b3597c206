//! `cargo xtask test`: every test the project has, in one command.
//!
//! 1. the spec lint and the drift check (`cargo xtask check --deny-warnings`:
//!    a warning `/known_findings` does not acknowledge fails, P93);
//!    Then the `box-docs` output of the README and the guide (`cargo xtask
//!    readme --check`);
//! 2. `cargo fmt --check` on every package but the generated ones (the
//!    generator formats those);
//! 3. the Python package built and installed into `.tools/venv` (`python.rs`),
//!    with pinned tools installed there when missing (some Rust tests run
//!    the Python vector runner on it), while the test binaries build;
//! 4. every test binary of `cargo test --workspace --all-targets`, built by
//!    one `cargo test --no-run` and run one per core, at least two, at a
//!    time (`test_binaries.rs`), whichever fails; pytest starts beside them
//!    (step 6);
//! 5. `cargo clippy --workspace --all-targets` (the Python binding included,
//!    with the runtime's `python` feature) and `cargo doc` on the generated
//!    crate, warnings denied; the doctests (generated crate, README, guide);
//!    `cargo publish --dry-run` of the published crates (runtime, generated
//!    crate, generator library and binary; `cargo package` when offline);
//! 6. the static Python checked at its source (`codegen/python/`, every
//!    run); `mypy --strict` on the installed package and on user code; then
//!    the outcome of pytest, which has run beside steps 4 and 5.
//!
//! Every step runs whatever the others did; a summary ends the run, one line
//! per step. `--quick` and a name filter make the inner loop
//! (docs/guide/check.md, "Running the tests").

use std::path::Path;
use std::time::Instant;

use agent_sentences_gen::{run_check, CheckArgs, Context, Format, GenArgs};

use crate::steps::{cargo, cargo_standalone, lap, run, step};

/// Where `cargo package` builds what it verifies ([`forget_packaged_sources`]).
/// It is the target directory the builds outside the workspace share
/// (`generator/tests/outside.rs`, `codegen/tests/add_structure.rs`): the
/// same dependencies, with the same features, compile once.
pub const PACKAGE_TARGET_DIR: &str = "target/standalone";

/// `cargo package` of the published crates: the runtime, the generated
/// crate, the generator library and the standalone generator.
pub const PACKAGE_ARGS: &[&str] = &[
    "package",
    "--allow-dirty",
    "--target-dir",
    PACKAGE_TARGET_DIR,
    "-p",
    "agent-sentences-runtime",
    "-p",
    "agent-sentences",
    "-p",
    "agent-sentences-codegen",
    "-p",
    "agent-sentences-gen",
];

/// The packaging step's name and cargo arguments: `cargo publish --dry-run`
/// of the published crates, or offline their `cargo package`
/// ([`PACKAGE_ARGS`]).
pub fn publish_args(offline: bool) -> (&'static str, Vec<&'static str>) {
    if offline {
        (
            "cargo package (offline: no publish --dry-run)",
            PACKAGE_ARGS.to_vec(),
        )
    } else {
        let mut args = vec!["publish", "--dry-run"];
        args.extend(&PACKAGE_ARGS[1..]);
        ("cargo publish --dry-run", args)
    }
}

/// Whether the registry answers (`cargo search`, one result): when it does
/// not, a failed `cargo publish --dry-run` is retried as `cargo package`.
fn registry_reachable() -> bool {
    cargo()
        .args(["search", "--limit", "1", "serde"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Removes cargo's extracted copies of this repository's own packages from
/// its registry folders. `cargo package` of several packages verifies each
/// against the others through a local overlay that cargo extracts under
/// `$CARGO_HOME/registry/src`; an extract left by an earlier run of the same
/// version is reused as it is, so a changed runtime of an unchanged version
/// would be verified against its old source, or against what was compiled
/// from it under `target/package` (registry sources count as immutable, so
/// cargo never rebuilds them; seen: "no field named `trailing_blanks`").
fn forget_packaged_sources() {
    let _ = std::fs::remove_dir_all("target/package");
    // Our own crates' artifacts in the verification target dir (dependencies
    // stay compiled there from run to run).
    for dir in ["debug/.fingerprint", "debug/deps", "debug/build"] {
        let Ok(entries) = std::fs::read_dir(Path::new(PACKAGE_TARGET_DIR).join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.contains("agent-sentences") || name.contains("agent_sentences") {
                let path = entry.path();
                let _ = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
        }
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(home) = home else { return };
    let names: Vec<&str> = PACKAGE_ARGS
        .iter()
        .copied()
        .filter(|a| a.starts_with("agent-sentences"))
        .collect();
    for kind in ["src", "cache"] {
        let Ok(indexes) = std::fs::read_dir(home.join("registry").join(kind)) else {
            continue;
        };
        for index in indexes.flatten() {
            let Ok(entries) = std::fs::read_dir(index.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let ours = names.iter().any(|n| {
                    name.strip_prefix(n).is_some_and(|rest| {
                        rest.starts_with('-') && rest[1..].starts_with(|c: char| c.is_ascii_digit())
                    })
                });
                if ours {
                    let path = entry.path();
                    let _ = if path.is_dir() {
                        std::fs::remove_dir_all(&path)
                    } else {
                        std::fs::remove_file(&path)
                    };
                }
            }
        }
    }
}

/// The workspace's packages but the generated ones, whose formatting is the
/// generator's (prettyplease and templates; the drift check holds them to the spec).
fn hand_written_packages() -> Vec<String> {
    let out = cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output();
    let meta: serde_json::Value = out
        .ok()
        .and_then(|o| serde_json::from_slice(&o.stdout).ok())
        .unwrap_or_default();
    meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            !p["manifest_path"]
                .as_str()
                .unwrap_or_default()
                .replace('\\', "/")
                .contains("/generated/")
        })
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect()
}

/// The environment variable under which a test that needs the installed
/// Python package fails without it instead of reporting itself skipped
/// (`codegen/tests/common`).
pub const REQUIRE_PYTHON: &str = "AGENT_SENTENCES_REQUIRE_PYTHON";

/// The environment variable that sets the near-miss size of
/// `tests/python/test_near_miss.py` and `tests/downstream/tests/near_miss.rs`.
pub const NEAR_MISS_BYTES: &str = "AGENT_SENTENCES_NEAR_MISS_BYTES";

/// Runs every step, even after a failure, and reports each; true when all
/// pass. `quick` leaves out fmt, clippy, rustdoc, the doctests, packaging and
/// mypy and reads 64 KiB near-misses; `filter` runs only the tests whose names
/// contain it (and implies `quick`'s leaving out).
pub fn run_all(ctx: &Context, quick: bool, filter: Option<&str>) -> bool {
    let started = Instant::now();
    lap();
    let full = !quick && filter.is_none();
    let env: Vec<(&str, &str)> = if quick {
        vec![(NEAR_MISS_BYTES, "65536")]
    } else {
        vec![]
    };
    let mut results: Vec<(String, bool)> = Vec::new();
    let check = CheckArgs {
        paths: GenArgs {
            spec: None,
            out: None,
            runtime_path: None,
            force: false,
            runtime_version: None,
        },
        format: Format::Human,
        deny_warnings: true,
        python: "python3".to_owned(),
        against: None,
    };
    eprintln!("== lint and drift check: `cargo xtask check --deny-warnings` (the spec read, checked and generated in memory)");
    results.push((
        "lint and drift check".to_owned(),
        step("lint and drift check", run_check(ctx, &check)),
    ));
    // The `box-docs` sessions of the README and the guide, held to the
    // binary (and so to the spec) as generated/ is: `cargo xtask readme`
    // rewrites them.
    results.push((
        "box-docs output in the docs".to_owned(),
        step("box-docs output in the docs", crate::readme::run(true)),
    ));
    if full {
        let mut fmt = cargo();
        fmt.args(["fmt", "--check"]);
        for p in hand_written_packages() {
            fmt.args(["-p", &p]);
        }
        results.push((
            "cargo fmt --check".to_owned(),
            run("cargo fmt --check", &mut fmt),
        ));
    }
    // Every test binary built by one `cargo test --no-run` (in `target/`)
    // while the Python package's wheel builds (in its own target directory):
    // neither build keeps both cores busy throughout.
    let build = std::thread::spawn(move || crate::test_binaries::build(full));
    // The Python package before the Rust tests run: codegen/tests/spec_change.rs
    // and tests/python's cross-language checks run against it.
    let python = if Path::new("generated/python").exists() {
        crate::python::prepare()
    } else {
        None
    };
    results.push((
        "Python package built and installed into .tools/venv".to_owned(),
        python.is_some(),
    ));
    let built = build.join().unwrap_or(None);
    results.push(("cargo test, build".to_owned(), built.is_some()));
    // The binaries run one per core, at least two, at a time
    // (test_binaries.rs), pytest beside them: most of a binary's time is
    // one thread or a wait on a child process.
    let pytest = python
        .as_ref()
        .and_then(|p| crate::python::start_pytest(p, filter, &env));
    if let Some(bins) = built {
        let mut rust_env = env.clone();
        // The tests whose Python part needs the package installed above run
        // it in full (without this, a plain `cargo test` skips that part).
        rust_env.push((REQUIRE_PYTHON, "1"));
        let args: Vec<&str> = filter.into_iter().collect();
        results.push((
            "cargo test".to_owned(),
            crate::test_binaries::run(bins, &args, &rust_env),
        ));
    }
    if full {
        results.push((
            "clippy".to_owned(),
            run(
                "clippy",
                cargo().args([
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ]),
            ),
        ));
        results.push((
            "rustdoc on the generated crate".to_owned(),
            run(
                "rustdoc on the generated crate",
                cargo()
                    .args(["doc", "--no-deps", "-p", "agent-sentences"])
                    .env("RUSTDOCFLAGS", "-D warnings"),
            ),
        ));
        // `--all-targets` leaves doctests out: the generated crate's entry
        // points and the Rust examples of the README and the guide (included
        // by tests/downstream).
        results.push((
            "doctests".to_owned(),
            run(
                "doctests",
                cargo().args([
                    "test",
                    "--doc",
                    "-p",
                    "agent-sentences",
                    "-p",
                    "downstream-example",
                ]),
            ),
        ));
        // Every crate a user gets from a registry, packaged and verified together
        // (each verification builds against the ones packaged before it, from a
        // local registry cargo makes under target/package).
        // `cargo publish --dry-run` also asks the registry what a real
        // upload would (it needs the network); offline (CARGO_NET_OFFLINE,
        // or the registry unreachable), `cargo package` makes and verifies
        // the same packages.
        forget_packaged_sources();
        let offline = std::env::var("CARGO_NET_OFFLINE").is_ok_and(|v| v == "true");
        let package = |offline: bool| {
            let (name, args) = publish_args(offline);
            // As every build in target/standalone (generator/tests/outside.rs).
            let ok = run(
                name,
                cargo_standalone()
                    .args(&args)
                    .env("CARGO_PROFILE_DEV_DEBUG", "false"),
            );
            (name.to_owned(), ok)
        };
        let (mut name, mut ok) = package(offline);
        if !ok && !offline && !registry_reachable() {
            eprintln!("the registry is unreachable: `cargo package` makes and verifies the same packages offline");
            forget_packaged_sources();
            (name, ok) = package(true);
        }
        results.push((name, ok));
    }
    if let Some(python) = &python {
        results.push(crate::python::check_static_python(python));
    }
    if let Some(python) = python {
        results.extend(crate::python::run_mypy(&python, full));
    }
    if let Some(pytest) = pytest {
        results.push(("pytest".to_owned(), pytest.finish()));
    }
    eprintln!();
    eprintln!("summary:");
    for (name, ok) in &results {
        eprintln!("{:>7}  {name}", if *ok { "ok" } else { "FAILED" });
    }
    let failed = results.iter().filter(|(_, ok)| !ok).count();
    eprintln!(
        "{} of {} steps passed in {:.0} s{}",
        results.len() - failed,
        results.len(),
        started.elapsed().as_secs_f64(),
        if full {
            ""
        } else {
            " (a partial run: see `cargo xtask test --help`)"
        }
    );
    failed == 0
}
