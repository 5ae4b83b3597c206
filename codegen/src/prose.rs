//! Checks of what the structures' own text says against the patterns and
//! templates: the part of the spec a person reads (`protocol_tag`,
//! `description`, `reply_expectation`, and the literal text of templates)
//! must agree with the part the generator reads.
//!
//! "The structure's own text" is every string a structure has in
//! `structures.json` except its `example` (an instance, checked against the
//! pattern by [`crate::examples::check_model`]) and `lifecycle_transition`
//! (states, which no pattern enumerates). The checks:
//!
//! - `protocol-tag-mismatch`: the `protocol_tag` must describe how the
//!   template begins ([`tag_regex`] gives the reading);
//! - `marker-format-mismatch` / `unknown-marker`: a marker written out as a
//!   format in a text (`[ACK id]`, `[RESULT {job_id}]`) must have the form of
//!   the template of the structure that begins with that marker, and some
//!   structure must;
//! - `enum-differs-from-text`: a list of values in a text (`OK, FAIL or
//!   SUCCESS`, or a run of markers `[ACK id], [CLAIM id], …`) that shares two
//!   or more values with an enum group must not name values the group lacks;
//!   when the group fills a field of the structure itself, the list must name
//!   all of its values;
//! - `regex-ref-enum-wider`: an enum group of the owner's `regex_ref` pattern
//!   that fills no field of the structure stands for the marker the template
//!   writes, so it must accept no value the template does not write;
//! - `regex-ref-cannot-parse`: where a binding replaces the owner's
//!   `regex_ref`, the lint still says what the `regex_ref` lacks.
//!
//! All are warnings: the text is documentation, and where the owner's text
//! disagrees with itself the project records a decision instead of editing it.

use std::collections::BTreeSet;

use regex::Regex;

use crate::diagnostic::{Diagnostic, Severity, WithHint};
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::model::{GroupType, Structure};
use crate::template::{self, Piece};

const S: SpecFile = SpecFile::Structures;

/// Runs every check of this module.
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let markers = Markers::new(spec);
    for (key, s) in &spec.structures.structures {
        protocol_tag(spec, key, s, &mut out);
        for (member, text) in prose(s) {
            let ptr = child(&child("/structures", key), member);
            markers.check_mentions(spec, &ptr, text, &mut out);
            enumerations(spec, key, &ptr, text, &mut out);
        }
        regex_ref_enums(spec, key, s, &mut out);
        regex_ref_fields(spec, key, s, &mut out);
    }
    out
}

