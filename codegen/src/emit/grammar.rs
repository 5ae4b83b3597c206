//! `generated/grammar/*.lark` and `*.gbnf`: the lowered grammar model
//! ([`crate::grammar`]) written in the Lark dialect llguidance and
//! xgrammar read alike ([`lark`]) and in the GBNF llama.cpp and xgrammar
//! read alike ([`gbnf`]).
//!
//! Lark: every rule but `start` is a terminal (upper case), so a whole
//! sentence is one lexeme and llguidance's lexer never has to split it. The
//! model holds no engine JSON Schema (`%json`): call arguments are rules
//! (P300). Both dialects write character classes as positive ranges only
//! (P302): a negated class lets a byte-level engine write invalid UTF-8.

use std::fmt::Write;

use crate::emit::header::TOML_HEADER;
use crate::grammar::model::{Expr, Grammar, Grammars};

/// The name a rule has in Lark: upper case for a terminal, which every
/// rule but `start` is.
pub fn lark_name(_g: &Grammar, rule: &str) -> String {
    if rule == "start" {
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

/// One character in a class, in the regex syntax llguidance (Rust's) and
/// xgrammar read alike: the class's own metacharacters escaped, nothing
/// else (xgrammar warns on `\#`, `\&`, `\~`), non-ASCII as `\u{…}`.
fn regex_char(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        '\\' | '/' | '[' | ']' | '^' | '-' => format!("\\{c}"),
        c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
        c => format!("\\u{{{:x}}}", c as u32),
    }
}

/// A Lark class: `[…]` of positive ranges.
fn lark_class(ranges: &[(char, char)]) -> String {
    let mut out = String::from("[");
    for &(a, b) in ranges {
        out.push_str(&regex_char(a));
        if b != a {
            if b as u32 > a as u32 + 1 {
                out.push('-');
            }
            out.push_str(&regex_char(b));
        }
    }
    out.push(']');
    out
}

/// One character in a GBNF string or class, as llama.cpp, xgrammar and
/// llguidance's `gbnf_to_lark` read it alike (P301): `\\`, `\"`, `\[`,
/// `\]`, `\t`, `\n`, `\r`; other controls `\xHH` (a class puts them last,
/// so no hex digit follows: xgrammar reads every hex digit after `\x`);
/// U+1000 to U+FFFF that are not graphic ASCII `\uHHHH` (no leading zero,
/// which `gbnf_to_lark` strips); everything else as itself.
fn gbnf_char(c: char, in_class: bool) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        '\\' => "\\\\".into(),
        '"' if !in_class => "\\\"".into(),
        '[' | ']' if in_class => format!("\\{c}"),
        c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
        c if (c as u32) < 0x20 || (0x7F..0xA0).contains(&(c as u32)) => {
            format!("\\x{:02X}", c as u32)
        }
        c if (0x1000..0x10000).contains(&(c as u32)) => format!("\\u{:04X}", c as u32),
        c => c.to_string(),
    }
}

