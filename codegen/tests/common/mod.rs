//! Helpers shared by the generator's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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

/// Replaces `from`, which must occur exactly once, by `to`.
pub fn replace_once(text: &mut String, from: &str, to: &str) {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    *text = text.replacen(from, to, 1);
}

/// Copies the installed package's compiled module (`agent_sentences._native`,
/// built from the real spec by `cargo xtask test`) into a generated package
/// folder (`<out>/python`), so that the generated Python runs without a
/// minutes-long build of its own module. `python` is the interpreter whose
/// environment has the package installed.
pub fn copy_installed_native_module(python: &Path, package_dir: &Path) {
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import agent_sentences._native as n; print(n.__file__)",
        ])
        .output()
        .expect("Python runs");
    let native = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(
        native.is_file(),
        "the package is installed with its native module (run `cargo xtask test`): {}",
        native.display()
    );
    std::fs::copy(
        &native,
        package_dir
            .join("agent_sentences")
            .join(native.file_name().unwrap()),
    )
    .unwrap();
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
