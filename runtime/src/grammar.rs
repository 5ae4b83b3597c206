//! The reply grammar filled in for one message (`reply_grammar`): the
//! generated crate holds the grammar texts and a [`ReplyTemplate`] naming
//! the rules to fill; this is the one place that fills them.

use std::fmt;

use regex::Regex;

/// A grammar dialect the spec's grammars are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// llguidance's Lark dialect (vLLM, SGLang, OpenAI custom tools).
    Lark,
    /// llama.cpp's GBNF.
    Gbnf,
}

impl Dialect {
    /// What joins a rule's name to its expression: `NAME: expr` in Lark,
    /// `name ::= expr` in GBNF. The generator's printer writes rules with it
    /// and [`ReplyTemplate::render`] finds them by it.
    pub const fn define(self) -> &'static str {
        match self {
            Dialect::Lark => ": ",
            Dialect::Gbnf => " ::= ",
        }
    }
}

/// Why a reply grammar was not made (nothing is made: fail closed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrammarError {
    /// The id does not match the verdict's id pattern in full.
    BadId {
        /// The id given.
        id: String,
        /// The pattern it must match.
        pattern: String,
    },
    /// An op the reply grammar does not offer (unknown, or incomplete).
    UnknownOp {
        /// The op given.
        op: String,
        /// The ops offered, in catalogue order.
        offered: Vec<String>,
    },
}

impl fmt::Display for GrammarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrammarError::BadId { id, pattern } => {
                write!(
                    f,
                    "the id {id:?} does not match the verdict's id pattern `{pattern}` in full"
                )
            }
            GrammarError::UnknownOp { op, offered } => write!(
                f,
                "the op {op:?} is not one the reply grammar offers (offered: {})",
                offered.join(", ")
            ),
        }
    }
}

impl std::error::Error for GrammarError {}

/// The reply grammar of a spec, as the generated crate holds it: both
/// texts and the names of the rules a caller fills in each dialect.
#[derive(Debug, Clone, Copy)]
pub struct ReplyTemplate {
    /// `reply.lark`.
    pub lark: &'static str,
    /// `reply.gbnf`.
    pub gbnf: &'static str,
    /// The pattern an id must match in full (flags inline).
    pub id_pattern: &'static str,
    /// The id rule's name: (Lark, GBNF).
    pub id_rule: (&'static str, &'static str),
    /// The rule choosing among the offered ops' calls: (Lark, GBNF).
    pub call_rule: (&'static str, &'static str),
    /// The rule of one reply line, which names the call rule: (Lark, GBNF).
    pub line_rule: (&'static str, &'static str),
    /// The offered ops: (op, its call rule in Lark, in GBNF), in catalogue order.
    pub ops: &'static [(&'static str, &'static str, &'static str)],
}

impl ReplyTemplate {
    /// The reply grammar in `dialect` whose verdict answers `id`, offering
    /// the calls of `ops` only (every offered op when `None`; no call at all
    /// for an empty list).
    ///
    /// # Errors
    /// [`GrammarError::BadId`] when `id` does not match the id pattern in
    /// full (so it can never break out of the grammar's string literal);
    /// [`GrammarError::UnknownOp`] for an op the grammar does not offer.
    pub fn render(
        &self,
        dialect: Dialect,
        id: &str,
        ops: Option<&[&str]>,
    ) -> Result<String, GrammarError> {
        let anchored = Regex::new(&format!("^(?:{})$", self.id_pattern))
            .expect("the spec's id pattern compiles");
        if !anchored.is_match(id) || id.contains(['"', '\\', '\n', '\r']) {
            return Err(GrammarError::BadId {
                id: id.to_owned(),
                pattern: self.id_pattern.to_owned(),
            });
        }
        let pick = |l: &'static str, g: &'static str| if dialect == Dialect::Lark { l } else { g };
        let (text, sep) = (pick(self.lark, self.gbnf), dialect.define());
        let chosen: Option<Vec<&str>> = match ops {
            None => None,
            Some(list) => {
                let mut rules = Vec::new();
                for op in list {
                    let Some(&(_, l, g)) = self.ops.iter().find(|(o, _, _)| o == op) else {
                        return Err(GrammarError::UnknownOp {
                            op: (*op).to_owned(),
                            offered: self.ops.iter().map(|(o, _, _)| (*o).to_owned()).collect(),
                        });
                    };
                    let rule = pick(l, g);
                    if !rules.contains(&rule) {
                        rules.push(rule);
                    }
                }
                Some(rules)
            }
        };
        let id_head = format!("{}{sep}", pick(self.id_rule.0, self.id_rule.1));
        let call_head = format!("{}{sep}", pick(self.call_rule.0, self.call_rule.1));
        let line_head = format!("{}{sep}", pick(self.line_rule.0, self.line_rule.1));
        let call = pick(self.call_rule.0, self.call_rule.1);
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let end = if line.ends_with('\n') { "\n" } else { "" };
            if line.starts_with(&id_head) {
                out.push_str(&format!("{id_head}\"{id}\"{end}"));
            } else if let (true, Some(rules)) = (line.starts_with(&call_head), &chosen) {
                if !rules.is_empty() {
                    out.push_str(&format!("{call_head}{}{end}", rules.join(" | ")));
                }
            } else if line.starts_with(&line_head) && chosen.as_ref().is_some_and(Vec::is_empty) {
                out.push_str(&line.replace(&format!(" | {call})"), ")"));
            } else {
                out.push_str(line);
            }
        }
        Ok(out)
    }
}
