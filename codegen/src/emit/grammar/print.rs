//! The grammar model ([`crate::grammar`]) printed as text: one walk of the
//! model, and a syntax table per dialect ([`Syntax`]) holding everything the
//! dialects spell differently: comments, rule names, literals, classes.
//! How a rule is defined (`NAME: …`, `name ::= …`) is the runtime's
//! [`Dialect::define`], which `reply_grammar` finds rules by.
//!
//! Lark: every rule but `start` is a terminal (upper case), so a whole
//! sentence is one lexeme and llguidance's lexer never has to split it. The
//! model holds no engine JSON Schema (`%json`): call arguments are rules
//! (P300). Both dialects write character classes as positive ranges only
//! (P302): a negated class lets a byte-level engine write invalid UTF-8.

use std::fmt::Write;

pub use agent_sentences_runtime::grammar::Dialect;

use crate::emit::header::TOML_HEADER;
use crate::grammar::model::{Expr, Grammar};

/// How one dialect spells what the model holds.
pub struct Syntax {
    /// What begins a comment line.
    comment: &'static str,
    /// The empty text.
    empty: &'static str,
    /// The empty language (the lowering simplifies it away; written, it
    /// matches nothing, failing closed).
    nothing: &'static str,
    /// The start rule's name.
    start: &'static str,
    /// Any other rule's name, from the model's.
    rule: fn(&str) -> String,
    /// One character inside a `"…"` literal.
    lit_char: fn(char) -> String,
    /// A class of sorted, disjoint, positive ranges.
    class: fn(&[(char, char)]) -> String,
}

/// llguidance's Lark dialect, which xgrammar reads alike.
const LARK: Syntax = Syntax {
    comment: "//",
    empty: "\"\"",
    nothing: "/[^\\s\\S]/",
    start: "start",
    rule: str::to_uppercase,
    lit_char: lark_char,
    class: lark_class,
};

/// The GBNF llama.cpp and xgrammar read alike.
const GBNF: Syntax = Syntax {
    comment: "#",
    empty: "\"\"",
    // No engine reads an empty class alike; the model never leaves one
    // (a rule of no text is simplified away), so this is unreachable in
    // practice and fails closed where it is not.
    nothing: "[^\\x00-\\U0010FFFF]",
    start: "root",
    rule: |r| r.replace('_', "-"),
    lit_char: |c| gbnf_char(c, false),
    class: gbnf_class,
};

/// The syntax table of `dialect`.
pub fn syntax(dialect: Dialect) -> &'static Syntax {
    match dialect {
        Dialect::Lark => &LARK,
        Dialect::Gbnf => &GBNF,
    }
}

/// The name the model's `rule` has in `dialect`: `start` is Lark's `start`
/// and GBNF's `root`; other rules are upper case in Lark (terminals) and
/// written with `-` for `_` in GBNF.
pub fn rule_name(dialect: Dialect, rule: &str) -> String {
    let s = syntax(dialect);
    if rule == "start" {
        s.start.to_owned()
    } else {
        (s.rule)(rule)
    }
}

