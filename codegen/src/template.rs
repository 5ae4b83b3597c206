//! Sentence templates: `[WO:{dm_id}] [from {sender}] {title} — {body}`.
//!
//! A template is literal text with `{field}` placeholders. Rendering an
//! absent optional field drops the field's *segment*, so that no stray spaces
//! or brackets are left behind. The segment of an optional placeholder is:
//! - on its left, the literal text back to the nearest `]` (or, when there is
//!   none, the whole literal since the previous placeholder or the start);
//! - on its right, nothing, unless the left part opened a `[` it did not
//!   close: then the right literal up to and including the matching `]`.
//!
//! So `[ACK:{dm_id}] [from {sender}]` drops ` [from {sender}]`,
//! `[RESULT {job_id}] {status} {summary}` drops ` {status}`, and
//! `Deadline {deadline_utc}: {prompt}` drops `: {prompt}`.

use serde::Serialize;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Piece {
    /// Literal text, written as is.
    Literal(String),
    /// A `{field}` placeholder.
    Field(String),
}

/// A run of template pieces, present unless its owner field is absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// The optional field whose absence drops this segment; `None` for text
    /// that is always rendered.
    pub optional: Option<String>,
    /// The pieces, in order.
    pub pieces: Vec<Piece>,
}

/// Splits a template into literal text and placeholders.
///
/// # Errors
/// A `{` without a closing `}`, an empty or non-identifier placeholder name,
/// or a `}` without an opening `{`; the message names the byte offset.
pub fn parse(template: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut rest = template;
    let mut offset = 0;
    while let Some(i) = rest.find(['{', '}']) {
        lit.push_str(&rest[..i]);
        if rest.as_bytes()[i] == b'}' {
            return Err(format!(
                "`}}` without an opening `{{` at byte {}",
                offset + i
            ));
        }
        let after = &rest[i + 1..];
        let Some(j) = after.find('}') else {
            return Err(format!("`{{` at byte {} is never closed", offset + i));
        };
        let name = &after[..j];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "placeholder `{{{name}}}` at byte {} is not a field name",
                offset + i
            ));
        }
        if !lit.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(&mut lit)));
        }
        pieces.push(Piece::Field(name.to_owned()));
        offset += i + 1 + j + 1;
        rest = &after[j + 1..];
    }
    lit.push_str(rest);
    if !lit.is_empty() {
        pieces.push(Piece::Literal(lit));
    }
    Ok(pieces)
}

/// Groups pieces into segments, one per optional placeholder, by the rule in
/// the module docs. `is_optional` says which fields are optional.
pub fn segments(pieces: &[Piece], is_optional: impl Fn(&str) -> bool) -> Vec<Segment> {
    // Work on a flat list of (piece, owner) so literals can be split.
    let mut flat: Vec<(Piece, Option<String>)> = pieces.iter().map(|p| (p.clone(), None)).collect();
    let mut i = 0;
    while i < flat.len() {
        let name = match &flat[i].0 {
            Piece::Field(n) if is_optional(n) && flat[i].1.is_none() => n.clone(),
            _ => {
                i += 1;
                continue;
            }
        };
        flat[i].1 = Some(name.clone());
        let mut opened = 0i32;
        // Left literal.
        if i > 0 {
            if let (Piece::Literal(l), None) = (&flat[i - 1].0, &flat[i - 1].1) {
                let cut = l.rfind(']').map(|p| p + 1).unwrap_or(0);
                let (keep, drop) = (l[..cut].to_owned(), l[cut..].to_owned());
                opened = drop.matches('[').count() as i32 - drop.matches(']').count() as i32;
                let mut at = i - 1;
                flat[at] = (Piece::Literal(drop), Some(name.clone()));
                if !keep.is_empty() {
                    flat.insert(at, (Piece::Literal(keep), None));
                    at += 1;
                    i += 1;
                }
                let _ = at;
            }
        }
        // Right literal, when the left part left a bracket open.
        if opened > 0 && i + 1 < flat.len() {
            if let (Piece::Literal(r), None) = (&flat[i + 1].0, &flat[i + 1].1) {
                let mut depth = opened;
                let mut cut = r.len();
                for (p, c) in r.char_indices() {
                    match c {
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                cut = p + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let (drop, keep) = (r[..cut].to_owned(), r[cut..].to_owned());
                flat[i + 1] = (Piece::Literal(drop), Some(name.clone()));
                if !keep.is_empty() {
                    flat.insert(i + 2, (Piece::Literal(keep), None));
                }
            }
        }
        i += 1;
    }
    let mut out: Vec<Segment> = Vec::new();
    for (piece, owner) in flat {
        match out.last_mut() {
            Some(last) if last.optional == owner => last.pieces.push(piece),
            _ => out.push(Segment {
                optional: owner,
                pieces: vec![piece],
            }),
        }
    }
    out
}

/// Renders segments with a lookup for field values; `None` means absent.
pub fn render<'a>(segments: &[Segment], value: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::new();
    for seg in segments {
        if let Some(opt) = &seg.optional {
            if value(opt).is_none() {
                continue;
            }
        }
        for p in &seg.pieces {
            match p {
                Piece::Literal(l) => out.push_str(l),
                Piece::Field(f) => out.push_str(value(f).unwrap_or("")),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_with(t: &str, optional: &[&str], vals: &[(&str, &str)]) -> String {
        let segs = segments(&parse(t).unwrap(), |f| optional.contains(&f));
        render(&segs, |f| {
            vals.iter().find(|(k, _)| *k == f).map(|(_, v)| *v)
        })
    }

    #[test]
    fn drops_bracketed_optional_group() {
        let t = "[ACK:{dm_id}] [from {sender}]";
        assert_eq!(render_with(t, &["sender"], &[("dm_id", "7f")]), "[ACK:7f]");
        assert_eq!(
            render_with(t, &["sender"], &[("dm_id", "7f"), ("sender", "646")]),
            "[ACK:7f] [from 646]"
        );
    }

    #[test]
    fn drops_word_and_its_space() {
        let t = "[RESULT {job_id}] {status} {summary}";
        assert_eq!(
            render_with(t, &["status"], &[("job_id", "x"), ("summary", "done")]),
            "[RESULT x] done"
        );
    }

    #[test]
    fn drops_separator_since_previous_placeholder() {
        let t = "Deadline {deadline_utc}: {prompt}";
        assert_eq!(
            render_with(t, &["prompt"], &[("deadline_utc", "19:45 UTC")]),
            "Deadline 19:45 UTC"
        );
    }

    #[test]
    fn rejects_bad_placeholders() {
        assert!(parse("[X {a]").unwrap_err().contains("never closed"));
        assert!(parse("[X {a b}]").unwrap_err().contains("not a field name"));
        assert!(parse("[X }]").unwrap_err().contains("without an opening"));
        assert_eq!(
            parse("a{b}c").unwrap(),
            vec![
                Piece::Literal("a".into()),
                Piece::Field("b".into()),
                Piece::Literal("c".into())
            ]
        );
    }
}
