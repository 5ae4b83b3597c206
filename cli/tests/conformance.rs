//! The conformance kit (`box-docs conformance`, `conformance/`) on real
//! implementations: this build's crate (`--serve`) and the generated Python
//! package pass every case; the seed's regexes score exactly what
//! `docs/guide/conformance.md` says, and fail where the seed and the spec part
//! (P314, P310). Also the runner's own rules (P315) and the claim lifecycle
//! the owner's JSON states (P313).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn box_docs() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_box-docs"));
    cmd.current_dir(root());
    cmd
}

/// `box-docs conformance --json [extra…] IMPLEMENTATION…`: the report and the exit code.
fn score(extra: &[&str], implementation: &[&str]) -> (Value, i32) {
    let out = box_docs()
        .args(["conformance", "--json"])
        .args(extra)
        .args(implementation)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out.status.code().unwrap())
}

/// `(passed, total)` of each level, MUST, SHOULD, MAY.
fn levels(report: &Value) -> [(u64, u64); 3] {
    ["MUST", "SHOULD", "MAY"].map(|l| {
        let s = &report["score"][l];
        (s["passed"].as_u64().unwrap(), s["total"].as_u64().unwrap())
    })
}

/// How many cases of each level the suite file holds.
fn suite_levels() -> [u64; 3] {
    let suite = std::fs::read_to_string(root().join("conformance/suite.jsonl")).unwrap();
    ["MUST", "SHOULD", "MAY"].map(|l| {
        suite
            .lines()
            .filter(|c| c.contains(&format!("\"level\":\"{l}\"")))
            .count() as u64
    })
}

fn failures(report: &Value) -> Vec<&str> {
    report["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect()
}

fn assert_passes_all(report: &Value, code: i32) {
    let totals = suite_levels();
    assert!(
        totals[0] > 200 && totals[1] > 200 && totals[2] > 0,
        "{totals:?}"
    );
    for (i, (passed, total)) in levels(report).into_iter().enumerate() {
        assert_eq!(total, totals[i], "every case of the suite file is run");
        assert_eq!(passed, total, "{:#}", report["failures"]);
    }
    assert_eq!(code, 0);
}

#[test]
fn this_build_passes_every_case() {
    let me = env!("CARGO_BIN_EXE_box-docs");
    let (report, code) = score(&[], &[me, "conformance", "--serve"]);
    assert_passes_all(&report, code);
}

/// The interpreter with the generated package installed (`cargo xtask test`
/// installs it into `.tools/venv`), or `None` after saying the test's Python
/// part is skipped (failing instead when `AGENT_SENTENCES_REQUIRE_PYTHON` is set).
fn python_with_package() -> Option<PathBuf> {
    let venv = root().join(".tools/venv/bin/python");
    let python = if venv.exists() {
        venv
    } else {
        PathBuf::from(std::env::var_os("PYTHON").unwrap_or_else(|| "python3".into()))
    };
    let installed = Command::new(&python)
        .args(["-c", "import agent_sentences._native"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        assert!(
            std::env::var_os("AGENT_SENTENCES_REQUIRE_PYTHON").is_none(),
            "the generated package is installed in {} (`cargo xtask test` installs it)",
            python.display()
        );
        eprintln!("skipped: the Python package is not installed in {}; `cargo xtask test conformance` installs it and runs this test in full", python.display());
        return None;
    }
    Some(python)
}

#[test]
fn the_python_package_passes_every_case() {
    let Some(python) = python_with_package() else {
        return;
    };
    let python = python.to_str().unwrap();
    let (report, code) = score(&[], &[python, "conformance/adapters/python_package.py"]);
    assert_passes_all(&report, code);
}

/// The seed's score as `docs/guide/conformance.md` writes it, in the row
/// `| seed 001's regexes | MUST p/t | SHOULD p/t | MAY p/t |`.
fn documented_seed_score() -> [(u64, u64); 3] {
    let guide = std::fs::read_to_string(root().join("docs/guide/conformance.md")).unwrap();
    let row = guide
        .lines()
        .find(|l| l.starts_with("| seed 001's regexes |"))
        .expect("the guide has the seed's row");
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let pair = |cell: &str| {
        let (p, t) = cell.split_once('/').expect("passed/total");
        (p.parse().unwrap(), t.parse().unwrap())
    };
    [pair(cells[2]), pair(cells[3]), pair(cells[4])]
}

#[test]
fn the_seed_regexes_score_as_the_guide_says() {
    // The seed's regexes need only the standard library: any Python 3.11+.
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let seed = [python.as_str(), "conformance/adapters/seed_regexes.py"];
    // The text report, as the owner reads it: the failure list, then the score.
    let text: Output = box_docs().arg("conformance").args(seed).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    println!("{text}");
    let (report, code) = score(&[], &seed);
    assert_eq!(code, 1, "the seed fails MUST cases: exit 1");
    let got = levels(&report);
    assert_eq!(got[0].1, suite_levels()[0]);
    assert_eq!(
        got,
        documented_seed_score(),
        "docs/guide/conformance.md's seed row is the measured score"
    );
    let failed = failures(&report);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("FAIL ")).count(),
        failed.len()
    );
    // P314: the seed's `(?P<summary>.*?)` reads `[RESULT id]` alone as a result.
    assert!(failed.contains(&"sentences/result-no-summary"));
    // P310: no seed text for `ack`, so the owner's own ack example is not read.
    assert!(failed.contains(&"sentences/spec-ack-example"));
    // Where the seed's pattern is the spec's reading, the seed passes.
    assert!(!failed.contains(&"sentences/spec-claim-example"));
    assert!(!failed.contains(&"sentences/spec-result-example"));
}

