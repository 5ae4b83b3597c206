//! The hand-written support the generated `agent-sentences` crate calls,
//! and the generator with it. It knows no sentence structure: the generated
//! crate hands it tables built from the spec.
//!
//! - [`ParseError`]: why a text is not a sentence, and where it stopped fitting;
//!   [`Step`] / [`stop_point`] locate where a text stops fitting a pattern.
//! - [`scan`]: the scanner, batch and streaming (one engine), over the
//!   Markdown context of `context` (what every CommonMark reader shows as
//!   ordinary text).
//! - [`json`]: strict parsing of tool arguments (one RFC 8259 object, no
//!   duplicate keys) and their canonical rendering.
//! - [`ops`]: the checks a call goes through before it runs (`resolve`), and
//!   the catalogue as the agent APIs' native tools.
//! - [`loops`]: the loop tracker (the lifecycle state machine, SLA nudges).
//! - [`envelope`]: rendering and checking the prompt envelope.
//! - [`grammar`]: the reply grammar filled in for one message.
//! - [`meta`]: the metadata types a generated crate fills in ([`meta::ValueType`],
//!   [`meta::FieldInfo`], [`meta::PatternInfo`]).
//! - [`vendor`]: this crate's own sources, for the standalone generator.
//! - `python` (feature `python`): what the generated PyO3 module calls; the
//!   only module with `unsafe` code (CPython calls pyo3 does not wrap and
//!   reads of text already known to be UTF-8, each under a `SAFETY` comment).
//!
//! The crates the generated code uses are re-exported ([`regex`], [`serde`],
//! [`serde_json`]), so a crate that generates the types in its `build.rs`
//! (`agent_sentences_codegen::rust_module`) depends on this crate alone.

#![deny(unsafe_code)]
#![warn(missing_docs)]

#[doc(hidden)]
pub mod context;
pub mod envelope;
pub mod grammar;
pub mod json;
pub mod loops;
pub mod meta;
pub mod ops;
#[cfg(feature = "python")]
#[allow(unsafe_code)]
pub mod python;
pub mod scan;
pub mod vendor;

/// The `regex` crate the generated patterns compile with (re-exported for generated code).
pub use regex;
/// The `serde` crate the generated types derive `Serialize`/`Deserialize` from
/// (generated code names it with `#[serde(crate = "agent_sentences_runtime::serde")]`).
pub use serde;
/// The `serde_json` crate of tool arguments (`JsonObject` is its `Map`), with
/// `preserve_order` and `float_roundtrip`.
pub use serde_json;

/// This crate's version, which the generator writes into the generated
/// crate's dependency on it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

use std::fmt;
use std::sync::OnceLock;

use regex::Regex;

