//! Acceptance: what a new user gets from `agent-sentences-gen gen` into an
//! empty directory outside this workspace builds and passes its tests
//! (unit, integration and doctests) with no registry and no
//! `--runtime-path`: the generator writes the runtime it carries beside the
//! generated crate (P210). With this repository's own spec and output, the
//! standalone generator writes what `cargo xtask gen` writes.
//!
//! The build is offline (every crate is in `~/.cargo/registry`; with no
//! `Cargo.lock`, cargo resolves from what is there, as a user's first build
//! does), and reuses one target directory under the workspace's
//! (`target/standalone`, which `codegen/tests/add_structure.rs` and `cargo
//! xtask test`'s packaging step share: they build the same dependencies with
//! the same features), so only the first build compiles the dependencies.

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

/// The `[dependencies]` names of a generated manifest.
fn dependency_names(manifest: &str) -> Vec<&str> {
    manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(" = ").next().unwrap())
        .collect()
}

/// `--runtime-path` names the runtime by that path beside its version (no copy).
#[test]
fn a_runtime_path_is_written_into_the_manifest_and_nothing_is_vendored() {
    let tmp = tempfile::tempdir().unwrap();
    let runtime = root().join("runtime");
    let o = Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"))
        .current_dir(tmp.path())
        .args(["gen", "--spec"])
        .arg(root().join("schema"))
        .args(["--out", "out", "--runtime-path"])
        .arg(&runtime)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = std::fs::read_to_string(tmp.path().join("out/rust/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "agent-sentences-runtime = {{ version = \"{}\", path = {:?} }}",
            agent_sentences_codegen::RUNTIME_VERSION,
            runtime.to_str().unwrap()
        )),
        "{manifest}"
    );
    assert!(!tmp.path().join("out/runtime").exists());
}

/// The guide's repository command (`agent-sentences-gen gen --spec schema
/// --out generated`, from the root) writes what `cargo xtask gen` writes:
/// its `check` finds `generated/` up to date, manifests and headers alike.
#[test]
fn the_standalone_generator_writes_this_repository_s_output_as_cargo_xtask_gen_does() {
    let o = Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"))
        .current_dir(root())
        .args([
            "check",
            "--spec",
            "schema",
            "--out",
            "generated",
            "--python",
            "off",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("generated is up to date"), "{stderr}");
}

#[test]
fn the_generated_crate_builds_and_tests_outside_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(
        !tmp.path().starts_with(root()),
        "the temporary directory must be outside the workspace"
    );
    // A new user's command: relative --out, from the current directory (the
    // temporary one), no runtime named.
    let o = Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"))
        .current_dir(tmp.path())
        .args(["gen", "--spec"])
        .arg(root().join("schema"))
        .args(["--out", "out"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let krate = tmp.path().join("out/rust");
    let manifest = std::fs::read_to_string(krate.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("workspace"), "{manifest}");
    assert_eq!(
        dependency_names(&manifest),
        ["agent-sentences-runtime", "schemars"],
        "{manifest}"
    );
    assert!(
        manifest.contains(&format!(
            "agent-sentences-runtime = {{ version = \"{}\", path = \"../runtime\" }}",
            agent_sentences_codegen::RUNTIME_VERSION,
        )),
        "{manifest}"
    );
    // The headers name the command that wrote them, not this repository's.
    let command = format!(
        "agent-sentences-gen gen --spec {} --out out",
        root().join("schema").display()
    );
    for file in [
        "rust/Cargo.toml",
        "rust/src/lib.rs",
        "runtime/src/lib.rs",
        "python/pyproject.toml",
    ] {
        let text = std::fs::read_to_string(tmp.path().join("out").join(file)).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.contains(&format!("@generated by `{command}`")),
            "{file}: {first}"
        );
    }
    assert!(!manifest.contains("cargo xtask"), "{manifest}");
    assert!(!krate.join("Cargo.lock").exists());

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

/// The guide's standalone-generator block (`docs/guide/rust.md`), run as
/// written: the generator installed from this repository into a temporary
/// cargo root (`--root`, offline, a debug build in the shared target
/// directory), then `gen` and `check --against` from the root of a copy of
/// this repository (its spec, output, runtime and workspace manifest,
/// committed in a fresh git repository, so the revision `--against` names
/// exists). `gen` finds nothing to write (it writes what `cargo xtask gen`
/// writes) and `check` passes.
#[test]
fn the_readme_standalone_generator_commands_run_as_written() {
    let guide = std::fs::read_to_string(root().join("docs/guide/rust.md")).unwrap();
    let block = guide
        .split("## The standalone generator")
        .nth(1)
        .unwrap()
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("\n```\n")
        .next()
        .unwrap();
    let commands: Vec<&str> = block
        .lines()
        .map(|l| l.split("  #").next().unwrap().trim_end())
        .collect();
    assert_eq!(
        commands[0], "cargo install --locked --path generator --target-dir target/install",
        "{block}"
    );
    assert!(
        commands[1..]
            .iter()
            .all(|c| c.starts_with("agent-sentences-gen ")),
        "{block}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let cargo_root = tmp.path().join("cargo-root");
    // As written, but in the tests' shared target directory (the value of
    // its `--target-dir` replaced), debug and offline.
    let standalone = root().join("target/standalone");
    let args: Vec<&std::ffi::OsStr> = commands[0]
        .split(' ')
        .skip(1)
        .map(|a| {
            if a == "target/install" {
                standalone.as_os_str()
            } else {
                std::ffi::OsStr::new(a)
            }
        })
        .collect();
    let o = cargo()
        .current_dir(root())
        .args(args)
        .arg("--root")
        .arg(&cargo_root)
        .args(["--debug", "--offline", "--quiet"])
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bin = cargo_root.join("bin");
    assert!(bin.join("agent-sentences-gen").is_file());

    let repo = tmp.path().join("repo");
    for dir in ["schema", "generated", "runtime"] {
        copy_tree(&root().join(dir), &repo.join(dir));
    }
    std::fs::copy(root().join("Cargo.toml"), repo.join("Cargo.toml")).unwrap();
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .current_dir(&repo)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    git(&["init", "--quiet"]);
    git(&["add", "-A"]);
    git(&["commit", "--quiet", "-m", "spec"]);
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    for command in &commands[1..] {
        let words = shlex::split(command).unwrap();
        let o = Command::new(&words[0])
            .current_dir(&repo)
            .args(&words[1..])
            .env("PATH", &path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success(),
            "`{command}` failed:\n{stderr}\n{}",
            String::from_utf8_lossy(&o.stdout)
        );
        if words[1] == "gen" {
            assert!(
                stderr.contains("0 written, 0 removed (orphans)"),
                "{stderr}"
            );
        }
    }
}

/// Copies a directory tree, leaving out build by-products (`target`,
/// `__pycache__`).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" || name == "__pycache__" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(&name));
        } else {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}
