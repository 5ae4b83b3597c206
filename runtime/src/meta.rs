//! The metadata types of a generated crate: what `SentenceKind::field_info`
//! and `patterns::INFO` hold. Hand-written here, so the generated code only
//! fills them in (a generated crate re-exports them: `ValueType` and
//! `FieldInfo` at its root, the pattern types in its `patterns` module).
//!
//! Every text is `&'static str`: the generated constants hold the spec's
//! values as written.

use std::fmt;

use regex::Regex;
use serde::Serialize;

/// The type of a captured value, named as the spec names it (`type` of a
/// pattern group in `schema/regex_patterns.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueType {
    /// Text, kept as captured.
    String,
    /// A non-negative decimal integer that fits in 32 bits.
    Integer,
    /// One of a closed set of texts.
    Enum,
    /// Exactly one strict JSON object.
    JsonObject,
}

impl ValueType {
    /// Every value type, in the spec schema's order.
    pub const ALL: [ValueType; 4] = [
        ValueType::String,
        ValueType::Integer,
        ValueType::Enum,
        ValueType::JsonObject,
    ];

    /// The spec's name of the type, e.g. `json_object` (as it serializes).
    pub fn as_str(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Integer => "integer",
            ValueType::Enum => "enum",
            ValueType::JsonObject => "json_object",
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A field of a generated sentence type (`SentenceKind::field_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FieldInfo {
    /// The field's name as the spec writes it (and as it serializes).
    pub name: &'static str,
    /// The type of its value.
    #[serde(rename = "type")]
    pub ty: ValueType,
    /// For [`ValueType::Enum`]: the allowed texts, in spec order; empty otherwise.
    pub values: &'static [&'static str],
    /// The Rust type of the struct field, e.g. `Option<Status>`.
    pub rust_type: &'static str,
    /// True for the spec's `required_fields`.
    pub required: bool,
    /// What the field holds (the description of the group that captures it).
    pub description: &'static str,
    /// The pattern groups that capture it, in pattern order.
    pub groups: &'static [&'static str],
    /// The field it is derived from, when its group lies inside that field's group.
    pub derived_from: Option<&'static str>,
}

/// A named group of a pattern (`/patterns/<key>/groups/<name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GroupInfo {
    /// The group's name.
    pub name: &'static str,
    /// The type of the captured value.
    #[serde(rename = "type")]
    pub ty: ValueType,
    /// For [`ValueType::Enum`]: the allowed texts; empty otherwise.
    pub values: &'static [&'static str],
    /// The structure field the group fills (its own name unless the spec maps it).
    pub field: &'static str,
    /// What the group captures.
    pub description: &'static str,
}

/// What one group captures in a [`MatchExample`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Capture {
    /// The group's name.
    pub group: &'static str,
    /// The captured text.
    pub text: &'static str,
}

/// A text the pattern matches in full, with what each taking-part group captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MatchExample {
    /// The text.
    pub text: &'static str,
    /// The groups that take part, in the spec's order.
    pub captures: &'static [Capture],
}

/// One pattern's metadata (`/patterns/<key>` in `schema/regex_patterns.json`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PatternInfo {
    /// The pattern key, e.g. `work_order`.
    pub key: &'static str,
    /// What it matches.
    pub purpose: &'static str,
    /// Flags inline, then the pattern: the string both engines compile.
    pub source: &'static str,
    /// The pattern without flags, as the spec writes it (a free-text group with `runs_until` written out, P91).
    pub pattern: &'static str,
    /// The spec's flags, named as Python's `re` names them (`MULTILINE`, `DOTALL`).
    pub flags: &'static [&'static str],
    /// The pattern as the seed document printed it, where it did (never compiled).
    pub seed_pattern: Option<&'static str>,
    /// Named groups, in the order they open.
    pub groups: &'static [GroupInfo],
    /// Texts the pattern matches in full.
    pub matches: &'static [MatchExample],
    /// Texts the pattern does not match in full.
    pub non_matches: &'static [&'static str],
    /// The spec entry as written, pretty-printed JSON.
    #[serde(skip)]
    pub spec_json: &'static str,
    /// The compiled pattern (compiled once, on first call), for the
    /// generated code to fill in; read it with [`PatternInfo::regex`].
    #[doc(hidden)]
    #[serde(skip)]
    pub search: fn() -> &'static Regex,
    /// The anchored pattern, as `search`; read it with
    /// [`PatternInfo::full_regex`].
    #[doc(hidden)]
    #[serde(skip)]
    pub full: fn() -> &'static Regex,
}

impl PatternInfo {
    /// The compiled pattern, search semantics (finds it anywhere in a text).
    pub fn regex(&self) -> &'static Regex {
        (self.search)()
    }

    /// The pattern anchored at both ends (`\A(?:…)\z`): matches a whole text or nothing.
    pub fn full_regex(&self) -> &'static Regex {
        (self.full)()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_types_serialize_as_their_spec_names() {
        for ty in ValueType::ALL {
            assert_eq!(
                serde_json::to_value(ty).unwrap(),
                serde_json::Value::String(ty.as_str().to_owned())
            );
            assert_eq!(ty.to_string(), ty.as_str());
        }
    }
}
