//! The Markdown docs under `generated/docs/`, rendered with tera templates
//! kept beside the generator (`codegen/templates/docs/`).
//!
//! Rust builds a serializable view of the lowered model ([`DocsContext`]);
//! every word of the documents is in the templates. The filters registered
//! here only escape: spec text into Markdown prose ([`md`]), table cells,
//! code spans ([`code_span`]), fenced blocks ([`fence`]), shell words and
//! Mermaid labels.

use std::collections::HashMap;

use serde::Serialize;
use tera::{Context, Tera, Value};

use crate::emit::header::{decisions_url, MD_HEADER};
use crate::lifecycle::{self, Lifecycle, Transition};
use crate::lower::{FieldIr, GroupIr, Model, PatternIr, SentenceIr};

/// The templates, compiled into the generator so that a build script needs
/// no file but the spec. Names are the file names under `codegen/templates/docs/`.
const TEMPLATES: [(&str, &str); 5] = [
    (
        "ops.md.tera",
        include_str!("../../templates/docs/ops.md.tera"),
    ),
    (
        "directives.md.tera",
        include_str!("../../templates/docs/directives.md.tera"),
    ),
    (
        "sentence-structure.md.tera",
        include_str!("../../templates/docs/sentence-structure.md.tera"),
    ),
    (
        "regex-patterns.md.tera",
        include_str!("../../templates/docs/regex-patterns.md.tera"),
    ),
    (
        "box-docs.md.tera",
        include_str!("../../templates/docs/box-docs.md.tera"),
    ),
];

/// The structure key of the conversational contract footer, which
/// `SENTENCE-STRUCTURE.md` also shows in a section of its own.
pub const FOOTER_KEY: &str = "contract_footer";

/// Everything the templates see.
#[derive(Debug, Serialize)]
pub struct DocsContext<'a> {
    /// The fixed first line ([`MD_HEADER`]).
    pub header: &'static str,
    /// Where a cited decision is explained ([`decisions_url`]).
    pub decisions: String,
    /// `structures.json` title.
    pub structures_title: &'a str,
    /// `structures.json` version.
    pub structures_version: &'a str,
    /// `structures.json` surface, when given.
    pub surface: Option<&'a str>,
    /// `regex_patterns.json` title.
    pub patterns_title: &'a str,
    /// `regex_patterns.json` version.
    pub patterns_version: &'a str,
    /// The lifecycle graph.
    pub lifecycle: &'a Lifecycle,
    /// The loop state machine (`schema/loops.json`), if the spec has one.
    pub machine: Option<&'a crate::loops::MachineIr>,
    /// Every structure, in spec order.
    pub sentences: Vec<SentenceDoc<'a>>,
    /// Every pattern, in spec order.
    pub patterns: Vec<PatternDoc<'a>>,
    /// The contract footer structure, when the spec has one.
    pub footer: Option<SentenceDoc<'a>>,
    /// The directive grammar (`schema/directives.json`).
    pub directives: &'a crate::model::DirectivesFile,
    /// The op catalogue (`schema/ops.json`), if the spec has one.
    pub ops: Option<&'a crate::ops::OpsIr>,
    /// `ops.json` title, if the spec has one.
    pub ops_title: Option<&'a str>,
    /// `ops.json` source, if the spec has one.
    pub ops_source: Option<&'a str>,
}

/// A structure as the docs show it: the lowered sentence plus what the
/// templates cannot look up themselves.
#[derive(Debug, Clone, Serialize)]
pub struct SentenceDoc<'a> {
    /// The lowered sentence (its fields flattened into this object).
    #[serde(flatten)]
    pub ir: &'a SentenceIr,
    /// The fields with their enum values.
    pub field_docs: Vec<FieldDoc<'a>>,
    /// The owner's example's text after the sentence (decision P8, `docs/decisions/sentences.md`),
    /// trimmed; `None` when the example is the sentence.
    pub trailing_prose: Option<&'a str>,
    /// `lifecycle_transition` read by [`lifecycle::parse`].
    pub transition: Transition,
    /// The transition's edges as `(from, to)` state names.
    pub transition_edges: Vec<(String, String)>,
    /// For the contract footer: keys of the structures whose marker the
    /// footer names (see [`footer_replies`]); empty otherwise.
    pub replies: Vec<&'a str>,
}

