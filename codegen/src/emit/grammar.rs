//! `generated/grammar/*.lark` and `*.gbnf`: the lowered grammar model
//! ([`crate::grammar`]) written in llguidance's Lark dialect ([`lark`]) and
//! in llama.cpp's GBNF ([`gbnf`]).
//!
//! Lark: a rule that reaches no inline JSON Schema is a terminal (upper
//! case), so a whole sentence is one lexeme and llguidance's lexer never
//! has to split it; a parser rule (lower case) that uses one goes through a
//! lower-case alias. Each `%json` gets a rule of its own.

use std::collections::BTreeSet;
use std::fmt::Write;

use serde_json::Value;

use crate::emit::header::TOML_HEADER;
use crate::grammar::model::{Expr, Grammar, Grammars};
use crate::grammar::regex;

/// The name a rule has in Lark: upper case for a terminal.
pub fn lark_name(g: &Grammar, rule: &str) -> String {
    if rule == "start" || g.has_json(rule) {
        rule.to_owned()
    } else {
        rule.to_uppercase()
    }
}

/// The name a rule has in GBNF (`root` for the start rule; `-` for `_`).
pub fn gbnf_name(rule: &str) -> String {
    if rule == "start" {
        "root".to_owned()
    } else {
        rule.replace('_', "-")
    }
}

fn lark_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One character in a class, in Rust regex syntax (llguidance's).
fn regex_char(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        '/' => "\\/".into(),
        c if "\\.+*?()|[]{}^$#&-~".contains(c) => format!("\\{c}"),
        c if c.is_ascii_graphic() => c.to_string(),
        ' ' => " ".into(),
        c => format!("\\u{{{:x}}}", c as u32),
    }
}

/// One character in a GBNF class or string.
fn gbnf_char(c: char, in_class: bool) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        '\\' => "\\\\".into(),
        '"' if !in_class => "\\\"".into(),
        '[' | ']' | '-' | '^' if in_class => format!("\\x{:02X}", c as u32),
        c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
        c if (c as u32) < 0x100 => format!("\\x{:02X}", c as u32),
        // Written as itself: readers that strip an escape's leading zeros
        // (llguidance's `gbnf_to_lark`) would misread `\u034F`.
        c if (0x1000..0x10000).contains(&(c as u32)) => format!("\\u{:04X}", c as u32),
        c => c.to_string(),
    }
}

/// The ranges, or their complement with a `^` when that is shorter.
fn class_body(ranges: &[(char, char)], ch: &dyn Fn(char) -> String) -> String {
    let comp = regex::complement(ranges);
    let (neg, rs) = if comp.len() < ranges.len()
        || (comp.len() == ranges.len() && ranges.last().is_some_and(|r| r.1 == '\u{10FFFF}'))
    {
        (true, comp)
    } else {
        (false, ranges.to_vec())
    };
    let mut out = String::from(if neg { "[^" } else { "[" });
    for (a, b) in rs {
        out.push_str(&ch(a));
        if b != a {
            if b as u32 > a as u32 + 1 {
                out.push('-');
            }
            out.push_str(&ch(b));
        }
    }
    out.push(']');
    out
}

fn quantifier(min: u32, max: Option<u32>) -> String {
    match (min, max) {
        (0, None) => "*".into(),
        (1, None) => "+".into(),
        (0, Some(1)) => "?".into(),
        (m, None) => format!("{{{m},}}"),
        (m, Some(n)) if m == n => format!("{{{m}}}"),
        (m, Some(n)) => format!("{{{m},{n}}}"),
    }
}

struct Lark<'a> {
    g: &'a Grammar,
    json_rules: Vec<(String, Value)>,
    aliases: BTreeSet<String>,
}

