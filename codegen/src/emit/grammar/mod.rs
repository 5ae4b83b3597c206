//! `generated/grammar/*.lark` and `*.gbnf`: the lowered grammar model
//! ([`crate::grammar`]) written in the Lark dialect llguidance and
//! xgrammar read alike and in the GBNF llama.cpp and xgrammar read alike,
//! both by one printer ([`print`]); the grammar module of the generated
//! crate and of the Python package, and `docs/GRAMMAR.md`.

pub mod print;

use crate::grammar::model::Grammars;
use print::{rule_name, Dialect};

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
    let grammars = [
        (
            "sentences",
            &g.sentences,
            "One sentence of any structure, or one call in any directive form.",
            &n,
        ),
        (
            "reply",
            &g.reply,
            "A whole reply to an enveloped message: lines, then the verdict line.",
            &reply_notes,
        ),
    ];
    let mut out = Vec::new();
    for (dialect, ext) in [(Dialect::Lark, "lark"), (Dialect::Gbnf, "gbnf")] {
        for (name, grammar, title, notes) in &grammars {
            out.push((
                format!("grammar/{name}.{ext}"),
                print::grammar(grammar, dialect, title, notes),
            ));
        }
    }
    out
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
    let pair = |rule: &str| {
        format!(
            "({:?}, {:?})",
            rule_name(Dialect::Lark, rule),
            rule_name(Dialect::Gbnf, rule)
        )
    };
    let ops: String = g
        .call_ops
        .iter()
        .map(|(op, rule)| {
            format!(
                "        ({op:?}, {:?}, {:?}),\n",
                rule_name(Dialect::Lark, rule),
                rule_name(Dialect::Gbnf, rule)
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
