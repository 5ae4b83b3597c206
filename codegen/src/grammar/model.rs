//! The grammar model: expressions, rules, grammars, and the two grammars
//! the spec generates ([`Grammars`]), which the emitters write.

use serde_json::Value;

/// A grammar expression over the characters of a text.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// The empty text.
    Empty,
    /// No text at all (the empty language); simplified away where it can be.
    Nothing,
    /// This exact text.
    Lit(String),
    /// One character of these sorted, disjoint, inclusive ranges.
    Class(Vec<(char, char)>),
    /// Each in turn.
    Seq(Vec<Expr>),
    /// Any one of them.
    Alt(Vec<Expr>),
    /// `min` to `max` (unbounded: `None`) times.
    Repeat {
        /// What repeats.
        expr: Box<Expr>,
        /// Fewest times.
        min: u32,
        /// Most times, `None` for no bound.
        max: Option<u32>,
    },
    /// Another rule, by name.
    Ref(String),
    /// A JSON value of this JSON Schema, canonical; the lowering replaces
    /// each by explicit rules (`grammar::json`) before anything is emitted.
    Json(Value),
}

impl Expr {
    /// A class; [`Expr::Nothing`] when it holds no character.
    pub fn class(ranges: Vec<(char, char)>) -> Expr {
        if ranges.is_empty() {
            Expr::Nothing
        } else {
            Expr::Class(ranges)
        }
    }

    /// A sequence, flattened; [`Expr::Nothing`] when a part is.
    pub fn seq(items: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        let mut flat = Vec::new();
        for e in items {
            match e {
                Expr::Seq(inner) => flat.extend(inner),
                e => flat.push(e),
            }
        }
        for e in flat {
            match e {
                Expr::Nothing => return Expr::Nothing,
                Expr::Empty => {}
                Expr::Lit(s) => match out.last_mut() {
                    Some(Expr::Lit(prev)) => prev.push_str(&s),
                    _ => out.push(Expr::Lit(s)),
                },
                e => out.push(e),
            }
        }
        match out.len() {
            0 => Expr::Empty,
            1 => out.pop().expect("one"),
            _ => Expr::Seq(out),
        }
    }

    /// An alternation without its empty-language branches.
    pub fn alt(items: Vec<Expr>) -> Expr {
        let mut out: Vec<Expr> = Vec::new();
        for e in items {
            match e {
                Expr::Nothing => {}
                Expr::Alt(inner) => out.extend(inner),
                e => out.push(e),
            }
        }
        match out.len() {
            0 => Expr::Nothing,
            1 => out.pop().expect("one"),
            _ => Expr::Alt(out),
        }
    }

    /// A repetition, simplified where it is trivial.
    pub fn repeat(expr: Expr, min: u32, max: Option<u32>) -> Expr {
        match (&expr, min, max) {
            (_, _, Some(0)) => Expr::Empty,
            (Expr::Nothing, 0, _) | (Expr::Empty, _, _) => Expr::Empty,
            (Expr::Nothing, _, _) => Expr::Nothing,
            (_, 1, Some(1)) => expr,
            _ => Expr::Repeat {
                expr: Box::new(expr),
                min,
                max,
            },
        }
    }

    /// Names of the rules this expression refers to.
    pub fn refs(&self, out: &mut Vec<String>) {
        match self {
            Expr::Ref(r) => out.push(r.clone()),
            Expr::Seq(v) | Expr::Alt(v) => v.iter().for_each(|e| e.refs(out)),
            Expr::Repeat { expr, .. } => expr.refs(out),
            _ => {}
        }
    }
}

/// One named rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Its name, snake_case (each dialect spells it its own way).
    pub name: String,
    /// One line saying what it is and where it comes from.
    pub doc: String,
    /// Its body.
    pub expr: Expr,
}

/// A grammar: rules, the first the start rule.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grammar {
    /// The rules, start rule first, each name once.
    pub rules: Vec<Rule>,
}

impl Grammar {
    /// Adds a rule unless one of that name exists.
    pub fn push(&mut self, name: &str, doc: impl Into<String>, expr: Expr) {
        if self.rules.iter().all(|r| r.name != name) {
            self.rules.push(Rule {
                name: name.to_owned(),
                doc: doc.into(),
                expr,
            });
        }
    }

    /// The rule named `name`.
    pub fn rule(&self, name: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.name == name)
    }
}

/// A structure the grammar leaves out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// Structure key.
    pub key: String,
    /// Why, in words.
    pub reason: String,
}

/// Both grammars and what the caller of the reply grammar fills in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grammars {
    /// `sentences`: any one sentence or call.
    pub sentences: Grammar,
    /// `reply`: a whole reply to an enveloped message.
    pub reply: Grammar,
    /// The reply rule whose body is the id the verdict answers (the
    /// caller substitutes the message's id).
    pub id_rule: String,
    /// The pattern an id must match in full (the verdict structure's id
    /// field), flags inline.
    pub id_pattern: String,
    /// The reply rule that chooses among the offered ops' calls.
    pub call_rule: String,
    /// The reply rule of one reply line.
    pub line_rule: String,
    /// The ops the reply offers, each with the rule of its calls, in
    /// catalogue order.
    pub call_ops: Vec<(String, String)>,
    /// Structures left out of the grammar.
    pub left_out: Vec<LeftOut>,
    /// Structures offered as reply lines.
    pub reply_structures: Vec<String>,
    /// The spec's example reply: (id, text), from the envelope's example.
    pub example_reply: Option<(String, String)>,
}

/// A rule-name part of an op name: `followup.create` → `followup_create`.
pub fn op_ident(op: &str) -> String {
    op.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}
