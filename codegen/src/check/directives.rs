//! The directive grammar's checks (`schema/directives.json`): the op
//! pattern, the engines, shorthands, fences, curl lists, aliases and limits.

use regex::Regex;

use crate::diagnostic::{closest, Diagnostic, Severity, WithHint};
use crate::load::{Spec, SpecFile};
use crate::locate::child;
use crate::pattern;

/// The deepest `max_json_depth` both engines read: Rust's JSON reader
/// (serde_json) stops at 128 levels, Python's recursion near 1,000.
pub const MAX_JSON_DEPTH: usize = 128;

/// The largest `max_args_bytes` accepted: 16 MiB.
pub const MAX_ARGS_BYTES: usize = 16 << 20;

/// The directive grammar: its op pattern is in the common dialect, every
/// engine it names is declared, aliases name valid ops, limits are usable,
/// and the bracket engines are the `tool_call` pattern's `engine` values.
pub(super) fn check_directives(spec: &Spec, out: &mut Vec<Diagnostic>) {
    const D: SpecFile = SpecFile::Directives;
    let d = &spec.directives;
    match pattern::analyze(&d.op_pattern, &[]) {
        Err((offset, msg)) => out.push(spec.diag(
            Severity::Error,
            "pattern-syntax",
            D,
            "/op_pattern",
            format!("the Rust regex syntax rejects the op pattern at byte {offset}: {msg}"),
        )),
        Ok(a) => {
            for issue in &a.dialect {
                out.push(spec.diag(
                    Severity::Error,
                    "pattern-dialect",
                    D,
                    "/op_pattern",
                    format!("byte {}: {}", issue.offset, issue.message),
                ));
            }
            if !a.groups.is_empty() {
                out.push(spec.diag(
                    Severity::Error,
                    "op-pattern-groups",
                    D,
                    "/op_pattern",
                    "the op pattern must not have named groups",
                ));
            }
            for f in crate::backtrack::analyze(&d.op_pattern, &[]) {
                out.push(spec.diag(
                    Severity::Error,
                    f.code,
                    D,
                    "/op_pattern",
                    format!("byte {}: {}", f.offset, f.message),
                ));
            }
            if let Some(why) = op_pattern_too_wide(&d.op_pattern) {
                out.push(
                    spec.diag(Severity::Error, "op-pattern-too-wide", D, "/op_pattern", format!("the op pattern {why}: an op is one word, and the scanner finds where it ends by it"))
                        .with_hint("list the characters an op may hold, e.g. `[A-Za-z0-9_.-]+`"),
                );
            }
        }
    }
    let op = Regex::new(&format!(r"\A(?:{})\z", d.op_pattern)).ok();
    let mut engine_refs: Vec<(String, &str)> = Vec::new();
    for (i, e) in d.bracket.engines.iter().enumerate() {
        engine_refs.push((format!("/bracket/engines/{i}"), e));
    }
    for (k, sh) in &d.shorthands {
        engine_refs.push((format!("{}/engine", child("/shorthands", k)), &sh.engine));
        if op.as_ref().is_some_and(|re| !re.is_match(&sh.op)) {
            out.push(spec.diag(
                Severity::Error,
                "invalid-op",
                D,
                &format!("{}/op", child("/shorthands", k)),
                format!("`{}` does not match the op pattern", sh.op),
            ));
        }
        if d.bracket.engines.contains(k) {
            out.push(spec.diag(
                Severity::Error,
                "shorthand-is-engine",
                D,
                &child("/shorthands", k),
                format!("`{k}` is both a shorthand and a bracket engine"),
            ));
        }
    }
    for (info, e) in &d.fences.info_strings {
        engine_refs.push((child("/fences/info_strings", info), e));
    }
    engine_refs.push(("/curl/engine".to_owned(), &d.curl.engine));
    for (ptr, e) in engine_refs {
        if !d.engines.contains_key(e) {
            out.push(
                spec.diag(
                    Severity::Error,
                    "unknown-engine",
                    D,
                    &ptr,
                    format!("engine `{e}` is not declared in /engines"),
                )
                .with_hint_opt(
                    closest(e, d.engines.keys()).map(|c| format!("did you mean `{c}`?")),
                ),
            );
        }
    }
    for (alias, target) in &d.aliases {
        if op
            .as_ref()
            .is_some_and(|re| !re.is_match(alias) || !re.is_match(target))
        {
            out.push(spec.diag(
                Severity::Error,
                "invalid-op",
                D,
                &child("/aliases", alias),
                format!("alias `{alias}` → `{target}`: both must match the op pattern"),
            ));
        }
    }
    if d.limits.max_json_depth == 0 || d.limits.max_args_bytes < 2 {
        out.push(spec.diag(
            Severity::Error,
            "unusable-limits",
            D,
            "/limits",
            "the limits admit no argument object (depth ≥ 1 and at least 2 bytes for `{}`)",
        ));
    }
    if d.limits.max_json_depth > MAX_JSON_DEPTH {
        out.push(spec.diag(
            Severity::Error,
            "limit-too-large",
            D,
            "/limits/max_json_depth",
            format!("max_json_depth {} is past what the engines read: Rust's JSON reader stops at {MAX_JSON_DEPTH} levels (Python's recursion near 1,000)", d.limits.max_json_depth),
        ));
    }
    if d.limits.max_args_bytes > MAX_ARGS_BYTES {
        out.push(spec.diag(
            Severity::Error,
            "limit-too-large",
            D,
            "/limits/max_args_bytes",
            format!("max_args_bytes {} is past the largest argument object the generator accepts, {MAX_ARGS_BYTES} bytes", d.limits.max_args_bytes),
        ));
    }
    if !d.curl.path.starts_with('/') {
        out.push(spec.diag(
            Severity::Error,
            "curl-path",
            D,
            "/curl/path",
            format!("the curl path `{}` must start with `/`", d.curl.path),
        ));
    }
    if let Some(c) = d
        .curl
        .path
        .chars()
        .find(|c| matches!(c, '?' | '#') || c.is_whitespace())
    {
        out.push(spec.diag(
            Severity::Error,
            "curl-path",
            D,
            "/curl/path",
            format!("the curl path `{}` holds {c:?}: it is compared with a URL's path, which never holds a query, a fragment or a blank", d.curl.path),
        ));
    }
    let lists = [
        ("data_flags", &d.curl.data_flags),
        ("value_options", &d.curl.value_options),
        ("flag_options", &d.curl.flag_options),
    ];
    let mut first: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for (list, flags) in lists {
        for (i, f) in flags.iter().enumerate() {
            match first.get(f.as_str()) {
                Some(&other) => out.push(spec.diag(
                    Severity::Error,
                    "curl-option-twice",
                    D,
                    &format!("/curl/{list}/{i}"),
                    format!("`{f}` is listed in /curl/{other} and in /curl/{list}: an option either takes the payload, takes a value or takes none"),
                )),
                None => {
                    first.insert(f, list);
                }
            }
        }
    }
    // The structures' bracket engines and the tool_call pattern's engine group agree.
    for (key, p) in &spec.patterns.patterns {
        if let Some(g) = p.groups.get("engine") {
            let values = g.values.clone().unwrap_or_default();
            if values != d.bracket.engines {
                out.push(spec.diag(
                    Severity::Warning,
                    "engines-disagree",
                    D,
                    "/bracket/engines",
                    format!("the bracket engines {:?} differ from group `engine` of pattern `{key}` {:?}", d.bracket.engines, values),
                ));
            }
        }
    }
}

