//! Near misses: where a text holds no sentence, the places where a known
//! structure's marker starts (`[WO`, `[RESULT`, `Reply:`, …, from each
//! structure's protocol tag, ASCII case ignored) and the text stops fitting
//! that structure, with the `ParseError` the libraries raise for it: the
//! structure, the byte and what was expected there (P212).

use std::ops::Range;

use agent_sentences::{patterns, ParseError, ParseErrorKind, SentenceKind};
use serde::Serialize;

/// The most marker places parsed for one text: each parse reads the rest of
/// the text, so a text of many markers stays linear in its length.
pub const MAX_CANDIDATES: usize = 16;

/// One place where a structure's marker starts but the text does not fit it.
#[derive(Debug, Serialize)]
pub struct NearMiss {
    /// The byte where the marker starts.
    pub start: usize,
    /// The structure whose marker starts there (the one that fitted longest
    /// when several share the marker).
    pub structure: &'static str,
    /// The byte of the whole text where it stopped fitting.
    pub offset: usize,
    /// What went wrong, as the vectors name it: `no_match`,
    /// `fixed_mismatch`, `unexpected_group`, `repeat_mismatch`, `integer`,
    /// `json`.
    pub kind: &'static str,
    /// What was expected at `offset` (`no_match`: the pattern element, e.g.
    /// `` `—` ``; `fixed_mismatch`: the text the structure requires), when
    /// the error says.
    pub expected: Option<String>,
    /// The library's message, offsets in bytes of the whole text.
    pub message: String,
}

/// The marker a tag starts with: up to its first blank, `:` or `]` (a tag
/// that does not start with `[`, such as `Reply: [ACK id] …`, keeps its
/// `:`), or `None` when that leaves fewer than two characters.
fn marker(tag: &str) -> Option<&str> {
    let end = tag[1..].find([' ', ':', ']']).map_or(tag.len(), |i| i + 1);
    let end = if !tag.starts_with('[') && tag[end..].starts_with(':') {
        end + 1
    } else {
        end
    };
    (end >= 2).then(|| &tag[..end])
}

/// Whether `text` at `at` starts with `marker` (ASCII case ignored) that
/// does not run on into a letter or digit (`[WORK` is not `[WO`).
fn marker_at(text: &str, at: usize, marker: &str) -> bool {
    let rest = &text.as_bytes()[at..];
    rest.len() >= marker.len()
        && rest[..marker.len()].eq_ignore_ascii_case(marker.as_bytes())
        && !rest
            .get(marker.len())
            .is_some_and(|b| b.is_ascii_alphanumeric())
}

fn kind_name(kind: &ParseErrorKind) -> (&'static str, Option<String>) {
    match kind {
        ParseErrorKind::NoMatch { expected } => ("no_match", Some(expected.clone())),
        ParseErrorKind::FixedMismatch { expected, .. } => {
            ("fixed_mismatch", Some(format!("`{expected}`")))
        }
        ParseErrorKind::UnexpectedGroup { .. } => ("unexpected_group", None),
        ParseErrorKind::RepeatMismatch { .. } => ("repeat_mismatch", None),
        ParseErrorKind::Integer { .. } => ("integer", None),
        ParseErrorKind::Json { .. } => ("json", None),
    }
}

/// The near misses of `text`, in text order, leaving out the places inside
/// `skipped` (the scanner's skipped candidates say why themselves). A
/// marker place where the structure's pattern matches is no near miss (the
/// scanner left the sentence out for another reason: in code, say).
pub fn near_misses(text: &str, skipped: &[Range<usize>]) -> Vec<NearMiss> {
    let markers: Vec<(SentenceKind, &str)> = SentenceKind::ALL
        .iter()
        .filter_map(|k| marker(k.tag()).map(|m| (*k, m)))
        .collect();
    let mut out = Vec::new();
    let mut parsed = 0;
    for (at, _) in text.char_indices() {
        if parsed >= MAX_CANDIDATES {
            break;
        }
        if skipped.iter().any(|r| r.contains(&at)) {
            continue;
        }
        let kinds: Vec<SentenceKind> = markers
            .iter()
            .filter(|(_, m)| marker_at(text, at, m))
            .map(|(k, _)| *k)
            .collect();
        if kinds.is_empty() {
            continue;
        }
        parsed += 1;
        let rest = &text[at..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        // The line alone, and the rest of the text (a body may run on over
        // lines): the error that got further; none when either parses.
        let mut best: Option<ParseError> = None;
        // A structure's pattern that matches right here: a sentence the
        // scanner left out for another reason (in code, say), no near miss.
        let matched = kinds.iter().any(|k| {
            patterns::info(k.pattern_key())
                .and_then(|p| p.regex().find_at(text, at))
                .is_some_and(|m| m.start() == at)
        });
        if matched {
            continue;
        }
        let mut fits = false;
        for k in &kinds {
            for candidate in [line, rest] {
                match k.parse(candidate) {
                    Ok(_) => fits = true,
                    Err(e) => {
                        if best.as_ref().is_none_or(|b| e.offset > b.offset) {
                            best = Some(e);
                        }
                    }
                }
            }
        }
        if fits {
            continue;
        }
        let Some(e) = best else { continue };
        let e = ParseError {
            offset: at + e.offset,
            ..e
        };
        let (kind, expected) = kind_name(&e.kind);
        out.push(NearMiss {
            start: at,
            structure: e.structure.unwrap_or_default(),
            offset: e.offset,
            kind,
            expected,
            message: e.to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_come_from_the_tags() {
        assert_eq!(marker("[WO:]"), Some("[WO"));
        assert_eq!(marker("[RESULT ]"), Some("[RESULT"));
        assert_eq!(marker("[fleet-alert]"), Some("[fleet-alert"));
        assert_eq!(marker("Reply: [ACK id] seen ..."), Some("Reply:"));
        assert_eq!(marker("["), None);
    }

    #[test]
    fn a_marker_does_not_run_on_into_a_word() {
        assert!(marker_at("x [wo:1]", 2, "[WO"));
        assert!(!marker_at("[WORK]", 0, "[WO"));
    }

    #[test]
    fn many_markers_parse_at_most_the_cap() {
        let text = "[RESULT]".repeat(1000);
        assert_eq!(near_misses(&text, &[]).len(), MAX_CANDIDATES);
    }
}
