//! The scanner's public types: what it is built from (the spec's
//! structures and directive grammar) and what it returns.

use serde::Deserialize;

use super::*;

/// One structure as the scanner sees it (generated from the spec).
#[derive(Debug, Clone)]
pub struct StructureScan<S> {
    /// Structure key, e.g. `work_order`.
    pub key: String,
    /// The literal text every sentence of the structure starts with
    /// (e.g. `[WO:`, `Reply:`).
    pub head: String,
    /// The pattern, flags inline, with fixed groups replaced by their text.
    pub source: String,
    /// Builds the sentence from the groups of a match of `source`.
    pub from_groups: for<'t> fn(&dyn Groups<'t>) -> Result<S, ParseError>,
    /// When the head matches but the sentence does not, the bracketed text
    /// that follows is still quoted (markers inside it are not sentences).
    pub quotes_brackets: bool,
    /// When the pattern ends in a free-text group: `(group, the pattern
    /// before it, the group's inner pattern)`, flags inline. The scanner then
    /// runs the capture engine on the part before the group only, and finds
    /// the group's end from there (same result; the tail is read once, by a
    /// byte search or a DFA).
    pub tail: Option<(String, String, String)>,
    /// With `tail`: the match goes on after the tail group over blanks and
    /// line breaks (`[ \t\r\n]*`, a free-text field's trailer), which
    /// belong to no group.
    pub trailing_blanks: bool,
}

/// The directive grammar as the scanner reads it: `schema/directives.json`
/// lowered once by the generator, which writes it into the generated crate
/// as JSON (`DirectiveSpec::from_json`) and scans with the same value when
/// it checks the spec. A field added here and in the spec reaches every
/// scanner with no change to the generator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectiveSpec {
    /// The op pattern, e.g. `[A-Za-z0-9_.-]+` (`/op_pattern`).
    pub op_pattern: String,
    /// Engine keywords of the bracket form, e.g. `TOOL`, `EXEC`
    /// (`/bracket/engines`).
    pub bracket_engines: Vec<String>,
    /// Shorthands: (keyword, op, engine), e.g. (`DM`, `dm.send`, `TOOL`)
    /// (`/shorthands`).
    pub shorthands: Vec<(String, String, String)>,
    /// Directive fences: (info string, engine) (`/fences/info_strings`).
    pub fences: Vec<(String, String)>,
    /// The curl form (`/curl`), as written.
    pub curl: CurlForm,
    /// Native aliases: (alias, op) (`/aliases`).
    pub aliases: Vec<(String, String)>,
    /// Limits on the argument object (`/limits`).
    pub limits: Limits,
}

impl DirectiveSpec {
    /// Reads a directive grammar from the JSON the generator writes.
    ///
    /// # Panics
    /// When `json` is not a directive grammar of this runtime's shape: the
    /// generator writes it from the same type.
    pub fn from_json(json: &str) -> Self {
        serde_json::from_str(json).expect("a directive grammar written by the generator")
    }
}

/// The curl form of a tool directive (`/curl` of `schema/directives.json`):
/// a command that curl would send as a POST to the path, with one payload.
/// Every option list is curl's spelling of options (`-X`, `--request`); an
/// option in none of them rejects the command (it might take a value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CurlForm {
    /// What the form is.
    pub description: String,
    /// The URL path that makes a curl command a directive.
    pub path: String,
    /// Flags whose following single-quoted argument is the payload.
    pub data_flags: Vec<String>,
    /// Other curl options that take the next word as their value.
    pub value_options: Vec<String>,
    /// Curl options that take no value. Any option in none of the lists
    /// rejects the command (it might take a value).
    pub flag_options: Vec<String>,
    /// Options whose value is the request method (`-X`, `--request`).
    pub method_options: Vec<String>,
    /// The methods a method option may name: any other rejects the command.
    pub methods: Vec<String>,
    /// Options whose value is the URL, as the positional word is
    /// (`--url`).
    pub url_options: Vec<String>,
    /// The engine curl calls run on.
    pub engine: String,
    /// Payload key of the op.
    pub op_key: String,
    /// Payload key of the arguments.
    pub args_key: String,
}

impl CurlForm {
    /// Whether `option` takes the next word as its value: a data flag, a
    /// value option, a method option or a URL option.
    pub fn takes_value(&self, option: &str) -> bool {
        [
            &self.data_flags,
            &self.value_options,
            &self.method_options,
            &self.url_options,
        ]
        .iter()
        .any(|list| list.iter().any(|o| o == option))
    }
}

/// Where a directive was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectiveForm {
    /// `[TOOL op {…}]` or `[EXEC op {…}]`.
    Bracket,
    /// `[DM {…}]`.
    Shorthand,
    /// A ```` ```tool ```` / ```` ```exec ```` / ```` ```box ```` fence.
    Fence,
    /// A curl command posting to `/exec`.
    Curl,
}

