//! Names that become identifiers: every structure key, pattern key, field
//! name, enum group and value, and op name is checked against what the
//! emitters derive from it ([`crate::ident`], `emit/rust/`,
//! `emit/python.rs` and the Python templates), so a spec the lint accepts
//! generates code without a panic and without two items of one name.
//!
//! Three findings, each located at the name:
//! - `name-not-identifier`: the name cannot be spelled as an identifier as
//!   written. Structure keys, pattern keys and field names are used raw in
//!   generated identifiers (`parse_<key>`, `pattern_<key>_examples`,
//!   `v_<field>`), so they are lower-case snake_case, `[a-z][a-z0-9_]*` (as
//!   an op's argument keys are); an enum group's name likewise; an enum
//!   value starts with an ASCII letter and holds letters, digits, `_` and
//!   `-` (`NO-ACTION`); an op name is snake_case words joined by `.` or `-`.
//! - `name-is-keyword`: a derived identifier (snake_case or UpperCamelCase)
//!   is a Rust keyword (strict, reserved or weak) or a Python keyword or
//!   soft keyword (for an op or an enum value, only its Rust variant, the
//!   one identifier made of it: `box.exec` is `BoxExec`); a field name is also none of the names a generated
//!   Python sentence class holds or names at class scope (`parse`,
//!   `render`, `str`, `cls`, …: [`PYTHON_CLASS_SCOPE`]).
//! - `name-collision`: two names derive one identifier where the emitters
//!   put both in one namespace: Rust top-level types (structures and enums),
//!   Python classes and aliases (likewise), structure and pattern constants
//!   and functions, the fields of one structure, the variants of one enum,
//!   the ops' variants. A name is reported once, in the first namespace
//!   where it collides.

use std::collections::HashMap;

use heck::{ToSnakeCase, ToUpperCamelCase};

use crate::diagnostic::{Diagnostic, Severity, WithHint};
use crate::ident;
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::model::GroupType;

/// Rust's strict, reserved and weak keywords (2015 to 2024 editions).
pub const RUST_KEYWORDS: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "crate",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "async",
    "await",
    "dyn",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "try",
    "gen",
    "union",
    "macro_rules",
    "raw",
    "safe",
];

/// Python's keywords and soft keywords.
pub const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type",
];

/// The names a generated Python sentence class (`templates/python/
/// sentences.py.tera`) defines or reads at class scope, where a field of
/// the same name would replace them: its methods, the classmethods' first
/// parameter, and the builtins and module its annotations name.
pub const PYTHON_CLASS_SCOPE: &[&str] = &[
    "parse",
    "from_match",
    "render",
    "to_dict",
    "to_sentence_dict",
    "cls",
    "self",
    "str",
    "int",
    "dict",
    "list",
    "re",
];

const S: SpecFile = SpecFile::Structures;
const P: SpecFile = SpecFile::Patterns;
const O: SpecFile = SpecFile::Ops;