/// A field with the closed set of values of its enum type, if any.
#[derive(Debug, Clone, Serialize)]
pub struct FieldDoc<'a> {
    /// The lowered field (flattened).
    #[serde(flatten)]
    pub ir: &'a FieldIr,
    /// Allowed texts for an enum field, in spec order; empty otherwise.
    pub values: &'a [String],
}

/// A pattern as the docs show it.
#[derive(Debug, Clone, Serialize)]
pub struct PatternDoc<'a> {
    /// The lowered pattern (flattened).
    #[serde(flatten)]
    pub ir: &'a PatternIr,
    /// The flags as an inline prefix, e.g. `(?s)`; empty without flags.
    pub flag_prefix: String,
    /// The example of the directory table: the first `matches` text that can
    /// stand in a table cell (one line, no leading or trailing space).
    pub directory_example: Option<&'a str>,
    /// The groups with the structure fields they fill.
    pub group_docs: Vec<GroupDoc<'a>>,
    /// The structures bound to this pattern.
    pub bound_by: Vec<Bound<'a>>,
    /// Keys of the structures whose owner's `regex_ref` names this pattern
    /// but that a binding moves to another pattern.
    pub referenced_by: Vec<&'a str>,
}

/// A named group with what it fills in each structure bound to its pattern.
#[derive(Debug, Clone, Serialize)]
pub struct GroupDoc<'a> {
    /// The lowered group (flattened).
    #[serde(flatten)]
    pub ir: &'a GroupIr,
    /// One entry per bound structure.
    pub fills: Vec<Fill<'a>>,
}

/// What a group does in one structure.
#[derive(Debug, Clone, Serialize)]
pub struct Fill<'a> {
    /// Structure key.
    pub structure: &'a str,
    /// The field it fills, if any.
    pub field: Option<&'a str>,
    /// The text it must capture, when the binding fixes it.
    pub fixed: Option<&'a str>,
}

/// A structure bound to a pattern.
#[derive(Debug, Clone, Serialize)]
pub struct Bound<'a> {
    /// Structure key.
    pub structure: &'a str,
    /// The owner's `regex_ref` of that structure.
    pub regex_ref: &'a str,
    /// Groups fixed by the binding: `(group, text)`.
    pub fixed: &'a [(String, String)],
    /// The binding's note.
    pub note: Option<&'a str>,
}

/// The marker word of a protocol tag: `[ACK:]` → `ACK`, `[CLAIM ]` → `CLAIM`.
fn tag_word(tag: &str) -> &str {
    tag.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim()
        .trim_end_matches(':')
        .trim()
}

/// Keys of the structures whose marker the footer's template names as
/// `[WORD ` or `[WORD:` (`ack`, `claim`, … for the real spec), in spec order.
pub fn footer_replies<'a>(model: &'a Model, footer: &SentenceIr) -> Vec<&'a str> {
    model
        .sentences
        .iter()
        .filter(|s| s.key != footer.key)
        .filter(|s| {
            let word = tag_word(&s.tag);
            !word.is_empty()
                && !word.contains(char::is_whitespace)
                && (footer.template.contains(&format!("[{word} "))
                    || footer.template.contains(&format!("[{word}:")))
        })
        .map(|s| s.key.as_str())
        .collect()
}

fn sentence_doc<'a>(model: &'a Model, s: &'a SentenceIr) -> SentenceDoc<'a> {
    let pattern = model.patterns.iter().find(|p| p.key == s.pattern_key);
    let field_docs = s
        .fields
        .iter()
        .map(|f| {
            let group =
                pattern.and_then(|p| p.groups.iter().find(|g| f.groups.first() == Some(&g.name)));
            FieldDoc {
                ir: f,
                values: group.map_or(&[][..], |g| g.values.as_slice()),
            }
        })
        .collect();
    let trailing = s
        .example
        .strip_prefix(s.example_sentence.as_str())
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let transition = lifecycle::parse(&s.lifecycle_transition);
    let transition_edges = transition.edges();
    let replies = if s.key == FOOTER_KEY {
        footer_replies(model, s)
    } else {
        Vec::new()
    };
    SentenceDoc {
        ir: s,
        field_docs,
        trailing_prose: trailing,
        transition,
        transition_edges,
        replies,
    }
}

