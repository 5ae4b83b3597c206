//! Looking up structures and patterns by key, with a suggestion when the key
//! is unknown.

use agent_sentences::patterns::{self, PatternInfo};
use agent_sentences::SentenceKind;
use serde::Serialize;

use crate::Error;

/// A key that names no entry of a table.
#[derive(Debug, Serialize)]
pub struct UnknownName {
    /// Always `unknown_name`.
    pub kind: &'static str,
    /// The table looked in: `structures` or `regex_patterns` (as `get` names them).
    pub table: &'static str,
    /// The key given.
    pub name: String,
    /// The valid key most like it (Jaro-Winkler at least [`SIMILAR`]; the
    /// first in spec order on a tie); none when no key is like it.
    pub closest: Option<&'static str>,
    /// Every valid key, in spec order.
    pub valid: Vec<&'static str>,
    /// A pointer to the other table when the key names an entry there.
    pub hint: Option<String>,
    /// One line saying what went wrong.
    pub message: String,
    /// What the table holds, plural, for text (`structures`, `patterns`).
    #[serde(skip)]
    plural: &'static str,
}

impl UnknownName {
    fn new(
        table: &'static str,
        what: &str,
        name: &str,
        valid: Vec<&'static str>,
        hint: Option<String>,
    ) -> Self {
        UnknownName {
            kind: "unknown_name",
            table,
            name: name.to_owned(),
            closest: closest(name, &valid),
            valid,
            hint,
            message: format!("no {what} named `{name}`"),
            plural: match table {
                "structures" => "structures",
                "ops" => "ops",
                _ => "patterns",
            },
        }
    }

    /// The error as text for stderr.
    pub fn human(&self) -> String {
        let mut s = format!("error: {}\n", self.message);
        if let Some(hint) = &self.hint {
            s.push_str(&format!("  note: {hint}\n"));
        }
        if let Some(c) = self.closest {
            s.push_str(&format!("  did you mean `{c}`?\n"));
        }
        s.push_str(&format!(
            "  valid {}: {}\n",
            self.plural,
            self.valid.join(", ")
        ));
        s
    }

    /// The error as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain data serializes")
    }
}

/// How similar a suggestion must be to the name typed (Jaro-Winkler, 0 to
/// 1) to be offered: clap's own threshold for "did you mean" (P213).
pub const SIMILAR: f64 = 0.7;

/// The valid key most similar to the name typed (Jaro-Winkler similarity of
/// `name`, ASCII case ignored, to each key), when it is at least
/// [`SIMILAR`]; ties go to the first in `valid`. A name like none of them
/// (`nope` among the ops) gets no suggestion (P213).
pub fn closest(name: &str, valid: &[&'static str]) -> Option<&'static str> {
    let typed = name.to_ascii_lowercase();
    let mut best: Option<(f64, &'static str)> = None;
    for v in valid {
        let score = strsim::jaro_winkler(&typed, &v.to_ascii_lowercase());
        if score >= SIMILAR && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, v));
        }
    }
    best.map(|(_, v)| v)
}

fn structure_keys() -> Vec<&'static str> {
    SentenceKind::ALL.iter().map(|k| k.key()).collect()
}

fn pattern_keys() -> Vec<&'static str> {
    patterns::INFO.iter().map(|p| p.key).collect()
}

/// The structure with key `name`.
///
/// # Errors
/// [`Error::UnknownName`] listing the valid keys.
pub fn structure(name: &str) -> Result<SentenceKind, Error> {
    SentenceKind::from_key(name).ok_or_else(|| {
        let hint = patterns::info(name)
            .map(|p| format!("`{}` is a pattern: see `box-docs regex {}`", p.key, p.key));
        Error::UnknownName(Box::new(UnknownName::new(
            "structures",
            "structure",
            name,
            structure_keys(),
            hint,
        )))
    })
}

/// The pattern with key `name`.
///
/// # Errors
/// [`Error::UnknownName`] listing the valid keys.
pub fn pattern(name: &str) -> Result<&'static PatternInfo, Error> {
    patterns::info(name).ok_or_else(|| {
        let hint = SentenceKind::from_key(name).map(|k| {
            format!(
                "`{}` is a structure, parsed by pattern `{}`: see `box-docs sentence {}`",
                k.key(),
                k.pattern_key(),
                k.key()
            )
        });
        Error::UnknownName(Box::new(UnknownName::new(
            "regex_patterns",
            "pattern",
            name,
            pattern_keys(),
            hint,
        )))
    })
}

/// The op named `name` in the catalogue (`schema/ops.json`); an alias
/// names its op.
///
/// # Errors
/// [`Error::UnknownName`] listing every op.
pub fn op(name: &str) -> Result<&'static agent_sentences::ops::OpSpec, Error> {
    agent_sentences::ops::CATALOGUE
        .get(name)
        .map(|(_, o)| o)
        .ok_or_else(|| {
            let valid = agent_sentences::ops::CATALOGUE
                .ops
                .iter()
                .map(|o| o.name)
                .collect();
            Error::UnknownName(Box::new(UnknownName::new("ops", "op", name, valid, None)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_is_the_most_similar_to_the_name_typed_and_the_first_on_a_tie() {
        let valid = ["work_order", "ack", "claim", "no_action"];
        assert_eq!(closest("work_ordr", &valid), Some("work_order"));
        assert_eq!(closest("no-action", &valid), Some("no_action"));
        assert_eq!(closest("ac", &valid), Some("ack"));
        assert_eq!(closest("CLAIM", &valid), Some("claim"));
        assert_eq!(
            closest("abcx", &["abcy", "abcz"]),
            Some("abcy"),
            "as similar to each: the first wins"
        );
        assert_eq!(closest("abcx", &["abcz", "abcy"]), Some("abcz"));
        assert_eq!(closest("a", &[]), None);
    }

    #[test]
    fn a_name_like_no_key_gets_no_suggestion() {
        // Levenshtein offered `dm.send` (the fewest edits of any op) for `nope`.
        let ops = ["followup.create", "dm.send", "tools.list", "box.exec"];
        assert_eq!(closest("nope", &ops), None);
        assert_eq!(closest("dm.snd", &ops), Some("dm.send"));
        assert_eq!(closest("tool.list", &ops), Some("tools.list"));
    }

    #[test]
    fn unknown_structure_that_is_a_pattern_points_to_regex() {
        let Err(Error::UnknownName(u)) = structure("verb") else {
            panic!("verb is not a structure")
        };
        assert_eq!(u.table, "structures");
        assert_eq!(
            u.hint.as_deref(),
            Some("`verb` is a pattern: see `box-docs regex verb`")
        );
        assert_eq!(u.valid.len(), SentenceKind::ALL.len());
    }
}
