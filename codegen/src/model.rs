//! The spec model: the serde types that `schema/structures.json` and
//! `schema/regex_patterns.json` deserialize into.
//!
//! These types are the single definition of the spec format. The loader
//! ([`crate::load`]) validates every input file against them before anything
//! else runs, and [`crate::emit::schema`] derives the published JSON Schema of
//! the format from them with `schemars`, so the two cannot disagree.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `schema/structures.json`: the owner's canonical list of sentence structures.
///
/// Source: the seed `002_*` document, kept value for value. The generator adapts
/// to this file; it never rewrites it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StructuresFile {
    /// JSON Schema dialect the owner declared (`$schema`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Human title of the grammar.
    pub title: String,
    /// Version of the grammar, e.g. `1.0.0`.
    pub version: String,
    /// The surface the grammar belongs to, e.g. `box.muse-dev.online`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<String>,
    /// Every sentence structure, keyed by its snake_case key (`work_order`, …),
    /// in the owner's order.
    pub structures: IndexMap<String, Structure>,
}

/// One sentence structure (`/structures/<key>` in `structures.json`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Structure {
    /// Human name, e.g. `Work Order`.
    pub name: String,
    /// The bracketed tag that introduces the sentence, e.g. `[WO:]`.
    pub protocol_tag: String,
    /// The canonical text with `{field}` placeholders.
    pub template: String,
    /// What the sentence is for.
    pub description: String,
    /// Fields every instance has. Each must be captured by the bound pattern.
    pub required_fields: Vec<String>,
    /// Fields an instance may lack.
    pub optional_fields: Vec<String>,
    /// Key of the pattern in `regex_patterns.json` that parses the sentence.
    pub regex_ref: String,
    /// What the recipient is expected to reply.
    pub reply_expectation: String,
    /// One real sentence of this structure.
    pub example: String,
    /// The loop state change the sentence causes, e.g. `open -> acknowledged`.
    pub lifecycle_transition: String,
}

/// `schema/regex_patterns.json`: the regex reference in machine-readable form.
///
/// Source: the seed `001_*` document (its pattern directory), completed so that
/// every structure's own example parses.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatternsFile {
    /// Path of the JSON Schema of this file (written by `cargo xtask gen`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Human title of the reference.
    pub title: String,
    /// Version of the reference.
    pub version: String,
    /// Every pattern, keyed by its pattern key, in directory order.
    pub patterns: IndexMap<String, Pattern>,
    /// How structures bind to patterns where the plain `regex_ref` is not
    /// enough, keyed by structure key.
    #[serde(default)]
    pub bindings: IndexMap<String, Binding>,
    /// Lint findings the project knows and has decided on (README, "Known
    /// inconsistencies of the owner's spec"): each is printed as part of one
    /// count line instead of on its own, and `--deny-warnings` passes over
    /// it, so a new finding stands out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_findings: Vec<KnownFinding>,
}

/// One acknowledged lint finding (`/known_findings/<n>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnownFinding {
    /// The finding's code, e.g. `optional-field-not-captured`.
    pub code: String,
    /// The spec file it is in: `structures.json`, `regex_patterns.json`,
    /// `directives.json`, `ops.json` or `envelope.json`.
    pub file: String,
    /// Its JSON pointer.
    pub pointer: String,
    /// The decision (`docs/decisions/`) that settles it, e.g. `P7`.
    pub decision: String,
}

/// One regular expression (`/patterns/<key>` in `regex_patterns.json`).
///
/// The pattern is written in the dialect both Python `re` and the Rust `regex`
/// crate accept: no look-around, no back-references, no `\Z` or `\z`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// What the pattern matches, one or two sentences.
    pub purpose: String,
    /// The pattern as the seed document printed it, where it did; kept for
    /// reference and for the benchmark's seed approach. Never compiled by the
    /// generated code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_pattern: Option<String>,
    /// The pattern text.
    pub pattern: String,
    /// Flags applied to the whole pattern.
    #[serde(default)]
    pub flags: Vec<Flag>,
    /// Every named group of the pattern, in the order they open.
    pub groups: IndexMap<String, Group>,
    /// Texts the pattern must match in full, with what each group captures.
    pub matches: Vec<MatchExample>,
    /// Texts the pattern must not match in full.
    pub non_matches: Vec<String>,
}

