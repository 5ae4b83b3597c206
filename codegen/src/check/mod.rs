//! Stage 2, check: the cross-checks that must hold before any file is written.
//!
//! [`check`] runs every check of the loaded spec and returns what it proved
//! ([`Checked`]: the findings, and the structures whose own definition holds
//! no error, P330). [`check_spec`] checks the loaded spec's references,
//! fields, templates and patterns; it reads the loaded spec only (never the
//! lowered model), and
//! [`crate::examples::check_model`] checks the lowered model against the
//! examples afterwards: every example matches, captures what it declares, and
//! renders back byte for byte. Each finding is a [`Diagnostic`] with file, JSON pointer and
//! line:column; all are collected, none stops the others.

mod directives;
pub mod envelope;

use std::collections::BTreeSet;

use indexmap::IndexMap;
use regex::Regex;

use crate::diagnostic::{closest, Diagnostic, Severity, WithHint};
use crate::load::{bound_pattern, Spec, SpecFile};
use crate::locate::child;
use crate::model::GroupType;
use crate::pattern;
use crate::template::{self, Piece};

pub use directives::{MAX_ARGS_BYTES, MAX_JSON_DEPTH};

const P: SpecFile = SpecFile::Patterns;
const S: SpecFile = SpecFile::Structures;

/// What the checks of the loaded spec proved.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// Every finding, errors and warnings, unsorted.
    pub diags: Vec<Diagnostic>,
    /// The structures (keys) whose definition holds no error: the entry of
    /// `structures.json`, its binding and the pattern bound to it were each
    /// checked without one. Lowering builds the grammar from these only, and
    /// the examples are checked for these only, so one run reports the
    /// example faults of the structures that can have any.
    pub intact: BTreeSet<String>,
}

impl Checked {
    /// True when a finding is an error.
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Every check of the loaded spec: this module's ([`check_spec`]), the
/// loop rules', the op catalogue's and the names'.
pub fn check(spec: &Spec) -> Checked {
    let (mut diags, intact) = check_spec_proving(spec);
    diags.extend(crate::loops::check(spec));
    diags.extend(crate::ops::check(spec));
    diags.extend(crate::names::check(spec));
    Checked { diags, intact }
}

/// The keys whose checks, run in the order of `starts` (each key with the
/// length of `out` when its check began), found an error.
fn with_errors(out: &[Diagnostic], starts: &[(String, usize)]) -> BTreeSet<String> {
    let ends = starts.iter().skip(1).map(|s| s.1).chain([out.len()]);
    starts
        .iter()
        .zip(ends)
        .filter(|((_, start), end)| {
            out[*start..*end]
                .iter()
                .any(|d| d.severity == Severity::Error)
        })
        .map(|((key, _), _)| key.clone())
        .collect()
}

/// Checks the loaded spec. Errors block generation; warnings do not.
pub fn check_spec(spec: &Spec) -> Vec<Diagnostic> {
    check_spec_proving(spec).0
}

/// [`check_spec`], with the structures it leaves intact ([`Checked::intact`]).
fn check_spec_proving(spec: &Spec) -> (Vec<Diagnostic>, BTreeSet<String>) {
    let mut out = spec.load_findings.clone();
    let broken_patterns = check_patterns(spec, &mut out);
    let broken_bindings = check_bindings(spec, &mut out);
    let broken_structures = check_structures(spec, &mut out);
    let intact = spec
        .structures
        .structures
        .keys()
        .filter(|k| {
            !broken_structures.contains(*k)
                && !broken_bindings.contains(*k)
                && !broken_patterns.contains(bound_pattern(spec, k))
        })
        .cloned()
        .collect();
    directives::check_directives(spec, &mut out);
    check_one_line_texts(spec, &mut out);
    check_names(spec, &mut out);
    check_known_findings(spec, &mut out);
    out.extend(crate::seed::check(spec));
    out.extend(crate::prose::check(spec));
    (out, intact)
}

/// Each acknowledged finding names a spec file and a decision (`P` and a
/// number).
fn check_known_findings(spec: &Spec, out: &mut Vec<Diagnostic>) {
    let files = [
        crate::load::STRUCTURES_FILE,
        crate::load::PATTERNS_FILE,
        crate::load::DIRECTIVES_FILE,
        crate::load::OPS_FILE,
        crate::load::ENVELOPE_FILE,
    ];
    for (i, k) in spec.patterns.known_findings.iter().enumerate() {
        let ptr = format!("/known_findings/{i}");
        if !files.contains(&k.file.as_str()) {
            out.push(spec.diag(
                Severity::Error,
                "known-finding",
                P,
                &format!("{ptr}/file"),
                format!("`{}` is not a spec file ({})", k.file, files.join(", ")),
            ));
        }
        let d = k.decision.strip_prefix('P').unwrap_or_default();
        if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
            out.push(spec.diag(
                Severity::Error,
                "known-finding",
                P,
                &format!("{ptr}/decision"),
                format!("`{}` is not a decision id such as `P7`", k.decision),
            ));
        }
    }
}

