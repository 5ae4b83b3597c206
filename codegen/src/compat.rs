//! Comparing a spec with an earlier one: what breaks a downstream crate or a
//! reader of messages, what only adds, and whether the spec's `version`
//! says so (`check --against`).
//!
//! A change is **breaking** when code generated from the earlier spec, or a
//! message written for it, may stop compiling or read differently: a
//! structure, field, pattern, group, enum value, directive form (engine,
//! bracket engine, shorthand, curl setting), fence, alias or op removed or
//! renamed; a field's type changed; an optional field made required or a
//! required one added; a limit lowered; an example of the earlier spec that
//! the new pattern no longer matches or captures differently; an earlier
//! structure example that no longer parses, reads other values, or renders
//! differently. A change is **additive** when it only adds (a structure, an
//! optional field, a pattern, a group, an enum value, a form, a fence, an
//! alias, a raised limit) or changes a pattern without changing how any
//! earlier example reads. A renaming is a removal plus an addition.
//!
//! The version rule ([`Comparison::findings`]): a breaking change needs a
//! major bump of `version` in `structures.json` (for `0.x`, a minor bump:
//! Cargo's reading of semver), else an error; an additive change needs at
//! least a minor bump (for `0.x`, a patch bump), else a warning.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Serialize;

use crate::diagnostic::{Diagnostic, Report, Severity};
use crate::examples::{reference_parse_within, reference_render};
use crate::load::{Spec, SpecFile};
use crate::lower::{FieldIr, Model, SentenceIr};

/// The files of a spec directory, as `--against` reads them from git.
pub const SPEC_FILES: [&str; 3] = ["structures.json", "regex_patterns.json", "directives.json"];

/// Whether a change breaks users of the earlier spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// Code or messages made for the earlier spec may break.
    Breaking,
    /// Only adds; everything made for the earlier spec still holds.
    Additive,
}

impl fmt::Display for Impact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Impact::Breaking => "breaking",
            Impact::Additive => "additive",
        })
    }
}

/// One difference between the earlier spec and the new one: a finding of
/// the comparison, located in the new spec, with its impact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Breaking or additive.
    pub impact: Impact,
    /// The change as a finding: its kind (`code`, e.g. `structure-removed`),
    /// the new spec's file (as shown, e.g. `schema/structures.json`), the
    /// JSON pointer in the new spec (the changed value, or for something
    /// removed, the nearest value that still exists: its parent), its
    /// line:column there, and one line saying what changed. A warning: a
    /// change fails nothing by itself; the version rule
    /// ([`Comparison::findings`]) says whether the changes need a bump.
    #[serde(flatten)]
    pub finding: Diagnostic,
    /// Where the thing was in the earlier spec (`file:line:column pointer`),
    /// for changes to something that existed there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<String>,
}

impl fmt::Display for Change {
    /// `breaking[code]: schema/structures.json:3:5 /structures/x: message`,
    /// then an indented `was:` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {}:{}:{} {}: {}",
            self.impact,
            self.finding.code,
            self.finding.file,
            self.finding.line,
            self.finding.column,
            self.finding.pointer,
            self.finding.message
        )?;
        if let Some(w) = &self.was {
            write!(f, "\n    was: {w}")?;
        }
        Ok(())
    }
}

/// The outcome of [`compare`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// How the earlier spec is shown (a directory, or `REF:DIR` for a git revision).
    pub against: String,
    /// `version` of the earlier spec.
    pub old_version: String,
    /// `version` of the new spec.
    pub new_version: String,
    /// The number of breaking changes.
    pub breaking: usize,
    /// The number of additive changes.
    pub additive: usize,
    /// Every change, breaking first, then by file and position.
    pub changes: Vec<Change>,
    /// The version rule's findings (`breaking-change-without-major-bump`,
    /// `additive-change-without-minor-bump`, `version-not-semver`), located at
    /// `/version` of the new `structures.json`.
    pub findings: Vec<Diagnostic>,
}

