//! The prompt envelope, laid out (stage 3): `schema/envelope.json` turned
//! into the pieces the emitters write as the generated crate's `envelope`
//! module and the Python package's `envelope` module, with every finding of
//! the layout itself (a footer that writes more than the id, an unknown op,
//! engine or structure, a placeholder without its value). Whether the
//! example, wrapped, scans back as each marker claims is the check stage's
//! (`crate::check::envelope`, P149).

use std::ops::Range;

use super::ir::{Claim, EnvPiece, EnvelopeIr, FieldTy, Mark, Model, SentenceIr};
use crate::diagnostic::{Diagnostic, Severity};
use crate::load::{Spec, SpecFile};
use crate::template::Piece;

const E: SpecFile = SpecFile::Envelope;

/// What separates the message from the envelope's first line.
pub const SEPARATOR: &str = "\n\n";

fn diag(spec: &Spec, severity: Severity, code: &'static str, ptr: &str, msg: String) -> Diagnostic {
    spec.diag(severity, code, E, ptr, msg)
}

/// The marker a mention writes: the tag without blanks before its `]`.
fn mention_marker(tag: &str) -> String {
    match tag.strip_suffix(']') {
        Some(head) => format!("{}]", head.trim_end()),
        None => tag.trim_end().to_owned(),
    }
}

