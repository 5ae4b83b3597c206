//! The standalone `agent-sentences-gen`, run as a user runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"))
        .current_dir(cwd)
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn version_and_help() {
    let o = run(&root(), &["--version"]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "agent-sentences-gen {} (generates crates for agent-sentences-runtime {})\n",
            env!("CARGO_PKG_VERSION"),
            agent_sentences_codegen::RUNTIME_VERSION
        )
    );
    let o = run(&root(), &["gen", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    for flag in ["--spec <SPEC>", "--out <OUT>", "--runtime-path <PATH>"] {
        assert!(help.contains(flag), "{help}");
    }
    let o = run(&root(), &["check", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    for flag in ["--against <GIT_REF|DIR>", "--format <FORMAT>", "github"] {
        assert!(help.contains(flag), "{help}");
    }
    assert_eq!(run(&root(), &["gen", "--bogus"]).status.code(), Some(2));
}

/// How many files the real spec generates (from the library, not a count
/// copied here: a spec change that adds an output passes).
fn file_count() -> usize {
    agent_sentences_codegen::generate(&root().join("schema"))
        .unwrap_or_else(|r| panic!("{r}"))
        .files
        .len()
}

/// How many files the standalone generator writes from the real spec
/// outside this repository: the above and the vendored runtime's.
fn standalone_file_count() -> usize {
    let options = agent_sentences_codegen::Options {
        runtime: agent_sentences_codegen::Runtime::Vendored,
        ..Default::default()
    };
    agent_sentences_codegen::generate_with(&root().join("schema"), &options)
        .unwrap_or_else(|r| panic!("{r}"))
        .files
        .len()
}

#[test]
fn paths_are_relative_to_the_current_directory_and_errors_name_the_path_tried() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("schema"), &tmp.path().join("spec"));
    let o = run(tmp.path(), &["gen", "--spec", "spec", "--out", "gen"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.ends_with(&format!(
            "{} written, 0 removed (orphans), 0 unchanged, under gen\n",
            standalone_file_count()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("wrote gen/rust/Cargo.toml (new)\n"),
        "{stderr}"
    );
    // No runtime named: the copy the generator carries, written beside the crate.
    let manifest = std::fs::read_to_string(tmp.path().join("gen/rust/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "agent-sentences-runtime = {{ version = \"{}\", path = \"../runtime\" }}\n",
            agent_sentences_codegen::RUNTIME_VERSION
        )),
        "{manifest}"
    );
    assert!(
        stderr.contains("wrote gen/runtime/src/lib.rs (new)\n"),
        "{stderr}"
    );
    // --runtime-version: the registry's crate by that requirement; the copy
    // is then an orphan, removed.
    let o = run(
        tmp.path(),
        &[
            "gen",
            "--spec",
            "spec",
            "--out",
            "gen",
            "--runtime-version",
            "0.1",
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let manifest = std::fs::read_to_string(tmp.path().join("gen/rust/Cargo.toml")).unwrap();
    assert!(
        manifest.contains("agent-sentences-runtime = { version = \"0.1\" }\n"),
        "{manifest}"
    );
    assert!(
        !tmp.path().join("gen/runtime/src/lib.rs").exists(),
        "{stderr}"
    );
    let o = run(
        tmp.path(),
        &["gen", "--out", "gen", "--runtime-version", "latest"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`latest` is not a version requirement"));
    let o = run(tmp.path(), &["gen", "--spec", "spec", "--out", "gen"]);
    assert!(o.status.success());

    // Again: nothing changes; an orphan (a file an earlier gen listed in
    // its manifest, still marked) is removed and counted apart, and a file
    // no gen wrote is left and counted apart.
    std::fs::write(tmp.path().join("gen/rust/src/old.rs"), "// @generated\n").unwrap();
    let manifest = tmp.path().join("gen/.agent-sentences-manifest");
    let listed = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{listed}rust/src/old.rs\n")).unwrap();
    std::fs::write(tmp.path().join("gen/rust/src/mine.rs"), "x\n").unwrap();
    let o = run(tmp.path(), &["gen", "--spec", "spec", "--out", "gen"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let expected = format!("left gen/rust/src/mine.rs (not written by gen: a regular file of 2 byte(s))\nremoved gen/rust/src/old.rs (orphan: the spec no longer produces it)\n0 written, 1 removed (orphans), {} unchanged, 1 left (not written by gen), under gen\n", standalone_file_count());
    assert!(stderr.ends_with(&expected), "{stderr}");
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), listed);
    std::fs::remove_file(tmp.path().join("gen/rust/src/mine.rs")).unwrap();
    let o = run(
        tmp.path(),
        &["check", "--spec", "spec", "--out", "gen", "--python", "off"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = run(tmp.path(), &["gen", "--spec", "nope"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr,
        format!(
            "error: no spec directory at {}/nope (tried `nope`): pass --spec DIR, relative to {}\n",
            tmp.path().display(),
            tmp.path().display()
        )
    );
    let o = run(tmp.path(), &["gen"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("(tried the default `schema`)"));
}

#[test]
fn it_writes_what_cargo_xtask_gen_writes() {
    // From the repository root with the repository's runtime path, the
    // standalone check finds generated/ up to date.
    let o = run(
        &root(),
        &[
            "check",
            "--runtime-path",
            "../../runtime",
            "--python",
            "off",
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("generated is up to date ({} files)", file_count())),
        "{stderr}"
    );
}

/// How many findings on `structures.json` the real spec acknowledges in
/// `/known_findings`: the real spec's warnings on that file.
fn structures_known_findings() -> usize {
    let text = std::fs::read_to_string(root().join("schema/regex_patterns.json")).unwrap();
    let spec: serde_json::Value = serde_json::from_str(&text).unwrap();
    spec["known_findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["file"] == "structures.json")
        .count()
}

#[test]
fn github_format_annotates_findings_and_drift() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("schema"), &tmp.path().join("schema"));
    assert!(run(tmp.path(), &["gen"]).status.success());
    std::fs::write(tmp.path().join("generated/rust/Cargo.toml"), "stale\n").unwrap();
    let o = run(
        tmp.path(),
        &["check", "--format", "github", "--python", "off"],
    );
    assert_eq!(o.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("::warning file=schema/structures.json,line="))
            .count(),
        structures_known_findings(),
        "{stdout}"
    );
    assert!(lines.contains(&"::warning file=schema/structures.json,line=19,col=9,title=optional-field-not-captured::optional field `priority` is captured by no group of pattern `work_order`%3A it can never be parsed or rendered, and is left out of the generated types (/structures/work_order/optional_fields/0)%0Ahint: add a group `(?P<priority>…)` to `work_order`, or map a group to it with `\"field\": \"priority\"`".replace("%3A", ":").as_str()), "{stdout}");
    assert!(lines.contains(&"::error file=generated/rust/Cargo.toml,title=generated file out of date::generated/rust/Cargo.toml is stale: run `agent-sentences-gen gen` and commit the result"), "{stdout}");
    assert!(
        lines.contains(
            &"::group::diff of generated/rust/Cargo.toml (- on disk, + generated from the spec)"
        ),
        "{stdout}"
    );
    assert!(
        lines.contains(&"--- a/generated/rust/Cargo.toml\t(on disk)"),
        "{stdout}"
    );
    assert!(
        lines.contains(&"+++ b/generated/rust/Cargo.toml\t(generated from the spec)"),
        "{stdout}"
    );
    assert!(lines.contains(&"::endgroup::"), "{stdout}");
    // JSON: the path under the output directory, and the file as shown.
    let o = run(
        tmp.path(),
        &["check", "--format", "json", "--python", "off"],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            v["drift"][0]["path"].as_str(),
            v["drift"][0]["file"].as_str()
        ),
        (Some("rust/Cargo.toml"), Some("generated/rust/Cargo.toml"))
    );
    assert_eq!(v["fix"], "agent-sentences-gen gen");
}

/// A copy of the real spec without the `runtime_context` structure.
fn spec_without_runtime_context(dir: &Path) {
    copy_dir(&root().join("schema"), dir);
    let path = dir.join("structures.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["structures"]
        .as_object_mut()
        .unwrap()
        .shift_remove("runtime_context")
        .unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// Runs `git` in `dir` with no user or repository settings from outside the
/// test, and asserts that it succeeded.
fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=spec", "-c", "user.email=spec@example.test"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn check_against_a_git_revision_and_a_directory() {
    // The spec against its own committed copy: nothing changed. The revision is
    // made here (a repository holding the working spec, committed), so the test
    // does not depend on whether the working tree's spec is committed.
    let repo = tempfile::tempdir().unwrap();
    copy_dir(&root().join("schema"), &repo.path().join("schema"));
    assert!(run(repo.path(), &["gen"]).status.success());
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "schema"]);
    git(repo.path(), &["commit", "-q", "-m", "spec"]);
    let o = run(
        repo.path(),
        &[
            "check",
            "--python",
            "off",
            "--against",
            "HEAD",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], true, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["compat"]["against"], "HEAD:schema");
    assert_eq!(v["drift"], serde_json::json!([]));
    assert_eq!(
        (
            v["compat"]["breaking"].as_u64(),
            v["compat"]["additive"].as_u64()
        ),
        (Some(0), Some(0))
    );

    // A structure removed, version unchanged: an error, exit 1.
    let tmp = tempfile::tempdir().unwrap();
    spec_without_runtime_context(&tmp.path().join("schema"));
    assert!(run(tmp.path(), &["gen"]).status.success());
    let old = root().join("schema");
    let o = run(
        tmp.path(),
        &[
            "check",
            "--python",
            "off",
            "--against",
            old.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("breaking[structure-removed]: schema/structures.json:6:17 /structures: structure `runtime_context` (`RuntimeContext`) was removed or renamed\n"), "{stderr}");
    assert!(stderr.contains("1 breaking, 0 additive change(s)\nerror[breaking-change-without-major-bump]: schema/structures.json:4:14 /version: "), "{stderr}");
    let o = run(
        tmp.path(),
        &[
            "check",
            "--python",
            "off",
            "--against",
            old.to_str().unwrap(),
            "--format",
            "github",
        ],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.lines().any(|l| l.starts_with("::error file=schema/structures.json,line=6,col=17,title=structure-removed::breaking change against ")), "{stdout}");

    // The other way round it is an addition: a warning, exit 0.
    let old = tmp.path().join("schema");
    let o = run(
        &root(),
        &[
            "check",
            "--runtime-path",
            "../../runtime",
            "--python",
            "off",
            "--against",
            old.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["compat"]["changes"][0]["code"], "structure-added");
    assert_eq!(
        v["compat"]["findings"][0]["code"],
        "additive-change-without-minor-bump"
    );

    let o = run(
        &root(),
        &["check", "--python", "off", "--against", "no-such-ref"],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr.starts_with(&format!("error: --against no-such-ref: `no-such-ref` is neither a directory (tried {}/no-such-ref) nor a git revision holding schema/structures.json: git says: ", root().display())), "{stderr}");
}

/// Runs the command with standard output, or standard error, a stream whose
/// reader is already gone (`… | head -0`): every write fails with a broken
/// pipe from the first byte (a socket pair, one end closed).
#[cfg(unix)]
fn run_into_closed_pipe(cwd: &Path, args: &[&str], stderr_too: bool) -> Output {
    let (reader, writer) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(reader);
    let mut c = Command::new(env!("CARGO_BIN_EXE_agent-sentences-gen"));
    c.current_dir(cwd)
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdout(std::os::fd::OwnedFd::from(writer.try_clone().unwrap()));
    if stderr_too {
        c.stderr(std::os::fd::OwnedFd::from(writer));
        let status = c.status().unwrap();
        Output {
            status,
            stdout: Vec::new(),
            stderr: Vec::new(),
        }
    } else {
        drop(writer);
        c.output()
            .map(|mut o| {
                o.stdout.clear();
                o
            })
            .unwrap()
    }
}

#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_is_dropped_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&root().join("schema"), &tmp.path().join("schema"));
    assert!(run(tmp.path(), &["gen"]).status.success());
    std::fs::write(tmp.path().join("generated/rust/Cargo.toml"), "stale\n").unwrap();
    for format in ["human", "json", "github"] {
        let args = ["check", "--format", format, "--python", "off"];
        // Standard output closed: the findings on standard error still come.
        let o = run_into_closed_pipe(tmp.path(), &args, false);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{format}: {stderr}");
        assert!(!stderr.contains("panicked"), "{format}: {stderr}");
        assert!(
            stderr.contains("FAILED") || format != "github",
            "{format}: {stderr}"
        );
        // Both closed: nothing to say it on, and the exit status says it.
        let o = run_into_closed_pipe(tmp.path(), &args, true);
        assert_eq!(o.status.code(), Some(1), "{format}");
    }
    let o = run_into_closed_pipe(tmp.path(), &["gen"], true);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(tmp.path().join("generated/rust/Cargo.toml"))
            .unwrap()
            .contains("\n[package]\n"),
        "gen rewrote the stale file"
    );
    for args in [&["--help"][..], &["--version"], &["check", "--help"]] {
        let o = run_into_closed_pipe(tmp.path(), args, false);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            o.status.code().is_some_and(|c| c != 101),
            "{args:?}: {stderr}"
        );
    }
}

/// P285: a bidirectional control in `--out` or `--spec` used to land raw in
/// every header comment (rustc refuses it there: the generated crate did not
/// compile) and a DEL in `--runtime-path` made both manifests unreadable,
/// while gen exited 0. Each is refused, named, and nothing is written.
#[test]
fn a_path_holding_a_control_or_invisible_character_is_refused_and_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_dir(&root().join("schema"), &dir.join("schema"));
    for bad in [
        "gen\u{202e}x",
        "gen\u{7f}x",
        "gen\u{1b}[2Jx",
        "gen\u{2028}x",
        "gen\u{200b}x",
    ] {
        std::fs::create_dir_all(dir.join(bad)).unwrap();
        copy_dir(&root().join("schema"), &dir.join(bad).join("schema"));
        let spec_in_bad = format!("{bad}/schema");
        let cases: [&[&str]; 3] = [
            &["gen", "--out", bad],
            &["gen", "--spec", &spec_in_bad, "--out", "out"],
            &["gen", "--runtime-path", bad, "--out", "out"],
        ];
        for args in cases {
            let o = run(dir, args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            let c = bad.chars().nth(3).unwrap();
            assert!(
                err.contains(&format!(
                    "the path holds U+{:04X}, a control or invisible character",
                    c as u32
                )) && err.contains("nothing was written"),
                "{args:?}: {err}"
            );
            assert!(!dir.join("out").exists(), "{args:?}");
            assert_eq!(
                std::fs::read_dir(dir.join(bad)).unwrap().count(),
                1,
                "{args:?}"
            );
        }
    }
}
