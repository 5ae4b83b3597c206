//! Names that become identifiers (`codegen/src/names.rs`): every structure
//! key, field name, enum value and op name that a target language cannot
//! spell as written, or that collides with another after conversion, is a
//! located lint error; and the emitters never panic on a spec the lint
//! accepts (a property test over mutated names).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use agent_sentences_codegen::{lint_and_generate, Diagnostic, Python, Severity};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Where a name sits in the real spec, and how it is replaced.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// The key of the `fleet_alert` structure (its pattern keeps its key).
    StructureKey,
    /// The key of the `fleet_alert` structure and pattern, and the
    /// structure's `regex_ref`: one name for both.
    StructureAndPattern,
    /// `work_order`'s optional field `priority` (captured by no group).
    Field,
    /// The `result` pattern's enum value `SUCCESS` (in its `values` only).
    EnumValue,
    /// The op `health.check`.
    Op,
}

const SLOTS: [Slot; 5] = [
    Slot::StructureKey,
    Slot::StructureAndPattern,
    Slot::Field,
    Slot::EnumValue,
    Slot::Op,
];

impl Slot {
    /// `(file, text, replacement with {} for the JSON-quoted name, all
    /// occurrences?)`.
    fn edit(self) -> (&'static str, &'static str, &'static str, bool) {
        match self {
            Slot::StructureKey => ("structures.json", "\"fleet_alert\": {", "{}: {", false),
            Slot::StructureAndPattern => ("", "\"fleet_alert\"", "{}", true),
            Slot::Field => (
                "structures.json",
                "        \"priority\",\n",
                "        {},\n",
                false,
            ),
            Slot::EnumValue => (
                "regex_patterns.json",
                "            \"SUCCESS\",\n",
                "            {},\n",
                false,
            ),
            Slot::Op => ("ops.json", "\"health.check\"", "{}", true),
        }
    }

    /// The pointer of the name once replaced by `name`.
    fn pointer(self, name: &str) -> String {
        let token = name.replace('~', "~0").replace('/', "~1");
        match self {
            Slot::StructureKey | Slot::StructureAndPattern => format!("/structures/{token}"),
            Slot::Field => "/structures/work_order/optional_fields/0".to_owned(),
            Slot::EnumValue => "/patterns/result/groups/status/values/3".to_owned(),
            Slot::Op => format!("/ops/{token}"),
        }
    }
}