/// A regex flag, named as Python's `re` names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Flag {
    /// `^` and `$` match at line boundaries (`re.MULTILINE`, Rust `(?m)`).
    Multiline,
    /// `.` matches a newline too (`re.DOTALL`, Rust `(?s)`).
    Dotall,
}

/// A named group of a pattern (`/patterns/<key>/groups/<name>`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// What the group captures.
    pub description: String,
    /// The type of the captured value.
    #[serde(rename = "type")]
    pub ty: GroupType,
    /// For `enum` groups: the closed set of values, as written in the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// The structure field this group fills, when its name differs from the
    /// group's (e.g. the seed's `wo_id` fills the owner's `dm_id`). Several
    /// groups may fill one field: they must then capture equal text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Makes the group a free-text field that runs up to, not including, the
    /// first of these stop strings, or to the end of the text (an empty list).
    /// The pattern then holds the group empty at its very end, `(?P<name>)`,
    /// and the generator writes its body: the field is not empty, neither
    /// starts nor ends with a blank or line break (trailing ones belong to no
    /// field), and never holds a stop string. The stop strings are one marker
    /// and one character each (`[RESULT ` and `[RESULT\t`: the marker
    /// `[RESULT`); see `codegen/src/free_text.rs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_until: Option<Vec<String>>,
}

/// The type of a captured value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GroupType {
    /// Text, kept as captured.
    String,
    /// A non-negative decimal integer that fits in 32 bits; the pattern must
    /// admit only digits.
    Integer,
    /// One of the group's `values`.
    Enum,
    /// Exactly one strict JSON object (RFC 8259).
    JsonObject,
}

impl GroupType {
    /// The runtime's value type of a group of this type (whose `as_str` is
    /// this type's name in the spec).
    pub fn value_type(self) -> agent_sentences_runtime::meta::ValueType {
        use agent_sentences_runtime::meta::ValueType;
        match self {
            GroupType::String => ValueType::String,
            GroupType::Integer => ValueType::Integer,
            GroupType::Enum => ValueType::Enum,
            GroupType::JsonObject => ValueType::JsonObject,
        }
    }
}

/// An example the pattern must match in full.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchExample {
    /// The text.
    pub text: String,
    /// What each participating group captures; groups that do not participate
    /// are left out.
    pub captures: IndexMap<String, String>,
}

/// How a structure binds to a pattern (`/bindings/<structure key>`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// The pattern that parses the structure, when it is not the structure's
    /// `regex_ref` (which then must be named in `note`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Groups that must capture exactly this text for the structure to match
    /// (e.g. `verb` = `CLAIM` for `claim`). They fill no field.
    #[serde(default)]
    pub fixed: IndexMap<String, String>,
    /// Why the binding departs from the owner's `regex_ref`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For the scanner: when the structure's head matches but the sentence
    /// does not, its bracketed text is still quoted (markers inside it are not
    /// sentences of their own).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quotes_brackets: bool,
}

/// `schema/directives.json`: the grammar of in-band tool directives.
///
/// Source: the seed `003_*` document (status Final, decisions D1–D5).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectivesFile {
    /// Path of the JSON Schema of this file (written by `cargo xtask gen`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Human title.
    pub title: String,
    /// Version.
    pub version: String,
    /// Where the rules come from.
    pub source: String,
    /// The pattern an op name must match in full, in the common regex dialect.
    pub op_pattern: String,
    /// Engine keyword → what it does.
    pub engines: IndexMap<String, String>,
    /// The bracket form `[ENGINE op {json}]`.
    pub bracket: BracketForm,
    /// Shorthand keyword (e.g. `DM`) → what it stands for.
    pub shorthands: IndexMap<String, Shorthand>,
    /// Directive code fences.
    pub fences: Fences,
    /// The curl-to-/exec payload form.
    pub curl: CurlForm,
    /// Native alias → the op it stands for (e.g. `dm` → `dm.send`).
    pub aliases: IndexMap<String, String>,
    /// Limits on arguments.
    pub limits: Limits,
}

