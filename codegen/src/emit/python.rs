//! The Python emitter: the `agent_sentences` package under
//! `generated/python/`, rendered with the tera templates in
//! `codegen/templates/python/` (compiled into the generator with
//! `include_str!`, so [`crate::generate`] needs no files besides the spec).
//!
//! One function per output file. Each builds the template context from the
//! lowered model ([`Model`]): the model itself, serialized as is, plus a few
//! Python spellings (type annotations, enum names, step patterns) that the
//! templates cannot derive. Layout lives in the templates only. The modules
//! the spec does not shape are plain `.py` files, copied ([`static_py`]).

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;
use tera::{Context, Tera};

use crate::emit::header::{PY_HEADER, RUST_HEADER};
use crate::ident;
use crate::lower::{FieldIr, FieldTy, Model, SentenceIr};
use crate::options::Runtime;
use crate::template::Piece;

pub mod static_py;

/// The templates, by name, as compiled into the generator.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "macros.tera",
        include_str!("../../templates/python/macros.tera"),
    ),
    (
        "pyproject.toml.tera",
        include_str!("../../templates/python/pyproject.toml.tera"),
    ),
    (
        "py.typed.tera",
        include_str!("../../templates/python/py.typed.tera"),
    ),
    (
        "__init__.py.tera",
        include_str!("../../templates/python/__init__.py.tera"),
    ),
    (
        "patterns.py.tera",
        include_str!("../../templates/python/patterns.py.tera"),
    ),
    (
        "sentences.py.tera",
        include_str!("../../templates/python/sentences.py.tera"),
    ),
    (
        "scanner.py.tera",
        include_str!("../../templates/python/scanner.py.tera"),
    ),
    (
        "stream.py.tera",
        include_str!("../../templates/python/stream.py.tera"),
    ),
    (
        "_native.pyi.tera",
        include_str!("../../templates/python/_native.pyi.tera"),
    ),
    (
        "loops.py.tera",
        include_str!("../../templates/python/loops.py.tera"),
    ),
    (
        "ops.py.tera",
        include_str!("../../templates/python/ops.py.tera"),
    ),
    (
        "envelope.py.tera",
        include_str!("../../templates/python/envelope.py.tera"),
    ),
    (
        "native/Cargo.toml.tera",
        include_str!("../../templates/python/native/Cargo.toml.tera"),
    ),
    (
        "native/lib.rs.tera",
        include_str!("../../templates/python/native/lib.rs.tera"),
    ),
];

/// A Python string literal with the value `s`: raw (`r"…"`) when that is
/// possible and reads better, else a JSON string literal, whose escapes
/// (`\"`, `\\`, `\n`, `\uXXXX`, …) Python reads the same way.
pub fn py_str(s: &str) -> String {
    let raw_ok = s.contains('\\')
        && !s.contains('"')
        && !s
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
        && s.chars().rev().take_while(|c| *c == '\\').count() % 2 == 0;
    if raw_ok {
        format!("r\"{s}\"")
    } else {
        serde_json::to_string(s).expect("a str always serializes")
    }
}