/// Why a text is not a sentence of the expected structure.
///
/// Offsets are **byte** offsets into the parsed text (UTF-8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Key of the structure that was expected (`work_order`, …); `None` when
    /// any structure would have done ([`ParseError::structure`] of the closest
    /// candidate is then given in `closest`).
    pub structure: Option<&'static str>,
    /// For a failed parse of any sentence: the structure that fitted longest.
    pub closest: Option<&'static str>,
    /// Byte offset where the text stopped fitting.
    pub offset: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// What went wrong in a [`ParseError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The text does not match the structure's pattern; `expected` describes
    /// the pattern element that failed at `offset` (e.g. `` `—` `` or `<title>`).
    NoMatch {
        /// The pattern element expected at the offset.
        expected: String,
    },
    /// A group bound to a fixed text captured something else
    /// (e.g. the verb of a claim was `DECLINE`).
    FixedMismatch {
        /// The group's name.
        group: &'static str,
        /// The text the structure requires.
        expected: &'static str,
        /// The text found.
        found: String,
    },
    /// A group that fills no field of the structure took part in the match.
    UnexpectedGroup {
        /// The group's name.
        group: &'static str,
    },
    /// Groups filling one field captured different texts.
    RepeatMismatch {
        /// The field's name.
        field: &'static str,
        /// The first capture.
        first: String,
        /// The capture that differs.
        other: String,
    },
    /// An integer field does not fit in 32 bits.
    Integer {
        /// The field's name.
        field: &'static str,
    },
    /// A JSON object field is not one strict JSON object.
    Json {
        /// The field's name.
        field: &'static str,
        /// Why, from [`json::parse_object`].
        error: json::JsonError,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.structure, self.closest) {
            (Some(s), _) => write!(f, "not {} `{s}` sentence: ", ParseError::article(s))?,
            (None, Some(c)) => write!(f, "no sentence structure matches (closest: `{c}`): ")?,
            (None, None) => write!(f, "no sentence structure matches: ")?,
        }
        match &self.kind {
            ParseErrorKind::NoMatch { expected } => {
                write!(f, "the text stopped fitting at byte {}: expected {expected}", self.offset)
            }
            ParseErrorKind::FixedMismatch { group, expected, found } => write!(
                f,
                "group `{group}` at byte {} is `{found}`, but this structure requires `{expected}`",
                self.offset
            ),
            ParseErrorKind::UnexpectedGroup { group } => write!(
                f,
                "group `{group}` at byte {} fills no field of this structure",
                self.offset
            ),
            ParseErrorKind::RepeatMismatch { field, first, other } => write!(
                f,
                "field `{field}` is written twice with different values (`{first}`, then `{other}` at byte {})",
                self.offset
            ),
            ParseErrorKind::Integer { field } => {
                write!(f, "field `{field}` at byte {} does not fit in 32 bits", self.offset)
            }
            ParseErrorKind::Json { field, error } => {
                write!(f, "field `{field}` at byte {} is not one strict JSON object: {error}", self.offset)
            }
        }
    }
}

impl std::error::Error for ParseError {}

impl ParseError {
    /// The indefinite article a message writes before `word` (a structure key
    /// such as `ack` or `work_order`): `an` before a vowel letter, else `a` (an
    /// `ack` sentence, a `claim` sentence). Structure keys are lower-case snake
    /// case (P188); a test over the spec's keys (`cli/tests/cli.rs`,
    /// `messages_write_the_article_of_every_structure`) holds that none starts
    /// with a vowel letter sounded otherwise (`user`, `one`) or a silent `h`
    /// (P282).
    pub fn article(word: &str) -> &'static str {
        match word.bytes().next().map(|b| b.to_ascii_lowercase()) {
            Some(b'a' | b'e' | b'i' | b'o' | b'u') => "an",
            _ => "a",
        }
    }

    /// An error for structure `structure` at byte `offset`.
    pub fn new(structure: &'static str, offset: usize, kind: ParseErrorKind) -> Self {
        ParseError {
            structure: Some(structure),
            closest: None,
            offset,
            kind,
        }
    }
}

/// One group's capture: its byte offset in the text and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap<'t> {
    start: usize,
    text: &'t str,
}

impl<'t> Cap<'t> {
    /// A capture of `text` starting at byte `start`.
    pub fn new(start: usize, text: &'t str) -> Self {
        Cap { start, text }
    }

    /// Byte offset of the capture in the text.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The captured text.
    pub fn as_str(&self) -> &'t str {
        self.text
    }
}

/// The named groups of one match, whichever regex engine produced it, so
/// the generated code builds a sentence from one pass of the engine.
pub trait Groups<'t> {
    /// The capture of group `name`, if it took part.
    fn group(&self, name: &str) -> Option<Cap<'t>>;
    /// Byte offset of the end of the match.
    fn end(&self) -> usize;
}

impl<'t> Groups<'t> for regex::Captures<'t> {
    fn group(&self, name: &str) -> Option<Cap<'t>> {
        self.name(name).map(|m| Cap::new(m.start(), m.as_str()))
    }
    fn end(&self) -> usize {
        self.get(0).map_or(0, |m| m.end())
    }
}

