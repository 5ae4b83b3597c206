//! Property tests of the scanner, the same as the Python package's
//! (`tests/python/test_scan.py`): over arbitrary strings, strings of the
//! scanner's own tokens, and valid messages with random edits, `scan` never
//! panics, every span is in range, on character boundaries, ordered and
//! disjoint from every other, every sentence found reads back as itself, and
//! `scan` is the first half of `scan_with_diagnostics`. 2000 cases each
//! (`PROPTEST_CASES` overrides); `fuzz/` runs the same checks for longer.

use std::ops::Range;
use std::sync::LazyLock;

use agent_sentences::scan::{scan, Item};
use agent_sentences::SentenceKind;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// The text pieces of `tests/scan_pool.json`, shared with the Python
/// property tests: tokens the scanner reacts to, valid pieces, separators.
struct Pool {
    tokens: Vec<String>,
    pieces: Vec<String>,
    separators: Vec<String>,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| {
    let v: serde_json::Value = serde_json::from_str(include_str!("../../scan_pool.json"))
        .expect("tests/scan_pool.json is JSON");
    let strings = |key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap_or_else(|| panic!("`{key}` is an array"))
            .iter()
            .map(|s| s.as_str().expect("a string").to_owned())
            .collect()
    };
    Pool {
        tokens: strings("tokens"),
        pieces: strings("pieces"),
        separators: strings("separators"),
    }
});

/// Checks every property on one text (`downstream_example::scan_invariants`).
fn check(text: &str) -> Result<(), TestCaseError> {
    downstream_example::scan_invariants(text).map_err(TestCaseError::fail)
}

/// `text` with one edit at character `at` (modulo the length): `op` picks a
/// deletion, an insertion of `token`, a duplicated slice, a slice moved to
/// `to`, or an upper-cased slice.
fn edit(text: &str, op: u8, at: usize, len: usize, token: &str, to: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let i = at % (chars.len() + 1);
    let j = (i + len).min(chars.len());
    let s = |r: Range<usize>| chars[r].iter().collect::<String>();
    let (head, piece, tail) = (s(0..i), s(i..j), s(j..chars.len()));
    match op {
        0 => head + &tail,
        1 => head + token + &piece + &tail,
        2 => head + &piece + &piece + &tail,
        3 => {
            let rest: Vec<char> = (head + &tail).chars().collect();
            let k = to % (rest.len() + 1);
            rest[..k].iter().collect::<String>() + &piece + &rest[k..].iter().collect::<String>()
        }
        _ => head + &piece.to_uppercase() + &tail,
    }
}

/// 2000 cases, or `PROPTEST_CASES`.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn strings_of_scanner_tokens(parts in vec(select(POOL.tokens.clone()), 0..40)) {
        check(&parts.concat())?;
    }

    #[test]
    fn mutated_valid_messages(
        pieces in vec((select(POOL.pieces.clone()), select(POOL.separators.clone())), 1..5),
        edits in vec((0..5u8, any::<usize>(), 0..12usize, select(POOL.tokens.clone()), any::<usize>()), 1..4),
    ) {
        let mut text: String = pieces.iter().map(|(p, s)| format!("{p}{s}")).collect();
        for (op, at, len, token, to) in edits {
            text = edit(&text, op, at, len, &token, to);
        }
        check(&text)?;
    }
}

/// The generators do what they say: each edit, and every scanned structure
/// among the pieces.
#[test]
fn the_generators_edit_as_intended() {
    assert!(check("[CLAIM 1] [TOOL a.b {\"x\": 1,}]").is_ok());
    assert!(downstream_example::scan_invariants("[TOOL\n\nReply: [ACK 7f] seen | [CLAIM 7f] mine | [RESULT 7f] done | [DECLINE 7f] | [NO-ACTION 7f].").is_ok());
    assert_eq!(edit("abcdef", 0, 7, 2, "X", 0), "cdef");
    assert_eq!(edit("abcdef", 1, 1, 2, "X", 0), "aXbcdef");
    assert_eq!(edit("abcdef", 2, 0, 2, "X", 0), "ababcdef");
    assert_eq!(edit("abcdef", 3, 0, 2, "X", 3), "cdeabf");
    assert_eq!(edit("éabc", 4, 0, 2, "X", 0), "ÉAbc");
    // Edits change what is found: a deleted bracket, an inserted quote.
    assert!(scan(&edit("[CLAIM 1]", 0, 0, 1, "", 0)).is_empty());
    assert!(scan(&edit("[CLAIM 1]", 1, 0, 0, "`", 0)).len() == 1);
    assert_eq!(
        SentenceKind::ALL
            .iter()
            .filter(|k| POOL.pieces.iter().any(|p| scan(p)
                .iter()
                .any(|f| matches!(&f.item, Item::Sentence { value } if value.kind() == **k))))
            .count(),
        13,
        "every scanned structure is in the pieces"
    );
}