/// `[a-z][a-z0-9_]*`.
fn snake_word(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// An ASCII letter, then letters, digits, `_` and `-`.
fn enum_value(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `snake_word`s joined by `.` or `-`.
fn op_name(name: &str) -> bool {
    name.split(['.', '-']).all(snake_word)
}

/// The keyword an identifier derived from `name` would be, if any.
fn keyword(name: &str) -> Option<String> {
    [name.to_snake_case(), name.to_upper_camel_case()]
        .into_iter()
        .find(|id| RUST_KEYWORDS.contains(&id.as_str()) || PYTHON_KEYWORDS.contains(&id.as_str()))
}

/// One name the checks look at.
struct Name<'a> {
    file: SpecFile,
    pointer: String,
    /// What it is, for messages: `structure key`, `field`, ….
    what: &'static str,
    name: &'a str,
}

/// Identifiers of one namespace, each with the name that took it first.
struct Namespace {
    what: &'static str,
    taken: HashMap<String, (String, &'static str)>,
}

impl Namespace {
    fn new(what: &'static str) -> Self {
        Namespace {
            what,
            taken: HashMap::new(),
        }
    }

    /// Takes `id` for `n`; a `name-collision` (and false) when another
    /// name has it.
    fn take(&mut self, spec: &Spec, id: String, n: &Name<'_>, out: &mut Vec<Diagnostic>) -> bool {
        let free = !self.taken.contains_key(&id);
        match self.taken.get(&id) {
            Some((first, what)) => out.push(
                spec.diag(
                    Severity::Error,
                    "name-collision",
                    n.file,
                    &n.pointer,
                    format!(
                        "{} `{}` becomes the {} `{id}`, as {what} `{first}` does: the generated code would hold two of that name",
                        n.what, n.name, self.what
                    ),
                )
                .with_hint("rename one of the two"),
            ),
            None => {
                self.taken.insert(id, (n.name.to_owned(), n.what));
            }
        }
        free
    }
}

/// The types and classes the generated code defines whatever the spec
/// holds (the crate root of `generated/rust`, `sentences.py`): a structure
/// whose type would take one of these names is a `name-collision`.
pub const GENERATED_TYPES: &[&str] = &[
    "Call",
    "Capture",
    "FieldInfo",
    "Found",
    "GroupInfo",
    "JsonObject",
    "MatchExample",
    "Op",
    "ParseError",
    "ParseErrorKind",
    "PatternInfo",
    "Sentence",
    "SentenceKind",
    "UnknownValue",
    "ValueType",
];

/// Every `name-not-identifier`, `name-is-keyword` and `name-collision`
/// finding of the spec (see the module documentation).
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut types = Namespace::new("Rust type");
    let mut classes = Namespace::new("Python class");
    for fixed in GENERATED_TYPES {
        let own = ((*fixed).to_owned(), "the generated code's own type");
        types.taken.insert((*fixed).to_owned(), own.clone());
        classes.taken.insert((*fixed).to_owned(), own);
    }
    let mut consts = Namespace::new("structure constant");
    for (key, st) in &spec.structures.structures {
        let n = Name {
            file: S,
            pointer: child("/structures", key),
            what: "structure key",
            name: key,
        };
        if spelled(spec, &n, Form::Snake, &mut out) {
            // One finding a name: the first namespace where it collides.
            let _ = types.take(spec, ident::rust_item_type(key), &n, &mut out)
                && classes.take(spec, ident::python_class(key), &n, &mut out)
                && consts.take(spec, ident::constant(key), &n, &mut out);
        }
        let mut rust_fields = Namespace::new("Rust field");
        let mut py_fields = Namespace::new("Python attribute");
        for (list, fields) in [
            ("required_fields", &st.required_fields),
            ("optional_fields", &st.optional_fields),
        ] {
            for (i, f) in fields.iter().enumerate() {
                let n = Name {
                    file: S,
                    pointer: format!("{}/{list}/{i}", child("/structures", key)),
                    what: "field",
                    name: f,
                };
                if !spelled(spec, &n, Form::Snake, &mut out) {
                    continue;
                }
                if PYTHON_CLASS_SCOPE.contains(&f.as_str()) {
                    out.push(
                        spec.diag(
                            Severity::Error,
                            "name-is-keyword",
                            S,
                            &n.pointer,
                            format!("field `{f}` would replace the `{f}` that the generated Python class defines or names at class scope"),
                        )
                        .with_hint("rename the field"),
                    );
                    continue;
                }
                let _ = rust_fields.take(spec, ident::rust_field(f), &n, &mut out)
                    && py_fields.take(spec, ident::python_field(f), &n, &mut out);
            }
        }
    }
    let mut enum_groups = std::collections::HashSet::new();
    let mut pattern_consts = Namespace::new("pattern constant");
    let mut pattern_fns = Namespace::new("pattern function");
    for (key, p) in &spec.patterns.patterns {
        let base = child("/patterns", key);
        let n = Name {
            file: P,
            pointer: base.clone(),
            what: "pattern key",
            name: key,
        };
        if spelled(spec, &n, Form::Snake, &mut out) {
            let _ = pattern_consts.take(spec, ident::constant(key), &n, &mut out)
                && pattern_fns.take(spec, ident::rust_field(key), &n, &mut out);
        }
        for (g, group) in &p.groups {
            if group.ty != GroupType::Enum {
                continue;
            }
            let gptr = child(&child(&base, "groups"), g);
            let n = Name {
                file: P,
                pointer: gptr.clone(),
                what: "enum group",
                name: g,
            };
            // One enum per group name, however many patterns hold it.
            if enum_groups.insert(g.as_str()) && spelled(spec, &n, Form::Snake, &mut out) {
                let rust = ident::rust_item_type(g);
                let _ = types.take(spec, rust.clone(), &n, &mut out)
                    && classes.take(spec, ident::python_class(&rust), &n, &mut out);
            }
            let mut variants = Namespace::new("Rust enum variant");
            for (i, v) in group.values.iter().flatten().enumerate() {
                let n = Name {
                    file: P,
                    pointer: format!("{gptr}/values/{i}"),
                    what: "enum value",
                    name: v,
                };
                if spelled(spec, &n, Form::EnumValue, &mut out) {
                    let _ = variants.take(spec, ident::rust_type(&v.to_lowercase()), &n, &mut out);
                }
            }
        }
    }
    if let Some(ops) = &spec.ops {
        let mut variants = Namespace::new("Rust op variant");
        for name in ops.ops.keys() {
            let n = Name {
                file: O,
                pointer: child("/ops", name),
                what: "op",
                name,
            };
            if spelled(spec, &n, Form::Op, &mut out) {
                let _ = variants.take(
                    spec,
                    ident::rust_type(&name.replace(['.', '-'], "_")),
                    &n,
                    &mut out,
                );
            }
        }
    }
    out
}

/// How a name is spelled and which of its derived identifiers may be
/// keywords.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `[a-z][a-z0-9_]*`, used raw and as snake_case and UpperCamelCase
    /// identifiers in both languages.
    Snake,
    /// An enum value: only its Rust variant (UpperCamelCase) is an identifier.
    EnumValue,
    /// An op name: only its Rust variant is an identifier.
    Op,
}

