//! The Python modules the spec does not shape, kept as ordinary `.py` files
//! under `codegen/python/agent_sentences/` (compiled into the generator with
//! `include_str!`) and copied into the package with the generated header.
//!
//! Being plain Python, they are type-checked where they are written
//! (`cargo xtask test` runs `mypy --strict` on `codegen/python/`, P340). A
//! module that needs one value from the spec holds a *slot*: an assignment
//! whose line ends with `  # filled from the spec: <name>`, a valid
//! placeholder value before it (`_ARTICLES: dict[str, str] = {}  # filled
//! from the spec: articles`). [`module`] writes the value the emitter gives
//! for that name in place of the placeholder and drops the comment. Anything
//! more spec-shaped than a value belongs in a template
//! (`codegen/templates/python/`).

use crate::emit::header::PY_HEADER;

/// The folder of the static modules, from the `codegen` crate's root.
pub const SOURCE_DIR: &str = "python/agent_sentences";

/// Each static module's file name and its source text.
pub const MODULES: &[(&str, &str)] = &[
    (
        "errors.py",
        include_str!("../../../python/agent_sentences/errors.py"),
    ),
    (
        "harvest.py",
        include_str!("../../../python/agent_sentences/harvest.py"),
    ),
    (
        "strict_json.py",
        include_str!("../../../python/agent_sentences/strict_json.py"),
    ),
];

/// What ends a slot's line, before the slot's name.
const SLOT_MARK: &str = "  # filled from the spec: ";

/// The names of the slots of `source`, in order, each with its line's text
/// up to and including ` = ` (what [`fill`] keeps).
fn slots(source: &str) -> Vec<(&str, &str)> {
    source
        .lines()
        .filter_map(|line| {
            let (code, name) = line.rsplit_once(SLOT_MARK)?;
            let eq = code.find(" = ")?;
            Some((name.trim(), &code[..eq + 3]))
        })
        .collect()
}

/// `source` with each slot's placeholder replaced by its value from
/// `values` (name, Python expression).
///
/// # Panics
///
/// When a slot has no value, or a value names no slot: both are faults of
/// the generator, which the tests of this module and the drift check catch.
fn fill(file: &str, source: &str, values: &[(&str, String)]) -> String {
    let found = slots(source);
    for (name, _) in values {
        assert!(
            found.iter().any(|(n, _)| n == name),
            "codegen/{SOURCE_DIR}/{file} has no slot `{name}`"
        );
    }
    let mut out = String::with_capacity(source.len());
    for line in source.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        match body.rsplit_once(SLOT_MARK) {
            Some((code, name)) if code.contains(" = ") => {
                let name = name.trim();
                let keep = &code[..code.find(" = ").expect("checked") + 3];
                let value = values
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v)
                    .unwrap_or_else(|| {
                        panic!("codegen/{SOURCE_DIR}/{file}: no value for the slot `{name}`")
                    });
                out.push_str(keep);
                out.push_str(value);
                out.push_str(&line[body.len()..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// The static module `file` (a name of [`MODULES`]) as the package holds it:
/// the generated header, then its source with its slots filled from `values`.
///
/// # Panics
///
/// When `file` is not one of [`MODULES`], or as [`fill`].
pub fn module(file: &str, values: &[(&str, String)]) -> String {
    let source = MODULES
        .iter()
        .find(|(name, _)| *name == file)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no static Python module {file}"));
    format!("{PY_HEADER}\n{}", fill(file, source, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_takes_its_value_and_loses_its_comment() {
        let source = "A = 1\nB: dict[str, str] = {}  # filled from the spec: b\nC = 3\n";
        assert_eq!(
            fill("x.py", source, &[("b", "{\"k\": \"v\"}".to_owned())]),
            "A = 1\nB: dict[str, str] = {\"k\": \"v\"}\nC = 3\n"
        );
    }

    #[test]
    #[should_panic(expected = "no value for the slot `b`")]
    fn a_slot_without_a_value_is_a_fault() {
        fill("x.py", "B = {}  # filled from the spec: b\n", &[]);
    }

    #[test]
    #[should_panic(expected = "has no slot `c`")]
    fn a_value_without_a_slot_is_a_fault() {
        fill("x.py", "B = 1\n", &[("c", "2".to_owned())]);
    }

    /// The static modules are Python, not templates: no tera tag is left in
    /// them, and only `errors.py` has a slot.
    #[test]
    fn the_static_modules_hold_no_template_syntax() {
        for (file, source) in MODULES {
            for tag in ["{{ ", "{% ", "{# "] {
                assert!(
                    !source.lines().any(|l| l.trim_start().starts_with(tag)),
                    "{file} holds the tera tag `{tag}`"
                );
            }
            let names: Vec<&str> = slots(source).iter().map(|(n, _)| *n).collect();
            let expected: &[&str] = if *file == "errors.py" {
                &["articles"]
            } else {
                &[]
            };
            assert_eq!(names, expected, "{file}");
        }
    }
}