/// `A, B or C`.
fn list_or(values: &[String]) -> String {
    match values {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Lays the envelope out, with every finding; no layout when one is an
/// error.
pub(super) fn layout(spec: &Spec, model: &Model) -> (Option<EnvelopeIr>, Vec<Diagnostic>) {
    let file = spec.envelope.as_ref().expect("called with an envelope");
    let mut out = Vec::new();
    let sentence = |key: &str| model.sentences.iter().find(|s| s.key == key);
    let mut pieces = vec![EnvPiece::Message, EnvPiece::Text(SEPARATOR.to_owned())];
    let mut footer: Option<(Range<usize>, &SentenceIr, String)> = None;
    let mut marks = Vec::new();
    let mut advertised = Vec::new();
    let mut lines_text: Vec<Option<String>> = Vec::new();
    for (i, line) in file.lines.iter().enumerate() {
        let ptr = format!("/lines/{i}");
        if i > 0 {
            pieces.push(EnvPiece::Text("\n".to_owned()));
        }
        if let Some(key) = &line.footer {
            if line.text.is_some() || line.advertise.is_some() || line.mention.is_some() {
                out.push(diag(
                    spec,
                    Severity::Error,
                    "envelope-line",
                    &ptr,
                    "a footer line is the footer alone: no `text`, `advertise` or `mention`"
                        .to_owned(),
                ));
            }
            if footer.is_some() {
                out.push(diag(
                    spec,
                    Severity::Error,
                    "envelope-line",
                    &ptr,
                    "the envelope has one footer".to_owned(),
                ));
                continue;
            }
            let Some(s) = sentence(key).filter(|s| s.scanned) else {
                out.push(diag(
                    spec,
                    Severity::Error,
                    "envelope-unknown-structure",
                    &format!("{ptr}/footer"),
                    format!("footer `{key}` is no structure the scanner finds in structures.json"),
                ));
                continue;
            };
            let mut fields: Vec<&str> = Vec::new();
            let mut optional = false;
            for seg in &s.segments {
                optional |= seg.optional.is_some();
                for p in &seg.pieces {
                    if let Piece::Field(f) = p {
                        if !fields.contains(&f.as_str()) {
                            fields.push(f);
                        }
                    }
                }
            }
            if fields.len() != 1 || optional {
                out.push(diag(spec, Severity::Error, "envelope-unknown-structure", &format!("{ptr}/footer"), format!("footer `{key}` must write one field, the id, and nothing optional; its template `{}` writes {}", s.template, if fields.is_empty() { "none".to_owned() } else { fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ") })));
                continue;
            }
            let start = pieces.len();
            for seg in &s.segments {
                for p in &seg.pieces {
                    pieces.push(match p {
                        Piece::Literal(t) => EnvPiece::Text(t.clone()),
                        Piece::Field(_) => EnvPiece::Id,
                    });
                }
            }
            marks.push(Mark {
                claim: Claim::Footer {
                    structure: key.clone(),
                },
                span: 0..0,
                line: i,
            });
            footer = Some((start..pieces.len(), s, fields[0].to_owned()));
            lines_text.push(None);
            continue;
        }
        let Some(text) = &line.text else {
            out.push(diag(
                spec,
                Severity::Error,
                "envelope-line",
                &ptr,
                "a line has a `text` or a `footer`".to_owned(),
            ));
            lines_text.push(Some(String::new()));
            continue;
        };
        if text.contains(['\n', '\r']) {
            out.push(diag(
                spec,
                Severity::Error,
                "envelope-line",
                &format!("{ptr}/text"),
                "a line's text holds no line break: each line is an entry of `lines`".to_owned(),
            ));
        }
        // The values the placeholders stand for.
        let mut adverts: Option<Vec<(String, String)>> = None;
        // A placeholder whose source has an error reports nothing more.
        let mut broken_mention = false;
        if let Some(a) = &line.advertise {
            let aptr = format!("{ptr}/advertise");
            if !spec.directives.bracket.engines.contains(&a.engine) {
                out.push(diag(
                    spec,
                    Severity::Error,
                    "envelope-unknown-engine",
                    &format!("{aptr}/engine"),
                    format!(
                        "`{}` is no bracket engine of directives.json ({})",
                        a.engine,
                        spec.directives.bracket.engines.join(", ")
                    ),
                ));
            }
            if a.ops.is_empty() {
                out.push(diag(
                    spec,
                    Severity::Error,
                    "envelope-unknown-op",
                    &format!("{aptr}/ops"),
                    "an advertise entry names at least one op".to_owned(),
                ));
            }
            for (j, op) in a.ops.iter().enumerate() {
                let optr = format!("{aptr}/ops/{j}");
                match spec.ops.as_ref().and_then(|f| f.ops.get(op)) {
                    None => {
                        let hint = if spec.directives.aliases.contains_key(op) {
                            " (an alias: advertise the op itself)"
                        } else {
                            ""
                        };
                        out.push(diag(spec, Severity::Error, "envelope-unknown-op", &optr, format!("the envelope advertises `{op}`, which is not an op of ops.json{hint}")));
                    }
                    Some(o) => {
                        if spec.directives.bracket.engines.contains(&a.engine)
                            && !o.engines.contains(&a.engine)
                        {
                            out.push(diag(spec, Severity::Error, "envelope-unknown-engine", &optr, format!("the envelope advertises `{op}` as `[{} {op}]`, an engine the op does not allow ({})", a.engine, o.engines.join(", "))));
                        }
                        let incomplete = model
                            .ops
                            .as_ref()
                            .and_then(|c| c.ops.iter().find(|x| &x.name == op))
                            .is_some_and(|x| !x.runnable);
                        if incomplete {
                            out.push(diag(spec, Severity::Warning, "envelope-op-incomplete", &optr, format!("the envelope advertises `{op}`, which the catalogue leaves incomplete: a call of it is not run")));
                        }
                    }
                }
                advertised.push(op.clone());
            }
            adverts = Some(
                a.ops
                    .iter()
                    .map(|op| (op.clone(), a.engine.clone()))
                    .collect(),
            );
        }
        let mut mention: Option<(&SentenceIr, Option<Vec<String>>)> = None;
        if let Some(m) = &line.mention {
            let mptr = format!("{ptr}/mention");
            match sentence(&m.structure).filter(|s| s.scanned) {
                None => {
                    broken_mention = true;
                    out.push(diag(
                        spec,
                        Severity::Error,
                        "envelope-unknown-structure",
                        &format!("{mptr}/structure"),
                        format!(
                            "mention `{}` is no structure the scanner finds in structures.json",
                            m.structure
                        ),
                    ));
                }
                Some(s) => {
                    let values =
                        match &m.values_of {
                            None => None,
                            Some(f) => {
                                let values = s.fields.iter().find(|x| &x.name == f).and_then(|x| {
                                    match &x.ty {
                                        FieldTy::Enum(e) => {
                                            model.enums.iter().find(|en| &en.name == e).map(|en| {
                                                en.variants.iter().map(|(_, t)| t.clone()).collect()
                                            })
                                        }
                                        _ => None,
                                    }
                                });
                                if values.is_none() {
                                    broken_mention = true;
                                    out.push(diag(
                                        spec,
                                        Severity::Error,
                                        "envelope-unknown-structure",
                                        &format!("{mptr}/values_of"),
                                        format!("`{f}` is no enumerated field of `{}`", s.key),
                                    ));
                                }
                                values
                            }
                        };
                    mention = Some((s, values));
                }
            }
        }
        // The placeholders, in the text.
        let mut rendered = String::new();
        let mut rest = text.as_str();
        let mut used = (false, false, false);
        let fault = |at: usize, what: String| {
            spec.diag_in(
                Severity::Error,
                "envelope-placeholder",
                E,
                &format!("{ptr}/text"),
                text[..at].chars().count(),
                what,
            )
        };
        while let Some(open) = rest.find(['{', '}']) {
            rendered.push_str(&rest[..open]);
            let close = rest[open..]
                .find('}')
                .map(|c| open + c)
                .filter(|_| rest.as_bytes()[open] == b'{');
            let Some(close) = close else {
                out.push(fault(text.len() - rest.len() + open, "a brace in an envelope text opens a placeholder, `{advertised}`, `{mention}` or `{values}`".to_owned()));
                rendered.push_str(&rest[open..=open]);
                rest = &rest[open + 1..];
                continue;
            };
            let name = &rest[open + 1..close];
            let at = text.len() - rest.len() + open;
            match name {
                "advertised" if adverts.is_some() => {
                    used.0 = true;
                    for (k, (op, engine)) in adverts.iter().flatten().enumerate() {
                        if k > 0 {
                            rendered.push(' ');
                        }
                        let start = rendered.len();
                        rendered.push_str(&format!("[{engine} {op}]"));
                        marks.push(Mark { claim: Claim::Advert { op: op.clone(), engine: engine.clone(), index: k }, span: start..rendered.len(), line: i });
                    }
                }
                "mention" if mention.is_some() => {
                    used.1 = true;
                    let (s, _) = mention.as_ref().expect("checked");
                    let start = rendered.len();
                    rendered.push_str(&mention_marker(&s.tag));
                    marks.push(Mark { claim: Claim::Mention { structure: s.key.clone() }, span: start..rendered.len(), line: i });
                }
                "values" if mention.as_ref().is_some_and(|(_, v)| v.is_some()) => {
                    used.2 = true;
                    rendered.push_str(&list_or(mention.as_ref().and_then(|(_, v)| v.as_deref()).unwrap_or_default()));
                }
                "mention" | "values" if broken_mention => used = (used.0, true, true),
                _ => out.push(fault(at, format!("`{{{name}}}` is no placeholder this line fills (`{{advertised}}` needs `advertise`, `{{mention}}` needs `mention`, `{{values}}` needs `mention.values_of`)"))),
            }
            rest = &rest[close + 1..];
        }
        rendered.push_str(rest);
        let unused = [
            (
                line.advertise.is_some() && !used.0,
                "advertise",
                "{advertised}",
            ),
            (line.mention.is_some() && !used.1, "mention", "{mention}"),
            (
                line.mention.as_ref().is_some_and(|m| m.values_of.is_some()) && !used.2,
                "mention/values_of",
                "{values}",
            ),
        ];
        for (missing, what, placeholder) in unused {
            if missing && !broken_mention {
                out.push(fault(0, format!("the line has `{what}` but its text has no `{placeholder}`: it would show nothing of it")));
            }
        }
        pieces.push(EnvPiece::Text(rendered.clone()));
        lines_text.push(Some(rendered));
    }
    let Some((footer_range, fs, field)) = footer else {
        if out.is_empty() {
            out.push(diag(
                spec,
                Severity::Error,
                "envelope-line",
                "/lines",
                "the envelope has no footer line: nothing in it carries the id a reply answers"
                    .to_owned(),
            ));
        }
        return (None, out);
    };
    if out.iter().any(|d| d.severity == Severity::Error) {
        return (None, out);
    }
    // Adjacent texts merged, the footer's apart from the rest.
    let mut merged: Vec<EnvPiece> = Vec::new();
    let mut region: Vec<bool> = Vec::new();
    let (mut fstart, mut fend) = (usize::MAX, 0);
    for (i, p) in pieces.into_iter().enumerate() {
        let in_footer = footer_range.contains(&i);
        match (merged.last_mut(), p) {
            (Some(EnvPiece::Text(a)), EnvPiece::Text(b)) if region.last() == Some(&in_footer) => {
                a.push_str(&b)
            }
            (_, p) => {
                merged.push(p);
                region.push(in_footer);
            }
        }
        if in_footer {
            fstart = fstart.min(merged.len() - 1);
            fend = merged.len();
        }
    }
    let f = fs
        .fields
        .iter()
        .find(|x| x.name == field)
        .expect("the template's field");
    let mut ir = EnvelopeIr {
        footer: fstart..fend,
        pieces: merged,
        footer_structure: fs.key.clone(),
        footer_type: fs.type_name.clone(),
        footer_class: fs.py_class.clone(),
        footer_field: f.rust_name.clone(),
        footer_py_field: f.py_name.clone(),
        advertised,
        source: file.source.clone(),
        example_id: file.example.id.clone(),
        example_message: file.example.message.clone(),
        example_text: String::new(),
        marks,
        line_starts: Vec::new(),
    };
    let (text, _) = ir.render(&file.example.message, &file.example.id);
    ir.example_text = text;
    // Where each line starts in the example.
    let mut at = file.example.message.len() + SEPARATOR.len();
    let footer_len = ir.render(&file.example.message, &file.example.id).1.len();
    for t in &lines_text {
        ir.line_starts.push(at);
        at += t.as_ref().map_or(footer_len, String::len) + 1;
    }
    (Some(ir), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mention_drops_the_blank_before_the_bracket() {
        assert_eq!(mention_marker("[RESULT ]"), "[RESULT]");
        assert_eq!(mention_marker("[WO:]"), "[WO:]");
        assert_eq!(mention_marker("[fleet-alert]"), "[fleet-alert]");
    }

    #[test]
    fn values_are_listed_with_or() {
        let v = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(list_or(&v(&["OK"])), "OK");
        assert_eq!(list_or(&v(&["OK", "FAIL", "ERROR"])), "OK, FAIL or ERROR");
    }
}
