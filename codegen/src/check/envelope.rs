//! The prompt envelope checked against the spec's own scanner (P149): the
//! example, laid out by lowering (`crate::lower`, which reports the layout's
//! own findings), is wrapped and scanned back with the runtime's `Scanner`
//! over this spec's structures and directive grammar, and must read as each
//! marker claims: an advert is no call (and would be one with an object), a
//! mention is no sentence (and its structure's example in its place would
//! be one), the footer is one sentence of its structure carrying the id,
//! and nothing else in the envelope is read at all.

use std::ops::Range;

use agent_sentences_runtime::scan::{
    found_as_index, Found, Scanner, Skipped, StructureScan, MAX_INDEXED,
};

use crate::diagnostic::{Diagnostic, Severity};
use crate::load::{Spec, SpecFile};
use crate::lower::ir::{Claim, Model, SentenceIr};

const E: SpecFile = SpecFile::Envelope;

fn diag(spec: &Spec, severity: Severity, code: &'static str, ptr: &str, msg: String) -> Diagnostic {
    spec.diag(severity, code, E, ptr, msg)
}

/// The spec's own scanner: the runtime's, over the scanned structures of
/// `model` (in order; the found value is the index into `scanned`) and the
/// model's directive grammar. `None` for a spec of more structures than a
/// scanner of indexes tells apart.
fn scanner(model: &Model) -> Option<(Scanner<usize>, Vec<&SentenceIr>)> {
    let scanned: Vec<&SentenceIr> = model.sentences.iter().filter(|s| s.scanned).collect();
    let structures = scanned
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Some(StructureScan {
                key: s.key.clone(),
                head: s.head.clone(),
                source: s.scan_source.clone(),
                from_groups: found_as_index(i)?,
                quotes_brackets: s.quotes_brackets,
                tail: s
                    .tail_split
                    .as_ref()
                    .map(|(g, before, inner, _)| (g.clone(), before.clone(), inner.clone())),
                trailing_blanks: s.tail_split.as_ref().is_some_and(|t| t.3),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((
        Scanner::new(structures, model.directive_spec.clone()),
        scanned,
    ))
}

/// What the scanner found overlapping `span`, in words.
fn seen(
    found: &[Found<usize>],
    skipped: &[Skipped],
    scanned: &[&SentenceIr],
    span: &Range<usize>,
) -> Vec<String> {
    let overlaps = |s: &Range<usize>| s.start < span.end && span.start < s.end;
    let mut out: Vec<String> = found
        .iter()
        .filter(|f| overlaps(&f.span))
        .map(|f| match &f.item {
            agent_sentences_runtime::scan::Item::Sentence { value } => format!(
                "{} `{}` sentence at bytes {}..{}",
                agent_sentences_runtime::ParseError::article(&scanned[*value].key),
                scanned[*value].key,
                f.span.start,
                f.span.end
            ),
            agent_sentences_runtime::scan::Item::Directive { directive } => format!(
                "a call of `{}` at bytes {}..{}",
                directive.op, f.span.start, f.span.end
            ),
        })
        .collect();
    out.extend(skipped.iter().filter(|s| overlaps(&s.span)).map(|s| {
        format!(
            "a skipped candidate ({}) at bytes {}..{}",
            s.reason, s.span.start, s.span.end
        )
    }));
    out
}

/// Every misreading of the laid-out envelope's example, each located at the
/// line of `envelope.json` that claims it; nothing without an envelope
/// (none in the spec, or one whose layout had an error). Run only when the
/// rest of the spec has no error, so its scanner builds.
pub fn scan_back(spec: &Spec, model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(ir) = &model.envelope else {
        return out;
    };
    let Some((scanner, scanned)) = scanner(model) else {
        out.push(diag(spec, Severity::Error, "envelope-misread", "/example", format!("the spec has more than {} scanned structures: the lint cannot scan the envelope back", MAX_INDEXED)));
        return out;
    };
    let (text, footer_span) = ir.render(&ir.example_message, &ir.example_id);
    let env_start = ir.example_message.len();
    let (found, skipped) = scanner.scan_with_diagnostics(&text);
    let mut accounted: Vec<Range<usize>> = Vec::new();
    for m in &ir.marks {
        let line_start = ir.line_starts[m.line];
        let ptr = format!("/lines/{}", m.line);
        match &m.claim {
            Claim::Advert { op, engine, index } => {
                let span = line_start + m.span.start..line_start + m.span.end;
                let read = seen(&found, &skipped, &scanned, &span);
                // With an object it would be a call: the place reads markers.
                let probe = format!(
                    "{}[{engine} {op} {{}}]{}",
                    &text[..span.start],
                    &text[span.end..]
                );
                let (pf, _) = scanner.scan_with_diagnostics(&probe);
                let called = pf.iter().any(|f| f.span.start == span.start && matches!(&f.item, agent_sentences_runtime::scan::Item::Directive { directive } if directive.op == *op && directive.engine == *engine));
                if !read.is_empty() || !called {
                    let why = if read.is_empty() {
                        format!("with an object (`[{engine} {op} {{}}]`) it is no call either: the scanner reads no marker there (quoted?)")
                    } else {
                        format!("the scanner reads {}", read.join(", "))
                    };
                    out.push(diag(spec, Severity::Error, "envelope-advert-misread", &format!("{ptr}/advertise/ops/{index}"), format!("the advert `{}` (bytes {}..{} of the example) is not read as an advertised op: {why}", &text[span.clone()], span.start, span.end)));
                }
                accounted.push(span);
            }
            Claim::Mention { structure } => {
                let span = line_start + m.span.start..line_start + m.span.end;
                let read = seen(&found, &skipped, &scanned, &span);
                let s = scanned
                    .iter()
                    .find(|s| &s.key == structure)
                    .expect("a scanned structure");
                let probe = format!(
                    "{}{}{}",
                    &text[..span.start],
                    s.example_sentence,
                    &text[span.end..]
                );
                let (pf, _) = scanner.scan_with_diagnostics(&probe);
                let readable = pf.iter().any(|f| f.span.start == span.start && matches!(&f.item, agent_sentences_runtime::scan::Item::Sentence { value } if scanned[*value].key == *structure));
                if !read.is_empty() || !readable {
                    let why = if read.is_empty() {
                        format!("the structure's example in its place is not read as {} `{structure}` either: the scanner reads no marker there (quoted?)", agent_sentences_runtime::ParseError::article(structure))
                    } else {
                        format!("the scanner reads {}", read.join(", "))
                    };
                    out.push(diag(spec, Severity::Error, "envelope-mention-misread", &format!("{ptr}/mention"), format!("the mention `{}` (bytes {}..{} of the example) is not read as a mention of `{structure}`: {why}", &text[span.clone()], span.start, span.end)));
                }
                accounted.push(span);
            }
            Claim::Footer { structure } => {
                let s = scanned
                    .iter()
                    .find(|s| &s.key == structure)
                    .expect("a scanned structure");
                let is_footer = found.iter().any(|f| {
                    f.span == footer_span
                        && matches!(&f.item, agent_sentences_runtime::scan::Item::Sentence { value } if scanned[*value].key == *structure)
                        && carries_id(s, &text[footer_span.clone()], &ir.example_id)
                });
                if !is_footer {
                    let read = seen(&found, &skipped, &scanned, &footer_span);
                    let why = if read.is_empty() {
                        "the scanner reads nothing there".to_owned()
                    } else {
                        format!("the scanner reads {}", read.join(", "))
                    };
                    out.push(diag(spec, Severity::Error, "envelope-footer-misread", &format!("{ptr}/footer"), format!("the footer `{}` (bytes {}..{} of the example, id `{}`) is not read as one `{structure}` carrying the id: {why}", &text[footer_span.clone()], footer_span.start, footer_span.end, ir.example_id)));
                }
                accounted.push(footer_span.clone());
            }
        }
    }
    // Nothing else of the envelope is read.
    let inside = |span: &Range<usize>| {
        accounted
            .iter()
            .any(|a| a.start <= span.start && span.end <= a.end)
    };
    let strays: Vec<Range<usize>> = found
        .iter()
        .map(|f| f.span.clone())
        .chain(skipped.iter().map(|s| s.span.clone()))
        .filter(|span| span.end > env_start && !inside(span))
        .collect();
    for span in strays {
        let line = ir
            .line_starts
            .iter()
            .rposition(|&l| l <= span.start)
            .unwrap_or(0);
        let one = span.start..span.start + 1;
        let what = seen(&found, &skipped, &scanned, &one).join(", ");
        out.push(diag(spec, Severity::Error, "envelope-stray-marker", &format!("/lines/{line}/text"), format!("the example, wrapped, holds {what} that no marker of the envelope claims: an envelope text must read as plain text")));
    }
    out
}

/// True when every group of the footer's pattern that fills a field
/// captured `id` in `text` (the five ids of a contract footer, P11).
fn carries_id(s: &SentenceIr, text: &str, id: &str) -> bool {
    let Ok(re) = regex::Regex::new(&format!(r"\A(?:{})\z", s.scan_source)) else {
        return false;
    };
    let Some(c) = re.captures(text) else {
        return false;
    };
    let mut any = false;
    for name in re.capture_names().flatten() {
        if s.field_of_group(name).is_some() {
            any = true;
            if c.name(name).map(|m| m.as_str()) != Some(id) {
                return false;
            }
        }
    }
    any
}
