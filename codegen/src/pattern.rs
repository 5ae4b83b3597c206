//! Pattern analysis: what a regex in the spec contains, read from its syntax
//! tree (`regex-syntax`), so the checks and the emitters never guess from text.
//!
//! The spec's patterns must mean the same in Python `re` (3.11) and the Rust
//! `regex` crate. [`analyze`] reports every construct outside that common
//! dialect as a [`DialectIssue`].

use regex_syntax::ast::{self, Ast, GroupKind};

use crate::model::Flag;

/// A named group of a pattern, as found in its syntax tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedGroup {
    /// The group's name.
    pub name: String,
    /// The group's inner pattern text (without the `(?P<name>` … `)`).
    pub inner: String,
    /// Names of the named groups enclosing this one, outermost first.
    pub ancestors: Vec<String>,
    /// The literal alternatives, when the group is a plain alternation of
    /// literal strings (`OK|FAIL|…`); `None` otherwise.
    pub literals: Option<Vec<String>>,
}

/// One top-level element of a pattern, for locating where a text stops fitting.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StepSpec {
    /// The pattern text from the start through this element (no flags).
    pub prefix: String,
    /// A short description of this element, e.g. `` `] [from` `` or `<title>`.
    pub expected: String,
}

/// A construct outside the dialect common to Python `re` and Rust `regex`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectIssue {
    /// Byte offset in the pattern.
    pub offset: usize,
    /// What is wrong, and what to write instead.
    pub message: String,
}

/// The result of [`analyze`].
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Named groups in the order they open.
    pub groups: Vec<NamedGroup>,
    /// Top-level elements.
    pub steps: Vec<StepSpec>,
    /// Constructs the two engines do not share.
    pub dialect: Vec<DialectIssue>,
}

/// The inline-flag prefix both engines accept at the start of a pattern,
/// e.g. `(?ms)`; empty without flags.
pub fn flag_prefix(flags: &[Flag]) -> String {
    let mut f: Vec<char> = flags
        .iter()
        .map(|f| match f {
            Flag::Multiline => 'm',
            Flag::Dotall => 's',
        })
        .collect();
    f.sort_unstable();
    f.dedup();
    if f.is_empty() {
        String::new()
    } else {
        format!("(?{})", f.into_iter().collect::<String>())
    }
}

/// Parses and analyzes a pattern.
///
/// # Errors
/// The parser's message and byte offset when the Rust `regex` syntax rejects
/// the pattern.
pub fn analyze(pattern: &str, flags: &[Flag]) -> Result<Analysis, (usize, String)> {
    let ast = ast::parse::Parser::new()
        .parse(pattern)
        .map_err(|e| (e.span().start.offset, e.kind().to_string()))?;
    let mut a = Analysis::default();
    let multiline = flags.contains(&Flag::Multiline);
    walk(&ast, pattern, &mut Vec::new(), multiline, &mut a);
    let items: Vec<&Ast> = match &ast {
        Ast::Concat(c) => c.asts.iter().collect(),
        other => vec![other],
    };
    let mut i = 0;
    while i < items.len() {
        let start = i;
        while i < items.len() && matches!(items[i], Ast::Literal(_)) {
            i += 1;
        }
        if i > start {
            let text: String = items[start..i]
                .iter()
                .map(|x| match x {
                    Ast::Literal(l) => l.c,
                    _ => unreachable!("only literals are merged"),
                })
                .collect();
            let end = items[i - 1].span().end.offset;
            a.steps.push(StepSpec {
                prefix: pattern[..end].to_owned(),
                expected: format!("`{text}`"),
            });
            continue;
        }
        let item = items[i];
        a.steps.push(StepSpec {
            prefix: pattern[..item.span().end.offset].to_owned(),
            expected: describe(item, pattern),
        });
        i += 1;
    }
    Ok(a)
}

