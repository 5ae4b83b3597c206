//! Stage 3, lower: from the checked spec to the intermediate model the
//! emitters read — sentences with typed fields, template segments, bound
//! patterns and enumerations.
//!
//! [`lower`] builds the whole model once: the sentences, then the envelope
//! laid out over them ([`envelope`]), then the decoding grammars
//! ([`crate::grammar`]) of the structures the checks left intact; nothing
//! changes the model after it. Its types are in [`ir`].
//!
//! Lowering assumes [`crate::check::check`] found no error in what it
//! lowers; where the spec is inconsistent anyway it skips the offending
//! piece rather than panic.

pub mod envelope;
pub mod ir;

use std::collections::BTreeSet;

use agent_sentences_runtime::json::Limits;
use agent_sentences_runtime::scan::DirectiveSpec;

use crate::diagnostic::Diagnostic;
use crate::ident;
use crate::lifecycle::Lifecycle;
use crate::load::Spec;
use crate::model::GroupType;
use crate::pattern;
use crate::template::{self, Piece};

pub use ir::*;

pub use crate::load::bound_pattern;

/// The part of `example` that is a sentence of the pattern `source` (flags +
/// pattern): the whole example when it matches in full, else the longest
/// match at its start, else `None`.
pub fn sentence_part(example: &str, source: &str) -> Option<String> {
    let full = regex::Regex::new(&format!(r"\A(?:{source})\z")).ok()?;
    if full.is_match(example) {
        return Some(example.to_owned());
    }
    let start = regex::Regex::new(&format!(r"\A(?:{source})")).ok()?;
    start.find(example).map(|m| m.as_str().to_owned())
}

/// The entry `/<table>/<key>` of a spec file's text, pretty-printed with its
/// keys in written order; empty when the text or the entry is missing.
fn entry_json(text: &str, table: &str, key: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get(table).and_then(|t| t.get(key)).cloned())
        .and_then(|entry| serde_json::to_string_pretty(&entry).ok())
        .unwrap_or_default()
}

/// The whole lowered model, and the findings of lowering it.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// The model every emitter reads.
    pub model: Model,
    /// What lowering found: the envelope's layout faults (the model then has
    /// no envelope) and the patterns no grammar can express
    /// (`grammar-inexpressible`).
    pub diags: Vec<Diagnostic>,
}

/// Lowers a checked spec into the whole model, once. `intact`: the
/// structures the checks proved intact ([`crate::check::Checked::intact`]),
/// the ones the grammars are lowered from (all of them when the spec has no
/// error, the only case in which anything is emitted).
pub fn lower(spec: &Spec, intact: &BTreeSet<String>) -> Lowered {
    let core = sentences(spec);
    let (envelope, mut diags) = match spec.envelope {
        Some(_) => envelope::layout(spec, &core),
        None => (None, Vec::new()),
    };
    let mut only_intact = core.clone();
    only_intact.sentences.retain(|s| intact.contains(&s.key));
    let (grammars, grammar_diags) = crate::grammar::lower(spec, &only_intact);
    diags.extend(grammar_diags);
    Lowered {
        model: Model {
            envelope,
            grammars,
            ..core
        },
        diags,
    }
}