/// A tool call found in text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolDirective {
    /// How it was written.
    pub form: DirectiveForm,
    /// The engine keyword, e.g. `TOOL`.
    pub engine: String,
    /// The op to run, aliases resolved (e.g. `dm.send`).
    pub op: String,
    /// The op as written (e.g. `dm`); equal to `op` when no alias applied.
    pub written_op: String,
    /// The arguments: one strict JSON object, keys in written order.
    pub args: Map<String, Value>,
}

/// What was found at a span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item<S> {
    /// A sentence of one of the spec's structures.
    Sentence {
        /// Its typed value.
        value: S,
    },
    /// A tool call.
    Directive {
        /// The call.
        #[serde(flatten)]
        directive: ToolDirective,
    },
}

/// One thing found in the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found<S> {
    /// Byte span in the scanned text.
    pub span: Range<usize>,
    /// What it is.
    #[serde(flatten)]
    pub item: Item<S>,
}

/// Why a directive candidate was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// The arguments are not one strict JSON object (syntax, duplicate keys,
    /// depth, size, or truncation).
    InvalidJson,
    /// Text other than whitespace between the object and the closing `]`, or
    /// the end of the text before it.
    TrailingText,
    /// `[TOOL op …]` / `[EXEC op …]` whose arguments do not start with `{`.
    NoObject,
    /// `[DM …]` without a JSON object (decision D3).
    ShorthandWithoutObject,
    /// A directive fence that is never closed.
    UnclosedFence,
    /// A directive fence whose body is not `<op> {json}`.
    FenceBody,
    /// A curl command to the exec path whose payload is missing, double-quoted,
    /// not strict JSON, or has other keys than op and args.
    CurlPayload,
    /// A `[Directive: …]` that does not close: its text is skipped as quoted.
    UnclosedDirective,
    /// A candidate that a CommonMark renderer does not show as it is
    /// written: a code span, inline HTML, emphasis or strikethrough markup,
    /// link or image markup, or an entity starts inside it, or it runs past
    /// its block (P151).
    NotPlainText,
    /// An invisible character (Unicode category Cf, another default-ignorable
    /// code point, U+2028 or U+2029) written in the op or the arguments
    /// (P154, P164), or a bidi control before the call in its paragraph
    /// (P159).
    InvisibleCharacter,
    /// Two keys of one object that are equal after NFKC normalization once
    /// invisible characters are removed (P155, P164).
    LookalikeKeys,
    /// A candidate that some CommonMark reader shows as text and that not
    /// every reader shows as text of the same block, or a directive fence
    /// that not every reader reads alike (P172): the message names each
    /// reader and what it shows there (`comrak: html_block`).
    HiddenBy,
    /// A curl command that starts a block (a list item's, a heading's, a
    /// table cell's text) on a line where Markdown markup precedes it: only
    /// a line that starts with `curl` is a directive (P156, P176).
    CurlNotAtLineStart,
    /// A candidate written in a later block of a found sentence's free-text
    /// field (a work order's body, a result's summary): part of that
    /// sentence, never read on its own (P196), and reported, not dropped
    /// silently (P172).
    InFreeText,
    /// A bracket form or sentence written among the words of a curl command
    /// line (`curl [TOOL x.y {…}]`): shell text, an argument of that command,
    /// never read on its own (P255), and reported, not dropped silently.
    InCurlCommand,
    /// A link reference definition that arrived after an item it would have
    /// hidden (the item's own brackets as a shortcut reference, or a
    /// reference around it) was committed: a definition counts only for
    /// items not yet committed, in a stream and in a whole text alike
    /// (P267). The skip's span is the definition's (from the first byte not
    /// yet committed); the message names the
    /// item.
    LateDefinition,
}

impl SkipReason {
    /// Every reason, in declaration order (a new reason goes at the end, and
    /// here). The generated Python package's `SkipReason` and `SKIP_REASONS`
    /// are written from this list.
    pub const ALL: [SkipReason; 16] = [
        SkipReason::InvalidJson,
        SkipReason::TrailingText,
        SkipReason::NoObject,
        SkipReason::ShorthandWithoutObject,
        SkipReason::UnclosedFence,
        SkipReason::FenceBody,
        SkipReason::CurlPayload,
        SkipReason::UnclosedDirective,
        SkipReason::NotPlainText,
        SkipReason::InvisibleCharacter,
        SkipReason::LookalikeKeys,
        SkipReason::HiddenBy,
        SkipReason::CurlNotAtLineStart,
        SkipReason::InFreeText,
        SkipReason::InCurlCommand,
        SkipReason::LateDefinition,
    ];

