//! The `cargo xtask` command line, run as a user runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// How many findings the real spec acknowledges (`/known_findings`).
fn known_findings() -> usize {
    let patterns: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/regex_patterns.json")).unwrap(),
    )
    .unwrap();
    patterns["known_findings"].as_array().unwrap().len()
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
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
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
    let s = s
        .replace("\"regex_ref\": \"ack\"", "\"regex_ref\": \"akc\"")
        .replace(
            "\"[fleet-alert] {severity}: {message}\"",
            "\"[fleet-alert] {severity}: {msg}\"",
        );
    std::fs::write(spec.join("structures.json"), s).unwrap();

    let o = xtask(&[
        "gen",
        "--spec",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error[unknown-regex-ref]") && stderr.contains("/structures/ack/regex_ref"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error[placeholder-not-field]")
            && stderr.contains("/structures/fleet_alert/template"),
        "{stderr}"
    );
    assert!(stderr.contains("structures.json:"), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(snapshot(&out), before, "a bad spec writes nothing");
}

#[test]
fn check_reports_a_hand_edit_with_a_diff_and_gen_repairs_it() {
    let (_tmp, out) = generated_copy();
    let spec = root().join("schema");
    let (spec, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let ok = xtask(&["check", "--spec", spec, "--out", out_s]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    let lib = out.join("rust/src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        text.replacen(
            "pub struct WorkOrder {",
            "pub struct WorkOrder { // hand edit",
            1,
        ),
    )
    .unwrap();
    std::fs::write(out.join("orphan.txt"), "left over\n").unwrap();
    let bad = xtask(&["check", "--spec", spec, "--out", out_s]);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("generated/rust/src/lib.rs is stale"),
        "{stderr}"
    );
    assert!(
        stderr.contains("-pub struct WorkOrder { // hand edit"),
        "{stderr}"
    );
    assert!(
        stderr.contains("generated/orphan.txt is not produced by the generator and was not written by it (gen leaves it: move it out of the output directory)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "run `cargo xtask gen --spec {spec} --out {out_s}` and commit the result"
        )),
        "{stderr}"
    );

    let fix = xtask(&["gen", "--spec", spec, "--out", out_s]);
    assert_eq!(fix.status.code(), Some(0));
    // gen repairs what it wrote and leaves what it did not write (P185):
    // the foreign file is the user's to move.
    assert_eq!(
        std::fs::read_to_string(out.join("orphan.txt")).unwrap(),
        "left over\n"
    );
    std::fs::remove_file(out.join("orphan.txt")).unwrap();
    let again = xtask(&["check", "--spec", spec, "--out", out_s]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// A fresh copy of `generated/` in a temporary directory: a copy, then
/// `gen` into it, which rewrites only `rust/Cargo.toml` and
/// `python/native/Cargo.toml` (their path to the runtime is relative to where
/// the crate is).
fn generated_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("generated");
    copy_dir(&root().join("generated"), &out);
    let o = xtask(&["gen", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    // The two manifests that name the runtime by path: the crate's and the Python binding's.
    let unchanged = agent_sentences_codegen::generate(&root().join("schema"))
        .unwrap_or_else(|r| panic!("{r}"))
        .files
        .len()
        - 2;
    assert!(
        stderr.contains(&format!(
            "wrote {}/python/native/Cargo.toml (changed)\n",
            out.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("wrote {}/rust/Cargo.toml (changed)\n2 written, 0 removed (orphans), {unchanged} unchanged", out.display())), "{stderr}");
    // The runtime's path, absolute or relative to the crate (P103: relative
    // when the two share more than `/`, as a clone and a temporary folder
    // both under /tmp do), leads to this repository's runtime.
    let manifest = std::fs::read_to_string(out.join("rust/Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.starts_with("agent-sentences-runtime = "))
        .expect("the runtime dependency");
    let path = line
        .split("path = \"")
        .nth(1)
        .and_then(|p| p.split('"').next())
        .unwrap_or_else(|| panic!("no path in {line}"));
    let resolved = out.join("rust").join(path);
    assert_eq!(
        std::fs::canonicalize(&resolved).unwrap(),
        std::fs::canonicalize(root().join("runtime")).unwrap(),
        "{manifest}"
    );
    (tmp, out)
}

#[test]
fn check_fails_on_each_kind_of_drift_alone_and_writes_nothing() {
    let spec = root().join("schema");
    let spec = spec.to_str().unwrap();
    type Damage = fn(&Path);
    let cases: [(&str, Damage, &str); 4] = [
        (
            "stale",
            |o| std::fs::write(o.join("rust/Cargo.toml"), "stale\n").unwrap(),
            "rust/Cargo.toml is stale",
        ),
        (
            "missing",
            |o| std::fs::remove_file(o.join("rust/tests/spec_examples.rs")).unwrap(),
            "rust/tests/spec_examples.rs is missing",
        ),
        (
            "orphan",
            |o| std::fs::write(o.join("rust/src/old.rs"), "x\n").unwrap(),
            "rust/src/old.rs is not produced by the generator and was not written by it (gen leaves it: move it out of the output directory)",
        ),
        (
            "crlf",
            |o| {
                let p = o.join("schema/structures.schema.json");
                let t = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, t.replace('\n', "\r\n")).unwrap();
            },
            "schema/structures.schema.json is stale",
        ),
    ];
    for (name, damage, says) in cases {
        let (_tmp, out) = generated_copy();
        damage(&out);
        let before = snapshot(&out);
        let o = xtask(&[
            "check",
            "--spec",
            spec,
            "--out",
            out.to_str().unwrap(),
            "--python",
            "off",
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{}/{says}\n", out.display())),
            "{name}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("1 file(s) under {} differ from what schema produces: run `cargo xtask gen --spec {spec} --out {}` and commit the result", out.display(), out.display())),
            "{name}: {stderr}"
        );
        if name == "stale" {
            // An absolute output directory: no `a/`, `b/` before it.
            let o = out.display();
            assert!(stderr.contains(&format!("--- {o}/rust/Cargo.toml\t(on disk)\n+++ {o}/rust/Cargo.toml\t(generated from the spec)\n")), "{stderr}");
        }
        if name == "crlf" {
            assert!(stderr.contains("only line endings differ"), "{stderr}");
        }
        assert_eq!(
            snapshot(&out),
            before,
            "{name}: the check wrote to {}",
            out.display()
        );
    }
}

#[test]
fn check_json_reports_findings_and_drift_in_one_object() {
    let (_tmp, out) = generated_copy();
    std::fs::write(out.join("rust/Cargo.toml"), "stale\n").unwrap();
    let spec = root().join("schema");
    let (spec, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let o = xtask(&[
        "check", "--spec", spec, "--out", out_s, "--format", "json", "--python", "off",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["errors"], 0);
    // Every warning of the real spec is an acknowledged known finding.
    let known = known_findings();
    assert_eq!(v["warnings"], known);
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), known);
    // Sorted by file: envelope.json's findings (P149), then ops.json's (P140).
    assert_eq!(v["diagnostics"][0]["code"], "envelope-op-incomplete");
    assert_eq!(v["diagnostics"][0]["pointer"], "/lines/0/advertise/ops/0");
    assert_eq!(v["diagnostics"][2]["code"], "op-incomplete");
    assert_eq!(v["diagnostics"][2]["pointer"], "/ops/dm.send");
    let first = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| !d["code"].as_str().unwrap().ends_with("op-incomplete"))
        .unwrap();
    assert_eq!(first["severity"], "warning");
    // structures.json's first: its `$schema` (P312), on line 2.
    assert_eq!(first["code"], "schema-names-a-metaschema");
    assert_eq!(first["pointer"], "/$schema");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(2), Some(14))
    );
    assert!(first["hint"].is_string());
    assert_eq!(v["drift"].as_array().unwrap().len(), 1);
    assert_eq!(v["drift"][0]["path"], "rust/Cargo.toml");
    assert_eq!(v["drift"][0]["file"], format!("{out_s}/rust/Cargo.toml"));
    assert_eq!(v["drift"][0]["kind"], "stale");
    assert!(v["drift"][0]["diff"]
        .as_str()
        .unwrap()
        .contains("\n-stale\n"));
    assert_eq!(
        v["fix"],
        format!("cargo xtask gen --spec {spec} --out {out_s}")
    );
}

#[test]
fn warnings_fail_with_deny_warnings_only_when_no_acknowledgement_covers_them() {
    // The real spec's warnings are all acknowledged in /known_findings (P93):
    // one count line, and --deny-warnings passes.
    let o = xtask(&["check", "--python", "off"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = xtask(&["check", "--python", "off", "--deny-warnings"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{} known finding(s) acknowledged in /known_findings",
            known_findings()
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("warning["),
        "acknowledged findings are not printed one by one:\n{stderr}"
    );
    // Without its acknowledgement, a finding is new: printed, and denied.
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("schema");
    copy_dir(&root().join("schema"), &spec);
    let path = spec.join("regex_patterns.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let dropped = v["known_findings"].as_array_mut().unwrap().pop().unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = tmp.path().join("generated");
    let (spec_s, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let o = xtask(&["gen", "--spec", spec_s, "--out", out_s]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = xtask(&["check", "--python", "off", "--spec", spec_s, "--out", out_s]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = xtask(&[
        "check",
        "--python",
        "off",
        "--deny-warnings",
        "--spec",
        spec_s,
        "--out",
        out_s,
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let new: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning["))
        .collect();
    assert_eq!(new.len(), 1, "{stderr}");
    assert!(
        new[0].contains(dropped["pointer"].as_str().unwrap()),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{} known finding(s) acknowledged",
            known_findings() - 1
        )),
        "{stderr}"
    );
}

#[test]
fn a_missing_python_is_a_warning_not_a_failure() {
    let o = xtask(&["check", "--python", "/nonexistent/python3"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning[python-not-checked]: schema/regex_patterns.json:5:15 /patterns: the patterns were not checked with Python's `re`: cannot run `/nonexistent/python3`"), "{stderr}");
    assert!(
        stderr.contains(&format!("0 error(s), {} warning(s)", known_findings() + 1)),
        "{stderr}"
    );
}

#[test]
fn a_spec_with_errors_skips_the_drift_check() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("schema");
    copy_dir(&root().join("schema"), &spec);
    let s = std::fs::read_to_string(spec.join("structures.json")).unwrap();
    std::fs::write(
        spec.join("structures.json"),
        s.replace("\"regex_ref\": \"ack\"", "\"regex_ref\": \"akc\""),
    )
    .unwrap();
    let o = xtask(&["check", "--spec", spec.to_str().unwrap(), "--python", "off"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[unknown-regex-ref]"), "{stderr}");
    assert!(
        stderr.contains("drift check skipped: the spec has errors"),
        "{stderr}"
    );
}