/// True when `n` is spelled as `form` asks and derives no keyword;
/// otherwise reports why.
fn spelled(spec: &Spec, n: &Name<'_>, form: Form, out: &mut Vec<Diagnostic>) -> bool {
    let (ok, rule) = match form {
        Form::Snake => (
            snake_word(n.name),
            "lower-case snake_case (`[a-z][a-z0-9_]*`)",
        ),
        Form::EnumValue => (
            enum_value(n.name),
            "an ASCII letter, then letters, digits, `_` or `-`",
        ),
        Form::Op => (
            op_name(n.name),
            "lower-case snake_case words (`[a-z][a-z0-9_]*`) joined by `.` or `-`",
        ),
    };
    if !ok {
        out.push(
            spec.diag(
                Severity::Error,
                "name-not-identifier",
                n.file,
                &n.pointer,
                format!(
                    "{} {:?} cannot be written as a Rust and Python identifier: it must be {rule}",
                    n.what, n.name
                ),
            )
            .with_hint("names become generated identifiers as written"),
        );
        return false;
    }
    let kw = match form {
        Form::Snake => keyword(n.name),
        Form::EnumValue | Form::Op => {
            let variant = n
                .name
                .to_lowercase()
                .replace(['.', '-'], "_")
                .to_upper_camel_case();
            RUST_KEYWORDS.contains(&variant.as_str()).then_some(variant)
        }
    };
    if let Some(k) = kw {
        out.push(
            spec.diag(
                Severity::Error,
                "name-is-keyword",
                n.file,
                &n.pointer,
                format!(
                    "{} `{}` becomes the identifier `{k}`, a Rust or Python keyword",
                    n.what, n.name
                ),
            )
            .with_hint("rename it: a keyword cannot be written as a name"),
        );
        return false;
    }
    true
}