/// Names become identifiers, keys and table cells of the generated code and
/// docs: none may hold a control character (a NUL makes the Python package
/// fail to import), and keywords that mark a directive must not be empty.
fn check_names(spec: &Spec, out: &mut Vec<Diagnostic>) {
    const D: SpecFile = SpecFile::Directives;
    let mut names: Vec<(SpecFile, String, &str)> = Vec::new();
    for (k, st) in &spec.structures.structures {
        let base = child("/structures", k);
        names.push((S, base.clone(), k));
        for (list, fields) in [
            ("required_fields", &st.required_fields),
            ("optional_fields", &st.optional_fields),
        ] {
            for (i, f) in fields.iter().enumerate() {
                names.push((S, format!("{base}/{list}/{i}"), f));
            }
        }
        names.push((S, child(&base, "regex_ref"), &st.regex_ref));
    }
    for (k, p) in &spec.patterns.patterns {
        let base = child("/patterns", k);
        names.push((P, base.clone(), k));
        for (g, gr) in &p.groups {
            let gptr = child(&child(&base, "groups"), g);
            names.push((P, gptr.clone(), g));
            if let Some(f) = &gr.field {
                names.push((P, child(&gptr, "field"), f));
            }
            for (i, v) in gr.values.iter().flatten().enumerate() {
                names.push((P, format!("{gptr}/values/{i}"), v));
            }
        }
    }
    for (k, b) in &spec.patterns.bindings {
        let base = child("/bindings", k);
        names.push((P, base.clone(), k));
        for g in b.fixed.keys() {
            names.push((P, child(&child(&base, "fixed"), g), g));
        }
    }
    let d = &spec.directives;
    for k in d.engines.keys() {
        names.push((D, child("/engines", k), k));
    }
    for (i, e) in d.bracket.engines.iter().enumerate() {
        names.push((D, format!("/bracket/engines/{i}"), e));
    }
    for (k, sh) in &d.shorthands {
        names.push((D, child("/shorthands", k), k));
        names.push((D, format!("{}/op", child("/shorthands", k)), &sh.op));
    }
    for k in d.fences.info_strings.keys() {
        names.push((D, child("/fences/info_strings", k), k));
    }
    for (k, v) in &d.aliases {
        names.push((D, child("/aliases", k), k));
        names.push((D, child("/aliases", k), v));
    }
    for (list, flags) in [
        ("data_flags", &d.curl.data_flags),
        ("value_options", &d.curl.value_options),
        ("flag_options", &d.curl.flag_options),
        ("method_options", &d.curl.method_options),
        ("methods", &d.curl.methods),
        ("url_options", &d.curl.url_options),
    ] {
        for (i, f) in flags.iter().enumerate() {
            names.push((D, format!("/curl/{list}/{i}"), f));
        }
    }
    for (file, pointer, name) in names {
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            out.push(
                spec.diag(
                    Severity::Error,
                    "control-character",
                    file,
                    &pointer,
                    format!(
                        "the name {name:?} holds the control character U+{:04X}",
                        u32::from(c)
                    ),
                )
                .with_hint(
                    "names become identifiers, keys and table cells: use printable characters",
                ),
            );
        }
    }
    let keywords = d
        .shorthands
        .keys()
        .map(|k| ("shorthand keyword", child("/shorthands", k), k))
        .chain(
            d.fences
                .info_strings
                .keys()
                .map(|k| ("fence info string", child("/fences/info_strings", k), k)),
        );
    for (what, pointer, k) in keywords {
        if k.trim_matches([' ', '\t']).is_empty() {
            let message = match what {
                "fence info string" => format!(
                    "an empty {what} mapped to an engine would make every plain code block a call"
                ),
                _ => format!("an empty {what} would make every bracket `[ {{…}}]` a call"),
            };
            out.push(spec.diag(Severity::Error, "empty-keyword", D, &pointer, message));
        } else if k.contains([' ', '\t', '\r', '\n']) {
            out.push(spec.diag(
                Severity::Error,
                "keyword-with-blank",
                D,
                &pointer,
                format!("the {what} `{k}` holds a blank: the scanner reads one word there"),
            ));
        }
    }
}

