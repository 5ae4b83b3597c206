//! Decisions' stated bounds tied to the constants the tests assert (P342).
//!
//! A decision states a bound as `` `NAME` = value `` (`3.1%` for a
//! fraction, `1,000` or `1_000` for a count). Every such statement names a
//! numeric constant of the tree's hand-written code (`.rs` or `.py`,
//! `generated/` aside) defined with one value, and states that value. And a
//! decision that names in backticks a numeric constant defined in a file of
//! its `Held by:` line states it so at least once: the number the text
//! gives is then the number the test asserts.

use std::collections::BTreeMap;

/// A numeric constant's definitions, by name: `(file, value)` each.
pub type Constants = BTreeMap<String, Vec<(String, f64)>>;

/// A Rust or Python numeric literal (`0.031`, `1_000`, `1024usize`,
/// `1e6`), shifted (`8 << 20`), or a product of those (`64 * 1024`).
fn literal(text: &str) -> Option<f64> {
    let number = |t: &str| {
        let t = t.trim().replace('_', "");
        t.trim_end_matches(|c: char| c.is_ascii_alphabetic() && c != 'e')
            .parse::<f64>()
            .ok()
    };
    let mut product = 1.0;
    for factor in text.split('*') {
        product *= match factor.split_once("<<") {
            Some((a, b)) => number(a)? * 2f64.powf(number(b)?),
            None => number(factor)?,
        };
    }
    Some(product)
}

/// The numeric constant a line of code defines, if any: Rust `const` and
/// `static` items, Python module-level assignments (`NAME = …`,
/// `NAME: Final = …`), upper-case names only.
pub fn definition(line: &str, python: bool) -> Option<(String, f64)> {
    let mut rest = if python { line } else { line.trim_start() };
    if !python {
        for prefix in ["pub(crate) ", "pub(super) ", "pub "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        rest = rest
            .strip_prefix("const ")
            .or_else(|| rest.strip_prefix("static "))?;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    if name.len() < 2 || !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let after = &rest[end..];
    let (_, value) = after.split_once(" = ")?;
    if after[..after.find(" = ")?].contains(['(', '=']) {
        return None;
    }
    let value = if python {
        value.split('#').next()?.trim()
    } else {
        value.trim().strip_suffix(';')?
    };
    Some((name.to_owned(), literal(value)?))
}

/// Every numeric constant of `files` (path, text): hand-written `.rs` and
/// `.py` files only.
pub fn constants(files: &[(String, String)]) -> Constants {
    let mut out = Constants::new();
    for (path, text) in files {
        let python = path.ends_with(".py");
        if path.starts_with("generated/") || !(python || path.ends_with(".rs")) {
            continue;
        }
        for line in text.lines() {
            if let Some((name, value)) = definition(line, python) {
                out.entry(name).or_default().push((path.clone(), value));
            }
        }
    }
    out
}

/// The bounds a text states: `` `NAME` = value `` each, as `(name, the
/// value as written, the value)`.
pub fn stated(text: &str) -> Vec<(String, String, f64)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("` = ") {
        let before = &rest[..at];
        let after = &rest[at + 4..];
        rest = after;
        let Some(open) = before.rfind('`') else {
            continue;
        };
        let name = &before[open + 1..];
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        {
            continue;
        }
        // Digits, `_` and `,` between digits (thousands), one `.`, then `%`.
        let bytes = after.as_bytes();
        let mut end = 0;
        while end < bytes.len() {
            let c = bytes[end];
            let between_digits = (c == b',' || c == b'_' || c == b'.')
                && end > 0
                && bytes[end - 1].is_ascii_digit()
                && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
            if c.is_ascii_digit() || between_digits {
                end += 1;
            } else {
                break;
            }
        }
        if end == 0 {
            continue;
        }
        let digits = after[..end].replace([',', '_'], "");
        let Ok(mut value) = digits.parse::<f64>() else {
            continue;
        };
        let mut written = after[..end].to_owned();
        if after[end..].starts_with('%') {
            value /= 100.0;
            written.push('%');
        }
        for (unit, bytes) in [(" KiB", 1u64 << 10), (" MiB", 1 << 20), (" GiB", 1 << 30)] {
            if after[end..].starts_with(unit) {
                value *= bytes as f64;
                written.push_str(unit);
            }
        }
        out.push((name.to_owned(), written, value));
    }
    out
}

/// Whether two values are one (a percentage's division aside).
pub fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_in_both_languages() {
        assert_eq!(
            definition("BUDGET = 0.031", true),
            Some(("BUDGET".into(), 0.031))
        );
        assert_eq!(
            definition("MAX_BAD_LINES: Final = 1_000_000  # at most", true),
            Some(("MAX_BAD_LINES".into(), 1e6))
        );
        assert_eq!(
            definition("    pub const READ_ALLOWANCE: usize = 1024;", false),
            Some(("READ_ALLOWANCE".into(), 1024.0))
        );
        assert_eq!(
            definition("const CHUNK: usize = 64 * 1024;", false),
            Some(("CHUNK".into(), 65536.0))
        );
        assert_eq!(
            definition("MAX_LINE_BYTES: Final = 8 << 20", true),
            Some(("MAX_LINE_BYTES".into(), 8.0 * 1048576.0))
        );
        assert_eq!(
            definition("    BUDGET = 0.5", true),
            None,
            "not module level"
        );
        assert_eq!(definition("const NAME: &str = \"x\";", false), None);
        assert_eq!(definition("let X = 3;", false), None);
    }

    #[test]
    fn stated_bounds_are_read_with_their_units() {
        let text = "at most `BUDGET` = 3.1% (target `BUDGET_TARGET` = 1%); \
                    `MARKDOWN_IT_ONLY` = 81, and `COUNT` = 20,000 texts; `BUDGET` alone; \
                    `MAX` = 8 MiB";
        let got: Vec<(String, f64)> = stated(text).into_iter().map(|(n, _, v)| (n, v)).collect();
        assert_eq!(got.len(), 5);
        assert_eq!(got[0].0, "BUDGET");
        assert!(same(got[0].1, 0.031));
        assert!(same(got[1].1, 0.01));
        assert!(same(got[2].1, 81.0));
        assert!(same(got[3].1, 20_000.0));
        assert!(same(got[4].1, 8.0 * 1048576.0));
    }
}
