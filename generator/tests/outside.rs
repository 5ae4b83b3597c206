//! Acceptance: the generated crate builds and passes its tests (unit,
//! integration and doctests) in a directory outside this workspace, as a
//! user's checkout would hold it, depending on the runtime crate alone (by
//! path here, as a registry user would by version).
//!
//! The build is offline (every crate is in `~/.cargo/registry`), pins this
//! repository's `Cargo.lock`, and reuses one target directory under the
//! workspace's (`target/standalone`, which `codegen/tests/add_structure.rs`
//! and `cargo xtask test`'s packaging step share: they build the same
//! dependencies with the same features), so only the first build compiles
//! the dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Cargo, for a build in `target/standalone` (see [`STANDALONE_DEBUG`]).
fn cargo() -> Command {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo.env("CARGO_PROFILE_DEV_DEBUG", STANDALONE_DEBUG);
    cargo
}

/// The debug info of every build in `target/standalone` (here, in
/// `codegen/tests/add_structure.rs` and in `cargo xtask test`'s packaging
/// step): none. Faster, and it makes a dependency built for a build script
/// (whose profile has no debug info) the same build as one for a library,
/// so the generator's dependencies compile once for the guide's route and
/// for `cargo package`.
const STANDALONE_DEBUG: &str = "false";

#[test]
fn the_generated_crate_builds_and_tests_outside_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(
        !tmp.path().starts_with(root()),
        "the temporary directory must be outside the workspace"
    );
    let runtime = root().join("runtime");
    // Relative --out, from the current directory (the temporary one).
    let o = Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"))
        .current_dir(tmp.path())
        .args(["gen", "--spec"])
        .arg(root().join("schema"))
        .args(["--out", "out", "--runtime-path"])
        .arg(&runtime)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let krate = tmp.path().join("out/rust");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("workspace"), "{manifest}");
    let deps: Vec<&str> = manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(" = ").next().unwrap())
        .collect();
    assert_eq!(deps, ["agent-sentences-runtime", "schemars"], "{manifest}");
    assert!(
        manifest.contains(&format!(
            "agent-sentences-runtime = {{ version = \"{}\", path = {:?} }}",
            agent_sentences_codegen::RUNTIME_VERSION,
            runtime.to_str().unwrap()
        )),
        "{manifest}"
    );
    std::fs::copy(root().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    let started = std::time::Instant::now();
    let o = cargo()
        .current_dir(&krate)
        .args(["test", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", root().join("target/standalone"))
        .env_remove("RUSTFLAGS")
        // What is tested here is that a user's build and test run work; the
        // property tests' strength is the workspace's run of the same crate
        // (1000 cases per structure). 64 keep this debug run to seconds.
        .env("PROPTEST_CASES", "64")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "cargo test outside the workspace failed:\n{stderr}\n{stdout}"
    );
    assert!(
        !stderr.contains("warning"),
        "a user's build must be free of warnings:\n{stderr}"
    );
    // Unit and integration tests, then (last) the doctests of parse, render
    // and scan: as many as the generated code has examples.
    let lib = std::fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    let fences = lib
        .lines()
        .filter(|l| matches!(l.trim(), "/// ```" | "//! ```"))
        .count();
    assert!(fences >= 6, "at least three examples: {fences} fence lines");
    let last_run = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("running "))
        .unwrap();
    assert_eq!(
        last_run,
        format!("running {} tests", fences / 2),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .filter(|l| l.starts_with("test result: ok."))
            .count()
            >= 4,
        "{stdout}"
    );
    eprintln!(
        "cargo test outside the workspace: {:.1?}",
        started.elapsed()
    );
}

/// The `build.rs` route of `docs/guide/rust.md`, as a crate outside the
/// workspace: its `build.rs` and `src/lib.rs` are the guide's block, its
/// dependencies the guide's two (by path here). It must build without a
/// warning.
#[test]
fn the_readme_build_script_route_builds_without_warnings_outside_the_workspace() {
    let readme = std::fs::read_to_string(root().join("docs/guide/rust.md")).unwrap();
    let block = readme
        .split("```rust,ignore\n")
        .nth(1)
        .unwrap()
        .split("\n```\n")
        .next()
        .unwrap();
    let (build_rs, lib_rs) = block.split_once("// src/lib.rs\n").unwrap();
    assert!(build_rs.starts_with("// build.rs\n"), "{block}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("build.rs"), build_rs).unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        format!("//! A user's crate.\n{lib_rs}\n"),
    )
    .unwrap();
    copy_spec(&root().join("schema"), &dir.join("schema"));
    let path = |p: &str| root().join(p).to_str().unwrap().to_owned();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"user\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nagent-sentences-runtime = {{ path = {:?} }}\n\n[build-dependencies]\nagent-sentences-codegen = {{ path = {:?} }}\n",
            path("runtime"),
            path("codegen")
        ),
    )
    .unwrap();
    // The guide lists exactly these two.
    assert!(
        readme.contains("agent-sentences-runtime = \"0.1\"")
            && readme.contains("agent-sentences-codegen = \"0.1\"")
    );
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let o = cargo()
        .current_dir(dir)
        .args(["build", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", root().join("target/standalone"))
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert_eq!(stderr, "", "a user's build must be free of warnings");
}

fn copy_spec(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}