    /// The reason as it serializes and displays, e.g. `invalid-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::InvalidJson => "invalid-json",
            SkipReason::TrailingText => "trailing-text",
            SkipReason::NoObject => "no-object",
            SkipReason::ShorthandWithoutObject => "shorthand-without-object",
            SkipReason::UnclosedFence => "unclosed-fence",
            SkipReason::FenceBody => "fence-body",
            SkipReason::CurlPayload => "curl-payload",
            SkipReason::UnclosedDirective => "unclosed-directive",
            SkipReason::NotPlainText => "not-plain-text",
            SkipReason::InvisibleCharacter => "invisible-character",
            SkipReason::LookalikeKeys => "lookalike-keys",
            SkipReason::HiddenBy => "hidden-by",
            SkipReason::CurlNotAtLineStart => "curl-not-at-line-start",
            SkipReason::InFreeText => "in-free-text",
            SkipReason::InCurlCommand => "in-curl-command",
            SkipReason::LateDefinition => "late-definition",
        }
    }

    /// What the reason means, in one sentence for operators (no final
    /// stop; code in Markdown backticks). The generated Python documents
    /// each reason with it.
    pub fn summary(self) -> &'static str {
        match self {
            SkipReason::InvalidJson => {
                "the arguments are not one strict JSON object (syntax, duplicate keys, depth, size, or truncation)"
            }
            SkipReason::TrailingText => {
                "text other than whitespace between the object and the `]` (or the end of the text before it)"
            }
            SkipReason::NoObject => "`[TOOL op …]` whose arguments do not start with `{`",
            SkipReason::ShorthandWithoutObject => "`[DM …]` without a JSON object (D3)",
            SkipReason::UnclosedFence => "a directive fence that is never closed",
            SkipReason::FenceBody => "a directive fence whose body is not `<op> {json}`",
            SkipReason::CurlPayload => {
                "a curl command to the exec path whose payload is missing, double-quoted, not closed, \
                 or has other keys than the op and the arguments"
            }
            SkipReason::UnclosedDirective => {
                "a quoting structure (`[Directive:`) that does not close; its text is quoted to the end of the line"
            }
            SkipReason::NotPlainText => {
                "a candidate that a CommonMark renderer does not show as written: a code span, inline HTML, \
                 emphasis or strikethrough markup, link or image markup, or an entity starts inside it, \
                 or it runs past its block"
            }
            SkipReason::InvisibleCharacter => {
                "an invisible character (Unicode category Cf, another default-ignorable code point, \
                 U+2028 or U+2029) written in the op or the arguments, or a bidi control before the call \
                 in its paragraph"
            }
            SkipReason::LookalikeKeys => {
                "two keys of one object equal after NFKC normalization once invisible characters are removed"
            }
            SkipReason::HiddenBy => {
                "a candidate that some CommonMark reader shows as text and not every reader shows as text \
                 of the same block, or a directive fence not every reader reads alike; the message names \
                 each reader and what it shows there (`comrak: html_block`)"
            }
            SkipReason::CurlNotAtLineStart => {
                "a curl command that starts a block (a list item's, a heading's, a table cell's text) on a \
                 line where Markdown markup precedes it: only a line that starts with `curl` is a directive"
            }
            SkipReason::InFreeText => {
                "a candidate or a directive fence written in a later block of a found sentence's free-text \
                 field (a work order's body, a result's summary): part of that sentence, never read on its own"
            }
            SkipReason::InCurlCommand => {
                "a bracket form or sentence written among the words of a curl command line \
                 (`curl [TOOL x.y {…}]`): an argument of that shell command, never read on its own"
            }
            SkipReason::LateDefinition => {
                "a link reference definition that arrived after an item it would have hidden was committed: \
                 a definition counts only for items not yet committed; the message names the item"
            }
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A skipped candidate, for operators (the protocol skips silently).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Byte span of the candidate, from its start to where it stopped fitting.
    pub span: Range<usize>,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// Details, e.g. the JSON error.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::SkipReason;

    /// `ALL` holds every reason once, in declaration order, and each
    /// serializes as its `as_str`.
    #[test]
    fn every_skip_reason_is_listed_once_and_serializes_as_its_name() {
        for (i, r) in SkipReason::ALL.into_iter().enumerate() {
            assert_eq!(r as usize, i, "{r:?} out of declaration order");
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::Value::String(r.as_str().to_owned())
            );
            assert!(!r.summary().ends_with('.'), "{r:?}");
        }
        // `LateDefinition` is the last variant: a variant added after it goes
        // at the end of `ALL` and replaces it here.
        assert_eq!(
            SkipReason::ALL.len(),
            SkipReason::LateDefinition as usize + 1
        );
    }
}