/// A GBNF class of positive ranges, ordered so every engine reads it
/// alike: `-` first (llama.cpp has no `\-`), a class never starting with
/// `^`, ranges written with `\x` last.
fn gbnf_class(ranges: &[(char, char)]) -> String {
    // `-` out of its range, on its own.
    let mut items: Vec<(char, char)> = Vec::new();
    let mut dash = false;
    for &(a, b) in ranges {
        if a <= '-' && '-' <= b {
            dash = true;
            if a < '-' {
                items.push((a, ','));
            }
            if b > '-' {
                items.push(('.', b));
            }
        } else {
            items.push((a, b));
        }
    }
    let item = |&(a, b): &(char, char)| {
        let mut s = gbnf_char(a, true);
        if b != a {
            if b as u32 > a as u32 + 1 {
                s.push('-');
            }
            s.push_str(&gbnf_char(b, true));
        }
        s
    };
    let mut written: Vec<String> = items.iter().map(item).collect();
    // `\x` items last: no hex digit may follow one.
    written.sort_by_key(|s| s.contains("\\x"));
    if !dash && written.first().is_some_and(|s| s.starts_with('^')) && written.len() > 1 {
        written.rotate_left(1);
    }
    let mut out = String::from("[");
    if dash {
        out.push('-');
    }
    for w in written {
        out.push_str(&w);
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

/// The spelling of one dialect.
struct Dialect {
    empty: &'static str,
    nothing: &'static str,
    lit: fn(&str) -> String,
    class: fn(&[(char, char)]) -> String,
    name: fn(&str) -> String,
}

const LARK: Dialect = Dialect {
    empty: "\"\"",
    nothing: "/[^\\s\\S]/",
    lit: lark_string,
    class: |r| format!("/{}/", lark_class(r)),
    name: |r| {
        if r == "start" {
            r.to_owned()
        } else {
            r.to_uppercase()
        }
    },
};

const GBNF: Dialect = Dialect {
    empty: "\"\"",
    // No engine reads an empty class alike; the model never leaves one
    // (a rule of no text is simplified away), so this is unreachable in
    // practice and fails closed where it is not.
    nothing: "[^\\x00-\\U0010FFFF]",
    lit: |s| {
        format!(
            "\"{}\"",
            s.chars().map(|c| gbnf_char(c, false)).collect::<String>()
        )
    },
    class: gbnf_class,
    name: gbnf_name,
};

fn expr(d: &Dialect, e: &Expr, top: bool) -> String {
    match e {
        Expr::Empty => d.empty.into(),
        // Expanded by the lowering (`grammar::json`); never emitted.
        Expr::Nothing | Expr::Json(_) => d.nothing.into(),
        Expr::Lit(s) => (d.lit)(s),
        Expr::Class(r) => (d.class)(r),
        Expr::Seq(v) | Expr::Alt(v) => {
            let sep = if matches!(e, Expr::Seq(_)) {
                " "
            } else {
                " | "
            };
            let s = v
                .iter()
                .map(|x| expr(d, x, false))
                .collect::<Vec<_>>()
                .join(sep);
            if top {
                s
            } else {
                format!("({s})")
            }
        }
        Expr::Repeat {
            expr: inner,
            min,
            max,
        } => {
            let text = expr(d, inner, false);
            let text = if text.starts_with('(')
                || matches!(**inner, Expr::Ref(_) | Expr::Lit(_) | Expr::Class(_))
            {
                text
            } else {
                format!("({text})")
            };
            format!("{text}{}", quantifier(*min, *max))
        }
        Expr::Ref(r) => (d.name)(r),
    }
}

fn write(g: &Grammar, title: &str, notes: &[String], d: &Dialect, comment: &str) -> String {
    let mut out = format!(
        "{}\n{comment} {title}\n",
        TOML_HEADER.replacen('#', comment, 1)
    );
    for n in notes {
        let _ = writeln!(out, "{comment} {n}");
    }
    out.push('\n');
    for r in &g.rules {
        let name = (d.name)(&r.name);
        let sep = if comment == "#" { " ::=" } else { ":" };
        let _ = writeln!(
            out,
            "{comment} {}\n{name}{sep} {}\n",
            r.doc,
            expr(d, &r.expr, true)
        );
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The grammar in the Lark dialect llguidance and xgrammar share, `title`
/// and `notes` as comments at the top.
pub fn lark(g: &Grammar, title: &str, notes: &[String]) -> String {
    write(g, title, notes, &LARK, "//")
}

/// The grammar in the GBNF llama.cpp and xgrammar share.
pub fn gbnf(g: &Grammar, title: &str, notes: &[String]) -> String {
    write(g, title, notes, &GBNF, "#")
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
the Lark dialect llguidance and xgrammar read and in the GBNF llama.cpp and
xgrammar read, both from one grammar model (decisions P205–P209, P300–P304):

| File | What a model following it writes |
|---|---|
| `sentences.lark`, `sentences.gbnf` | one sentence of any structure, or one call in any directive form |
| `reply.lark`, `reply.gbnf` | a whole reply to an enveloped message: lines of free text, sentences and calls, then the verdict line last |

Both hold canonical texts only: what the generated renderers write, so every
text parses and renders back byte for byte. Calls offer the runnable ops
({ops}), each with its own argument schema; incomplete ops are never offered.
No field and no free text holds a line break, Markdown inline syntax or an
unseen character, so `scan` finds every sentence and call whole and none
starts in free text by accident; the verdict line needs a status and a
one-line summary.
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

- **vLLM** (structured outputs): the GBNF text with the default xgrammar
  backend, the Lark text with the `guidance` backend, as the request's
  grammar: `extra_body={{"structured_outputs": {{"grammar": text}}}}` (older
  releases: `extra_body={{"guided_grammar": text}}`).
- **SGLang**: the GBNF text as the request's `ebnf` (xgrammar or llguidance
  backend).
- **llama.cpp**: `llama-cli --grammar-file generated/grammar/reply.gbnf`
  (a reply that answers any id), or the filled text as `"grammar"` in a
  `llama-server` request; check that the output is UTF-8 (llama.cpp's
  matcher lets overlong forms through).
- **llguidance**: the Lark text, `LLMatcher(tokenizer, lark)`.
- **OpenAI-style custom tools**: a tool whose input is the Lark text:
  `{{"type": "custom", "name": "reply", "format": {{"type": "grammar", "syntax": "lark", "definition": lark}}}}`.

[docs/guide/grammar.md](../../docs/guide/grammar.md) has a request body per
engine.

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