/// Text safe inside a `"""` docstring: backslashes and quotes escaped, lines
/// after the first indented by `indent` spaces, trailing blanks removed.
pub fn py_doc(s: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let escaped = s.replace('\\', "\\\\").replace('"', "\\\"");
    escaped
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let l = l.trim_end();
            if i == 0 || l.is_empty() {
                l.to_owned()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn filter_py_str(v: &Value, _: &std::collections::HashMap<String, Value>) -> tera::Result<Value> {
    let s = v
        .as_str()
        .ok_or_else(|| tera::Error::msg("py_str takes a string"))?;
    Ok(Value::String(py_str(s)))
}

fn filter_py_doc(
    v: &Value,
    args: &std::collections::HashMap<String, Value>,
) -> tera::Result<Value> {
    let s = v
        .as_str()
        .ok_or_else(|| tera::Error::msg("py_doc takes a string"))?;
    let indent = args.get("indent").and_then(Value::as_u64).unwrap_or(4) as usize;
    Ok(Value::String(py_doc(s, indent)))
}

fn tera() -> &'static Tera {
    static TERA: OnceLock<Tera> = OnceLock::new();
    TERA.get_or_init(|| {
        let mut t = Tera::default();
        t.autoescape_on(vec![]);
        t.add_raw_templates(TEMPLATES.iter().copied())
            .expect("the Python templates parse");
        t.register_filter("py_str", filter_py_str);
        t.register_filter("py_doc", filter_py_doc);
        t
    })
}

fn render(name: &str, model: &Model) -> String {
    render_with(name, model, &[])
}

/// [`render`] with more values in the template context.
fn render_with(name: &str, model: &Model, extra: &[(&str, String)]) -> String {
    let view = view(model);
    let mut ctx = Context::from_serialize(&view).expect("the view serializes");
    for (k, v) in extra {
        ctx.insert(*k, v);
    }
    ctx.insert("header", PY_HEADER);
    ctx.insert("rust_header", RUST_HEADER);
    match tera().render(name, &ctx) {
        Ok(text) => text,
        Err(e) => {
            let mut msg = format!("template {name} failed: {e}");
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                msg.push_str(&format!(": {s}"));
                src = s.source();
            }
            panic!("{msg}")
        }
    }
}

/// The template context: the lowered model and the Python spellings.
#[derive(Serialize)]
struct View<'a> {
    model: &'a Model,
    enums: Vec<PyEnum>,
    sentences: Vec<PySentence<'a>>,
    scan: PyScan,
}

/// What the scanner module needs, in spec order: the scanned structures and
/// the directive grammar of `schema/directives.json`.
#[derive(Serialize)]
struct PyScan {
    structures: Vec<PyScanned>,
    op_pattern: String,
    engines: Vec<String>,
    /// (keyword, op, engine).
    shorthands: Vec<(String, String, String)>,
    /// (info string, engine).
    fences: Vec<(String, String)>,
    curl_path: String,
    curl_data_flags: Vec<String>,
    curl_value_options: Vec<String>,
    curl_flag_options: Vec<String>,
    curl_engine: String,
    curl_op_key: String,
    curl_args_key: String,
    /// (alias, op).
    aliases: Vec<(String, String)>,
    max_depth: usize,
    max_bytes: usize,
    /// The runtime's skip reasons (`SkipReason::ALL`), in order.
    skip_reasons: Vec<PySkipReason>,
}

/// A skip reason as the Python `SkipReason` literal and its docstring
/// write it, from the runtime's `SkipReason` (one source for both languages).
#[derive(Serialize)]
struct PySkipReason {
    /// As it serializes, e.g. `invalid-json`.
    name: &'static str,
    /// Its docstring entry, wrapped: `- ``name``: summary;` (`.` for the
    /// last), continuation lines indented by two blanks.
    doc: Vec<String>,
}

/// The docstring entries of the runtime's skip reasons.
fn skip_reasons() -> Vec<PySkipReason> {
    use agent_sentences_runtime::scan::SkipReason;
    let n = SkipReason::ALL.len();
    SkipReason::ALL
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let stop = if i + 1 == n { '.' } else { ';' };
            let text = format!(
                "- ``{}``: {}{stop}",
                r.as_str(),
                r.summary().replace('`', "``")
            );
            PySkipReason {
                name: r.as_str(),
                doc: wrap(&text, 80, "  "),
            }
        })
        .collect()
}

