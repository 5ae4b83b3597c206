//! Stage 3b, lower the grammar: the spec's structures, directive forms and
//! ops as a grammar model ([`Grammars`]) that the emitters write in
//! llguidance's Lark dialect and in GBNF (`crate::emit::grammar`).
//!
//! The grammar holds the *canonical* texts: what the generated renderers
//! write, so every text the grammar allows parses and renders back byte for
//! byte (P205). Each structure is its template, each `{field}` a sub-rule
//! translated from the field's group in the bound pattern ([`regex`]), an
//! optional field's segment optional. A structure with a JSON object field
//! (a tool call) and every directive form is one alternative per runnable
//! op that the form's engine may run, its arguments the op's JSON Schema
//! with canonical separators (P206). The reply grammar (P207) is lines of
//! free text (in which no sentence or call can start), sentences and calls,
//! then the verdict line last, its id a rule the caller fills.

pub mod json;
pub mod model;
pub mod regex;

pub use model::{op_ident, Expr, Grammar, Grammars, LeftOut, Rule};

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::diagnostic::{Diagnostic, Severity};
use crate::load::{Spec, SpecFile};
use crate::lower::ir::{FieldIr, FieldTy, Model, SentenceIr};
use crate::template::Piece;

/// Characters the free text of a reply never holds (P207): line breaks
/// (a line is a line), and every character that can start Markdown inline
/// syntax (a code span, HTML, an entity, emphasis, an escape, a link or a
/// table cell) that could take a sentence or call out of plain text, or
/// start one (`[`).
pub const FREE_TEXT_EXCLUDED: [char; 14] = [
    '\r', '\n', '[', ']', '`', '<', '>', '&', '*', '_', '\\', '~', '!', '|',
];

/// Characters a line of free text does not start with: blanks (indented
/// code), and what can start a block that takes the next lines in (a
/// quote, a list item, a fence, a heading or its underline).
pub const FREE_LINE_FIRST_EXCLUDED: [char; 20] = [
    ' ', '\t', '~', '>', '-', '+', '=', '#', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'c',
    ':',
];

/// Characters no text the reply grammar lets a model write holds, beside
/// [`FREE_TEXT_EXCLUDED`]: controls, format and other invisible
/// (default-ignorable) characters, line and paragraph separators
/// and odd spaces: the scanner refuses a call
/// that holds an invisible character, and readers trim or break on the
/// others (P207).
///
/// U+FFFD, the replacement character, is left out too (P302): a reader
/// that replaces invalid UTF-8 writes it, so a reply that holds one was not
/// written under the grammar.
pub const UNSEEN_CLASS: &str = r"[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\u{a0}\u{1680}\u{2000}-\u{200a}\u{202f}\u{205f}\u{3000}\u{fffd}]";

/// Every character the reply grammar leaves out of free text, reply
/// sentences' fields and call arguments' strings.
pub fn unplain() -> Vec<(char, char)> {
    let mut out = regex::class_ranges(UNSEEN_CLASS);
    out.extend(regex::ranges_of(&FREE_TEXT_EXCLUDED));
    out
}

/// The characters a string argument of a call may hold: printable,
/// no Markdown inline syntax (P206).
pub fn string_chars() -> Vec<(char, char)> {
    regex::subtract(&regex::ANY, &unplain())
}

/// The pattern [`string_chars`] gives string arguments, in the JSON
/// Schema's regex dialect.
pub fn string_pattern() -> String {
    let mut p = String::from("^[");
    for (a, b) in string_chars() {
        for (i, c) in [a, b].into_iter().enumerate() {
            if i == 1 {
                if b == a {
                    break;
                }
                p.push('-');
            }
            if c.is_ascii_alphanumeric() || c == ' ' {
                p.push(c);
            } else {
                p.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
        }
    }
    p.push_str("]*$");
    p
}

/// The canonical JSON Schema options of llguidance: the separators the
/// renderers write, no other whitespace, no escapes they never write.
fn canonical_schema(schema: &Value) -> Value {
    fn clamp(v: &mut Value) {
        if let Some(obj) = v.as_object_mut() {
            if obj.get("type").and_then(Value::as_str) == Some("string") {
                obj.entry("pattern").or_insert(json!(string_pattern()));
            }
            if obj.get("type").and_then(Value::as_str) == Some("integer") {
                obj.entry("maximum").or_insert(json!(i64::MAX));
                obj.entry("minimum").or_insert(json!(i64::MIN));
            }
            if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
                props.values_mut().for_each(clamp);
            }
            if let Some(items) = obj.get_mut("items") {
                clamp(items);
            }
        }
    }
    let mut s = schema.clone();
    clamp(&mut s);
    if let Some(obj) = s.as_object_mut() {
        obj.insert(
            "x-guidance".to_owned(),
            json!({
                "item_separator": ", ",
                "key_separator": ": ",
                "whitespace_flexible": false,
                "json_allowed_escapes": "\"\\bfnrt",
            }),
        );
    }
    s
}