impl Comparison {
    /// True when the version rule found an error.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|d| d.severity == Severity::Error)
    }

    /// True when the version rule found a warning.
    pub fn has_warnings(&self) -> bool {
        self.findings
            .iter()
            .any(|d| d.severity == Severity::Warning)
    }

    /// GitHub workflow annotations: an error per breaking change when the
    /// version rule fails (a warning when it holds), a notice per additive
    /// change, and the version findings.
    pub fn github_annotations(&self) -> Vec<String> {
        let failing = self.has_errors();
        let mut out = Vec::new();
        for c in &self.changes {
            let level = match c.impact {
                Impact::Breaking if failing => "error",
                Impact::Breaking => "warning",
                Impact::Additive => "notice",
            };
            let mut msg = format!(
                "{} change against {}: {}",
                c.impact, self.against, c.finding.message
            );
            if let Some(w) = &c.was {
                msg.push_str(&format!(" (was: {w})"));
            }
            let f = &c.finding;
            out.push(annotation(level, &f.file, f.line, f.column, f.code, &msg));
        }
        for d in &self.findings {
            let level = if d.severity == Severity::Error {
                "error"
            } else {
                "warning"
            };
            out.push(annotation(
                level, &d.file, d.line, d.column, d.code, &d.message,
            ));
        }
        out
    }
}

fn annotation(level: &str, file: &str, line: usize, col: usize, title: &str, msg: &str) -> String {
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let prop = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    format!(
        "::{level} file={},line={line},col={col},title={}::{}",
        prop(file),
        prop(title),
        data(msg)
    )
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "compared with {} (version {} -> {}):",
            self.against, self.old_version, self.new_version
        )?;
        for c in &self.changes {
            writeln!(f, "{c}")?;
        }
        writeln!(
            f,
            "{} breaking, {} additive change(s)",
            self.breaking, self.additive
        )?;
        for d in &self.findings {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

/// A JSON pointer child: `parent/key` with `~` and `/` escaped.
fn child(parent: &str, key: &str) -> String {
    format!("{parent}/{}", key.replace('~', "~0").replace('/', "~1"))
}

struct Ctx<'a> {
    old: &'a Spec,
    new: &'a Spec,
    changes: Vec<Change>,
}

impl Ctx<'_> {
    /// Records a change located at `pointer` in the new spec; `was`: its
    /// pointer in the earlier one.
    fn push(
        &mut self,
        impact: Impact,
        code: &'static str,
        file: SpecFile,
        pointer: &str,
        was: Option<&str>,
        message: String,
    ) {
        let was = was.map(|p| {
            let o = self.old.diag(Severity::Warning, code, file, p, "");
            format!("{}:{}:{} {p}", o.file, o.line, o.column)
        });
        self.changes.push(Change {
            impact,
            finding: self
                .new
                .diag(Severity::Warning, code, file, pointer, message),
            was,
        });
    }

    fn breaking(
        &mut self,
        code: &'static str,
        file: SpecFile,
        pointer: &str,
        was: Option<&str>,
        message: String,
    ) {
        self.push(Impact::Breaking, code, file, pointer, was, message);
    }

    fn additive(&mut self, code: &'static str, file: SpecFile, pointer: &str, message: String) {
        self.push(Impact::Additive, code, file, pointer, None, message);
    }
}

/// Compares the spec in `old_dir` (shown as `old_label`) with the one in `new_dir`.
///
/// # Errors
/// A [`Report`] when either spec has errors (a broken spec has nothing
/// reliable to compare); the earlier spec's findings are shown under
/// `old_label`.
pub fn compare_labeled(
    old_dir: &Path,
    old_label: &str,
    new_dir: &Path,
) -> Result<Comparison, Report> {
    let mut old_a = crate::analyze(old_dir)?;
    old_a.spec.dir = PathBuf::from(old_label);
    if old_a.diags.iter().any(|d| d.severity == Severity::Error) {
        return Err(Report::new(old_a.diags));
    }
    let new_a = crate::analyze(new_dir)?;
    if new_a.diags.iter().any(|d| d.severity == Severity::Error) {
        return Err(Report::new(new_a.diags));
    }
    let mut cx = Ctx {
        old: &old_a.spec,
        new: &new_a.spec,
        changes: Vec::new(),
    };
    structures(&mut cx, &old_a.model, &new_a.model);
    patterns(&mut cx, &old_a.model, &new_a.model);
    directives(&mut cx);
    let mut changes = cx.changes;
    changes.sort_by(|a, b| {
        let (x, y) = (&a.finding, &b.finding);
        (a.impact, &x.file, x.line, x.column, x.code)
            .cmp(&(b.impact, &y.file, y.line, y.column, y.code))
    });
    changes.dedup();
    let breaking = changes
        .iter()
        .filter(|c| c.impact == Impact::Breaking)
        .count();
    let additive = changes.len() - breaking;
    let findings = version_rule(
        &new_a.spec,
        &old_a.model.version,
        &new_a.model.version,
        breaking,
        additive,
    );
    Ok(Comparison {
        against: old_label.to_owned(),
        old_version: old_a.model.version.clone(),
        new_version: new_a.model.version.clone(),
        breaking,
        additive,
        changes,
        findings,
    })
}

