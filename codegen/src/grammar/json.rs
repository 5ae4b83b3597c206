//! A call's argument schema as explicit grammar rules (P300): every
//! [`Expr::Json`] the lowering puts in a grammar becomes rules of its own,
//! so no dialect needs an engine's JSON Schema support, whose options differ
//! between engines (xgrammar's Lark front end ignores llguidance's `%json`
//! separator options). The rules hold the canonical JSON the renderers
//! write: `", "` and `": "` separators, no other whitespace, properties in
//! the schema's order, strings in the plain characters of P206
//! with `"` the only escape, integers to the schema's exact bounds.

use serde_json::Value;

use super::model::{op_ident, Expr, Grammar, Rule};
use super::regex;

/// Replaces every [`Expr::Json`] of `g` by a reference to a rule
/// `<owner>_args` (`<owner>` the rule that held it), pushing the rules of
/// its schema after that rule; a string argument holds the characters of
/// `string_chars` (P206's plain characters).
pub fn expand(g: &mut Grammar, string_chars: &[(char, char)]) {
    let mut out = Vec::with_capacity(g.rules.len());
    for mut rule in std::mem::take(&mut g.rules) {
        let mut extra = Vec::new();
        let owner = rule.name.clone();
        rule.expr = replace(rule.expr, &owner, string_chars, &mut extra);
        out.push(rule);
        for (name, doc, expr) in extra {
            out.push(Rule { name, doc, expr });
        }
    }
    for r in out {
        g.push(&r.name, r.doc, r.expr);
    }
}

type Extra = Vec<(String, String, Expr)>;

fn replace(e: Expr, owner: &str, chars: &[(char, char)], extra: &mut Extra) -> Expr {
    match e {
        Expr::Json(schema) => {
            let name = format!("{owner}_args");
            let body = value(&name, &schema, chars, extra);
            extra.push((
                name.clone(),
                format!("the arguments of `{owner}`: its op's JSON Schema, canonical"),
                body,
            ));
            Expr::Ref(name)
        }
        Expr::Seq(v) => Expr::seq(
            v.into_iter()
                .map(|x| replace(x, owner, chars, extra))
                .collect(),
        ),
        Expr::Alt(v) => Expr::alt(
            v.into_iter()
                .map(|x| replace(x, owner, chars, extra))
                .collect(),
        ),
        Expr::Repeat { expr, min, max } => {
            Expr::repeat(replace(*expr, owner, chars, extra), min, max)
        }
        e => e,
    }
}

fn lit(s: &str) -> Expr {
    Expr::Lit(s.to_owned())
}

/// The expression of one JSON value of schema `s`; sub-rules are named
/// `<name>_…`. Objects with `properties` (in order, `required` or not, no
/// others), strings (`minLength`), integers (`minimum`, `maximum`, within
/// i64), booleans and null; any other schema allows nothing.
fn value(name: &str, s: &Value, chars: &[(char, char)], extra: &mut Extra) -> Expr {
    match s.get("type").and_then(Value::as_str).unwrap_or("") {
        "object" => object(name, s, chars, extra),
        "string" => {
            let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let ch = format!("{name}_char");
            let plain = regex::subtract(chars, &[('"', '"'), ('\\', '\\')]);
            extra.push((
                ch.clone(),
                "a character of a string argument: plain, `\"` escaped".to_owned(),
                Expr::alt(vec![Expr::class(plain), lit("\\\"")]),
            ));
            Expr::seq(vec![
                lit("\""),
                Expr::repeat(Expr::Ref(ch), u32::try_from(min).unwrap_or(u32::MAX), None),
                lit("\""),
            ])
        }
        "integer" => {
            let lo = s.get("minimum").and_then(Value::as_i64).unwrap_or(i64::MIN);
            let hi = s.get("maximum").and_then(Value::as_i64).unwrap_or(i64::MAX);
            integer(i128::from(lo), i128::from(hi))
        }
        "boolean" => Expr::alt(vec![lit("true"), lit("false")]),
        "null" => lit("null"),
        _ => Expr::Nothing,
    }
}