fn pattern_doc<'a>(model: &'a Model, p: &'a PatternIr) -> PatternDoc<'a> {
    let bound: Vec<&SentenceIr> = model
        .sentences
        .iter()
        .filter(|s| s.pattern_key == p.key)
        .collect();
    let group_docs = p
        .groups
        .iter()
        .map(|g| GroupDoc {
            ir: g,
            fills: bound
                .iter()
                .map(|s| Fill {
                    structure: &s.key,
                    field: s.field_of_group(&g.name).map(|f| f.name.as_str()),
                    fixed: s
                        .fixed
                        .iter()
                        .find(|(fg, _)| fg == &g.name)
                        .map(|(_, v)| v.as_str()),
                })
                .collect(),
        })
        .collect();
    let directory_example = p
        .matches
        .iter()
        .map(|m| m.text.as_str())
        .find(|t| !t.contains(['\n', '\r']) && t.trim() == *t && !t.is_empty());
    PatternDoc {
        ir: p,
        flag_prefix: crate::pattern::flag_prefix(&p.flags),
        directory_example,
        group_docs,
        bound_by: bound
            .iter()
            .map(|s| Bound {
                structure: &s.key,
                regex_ref: &s.regex_ref,
                fixed: &s.fixed,
                note: s.binding_note.as_deref(),
            })
            .collect(),
        referenced_by: model
            .sentences
            .iter()
            .filter(|s| s.regex_ref == p.key && s.pattern_key != p.key)
            .map(|s| s.key.as_str())
            .collect(),
    }
}

/// Builds the templates' context from the lowered model.
pub fn context(model: &Model) -> DocsContext<'_> {
    DocsContext {
        header: MD_HEADER,
        decisions: decisions_url(),
        structures_title: &model.title,
        structures_version: &model.version,
        surface: model.surface.as_deref(),
        patterns_title: &model.patterns_title,
        patterns_version: &model.patterns_version,
        lifecycle: &model.lifecycle,
        machine: model.machine.as_ref(),
        sentences: model
            .sentences
            .iter()
            .map(|s| sentence_doc(model, s))
            .collect(),
        patterns: model
            .patterns
            .iter()
            .map(|p| pattern_doc(model, p))
            .collect(),
        footer: model
            .sentences
            .iter()
            .find(|s| s.key == FOOTER_KEY)
            .map(|s| sentence_doc(model, s)),
        directives: &model.directives,
        ops: model.ops.as_ref(),
        ops_title: model.ops.as_ref().map(|o| o.title.as_str()),
        ops_source: model.ops.as_ref().map(|o| o.source.as_str()),
    }
}

// ---------------------------------------------------------------- escaping

/// Splits Markdown source into `(is_code, piece)` runs: a run of `n`
/// backticks opens a code span that the next run of exactly `n` backticks
/// closes (CommonMark); a run with no closer is literal text.
fn code_runs(text: &str) -> Vec<(bool, &str)> {
    let bytes = text.as_bytes();
    let run_at = |i: usize| bytes[i..].iter().take_while(|&&b| b == b'`').count();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let m = run_at(j);
                if m == n {
                    close = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                if start < i {
                    out.push((false, &text[start..i]));
                }
                out.push((true, &text[i..end]));
                start = end;
                i = end;
            }
            None => i += n,
        }
    }
    if start < text.len() {
        out.push((false, &text[start..]));
    }
    out
}

/// Spec text for a rustdoc comment: [`md`], and `[`/`]` outside code spans
/// escaped too, so that markers like `[WO:<id>]` are not read as links or
/// HTML tags.
pub fn rustdoc(text: &str) -> String {
    let escaped = md(text, false).expect("md fails only for table cells");
    let mut out = String::with_capacity(escaped.len() + 8);
    for (is_code, piece) in code_runs(&escaped) {
        if is_code {
            out.push_str(piece);
        } else {
            let mut prev = '\0';
            for c in piece.chars() {
                if (c == '[' || c == ']') && prev != '\\' {
                    out.push('\\');
                }
                out.push(c);
                prev = c;
            }
        }
    }
    out
}