/// The bracket form (`/bracket`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BracketForm {
    /// What the form is.
    pub description: String,
    /// Engine keywords accepted in the bracket, case-sensitive.
    pub engines: Vec<String>,
}

/// A shorthand (`/shorthands/<keyword>`): `[KEYWORD {json}]`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Shorthand {
    /// The op it runs.
    pub op: String,
    /// The engine it runs on.
    pub engine: String,
    /// What it is.
    pub description: String,
}

/// Directive fences (`/fences`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fences {
    /// What the form is.
    pub description: String,
    /// Info string → engine.
    pub info_strings: IndexMap<String, String>,
}

/// The curl form (`/curl`): the runtime's own type, read as written, so a
/// field added to it and to the spec reaches the scanner with no change here.
pub use agent_sentences_runtime::scan::CurlForm;

/// Limits on directive arguments (`/limits`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Deepest nesting of objects and arrays (the argument object is depth 1).
    pub max_json_depth: usize,
    /// Largest argument object, in bytes of its JSON text.
    pub max_args_bytes: usize,
}

/// `schema/loops.json` (optional): how the loop tracker reads the sentences,
/// the facts the seeds leave open (decisions P130–P137). The moves
/// themselves come from each structure's `lifecycle_transition`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoopsFile {
    /// Path of the JSON Schema of this file (written by `cargo xtask gen`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Human title.
    pub title: String,
    /// Where the rules come from.
    pub source: String,
    /// The structure whose sentence opens a loop (its transition's first
    /// state is a new loop's state).
    pub opened_by: String,
    /// The structure whose sender becomes the loop's owner.
    pub claimed_by: String,
    /// Structure key → the field that holds the loop id, for the opener and
    /// every structure that moves a loop (its transition's first step → last
    /// state). One id space for all of them.
    pub loop_id: IndexMap<String, String>,
    /// The structure a nudge is, and which of its fields is which.
    pub nudge: NudgeRoles,
    /// SLA defaults (the tracker's configuration can override them).
    pub sla: Sla,
}

/// Which field of the nudge structure plays which part (`/nudge`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NudgeRoles {
    /// The nudge structure's key.
    pub structure: String,
    /// The field naming the loop.
    pub loop_id: String,
    /// The field holding the nudge's number (1-based).
    pub count: String,
    /// The field holding the number of nudges before a breach.
    pub max: String,
    /// The field holding the deadline.
    pub deadline: String,
}

/// SLA defaults (`/sla`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sla {
    /// Minutes from opening to the deadline, by opener structure.
    pub deadline_minutes: IndexMap<String, u32>,
    /// Minutes to the deadline for an opener not listed.
    pub default_deadline_minutes: u32,
    /// Minutes between two nudges of a loop.
    pub nudge_every_minutes: u32,
    /// Nudges before a loop that stays open is breached.
    pub max_nudges: u32,
}

/// `schema/ops.json` (optional): the exec op catalogue, the allowlist every
/// call runs through (seed `003_*`: the `op` allowlist with per-op
/// validation, `tools.list` with each op's `side_effecting` flag, D2, D5).
/// A spec without it gets no catalogue and no `resolve`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpsFile {
    /// Path of the JSON Schema of this file (written by `cargo xtask gen`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Human title.
    pub title: String,
    /// Where the ops come from.
    pub source: String,
    /// The engine (a key of `/engines` in `directives.json`) a native tool
    /// call comes through: a call an agent API makes (OpenAI `tool_calls`,
    /// Anthropic `tool_use`, MCP `tools/call`) is checked as an in-band call
    /// on this engine, and the APIs' tool lists offer the ops that allow it
    /// (P293). `TOOL` when absent.
    #[serde(default = "default_native_engine")]
    pub native_engine: String,
    /// Every op, keyed by its name (`followup.create`, …), in catalogue order.
    pub ops: IndexMap<String, Op>,
}

fn default_native_engine() -> String {
    "TOOL".to_owned()
}

