//! A spec pattern as a grammar expression: the pattern is parsed with
//! `regex-syntax` and its HIR translated node by node ([`translate`]).
//! Named groups become references to sub-rules; look-around, anchors and
//! word boundaries have no counterpart in a grammar and are refused.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::model::Expr;

/// Every Unicode scalar value, as ranges (no surrogates).
pub const ANY: [(char, char); 2] = [('\0', '\u{D7FF}'), ('\u{E000}', '\u{10FFFF}')];

/// A named group met while translating: its name and its expression.
pub type Group = (String, Expr);

/// Translates `pattern` (with its inline flags) into an expression over
/// the characters of the text, leaving out every character in `exclude`
/// (the expression then holds the pattern's language without them: the
/// intersection with texts that hold none of them). A named group becomes
/// [`Expr::Ref`] to `prefix_<name>`, its body pushed onto `groups`.
/// A `^` at the very start is dropped (the grammar matches whole texts).
///
/// # Errors
/// The part of the pattern that a grammar cannot express, in words: a
/// look-around assertion, an anchor or a word boundary elsewhere than at the
/// start, or a byte class (the pattern must be Unicode text).
pub fn translate(
    pattern: &str,
    prefix: &str,
    exclude: &[(char, char)],
    groups: &mut Vec<Group>,
) -> Result<Expr, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|e| format!("the pattern does not parse: {e}"))?;
    let hir = strip_start(hir);
    let t = Translator { prefix, exclude };
    t.expr(&hir, groups)
}

/// Drops a leading start-of-text or start-of-line anchor.
fn strip_start(hir: Hir) -> Hir {
    use regex_syntax::hir::Look;
    let start = |h: &Hir| {
        matches!(
            h.kind(),
            HirKind::Look(Look::Start | Look::StartLF | Look::StartCRLF)
        )
    };
    match hir.kind() {
        HirKind::Concat(items) if items.first().is_some_and(start) => {
            Hir::concat(items[1..].to_vec())
        }
        _ if start(&hir) => Hir::empty(),
        _ => hir,
    }
}

struct Translator<'a> {
    prefix: &'a str,
    exclude: &'a [(char, char)],
}

impl Translator<'_> {
    fn expr(&self, hir: &Hir, groups: &mut Vec<Group>) -> Result<Expr, String> {
        Ok(match hir.kind() {
            HirKind::Empty => Expr::Empty,
            HirKind::Literal(lit) => {
                let text = std::str::from_utf8(&lit.0)
                    .map_err(|_| "a literal that is not UTF-8 text".to_owned())?;
                if text
                    .chars()
                    .any(|c| self.exclude.iter().any(|&(a, b)| a <= c && c <= b))
                {
                    Expr::Nothing
                } else {
                    Expr::Lit(text.to_owned())
                }
            }
            HirKind::Class(Class::Unicode(class)) => {
                let ranges: Vec<(char, char)> = class
                    .ranges()
                    .iter()
                    .map(|r| (r.start(), r.end()))
                    .collect();
                Expr::class(subtract(&ranges, self.exclude))
            }
            HirKind::Class(Class::Bytes(_)) => {
                return Err("a byte class (the pattern must match Unicode text)".to_owned())
            }
            HirKind::Look(look) => {
                return Err(format!(
                "the assertion {look:?} (a grammar has no look-around, anchors or word boundaries)"
            ))
            }
            HirKind::Repetition(rep) => {
                Expr::repeat(self.expr(&rep.sub, groups)?, rep.min, rep.max)
            }
            HirKind::Capture(cap) => {
                let body = self.expr(&cap.sub, groups)?;
                match &cap.name {
                    Some(name) => {
                        let rule = format!("{}_{}", self.prefix, name);
                        if matches!(body, Expr::Nothing) {
                            return Ok(Expr::Nothing);
                        }
                        groups.push((rule.clone(), body));
                        Expr::Ref(rule)
                    }
                    None => body,
                }
            }
            HirKind::Concat(items) => Expr::seq(
                items
                    .iter()
                    .map(|h| self.expr(h, groups))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            HirKind::Alternation(items) => Expr::alt(
                items
                    .iter()
                    .map(|h| self.expr(h, groups))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        })
    }
}

/// The characters of `chars` as ranges.
pub fn ranges_of(chars: &[char]) -> Vec<(char, char)> {
    chars.iter().map(|&c| (c, c)).collect()
}

/// The ranges of a class in the common regex dialect, e.g. `[\p{Cf}]`.
///
/// # Panics
/// When `class` is not a Unicode class (a bug in the caller's constant).
pub fn class_ranges(class: &str) -> Vec<(char, char)> {
    let hir = regex_syntax::parse(class).expect("a valid class");
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => {
            c.ranges().iter().map(|r| (r.start(), r.end())).collect()
        }
        _ => panic!("{class} is not a Unicode class"),
    }
}

/// `ranges` without the characters of `exclude`, never a range across the
/// surrogates.
pub fn subtract(ranges: &[(char, char)], exclude: &[(char, char)]) -> Vec<(char, char)> {
    let mut out: Vec<(u32, u32)> = ranges.iter().map(|&(a, b)| (a as u32, b as u32)).collect();
    for &(x, y) in exclude {
        let (x, y) = (x as u32, y as u32);
        out = out
            .into_iter()
            .flat_map(|(a, b)| {
                if y < a || x > b {
                    vec![(a, b)]
                } else {
                    let mut v = Vec::new();
                    if x > a {
                        v.push((a, x - 1));
                    }
                    if y < b {
                        v.push((y + 1, b));
                    }
                    v
                }
            })
            .collect();
    }
    // Split around the surrogates: a `char` range skips them, but a range
    // written by its code points (`\u{3165}-\u{fdff}`) holds them for an
    // engine that reads code points, which would then write invalid UTF-8.
    out.into_iter()
        .flat_map(|(a, b)| [(a, b.min(0xD7FF)), (a.max(0xE000), b)])
        .filter(|(a, b)| a <= b)
        .filter_map(|(a, b)| Some((char::from_u32(a)?, char::from_u32(b)?)))
        .collect()
}

/// The complement of sorted, disjoint `ranges` among all scalar values.
pub fn complement(ranges: &[(char, char)]) -> Vec<(char, char)> {
    let mut out = Vec::new();
    let mut next: u32 = 0;
    for &(a, b) in ranges {
        if (a as u32) > next {
            out.push((next, a as u32 - 1));
        }
        next = b as u32 + 1;
    }
    if next <= 0x10FFFF {
        out.push((next, 0x10FFFF));
    }
    // Split around the surrogates, which are no characters.
    let mut fixed = Vec::new();
    for (a, b) in out {
        for (x, y) in [(a, b.min(0xD7FF)), (a.max(0xE000), b)] {
            if x <= y {
                if let (Some(x), Some(y)) = (char::from_u32(x), char::from_u32(y)) {
                    fixed.push((x, y));
                }
            }
        }
    }
    fixed
}