/// `text` broken at blanks into lines of at most `width` characters where
/// the words allow, the lines after the first starting with `indent`.
fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let start = if lines.is_empty() { "" } else { indent };
        if line.len() > start.len() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
            line.push_str(indent);
        } else if line.len() > start.len() {
            line.push(' ');
        } else if line.is_empty() {
            line.push_str(start);
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// One structure the scanner matches (as Rust's `StructureScan`).
#[derive(Serialize)]
struct PyScanned {
    key: String,
    head: String,
    source: String,
    class: String,
    /// `True` or `False`.
    quotes: &'static str,
}

#[derive(Serialize)]
struct PyEnum {
    /// The `Literal[...]` alias name.
    name: String,
    /// The tuple of values, e.g. `STATUS_VALUES`.
    values_const: String,
    /// The text → value map, e.g. `_STATUS_BY_TEXT`.
    lookup_const: String,
    description: String,
    group: String,
    pattern: String,
    values: Vec<String>,
}

#[derive(Serialize)]
struct PySentence<'a> {
    ir: &'a SentenceIr,
    /// The constant name of the bound pattern in `patterns.py`.
    pattern_const: String,
    /// `(pattern, expected)`: the step prefixes, flags first, for `re.match`.
    steps: Vec<(String, String)>,
    fields: Vec<PyField<'a>>,
    /// Template segments with each field piece resolved to its field.
    segments: Vec<PySegment>,
}

#[derive(Serialize)]
struct PyField<'a> {
    ir: &'a FieldIr,
    /// `string`, `integer`, `enum` or `json_object`.
    kind: &'static str,
    /// The annotation without `| None`.
    base: String,
    /// The full annotation.
    annotation: String,
    /// For enums: the lookup map's name.
    lookup: Option<String>,
    /// For enums: the allowed texts.
    values: Vec<String>,
}

#[derive(Serialize)]
struct PySegment {
    /// The attribute of the optional field owning the segment, if any.
    optional: Option<String>,
    pieces: Vec<PyPiece>,
}

#[derive(Serialize)]
struct PyPiece {
    /// Literal text, or `None` for a field.
    literal: Option<String>,
    /// The field's attribute.
    attr: Option<String>,
    /// The field's kind, as in [`PyField::kind`].
    kind: Option<&'static str>,
}

fn enum_py_name(rust_name: &str) -> String {
    ident::python_class(rust_name)
}

/// The spec's name of a field's type (`FieldInfo.kind`).
fn field_kind(ty: &FieldTy) -> &'static str {
    ty.value_type().as_str()
}

fn view(model: &Model) -> View<'_> {
    let enums = model
        .enums
        .iter()
        .map(|e| {
            let name = enum_py_name(&e.name);
            let upper = ident::constant(&e.name);
            PyEnum {
                values_const: format!("{upper}_VALUES"),
                lookup_const: format!("_{upper}_BY_TEXT"),
                name,
                description: e.description.clone(),
                group: e.group.clone(),
                pattern: e.pattern.clone(),
                values: e.variants.iter().map(|(_, v)| v.clone()).collect(),
            }
        })
        .collect::<Vec<_>>();
    let sentences = model
        .sentences
        .iter()
        .map(|s| {
            let fields = s
                .fields
                .iter()
                .map(|f| {
                    let base = f.ty.spelling().python;
                    let (lookup, values) = match &f.ty {
                        FieldTy::Enum(_) => {
                            let e = enums
                                .iter()
                                .find(|e| e.name == base)
                                .expect("lowered enums are listed");
                            (Some(e.lookup_const.clone()), e.values.clone())
                        }
                        _ => (None, Vec::new()),
                    };
                    let annotation = if f.required {
                        base.clone()
                    } else {
                        format!("{base} | None")
                    };
                    PyField {
                        ir: f,
                        kind: field_kind(&f.ty),
                        base,
                        annotation,
                        lookup,
                        values,
                    }
                })
                .collect::<Vec<_>>();
            let attr_of = |name: &str| {
                s.fields
                    .iter()
                    .find(|f| f.name == name)
                    .expect("lowered segments name fields")
            };
            let segments = s
                .segments
                .iter()
                .map(|seg| PySegment {
                    optional: seg.optional.as_deref().map(|o| attr_of(o).py_name.clone()),
                    pieces: seg
                        .pieces
                        .iter()
                        .map(|p| match p {
                            Piece::Literal(l) => PyPiece {
                                literal: Some(l.clone()),
                                attr: None,
                                kind: None,
                            },
                            Piece::Field(f) => {
                                let f = attr_of(f);
                                PyPiece {
                                    literal: None,
                                    attr: Some(f.py_name.clone()),
                                    kind: Some(field_kind(&f.ty)),
                                }
                            }
                        })
                        .collect(),
                })
                .collect();
            let steps = s
                .steps
                .iter()
                .map(|st| {
                    (
                        format!("{}{}", s.flag_prefix, st.prefix),
                        st.expected.clone(),
                    )
                })
                .collect();
            let pattern_const = model
                .patterns
                .iter()
                .find(|p| p.key == s.pattern_key)
                .map(|p| p.const_name.clone())
                .expect("lowered sentences bind lowered patterns");
            PySentence {
                ir: s,
                pattern_const,
                steps,
                fields,
                segments,
            }
        })
        .collect();
    View {
        model,
        enums,
        sentences,
        scan: scan_view(model),
    }
}