/// [`Groups`] over a `regex-automata` match (the scanner's engine).
pub struct AutomataGroups<'a, 't> {
    /// The captures of the match.
    pub caps: &'a regex_automata::util::captures::Captures,
    /// The text searched.
    pub text: &'t str,
}

impl<'t> Groups<'t> for AutomataGroups<'_, 't> {
    fn group(&self, name: &str) -> Option<Cap<'t>> {
        // The pattern's few group names are compared in order: cheaper than
        // hashing the name (`get_group_by_name`).
        let pid = self.caps.pattern()?;
        let index = self
            .caps
            .group_info()
            .pattern_names(pid)
            .position(|n| n == Some(name))?;
        self.caps
            .get_group(index)
            .map(|sp| Cap::new(sp.start, &self.text[sp.start..sp.end]))
    }
    fn end(&self) -> usize {
        self.caps.get_match().map_or(0, |m| m.end())
    }
}

/// The capture of a field filled by `groups` (several groups when the
/// template repeats the field), checking that repeats are equal.
///
/// # Errors
/// [`ParseErrorKind::RepeatMismatch`] when two of the groups captured
/// different text.
pub fn field_capture<'t>(
    caps: &dyn Groups<'t>,
    groups: &[&'static str],
    structure: &'static str,
    field: &'static str,
) -> Result<Option<Cap<'t>>, ParseError> {
    let mut first: Option<Cap<'t>> = None;
    for g in groups {
        if let Some(m) = caps.group(g) {
            match first {
                None => first = Some(m),
                Some(f) if f.as_str() != m.as_str() => {
                    return Err(ParseError::new(
                        structure,
                        m.start(),
                        ParseErrorKind::RepeatMismatch {
                            field,
                            first: f.as_str().to_owned(),
                            other: m.as_str().to_owned(),
                        },
                    ))
                }
                Some(_) => {}
            }
        }
    }
    Ok(first)
}

/// One prefix of a pattern, used to find where a text stops fitting.
///
/// `pattern` is the pattern's flags and its top-level elements up to and
/// including this step, anchored at the start; `expected` describes the
/// element this step adds.
#[derive(Debug)]
pub struct Step {
    /// The anchored prefix pattern.
    pub pattern: &'static str,
    /// The element this step adds, for messages.
    pub expected: &'static str,
    compiled: OnceLock<Option<Regex>>,
}

impl Step {
    /// A step; `const` so generated code can keep steps in statics.
    pub const fn new(pattern: &'static str, expected: &'static str) -> Self {
        Step {
            pattern,
            expected,
            compiled: OnceLock::new(),
        }
    }

    fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| Regex::new(self.pattern).ok())
            .as_ref()
    }
}

/// How many leading characters of `text` spell the start of the protocol
/// tag `tag` (`[RESULT ]`, `[WO:]`), ASCII case ignored: the tie-break of
/// `Sentence::parse`'s `closest` among structures that fitted equally long
/// prefixes, so the structure whose marker was typed is named
/// (`[RESULT] OK` is closest to `result`, not to `claim`, whose pattern
/// also reads `[RESULT`). Counted in characters, as Python counts them, so
/// both languages name the same structure.
pub fn tag_affinity(tag: &str, text: &str) -> usize {
    tag.chars()
        .zip(text.chars())
        .take_while(|(a, b)| a.eq_ignore_ascii_case(b))
        .count()
}

/// Where `text` stops fitting a pattern split into `steps`: the end of the
/// longest matching prefix, in bytes, and the element expected there.
///
/// Runs at most `steps.len()` linear-time matches, on the error path only.
pub fn stop_point(text: &str, steps: &'static [Step]) -> (usize, &'static str) {
    let mut end = 0;
    for step in steps {
        match step.regex().and_then(|re| re.find(text)) {
            Some(m) => end = m.end(),
            None => return (end, step.expected),
        }
    }
    (end, "the end of the text")
}