/// The ops the grammar offers on `engine` (`None`: any engine), as
/// (name, canonical argument schema), in catalogue order: the runnable ops
/// only (incomplete ops are never offered).
fn offered(model: &Model, engine: Option<&str>) -> Vec<(String, Value)> {
    let Some(ops) = &model.ops else {
        return Vec::new();
    };
    ops.ops
        .iter()
        .filter(|op| op.runnable && engine.is_none_or(|e| op.engines.iter().any(|x| x == e)))
        .filter_map(|op| {
            let schema: Value = serde_json::from_str(op.args_schema.as_deref()?).ok()?;
            Some((op.name.clone(), canonical_schema(&schema)))
        })
        .collect()
}

/// The field rules of one structure, and its body; `Err` with findings
/// when a pattern cannot be expressed, `Ok(None)` when the structure is
/// left out (with the reason pushed).
#[allow(clippy::too_many_arguments)]
fn structure(
    spec: &Spec,
    model: &Model,
    s: &SentenceIr,
    g: &mut Grammar,
    left_out: &mut Vec<LeftOut>,
    diags: &mut Vec<Diagnostic>,
    exclude: &[(char, char)],
    prefix: &str,
) -> Option<Expr> {
    let name = format!("{prefix}{}", s.key);
    let pieces: Vec<&Piece> = s.segments.iter().flat_map(|seg| &seg.pieces).collect();
    let mut seen = BTreeSet::new();
    for p in &pieces {
        if let Piece::Field(f) = p {
            if !seen.insert(f.clone()) {
                left_out.push(LeftOut {
                    key: s.key.clone(),
                    reason: format!("its template writes `{{{f}}}` more than once, and a grammar cannot require two parts of a text to be equal"),
                });
                return None;
            }
        }
    }
    let json_field = s.fields.iter().find(|f| f.ty == FieldTy::JsonObject);
    let op_field = json_field.and_then(|_| {
        s.fields
            .iter()
            .find(|f| f.ty != FieldTy::JsonObject && f.inner == spec.directives.op_pattern)
    });
    let mut ok = true;
    for f in &s.fields {
        let is = |x: Option<&FieldIr>| x.is_some_and(|x| x.name == f.name);
        if f.derived_from.is_some() || is(json_field) || is(op_field) {
            continue;
        }
        let rule = format!("{name}_{}", f.name);
        let mut groups = Vec::new();
        match regex::translate(
            &format!("{}{}", s.flag_prefix, f.inner),
            &name,
            exclude,
            &mut groups,
        ) {
            Ok(expr) => {
                for (name, body) in groups {
                    g.push(
                        &name,
                        format!(
                            "`{}` group `{}` of `{}`",
                            s.pattern_key,
                            name.trim_start_matches(&format!("{}_", s.key)),
                            s.key
                        ),
                        body,
                    );
                }
                g.push(
                    &rule,
                    format!(
                        "field `{}` of `{}` (pattern `{}`)",
                        f.name, s.key, s.pattern_key
                    ),
                    expr,
                );
            }
            Err(why) => {
                ok = false;
                diags.push(spec.diag(
                    Severity::Error,
                    "grammar-inexpressible",
                    SpecFile::Patterns,
                    &format!("/patterns/{}/pattern", s.pattern_key),
                    format!(
                        "structure `{}`: field `{}` (`{}`) cannot be written as a grammar: {why}",
                        s.key, f.name, f.inner
                    ),
                ));
            }
        }
    }
    if !ok {
        return None;
    }
    let body = |op: Option<&(String, Value)>| {
        Expr::seq(
            s.segments
                .iter()
                .map(|seg| {
                    let e = Expr::seq(
                        seg.pieces
                            .iter()
                            .map(|p| match p {
                                Piece::Literal(l) => Expr::Lit(l.clone()),
                                Piece::Field(f) if json_field.is_some_and(|j| &j.name == f) => {
                                    Expr::Json(op.map_or_else(
                                        || canonical_schema(&json!({"type": "object"})),
                                        |o| o.1.clone(),
                                    ))
                                }
                                Piece::Field(f) if op_field.is_some_and(|j| &j.name == f) => {
                                    op.map_or(Expr::Nothing, |o| Expr::Lit(o.0.clone()))
                                }
                                Piece::Field(f) => Expr::Ref(format!("{name}_{f}")),
                            })
                            .collect(),
                    );
                    if seg.optional.is_some() {
                        Expr::repeat(e, 0, Some(1))
                    } else {
                        e
                    }
                })
                .collect(),
        )
    };
    if json_field.is_none() {
        return Some(body(None));
    }
    if model.ops.is_none() {
        return Some(body(None));
    }
    let engines: Vec<&str> = s.fixed.iter().map(|(_, v)| v.as_str()).collect();
    let ops: Vec<(String, Value)> = offered(model, None)
        .into_iter()
        .filter(|(name, _)| {
            engines.is_empty()
                || model.ops.as_ref().is_some_and(|o| {
                    o.ops.iter().any(|op| {
                        &op.name == name && op.engines.iter().any(|e| engines.contains(&e.as_str()))
                    })
                })
        })
        .collect();
    let mut alts = Vec::new();
    for op in &ops {
        let rule = format!("{name}_{}", op_ident(&op.0));
        g.push(
            &rule,
            format!(
                "`{}` calling `{}`, its arguments that op's schema",
                s.key, op.0
            ),
            body(Some(op)),
        );
        alts.push(Expr::Ref(rule));
    }
    Some(Expr::alt(alts))
}