fn scan_view(model: &Model) -> PyScan {
    let d = &model.directives;
    let pairs = |m: &indexmap::IndexMap<String, String>| {
        m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    PyScan {
        structures: model
            .sentences
            .iter()
            .filter(|s| s.scanned)
            .map(|s| PyScanned {
                key: s.key.clone(),
                head: s.head.clone(),
                source: s.scan_source.clone(),
                class: s.py_class.clone(),
                quotes: if s.quotes_brackets { "True" } else { "False" },
            })
            .collect(),
        op_pattern: d.op_pattern.clone(),
        engines: d.bracket.engines.clone(),
        shorthands: d
            .shorthands
            .iter()
            .map(|(k, v)| (k.clone(), v.op.clone(), v.engine.clone()))
            .collect(),
        fences: pairs(&d.fences.info_strings),
        curl_path: d.curl.path.clone(),
        curl_data_flags: d.curl.data_flags.clone(),
        curl_value_options: d.curl.value_options.clone(),
        curl_flag_options: d.curl.flag_options.clone(),
        curl_engine: d.curl.engine.clone(),
        curl_op_key: d.curl.op_key.clone(),
        curl_args_key: d.curl.args_key.clone(),
        aliases: pairs(&d.aliases),
        max_depth: d.limits.max_json_depth,
        max_bytes: d.limits.max_args_bytes,
        skip_reasons: skip_reasons(),
    }
}

/// `generated/python/pyproject.toml`: makes `pip install generated/python` work.
pub fn pyproject_toml(model: &Model) -> String {
    render("pyproject.toml.tera", model)
}

/// `generated/python/agent_sentences/py.typed`: the PEP 561 marker.
pub fn py_typed(model: &Model) -> String {
    render("py.typed.tera", model)
}

/// `generated/python/agent_sentences/__init__.py`: the public API.
pub fn init_py(model: &Model) -> String {
    render("__init__.py.tera", model)
}

/// `generated/python/agent_sentences/errors.py`: `ParseError` and its kinds.
pub fn errors_py(model: &Model) -> String {
    // The article of each structure key, as the runtime's `ParseError`
    // writes it (one rule for both languages, P282).
    let articles: Vec<String> = model
        .sentences
        .iter()
        .map(|s| {
            format!(
                "{:?}: {:?}",
                s.key,
                agent_sentences_runtime::ParseError::article(&s.key)
            )
        })
        .collect();
    static_py::module(
        "errors.py",
        &[("articles", format!("{{{}}}", articles.join(", ")))],
    )
}

/// `generated/python/agent_sentences/strict_json.py`: strict tool-argument
/// JSON, as `runtime/src/json/` reads and writes it.
pub fn strict_json_py(_model: &Model) -> String {
    static_py::module("strict_json.py", &[])
}

/// `generated/python/agent_sentences/patterns.py`: the pattern constants.
pub fn patterns_py(model: &Model) -> String {
    render("patterns.py.tera", model)
}

/// `generated/python/agent_sentences/scanner.py`: the result dataclasses and
/// `scan`, `scan_with_diagnostics`, `scan_many`, which call the native
/// module (the Rust scanner).
pub fn scanner_py(model: &Model) -> String {
    render("scanner.py.tera", model)
}

/// `generated/python/agent_sentences/stream.py`: `scan_stream` (the native
/// module's stream: the Rust engine) and the adapters over model response
/// streams, `scan_deltas` and `ascan_deltas`.
pub fn stream_py(model: &Model) -> String {
    render("stream.py.tera", model)
}

/// `generated/python/agent_sentences/loops.py`: the loop tracker's typed
/// Python API over the native one; `None` when the spec has no `loops.json`.
pub fn loops_py(model: &Model) -> Option<String> {
    model
        .machine
        .is_some()
        .then(|| render("loops.py.tera", model))
}

/// `generated/python/agent_sentences/harvest.py`: message logs to Parquet
/// (`python -m agent_sentences.harvest`), on the native row scan; PyArrow and
/// Dask are optional dependencies it imports only when it runs.
pub fn harvest_py(_model: &Model) -> String {
    static_py::module("harvest.py", &[])
}

/// `generated/python/agent_sentences/ops.py`: the op catalogue, a typed
/// argument dataclass per runnable op and `resolve` over the native one;
/// `None` when the spec has no `ops.json`.
pub fn ops_py(model: &Model) -> Option<String> {
    model.ops.is_some().then(|| render("ops.py.tera", model))
}

/// `generated/python/agent_sentences/envelope.py`: the prompt envelope and
/// `wrap` (nothing without `schema/envelope.json`).
pub fn envelope_py(model: &Model) -> Option<String> {
    model
        .envelope
        .is_some()
        .then(|| render("envelope.py.tera", model))
}

/// `generated/python/agent_sentences/_native.pyi`: the types of the private
/// compiled module.
pub fn native_pyi(model: &Model) -> String {
    render("_native.pyi.tera", model)
}

/// `generated/python/native/Cargo.toml`: the PyO3 binding crate maturin
/// builds into `agent_sentences._native`. The runtime is named as the
/// generated Rust crate's manifest names it ([`Runtime::dependency`]: a path
/// relative to `<out>/rust`, or absolute; by version only, P103); this crate
/// lies one folder deeper.
pub fn native_cargo_toml(model: &Model, runtime: &Runtime) -> String {
    let (version, path) = runtime.dependency();
    let toml_str = crate::emit::rust::manifest::toml_str;
    let version = toml_str(&version);
    let runtime = match path {
        Some(p) => {
            let p = if std::path::Path::new(&p).is_absolute() {
                p
            } else {
                format!("../{p}")
            };
            format!(
                "{{ version = {version}, path = {}, features = [\"python\"] }}",
                toml_str(&p)
            )
        }
        None => format!("{{ version = {version}, features = [\"python\"] }}"),
    };
    render_with(
        "native/Cargo.toml.tera",
        model,
        &[("runtime_dependency", runtime)],
    )
}

/// `generated/python/native/src/lib.rs`: the binding crate's `#[pymodule]`,
/// one call into `agent_sentences_runtime::python` per function.
pub fn native_lib_rs(model: &Model) -> String {
    render("native/lib.rs.tera", model)
}

/// `generated/python/agent_sentences/sentences.py`: one frozen dataclass per
/// structure, the enumerations, the structure metadata and `parse`.
pub fn sentences_py(model: &Model) -> String {
    render("sentences.py.tera", model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_string_literals() {
        assert_eq!(py_str(r"\[A\]"), r#"r"\[A\]""#);
        assert_eq!(py_str("plain"), r#""plain""#);
        assert_eq!(py_str("a\"b\\"), r#""a\"b\\""#);
        assert_eq!(py_str("tab\there\\"), "\"tab\\there\\\\\"");
        assert_eq!(py_str(r"ends\\"), r#"r"ends\\""#);
        assert_eq!(py_str(r"ends\"), r#""ends\\""#);
    }

    #[test]
    fn docstrings_are_escaped_and_indented() {
        assert_eq!(
            py_doc("a \"\"\" b\\\nnext  \n\nlast", 4),
            "a \\\"\\\"\\\" b\\\\\n    next\n\n    last"
        );
    }
}