fn describe(item: &Ast, pattern: &str) -> String {
    let src = &pattern[item.span().start.offset..item.span().end.offset];
    match item {
        Ast::Group(g) => match &g.kind {
            GroupKind::CaptureName { name, .. } => format!("<{}>", name.name),
            _ => format!("text matching `{src}`"),
        },
        Ast::Repetition(r) if is_blank_class(&r.ast) => "whitespace".to_owned(),
        Ast::Assertion(a) if a.kind == ast::AssertionKind::StartLine => {
            "the start of a line".to_owned()
        }
        _ => format!("text matching `{src}`"),
    }
}

fn is_blank_class(ast: &Ast) -> bool {
    match ast {
        Ast::ClassBracketed(c) if !c.negated => {
            let items: Vec<&ast::ClassSetItem> = match &c.kind {
                ast::ClassSet::Item(ast::ClassSetItem::Union(u)) => u.items.iter().collect(),
                ast::ClassSet::Item(i) => vec![i],
                ast::ClassSet::BinaryOp(_) => return false,
            };
            items.iter().all(|i| matches!(i, ast::ClassSetItem::Literal(l) if matches!(l.c, ' ' | '\t' | '\r' | '\n')))
        }
        _ => false,
    }
}

fn literal_alternatives(ast: &Ast) -> Option<Vec<String>> {
    fn lit(ast: &Ast) -> Option<String> {
        match ast {
            Ast::Literal(l) => Some(l.c.to_string()),
            Ast::Concat(c) => c.asts.iter().map(lit).collect(),
            _ => None,
        }
    }
    match ast {
        Ast::Alternation(alt) => alt.asts.iter().map(lit).collect(),
        other => lit(other).map(|s| vec![s]),
    }
}

fn issue(a: &mut Analysis, offset: usize, message: impl Into<String>) {
    a.dialect.push(DialectIssue {
        offset,
        message: message.into(),
    });
}

fn walk(ast: &Ast, pattern: &str, stack: &mut Vec<String>, multiline: bool, a: &mut Analysis) {
    let offset = ast.span().start.offset;
    match ast {
        Ast::Empty(_) | Ast::Dot(_) => {}
        Ast::Flags(_) => issue(a, offset, "inline flags: put them in the pattern's `flags` list (Python accepts global flags only at the very start)"),
        Ast::Literal(l) => check_literal(l, a),
        Ast::Assertion(x) => match x.kind {
            ast::AssertionKind::StartLine | ast::AssertionKind::StartText => {}
            ast::AssertionKind::EndLine if multiline => {}
            ast::AssertionKind::EndLine => issue(a, offset, "`$` without MULTILINE: Python also matches before a final newline, Rust only at the very end"),
            ast::AssertionKind::EndText => issue(a, offset, "`\\z` is not Python 3.11 syntax and `\\Z` is not Rust syntax: leave end-of-text anchoring to full-match parsing"),
            _ => issue(a, offset, "word boundaries: the engines disagree on which characters are word characters"),
        },
        Ast::ClassUnicode(_) => issue(a, offset, "Unicode classes (`\\p{..}`) are not Python syntax"),
        Ast::ClassPerl(_) => issue(a, offset, "`\\d`, `\\s`, `\\w` mean different sets in Python and Rust: write the class out, e.g. `[ \\t]`"),
        Ast::ClassBracketed(c) => check_class(&c.kind, a),
        Ast::Repetition(r) => {
            let op = &pattern[r.op.span.start.offset..r.op.span.end.offset];
            if matches!(r.op.kind, ast::RepetitionKind::Range(_)) && op.contains(char::is_whitespace) {
                issue(a, r.op.span.start.offset, format!("`{op}`: Rust allows spaces inside a counted repetition, Python reads the braces as literal text: write it without spaces"));
            }
            walk(&r.ast, pattern, stack, multiline, a)
        }
        Ast::Alternation(x) => x.asts.iter().for_each(|s| walk(s, pattern, stack, multiline, a)),
        Ast::Concat(x) => x.asts.iter().for_each(|s| walk(s, pattern, stack, multiline, a)),
        Ast::Group(g) => match &g.kind {
            GroupKind::CaptureName { starts_with_p, name } => {
                if !starts_with_p {
                    issue(a, offset, format!("write the group as `(?P<{}>…)`: Python 3.11 does not accept `(?<name>…)`", name.name));
                }
                let inner = &pattern[g.ast.span().start.offset..g.ast.span().end.offset];
                a.groups.push(NamedGroup {
                    name: name.name.clone(),
                    inner: inner.to_owned(),
                    ancestors: stack.clone(),
                    literals: literal_alternatives(&g.ast),
                });
                stack.push(name.name.clone());
                walk(&g.ast, pattern, stack, multiline, a);
                stack.pop();
            }
            GroupKind::NonCapturing(flags) => {
                if !flags.items.is_empty() {
                    issue(a, offset, "scoped inline flags: put flags in the pattern's `flags` list");
                }
                walk(&g.ast, pattern, stack, multiline, a);
            }
            GroupKind::CaptureIndex(_) => walk(&g.ast, pattern, stack, multiline, a),
        },
    }
}