/// Names, purposes, descriptions, templates and tags stand in table cells
/// and code spans of the generated docs and in one-line help texts: a line
/// break in them could not be shown as written.
fn check_one_line_texts(spec: &Spec, out: &mut Vec<Diagnostic>) {
    let mut texts: Vec<(SpecFile, String, &str)> = Vec::new();
    for (k, st) in &spec.structures.structures {
        let base = child("/structures", k);
        for (name, text) in [
            ("name", &st.name),
            ("protocol_tag", &st.protocol_tag),
            ("template", &st.template),
            ("description", &st.description),
            ("reply_expectation", &st.reply_expectation),
            ("lifecycle_transition", &st.lifecycle_transition),
        ] {
            texts.push((S, child(&base, name), text));
        }
    }
    for (k, p) in &spec.patterns.patterns {
        let base = child("/patterns", k);
        texts.push((P, child(&base, "purpose"), &p.purpose));
        for (g, gr) in &p.groups {
            texts.push((
                P,
                child(&child(&child(&base, "groups"), g), "description"),
                &gr.description,
            ));
        }
    }
    for (file, pointer, text) in texts {
        if text.contains(['\n', '\r']) {
            out.push(
                spec.diag(Severity::Error, "text-line-break", file, &pointer, "this text holds a line break, which a table cell, code span or help line cannot show as written")
                    .with_hint("write it on one line"),
            );
        }
    }
}

