//! The drift check (`files::sync` in `Mode::Check`) on copies of
//! `generated/`: each kind of difference on its own, line endings, the diff
//! cap, and what deleting a structure from the spec does to the outputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_sentences_codegen::files::DIFF_LINES;
use agent_sentences_codegen::{generate, Drift, DriftKind, Generated, Mode};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

fn real() -> Generated {
    generate(&root().join("schema")).unwrap_or_else(|r| panic!("the spec has errors:\n{r}"))
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A copy of what the real spec generates, written to a temporary directory.
fn written(g: &Generated) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    g.sync(dir.path(), Mode::Write).unwrap();
    dir
}

/// Checks `dir`, asserting that the check wrote nothing.
fn check(g: &Generated, dir: &Path) -> Vec<Drift> {
    let before = snapshot(dir);
    let drifts = g.sync(dir, Mode::Check).unwrap();
    assert_eq!(
        snapshot(dir),
        before,
        "the check wrote to the output directory"
    );
    drifts
}

fn kinds(drifts: &[Drift]) -> Vec<(&str, DriftKind)> {
    drifts.iter().map(|d| (d.path.as_str(), d.kind)).collect()
}

#[test]
fn a_stale_file_is_reported_with_a_diff_of_the_edit() {
    let g = real();
    let dir = written(&g);
    let lib = dir.path().join("rust/src/lib.rs");
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
    let drifts = check(&g, dir.path());
    assert_eq!(kinds(&drifts), vec![("rust/src/lib.rs", DriftKind::Stale)]);
    let diff = &drifts[0].diff;
    assert!(diff.starts_with("--- a/generated/rust/src/lib.rs\t(on disk)\n+++ b/generated/rust/src/lib.rs\t(generated from the spec)\n@@ "), "{diff}");
    assert!(
        diff.contains("\n-pub struct WorkOrder { // hand edit\n+pub struct WorkOrder {\n"),
        "{diff}"
    );
    assert_eq!(
        diff.lines()
            .filter(|l| l.starts_with(['-', '+']) && !l.starts_with("---") && !l.starts_with("+++"))
            .count(),
        2,
        "{diff}"
    );
}

#[test]
fn a_missing_file_is_reported_as_missing() {
    let g = real();
    let dir = written(&g);
    std::fs::remove_file(dir.path().join("rust/Cargo.toml")).unwrap();
    let drifts = check(&g, dir.path());
    assert_eq!(
        kinds(&drifts),
        vec![("rust/Cargo.toml", DriftKind::Missing)]
    );
    let added = drifts[0]
        .diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    assert_eq!(
        added,
        g.files["rust/Cargo.toml"].lines().count(),
        "{}",
        drifts[0].diff
    );
    assert_eq!(
        drifts[0].to_string().lines().next(),
        Some("generated/rust/Cargo.toml is missing")
    );
    assert!(drifts[0].diff.starts_with("--- a/generated/rust/Cargo.toml\t(not on disk)\n+++ b/generated/rust/Cargo.toml\t(generated from the spec)\n"), "{}", drifts[0].diff);
}

#[test]
fn an_orphan_is_reported_and_by_products_are_not() {
    let g = real();
    let dir = written(&g);
    std::fs::write(
        dir.path().join("rust/src/fleet_alert.rs"),
        "pub struct FleetAlert;\n",
    )
    .unwrap();
    // Build and tool by-products are not generator output and not orphans.
    std::fs::create_dir_all(dir.path().join("rust/target/debug")).unwrap();
    std::fs::write(dir.path().join("rust/target/debug/x"), "").unwrap();
    let drifts = check(&g, dir.path());
    assert_eq!(
        kinds(&drifts),
        vec![("rust/src/fleet_alert.rs", DriftKind::Orphan)]
    );
    assert!(
        drifts[0].diff.contains("\n-pub struct FleetAlert;\n"),
        "{}",
        drifts[0].diff
    );
    assert!(drifts[0].diff.starts_with("--- a/generated/rust/src/fleet_alert.rs\t(on disk)\n+++ b/generated/rust/src/fleet_alert.rs\t(not generated: orphan)\n"), "{}", drifts[0].diff);
    assert_eq!(
        drifts[0].to_string().lines().next(),
        Some("generated/rust/src/fleet_alert.rs is not produced by the generator (orphan)")
    );
}