fn check_literal(l: &ast::Literal, a: &mut Analysis) {
    match &l.kind {
        ast::LiteralKind::HexBrace(_) => issue(
            a,
            l.span.start.offset,
            "`\\x{…}` is not Python syntax: write `\\uXXXX` or the character",
        ),
        ast::LiteralKind::Octal => issue(
            a,
            l.span.start.offset,
            "octal escapes differ between the engines",
        ),
        _ => {}
    }
}

fn check_class(set: &ast::ClassSet, a: &mut Analysis) {
    match set {
        ast::ClassSet::BinaryOp(op) => issue(
            a,
            op.span.start.offset,
            "class set operations (`&&`, `--`, `~~`) are not Python syntax",
        ),
        ast::ClassSet::Item(item) => check_class_item(item, a),
    }
}

fn check_class_item(item: &ast::ClassSetItem, a: &mut Analysis) {
    use ast::ClassSetItem as I;
    match item {
        I::Empty(_) | I::Range(_) => {}
        I::Literal(l) => check_literal(l, a),
        I::Ascii(x) => issue(
            a,
            x.span.start.offset,
            "`[[:name:]]` classes are not Python syntax",
        ),
        I::Unicode(x) => issue(
            a,
            x.span.start.offset,
            "Unicode classes (`\\p{..}`) are not Python syntax",
        ),
        I::Perl(x) => issue(
            a,
            x.span.start.offset,
            "`\\d`, `\\s`, `\\w` mean different sets in Python and Rust: write the characters out",
        ),
        I::Bracketed(x) => issue(
            a,
            x.span.start.offset,
            "a nested `[` class: Python reads `[` inside a class as a literal; escape it as `\\[`",
        ),
        I::Union(u) => u.items.iter().for_each(|i| check_class_item(i, a)),
    }
}

/// The pattern with each fixed group's inner pattern replaced by its fixed
/// text (escaped), so a scan for the structure matches only that text
/// (e.g. `verb` fixed to `CLAIM` in `claim`). Unknown groups are ignored.
pub fn with_fixed_groups(pattern: &str, fixed: &[(String, String)]) -> String {
    let Ok(ast) = ast::parse::Parser::new().parse(pattern) else {
        return pattern.to_owned();
    };
    let mut spans: Vec<(usize, usize, String)> = Vec::new();
    fn collect(ast: &Ast, fixed: &[(String, String)], out: &mut Vec<(usize, usize, String)>) {
        match ast {
            Ast::Group(g) => {
                if let GroupKind::CaptureName { name, .. } = &g.kind {
                    if let Some((_, v)) = fixed.iter().find(|(n, _)| *n == name.name) {
                        out.push((
                            g.ast.span().start.offset,
                            g.ast.span().end.offset,
                            regex_syntax::escape(v),
                        ));
                        return;
                    }
                }
                collect(&g.ast, fixed, out);
            }
            Ast::Repetition(r) => collect(&r.ast, fixed, out),
            Ast::Alternation(x) => x.asts.iter().for_each(|a| collect(a, fixed, out)),
            Ast::Concat(x) => x.asts.iter().for_each(|a| collect(a, fixed, out)),
            _ => {}
        }
    }
    collect(&ast, fixed, &mut spans);
    spans.sort();
    let mut out = pattern.to_owned();
    for (start, end, text) in spans.into_iter().rev() {
        out.replace_range(start..end, &text);
    }
    out
}