fn object(name: &str, s: &Value, chars: &[(char, char)], extra: &mut Extra) -> Expr {
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
        return lit("{}");
    }
    let mut member = Vec::new();
    for (k, v) in &props {
        let vn = format!("{name}_{}", op_ident(k));
        let vb = value(&vn, v, chars, extra);
        extra.push((vn.clone(), format!("the value of `{k}`"), vb));
        member.push(Expr::seq(vec![
            lit(&format!("{}: ", Value::String((*k).clone()))),
            Expr::Ref(vn),
        ]));
    }
    // t<i>f / t<i>n: the properties from i on, when none is written yet
    // (no separator before the next) / after one.
    let n = props.len();
    for i in (0..n).rev() {
        for first in [true, false] {
            let next = |f: bool| {
                if i + 1 < n {
                    Expr::Ref(format!("{name}_t{}{}", i + 1, if f { "f" } else { "n" }))
                } else {
                    Expr::Empty
                }
            };
            let sep = if first { Expr::Empty } else { lit(", ") };
            let with = Expr::seq(vec![sep, member[i].clone(), next(false)]);
            let rule = if required.contains(&props[i].0.as_str()) {
                with
            } else {
                Expr::alt(vec![with, next(first)])
            };
            extra.push((
                format!("{name}_t{i}{}", if first { "f" } else { "n" }),
                format!(
                    "the properties from `{}` on{}",
                    props[i].0,
                    if first { "" } else { ", after one" }
                ),
                rule,
            ));
        }
    }
    Expr::seq(vec![lit("{"), Expr::Ref(format!("{name}_t0f")), lit("}")])
}

/// The decimal texts of the integers from `lo` to `hi` (JSON's: no
/// leading zero, `-` for a negative, no `-0`), exactly.
pub fn integer(lo: i128, hi: i128) -> Expr {
    if lo > hi {
        return Expr::Nothing;
    }
    let mut alts = Vec::new();
    if lo < 0 {
        // -max(1, -hi) ..= -lo, written as `-` and the magnitude.
        let mag = natural((-hi).max(1), -lo);
        alts.push(Expr::seq(vec![lit("-"), mag]));
    }
    if hi >= 0 {
        alts.push(natural(lo.max(0), hi));
    }
    Expr::alt(alts)
}

/// The texts of the naturals from `lo` to `hi` (0 <= lo <= hi).
fn natural(lo: i128, hi: i128) -> Expr {
    let (a, b) = (lo.to_string(), hi.to_string());
    let mut alts = Vec::new();
    let mut full: Option<(usize, usize)> = None; // lengths wholly covered
    for len in a.len()..=b.len() {
        let from = if len == a.len() {
            a.clone()
        } else {
            format!("1{}", "0".repeat(len - 1))
        };
        let to = if len == b.len() {
            b.clone()
        } else {
            "9".repeat(len)
        };
        let whole = from == format!("1{}", "0".repeat(len - 1)) && to == "9".repeat(len);
        if whole {
            full = Some(full.map_or((len, len), |(s, _)| (s, len)));
            continue;
        }
        if let Some((s, e)) = full.take() {
            alts.push(lengths(s, e));
        }
        alts.push(same_len(&from, &to));
    }
    if let Some((s, e)) = full {
        alts.push(lengths(s, e));
    }
    Expr::alt(alts)
}

/// Every natural of `s` to `e` digits (s >= 1): `[1-9][0-9]{s-1,e-1}`.
fn lengths(s: usize, e: usize) -> Expr {
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    Expr::seq(vec![
        Expr::Class(vec![('1', '9')]),
        Expr::repeat(Expr::Class(vec![('0', '9')]), n(s - 1), Some(n(e - 1))),
    ])
}

fn digits(a: u8, b: u8) -> Expr {
    if a == b {
        Expr::Lit(char::from(a).to_string())
    } else {
        Expr::Class(vec![(char::from(a), char::from(b))])
    }
}

/// The digit strings of one length from `a` to `b` (`a <= b`), as flat
/// alternatives (a literal prefix, a class, any digits): Lark readers
/// refuse deeply nested groups.
fn same_len(a: &str, b: &str) -> Expr {
    Expr::alt(same_len_alts(a, b))
}