/// One character in a Lark string: `"`, `\` and the line and tab
/// controls escaped, other controls as `\uXXXX`.
fn lark_char(c: char) -> String {
    match c {
        '"' => "\\\"".into(),
        '\\' => "\\\\".into(),
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        c if c.is_control() => format!("\\u{:04x}", c as u32),
        c => c.to_string(),
    }
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

/// One range of a class: `a`, `ab` (two neighbours), or `a-b`.
fn range(a: char, b: char, ch: impl Fn(char) -> String) -> String {
    let mut s = ch(a);
    if b != a {
        if b as u32 > a as u32 + 1 {
            s.push('-');
        }
        s.push_str(&ch(b));
    }
    s
}

/// A Lark class: a regex `/[…]/` of positive ranges.
fn lark_class(ranges: &[(char, char)]) -> String {
    let items: String = ranges
        .iter()
        .map(|&(a, b)| range(a, b, regex_char))
        .collect();
    format!("/[{items}]/")
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
    let mut written: Vec<String> = items
        .iter()
        .map(|&(a, b)| range(a, b, |c| gbnf_char(c, true)))
        .collect();
    // `\x` items last: no hex digit may follow one.
    written.sort_by_key(|s| s.contains("\\x"));
    if !dash && written.first().is_some_and(|s| s.starts_with('^')) && written.len() > 1 {
        written.rotate_left(1);
    }
    format!("[{}{}]", if dash { "-" } else { "" }, written.concat())
}

/// A repetition's quantifier, the same in both dialects.
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

/// The walk: `e` in `dialect`, parenthesised unless it is a rule's whole
/// expression (`top`).
fn expr(dialect: Dialect, e: &Expr, top: bool) -> String {
    let s = syntax(dialect);
    match e {
        Expr::Empty => s.empty.into(),
        // Expanded by the lowering (`grammar::json`); never emitted.
        Expr::Nothing | Expr::Json(_) => s.nothing.into(),
        Expr::Lit(text) => format!("\"{}\"", text.chars().map(s.lit_char).collect::<String>()),
        Expr::Class(r) => (s.class)(r),
        Expr::Seq(v) | Expr::Alt(v) => {
            let sep = if matches!(e, Expr::Seq(_)) {
                " "
            } else {
                " | "
            };
            let joined = v
                .iter()
                .map(|x| expr(dialect, x, false))
                .collect::<Vec<_>>()
                .join(sep);
            if top {
                joined
            } else {
                format!("({joined})")
            }
        }
        Expr::Repeat {
            expr: inner,
            min,
            max,
        } => {
            let text = expr(dialect, inner, false);
            let text = if text.starts_with('(')
                || matches!(**inner, Expr::Ref(_) | Expr::Lit(_) | Expr::Class(_))
            {
                text
            } else {
                format!("({text})")
            };
            format!("{text}{}", quantifier(*min, *max))
        }
        Expr::Ref(r) => rule_name(dialect, r),
    }
}

/// The grammar `g` in `dialect`: the generated header, `title` and `notes`
/// as comments at the top, then each rule after its doc comment.
pub fn grammar(g: &Grammar, dialect: Dialect, title: &str, notes: &[String]) -> String {
    let comment = syntax(dialect).comment;
    let mut out = format!(
        "{}\n{comment} {title}\n",
        TOML_HEADER.replacen('#', comment, 1)
    );
    for n in notes {
        let _ = writeln!(out, "{comment} {n}");
    }
    out.push('\n');
    for r in &g.rules {
        let _ = writeln!(
            out,
            "{comment} {}\n{}{}{}\n",
            r.doc,
            rule_name(dialect, &r.name),
            dialect.define(),
            expr(dialect, &r.expr, true)
        );
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One expression holding every kind the walk writes, in both dialects:
    /// the table is all that differs.
    #[test]
    fn one_walk_writes_each_dialect_from_its_table() {
        let e = Expr::Seq(vec![
            Expr::Lit("a\"\n".into()),
            Expr::Repeat {
                expr: Box::new(Expr::Class(vec![('+', '/'), ('a', 'b')])),
                min: 1,
                max: None,
            },
            Expr::Alt(vec![Expr::Ref("call_line".into()), Expr::Empty]),
        ]);
        assert_eq!(
            expr(Dialect::Lark, &e, true),
            r#""a\"\n" /[+-\/ab]/+ (CALL_LINE | "")"#
        );
        assert_eq!(
            expr(Dialect::Gbnf, &e, true),
            r#""a\"\n" [-+,./ab]+ (call-line | "")"#
        );
        assert_eq!(rule_name(Dialect::Lark, "start"), "start");
        assert_eq!(rule_name(Dialect::Gbnf, "start"), "root");
    }
}