/// What makes an op pattern match far more than an op: the empty text, or a
/// character that ends an op in a directive (a blank, a line break, a quote,
/// a bracket or a brace).
fn op_pattern_too_wide(op_pattern: &str) -> Option<String> {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn chars(h: &Hir, out: &mut Vec<(char, char)>) {
        match h.kind() {
            HirKind::Literal(l) => {
                out.extend(String::from_utf8_lossy(&l.0).chars().map(|c| (c, c)))
            }
            HirKind::Class(Class::Unicode(c)) => {
                out.extend(c.ranges().iter().map(|r| (r.start(), r.end())))
            }
            HirKind::Class(Class::Bytes(c)) => out.extend(
                c.ranges()
                    .iter()
                    .map(|r| (char::from(r.start()), char::from(r.end()))),
            ),
            HirKind::Repetition(r) => chars(&r.sub, out),
            HirKind::Capture(c) => chars(&c.sub, out),
            HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().for_each(|s| chars(s, out)),
            HirKind::Empty | HirKind::Look(_) => {}
        }
    }
    let hir = regex_syntax::Parser::new().parse(op_pattern).ok()?;
    let mut why = Vec::new();
    if hir.properties().minimum_len().unwrap_or(0) == 0 {
        why.push("matches the empty text".to_owned());
    }
    let mut ranges = Vec::new();
    chars(&hir, &mut ranges);
    let ends = [' ', '\t', '\r', '\n', '"', '\'', '[', ']', '{', '}'];
    let bad: Vec<String> = ends
        .iter()
        .filter(|&&c| ranges.iter().any(|&(a, b)| a <= c && c <= b))
        .map(|c| format!("{c:?}"))
        .collect();
    if !bad.is_empty() {
        why.push(format!("admits {}", bad.join(", ")));
    }
    (!why.is_empty()).then(|| why.join(" and "))
}