/// One op of the catalogue (`/ops/<name>` in `ops.json`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Op {
    /// What the op does.
    pub description: String,
    /// The engines (keys of `/engines` in `directives.json`) a call of this op
    /// may come through; a call on any other engine is not run.
    pub engines: Vec<String>,
    /// True when running the op changes anything (D5: `tools.list` shows it).
    pub side_effecting: bool,
    /// The op's arguments as a JSON Schema (draft 2020-12) of the argument
    /// object. Absent when the seeds give no argument list: the op is then
    /// incomplete and no call of it runs (the lint warns, `op-incomplete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// What the seeds leave missing, in words, when `args` is absent (or the
    /// op is otherwise not runnable as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// For an op whose arguments name one of a set of actions the seeds
    /// count but do not name (`box.exec`, D2): the counts and the names
    /// known so far. While names are missing the op is incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Actions>,
    /// Argument objects the op must accept, each a real call from the seeds.
    #[serde(default)]
    pub examples: Vec<serde_json::Value>,
}

/// Counted actions of an op (`/ops/<name>/actions`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Actions {
    /// Each group of actions, e.g. `no_arg`, `one_arg`.
    pub groups: IndexMap<String, ActionGroup>,
}

/// One group of counted actions (`/ops/<name>/actions/groups/<group>`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionGroup {
    /// What the actions of the group are.
    pub description: String,
    /// How many actions the seeds say the group has.
    pub count: u32,
    /// The action names known; fewer than `count` leaves the op incomplete.
    pub names: Vec<String>,
}

/// `schema/envelope.json`: the prompt envelope, the text that wraps timer
/// and job messages (seed `003_*`, `wrap()`): the ops it advertises, the
/// verdict rule and the contract footer. The envelope follows the message
/// after one blank line, one line per entry of `lines` (P149). A spec
/// without it gets no envelope.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeFile {
    /// Path of the JSON Schema of this file (written by `cargo xtask gen`).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Human title.
    pub title: String,
    /// Where the envelope comes from.
    pub source: String,
    /// The lines after the message, in order.
    pub lines: Vec<EnvelopeLine>,
    /// A message and id the lint wraps and scans back.
    pub example: EnvelopeExample,
}

/// One line of the envelope (`/lines/<n>`): a `text` (with `advertise` or
/// `mention` filling its placeholders), or a `footer`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeLine {
    /// The line's text. Placeholders: `{advertised}` (the ops of
    /// `advertise`, each as `[ENGINE op]`, one space apart), `{mention}`
    /// (the marker of `mention`'s structure) and `{values}` (the values of
    /// `mention`'s `values_of` field, `A, B or C`). Every other marker in it
    /// is a lint error: the scanner must find nothing there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The ops the line advertises.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advertise: Option<Advertise>,
    /// The structure whose marker the line names, not writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mention: Option<Mention>,
    /// A structure written whole, its one field set to the message's id (the
    /// contract footer); a line with `footer` has no `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footer: Option<String>,
}

/// Ops advertised as the bracket form without an object (`[TOOL op]`),
/// which is not a call (`/lines/<n>/advertise`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Advertise {
    /// The bracket engine keyword, e.g. `TOOL`.
    pub engine: String,
    /// The ops, each an op of `ops.json`.
    pub ops: Vec<String>,
}

/// A structure named by its marker (`/lines/<n>/mention`): the marker is the
/// structure's `protocol_tag` without the blank before its `]` (`[RESULT]`),
/// which no pattern reads as a sentence.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mention {
    /// The structure's key, e.g. `result`.
    pub structure: String,
    /// A field of it with an enumeration, whose values `{values}` lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_of: Option<String>,
}

/// What the lint wraps (`/example`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeExample {
    /// The id the footer carries.
    pub id: String,
    /// The message wrapped.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::GroupType;
    use agent_sentences_runtime::meta::ValueType;

    /// The spec's group types and the runtime's value types are one list:
    /// each group type serializes as its value type's `as_str`, and every
    /// value type is some group type's.
    #[test]
    fn group_types_are_the_runtime_value_types() {
        let all = [
            GroupType::String,
            GroupType::Integer,
            GroupType::Enum,
            GroupType::JsonObject,
        ];
        for g in all {
            assert_eq!(
                serde_json::to_value(g).unwrap(),
                serde_json::Value::String(g.value_type().as_str().to_owned())
            );
        }
        let reached: Vec<ValueType> = all.iter().map(|g| g.value_type()).collect();
        assert_eq!(reached, ValueType::ALL);
    }
}