/// Returns the keys it found an error in.
fn check_patterns(spec: &Spec, out: &mut Vec<Diagnostic>) -> BTreeSet<String> {
    let mut starts = Vec::new();
    for (key, p) in &spec.patterns.patterns {
        starts.push((key.clone(), out.len()));
        let base = child("/patterns", key);
        let ptr = child(&base, "pattern");
        let analysis = match pattern::analyze(&p.pattern, &p.flags) {
            Ok(a) => a,
            Err((offset, msg)) => {
                out.push(spec.diag(
                    Severity::Error,
                    "pattern-syntax",
                    P,
                    &ptr,
                    format!("the Rust regex syntax rejects the pattern at byte {offset}: {msg}"),
                ));
                continue;
            }
        };
        for d in &analysis.dialect {
            out.push(spec.diag(
                Severity::Error,
                "pattern-dialect",
                P,
                &ptr,
                format!("byte {}: {}", d.offset, d.message),
            ));
        }
        for f in crate::backtrack::analyze(&p.pattern, &p.flags) {
            out.push(spec.diag(
                Severity::Error,
                f.code,
                P,
                &ptr,
                format!("byte {}: {}", f.offset, f.message),
            ));
        }
        let source = format!("{}{}", pattern::flag_prefix(&p.flags), p.pattern);
        if let Err(e) = Regex::new(&source) {
            out.push(spec.diag(
                Severity::Error,
                "pattern-syntax",
                P,
                &ptr,
                format!("the Rust regex crate rejects the pattern: {e}"),
            ));
            continue;
        }
        for g in &analysis.groups {
            if !p.groups.contains_key(&g.name) {
                out.push(
                    spec.diag(
                        Severity::Error,
                        "undeclared-group",
                        P,
                        &ptr,
                        format!("group `{}` is not declared in `groups`", g.name),
                    )
                    .with_hint("describe it under `groups`, with its type"),
                );
            }
        }
        for (name, g) in &p.groups {
            let gptr = child(&child(&base, "groups"), name);
            let Some(ng) = analysis.groups.iter().find(|x| &x.name == name) else {
                out.push(spec.diag(
                    Severity::Error,
                    "missing-group",
                    P,
                    &gptr,
                    format!("group `{name}` is declared but the pattern has no such named group"),
                ));
                continue;
            };
            match (g.ty, &g.values) {
                (GroupType::Enum, None) => out.push(spec.diag(
                    Severity::Error,
                    "enum-without-values",
                    P,
                    &gptr,
                    format!("enum group `{name}` lists no `values`"),
                )),
                (GroupType::Enum, Some(values)) => {
                    let mut lits = ng.literals.clone().unwrap_or_default();
                    let mut vals = values.clone();
                    lits.sort();
                    vals.sort();
                    if lits != vals {
                        out.push(spec.diag(
                            Severity::Error,
                            "enum-mismatch",
                            P,
                            &child(&gptr, "values"),
                            format!(
                                "enum `{name}` lists {:?} but the pattern's alternatives are {:?}",
                                values,
                                ng.literals.clone().unwrap_or_default()
                            ),
                        ));
                    }
                }
                (_, Some(_)) => out.push(spec.diag(
                    Severity::Error,
                    "values-on-non-enum",
                    P,
                    &child(&gptr, "values"),
                    format!("group `{name}` has `values` but is not of type `enum`"),
                )),
                _ => {}
            }
            if g.ty == GroupType::Integer && !pattern::digits_only_u32(&ng.inner) {
                out.push(
                    spec.diag(Severity::Error, "integer-not-digits", P, &child(&gptr, "type"), format!("integer group `{name}` can match `{}`, which is not always 1 to 9 digits", ng.inner))
                        .with_hint("write it as `0|[1-9][0-9]{0,8}`"),
                );
            }
        }
        let re = Regex::new(&format!(r"\A(?:{source})\z")).expect("checked above");
        for (i, m) in p.matches.iter().enumerate() {
            let mptr = format!("{base}/matches/{i}");
            match re.captures(&m.text) {
                None => out.push(spec.diag(
                    Severity::Error,
                    "match-example-fails",
                    P,
                    &child(&mptr, "text"),
                    "this example does not match the pattern in full",
                )),
                Some(caps) => {
                    let got: IndexMap<String, String> = re
                        .capture_names()
                        .flatten()
                        .filter_map(|n| caps.name(n).map(|v| (n.to_owned(), v.as_str().to_owned())))
                        .collect();
                    let mut want: Vec<_> = m.captures.iter().collect();
                    let mut have: Vec<_> = got.iter().collect();
                    want.sort();
                    have.sort();
                    if want != have {
                        out.push(spec.diag(
                            Severity::Error,
                            "captures-differ",
                            P,
                            &child(&mptr, "captures"),
                            format!(
                                "declared captures {:?}, the pattern captures {:?}",
                                m.captures, got
                            ),
                        ));
                    }
                }
            }
        }
        for (i, t) in p.non_matches.iter().enumerate() {
            if re.is_match(t) {
                out.push(spec.diag(
                    Severity::Error,
                    "non-match-matches",
                    P,
                    &format!("{base}/non_matches/{i}"),
                    "this text must not match, but the pattern matches it in full",
                ));
            }
        }
    }
    with_errors(out, &starts)
}

