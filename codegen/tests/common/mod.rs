//! Helpers shared by the generator's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Copies every file of the real spec (`schema/`) to a temporary directory,
/// applying `edit` to the text of `file`.
pub fn edited_spec(file: &str, edit: impl FnOnce(&mut String)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut edit = Some(edit);
    for entry in std::fs::read_dir(root().join("schema")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if name == file {
            (edit.take().expect("one file is edited"))(&mut text);
        }
        std::fs::write(dir.path().join(&name), text).unwrap();
    }
    assert!(edit.is_none(), "`{file}` is not a spec file");
    dir
}

/// Where the builds outside the workspace run: `standalone` under the
/// workspace's target directory (shared with `generator/tests/outside.rs`
/// and `cargo xtask test`'s packaging step).
pub fn standalone_target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
        .join("standalone")
}

/// Cargo, for a build in [`standalone_target`] as every build there: no
/// debug info (see `generator/tests/outside.rs`).
pub fn standalone_cargo() -> Command {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .env("CARGO_TARGET_DIR", standalone_target())
        .env("CARGO_PROFILE_DEV_DEBUG", "false");
    cargo
}

/// Copies the directory `from` to `to`, leaving out the folders named in
/// `skip` at every depth (`target`: build output).
pub fn copy_dir(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !skip.contains(&name) {
                copy_dir(&path, &dest, skip);
            }
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// Replaces `from`, which must occur exactly once, by `to`.
pub fn replace_once(text: &mut String, from: &str, to: &str) {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    *text = text.replacen(from, to, 1);
}

/// The environment variable `cargo xtask test` sets so that a test needing
/// the installed Python package fails when it is missing; without it (a
/// plain `cargo test` on a fresh clone, before `cargo xtask test` has
/// installed the package) the test's Python part reports itself skipped.
pub const REQUIRE_PYTHON: &str = "AGENT_SENTENCES_REQUIRE_PYTHON";

/// The installed package's compiled module (`agent_sentences._native`,
/// built from the real spec by `cargo xtask test` into `.tools/venv`), or
/// `None` after printing why the caller's Python part is skipped and the
/// command that runs it. With [`REQUIRE_PYTHON`] set, a missing module
/// fails the test instead.
pub fn installed_native_module(python: &Path, test: &str) -> Option<PathBuf> {
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import agent_sentences._native as n; print(n.__file__)",
        ])
        .output();
    let native = out
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_file());
    if native.is_none() {
        assert!(
            std::env::var_os(REQUIRE_PYTHON).is_none(),
            "the package is installed with its native module in {} (`cargo xtask test` installs it)",
            python.display()
        );
        eprintln!(
            "skipped: the Python part of `{test}` needs the generated package installed with its native module, which {} lacks; `cargo xtask test {test}` installs it and runs this test in full",
            python.display()
        );
    }
    native
}

/// Copies the installed package's compiled module ([`installed_native_module`])
/// into a generated package folder (`<out>/python`), so that the generated
/// Python runs without a minutes-long build of its own module; false (and
/// the skip said) when there is none. `python` is the interpreter whose
/// environment has the package installed.
#[must_use]
pub fn copy_installed_native_module(python: &Path, package_dir: &Path, test: &str) -> bool {
    let Some(native) = installed_native_module(python, test) else {
        return false;
    };
    std::fs::copy(
        &native,
        package_dir
            .join("agent_sentences")
            .join(native.file_name().unwrap()),
    )
    .unwrap();
    true
}

/// The interpreter the generated Python package is run with: the test venv's
/// (where `cargo xtask test` installs the package), else `$PYTHON` or `python3`.
pub fn python() -> PathBuf {
    let venv = root().join(".tools/venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from(std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into()))
    }
}