impl Lark<'_> {
    /// `e` inside rule `owner`; `parser` when the owner is a parser rule.
    fn expr(&mut self, e: &Expr, owner: &str, parser: bool, top: bool) -> String {
        match e {
            Expr::Empty => "\"\"".into(),
            Expr::Nothing => "/[^\\s\\S]/".into(),
            Expr::Lit(s) => lark_string(s),
            Expr::Class(r) => format!("/{}/", class_body(r, &regex_char)),
            Expr::Seq(v) => {
                let s = v
                    .iter()
                    .map(|x| self.expr(x, owner, parser, false))
                    .collect::<Vec<_>>()
                    .join(" ");
                if top {
                    s
                } else {
                    format!("({s})")
                }
            }
            Expr::Alt(v) => {
                let s = v
                    .iter()
                    .map(|x| self.expr(x, owner, parser, false))
                    .collect::<Vec<_>>()
                    .join(" | ");
                if top {
                    s
                } else {
                    format!("({s})")
                }
            }
            Expr::Repeat { expr, min, max } => {
                let inner = self.expr(expr, owner, parser, false);
                let inner = if inner.starts_with('(')
                    || matches!(**expr, Expr::Ref(_) | Expr::Lit(_) | Expr::Class(_))
                {
                    inner
                } else {
                    format!("({inner})")
                };
                format!("{inner}{}", quantifier(*min, *max))
            }
            Expr::Ref(r) => {
                let name = lark_name(self.g, r);
                if parser && name != *r {
                    self.aliases.insert(r.clone());
                    r.clone()
                } else {
                    name
                }
            }
            Expr::Json(schema) => {
                let name = format!("{owner}_args");
                self.json_rules.push((name.clone(), schema.clone()));
                name
            }
        }
    }
}