/// Returns the keys it found an error in.
fn check_bindings(spec: &Spec, out: &mut Vec<Diagnostic>) -> BTreeSet<String> {
    let mut starts = Vec::new();
    for (key, b) in &spec.patterns.bindings {
        starts.push((key.clone(), out.len()));
        let base = child("/bindings", key);
        let Some(s) = spec.structures.structures.get(key) else {
            out.push(
                spec.diag(
                    Severity::Error,
                    "unknown-binding-structure",
                    P,
                    &base,
                    format!("`{key}` is not a structure in structures.json"),
                )
                .with_hint_opt(
                    closest(key, spec.structures.structures.keys())
                        .map(|c| format!("did you mean `{c}`?")),
                ),
            );
            continue;
        };
        let pkey = b.pattern.as_deref().unwrap_or(&s.regex_ref);
        if let Some(bp) = &b.pattern {
            if !spec.patterns.patterns.contains_key(bp) {
                out.push(
                    spec.diag(
                        Severity::Error,
                        "unknown-regex-ref",
                        P,
                        &child(&base, "pattern"),
                        format!("pattern `{bp}` does not exist"),
                    )
                    .with_hint_opt(
                        closest(bp, spec.patterns.patterns.keys())
                            .map(|c| format!("did you mean `{c}`?")),
                    ),
                );
                continue;
            }
            if bp != &s.regex_ref && b.note.is_none() {
                out.push(spec.diag(Severity::Warning, "binding-without-note", P, &child(&base, "pattern"), format!("binds `{key}` to `{bp}` instead of its regex_ref `{}` without a `note` saying why", s.regex_ref)));
            }
        }
        let Some(p) = spec.patterns.patterns.get(pkey) else {
            continue;
        };
        for (g, v) in &b.fixed {
            let fptr = child(&child(&base, "fixed"), g);
            match p.groups.get(g) {
                None => out.push(spec.diag(
                    Severity::Error,
                    "unknown-fixed-group",
                    P,
                    &fptr,
                    format!("pattern `{pkey}` has no group `{g}`"),
                )),
                Some(gr) => {
                    if let Some(values) = &gr.values {
                        if !values.contains(v) {
                            out.push(spec.diag(
                                Severity::Error,
                                "fixed-value-not-allowed",
                                P,
                                &fptr,
                                format!("`{v}` is not one of group `{g}`'s values {values:?}"),
                            ));
                        }
                    }
                }
            }
        }
    }
    with_errors(out, &starts)
}