/// The seed adapter's report: the failing case ids.
fn seed_failures() -> Vec<String> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let (report, _) = score(&[], &[&python, "conformance/adapters/seed_regexes.py"]);
    failures(&report).into_iter().map(str::to_owned).collect()
}

fn spec_file(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("schema").join(name)).unwrap())
        .unwrap()
}

#[test]
fn the_seed_reads_no_structure_whose_pattern_it_does_not_print() {
    // P310: the structures whose `regex_ref` names a pattern with no
    // `seed_pattern` (the seed names it without text, or not at all).
    let patterns = spec_file("regex_patterns.json");
    let structures = spec_file("structures.json");
    let without_text: Vec<&str> = structures["structures"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, s)| {
            let pattern = &patterns["patterns"][s["regex_ref"].as_str().unwrap()];
            pattern.is_object() && pattern["seed_pattern"].is_null()
        })
        .map(|(k, _)| k.as_str())
        .collect();
    assert!(
        without_text.contains(&"ack") && without_text.contains(&"runtime_context"),
        "{without_text:?}"
    );
    let failed = seed_failures();
    for key in &without_text {
        let case = format!("sentences/spec-{key}-example");
        assert!(
            failed.contains(&case),
            "the seed's harvester reads `{key}`'s example, with no pattern for it"
        );
    }
    // Where seed 001 prints the pattern the structure's regex_ref names and
    // the structure is the bracket alone, the seed reads the owner's example.
    assert!(!failed.contains(&"sentences/spec-claim-example".to_owned()));
}

#[test]
fn the_runner_scores_levels_and_fails_on_a_must() {
    let dir = std::env::temp_dir().join(format!("box-docs-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let claim =
        r#"{"span":[0,16],"kind":"sentence","structure":"claim","value":{"job_id":"7fce46e0"}}"#;
    let wrong =
        r#"{"span":[0,16],"kind":"sentence","structure":"claim","value":{"job_id":"7fce46e1"}}"#;
    let case = |id: &str, level: &str, expect: &str| {
        format!(
            r#"{{"id":"{id}","level":"{level}","mode":"scan","text":"[CLAIM 7fce46e0]","expect":{expect}}}"#
        )
    };
    let write = |name: &str, lines: &[String]| {
        let path = dir.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path.to_str().unwrap().to_owned()
    };
    let me = env!("CARGO_BIN_EXE_box-docs");
    let serve = [me, "conformance", "--serve"];
    // A wrong SHOULD and MAY: scored, exit 0.
    let soft = write(
        "soft.jsonl",
        &[
            case("a", "MUST", &format!(r#"{{"items":[{claim}]}}"#)),
            case("b", "SHOULD", &format!(r#"{{"items":[{wrong}]}}"#)),
            case(
                "c",
                "MAY",
                r#"{"refusals":[{"span":[0,16],"reason":"no-object"}]}"#,
            ),
        ],
    );
    let (report, code) = score(&["--suite", &soft], &serve);
    assert_eq!((levels(&report), code), ([(1, 1), (0, 1), (0, 1)], 0));
    assert_eq!(failures(&report), ["b", "c"]);
    // A wrong MUST: exit 1.
    let hard = write(
        "hard.jsonl",
        &[case("a", "MUST", &format!(r#"{{"items":[{wrong}]}}"#))],
    );
    let (report, code) = score(&["--suite", &hard], &serve);
    assert_eq!((levels(&report)[0], code), ((0, 1), 1));
    // An implementation that answers nothing useful fails every case.
    let (report, code) = score(&["--suite", &soft], &["cat"]);
    assert_eq!((levels(&report), code), ([(0, 1), (0, 1), (0, 1)], 1));
    // One that cannot start is a usage error.
    let out = box_docs()
        .args([
            "conformance",
            "--suite",
            &soft,
            "/nonexistent/implementation",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_claim_before_an_ack_is_rejected_as_the_json_says() {
    // P313: structures.json says `acknowledged -> claimed`; seed 000's
    // diagram also draws `Dispatched --> Claimed`. The JSON wins.
    let line = |at: &str, from: &str, text: &str| {
        serde_json::json!({"at": at, "from": from, "text": text}).to_string() + "\n"
    };
    let order = line(
        "2026-10-06T19:00:00Z",
        "super",
        "[WO:7fce46e0] [from super] Audit — check",
    );
    let ack = line("2026-10-06T19:01:00Z", "646", "[ACK:7fce46e0] [from 646]");
    let claim = line("2026-10-06T19:02:00Z", "646", "[CLAIM 7fce46e0]");
    let run = |log: String| {
        let mut child = box_docs()
            .args(["loops", "--json", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(log.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, report) = run(order.clone() + &claim);
    assert_eq!(
        code,
        Some(1),
        "the claim of an unacknowledged loop is rejected: {report}"
    );
    let (code, report) = run(order + &ack + &claim);
    assert_eq!(code, Some(0), "{report}");
    assert!(report.contains("\"claimed\""), "{report}");
}
