//! The intermediate model's types: what lowering builds and every emitter
//! reads (sentences with typed fields, template segments, bound patterns,
//! enumerations, the laid-out envelope, the decoding grammars).

use indexmap::IndexMap;
use serde::Serialize;

use agent_sentences_runtime::meta::ValueType;

use crate::ident;
use crate::lifecycle::Lifecycle;
use crate::model::{Flag, GroupType, MatchExample};
use crate::pattern::StepSpec;
use crate::template::Segment;
/// The whole lowered spec.
#[derive(Debug, Clone, Serialize)]
pub struct Model {
    /// `structures.json` title.
    pub title: String,
    /// `structures.json` version.
    pub version: String,
    /// `structures.json` surface: where the sentences are written, if it says.
    pub surface: Option<String>,
    /// `regex_patterns.json` title.
    pub patterns_title: String,
    /// `regex_patterns.json` version.
    pub patterns_version: String,
    /// Every pattern, in `regex_patterns.json` order.
    pub patterns: Vec<PatternIr>,
    /// Every sentence structure, in `structures.json` order.
    pub sentences: Vec<SentenceIr>,
    /// Every closed enumeration, by type name.
    pub enums: Vec<EnumIr>,
    /// The directive grammar (`schema/directives.json`), as written.
    pub directives: crate::model::DirectivesFile,
    /// The directive grammar as the runtime's scanner reads it, built once
    /// from [`Model::directives`]: the generated crate reads it from JSON,
    /// and the envelope check scans with it.
    pub directive_spec: agent_sentences_runtime::scan::DirectiveSpec,
    /// The loop lifecycle read from every structure's `lifecycle_transition`.
    pub lifecycle: Lifecycle,
    /// The loop state machine, when the spec has a `loops.json`.
    pub machine: Option<crate::loops::MachineIr>,
    /// The exec op catalogue, when the spec has an `ops.json`.
    pub ops: Option<crate::ops::OpsIr>,
    /// The prompt envelope (`schema/envelope.json`), laid out; `None`
    /// without one, or when it has an error.
    pub envelope: Option<EnvelopeIr>,
    /// The decoding grammars (Lark and GBNF are printed from them), lowered
    /// from the structures the checks left intact.
    #[serde(skip)]
    pub grammars: crate::grammar::model::Grammars,
}

/// A pattern (`/patterns/<key>`).
#[derive(Debug, Clone, Serialize)]
pub struct PatternIr {
    /// Pattern key.
    pub key: String,
    /// Constant name, e.g. `WORK_ORDER`.
    pub const_name: String,
    /// What it matches.
    pub purpose: String,
    /// The pattern text without flags.
    pub pattern: String,
    /// Flags.
    pub flags: Vec<Flag>,
    /// Flags as an inline prefix followed by the pattern: the one string both
    /// engines compile.
    pub source: String,
    /// The seed's version, when the seed printed one.
    pub seed_pattern: Option<String>,
    /// Named groups in opening order.
    pub groups: Vec<GroupIr>,
    /// Full-match examples with captures.
    pub matches: Vec<MatchExample>,
    /// Texts that must not match in full.
    pub non_matches: Vec<String>,
    /// The spec entry `/patterns/<key>` as written, pretty-printed JSON.
    pub spec_json: String,
}

/// A named group.
#[derive(Debug, Clone, Serialize)]
pub struct GroupIr {
    /// Group name.
    pub name: String,
    /// What it captures.
    pub description: String,
    /// Value type.
    pub ty: GroupType,
    /// For enums: the allowed texts.
    pub values: Vec<String>,
    /// The structure field it fills (its own name unless mapped).
    pub field: String,
    /// The Rust enum type, for enum groups.
    pub enum_name: Option<String>,
    /// The inner pattern text.
    pub inner: String,
}

/// A closed enumeration shared by the groups of one name.
#[derive(Debug, Clone, Serialize)]
pub struct EnumIr {
    /// Type name (UpperCamelCase of the group name), e.g. `Status`.
    pub name: String,
    /// The group it comes from.
    pub group: String,
    /// The pattern it comes from.
    pub pattern: String,
    /// Description of the group.
    pub description: String,
    /// (variant name, text) pairs, in spec order.
    pub variants: Vec<(String, String)>,
}