/// [`compare_labeled`], showing the earlier spec by its directory.
///
/// # Errors
/// As [`compare_labeled`].
pub fn compare(old_dir: &Path, new_dir: &Path) -> Result<Comparison, Report> {
    compare_labeled(
        old_dir,
        &old_dir.to_string_lossy().replace('\\', "/"),
        new_dir,
    )
}

/// `MAJOR.MINOR.PATCH` of a version, ignoring a pre-release or build suffix.
pub fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.split(['-', '+']).next()?;
    let mut it = core.split('.').map(|p| {
        if p.is_empty() || (p.len() > 1 && p.starts_with('0')) {
            None
        } else {
            p.parse::<u64>().ok()
        }
    });
    let v = (it.next()??, it.next()??, it.next()??);
    it.next().is_none().then_some(v)
}

fn version_rule(
    new: &Spec,
    old_v: &str,
    new_v: &str,
    breaking: usize,
    additive: usize,
) -> Vec<Diagnostic> {
    let diag = |sev, code, msg: String| new.diag(sev, code, SpecFile::Structures, "/version", msg);
    let (Some(o), Some(n)) = (parse_version(old_v), parse_version(new_v)) else {
        let bad = if parse_version(old_v).is_none() {
            format!("the earlier spec's `{old_v}`")
        } else {
            format!("`{new_v}`")
        };
        return vec![diag(
            Severity::Error,
            "version-not-semver",
            format!(
                "{bad} is not a MAJOR.MINOR.PATCH version, so the version rule cannot be checked"
            ),
        )];
    };
    // Cargo's semver: below 1.0.0 the first non-zero part is the major one.
    let compatible_part = |v: (u64, u64, u64)| {
        if v.0 > 0 {
            (v.0, 0)
        } else if v.1 > 0 {
            (0, v.1)
        } else {
            (0, 0)
        }
    };
    let major_bumped = compatible_part(n) > compatible_part(o) || (o.0 == 0 && o.1 == 0 && n > o);
    let minor_bumped = if n.0 > 0 || o.0 > 0 {
        (n.0, n.1) > (o.0, o.1)
    } else {
        n > o
    };
    let mut out = Vec::new();
    if breaking > 0 && !major_bumped {
        let need = if o.0 > 0 {
            format!("{}.0.0", o.0 + 1)
        } else {
            format!("0.{}.0", o.1 + 1)
        };
        out.push(diag(
            Severity::Error,
            "breaking-change-without-major-bump",
            format!("{breaking} breaking change(s) since version {old_v}, but `version` is {new_v}: a breaking change needs a major bump (at least {need})"),
        ));
    } else if breaking == 0 && additive > 0 && !minor_bumped {
        let need = if o.0 > 0 {
            format!("{}.{}.0", o.0, o.1 + 1)
        } else {
            format!("0.{}.{}", o.1, o.2 + 1)
        };
        out.push(diag(
            Severity::Warning,
            "additive-change-without-minor-bump",
            format!("{additive} additive change(s) since version {old_v}, but `version` is {new_v}: an addition needs a minor bump (at least {need})"),
        ));
    }
    out
}

/// Where a field is listed in `structures.json`.
fn field_pointer(spec: &Spec, key: &str, field: &str) -> String {
    let s = child("/structures", key);
    match spec.structures.structures.get(key) {
        Some(st) => {
            if let Some(i) = st.required_fields.iter().position(|f| f == field) {
                format!("{s}/required_fields/{i}")
            } else if let Some(i) = st.optional_fields.iter().position(|f| f == field) {
                format!("{s}/optional_fields/{i}")
            } else {
                s
            }
        }
        None => s,
    }
}

/// A field's type as a report names it: the spec's name, and an
/// enumeration's type name (`enum `Status``).
fn type_name(f: &FieldIr) -> String {
    let spelling = f.ty.spelling();
    match &f.ty {
        crate::lower::FieldTy::Enum(e) => format!("{} `{e}`", spelling.value_type),
        _ => spelling.value_type.to_string(),
    }
}