/// Directive forms, by op: (form rule, [(op, per-op rule)]).
type Forms = Vec<(String, Vec<(String, String)>)>;

/// Adds one directive form: a rule per offered op on `engine`, and the
/// form's rule, their choice (none when no op is offered).
fn form(
    model: &Model,
    g: &mut Grammar,
    forms: &mut Forms,
    name: String,
    doc: String,
    engine: &str,
    make: &dyn Fn(&str, Value) -> Expr,
) {
    let mut per_op = Vec::new();
    let mut alts = Vec::new();
    for (op, schema) in offered(model, Some(engine)) {
        let rule = format!("{name}_{}", op_ident(&op));
        g.push(&rule, format!("{doc}, calling `{op}`"), make(&op, schema));
        alts.push(Expr::Ref(rule.clone()));
        per_op.push((op, rule));
    }
    if !alts.is_empty() {
        g.push(&name, doc, Expr::alt(alts));
        forms.push((name, per_op));
    }
}

/// The directive forms, each one rule of one alternative per offered op;
/// returns (form rule, per-op rules (op, rule)).
fn directive_forms(model: &Model, g: &mut Grammar) -> Forms {
    let d = &model.directives;
    let mut forms = Vec::new();
    for engine in &d.bracket.engines {
        form(
            model,
            g,
            &mut forms,
            format!("bracket_{}", engine.to_lowercase()),
            format!("the bracket form `[{engine} op {{json}}]`"),
            engine,
            &|op, schema| {
                Expr::seq(vec![
                    Expr::Lit(format!("[{engine} {op} ")),
                    Expr::Json(schema),
                    Expr::Lit("]".into()),
                ])
            },
        );
    }
    for (word, sh) in &d.shorthands {
        let target = sh.op.clone();
        let mut per_op = Vec::new();
        if let Some((op, schema)) = offered(model, Some(&sh.engine))
            .into_iter()
            .find(|(o, _)| *o == target)
        {
            let name = format!("shorthand_{}", op_ident(word));
            g.push(
                &name,
                format!("the shorthand `[{word} {{json}}]`, calling `{op}`"),
                Expr::seq(vec![
                    Expr::Lit(format!("[{word} ")),
                    Expr::Json(schema),
                    Expr::Lit("]".into()),
                ]),
            );
            per_op.push((op, name.clone()));
            forms.push((name, per_op));
        }
    }
    for (word, engine) in &d.fences.info_strings {
        form(
            model,
            g,
            &mut forms,
            format!("fence_{}", op_ident(word)),
            format!("the directive fence ```{word}"),
            engine,
            &|op, schema| {
                Expr::seq(vec![
                    Expr::Lit(format!("```{word}\n{op} ")),
                    Expr::Json(schema),
                    Expr::Lit("\n```".into()),
                ])
            },
        );
    }
    forms
}