/// A copy of the real spec with each slot's name replaced.
fn spec_with(names: &[(Slot, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(root().join("schema")).unwrap() {
        let path = e.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        let mut text = std::fs::read_to_string(&path).unwrap();
        for &(slot, name) in names {
            let (f, from, to, all) = slot.edit();
            if !f.is_empty() && f != file {
                continue;
            }
            let to = to.replace("{}", &serde_json::to_string(name).unwrap());
            if all {
                text = text.replace(from, &to);
            } else {
                assert_eq!(text.matches(from).count(), 1, "{from} in {file}");
                text = text.replacen(from, &to, 1);
            }
        }
        std::fs::write(dir.path().join(&file), text).unwrap();
    }
    dir
}

fn errors(dir: &Path) -> Vec<Diagnostic> {
    let (report, _) = lint_and_generate(dir, &Python::Off);
    report
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

/// The 1-based line of the first line of `file` under `dir` holding `needle`.
fn line_of(dir: &Path, file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in {file}"))
        + 1
}

#[test]
fn every_listed_name_is_a_located_lint_error() {
    let hostile = [
        "fn", "self", "Self", "crate", "1abc", "a-b", "x y", "../../x",
    ];
    for slot in [Slot::StructureKey, Slot::Field, Slot::Op] {
        for name in hostile {
            let dir = spec_with(&[(slot, name)]);
            let found = errors(dir.path());
            let pointer = slot.pointer(name);
            if matches!(slot, Slot::Op) && ["fn", "crate", "a-b"].contains(&name) {
                // An op is an identifier only as its Rust variant (`Fn`,
                // `Crate`, `AB`), as `box.exec` is `BoxExec`.
                assert!(
                    !found.iter().any(|d| d.code.starts_with("name-")),
                    "{found:#?}"
                );
                continue;
            }
            let ours: Vec<&Diagnostic> = found
                .iter()
                .filter(|d| d.code.starts_with("name-"))
                .collect();
            assert_eq!(ours.len(), 1, "{slot:?} {name:?}: {ours:#?}");
            let d = ours[0];
            assert_eq!(d.pointer, pointer, "{slot:?} {name:?}");
            let file = slot.edit().0;
            assert_eq!(d.file.rsplit('/').next(), Some(file));
            let quoted = serde_json::to_string(name).unwrap();
            assert_eq!(
                d.line,
                line_of(dir.path(), file, &quoted),
                "{slot:?} {name:?}: {d:?}"
            );
            assert!(d.column > 1, "{d:?}");
            let code = if ["fn", "self", "crate"].contains(&name) {
                "name-is-keyword"
            } else {
                "name-not-identifier"
            };
            assert_eq!(d.code, code, "{slot:?} {name:?}: {d:?}");
            assert!(
                d.message.contains(&format!("{name:?}"))
                    || d.message.contains(&format!("`{name}`")),
                "{d:?}"
            );
        }
    }
    // Enum values: a letter first, then letters, digits, `_` or `-`
    // (`NO-ACTION` is one), and no keyword as a variant.
    for (name, code) in [
        ("1abc", "name-not-identifier"),
        ("x y", "name-not-identifier"),
        ("../../x", "name-not-identifier"),
        ("SELF", "name-is-keyword"),
    ] {
        let dir = spec_with(&[(Slot::EnumValue, name)]);
        let found = errors(dir.path());
        let d = found
            .iter()
            .find(|d| d.code.starts_with("name-"))
            .unwrap_or_else(|| panic!("{name}: {found:#?}"));
        assert_eq!(
            (d.code, d.pointer.as_str()),
            (code, "/patterns/result/groups/status/values/3")
        );
        let quoted = serde_json::to_string(name).unwrap();
        assert_eq!(d.line, line_of(dir.path(), "regex_patterns.json", &quoted));
    }
}

#[test]
fn names_that_collide_after_conversion_are_lint_errors() {
    for (slot, name, message) in [
        (Slot::StructureKey, "job__marker", "structure key `job__marker` becomes the Rust type `JobMarker`, as structure key `job_marker` does: the generated code would hold two of that name"),
        // An enum group's type and a structure's type share Rust's namespace.
        (Slot::StructureKey, "status", "enum group `status` becomes the Rust type `Status`, as structure key `status` does: the generated code would hold two of that name"),
        (Slot::EnumValue, "NO_ACTION", "no name-collision"),
        (Slot::EnumValue, "OK", "enum value `OK` becomes the Rust enum variant `Ok`, as enum value `OK` does: the generated code would hold two of that name"),
        (Slot::EnumValue, "Fail", "enum value `Fail` becomes the Rust enum variant `Fail`, as enum value `FAIL` does: the generated code would hold two of that name"),
        (Slot::Op, "tools_list", "op `tools_list` becomes the Rust op variant `ToolsList`, as op `tools.list` does: the generated code would hold two of that name"),
        (Slot::Op, "tools-list", "op `tools-list` becomes the Rust op variant `ToolsList`, as op `tools.list` does: the generated code would hold two of that name"),
        (Slot::Field, "due", "field `due` becomes the Rust field `due`, as field `due` does: the generated code would hold two of that name"),
        (Slot::Field, "render", "field `render` would replace the `render` that the generated Python class defines or names at class scope"),
        // A structure's type and the generated code's own types share one namespace.
        (Slot::StructureKey, "sentence", "structure key `sentence` becomes the Rust type `Sentence`, as the generated code's own type `Sentence` does: the generated code would hold two of that name"),
        (Slot::StructureKey, "value_type", "structure key `value_type` becomes the Rust type `ValueType`, as the generated code's own type `ValueType` does: the generated code would hold two of that name"),
    ] {
        let dir = spec_with(&[(slot, name)]);
        let found = errors(dir.path());
        let ours: Vec<&Diagnostic> = found
            .iter()
            .filter(|d| d.code.starts_with("name-"))
            .collect();
        if message == "no name-collision" {
            // `NO_ACTION` is a value of another enum (`verb`) than `status`.
            assert!(ours.is_empty(), "{ours:#?}");
            continue;
        }
        assert_eq!(ours.len(), 1, "{name}: {ours:#?}");
        assert_eq!(ours[0].message, message);
        // The later of the two names is reported.
        let pointer = match name {
            "status" => "/patterns/result/groups/status".to_owned(),
            "due" => "/structures/work_order/optional_fields/1".to_owned(),
            _ => slot.pointer(name),
        };
        assert_eq!(ours[0].pointer, pointer);
    }
}

/// A name to try in a slot: keywords, hostile spellings, names the real
/// spec already has (collisions), and random ones.
fn a_name() -> impl Strategy<Value = String> {
    let fixed: Vec<String> = [
        "fn",
        "self",
        "Self",
        "crate",
        "type",
        "match",
        "none",
        "true",
        "union",
        "1abc",
        "a-b",
        "x y",
        "../../x",
        "",
        "_",
        "é",
        "job_marker",
        "job__marker",
        "status",
        "tools.list",
        "tools_list",
        "OK",
        "Ok",
        "NO-ACTION",
        "summary",
        "render",
        "cls",
        "str",
        "due",
        "work_order",
        "a.b",
        "a..b",
        "x_1",
        "x1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    prop_oneof![
        proptest::sample::select(fixed),
        "[a-z][a-z0-9_]{0,6}",
        "[A-Za-z0-9 ._/-]{1,6}",
        "[a-z]{1,3}_{1,2}[a-z0-9]{0,2}",
        "[A-Z][A-Z_-]{0,5}",
    ]
}

/// The emitters never panic on a spec the lint accepts: slots of the real
/// spec get mutated names; each spec the lint passes without an error is
/// generated in memory, and must generate.
#[test]
fn the_emitters_never_panic_on_a_spec_the_lint_accepts() {
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    let accepted = std::cell::Cell::new(0usize);
    let strategy =
        proptest::collection::vec((proptest::sample::select(SLOTS.to_vec()), a_name()), 1..=3);
    runner
        .run(&strategy, |names| {
            // One name per slot: the last one given wins.
            let mut chosen: Vec<(Slot, &str)> = Vec::new();
            for (slot, name) in &names {
                chosen.retain(|(s, _)| std::mem::discriminant(s) != std::mem::discriminant(slot));
                chosen.push((*slot, name));
            }
            // Two slots that rename `fleet_alert` at once would fight.
            if chosen.iter().any(|(s, _)| matches!(s, Slot::StructureKey))
                && chosen
                    .iter()
                    .any(|(s, _)| matches!(s, Slot::StructureAndPattern))
            {
                chosen.retain(|(s, _)| !matches!(s, Slot::StructureKey));
            }
            let dir = spec_with(&chosen);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                lint_and_generate(dir.path(), &Python::Off)
            }));
            let (report, generated) = match outcome {
                Ok(x) => x,
                Err(_) => {
                    return Err(TestCaseError::fail(format!(
                        "lint or generation panicked on {chosen:?}"
                    )))
                }
            };
            if !report.has_errors() {
                accepted.set(accepted.get() + 1);
                prop_assert!(
                    generated.is_some(),
                    "{chosen:?}: the lint accepted but nothing was generated"
                );
            }
            Ok(())
        })
        .unwrap();
    // The property was exercised: some mutated specs passed the lint.
    assert!(accepted.get() > 0, "no mutated spec passed the lint");
}
