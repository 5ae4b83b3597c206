//! The output directory under hostile use, through `agent-sentences-gen` as
//! a user runs it: a project directory given as `--out` survives byte for
//! byte, no write lands outside `--out` through a symbolic link, and a FIFO
//! under `--out` blocks neither `gen` nor `check`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// How long a run may take before the guard kills it: generous, only so
/// that a blocked run ends the test instead of hanging it. No assertion is
/// made on time; a killed run fails the test by its status.
const GUARD: Duration = Duration::from_secs(600);

/// Runs the generator in `cwd` with the real spec, killing it when it is
/// still running after [`GUARD`].
fn run(cwd: &Path, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"))
        .current_dir(cwd)
        .args(args)
        .arg("--spec")
        .arg(root().join("schema"))
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let (done, wait) = mpsc::channel::<()>();
    let guard = std::thread::spawn(move || {
        if wait.recv_timeout(GUARD) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = Command::new("kill").args(["-9", &pid]).status();
        }
    });
    let out = child.wait_with_output().unwrap();
    let _ = done.send(());
    guard.join().unwrap();
    assert!(
        out.status.code().is_some(),
        "{args:?} was killed by the guard (it blocked): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every entry under `dir` (links not followed) with its bytes: a file's
/// content, a link's target, nothing for a directory.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let (p, t) = (e.path(), e.file_type().unwrap());
            let rel = p.strip_prefix(dir).unwrap().to_owned();
            if t.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                stack.push(p);
            } else if t.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(rel, target.to_string_lossy().as_bytes().to_vec());
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A user's project: a git repository with `main.rs`, `notes/todo.md` and `.env`.
fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(dir.join("notes/todo.md"), "- ship it\n").unwrap();
    std::fs::write(dir.join(".env"), "TOKEN=secret\n").unwrap();
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "start"],
    ] {
        let o = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=u", "-c", "user.email=u@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn a_project_directory_survives_gen_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = tmp.path().join("proj");
    project(&proj);
    let before = snapshot(&proj);
    assert!(before.contains_key(Path::new(".git/HEAD")));

    // No manifest: refused, nothing written.
    let o = run(tmp.path(), &["gen", "--out", "proj"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("error: gen refuses proj: nothing was written:\n  the directory holds files but no .agent-sentences-manifest"),
        "{err}"
    );
    assert!(
        err.contains(" --out proj --force` to write there anyway\n"),
        "{err}"
    );
    assert_eq!(snapshot(&proj), before);

    // Forced: the generated files are written beside the project, every
    // project file is left as it was and said to be left.
    let o = run(tmp.path(), &["gen", "--out", "proj", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for left in [
        "left proj/.env (not written by gen: a regular file of 13 byte(s))",
        "left proj/.git (not written by gen: a directory)",
        "left proj/main.rs (not written by gen: a regular file of 13 byte(s))",
        "left proj/notes (not written by gen: a directory)",
    ] {
        assert!(err.contains(left), "{err}");
    }
    let after = snapshot(&proj);
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{} changed", path.display());
    }
    assert!(proj.join("rust/src/lib.rs").is_file());

    // Again, now that the manifest is there: still nothing of the project
    // touched, and the check names each project entry with its size.
    let o = run(tmp.path(), &["gen", "--out", "proj"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(snapshot(&proj), after);
    let o = run(tmp.path(), &["check", "--out", "proj", "--python", "off"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("proj/main.rs is not produced by the generator and was not written by it (gen leaves it: move it out of the output directory)\n--- a/proj/main.rs\t(on disk)\n+++ b/proj/main.rs\t(not generated: orphan)\non disk: a regular file of 13 byte(s), not read\n"), "{err}");
    assert!(err.contains("\non disk: a directory, not read\n"), "{err}");
    assert_eq!(snapshot(&proj), after);
}

#[cfg(unix)]
#[test]
fn no_write_lands_outside_out_through_a_symbolic_link() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("lib.rs"), "mine\n").unwrap();
    std::fs::write(outside.join("Cargo.toml"), "mine\n").unwrap();
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let outside_before = snapshot(&outside);

    // A generated subdirectory replaced by a link to a directory elsewhere:
    // refused, forced or not; nothing lands in the linked directory.
    let src = tmp.path().join("gen/rust/src");
    std::fs::remove_dir_all(&src).unwrap();
    symlink(&outside, &src).unwrap();
    for force in [false, true] {
        let mut args = vec!["gen", "--out", "gen"];
        if force {
            args.push("--force");
        }
        let o = run(tmp.path(), &args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("  rust/src/lib.rs: its parent rust/src is a symbolic link, not a directory: gen follows no link and replaces nothing on the way to a file\n"),
            "{}",
            stderr(&o)
        );
        assert_eq!(snapshot(&outside), outside_before);
    }
    let o = run(tmp.path(), &["check", "--out", "gen", "--python", "off"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(snapshot(&outside), outside_before);
    std::fs::remove_file(&src).unwrap();

    // A generated file replaced by a link to a file elsewhere: refused;
    // forced, the link itself is replaced and the file it named is not
    // written.
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let manifest = tmp.path().join("gen/rust/Cargo.toml");
    std::fs::remove_file(&manifest).unwrap();
    symlink(outside.join("Cargo.toml"), &manifest).unwrap();
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("  rust/Cargo.toml: is a symbolic link, which gen never writes through (with --force it is replaced)\n"),
        "{}",
        stderr(&o)
    );
    let o = run(tmp.path(), &["gen", "--out", "gen", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(snapshot(&outside), outside_before);
    let meta = std::fs::symlink_metadata(&manifest).unwrap();
    assert!(meta.file_type().is_file());
    let o = run(tmp.path(), &["check", "--out", "gen", "--python", "off"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn a_fifo_under_out_blocks_neither_gen_nor_check() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mkfifo = |p: &Path| {
        let o = Command::new("mkfifo").arg(p).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    // One FIFO where no file is generated, one in a generated file's place;
    // nobody ever opens either for writing.
    mkfifo(&tmp.path().join("gen/rust/src/pipe"));
    let cargo_toml = tmp.path().join("gen/rust/Cargo.toml");
    std::fs::remove_file(&cargo_toml).unwrap();
    mkfifo(&cargo_toml);

    let o = run(tmp.path(), &["check", "--out", "gen", "--python", "off"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("gen/rust/Cargo.toml is stale\n--- a/gen/rust/Cargo.toml\t(on disk)\n+++ b/gen/rust/Cargo.toml\t(generated from the spec)\non disk: a FIFO, not read (gen never writes through it)\n"), "{err}");
    assert!(err.contains("gen/rust/src/pipe is not produced by the generator and was not written by it (gen leaves it: move it out of the output directory)\n--- a/gen/rust/src/pipe\t(on disk)\n+++ b/gen/rust/src/pipe\t(not generated: orphan)\non disk: a FIFO, not read\n"), "{err}");

    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("  rust/Cargo.toml: is a FIFO, which gen never writes through (with --force it is replaced)\n"),
        "{}",
        stderr(&o)
    );
    let o = run(tmp.path(), &["gen", "--out", "gen", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("left gen/rust/src/pipe (not written by gen: a FIFO)\n"),
        "{}",
        stderr(&o)
    );
    assert!(std::fs::symlink_metadata(&cargo_toml)
        .unwrap()
        .file_type()
        .is_file());
}

/// A manifest that names a path outside `--out` is refused; forced, gen
/// takes it for no manifest and removes nothing, inside or outside.
#[test]
fn a_manifest_naming_a_path_outside_out_removes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let victim = tmp.path().join("victim.rs");
    std::fs::write(&victim, "// @generated, but not by this gen\n").unwrap();
    let manifest = tmp.path().join("gen/.agent-sentences-manifest");
    let listed = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{listed}../victim.rs\n")).unwrap();
    let before = snapshot(tmp.path());

    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let line = listed.lines().count() + 1;
    assert!(
        stderr(&o).contains(&format!("  the manifest cannot be trusted (.agent-sentences-manifest:{line}: `../victim.rs` is no path below the output directory): remove it and run gen with --force\n")),
        "{}",
        stderr(&o)
    );
    assert_eq!(snapshot(tmp.path()), before);

    let o = run(tmp.path(), &["gen", "--out", "gen", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(victim.is_file());
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), listed);
}

/// A file whose name is not UTF-8 is foreign, shown with its bytes escaped;
/// a manifest line spelling its lossy name (`�`) neither makes it gen's nor
/// fails the run (the lossy name used to be opened: "No such file").
#[cfg(unix)]
#[test]
fn a_name_that_is_not_utf8_is_foreign_and_shown_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let odd = tmp
        .path()
        .join("gen/python")
        .join(std::ffi::OsStr::from_bytes(b"\xff.py"));
    std::fs::write(&odd, "# @generated\n").unwrap();
    let manifest = tmp.path().join("gen/.agent-sentences-manifest");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str("python/\u{fffd}.py\n");
    std::fs::write(&manifest, text).unwrap();

    let o = run(tmp.path(), &["check", "--out", "gen", "--python", "off"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("gen/python/\\xff.py is not produced by the generator and was not written by it (gen leaves it: move it out of the output directory)\n"),
        "{}",
        stderr(&o)
    );
    let o = run(tmp.path(), &["gen", "--out", "gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "left gen/python/\\xff.py (not written by gen: a regular file of 13 byte(s))\n"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&odd).unwrap(), b"# @generated\n");
}
