//! Helpers shared by the generator's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
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