/// Spec prose (which may hold `` `code` `` spans) as Markdown that renders
/// as written: outside code spans, `\ < * ~ |`, stray backticks, `_` at a word
/// boundary and `(` right after `]` are backslash-escaped. In a table `cell`,
/// `|` inside code spans is escaped too (GFM), and a line break is an error.
///
/// # Errors
/// A line break in a table cell.
pub fn md(text: &str, cell: bool) -> Result<String, String> {
    if cell && text.contains(['\n', '\r']) {
        return Err(format!("a table cell cannot hold a line break: {text:?}"));
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (is_code, piece) in code_runs(text) {
        if is_code {
            out.push_str(&if cell {
                piece.replace('|', "\\|")
            } else {
                piece.to_owned()
            });
            continue;
        }
        let chars: Vec<char> = piece.chars().collect();
        for (k, &c) in chars.iter().enumerate() {
            let prev = k.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(k + 1).copied();
            let escape = match c {
                '\\' | '<' | '*' | '~' | '|' | '`' => true,
                '_' => {
                    !(prev.is_some_and(char::is_alphanumeric)
                        && next.is_some_and(char::is_alphanumeric))
                }
                '(' => prev == Some(']'),
                _ => false,
            };
            if escape {
                out.push('\\');
            }
            out.push(c);
        }
    }
    Ok(out)
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text` as one inline code span that renders exactly as `text`: the fence
/// is longer than any backtick run inside, and padded with a space when the
/// text starts or ends with a backtick or a space. In a table `cell`, `|` is
/// escaped (GFM).
///
/// # Errors
/// Empty or all-space text, or a line break (code spans turn them into spaces).
pub fn code_span(text: &str, cell: bool) -> Result<String, String> {
    if text.trim_matches(' ').is_empty() {
        return Err(format!("a code span cannot show {text:?}"));
    }
    if text.contains(['\n', '\r']) {
        return Err(format!(
            "a code span cannot show a line break: {text:?}; use a fenced block"
        ));
    }
    let fence = "`".repeat(longest_backtick_run(text) + 1);
    let pad = if text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    let body = if cell {
        text.replace('|', "\\|")
    } else {
        text.to_owned()
    };
    Ok(format!("{fence}{pad}{body}{pad}{fence}"))
}

/// `text` as a fenced code block with info string `info`; the fence is longer
/// than any backtick run inside. The block's content is `text` plus a newline.
pub fn fence(text: &str, info: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(text) + 1).max(3));
    format!("{fence}{info}\n{text}\n{fence}")
}

/// A Mermaid label between double quotes: `"` becomes `#quot;`, line breaks spaces.
pub fn mermaid_label(text: &str) -> String {
    text.replace('"', "#quot;").replace(['\n', '\r'], " ")
}

fn arg_str<'v>(value: &'v Value, filter: &str) -> tera::Result<&'v str> {
    value
        .as_str()
        .ok_or_else(|| tera::Error::msg(format!("filter `{filter}` takes a string, got {value}")))
}