/// The literal text every match of `pattern` starts with (after a leading
/// `^`), with fixed groups read as their text; e.g. `[WO:`, `[CLAIM`.
pub fn head(pattern: &str, fixed: &[(String, String)]) -> String {
    let Ok(ast) = ast::parse::Parser::new().parse(pattern) else {
        return String::new();
    };
    let items: Vec<&Ast> = match &ast {
        Ast::Concat(c) => c.asts.iter().collect(),
        other => vec![other],
    };
    let mut out = String::new();
    for item in items {
        match item {
            Ast::Assertion(a) if out.is_empty() && a.kind == ast::AssertionKind::StartLine => {}
            Ast::Literal(l) => out.push(l.c),
            Ast::Group(g) => match &g.kind {
                GroupKind::CaptureName { name, .. } => {
                    match fixed.iter().find(|(n, _)| *n == name.name) {
                        Some((_, v)) => out.push_str(v),
                        None => break,
                    }
                }
                _ => break,
            },
            _ => break,
        }
    }
    out
}

/// When `pattern` ends in a named group whose inner pattern has no capture
/// groups, possibly followed by a free-text group's trailer
/// ([`crate::free_text::TRAILER`]): `(group name, the pattern before the
/// group, the inner pattern, whether the trailer follows)`.
pub fn tail_split(pattern: &str) -> Option<(String, String, String, bool)> {
    let (body, trailer) = match pattern.strip_suffix(crate::free_text::TRAILER) {
        Some(b) if b.ends_with(')') => (b, true),
        _ => (pattern, false),
    };
    let ast = ast::parse::Parser::new().parse(body).ok()?;
    let Ast::Concat(c) = &ast else { return None };
    let last = c.asts.last()?;
    let Ast::Group(g) = last else { return None };
    let GroupKind::CaptureName { name, .. } = &g.kind else {
        return None;
    };
    let inner = &body[g.ast.span().start.offset..g.ast.span().end.offset];
    let nested = analyze(inner, &[]).ok()?.groups.len();
    if nested > 0 {
        return None;
    }
    Some((
        name.name.clone(),
        body[..last.span().start.offset].to_owned(),
        inner.to_owned(),
        trailer,
    ))
}

/// True when the pattern starts with `^` (the sentence must start a line).
pub fn starts_line(pattern: &str) -> bool {
    match ast::parse::Parser::new().parse(pattern) {
        Ok(Ast::Concat(ref c)) => {
            matches!(c.asts.first(), Some(Ast::Assertion(a)) if a.kind == ast::AssertionKind::StartLine)
        }
        _ => false,
    }
}