/// Lowers the grammar. Findings: every field pattern a grammar cannot
/// express (`grammar-inexpressible`, an error, located at the pattern).
pub fn lower(spec: &Spec, model: &Model) -> (Grammars, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut out = Grammars::default();
    let mut g = Grammar::default();
    g.push(
        "start",
        "a sentence of any structure, or a call in any directive form",
        Expr::alt(vec![Expr::Ref("sentence".into()), Expr::Ref("call".into())]),
    );
    g.push(
        "sentence",
        "one sentence: the choice of the structures",
        Expr::Empty,
    );
    g.push(
        "call",
        "one call: the choice of the directive forms",
        Expr::Empty,
    );
    let mut structures = Vec::new();
    // Every field in plain characters (P303): what `scan` finds whole.
    let plain_only = unplain();
    for s in &model.sentences {
        if let Some(body) = structure(
            spec,
            model,
            s,
            &mut g,
            &mut out.left_out,
            &mut diags,
            &plain_only,
            "",
        ) {
            if body != Expr::Nothing {
                g.push(
                    &s.key,
                    format!("structure `{}` ({}): {}", s.key, s.name, s.template),
                    body,
                );
                structures.push(s.key.clone());
            }
        }
    }
    let forms = directive_forms(model, &mut g);
    let set = |g: &mut Grammar, name: &str, e: Expr| {
        if let Some(r) = g.rules.iter_mut().find(|r| r.name == name) {
            r.expr = e;
        }
    };
    set(
        &mut g,
        "sentence",
        Expr::alt(structures.iter().map(|k| Expr::Ref(k.clone())).collect()),
    );
    set(
        &mut g,
        "call",
        Expr::alt(forms.iter().map(|(f, _)| Expr::Ref(f.clone())).collect()),
    );
    // Drop empty choices (no ops: no call).
    if g.rule("call").is_some_and(|r| r.expr == Expr::Nothing) {
        g.rules.retain(|r| r.name != "call");
        set(&mut g, "start", Expr::Ref("sentence".into()));
    }
    json::expand(&mut g, &string_chars());
    out.sentences = g.clone();
    out.reply = reply(spec, model, &g, &forms, &structures, &mut out);
    json::expand(&mut out.reply, &string_chars());
    (out, diags)
}