fn structures(cx: &mut Ctx<'_>, old: &Model, new: &Model) {
    let new_by: BTreeMap<&str, &SentenceIr> =
        new.sentences.iter().map(|s| (s.key.as_str(), s)).collect();
    let old_keys: Vec<&str> = old.sentences.iter().map(|s| s.key.as_str()).collect();
    for o in &old.sentences {
        let sp = child("/structures", &o.key);
        let Some(n) = new_by.get(o.key.as_str()) else {
            cx.breaking(
                "structure-removed",
                SpecFile::Structures,
                "/structures",
                Some(&sp),
                format!(
                    "structure `{}` (`{}`) was removed or renamed",
                    o.key, o.type_name
                ),
            );
            continue;
        };
        for of in &o.fields {
            let was = field_pointer(cx.old, &o.key, &of.name);
            match n.fields.iter().find(|f| f.name == of.name) {
                None => cx.breaking(
                    "field-removed",
                    SpecFile::Structures,
                    &sp,
                    Some(&was),
                    format!("field `{}.{}` was removed or renamed", o.key, of.name),
                ),
                Some(nf) => {
                    let at = field_pointer(cx.new, &o.key, &nf.name);
                    if nf.ty != of.ty {
                        cx.breaking(
                            "field-type-changed",
                            SpecFile::Structures,
                            &at,
                            Some(&was),
                            format!(
                                "field `{}.{}` changed type: {} -> {}",
                                o.key,
                                of.name,
                                type_name(of),
                                type_name(nf)
                            ),
                        );
                    }
                    if nf.required && !of.required {
                        cx.breaking(
                            "field-made-required",
                            SpecFile::Structures,
                            &at,
                            Some(&was),
                            format!(
                                "field `{}.{}` was optional and is now required",
                                o.key, of.name
                            ),
                        );
                    } else if !nf.required && of.required {
                        cx.breaking("field-made-optional", SpecFile::Structures, &at, Some(&was), format!("field `{}.{}` was required and is now optional (its Rust type becomes an `Option`)", o.key, of.name));
                    }
                }
            }
        }
        for nf in n
            .fields
            .iter()
            .filter(|f| !o.fields.iter().any(|x| x.name == f.name))
        {
            let at = field_pointer(cx.new, &o.key, &nf.name);
            if nf.required {
                cx.breaking(
                    "required-field-added",
                    SpecFile::Structures,
                    &at,
                    None,
                    format!(
                        "required field `{}.{}` was added: a sentence of the earlier spec lacks it",
                        o.key, nf.name
                    ),
                );
            } else {
                cx.additive(
                    "field-added",
                    SpecFile::Structures,
                    &at,
                    format!("optional field `{}.{}` was added", o.key, nf.name),
                );
            }
        }
        example_reading(cx, old, o, new, n);
    }
    for n in new
        .sentences
        .iter()
        .filter(|s| !old_keys.contains(&s.key.as_str()))
    {
        cx.additive(
            "structure-added",
            SpecFile::Structures,
            &child("/structures", &n.key),
            format!("structure `{}` was added", n.key),
        );
    }
}

/// The earlier example sentence of a structure must parse with the new spec
/// as the same values and render as the earlier spec rendered it.
fn example_reading(cx: &mut Ctx<'_>, old: &Model, o: &SentenceIr, new: &Model, n: &SentenceIr) {
    let text = &o.example_sentence;
    let Ok(old_values) = reference_parse_within(o, text, old.directives.limits.max_args_bytes)
    else {
        return;
    };
    let at = child(&child("/structures", &n.key), "template");
    let was = child(&child("/structures", &o.key), "example");
    match reference_parse_within(n, text, new.directives.limits.max_args_bytes) {
        Err(why) => cx.breaking(
            "example-no-longer-parses",
            SpecFile::Structures,
            &at,
            Some(&was),
            format!(
                "the earlier example `{text}` of `{}` no longer parses ({why})",
                o.key
            ),
        ),
        Ok(new_values) => {
            if new_values != old_values {
                cx.breaking(
                    "example-reads-differently",
                    SpecFile::Structures,
                    &at,
                    Some(&was),
                    format!(
                        "the earlier example `{text}` of `{}` reads {} instead of {}",
                        o.key,
                        values_text(&new_values),
                        values_text(&old_values)
                    ),
                );
                return;
            }
            let (before, after) = (
                reference_render(o, &old_values),
                reference_render(n, &new_values),
            );
            if before != after {
                cx.breaking(
                    "rendering-changed",
                    SpecFile::Structures,
                    &at,
                    Some(&was),
                    format!(
                        "`{}` renders its earlier example's values as `{after}`, not `{before}`",
                        o.key
                    ),
                );
            }
        }
    }
}

