//! The `cargo xtask` command line, run as a user runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn xtask(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask")).args(args).env_remove("RUST_BACKTRACE").output().unwrap()
}

#[test]
fn broken_spec_reports_every_fault_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("schema");
    let out = tmp.path().join("generated");
    copy_dir(&root().join("schema"), &spec);
    copy_dir(&root().join("generated"), &out);
    // Make the outputs stale, so a write would show.
    std::fs::write(out.join("rust/Cargo.toml"), "stale").unwrap();
    let before = snapshot(&out);
    let s = std::fs::read_to_string(spec.join("structures.json")).unwrap();
    let s = s.replace("\"regex_ref\": \"ack\"", "\"regex_ref\": \"akc\"").replace("\"[fleet-alert] {severity}: {message}\"", "\"[fleet-alert] {severity}: {msg}\"");
    std::fs::write(spec.join("structures.json"), s).unwrap();

    let o = xtask(&["gen", "--spec", spec.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[unknown-regex-ref]") && stderr.contains("/structures/ack/regex_ref"), "{stderr}");
    assert!(stderr.contains("error[placeholder-not-field]") && stderr.contains("/structures/fleet_alert/template"), "{stderr}");
    assert!(stderr.contains("structures.json:"), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(snapshot(&out), before, "a bad spec writes nothing");
}

#[test]
fn check_reports_a_hand_edit_with_a_diff_and_gen_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("generated");
    copy_dir(&root().join("generated"), &out);
    let spec = root().join("schema");
    let (spec, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let ok = xtask(&["check", "--spec", spec, "--out", out_s]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));

    let lib = out.join("rust/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, text.replacen("pub struct WorkOrder {", "pub struct WorkOrder { // hand edit", 1)).unwrap();
    std::fs::write(out.join("orphan.txt"), "left over\n").unwrap();
    let bad = xtask(&["check", "--spec", spec, "--out", out_s]);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("generated/rust/src/lib.rs is stale"), "{stderr}");
    assert!(stderr.contains("-pub struct WorkOrder { // hand edit"), "{stderr}");
    assert!(stderr.contains("generated/orphan.txt is not produced by the generator (orphan)"), "{stderr}");
    assert!(stderr.contains("run `cargo xtask gen`"), "{stderr}");

    let fix = xtask(&["gen", "--spec", spec, "--out", out_s]);
    assert_eq!(fix.status.code(), Some(0));
    let again = xtask(&["check", "--spec", spec, "--out", out_s]);
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
}
