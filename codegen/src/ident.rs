//! Identifier sanitising: spec keys and field names to Rust and Python names.
//!
//! Every generated name goes through this module, so a spec key that collides
//! with a keyword (`type`, `match`, `from`, …) still yields valid code.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type",
];

fn ascii_word(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if cleaned.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        format!("_{cleaned}")
    } else {
        cleaned
    }
}

/// A Rust field or function name (snake_case); keywords get a trailing `_`
/// (raw identifiers would leak `r#` into serde names and docs).
pub fn rust_field(name: &str) -> String {
    let s = ascii_word(&name.to_snake_case());
    if RUST_KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// A Rust type or variant name (UpperCamelCase); `Self` becomes `Self_`.
pub fn rust_type(name: &str) -> String {
    let s = ascii_word(&name.to_upper_camel_case());
    let s = if s.is_empty() { "_".to_owned() } else { s };
    if RUST_KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// Names in the Rust prelude (and common std types) that a generated
/// top-level type must not shadow in a downstream `use agent_sentences::*`.
const RUST_PRELUDE: &[&str] = &[
    "Result",
    "Option",
    "Some",
    "None",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    "Default",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "ToString",
    "ToOwned",
    "Eq",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Debug",
    "Display",
    "Hash",
    "From",
    "Into",
    "Error",
];

/// A Rust top-level type name: [`rust_type`], with `Sentence` appended when
/// the name would shadow a prelude item (`result` → `ResultSentence`).
pub fn rust_item_type(name: &str) -> String {
    let s = rust_type(name);
    if RUST_PRELUDE.contains(&s.as_str()) {
        format!("{s}Sentence")
    } else {
        s
    }
}

/// A Rust or Python constant name (SCREAMING_SNAKE_CASE).
pub fn constant(name: &str) -> String {
    ascii_word(&name.to_shouty_snake_case())
}

/// A Python attribute or function name (snake_case); keywords and soft
/// keywords get a trailing `_`.
pub fn python_field(name: &str) -> String {
    let s = ascii_word(&name.to_snake_case());
    if PYTHON_KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

/// A Python class name (UpperCamelCase).
pub fn python_class(name: &str) -> String {
    let s = ascii_word(&name.to_upper_camel_case());
    if PYTHON_KEYWORDS.contains(&s.as_str()) {
        format!("{s}_")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_names() {
        assert_eq!(rust_field("dm_id"), "dm_id");
        assert_eq!(rust_field("type"), "type_");
        assert_eq!(rust_field("no-action"), "no_action");
        assert_eq!(rust_field("9lives"), "_9lives");
        assert_eq!(rust_type("no_action"), "NoAction");
        assert_eq!(rust_type("self"), "Self_");
        assert_eq!(rust_item_type("result"), "ResultSentence");
        assert_eq!(rust_item_type("work_order"), "WorkOrder");
        assert_eq!(constant("work_order"), "WORK_ORDER");
    }

    #[test]
    fn python_names() {
        assert_eq!(python_field("from"), "from_");
        assert_eq!(python_field("match"), "match_");
        assert_eq!(python_class("fleet_alert"), "FleetAlert");
        assert_eq!(python_class("none"), "None_");
    }
}