fn flag(args: &HashMap<String, Value>, name: &str) -> bool {
    args.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn register_filters(tera: &mut Tera) {
    tera.register_filter("md", |v: &Value, args: &HashMap<String, Value>| {
        md(arg_str(v, "md")?, flag(args, "cell"))
            .map(Value::String)
            .map_err(tera::Error::msg)
    });
    tera.register_filter("code", |v: &Value, args: &HashMap<String, Value>| {
        code_span(arg_str(v, "code")?, flag(args, "cell"))
            .map(Value::String)
            .map_err(tera::Error::msg)
    });
    tera.register_filter("fence", |v: &Value, args: &HashMap<String, Value>| {
        let info = args.get("info").and_then(Value::as_str).unwrap_or("");
        Ok(Value::String(fence(arg_str(v, "fence")?, info)))
    });
    tera.register_filter("shell", |v: &Value, _: &HashMap<String, Value>| {
        let text = arg_str(v, "shell")?;
        shlex::try_quote(text)
            .map(|q| Value::String(q.into_owned()))
            .map_err(|e| tera::Error::msg(format!("cannot quote {text:?}: {e}")))
    });
    tera.register_filter("mermaid", |v: &Value, _: &HashMap<String, Value>| {
        Ok(Value::String(mermaid_label(arg_str(v, "mermaid")?)))
    });
}

fn render(template: &str, ctx: &DocsContext<'_>) -> String {
    let mut tera = Tera::default();
    tera.autoescape_on(Vec::new());
    register_filters(&mut tera);
    tera.add_raw_templates(TEMPLATES)
        .unwrap_or_else(|e| panic!("the docs templates do not parse: {}", error_chain(&e)));
    let context = Context::from_serialize(ctx).expect("the docs context serializes");
    tera.render(template, &context)
        .unwrap_or_else(|e| panic!("rendering {template} failed: {}", error_chain(&e)))
}

fn error_chain(e: &tera::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// `generated/docs/SENTENCE-STRUCTURE.md`: the lifecycle diagram, every
/// structure, the contract footer and the `box-docs` verbs.
pub fn sentence_structure_md(model: &Model) -> String {
    render("sentence-structure.md.tera", &context(model))
}

/// `generated/docs/REGEX-PATTERNS.md`: the pattern directory and every
/// pattern with its groups, flags and examples.
pub fn regex_patterns_md(model: &Model) -> String {
    render("regex-patterns.md.tera", &context(model))
}

/// `generated/docs/DIRECTIVES.md`: the in-band tool directive grammar and
/// the scanner's context rules.
pub fn directives_md(model: &Model) -> String {
    render("directives.md.tera", &context(model))
}

/// `OPS.md`: the op catalogue, every op with its flag, engines, aliases,
/// argument schema and examples; `None` when the spec has no `ops.json`.
pub fn ops_md(model: &Model) -> Option<String> {
    model
        .ops
        .is_some()
        .then(|| render("ops.md.tera", &context(model)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_escaped_outside_code_spans_only() {
        assert_eq!(
            md("[WO:<id>] [from <sender>]", false).unwrap(),
            r"[WO:\<id>] [from \<sender>]"
        );
        assert_eq!(
            md("not by the first `}]`", false).unwrap(),
            "not by the first `}]`"
        );
        assert_eq!(
            md("[ACK|CLAIM <id>] and `a|b`", true).unwrap(),
            r"[ACK\|CLAIM \<id>] and `a\|b`"
        );
        assert_eq!(md("[ACK|CLAIM]", false).unwrap(), r"[ACK\|CLAIM]");
        assert_eq!(
            md("dm_id _x_ *y* ~z~ a\\b", false).unwrap(),
            r"dm_id \_x\_ \*y\* \~z\~ a\\b"
        );
        assert_eq!(md("[x](y) a `stray", false).unwrap(), r"[x]\(y) a \`stray");
        assert_eq!(md("``a ` b`` c", false).unwrap(), "``a ` b`` c");
        assert!(md("two\nlines", true).is_err());
        assert_eq!(md("two\nlines", false).unwrap(), "two\nlines");
    }

    #[test]
    fn code_spans_survive_backticks_spaces_and_pipes() {
        assert_eq!(code_span("[ACK:]", false).unwrap(), "`[ACK:]`");
        assert_eq!(code_span("a | b", true).unwrap(), r"`a \| b`");
        assert_eq!(code_span("a | b", false).unwrap(), "`a | b`");
        assert_eq!(code_span("x `y` z", false).unwrap(), "``x `y` z``");
        assert_eq!(code_span("`y`", false).unwrap(), "`` `y` ``");
        assert_eq!(
            code_span("[DECLINE 7fce46e0] ", false).unwrap(),
            "` [DECLINE 7fce46e0]  `"
        );
        assert!(code_span(" ", false).is_err());
        assert!(code_span("a\nb", false).is_err());
    }

    #[test]
    fn fences_outgrow_the_backticks_inside() {
        assert_eq!(
            fence("[ACK:7fce46e0]", "text"),
            "```text\n[ACK:7fce46e0]\n```"
        );
        assert_eq!(fence("a\n```\nb", "text"), "````text\na\n```\nb\n````");
    }

    #[test]
    fn mermaid_labels_lose_quotes_and_breaks() {
        assert_eq!(mermaid_label("say \"hi\"\nnow"), "say #quot;hi#quot; now");
    }

    #[test]
    fn tag_words() {
        assert_eq!(tag_word("[ACK:]"), "ACK");
        assert_eq!(tag_word("[NO-ACTION ]"), "NO-ACTION");
        assert_eq!(tag_word("[fleet-alert]"), "fleet-alert");
        assert_eq!(tag_word("[Directive: ...]"), "Directive: ...");
    }
}