/// The texts of a structure that document formats and values, by member name.
fn prose(s: &Structure) -> [(&'static str, &str); 3] {
    [
        ("description", &s.description),
        ("reply_expectation", &s.reply_expectation),
        ("template", &s.template),
    ]
}

/// Character index of a byte offset in `text`.
fn char_index(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

/// How a protocol tag reads, as a regex that must match the start of the
/// template text (placeholders written `{name}`):
///
/// - `...` or `…` stands for any text;
/// - a `]` right after `:` or a space closes an elided slot (`[WO:]`,
///   `[CLAIM ]`): a placeholder, then anything up to the `]`;
/// - a word that is a field of the structure stands for its placeholder
///   (`Reply: [ACK id] seen ...` has the field `id`);
/// - everything else is literal.
pub fn tag_regex(tag: &str, fields: &[&str]) -> String {
    let chars: Vec<char> = tag.chars().collect();
    let mut re = String::from(r"\A");
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if chars[i..].starts_with(&['.', '.', '.']) {
            re.push_str(".*");
            i += 3;
        } else if c == '…' {
            re.push_str(".*");
            i += 1;
        } else if c == ']' && i > 0 && matches!(chars[i - 1], ':' | ' ') {
            re.push_str(r"\{[^}]+\}[^\]]*\]");
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if fields.contains(&word.as_str()) {
                re.push_str(&format!(r"\{{{word}\}}"));
            } else {
                re.push_str(&regex::escape(&word));
            }
        } else {
            re.push_str(&regex::escape(&c.to_string()));
            i += 1;
        }
    }
    re
}

/// The tag a template suggests: its first bracket with the values left out
/// (`[WO:{dm_id}] …` gives `[WO:]`), or its text up to the first placeholder
/// followed by `...`.
fn suggested_tag(template: &str) -> String {
    if let Some(open) = opening(template) {
        return match open.find('{') {
            Some(i) => format!("{}]", &open[..i]),
            None => open.to_owned(),
        };
    }
    match template.find('{') {
        Some(i) => format!("{}...", &template[..i]),
        None => template.to_owned(),
    }
}

fn protocol_tag(spec: &Spec, key: &str, s: &Structure, out: &mut Vec<Diagnostic>) {
    let fields: Vec<&str> = s
        .required_fields
        .iter()
        .chain(&s.optional_fields)
        .map(String::as_str)
        .collect();
    let Ok(re) = Regex::new(&tag_regex(&s.protocol_tag, &fields)) else {
        return;
    };
    if !re.is_match(&s.template) {
        out.push(
            spec.diag(
                Severity::Warning,
                "protocol-tag-mismatch",
                S,
                &child(&child("/structures", key), "protocol_tag"),
                format!(
                    "the protocol tag `{}` does not describe how the template begins: `{}`",
                    s.protocol_tag, s.template
                ),
            )
            .with_hint(format!(
                "a tag of the template's form is `{}`",
                suggested_tag(&s.template)
            )),
        );
    }
}

/// The first bracketed marker of a template, `[` to its matching `]`, when
/// the template begins with one.
fn opening(template: &str) -> Option<&str> {
    if !template.starts_with('[') {
        return None;
    }
    let mut depth = 0;
    for (i, c) in template.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&template[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Replaces every placeholder-like word of a marker (`{name}`, `<name>` or a
/// lower-case identifier) with `{}`, so forms compare regardless of names.
fn shape(marker: &str, slot: &Regex) -> String {
    slot.replace_all(marker, "{}").into_owned()
}

/// The markers structures begin with, by head (`ACK`, `WO`, …).
struct Markers {
    /// (head, structure key, the template's opening marker).
    openings: Vec<(String, String, String)>,
    /// A marker written as a format: upper-case head, `:` or a space, then
    /// placeholder-like words only.
    mention: Regex,
    /// One placeholder-like word.
    slot: Regex,
}

impl Markers {
    fn new(spec: &Spec) -> Self {
        let head = Regex::new(r"\A\[([A-Z][A-Z0-9-]*)[: \]]").expect("valid");
        let openings = spec
            .structures
            .structures
            .iter()
            .filter_map(|(key, s)| {
                let open = opening(&s.template)?;
                let h = head.captures(open)?;
                Some((h[1].to_owned(), key.clone(), open.to_owned()))
            })
            .collect();
        let word = r"(?:\{[a-z_][a-z0-9_]*\}|<[a-z_][a-z0-9_]*>|[a-z_][a-z0-9_]*)";
        Markers {
            openings,
            mention: Regex::new(&format!(
                r"\[([A-Z][A-Z0-9-]*)(?::[ ]?|[ ])({word}(?:[ ]{word})*)\]"
            ))
            .expect("valid"),
            slot: Regex::new(word).expect("valid"),
        }
    }

    fn check_mentions(&self, spec: &Spec, ptr: &str, text: &str, out: &mut Vec<Diagnostic>) {
        for m in self.mention.captures_iter(text) {
            let whole = m.get(0).expect("match");
            let head = &m[1];
            let at = char_index(text, whole.start());
            let targets: Vec<&(String, String, String)> =
                self.openings.iter().filter(|(h, _, _)| h == head).collect();
            if targets.is_empty() {
                out.push(
                    spec.diag_in(Severity::Warning, "unknown-marker", S, ptr, at, format!("`{}` names the marker `{head}`, which no structure's template begins with", whole.as_str()))
                        .with_hint("name a marker the spec defines, or add the structure"),
                );
                continue;
            }
            let mention = shape(whole.as_str(), &self.slot);
            if targets
                .iter()
                .any(|(_, _, open)| shape(open, &self.slot) == mention)
            {
                continue;
            }
            let (_, key, open) = targets[0];
            out.push(
                spec.diag_in(
                    Severity::Warning,
                    "marker-format-mismatch",
                    S,
                    ptr,
                    at,
                    format!("`{}` does not have the form of the `{key}` marker, whose template writes `{open}`", whole.as_str()),
                )
                .with_hint(format!("write it as the template does (`{}`), or record a decision for accepting both forms", shape(open, &self.slot).replace("{}", "id"))),
            );
        }
    }
}

/// Lists of values in a text: `(values with their character index)`.
fn lists(text: &str) -> Vec<Vec<(String, usize)>> {
    let token = r"`?[A-Z][A-Z0-9_-]*[A-Z0-9]\b`?";
    let sep = r"(?:[ \t]*(?:,|/|\|)[ \t]*(?:(?:or|and)[ \t]+)?|[ \t]+(?:or|and)[ \t]+)";
    let words = Regex::new(&format!(r"\b{token}(?:{sep}{token})+")).expect("valid");
    let one = Regex::new(token).expect("valid");
    let mut out: Vec<Vec<(String, usize)>> = words
        .find_iter(text)
        .map(|run| {
            one.find_iter(run.as_str())
                .map(|t| {
                    (
                        t.as_str().trim_matches('`').to_owned(),
                        char_index(text, run.start() + t.start()),
                    )
                })
                .collect()
        })
        .collect();
    let heads = Regex::new(r"\[([A-Z][A-Z0-9-]*)[: \]]").expect("valid");
    let markers: Vec<(String, usize)> = heads
        .captures_iter(text)
        .map(|c| {
            (
                c[1].to_owned(),
                char_index(text, c.get(0).expect("match").start()),
            )
        })
        .collect();
    if markers
        .iter()
        .map(|(v, _)| v)
        .collect::<BTreeSet<_>>()
        .len()
        >= 2
    {
        out.push(markers);
    }
    out
}

fn enumerations(spec: &Spec, key: &str, ptr: &str, text: &str, out: &mut Vec<Diagnostic>) {
    let own = crate::load::bound_pattern(spec, key);
    let s = &spec.structures.structures[key];
    for list in lists(text) {
        let named: BTreeSet<&str> = list.iter().map(|(v, _)| v.as_str()).collect();
        for (pkey, p) in &spec.patterns.patterns {
            for (gname, g) in &p.groups {
                let (GroupType::Enum, Some(values)) = (g.ty, &g.values) else {
                    continue;
                };
                let shared = values.iter().filter(|v| named.contains(v.as_str())).count();
                if shared < 2 {
                    continue;
                }
                let extra: Vec<&(String, usize)> =
                    list.iter().filter(|(v, _)| !values.contains(v)).collect();
                if let Some((_, at)) = extra.first() {
                    let names: Vec<&str> = extra.iter().map(|(v, _)| v.as_str()).collect();
                    out.push(
                        spec.diag_in(
                            Severity::Warning,
                            "enum-differs-from-text",
                            S,
                            ptr,
                            *at,
                            format!("the text lists {} with values of group `{gname}` of pattern `{pkey}`, which does not accept {}", join(&names), if names.len() == 1 { "it" } else { "them" }),
                        )
                        .with_hint(format!("the group's values are {}", join(&values.iter().map(String::as_str).collect::<Vec<_>>()))),
                    );
                }
                let field = g.field.as_deref().unwrap_or(gname);
                let fills_own_field = pkey == own
                    && (s
                        .required_fields
                        .iter()
                        .chain(&s.optional_fields)
                        .any(|f| f == field));
                let missing: Vec<&str> = values
                    .iter()
                    .filter(|v| !named.contains(v.as_str()))
                    .map(String::as_str)
                    .collect();
                if fills_own_field && !missing.is_empty() {
                    out.push(
                        spec.diag_in(
                            Severity::Warning,
                            "enum-differs-from-text",
                            S,
                            ptr,
                            list[0].1,
                            format!("the text lists the `{field}` values {}, but pattern `{pkey}` also accepts {}", join(&list.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>()), join(&missing)),
                        )
                        .with_hint(format!("list every value of /patterns/{pkey}/groups/{gname}/values, or narrow the group")),
                    );
                }
            }
        }
    }
}

fn join(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// True when `word` occurs in `text` with no letter, digit, `_` or `-` on
/// either side.
fn has_token(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(part)
            && !text[i + word.len()..].chars().next().is_some_and(part)
    })
}

fn regex_ref_enums(spec: &Spec, key: &str, s: &Structure, out: &mut Vec<Diagnostic>) {
    let Some(p) = spec.patterns.patterns.get(&s.regex_ref) else {
        return;
    };
    let literal: String = template::parse(&s.template)
        .unwrap_or_default()
        .into_iter()
        .map(|piece| match piece {
            Piece::Literal(l) => l,
            Piece::Field(_) => "{}".to_owned(),
        })
        .collect();
    let binding = spec.patterns.bindings.get(key);
    for (gname, g) in &p.groups {
        let (GroupType::Enum, Some(values)) = (g.ty, &g.values) else {
            continue;
        };
        let field = g.field.as_deref().unwrap_or(gname);
        if s.required_fields
            .iter()
            .chain(&s.optional_fields)
            .any(|f| f == field)
        {
            continue;
        }
        let written: Vec<&str> = values
            .iter()
            .filter(|v| has_token(&literal, v))
            .map(String::as_str)
            .collect();
        let unnamed: Vec<&str> = values
            .iter()
            .filter(|v| !written.contains(&v.as_str()))
            .map(String::as_str)
            .collect();
        if unnamed.is_empty() {
            continue;
        }
        let wrote = if written.is_empty() {
            "none of them".to_owned()
        } else {
            format!("only {}", join(&written))
        };
        let resolution = match binding {
            Some(b) if b.pattern.as_deref().is_some_and(|bp| bp != s.regex_ref) => rebound(key, b.pattern.as_deref().unwrap_or_default()),
            Some(b) if b.fixed.get(gname).is_some_and(|v| written.contains(&v.as_str())) => {
                format!("the binding fixes `{gname}` to `{}` (/bindings/{key}/fixed/{gname}), so no other value parses as `{key}`", b.fixed[gname])
            }
            _ => match written.first() {
                Some(v) => format!("fix the group in the binding: /bindings/{key} {{\"fixed\": {{\"{gname}\": \"{v}\"}}}}"),
                None => format!("bind `{key}` to a pattern that matches what its template writes"),
            },
        };
        out.push(at_regex_ref(
            spec,
            key,
            "regex-ref-enum-wider",
            format!("regex_ref `{}` accepts the `{gname}` values {} too, but the structure's template writes {wrote}", s.regex_ref, join(&unnamed)),
            resolution,
        ));
    }
}

fn regex_ref_fields(spec: &Spec, key: &str, s: &Structure, out: &mut Vec<Diagnostic>) {
    let Some(bound) = spec
        .patterns
        .bindings
        .get(key)
        .and_then(|b| b.pattern.as_deref())
    else {
        return;
    };
    if bound == s.regex_ref {
        return;
    }
    let Some(p) = spec.patterns.patterns.get(&s.regex_ref) else {
        return;
    };
    let missing: Vec<&str> = s
        .required_fields
        .iter()
        .filter(|f| {
            !p.groups
                .iter()
                .any(|(g, gr)| gr.field.as_deref().unwrap_or(g) == f.as_str())
        })
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        return;
    }
    out.push(at_regex_ref(
        spec,
        key,
        "regex-ref-cannot-parse",
        format!(
            "regex_ref `{}` cannot parse `{key}`: no group of it captures the required field(s) {}",
            s.regex_ref,
            join(&missing)
        ),
        rebound(key, bound),
    ));
}

/// A warning about a structure's `regex_ref`, with a hint.
fn at_regex_ref(
    spec: &Spec,
    key: &str,
    code: &'static str,
    message: String,
    hint: String,
) -> Diagnostic {
    spec.diag(
        Severity::Warning,
        code,
        S,
        &child(&child("/structures", key), "regex_ref"),
        message,
    )
    .with_hint(hint)
}

/// The hint for a structure whose binding replaces its `regex_ref`.
fn rebound(key: &str, pattern: &str) -> String {
    format!("the binding parses `{key}` with pattern `{pattern}` instead (/bindings/{key}/pattern)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag_fits(tag: &str, fields: &[&str], template: &str) -> bool {
        Regex::new(&tag_regex(tag, fields))
            .unwrap()
            .is_match(template)
    }

    #[test]
    fn protocol_tags_read_slots_elisions_and_field_words() {
        assert!(tag_fits(
            "[WO:]",
            &["dm_id"],
            "[WO:{dm_id}] [from {sender}] {title} — {body}"
        ));
        assert!(tag_fits("[TOOL ]", &["op"], "[TOOL {op} {args_json}]"));
        assert!(tag_fits(
            "[fleet-alert]",
            &[],
            "[fleet-alert] {severity}: {message}"
        ));
        assert!(tag_fits(
            "[Directive: ...]",
            &["directive"],
            "[Directive: {directive}]"
        ));
        assert!(tag_fits(
            "Reply: [ACK id] seen ...",
            &["id"],
            "Reply: [ACK {id}] seen | [CLAIM {id}] mine"
        ));
        assert!(!tag_fits("[WO ]", &["dm_id"], "[WO:{dm_id}] x"));
        assert!(!tag_fits("[WO:]", &["dm_id"], "[WO:] {dm_id}"));
        assert!(!tag_fits(
            "Reply: [ACK id] seen ...",
            &["job_id"],
            "Reply: [ACK {id}] seen | x"
        ));
        assert!(!tag_fits("[fleet-alert]", &[], "[fleet-alerts] {x}"));
    }

    #[test]
    fn suggests_the_tag_of_a_template() {
        assert_eq!(suggested_tag("[WO:{dm_id}] [from {sender}]"), "[WO:]");
        assert_eq!(
            suggested_tag("[SUBAGENT-UPDATE] Subagent '{title}'"),
            "[SUBAGENT-UPDATE]"
        );
        assert_eq!(suggested_tag("Reply: [ACK {id}] seen"), "Reply: [ACK ...");
    }

    #[test]
    fn finds_value_lists_and_marker_runs() {
        let text = "Status options: `OK`, `FAIL`, SUCCESS or DECLINE. Reply with [ACK id] or [NO-ACTION id].";
        let l = lists(text);
        let values: Vec<Vec<&str>> = l
            .iter()
            .map(|x| x.iter().map(|(v, _)| v.as_str()).collect())
            .collect();
        assert_eq!(
            values,
            vec![
                vec!["OK", "FAIL", "SUCCESS", "DECLINE"],
                vec!["ACK", "NO-ACTION"]
            ]
        );
        assert_eq!(l[0][0].1, text.find("OK").unwrap());
        // A marker in a run is located at its `[`.
        assert_eq!(l[1][1].1, text.find("[NO-ACTION").unwrap());
        assert!(lists("One CRITICAL word, and [RESULT id] alone.").is_empty());
    }

    #[test]
    fn tokens_need_boundaries() {
        assert!(has_token("[NO-ACTION {}]", "NO-ACTION"));
        assert!(!has_token("[NO-ACTION {}]", "ACTION"));
        assert!(!has_token("[CLAIMS {}]", "CLAIM"));
    }
}