fn values_text(v: &indexmap::IndexMap<String, Option<String>>) -> String {
    let parts: Vec<String> = v
        .iter()
        .map(|(k, v)| {
            format!(
                "{k}={}",
                v.as_deref()
                    .map_or("(none)".to_owned(), |s| format!("{s:?}"))
            )
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The captures of a full match of `source` on `text`, or `None` when it does not match.
fn full_captures(source: &str, text: &str) -> Option<BTreeMap<String, String>> {
    let re = Regex::new(&format!(r"\A(?:{source})\z")).ok()?;
    let caps = re.captures(text)?;
    Some(
        re.capture_names()
            .flatten()
            .filter_map(|g| caps.name(g).map(|m| (g.to_owned(), m.as_str().to_owned())))
            .collect(),
    )
}

fn patterns(cx: &mut Ctx<'_>, old: &Model, new: &Model) {
    for op in &old.patterns {
        let pp = child("/patterns", &op.key);
        let Some(np) = new.patterns.iter().find(|p| p.key == op.key) else {
            cx.breaking(
                "pattern-removed",
                SpecFile::Patterns,
                "/patterns",
                Some(&pp),
                format!("pattern `{}` was removed or renamed", op.key),
            );
            continue;
        };
        let mut broke = false;
        for og in &op.groups {
            let gp = child(&child(&pp, "groups"), &og.name);
            let Some(ng) = np.groups.iter().find(|g| g.name == og.name) else {
                cx.breaking(
                    "group-removed",
                    SpecFile::Patterns,
                    &pp,
                    Some(&gp),
                    format!(
                        "group `{}` of pattern `{}` was removed or renamed",
                        og.name, op.key
                    ),
                );
                broke = true;
                continue;
            };
            if ng.ty != og.ty {
                cx.breaking(
                    "group-type-changed",
                    SpecFile::Patterns,
                    &gp,
                    Some(&gp),
                    format!(
                        "group `{}` of pattern `{}` changed type: {:?} -> {:?}",
                        og.name, op.key, og.ty, ng.ty
                    )
                    .to_lowercase(),
                );
                broke = true;
            }
            for (i, v) in og.values.iter().enumerate() {
                if !ng.values.contains(v) {
                    let was = format!("{gp}/values/{i}");
                    cx.breaking(
                        "enum-value-removed",
                        SpecFile::Patterns,
                        &child(&gp, "values"),
                        Some(&was),
                        format!(
                            "value `{v}` of group `{}` (pattern `{}`) was removed or renamed",
                            og.name, op.key
                        ),
                    );
                    broke = true;
                }
            }
            for (i, v) in ng.values.iter().enumerate() {
                if !og.values.contains(v) && og.ty == ng.ty {
                    cx.additive(
                        "enum-value-added",
                        SpecFile::Patterns,
                        &format!("{gp}/values/{i}"),
                        format!(
                            "value `{v}` was added to group `{}` (pattern `{}`)",
                            og.name, op.key
                        ),
                    );
                }
            }
        }
        for ng in np
            .groups
            .iter()
            .filter(|g| !op.groups.iter().any(|o| o.name == g.name))
        {
            cx.additive(
                "group-added",
                SpecFile::Patterns,
                &child(&child(&pp, "groups"), &ng.name),
                format!("group `{}` was added to pattern `{}`", ng.name, op.key),
            );
        }
        let at = child(&pp, "pattern");
        for (i, ex) in op.matches.iter().enumerate() {
            let was = format!("{pp}/matches/{i}");
            let Some(before) = full_captures(&op.source, &ex.text) else {
                continue;
            };
            match full_captures(&np.source, &ex.text) {
                None => {
                    cx.breaking(
                        "example-no-longer-matches",
                        SpecFile::Patterns,
                        &at,
                        Some(&was),
                        format!(
                            "pattern `{}` no longer matches the earlier example `{}`",
                            op.key, ex.text
                        ),
                    );
                    broke = true;
                }
                Some(after) => {
                    // Groups removed are reported above; added groups add.
                    let differ: Vec<String> = before
                        .iter()
                        .filter(|(g, _)| np.groups.iter().any(|x| &x.name == *g))
                        .filter(|(g, v)| after.get(*g) != Some(v))
                        .map(|(g, v)| {
                            format!(
                                "`{g}` = {:?}, was {v:?}",
                                after.get(g).map_or("(none)", String::as_str)
                            )
                        })
                        .chain(
                            after
                                .iter()
                                .filter(|(g, _)| {
                                    !before.contains_key(*g)
                                        && op.groups.iter().any(|x| &x.name == *g)
                                })
                                .map(|(g, v)| format!("`{g}` = {v:?}, was (none)")),
                        )
                        .collect();
                    if !differ.is_empty() {
                        cx.breaking(
                            "example-captures-differ",
                            SpecFile::Patterns,
                            &at,
                            Some(&was),
                            format!(
                                "pattern `{}` captures the earlier example `{}` differently: {}",
                                op.key,
                                ex.text,
                                differ.join(", ")
                            ),
                        );
                        broke = true;
                    }
                }
            }
        }
        if !broke && (np.source != op.source) {
            cx.additive(
                "pattern-changed",
                SpecFile::Patterns,
                &at,
                format!(
                    "pattern `{}` changed, and reads every earlier example as before",
                    op.key
                ),
            );
        }
    }
    for np in new
        .patterns
        .iter()
        .filter(|p| !old.patterns.iter().any(|o| o.key == p.key))
    {
        cx.additive(
            "pattern-added",
            SpecFile::Patterns,
            &child("/patterns", &np.key),
            format!("pattern `{}` was added", np.key),
        );
    }
}

/// Compares two keyed maps: a key removed or its value changed is breaking,
/// a key added additive.
#[allow(clippy::too_many_arguments)]
fn keyed<V: PartialEq + fmt::Debug>(
    cx: &mut Ctx<'_>,
    parent: &str,
    what: &str,
    removed: &'static str,
    changed: &'static str,
    added: &'static str,
    old: &[(String, V)],
    new: &[(String, V)],
) {
    for (k, v) in old {
        let p = child(parent, k);
        match new.iter().find(|(nk, _)| nk == k) {
            None => cx.breaking(
                removed,
                SpecFile::Directives,
                parent,
                Some(&p),
                format!("{what} `{k}` was removed or renamed"),
            ),
            Some((_, nv)) if nv != v => cx.breaking(
                changed,
                SpecFile::Directives,
                &p,
                Some(&p),
                format!("{what} `{k}` changed: {v:?} -> {nv:?}"),
            ),
            Some(_) => {}
        }
    }
    for (k, _) in new.iter().filter(|(k, _)| !old.iter().any(|(o, _)| o == k)) {
        cx.additive(
            added,
            SpecFile::Directives,
            &child(parent, k),
            format!("{what} `{k}` was added"),
        );
    }
}

/// A list compared as a set: a value removed is breaking, one added additive.
fn listed(
    cx: &mut Ctx<'_>,
    pointer: &str,
    what: &str,
    removed: &'static str,
    added: &'static str,
    old: &[String],
    new: &[String],
) {
    for (i, v) in old.iter().enumerate() {
        if !new.contains(v) {
            cx.breaking(
                removed,
                SpecFile::Directives,
                pointer,
                Some(&format!("{pointer}/{i}")),
                format!("{what} `{v}` was removed or renamed"),
            );
        }
    }
    for (i, v) in new.iter().enumerate() {
        if !old.contains(v) {
            cx.additive(
                added,
                SpecFile::Directives,
                &format!("{pointer}/{i}"),
                format!("{what} `{v}` was added"),
            );
        }
    }
}

fn directives(cx: &mut Ctx<'_>) {
    let (o, n) = (cx.old.directives.clone(), cx.new.directives.clone());
    let pairs = |m: &indexmap::IndexMap<String, String>| {
        m.iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    let engines = |m: &indexmap::IndexMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
    listed(
        cx,
        "/engines",
        "engine",
        "directive-form-removed",
        "directive-form-added",
        &engines(&o.engines),
        &engines(&n.engines),
    );
    listed(
        cx,
        "/bracket/engines",
        "bracket engine",
        "directive-form-removed",
        "directive-form-added",
        &o.bracket.engines,
        &n.bracket.engines,
    );
    let shorthands = |m: &indexmap::IndexMap<String, crate::model::Shorthand>| {
        m.iter()
            .map(|(k, s)| (k.clone(), (s.op.clone(), s.engine.clone())))
            .collect::<Vec<_>>()
    };
    keyed(
        cx,
        "/shorthands",
        "shorthand",
        "directive-form-removed",
        "op-changed",
        "directive-form-added",
        &shorthands(&o.shorthands),
        &shorthands(&n.shorthands),
    );
    keyed(
        cx,
        "/fences/info_strings",
        "fence",
        "fence-removed",
        "fence-changed",
        "fence-added",
        &pairs(&o.fences.info_strings),
        &pairs(&n.fences.info_strings),
    );
    keyed(
        cx,
        "/aliases",
        "alias",
        "alias-removed",
        "op-changed",
        "alias-added",
        &pairs(&o.aliases),
        &pairs(&n.aliases),
    );
    // The ops the grammar names (shorthand and alias targets): one no longer named is removed.
    let ops = |d: &crate::model::DirectivesFile| {
        let mut v: Vec<String> = d
            .shorthands
            .values()
            .map(|s| s.op.clone())
            .chain(d.aliases.values().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let new_ops = ops(&n);
    for op in ops(&o).iter().filter(|op| !new_ops.contains(op)) {
        cx.breaking(
            "op-removed",
            SpecFile::Directives,
            "/aliases",
            None,
            format!("op `{op}` is no longer named by any shorthand or alias"),
        );
    }
    if o.op_pattern != n.op_pattern {
        cx.breaking(
            "directive-form-changed",
            SpecFile::Directives,
            "/op_pattern",
            Some("/op_pattern"),
            format!(
                "the op pattern changed: `{}` -> `{}`",
                o.op_pattern, n.op_pattern
            ),
        );
    }
    let curl = |c: &crate::model::CurlForm| {
        vec![
            ("path".to_owned(), c.path.clone()),
            ("engine".into(), c.engine.clone()),
            ("op_key".into(), c.op_key.clone()),
            ("args_key".into(), c.args_key.clone()),
        ]
    };
    keyed(
        cx,
        "/curl",
        "curl setting",
        "directive-form-removed",
        "directive-form-changed",
        "directive-form-added",
        &curl(&o.curl),
        &curl(&n.curl),
    );
    listed(
        cx,
        "/curl/data_flags",
        "curl payload flag",
        "directive-form-removed",
        "directive-form-added",
        &o.curl.data_flags,
        &n.curl.data_flags,
    );
    listed(
        cx,
        "/curl/value_options",
        "curl option",
        "directive-form-removed",
        "directive-form-added",
        &o.curl.value_options,
        &n.curl.value_options,
    );
    for (list, what, ol, nl) in [
        (
            "/curl/flag_options",
            "curl flag",
            &o.curl.flag_options,
            &n.curl.flag_options,
        ),
        (
            "/curl/method_options",
            "curl method option",
            &o.curl.method_options,
            &n.curl.method_options,
        ),
        (
            "/curl/methods",
            "curl method",
            &o.curl.methods,
            &n.curl.methods,
        ),
        (
            "/curl/url_options",
            "curl URL option",
            &o.curl.url_options,
            &n.curl.url_options,
        ),
    ] {
        listed(
            cx,
            list,
            what,
            "directive-form-removed",
            "directive-form-added",
            ol,
            nl,
        );
    }
    for (name, ov, nv) in [
        (
            "max_json_depth",
            o.limits.max_json_depth,
            n.limits.max_json_depth,
        ),
        (
            "max_args_bytes",
            o.limits.max_args_bytes,
            n.limits.max_args_bytes,
        ),
    ] {
        let p = format!("/limits/{name}");
        if nv < ov {
            cx.breaking(
                "limit-lowered",
                SpecFile::Directives,
                &p,
                Some(&p),
                format!("limit `{name}` was lowered: {ov} -> {nv}"),
            );
        } else if nv > ov {
            cx.additive(
                "limit-raised",
                SpecFile::Directives,
                &p,
                format!("limit `{name}` was raised: {ov} -> {nv}"),
            );
        }
    }
}