/// True when every string the group can match is one to nine ASCII digits,
/// so it always fits a `u32`. `inner` is the group's inner pattern.
pub fn digits_only_u32(inner: &str) -> bool {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn digits(h: &Hir) -> bool {
        match h.kind() {
            HirKind::Empty => true,
            HirKind::Literal(l) => l.0.iter().all(u8::is_ascii_digit),
            HirKind::Class(Class::Unicode(c)) => c
                .ranges()
                .iter()
                .all(|r| r.start() >= '0' && r.end() <= '9'),
            HirKind::Class(Class::Bytes(c)) => c
                .ranges()
                .iter()
                .all(|r| r.start() >= b'0' && r.end() <= b'9'),
            HirKind::Look(_) => false,
            HirKind::Repetition(r) => digits(&r.sub),
            HirKind::Capture(c) => digits(&c.sub),
            HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().all(digits),
        }
    }
    match regex_syntax::Parser::new().parse(inner) {
        Ok(h) => {
            digits(&h)
                && h.properties().minimum_len().unwrap_or(0) >= 1
                && h.properties().maximum_len().is_some_and(|m| m <= 9)
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_groups_nesting_and_literals() {
        let a = analyze(
            r"\[JOB (?P<job_id>[a-z]+(?:/(?P<slot>[0-9]+))?)\] (?P<s>OK|FAIL)",
            &[],
        )
        .unwrap();
        let names: Vec<_> = a
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.ancestors.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("job_id", vec![]),
                ("slot", vec!["job_id".to_owned()]),
                ("s", vec![])
            ]
        );
        assert_eq!(
            a.groups[2].literals,
            Some(vec!["OK".to_owned(), "FAIL".to_owned()])
        );
        assert_eq!(a.groups[1].inner, "[0-9]+");
        assert!(a.dialect.is_empty());
        assert_eq!(a.steps[0].expected, "`[JOB `");
        assert_eq!(a.steps[1].expected, "<job_id>");
    }

    #[test]
    fn reports_constructs_outside_the_common_dialect() {
        let a = analyze(r"(?<x>\s)\b$\p{L}[[:alpha:]](?i)a", &[]).unwrap();
        let msgs: Vec<_> = a.dialect.iter().map(|d| d.offset).collect();
        assert_eq!(msgs, vec![0, 5, 8, 10, 11, 17, 27]);
        assert!(analyze("$", &[Flag::Multiline]).unwrap().dialect.is_empty());
        let spaced = analyze("a{ 1,2}b{1,2}", &[]).unwrap();
        assert_eq!(
            spaced.dialect.iter().map(|d| d.offset).collect::<Vec<_>>(),
            vec![1]
        );
    }

    #[test]
    fn integer_groups() {
        assert!(digits_only_u32("0|[1-9][0-9]{0,8}"));
        assert!(!digits_only_u32("[0-9]+"));
        assert!(!digits_only_u32("[0-9a]{1,3}"));
        assert!(!digits_only_u32("[0-9]{0,3}"));
    }

    #[test]
    fn fixed_groups_and_heads() {
        let fixed = vec![("verb".to_owned(), "NO-ACTION".to_owned())];
        let p = r"\[(?P<verb>ACK|NO-ACTION)[ \t]+(?P<id>[a-z]+)\]";
        assert_eq!(
            with_fixed_groups(p, &fixed),
            r"\[(?P<verb>NO\-ACTION)[ \t]+(?P<id>[a-z]+)\]"
        );
        assert_eq!(head(p, &fixed), "[NO-ACTION");
        assert_eq!(head(r"^\[WO:(?P<x>a)", &[]), "[WO:");
        assert!(starts_line(r"^\[WO:"));
        assert!(!starts_line(r"\[WO:"));
    }

    #[test]
    fn tail_splits() {
        let (g, before, inner, trailer) = tail_split(r"\[X (?P<id>[a-z]+)\] (?P<body>.+)").unwrap();
        assert_eq!(
            (g.as_str(), before.as_str(), inner.as_str(), trailer),
            ("body", r"\[X (?P<id>[a-z]+)\] ", ".+", false)
        );
        let with_trailer = format!(r"\[X\] (?P<body>.+){}", crate::free_text::TRAILER);
        assert_eq!(
            tail_split(&with_trailer).map(|t| (t.2, t.3)),
            Some((".+".to_owned(), true))
        );
        assert_eq!(tail_split(r"\[X (?P<id>[a-z]+)\]"), None);
        assert_eq!(tail_split(r"a(?P<t>b(?P<u>c))"), None);
    }

    #[test]
    fn flag_prefixes() {
        assert_eq!(flag_prefix(&[Flag::Dotall, Flag::Multiline]), "(?ms)");
        assert_eq!(flag_prefix(&[]), "");
    }
}