/// The directive grammar as the runtime's scanner reads it.
fn directive_spec(d: &crate::model::DirectivesFile) -> DirectiveSpec {
    let pairs = |m: &indexmap::IndexMap<String, String>| {
        m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    DirectiveSpec {
        op_pattern: d.op_pattern.clone(),
        bracket_engines: d.bracket.engines.clone(),
        shorthands: d
            .shorthands
            .iter()
            .map(|(k, v)| (k.clone(), v.op.clone(), v.engine.clone()))
            .collect(),
        fences: pairs(&d.fences.info_strings),
        curl: d.curl.clone(),
        aliases: pairs(&d.aliases),
        limits: Limits {
            max_depth: d.limits.max_json_depth,
            max_bytes: d.limits.max_args_bytes,
        },
    }
}

/// The model without the envelope and the grammars: the patterns, the
/// sentences, the enumerations, the lifecycle, the loop machine and the op
/// catalogue.
fn sentences(spec: &Spec) -> Model {
    let mut patterns = Vec::new();
    let mut enums: Vec<EnumIr> = Vec::new();
    for (key, p) in &spec.patterns.patterns {
        let analysis = pattern::analyze(&p.pattern, &p.flags).unwrap_or_default();
        let mut groups = Vec::new();
        for ng in &analysis.groups {
            let Some(g) = p.groups.get(&ng.name) else {
                continue;
            };
            let enum_name = (g.ty == GroupType::Enum).then(|| ident::rust_item_type(&ng.name));
            if let Some(name) = &enum_name {
                if !enums.iter().any(|e| &e.name == name) {
                    enums.push(EnumIr {
                        name: name.clone(),
                        group: ng.name.clone(),
                        pattern: key.clone(),
                        description: g.description.clone(),
                        variants: g
                            .values
                            .clone()
                            .unwrap_or_default()
                            .into_iter()
                            .map(|v| (ident::rust_type(&v.to_lowercase()), v))
                            .collect(),
                    });
                }
            }
            groups.push(GroupIr {
                name: ng.name.clone(),
                description: g.description.clone(),
                ty: g.ty,
                values: g.values.clone().unwrap_or_default(),
                field: g.field.clone().unwrap_or_else(|| ng.name.clone()),
                enum_name,
                inner: ng.inner.clone(),
            });
        }
        patterns.push(PatternIr {
            key: key.clone(),
            const_name: ident::constant(key),
            purpose: p.purpose.clone(),
            pattern: p.pattern.clone(),
            flags: p.flags.clone(),
            source: format!("{}{}", pattern::flag_prefix(&p.flags), p.pattern),
            seed_pattern: p.seed_pattern.clone(),
            groups,
            matches: p.matches.clone(),
            non_matches: p.non_matches.clone(),
            spec_json: entry_json(&spec.patterns_text, "patterns", key),
        });
    }

    let mut sentences = Vec::new();
    for (key, s) in &spec.structures.structures {
        let pkey = bound_pattern(spec, key).to_owned();
        let Some(pir) = patterns.iter().find(|p| p.key == pkey) else {
            continue;
        };
        let p = &spec.patterns.patterns[&pkey];
        let analysis = pattern::analyze(&p.pattern, &p.flags).unwrap_or_default();
        let binding = spec.patterns.bindings.get(key);
        let fixed: Vec<(String, String)> = binding
            .map(|b| {
                b.fixed
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let all_fields = s
            .required_fields
            .iter()
            .map(|f| (f, true))
            .chain(s.optional_fields.iter().map(|f| (f, false)));
        let mut fields = Vec::new();
        let mut omitted = Vec::new();
        for (fname, required) in all_fields {
            let groups: Vec<&GroupIr> = pir
                .groups
                .iter()
                .filter(|g| &g.field == fname && !fixed.iter().any(|(fg, _)| fg == &g.name))
                .collect();
            let Some(first) = groups.first() else {
                omitted.push(fname.clone());
                continue;
            };
            let ng = analysis.groups.iter().find(|n| n.name == first.name);
            let derived_from = ng
                .and_then(|n| n.ancestors.last())
                .and_then(|anc| pir.groups.iter().find(|g| &g.name == anc))
                .map(|g| g.field.clone());
            fields.push(FieldIr {
                name: fname.clone(),
                rust_name: ident::rust_field(fname),
                py_name: ident::python_field(fname),
                ty: match first.ty {
                    GroupType::String => FieldTy::String,
                    GroupType::Integer => FieldTy::Integer,
                    GroupType::Enum => FieldTy::Enum(first.enum_name.clone().unwrap_or_default()),
                    GroupType::JsonObject => FieldTy::JsonObject,
                },
                required,
                description: first.description.clone(),
                groups: groups.iter().map(|g| g.name.clone()).collect(),
                derived_from,
                inner: first.inner.clone(),
            });
        }
        let unbound_groups = pir
            .groups
            .iter()
            .filter(|g| {
                !fixed.iter().any(|(fg, _)| fg == &g.name)
                    && !fields.iter().any(|f| f.groups.contains(&g.name))
            })
            .map(|g| g.name.clone())
            .collect();
        let pieces = template::parse(&s.template).unwrap_or_default();
        let pieces: Vec<Piece> = pieces
            .into_iter()
            .filter(|p| match p {
                Piece::Field(f) => fields.iter().any(|x| &x.name == f),
                Piece::Literal(_) => true,
            })
            .collect();
        let segments = template::segments(&pieces, |f| {
            fields.iter().any(|x| x.name == f && !x.required)
        });
        let example_sentence =
            sentence_part(&s.example, &pir.source).unwrap_or_else(|| s.example.clone());
        let example_captures = p
            .matches
            .iter()
            .find(|m| m.text == example_sentence)
            .map(|m| m.captures.clone())
            .unwrap_or_default();
        sentences.push(SentenceIr {
            key: key.clone(),
            type_name: ident::rust_item_type(key),
            py_class: ident::python_class(key),
            const_name: ident::constant(key),
            name: s.name.clone(),
            tag: s.protocol_tag.clone(),
            template: s.template.clone(),
            description: s.description.clone(),
            reply_expectation: s.reply_expectation.clone(),
            lifecycle_transition: s.lifecycle_transition.clone(),
            example: s.example.clone(),
            example_sentence,
            regex_ref: s.regex_ref.clone(),
            pattern_key: pkey.clone(),
            binding_note: binding.and_then(|b| b.note.clone()),
            source: pir.source.clone(),
            flag_prefix: pattern::flag_prefix(&p.flags),
            omitted_fields: omitted,
            segments,
            fixed: fixed.clone(),
            unbound_groups,
            steps: analysis.steps.clone(),
            example_captures,
            scanned: !fields.iter().any(|f| f.ty == FieldTy::JsonObject),
            scan_source: format!(
                "{}{}",
                pattern::flag_prefix(&p.flags),
                pattern::with_fixed_groups(&p.pattern, &fixed)
            ),
            head: pattern::head(&p.pattern, &fixed),
            tail_split: pattern::tail_split(&pattern::with_fixed_groups(&p.pattern, &fixed)).map(
                |(g, before, inner, trailer)| {
                    let flags = pattern::flag_prefix(&p.flags);
                    (
                        g,
                        format!("{flags}{before}"),
                        format!("{flags}{inner}"),
                        trailer,
                    )
                },
            ),
            quotes_brackets: binding.is_some_and(|b| b.quotes_brackets),
            spec_json: entry_json(&spec.structures_text, "structures", key),
            fields,
        });
    }
    let lifecycle = Lifecycle::build(
        sentences
            .iter()
            .map(|s| (s.key.as_str(), s.lifecycle_transition.as_str())),
    );
    Model {
        title: spec.structures.title.clone(),
        version: spec.structures.version.clone(),
        surface: spec.structures.surface.clone(),
        patterns_title: spec.patterns.title.clone(),
        patterns_version: spec.patterns.version.clone(),
        patterns,
        sentences,
        enums,
        directives: spec.directives.clone(),
        directive_spec: directive_spec(&spec.directives),
        lifecycle,
        machine: crate::loops::lower(spec),
        ops: crate::ops::lower(spec),
        envelope: None,
        grammars: Default::default(),
    }
}
