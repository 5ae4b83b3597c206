//! Stage 3b, the examples: after lowering, each structure's example is
//! parsed and rendered through the lowered model the way the generated code
//! parses and renders it (the reference parser, [`reference_parse`]), and
//! checked against the spec's declared matches. It reads the IR and the spec
//! and is read by nothing the IR is built from, so the stages stay one-way:
//! load → check → lower → examples, then emit.

use std::collections::BTreeSet;

use indexmap::IndexMap;
use regex::Regex;

use crate::diagnostic::{Diagnostic, Severity, WithHint};
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::lower::{FieldTy, Model, SentenceIr};
use crate::template;

const S: SpecFile = SpecFile::Structures;

/// Parses `text` as sentence `s` the way the generated code does, giving each
/// field's canonical text (`None` when absent).
///
/// # Errors
/// A message saying why the text is not such a sentence.
pub fn reference_parse(
    s: &SentenceIr,
    text: &str,
) -> Result<IndexMap<String, Option<String>>, String> {
    reference_parse_within(s, text, usize::MAX)
}

/// As [`reference_parse`], with JSON object fields limited to `max_json_bytes`
/// bytes, as the generated parsers limit tool arguments (P83).
///
/// # Errors
/// A message saying why the text is not such a sentence.
pub fn reference_parse_within(
    s: &SentenceIr,
    text: &str,
    max_json_bytes: usize,
) -> Result<IndexMap<String, Option<String>>, String> {
    let re = Regex::new(&format!(r"\A(?:{})\z", s.source)).map_err(|e| e.to_string())?;
    let caps = re.captures(text).ok_or("no full match")?;
    for (g, v) in &s.fixed {
        let got = caps.name(g).map(|m| m.as_str());
        if got != Some(v.as_str()) {
            return Err(format!("group `{g}` is {got:?}, not `{v}`"));
        }
    }
    for g in &s.unbound_groups {
        if caps.name(g).is_some() {
            return Err(format!("group `{g}` takes part but fills no field"));
        }
    }
    let mut out = IndexMap::new();
    for f in &s.fields {
        let vals: Vec<&str> = f
            .groups
            .iter()
            .filter_map(|g| caps.name(g).map(|m| m.as_str()))
            .collect();
        if vals.windows(2).any(|w| w[0] != w[1]) {
            return Err(format!("repeats of `{}` differ", f.name));
        }
        let v = match (vals.first(), &f.ty) {
            (None, _) if f.required => {
                return Err(format!("required field `{}` is absent", f.name))
            }
            (None, _) => None,
            (Some(v), FieldTy::Integer) => Some(
                v.parse::<u32>()
                    .map_err(|e| format!("`{}`: {e}", f.name))?
                    .to_string(),
            ),
            (Some(v), FieldTy::JsonObject) => Some(agent_sentences_runtime::json::render_object(
                &agent_sentences_runtime::json::parse_object_with(
                    v,
                    agent_sentences_runtime::json::Limits {
                        max_bytes: max_json_bytes,
                        ..Default::default()
                    },
                )
                .map_err(|e| format!("`{}`: {e}", f.name))?,
            )),
            (Some(v), _) => Some((*v).to_owned()),
        };
        out.insert(f.name.clone(), v);
    }
    Ok(out)
}

/// Renders field values through a sentence's template segments.
pub fn reference_render(s: &SentenceIr, values: &IndexMap<String, Option<String>>) -> String {
    template::render(&s.segments, |f| values.get(f).and_then(|v| v.as_deref()))
}

/// Checks the lowered model against the examples of the structures in
/// `intact` (those the checks proved intact, [`crate::check::Checked::intact`]).
pub fn check_model(spec: &Spec, model: &Model, intact: &BTreeSet<String>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for s in model.sentences.iter().filter(|s| intact.contains(&s.key)) {
        let eptr = child(&child("/structures", &s.key), "example");
        if s.example_sentence != s.example {
            if s.example.starts_with(&s.example_sentence) {
                out.push(
                    spec.diag(Severity::Warning, "example-trailing-text", S, &eptr, format!(
                        "the example carries text after the sentence the template describes: `{}` is the sentence, `{}` is prose",
                        s.example_sentence,
                        &s.example[s.example_sentence.len()..]
                    ))
                    .with_hint("tests and docs use the sentence part; the rest is ordinary text around it"),
                );
            } else {
                out.push(spec.diag(
                    Severity::Error,
                    "example-no-match",
                    S,
                    &eptr,
                    format!("the example does not match pattern `{}`", s.pattern_key),
                ));
                continue;
            }
        }
        match reference_parse(s, &s.example_sentence) {
            Err(e) => out.push(spec.diag(
                Severity::Error,
                "example-no-match",
                S,
                &eptr,
                format!(
                    "the example is not {} `{}` sentence: {e}",
                    agent_sentences_runtime::ParseError::article(&s.key),
                    s.key
                ),
            )),
            Ok(values) => {
                let back = reference_render(s, &values);
                if back != s.example_sentence {
                    out.push(spec.diag(Severity::Error, "example-render-differs", S, &eptr, format!("rendering the template with the example's values gives `{back}`, not the example")));
                }
            }
        }
        if !spec
            .patterns
            .patterns
            .get(&s.pattern_key)
            .is_some_and(|p| p.matches.iter().any(|m| m.text == s.example_sentence))
        {
            out.push(
                spec.diag(Severity::Error, "example-not-declared", S, &eptr, format!("pattern `{}` does not list this example among its `matches`, so its expected values are not declared", s.pattern_key))
                    .with_hint(format!("add {{\"text\": …, \"captures\": …}} for it to /patterns/{}/matches", s.pattern_key)),
            );
        }
        let others: Vec<&str> = model
            .sentences
            .iter()
            .filter(|o| o.key != s.key && reference_parse(o, &s.example_sentence).is_ok())
            .map(|o| o.key.as_str())
            .collect();
        if !others.is_empty() {
            out.push(spec.diag(Severity::Warning, "example-ambiguous", S, &eptr, format!("the example also parses as {others:?}; `Sentence::parse` takes the first in spec order")));
        }
    }
    out
}