/// The type of a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum FieldTy {
    /// Text.
    String,
    /// `u32`.
    Integer,
    /// A closed enumeration, by type name.
    Enum(String),
    /// A JSON object.
    JsonObject,
}

/// A field type as each output spells it ([`FieldTy::spelling`]), without
/// the optional wrapper (`Option<…>`, `… | None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelling {
    /// The runtime's value type; its `as_str` is the spec's name of the type
    /// (`json_object`).
    pub value_type: ValueType,
    /// The generated Rust type (`u32`, an enumeration's type name).
    pub rust: String,
    /// The generated Python annotation (`int`, an enumeration's class name).
    pub python: String,
    /// The type in words, for the generated rustdoc.
    pub words: String,
}

impl FieldTy {
    /// How each output spells this type: the one table of field type
    /// spellings, which the Rust and Python emitters and `check --against`
    /// read.
    pub fn spelling(&self) -> Spelling {
        let (value_type, rust, python, words) = match self {
            FieldTy::String => (
                ValueType::String,
                "String".to_owned(),
                "str".to_owned(),
                "text".to_owned(),
            ),
            FieldTy::Integer => (
                ValueType::Integer,
                "u32".to_owned(),
                "int".to_owned(),
                "a non-negative integer (`u32`)".to_owned(),
            ),
            FieldTy::Enum(e) => (
                ValueType::Enum,
                e.clone(),
                ident::python_class(e),
                format!("one of [`{e}`]"),
            ),
            FieldTy::JsonObject => (
                ValueType::JsonObject,
                "JsonObject".to_owned(),
                "JsonObject".to_owned(),
                "one strict JSON object".to_owned(),
            ),
        };
        Spelling {
            value_type,
            rust,
            python,
            words,
        }
    }

    /// The runtime's value type of this field type.
    pub fn value_type(&self) -> ValueType {
        self.spelling().value_type
    }
}

/// A field of a sentence.
#[derive(Debug, Clone, Serialize)]
pub struct FieldIr {
    /// Field name as the spec writes it.
    pub name: String,
    /// Rust field name.
    pub rust_name: String,
    /// Python attribute name.
    pub py_name: String,
    /// Type.
    pub ty: FieldTy,
    /// True for `required_fields`.
    pub required: bool,
    /// Description (from the first group that fills it).
    pub description: String,
    /// Groups that fill it, in pattern order; all must capture equal text.
    pub groups: Vec<String>,
    /// The field whose group encloses this one's: its value is derived from
    /// that field's text and it does not appear in the template.
    pub derived_from: Option<String>,
    /// The inner pattern of its first group.
    pub inner: String,
}

/// A sentence structure (`/structures/<key>`), bound to its pattern.
#[derive(Debug, Clone, Serialize)]
pub struct SentenceIr {
    /// Structure key, e.g. `work_order`.
    pub key: String,
    /// Rust type and variant name, e.g. `WorkOrder`.
    pub type_name: String,
    /// Python class name.
    pub py_class: String,
    /// Constant name, e.g. `WORK_ORDER`.
    pub const_name: String,
    /// Human name.
    pub name: String,
    /// Protocol tag.
    pub tag: String,
    /// Template text.
    pub template: String,
    /// Description.
    pub description: String,
    /// Reply expectation.
    pub reply_expectation: String,
    /// Lifecycle transition.
    pub lifecycle_transition: String,
    /// The owner's example, as written.
    pub example: String,
    /// The part of the example that is the sentence (the whole example unless
    /// it carries trailing prose).
    pub example_sentence: String,
    /// The owner's `regex_ref`.
    pub regex_ref: String,
    /// The pattern actually bound (differs from `regex_ref` where a binding says so).
    pub pattern_key: String,
    /// The binding's note, if any.
    pub binding_note: Option<String>,
    /// The full-match source of the bound pattern (flags + pattern).
    pub source: String,
    /// The bound pattern's flags as an inline prefix, e.g. `(?s)`.
    pub flag_prefix: String,
    /// Fields, required first, each in spec order.
    pub fields: Vec<FieldIr>,
    /// Fields the spec lists that no group captures: never parsed or rendered,
    /// left out of the generated types.
    pub omitted_fields: Vec<String>,
    /// Template segments for rendering.
    pub segments: Vec<Segment>,
    /// Groups that must capture fixed text: (group, text).
    pub fixed: Vec<(String, String)>,
    /// Groups of the pattern that fill no field and are not fixed: the
    /// structure does not match when one of them takes part.
    pub unbound_groups: Vec<String>,
    /// Prefix steps of the bound pattern, for error positions.
    pub steps: Vec<StepSpec>,
    /// Expected captures of the example sentence (group → text), from the
    /// pattern's `matches`.
    pub example_captures: IndexMap<String, String>,
    /// False for structures with a JSON object field (tool calls): the
    /// scanner reads those with the directive grammar, by balanced JSON.
    pub scanned: bool,
    /// The scan pattern: flags + pattern, fixed groups replaced by their text.
    pub scan_source: String,
    /// The literal every sentence starts with, e.g. `[WO:`, `[CLAIM`, `Reply:`.
    pub head: String,
    /// When the scan pattern ends in a named group with no groups inside
    /// (a free-text tail such as a work order's body): `(group, pattern
    /// before it, the group's inner pattern, whether the free-text trailer
    /// follows it)`, flags inline on both. The scanner then runs the capture
    /// engine on the short part only and finds the tail's end from there
    /// (see `runtime::scan`).
    pub tail_split: Option<(String, String, String, bool)>,
    /// The binding's `quotes_brackets`.
    pub quotes_brackets: bool,
    /// The spec entry `/structures/<key>` as written, pretty-printed JSON.
    pub spec_json: String,
}