/// The reply grammar: lines, then the verdict.
fn reply(
    spec: &Spec,
    model: &Model,
    sentences: &Grammar,
    forms: &[(String, Vec<(String, String)>)],
    structures: &[String],
    out: &mut Grammars,
) -> Grammar {
    let mut g = Grammar::default();
    // The verdict structure: the one the envelope mentions (with its
    // values), else `result`.
    let verdict_key = spec
        .envelope
        .as_ref()
        .and_then(|e| e.lines.iter().find_map(|l| l.mention.as_ref()))
        .map_or_else(|| "result".to_owned(), |m| m.structure.clone());
    let Some(v) = model.sentences.iter().find(|s| s.key == verdict_key) else {
        return g;
    };
    // Structures whose last field runs across lines (free text to the end)
    // would swallow the lines after them: never a reply line.
    let multiline = |s: &SentenceIr| {
        spec.patterns
            .patterns
            .get(&s.pattern_key)
            .is_some_and(|p| p.groups.values().any(|gr| gr.runs_until.is_some()))
    };
    let line_structures: Vec<String> = model
        .sentences
        .iter()
        .filter(|s| structures.contains(&s.key) && s.key != verdict_key && !multiline(s))
        .filter(|s| !s.fields.iter().any(|f| f.ty == FieldTy::JsonObject))
        .map(|s| s.key.clone())
        .collect();
    out.reply_structures = line_structures.clone();
    // Per op: the choice of its forms.
    let mut ops: Vec<(String, Vec<String>)> = Vec::new();
    for (_, per_op) in forms {
        for (op, rule) in per_op {
            match ops.iter_mut().find(|(o, _)| o == op) {
                Some((_, rules)) => rules.push(rule.clone()),
                None => ops.push((op.clone(), vec![rule.clone()])),
            }
        }
    }
    let catalogue: Vec<String> = model
        .ops
        .iter()
        .flat_map(|o| &o.ops)
        .map(|o| o.name.clone())
        .collect();
    ops.sort_by_key(|(o, _)| catalogue.iter().position(|c| c == o));
    g.push(
        "start",
        "a reply: any number of lines, then the verdict line last",
        Expr::seq(vec![
            Expr::repeat(
                Expr::seq(vec![Expr::Ref("line".into()), Expr::Lit("\n".into())]),
                0,
                None,
            ),
            Expr::Ref("verdict".into()),
        ]),
    );
    let mut line = vec![Expr::Ref("free_line".into())];
    if !line_structures.is_empty() {
        line.push(Expr::Ref("reply_sentence".into()));
    }
    if !ops.is_empty() {
        line.push(Expr::Ref("call".into()));
    }
    g.push(
        "line",
        "one line: free text (maybe empty), a sentence or a call",
        Expr::repeat(Expr::alt(line), 0, Some(1)),
    );
    if !ops.is_empty() {
        g.push(
            "call",
            "a call of an offered op (the caller may offer fewer)",
            Expr::alt(
                ops.iter()
                    .map(|(o, _)| Expr::Ref(format!("call_{}", op_ident(o))))
                    .collect(),
            ),
        );
    }
    out.call_rule = "call".into();
    out.line_rule = "line".into();
    // Free text: no sentence, call, code span, fence or HTML can start in it.
    let unplain = unplain();
    let free_char = Expr::class(regex::subtract(&regex::ANY, &unplain));
    let first_char = Expr::class(regex::subtract(
        &regex::subtract(&regex::ANY, &unplain),
        &regex::ranges_of(&FREE_LINE_FIRST_EXCLUDED),
    ));
    let rest = Expr::repeat(Expr::Ref("free_char".into()), 0, None);
    // A line starting with `c` must not start a `curl` command.
    let not = |c: char| {
        Expr::class(regex::subtract(
            &regex::subtract(&regex::ANY, &unplain),
            &[(c, c)],
        ))
    };
    let curlish = Expr::seq(vec![
        Expr::Lit("c".into()),
        Expr::repeat(
            Expr::alt(vec![
                Expr::seq(vec![not('u'), rest.clone()]),
                Expr::seq(vec![
                    Expr::Lit("u".into()),
                    Expr::repeat(
                        Expr::alt(vec![
                            Expr::seq(vec![not('r'), rest.clone()]),
                            Expr::seq(vec![
                                Expr::Lit("r".into()),
                                Expr::repeat(Expr::seq(vec![not('l'), rest.clone()]), 0, Some(1)),
                            ]),
                        ]),
                        0,
                        Some(1),
                    ),
                ]),
            ]),
            0,
            Some(1),
        ),
    ]);
    g.push(
        "free_line",
        "a line of free text: no line break or Markdown inline syntax, and no start of a block that takes the next lines in or of a `curl` command",
        Expr::alt(vec![Expr::seq(vec![first_char, rest]), curlish]),
    );
    g.push("free_char", "a character of free text", free_char);
    if !line_structures.is_empty() {
        // Each structure again, its fields without the characters free
        // text leaves out (they could take the sentence out of plain text).
        let mut alts = Vec::new();
        for s in model
            .sentences
            .iter()
            .filter(|s| line_structures.contains(&s.key))
        {
            if let Some(body) = structure(
                spec,
                model,
                s,
                &mut g,
                &mut Vec::new(),
                &mut Vec::new(),
                &unplain,
                "line_",
            ) {
                let rule = format!("line_{}", s.key);
                g.push(
                    &rule,
                    format!(
                        "structure `{}` on a reply line, its fields in free-text characters",
                        s.key
                    ),
                    body,
                );
                alts.push(Expr::Ref(rule));
            }
        }
        g.push(
            "reply_sentence",
            "a sentence a reply may hold on a line of its own",
            Expr::alt(alts),
        );
    }
    for (op, rules) in &ops {
        g.push(
            &format!("call_{}", op_ident(op)),
            format!("a call of `{op}`, in any directive form"),
            Expr::alt(rules.iter().map(|r| Expr::Ref(r.clone())).collect()),
        );
    }
    out.call_ops = ops
        .iter()
        .map(|(o, _)| (o.clone(), format!("call_{}", op_ident(o))))
        .collect();
    // The verdict: its id field the caller's id, its enum field required,
    // its free text one line of free-text characters.
    // The id field: the loop id of the verdict structure (`loops.json`),
    // else the first field its template writes.
    let id_field = spec
        .loops
        .as_ref()
        .and_then(|l| l.loop_id.get(&v.key).cloned())
        .or_else(|| {
            v.segments
                .iter()
                .flat_map(|s| &s.pieces)
                .find_map(|p| match p {
                    Piece::Field(f) => Some(f.clone()),
                    Piece::Literal(_) => None,
                })
        });
    let mut verdict = Vec::new();
    let mut id_pattern = String::new();
    for seg in &v.segments {
        for p in &seg.pieces {
            verdict.push(match p {
                Piece::Literal(l) => Expr::Lit(l.clone()),
                Piece::Field(f) if Some(f) == id_field.as_ref() => {
                    id_pattern = v
                        .fields
                        .iter()
                        .find(|x| &x.name == f)
                        .map(|x| x.inner.clone())
                        .unwrap_or_default();
                    Expr::Ref("id".into())
                }
                Piece::Field(f) => {
                    let field = v.fields.iter().find(|x| &x.name == f);
                    let rule = format!("verdict_{f}");
                    let mut groups = Vec::new();
                    let inner = field
                        .map(|x| format!("{}{}", v.flag_prefix, x.inner))
                        .unwrap_or_default();
                    let exclude: Vec<(char, char)> =
                        if matches!(field.map(|x| &x.ty), Some(FieldTy::String)) {
                            unplain.clone()
                        } else {
                            Vec::new()
                        };
                    let e =
                        regex::translate(&inner, &format!("verdict_{f}"), &exclude, &mut groups)
                            .unwrap_or(Expr::Nothing);
                    for (n, b) in groups {
                        g.push(&n, format!("group of the verdict's `{f}`"), b);
                    }
                    g.push(
                        &rule,
                        format!(
                            "the verdict's `{f}`{}",
                            if exclude.is_empty() {
                                ""
                            } else {
                                ", on one line, in free-text characters"
                            }
                        ),
                        e,
                    );
                    Expr::Ref(rule)
                }
            });
        }
    }
    g.push(
        "verdict",
        format!(
            "the verdict line, `{}` with every field, the last line",
            v.template
        ),
        Expr::seq(verdict),
    );
    out.id_rule = "id".into();
    out.id_pattern = format!("{}{}", v.flag_prefix, id_pattern);
    let mut id_groups = Vec::new();
    let id_expr =
        regex::translate(&out.id_pattern, "id", &[], &mut id_groups).unwrap_or(Expr::Nothing);
    g.push(
        "id",
        "the id the verdict answers: any id here; `reply_grammar(id)` puts the message's",
        id_expr,
    );
    for (n, b) in id_groups {
        g.push(&n, "group of the id", b);
    }
    // Every rule of the sentence grammar the reply reaches.
    let mut need: Vec<String> = g
        .rules
        .iter()
        .flat_map(|r| {
            let mut v = Vec::new();
            r.expr.refs(&mut v);
            v
        })
        .collect();
    while let Some(n) = need.pop() {
        if g.rule(&n).is_some() {
            continue;
        }
        if let Some(r) = sentences.rule(&n) {
            r.expr.refs(&mut need);
            g.rules.push(r.clone());
        }
    }
    if let Some(env) = &spec.envelope {
        let id = env.example.id.clone();
        let call = model
            .ops
            .as_ref()
            .and_then(|o| {
                o.ops
                    .iter()
                    .find(|op| op.runnable && !op.examples.is_empty())
            })
            .and_then(|op| {
                let engine = spec.directives.bracket.engines.first()?;
                let ex: Value = serde_json::from_str(&op.examples[0]).ok()?;
                Some(format!("[{engine} {} {}]\n", op.name, canonical_json(&ex)))
            });
        let first_value = |f: &str| {
            spec.patterns.patterns.get(&v.pattern_key).and_then(|p| {
                p.groups
                    .iter()
                    .find(|(name, gr)| gr.field.as_deref().unwrap_or(name) == f)
                    .and_then(|(_, gr)| gr.values.as_ref()?.first().cloned())
            })
        };
        let values: Vec<(String, String)> = v
            .fields
            .iter()
            .map(|f| {
                let value = if Some(&f.name) == id_field.as_ref() {
                    id.clone()
                } else if let Some(first) = first_value(&f.name) {
                    first
                } else {
                    "Audit complete.".to_owned()
                };
                (f.name.clone(), value)
            })
            .collect();
        let verdict_text = crate::template::render(&v.segments, |f| {
            values.iter().find(|(n, _)| n == f).map(|(_, v)| v.as_str())
        });
        let text = format!(
            "Checked the task.\n{}{verdict_text}",
            call.unwrap_or_default()
        );
        out.example_reply = Some((id, text));
    }
    g
}

/// A JSON value as the renderers write it: `", "` and `": "` separators.
pub fn canonical_json(v: &Value) -> String {
    match v {
        Value::Object(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), canonical_json(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical_json).collect::<Vec<_>>().join(", ")
        ),
        v => v.to_string(),
    }
}