fn same_len_alts(a: &str, b: &str) -> Vec<Expr> {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    if x.len() == 1 {
        return vec![digits(x[0], y[0])];
    }
    let prefixed = |d: u8, alts: Vec<Expr>| -> Vec<Expr> {
        alts.into_iter()
            .map(|e| Expr::seq(vec![digits(d, d), e]))
            .collect()
    };
    if x[0] == y[0] {
        return prefixed(x[0], same_len_alts(&a[1..], &b[1..]));
    }
    let n = x.len() - 1;
    let any = |k: usize| {
        let k = u32::try_from(k).unwrap_or(u32::MAX);
        Expr::repeat(Expr::Class(vec![('0', '9')]), k, Some(k))
    };
    let low_zero = a[1..].bytes().all(|c| c == b'0');
    let high_nine = b[1..].bytes().all(|c| c == b'9');
    let (mid_lo, mid_hi) = (
        if low_zero { x[0] } else { x[0] + 1 },
        if high_nine { y[0] } else { y[0] - 1 },
    );
    let mut alts = Vec::new();
    if !low_zero {
        alts.extend(prefixed(x[0], same_len_alts(&a[1..], &"9".repeat(n))));
    }
    if mid_lo <= mid_hi {
        alts.push(Expr::seq(vec![digits(mid_lo, mid_hi), any(n)]));
    }
    if !high_nine {
        alts.extend(prefixed(y[0], same_len_alts(&"0".repeat(n), &b[1..])));
    }
    alts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small matcher of the expressions `integer` makes.
    fn matches(e: &Expr, s: &str) -> bool {
        fn ends<'a>(e: &Expr, s: &'a str) -> Vec<&'a str> {
            match e {
                Expr::Empty => vec![s],
                Expr::Nothing | Expr::Ref(_) | Expr::Json(_) => vec![],
                Expr::Lit(l) => s.strip_prefix(l.as_str()).into_iter().collect(),
                Expr::Class(r) => {
                    let mut it = s.chars();
                    match it.next() {
                        Some(c) if r.iter().any(|&(a, b)| a <= c && c <= b) => vec![it.as_str()],
                        _ => vec![],
                    }
                }
                Expr::Seq(v) => v.iter().fold(vec![s], |acc, x| {
                    acc.into_iter().flat_map(|t| ends(x, t)).collect()
                }),
                Expr::Alt(v) => v.iter().flat_map(|x| ends(x, s)).collect(),
                Expr::Repeat { expr, min, max } => {
                    let mut out = Vec::new();
                    let mut cur = vec![s];
                    for i in 0..=max.unwrap_or(40) {
                        if i >= *min {
                            out.extend(cur.iter().copied());
                        }
                        cur = cur.into_iter().flat_map(|t| ends(expr, t)).collect();
                        if cur.is_empty() {
                            break;
                        }
                    }
                    out
                }
            }
        }
        ends(e, s).contains(&"")
    }

    #[test]
    fn integers_hold_exactly_their_bounds() {
        for (lo, hi) in [
            (1, i64::MAX as i128),
            (0, i64::MAX as i128),
            (i64::MIN as i128, i64::MAX as i128),
            (7, 1234),
            (-35, -3),
            (-5, 120),
            (0, 0),
        ] {
            let e = integer(lo, hi);
            let probes: Vec<i128> = [
                lo - 1,
                lo,
                lo + 1,
                hi - 1,
                hi,
                hi + 1,
                0,
                1,
                -1,
                9,
                10,
                99,
                100,
                999_999_999_999_999_999,
                1_000_000_000_000_000_000,
                9_223_372_036_854_775_799,
                9_223_372_036_854_775_806,
                9_223_372_036_854_775_808,
                9_300_000_000_000_000_000,
                99_999_999_999_999_999_999,
            ]
            .into_iter()
            .chain((-130..130).map(i128::from))
            .collect();
            for p in probes {
                let want = lo <= p && p <= hi;
                assert_eq!(matches(&e, &p.to_string()), want, "{p} in {lo}..={hi}");
            }
            for bad in ["", "-", "-0", "01", "00", "+1", "1.0"] {
                assert!(!matches(&e, bad), "{bad:?} in {lo}..={hi}");
            }
        }
    }
}