/// Returns the keys it found an error in.
fn check_structures(spec: &Spec, out: &mut Vec<Diagnostic>) -> BTreeSet<String> {
    let mut starts = Vec::new();
    for (key, s) in &spec.structures.structures {
        starts.push((key.clone(), out.len()));
        let base = child("/structures", key);
        let pkey = bound_pattern(spec, key);
        if let Some(bp) = spec
            .patterns
            .bindings
            .get(key)
            .and_then(|b| b.pattern.as_ref())
        {
            if !spec.patterns.patterns.contains_key(&s.regex_ref) {
                out.push(
                    spec.diag(
                        Severity::Error,
                        "unknown-regex-ref",
                        S,
                        &child(&base, "regex_ref"),
                        format!("regex_ref `{}` names no pattern in regex_patterns.json (the binding's pattern `{bp}` parses the structure, but the docs show and link the regex_ref)", s.regex_ref),
                    )
                    .with_hint_opt(closest(&s.regex_ref, spec.patterns.patterns.keys()).map(|c| format!("did you mean `{c}`?"))),
                );
            }
        }
        let Some(p) = spec.patterns.patterns.get(pkey) else {
            if spec
                .patterns
                .bindings
                .get(key)
                .and_then(|b| b.pattern.as_ref())
                .is_none()
            {
                out.push(
                    spec.diag(
                        Severity::Error,
                        "unknown-regex-ref",
                        S,
                        &child(&base, "regex_ref"),
                        format!("regex_ref `{pkey}` names no pattern in regex_patterns.json"),
                    )
                    .with_hint_opt(
                        closest(pkey, spec.patterns.patterns.keys())
                            .map(|c| format!("did you mean `{c}`?")),
                    ),
                );
            }
            continue;
        };
        let fixed = spec
            .patterns
            .bindings
            .get(key)
            .map(|b| b.fixed.clone())
            .unwrap_or_default();
        let analysis = pattern::analyze(&p.pattern, &p.flags).unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        let lists = [
            ("required_fields", &s.required_fields),
            ("optional_fields", &s.optional_fields),
        ];
        for (list, fields) in lists {
            for (i, f) in fields.iter().enumerate() {
                let fptr = format!("{base}/{list}/{i}");
                if !seen.insert(f.clone()) {
                    out.push(spec.diag(
                        Severity::Error,
                        "duplicate-field",
                        S,
                        &fptr,
                        format!("field `{f}` is listed twice"),
                    ));
                    continue;
                }
                let groups: Vec<(&String, &crate::model::Group)> = p
                    .groups
                    .iter()
                    .filter(|(g, gr)| {
                        gr.field.as_deref().unwrap_or(g) == f && !fixed.contains_key(*g)
                    })
                    .collect();
                if groups.is_empty() {
                    let required = list == "required_fields";
                    out.push(
                        spec.diag(
                            if required { Severity::Error } else { Severity::Warning },
                            if required { "required-field-not-captured" } else { "optional-field-not-captured" },
                            S,
                            &fptr,
                            if required {
                                format!("required field `{f}` is captured by no group of pattern `{pkey}`")
                            } else {
                                format!("optional field `{f}` is captured by no group of pattern `{pkey}`: it can never be parsed or rendered, and is left out of the generated types")
                            },
                        )
                        .with_hint(format!("add a group `(?P<{f}>…)` to `{pkey}`, or map a group to it with `\"field\": \"{f}\"`")),
                    );
                    continue;
                }
                let tys: Vec<GroupType> = groups.iter().map(|(_, g)| g.ty).collect();
                if tys.windows(2).any(|w| w[0] != w[1]) {
                    out.push(spec.diag(
                        Severity::Error,
                        "field-type-conflict",
                        S,
                        &fptr,
                        format!("the groups filling `{f}` disagree on its type: {tys:?}"),
                    ));
                }
            }
        }
        for (g, gr) in &p.groups {
            let fname = gr.field.as_deref().unwrap_or(g);
            if !fixed.contains_key(g) && !seen.contains(fname) {
                out.push(
                    spec.diag(Severity::Warning, "group-without-field", P, &child(&child(&format!("/patterns/{pkey}"), "groups"), g), format!("group `{g}` of `{pkey}` fills no field of structure `{key}`: `{key}` does not match when it takes part"))
                        .with_hint(format!("fix it in the binding of `{key}`, or map it to a field")),
                );
            }
        }
        let tptr = child(&base, "template");
        let pieces = match template::parse(&s.template) {
            Ok(p) => p,
            Err(e) => {
                out.push(spec.diag(Severity::Error, "template-syntax", S, &tptr, e));
                continue;
            }
        };
        let mut counts: IndexMap<&str, usize> = IndexMap::new();
        for piece in &pieces {
            if let Piece::Field(f) = piece {
                *counts.entry(f).or_default() += 1;
                if !seen.contains(f) {
                    out.push(spec.diag(
                        Severity::Error,
                        "placeholder-not-field",
                        S,
                        &tptr,
                        format!(
                            "placeholder `{{{f}}}` is neither a required nor an optional field"
                        ),
                    ));
                }
            }
        }
        for (f, n) in &counts {
            let groups = p
                .groups
                .iter()
                .filter(|(g, gr)| gr.field.as_deref().unwrap_or(g) == *f)
                .count();
            if *n > 1 && groups != *n {
                out.push(
                    spec.diag(Severity::Error, "repeated-placeholder", S, &tptr, format!("placeholder `{{{f}}}` appears {n} times but {groups} group(s) fill it, so nothing says the repeats are equal"))
                        .with_hint(format!("give the pattern one group per repeat, each with `\"field\": \"{f}\"`; the parser then requires equal captures")),
                );
            }
        }
        for f in seen.iter() {
            if counts.contains_key(f.as_str()) {
                continue;
            }
            let captured: Vec<&String> = p
                .groups
                .iter()
                .filter(|(g, gr)| gr.field.as_deref().unwrap_or(g) == f)
                .map(|(g, _)| g)
                .collect();
            let derived = captured.iter().any(|g| {
                analysis
                    .groups
                    .iter()
                    .any(|ng| &&ng.name == g && !ng.ancestors.is_empty())
            });
            if !captured.is_empty() && !derived {
                let required = s.required_fields.contains(f);
                out.push(spec.diag(
                    if required { Severity::Error } else { Severity::Warning },
                    "field-not-in-template",
                    S,
                    &tptr,
                    format!("field `{f}` is captured but the template never writes it, so rendering loses it"),
                ));
            }
        }
    }
    with_errors(out, &starts)
}