/// A CRLF checkout (`core.autocrlf=true`) of one generated file is drift,
/// and the report says that only the line endings differ.
#[test]
fn a_crlf_checkout_is_reported_not_ignored() {
    let g = real();
    let dir = written(&g);
    let lf = &g.files["rust/src/lib.rs"];
    std::fs::write(dir.path().join("rust/src/lib.rs"), lf.replace('\n', "\r\n")).unwrap();
    let drifts = check(&g, dir.path());
    assert_eq!(kinds(&drifts), vec![("rust/src/lib.rs", DriftKind::Stale)]);
    let n = lf.lines().count();
    assert_eq!(
        drifts[0].diff,
        format!(
            "--- a/generated/rust/src/lib.rs\t(on disk)\n+++ b/generated/rust/src/lib.rs\t(generated from the spec)\nonly line endings differ: {n} of {n} line(s) end in CRLF on disk, 0 in the generator's output (generated files use LF; a checkout with `core.autocrlf=true` converts them)\n"
        )
    );
}

#[test]
fn a_crlf_line_among_other_edits_is_shown() {
    let g = real();
    let dir = written(&g);
    let text = g.files["rust/src/lib.rs"]
        .replacen("pub struct WorkOrder {\n", "pub struct WorkOrder {\r\n", 1)
        .replacen("pub struct Ack {", "pub struct Ack { // edit", 1);
    std::fs::write(dir.path().join("rust/src/lib.rs"), text).unwrap();
    let drifts = check(&g, dir.path());
    let diff = &drifts[0].diff;
    assert!(
        diff.contains("\n-pub struct WorkOrder {␍\n+pub struct WorkOrder {\n"),
        "{diff}"
    );
    assert!(diff.contains("\n-pub struct Ack { // edit\n"), "{diff}");
    assert!(diff.ends_with("note: line endings differ too: 1 line(s) end in CRLF on disk, 0 in the generator's output (shown as `␍`)\n"), "{diff}");
}

#[test]
fn a_long_diff_is_capped_with_the_count_of_what_was_cut() {
    let g = real();
    let dir = written(&g);
    std::fs::write(dir.path().join("rust/src/lib.rs"), "x\n").unwrap();
    let drifts = check(&g, dir.path());
    let lines: Vec<&str> = drifts[0].diff.lines().collect();
    // `---`, `+++`, one hunk header, `-x`, then one `+` line per line of the file.
    let total = 4 + g.files["rust/src/lib.rs"].lines().count();
    assert!(total > DIFF_LINES);
    assert_eq!(lines.len(), DIFF_LINES + 1);
    assert_eq!(
        lines[DIFF_LINES],
        format!("... {} more diff line(s) cut", total - DIFF_LINES)
    );
    assert_eq!(lines[3], "-x");
}

/// Deleting a structure from the spec. The generator writes per-crate files,
/// not one file per structure, so the deletion shows as the files that held
/// it going stale (their diffs remove it); a file of an older per-structure
/// layout left under `generated/` is an orphan.
#[test]
fn deleting_a_structure_is_drift() {
    let spec = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("schema/structures.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["structures"]
        .as_object_mut()
        .unwrap()
        .shift_remove("fleet_alert")
        .is_some());
    std::fs::write(
        spec.path().join("structures.json"),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    for f in [
        "regex_patterns.json",
        "directives.json",
        "loops.json",
        "ops.json",
        "envelope.json",
    ] {
        std::fs::copy(root().join("schema").join(f), spec.path().join(f)).unwrap();
    }
    let g = generate(spec.path()).unwrap_or_else(|r| panic!("{r}"));
    assert!(!g.files["rust/src/lib.rs"].contains("pub struct FleetAlert"));

    let out = written(&real());
    std::fs::write(
        out.path().join("rust/src/fleet_alert.rs"),
        "pub struct FleetAlert;\n",
    )
    .unwrap();
    let drifts = check(&g, out.path());
    assert_eq!(
        kinds(&drifts),
        vec![
            ("docs/REGEX-PATTERNS.md", DriftKind::Stale),
            ("docs/SENTENCE-STRUCTURE.md", DriftKind::Stale),
            ("python/agent_sentences/__init__.py", DriftKind::Stale),
            ("python/agent_sentences/scanner.py", DriftKind::Stale),
            ("python/agent_sentences/sentences.py", DriftKind::Stale),
            ("rust/src/fleet_alert.rs", DriftKind::Orphan),
            ("rust/src/lib.rs", DriftKind::Stale),
            ("rust/tests/roundtrip.rs", DriftKind::Stale),
            ("rust/tests/spec_examples.rs", DriftKind::Stale),
        ]
    );
    assert!(
        drifts[6]
            .diff
            .lines()
            .any(|l| l.starts_with('-') && l.contains("FleetAlert")),
        "{}",
        drifts[6].diff
    );
    assert!(
        !drifts[6]
            .diff
            .lines()
            .any(|l| l.starts_with('+') && l.contains("FleetAlert")),
        "{}",
        drifts[6].diff
    );
    assert!(
        drifts[3]
            .diff
            .lines()
            .any(|l| l.starts_with('-') && l.contains("(FleetAlert, [")),
        "{}",
        drifts[3].diff
    );
}