impl SentenceIr {
    /// The field a group fills, if any.
    pub fn field_of_group(&self, group: &str) -> Option<&FieldIr> {
        self.fields
            .iter()
            .find(|f| f.groups.iter().any(|g| g == group))
    }
}

/// One piece of the rendered envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "text", rename_all = "snake_case")]
pub enum EnvPiece {
    /// The wrapped message, verbatim.
    Message,
    /// Literal text.
    Text(String),
    /// The message's id (inside the footer).
    Id,
}

/// What a marker of the envelope claims to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Claim {
    /// `[ENGINE op]`: an advertised op, not a call.
    Advert {
        op: String,
        engine: String,
        index: usize,
    },
    /// A structure's marker, named, not written (`[RESULT]`).
    Mention { structure: String },
    /// The footer structure, written whole with the id.
    Footer { structure: String },
}

/// A marker of one line: what it claims, where it is in the line's text
/// (the footer: the whole line).
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    pub(crate) claim: Claim,
    pub(crate) span: std::ops::Range<usize>,
    pub(crate) line: usize,
}

/// The envelope, laid out.
#[derive(Debug, Clone, Serialize)]
pub struct EnvelopeIr {
    /// The pieces: the message, then the lines.
    pub pieces: Vec<EnvPiece>,
    /// The pieces of the footer (a range of `pieces`).
    pub footer: std::ops::Range<usize>,
    /// The footer's structure key, e.g. `contract_footer`.
    pub footer_structure: String,
    /// Its Rust type and Python class.
    pub footer_type: String,
    /// Its Python class.
    pub footer_class: String,
    /// The field the id fills (Rust, Python names).
    pub footer_field: String,
    /// Its Python name.
    pub footer_py_field: String,
    /// The ops advertised, in order.
    pub advertised: Vec<String>,
    /// Where the envelope comes from.
    pub source: String,
    /// The example's id and message, and the example wrapped.
    pub example_id: String,
    /// The example message.
    pub example_message: String,
    /// The example, wrapped.
    pub example_text: String,
    #[serde(skip)]
    pub(crate) marks: Vec<Mark>,
    #[serde(skip)]
    pub(crate) line_starts: Vec<usize>,
}

impl EnvelopeIr {
    /// The text `wrap(message, id)` returns, and the byte span of the
    /// footer in it.
    pub fn render(&self, message: &str, id: &str) -> (String, std::ops::Range<usize>) {
        let mut out = String::new();
        let mut footer = 0..0;
        for (i, p) in self.pieces.iter().enumerate() {
            if i == self.footer.start {
                footer.start = out.len();
            }
            match p {
                EnvPiece::Message => out.push_str(message),
                EnvPiece::Text(t) => out.push_str(t),
                EnvPiece::Id => out.push_str(id),
            }
            if i + 1 == self.footer.end {
                footer.end = out.len();
            }
        }
        (out, footer)
    }
}