/// The grammar in llguidance's Lark dialect, `title` and `notes` as
/// comments at the top.
pub fn lark(g: &Grammar, title: &str, notes: &[String]) -> String {
    let mut l = Lark {
        g,
        json_rules: Vec::new(),
        aliases: BTreeSet::new(),
    };
    let mut body = String::new();
    for r in &g.rules {
        let name = lark_name(g, &r.name);
        let parser = name == r.name;
        let text = l.expr(&r.expr, &r.name, parser, true);
        let _ = writeln!(body, "// {}\n{name}: {text}\n", r.doc);
        for (jn, schema) in std::mem::take(&mut l.json_rules) {
            let _ = writeln!(
                body,
                "{jn}: %json {}\n",
                serde_json::to_string(&schema).expect("serializes")
            );
        }
    }
    let mut out = format!("{}\n// {title}\n", TOML_HEADER.replacen('#', "//", 1));
    for n in notes {
        let _ = writeln!(out, "// {n}");
    }
    out.push('\n');
    out.push_str(&body);
    for a in &l.aliases {
        let _ = writeln!(out, "{a}: {}", lark_name(g, a));
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The grammar in GBNF. A `%json` has no GBNF counterpart: each becomes
/// rules of its own ([`json_gbnf`]).
pub fn gbnf(g: &Grammar, title: &str, notes: &[String]) -> String {
    let mut out = format!("{TOML_HEADER}\n# {title}\n");
    for n in notes {
        let _ = writeln!(out, "# {n}");
    }
    out.push('\n');
    let mut extra: Vec<(String, Value)> = Vec::new();
    for r in &g.rules {
        let text = gbnf_expr(&r.expr, &r.name, &mut extra, true);
        let _ = writeln!(out, "# {}\n{} ::= {text}\n", r.doc, gbnf_name(&r.name));
        for (name, schema) in std::mem::take(&mut extra) {
            out.push_str(&json_gbnf(&name, &schema));
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn gbnf_expr(e: &Expr, owner: &str, extra: &mut Vec<(String, Value)>, top: bool) -> String {
    match e {
        Expr::Empty => "\"\"".into(),
        Expr::Nothing => "[^\\x00-\\U0010FFFF]".into(),
        Expr::Lit(s) => format!(
            "\"{}\"",
            s.chars().map(|c| gbnf_char(c, false)).collect::<String>()
        ),
        Expr::Class(r) => class_body(r, &|c| gbnf_char(c, true)),
        Expr::Seq(v) => {
            let s = v
                .iter()
                .map(|x| gbnf_expr(x, owner, extra, false))
                .collect::<Vec<_>>()
                .join(" ");
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Alt(v) => {
            let s = v
                .iter()
                .map(|x| gbnf_expr(x, owner, extra, false))
                .collect::<Vec<_>>()
                .join(" | ");
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Repeat { expr, min, max } => {
            let inner = gbnf_expr(expr, owner, extra, false);
            let inner = if inner.starts_with('(')
                || matches!(**expr, Expr::Ref(_) | Expr::Lit(_) | Expr::Class(_))
            {
                inner
            } else {
                format!("({inner})")
            };
            format!("{inner}{}", quantifier(*min, *max))
        }
        Expr::Ref(r) => gbnf_name(r),
        Expr::Json(schema) => {
            let name = format!("{owner}_args");
            extra.push((name.clone(), schema.clone()));
            gbnf_name(&name)
        }
    }
}

/// A JSON Schema as GBNF rules named `name-…`, canonical separators, for
/// the schemas the catalogue uses: objects with `properties` (in order,
/// `required` or not, no others), strings (`minLength`), integers (the
/// bounds the grammar model puts on them), booleans and null.
pub fn json_gbnf(name: &str, schema: &Value) -> String {
    let mut out = String::new();
    let top = gbnf_name(name);
    let body = json_value(&top, schema, &mut out);
    let _ = writeln!(out, "{top} ::= {body}\n");
    out
}

fn json_value(name: &str, s: &Value, out: &mut String) -> String {
    let ty = s.get("type").and_then(Value::as_str).unwrap_or("");
    match ty {
        "object" => {
            let props: Vec<(&String, &Value)> = s
                .get("properties")
                .and_then(Value::as_object)
                .map(|m| m.iter().collect())
                .unwrap_or_default();
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if props.is_empty() {
                return "\"{}\"".into();
            }
            // tail(i, first): the properties from i on; `first` when none
            // is written yet (no separator before the next).
            let mut member = Vec::new();
            for (k, v) in &props {
                let vn = format!("{name}-{}", k.replace('_', "-"));
                let vb = json_value(&vn, v, out);
                let _ = writeln!(out, "{vn} ::= {vb}\n");
                member.push(format!("\"\\\"{}\\\": \" {vn}", k.replace('"', "\\\"")));
            }
            let n = props.len();
            for i in (0..n).rev() {
                for first in [true, false] {
                    let sep = if first {
                        String::new()
                    } else {
                        "\", \" ".into()
                    };
                    let next = |f: bool| {
                        if i + 1 < n {
                            format!(" {name}-t{}{}", i + 1, if f { "f" } else { "n" })
                        } else {
                            String::new()
                        }
                    };
                    let with = format!("{sep}{}{}", member[i], next(false));
                    let rule = if required.contains(&props[i].0.as_str()) {
                        with
                    } else {
                        let without = if i + 1 < n {
                            next(first).trim().to_owned()
                        } else {
                            "\"\"".into()
                        };
                        format!("({with}) | {without}")
                    };
                    let _ = writeln!(
                        out,
                        "{name}-t{i}{} ::= {rule}\n",
                        if first { "f" } else { "n" }
                    );
                }
            }
            format!("\"{{\" {name}-t0f \"}}\"")
        }
        "string" => {
            let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let ch = format!("{name}-char");
            // The characters `string_pattern` allows; `"` escaped.
            let plain =
                regex::subtract(&crate::grammar::string_chars(), &[('"', '"'), ('\\', '\\')]);
            let class = class_body(&plain, &|c| gbnf_char(c, true));
            let _ = writeln!(out, "{ch} ::= {class} | \"\\\\\\\"\"\n");
            format!("\"\\\"\" {ch}{{{min},}} \"\\\"\"")
        }
        "integer" => {
            // The bounds the grammar model writes: the whole i64 range, or
            // from 0 or 1 up; digits up to 10^18 - 1 (below i64::MAX).
            match s.get("minimum").and_then(Value::as_i64) {
                Some(1) => "[1-9] [0-9]{0,17}".into(),
                Some(0) => "(\"0\" | [1-9] [0-9]{0,17})".into(),
                Some(i64::MIN) => "(\"0\" | \"-\"? [1-9] [0-9]{0,17})".into(),
                _ => "[^\\x00-\\U0010FFFF]".into(),
            }
        }
        "boolean" => "(\"true\" | \"false\")".into(),
        "null" => "\"null\"".into(),
        _ => "[^\\x00-\\U0010FFFF]".into(),
    }
}

/// Comment lines at the top of both grammars: what they leave out.
fn notes(g: &Grammars) -> Vec<String> {
    let mut out = vec![
        "Canonical texts only: what the generated renderers write (one blank between parts, JSON with \", \" and \": \").".to_owned(),
        "Calls offer the runnable ops of schema/ops.json, each with its argument schema; incomplete ops are never offered.".to_owned(),
        "The argument object's byte limit (directives.json /limits) is checked when the call is resolved, not here.".to_owned(),
    ];
    for l in &g.left_out {
        out.push(format!("Left out: `{}`: {}.", l.key, l.reason));
    }
    out
}

/// Every grammar file, keyed by its path under `generated/`.
pub fn files(g: &Grammars) -> Vec<(String, String)> {
    let n = notes(g);
    let mut reply_notes = n.clone();
    reply_notes.push(format!(
        "The verdict answers the id of rule `{}`; `reply_grammar(id, ops)` puts the message's id there and keeps the calls of the chosen ops in rule `{}`.",
        g.id_rule, g.call_rule
    ));
    vec![
        (
            "grammar/sentences.lark".to_owned(),
            lark(
                &g.sentences,
                "One sentence of any structure, or one call in any directive form.",
                &n,
            ),
        ),
        (
            "grammar/reply.lark".to_owned(),
            lark(
                &g.reply,
                "A whole reply to an enveloped message: lines, then the verdict line.",
                &reply_notes,
            ),
        ),
        (
            "grammar/sentences.gbnf".to_owned(),
            gbnf(
                &g.sentences,
                "One sentence of any structure, or one call in any directive form.",
                &n,
            ),
        ),
        (
            "grammar/reply.gbnf".to_owned(),
            gbnf(
                &g.reply,
                "A whole reply to an enveloped message: lines, then the verdict line.",
                &reply_notes,
            ),
        ),
    ]
}

/// The `grammar` module appended to the generated crate's `lib.rs`: the
/// grammar texts and `reply_grammar`, which fills the reply grammar through
/// the runtime's `ReplyTemplate`.
pub fn rust_module(g: &Grammars, files: &[(String, String)]) -> String {
    let text = |name: &str| {
        files
            .iter()
            .find(|(p, _)| p == &format!("grammar/{name}"))
            .map(|(_, t)| format!("{t:?}"))
            .unwrap_or_else(|| "\"\"".to_owned())
    };
    let pair = |rule: &str| format!("({:?}, {:?})", lark_name(&g.reply, rule), gbnf_name(rule));
    let ops: String = g
        .call_ops
        .iter()
        .map(|(op, rule)| {
            format!(
                "        ({op:?}, {:?}, {:?}),\n",
                lark_name(&g.reply, rule),
                gbnf_name(rule)
            )
        })
        .collect();
    format!(
        r#"
/// The decoding grammars the spec generates (`generated/grammar/`, P205–P209):
/// one sentence or call ([`grammar::SENTENCES_LARK`], [`grammar::SENTENCES_GBNF`])
/// and a whole reply to an enveloped message ([`grammar::REPLY_LARK`],
/// [`grammar::REPLY_GBNF`]), and [`grammar::reply_grammar`], the reply grammar
/// for one message's id.
pub mod grammar {{
    pub use agent_sentences_runtime::grammar::{{Dialect, GrammarError, ReplyTemplate}};

    /// `generated/grammar/sentences.lark`: one sentence of any structure, or one call (llguidance's Lark dialect).
    pub const SENTENCES_LARK: &str = {sl};
    /// `generated/grammar/reply.lark`: a whole reply, its verdict answering any id.
    pub const REPLY_LARK: &str = {rl};
    /// `generated/grammar/sentences.gbnf`: [`SENTENCES_LARK`] in llama.cpp's GBNF.
    pub const SENTENCES_GBNF: &str = {sg};
    /// `generated/grammar/reply.gbnf`: [`REPLY_LARK`] in llama.cpp's GBNF.
    pub const REPLY_GBNF: &str = {rg};

    /// The reply grammar and the rules [`reply_grammar`] fills.
    pub const REPLY: ReplyTemplate = ReplyTemplate {{
        lark: REPLY_LARK,
        gbnf: REPLY_GBNF,
        id_pattern: {idp:?},
        id_rule: {idr},
        call_rule: {cr},
        line_rule: {lr},
        ops: &[
{ops}        ],
    }};

    /// The reply grammar in `dialect` whose verdict answers `id` (which must
    /// match the verdict's id pattern in full), offering the calls of `ops`
    /// only (every runnable op when `None`; none for an empty list).
    ///
    /// ```
    /// use agent_sentences::grammar::{{reply_grammar, Dialect}};
    /// let g = reply_grammar(Dialect::Lark, "swarm-4a2b/1", Some(&["tools.list"])).unwrap();
    /// assert!(g.contains("\"swarm-4a2b/1\""));
    /// assert!(reply_grammar(Dialect::Lark, "a] b", None).is_err());
    /// ```
    ///
    /// # Errors
    /// [`GrammarError`]: an id that does not match, an op not offered.
    pub fn reply_grammar(dialect: Dialect, id: &str, ops: Option<&[&str]>) -> Result<String, GrammarError> {{
        REPLY.render(dialect, id, ops)
    }}
}}
"#,
        sl = text("sentences.lark"),
        rl = text("reply.lark"),
        sg = text("sentences.gbnf"),
        rg = text("reply.gbnf"),
        idp = g.id_pattern,
        idr = pair(&g.id_rule),
        cr = pair(&g.call_rule),
        lr = pair(&g.line_rule),
    )
}

/// `generated/python/agent_sentences/grammar.py`: the grammar texts and
/// `reply_grammar`, through the native module.
pub fn python_module(g: &Grammars) -> String {
    let ops: Vec<String> = g.call_ops.iter().map(|(o, _)| format!("{o:?}")).collect();
    format!(
        r#"{header}
"""The decoding grammars the spec generates (``generated/grammar/``): one
sentence or call (:data:`SENTENCES_LARK`, :data:`SENTENCES_GBNF`) and a whole
reply to an enveloped message (:data:`REPLY_LARK`, :data:`REPLY_GBNF`), and
:func:`reply_grammar`, the reply grammar for one message's id.

The texts and the filling are the Rust crate's (``agent_sentences::grammar``),
through the native module."""

from __future__ import annotations

from typing import Final, Literal

from . import _native

__all__ = ["OFFERED_OPS", "REPLY_GBNF", "REPLY_LARK", "SENTENCES_GBNF", "SENTENCES_LARK", "reply_grammar"]

SENTENCES_LARK: Final[str] = _native.grammar_text("sentences.lark")
"""One sentence of any structure, or one call, in llguidance's Lark dialect."""
REPLY_LARK: Final[str] = _native.grammar_text("reply.lark")
"""A whole reply, its verdict answering any id (use :func:`reply_grammar`)."""
SENTENCES_GBNF: Final[str] = _native.grammar_text("sentences.gbnf")
""":data:`SENTENCES_LARK` in llama.cpp's GBNF."""
REPLY_GBNF: Final[str] = _native.grammar_text("reply.gbnf")
""":data:`REPLY_LARK` in llama.cpp's GBNF."""
OFFERED_OPS: Final[tuple[str, ...]] = ({ops})
"""The ops a reply may call (the runnable ops of the catalogue), in catalogue order."""


def reply_grammar(id: str, ops: list[str] | tuple[str, ...] | None = None, dialect: Literal["lark", "gbnf"] = "lark") -> str:
    """The reply grammar whose verdict answers ``id``, offering the calls of
    ``ops`` only (every op of :data:`OFFERED_OPS` when None, no call for an
    empty list), in ``dialect``.

    Raises ValueError when ``id`` does not match the verdict's id pattern in
    full, or an op is not offered: nothing is made (fail closed)."""
    return _native.reply_grammar(dialect, id, None if ops is None else list(ops))
"#,
        header = crate::emit::header::PY_HEADER,
        ops = if ops.is_empty() {
            String::new()
        } else {
            format!("{},", ops.join(", "))
        },
    )
}

/// `generated/docs/GRAMMAR.md`: how to pass the grammars to a serving
/// engine, with the spec's example reply.
pub fn grammar_md(g: &Grammars) -> String {
    let (id, reply) = g
        .example_reply
        .clone()
        .unwrap_or_else(|| ("job-1".to_owned(), String::new()));
    let ops: Vec<String> = g.call_ops.iter().map(|(o, _)| format!("`{o}`")).collect();
    let left: String = g
        .left_out
        .iter()
        .map(|l| format!("- `{}` is left out: {}.\n", l.key, l.reason))
        .collect();
    format!(
        r#"{header}
# Decoding grammars

`cargo xtask gen` writes the spec's grammars under `generated/grammar/`, in
llguidance's Lark dialect (vLLM, SGLang, OpenAI custom tools) and in
llama.cpp's GBNF, both from one grammar model (decisions P205–P209):

| File | What a model following it writes |
|---|---|
| `sentences.lark`, `sentences.gbnf` | one sentence of any structure, or one call in any directive form |
| `reply.lark`, `reply.gbnf` | a whole reply to an enveloped message: lines of free text, sentences and calls, then the verdict line last |

Both hold canonical texts only: what the generated renderers write, so every
text parses and renders back byte for byte. Calls offer the runnable ops
({ops}), each with its own argument schema; incomplete ops are never offered.
A reply's free text holds no line break, no Markdown inline syntax and no
unseen character, so no sentence or call starts in it by accident; the
verdict line needs a status and a one-line summary.
{left}
## The reply grammar for one message

The verdict must answer the message's id: fill it with `reply_grammar`, which
checks the id against the verdict's id pattern and can offer fewer ops.

```python
from agent_sentences.grammar import reply_grammar

lark = reply_grammar("{id}", ops=["tools.list"])           # llguidance Lark
gbnf = reply_grammar("{id}", dialect="gbnf")              # llama.cpp GBNF
```

```rust
use agent_sentences::grammar::{{reply_grammar, Dialect}};
let lark = reply_grammar(Dialect::Lark, "{id}", None)?;
```

## Serving engines

- **vLLM** (structured outputs, `guidance` backend): pass the Lark text as the
  request's grammar, e.g. with the OpenAI client
  `extra_body={{"structured_outputs": {{"grammar": lark}}}}` (older releases:
  `extra_body={{"guided_grammar": lark}}`).
- **SGLang** (`--grammar-backend llguidance`): pass the Lark text as the
  request's `ebnf` grammar (`extra_body={{"ebnf": lark}}`).
- **llama.cpp**: `llama-cli --grammar-file generated/grammar/reply.gbnf`
  (a reply that answers any id), or the filled text as `"grammar"` in a
  `llama-server` request.
- **OpenAI custom tools**: a tool whose input is the grammar's text:
  `{{"type": "custom", "name": "reply", "format": {{"type": "grammar", "syntax": "lark", "definition": lark}}}}`.

## The spec's example reply

A reply to the envelope's example message (id `{id}`) that the reply grammar
accepts:

<!-- example reply -->
```text
{reply}
```
"#,
        header = crate::emit::header::MD_HEADER,
        ops = ops.join(", "),
    )
}
