//! Near misses: where a text holds no sentence, the places where a known
//! structure's marker starts (`[WO`, `[RESULT`, `Reply:`, …, from each
//! structure's protocol tag, ASCII case ignored) and the text stops fitting
//! that structure, with the `ParseError` the libraries raise for it: the
//! structure, the byte and what was expected there (P212).

use std::ops::Range;

use agent_sentences::{patterns, ParseError, ParseErrorKind, SentenceKind};
use serde::Serialize;
use unicode_general_category::get_general_category;

/// The most marker places parsed for one text: each parse reads the rest of
/// the text, so a text of many markers stays linear in its length.
pub const MAX_CANDIDATES: usize = 16;

/// One place where a structure's marker starts but the text does not fit it.
#[derive(Debug, Serialize)]
pub struct NearMiss {
    /// The byte where the marker starts.
    pub start: usize,
    /// The structure whose marker starts there (the one that fitted longest
    /// when several share the marker).
    pub structure: &'static str,
    /// The byte of the whole text where it stopped fitting as the structure
    /// is written: where a look-alike took the place of the literal the
    /// structure writes (` - ` for ` — `), else where the parse stopped.
    pub offset: usize,
    /// What went wrong, as the vectors name it: `no_match`,
    /// `fixed_mismatch`, `unexpected_group`, `repeat_mismatch`, `integer`,
    /// `json`.
    pub kind: &'static str,
    /// What was expected at `offset` (`no_match`: the pattern element, e.g.
    /// `` `—` ``; `fixed_mismatch`: the text the structure requires), when
    /// the error says.
    pub expected: Option<String>,
    /// For `no_match`: what the text holds at `offset` (up to its next
    /// blank, or the look-alike that took the expected literal's place,
    /// with its blanks); `None` at the end of the text.
    pub found: Option<String>,
    /// The library's message, offsets in bytes of the whole text.
    pub message: String,
}

/// The marker a tag starts with: up to its first blank, `:` or `]` (a tag
/// that does not start with `[`, such as `Reply: [ACK id] …`, keeps its
/// `:`), or `None` when that leaves fewer than two characters.
fn marker(tag: &str) -> Option<&str> {
    let end = tag[1..].find([' ', ':', ']']).map_or(tag.len(), |i| i + 1);
    let end = if !tag.starts_with('[') && tag[end..].starts_with(':') {
        end + 1
    } else {
        end
    };
    (end >= 2).then(|| &tag[..end])
}

/// Whether `text` at `at` starts with `marker` (ASCII case ignored) that
/// does not run on into a letter or digit (`[WORK` is not `[WO`).
fn marker_at(text: &str, at: usize, marker: &str) -> bool {
    let rest = &text.as_bytes()[at..];
    rest.len() >= marker.len()
        && rest[..marker.len()].eq_ignore_ascii_case(marker.as_bytes())
        && !rest
            .get(marker.len())
            .is_some_and(|b| b.is_ascii_alphanumeric())
}

fn kind_name(kind: &ParseErrorKind) -> (&'static str, Option<String>) {
    match kind {
        ParseErrorKind::NoMatch { expected } => ("no_match", Some(expected.clone())),
        ParseErrorKind::FixedMismatch { expected, .. } => {
            ("fixed_mismatch", Some(format!("`{expected}`")))
        }
        ParseErrorKind::UnexpectedGroup { .. } => ("unexpected_group", None),
        ParseErrorKind::RepeatMismatch { .. } => ("repeat_mismatch", None),
        ParseErrorKind::Integer { .. } => ("integer", None),
        ParseErrorKind::Json { .. } => ("json", None),
    }
}

/// The skipped spans, sorted by start and merged where they overlap or
/// touch: an index a forward walk consults in one step per position.
fn span_index(skipped: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = skipped.iter().filter(|r| !r.is_empty()).cloned().collect();
    spans.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for r in spans {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// `s` in backquotes, as a message shows a piece of text; JSON-quoted with
/// its invisible and control characters escaped when it holds any (a
/// terminal would act on them), as `show` quotes any value.
fn code(s: &str) -> String {
    if s.chars()
        .any(|c| c.is_control() || crate::text::is_invisible(c))
    {
        crate::text::show(s)
    } else {
        format!("`{s}`")
    }
}

/// What `text` holds at byte `at`, for "found …": the run of characters up
/// to the next blank (at most 16 characters), the blank itself when one is
/// there, or `None` at the end of the text.
fn found_at(text: &str, at: usize) -> Option<String> {
    let rest = text.get(at..)?;
    let first = rest.chars().next()?;
    if first.is_whitespace() {
        return Some(first.to_string());
    }
    Some(
        rest.chars()
            .take_while(|c| !c.is_whitespace())
            .take(16)
            .collect(),
    )
}

/// The template's literal text that holds `literal` (the text a `no_match`
/// expected, e.g. `—`), as the structure writes it: ` — ` in `{title} —
/// {body}`. `None` when no literal piece of the template holds it.
fn template_piece(template: &str, literal: &str) -> Option<String> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        pieces.push(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |i| open + i + 1);
        rest = &rest[close..];
    }
    pieces.push(rest);
    pieces
        .into_iter()
        .find(|p| p.contains(literal))
        .map(str::to_owned)
}

/// The most look-alikes of an expected literal tried per near miss.
const MAX_LOOKALIKES: usize = 8;

/// Where a text that stopped fitting only at `stop` (relative to `rest`)
/// first stopped fitting as the structure is written: a free-text field
/// read on over a look-alike of the literal expected at `stop` (an ASCII
/// `-` for the `—` of ` — `, the title taking ` - check endpoints`). A
/// look-alike is a character of the expected literal's Unicode general
/// category that is not it; it counts when putting the template's piece in
/// place of it (and the blanks around it) makes the text parse, or fit
/// further than `stop`. Returns `(offset in rest, found, piece)`.
fn lookalike(
    kind: SentenceKind,
    rest: &str,
    stop: usize,
    literal: &str,
) -> Option<(usize, String, String)> {
    let piece = template_piece(kind.template(), literal)?;
    let core = piece.trim();
    let want = core.chars().next()?;
    let category = get_general_category(want);
    let head = &rest[..stop];
    let tried = head
        .char_indices()
        .filter(|&(_, c)| c != want && get_general_category(c) == category)
        .take(MAX_LOOKALIKES);
    for (i, c) in tried {
        // The blanks around it, as the piece has blanks around its core.
        let before = if piece.starts_with(' ') {
            head[..i].len() - head[..i].trim_end_matches([' ', '\t']).len()
        } else {
            0
        };
        let after_start = i + c.len_utf8();
        let after = if piece.ends_with(' ') {
            let tail = &rest[after_start..];
            tail.len() - tail.trim_start_matches([' ', '\t']).len()
        } else {
            0
        };
        let (from, to) = (i - before, after_start + after);
        let fixed = format!("{}{piece}{}", &rest[..from], &rest[to..]);
        let fits = match kind.parse(&fixed) {
            Ok(_) => true,
            // Offsets past the piece shift by its length difference.
            Err(e) => e.offset + (to - from) > stop + piece.len(),
        };
        if fits {
            return Some((from, rest[from..to].to_owned(), piece));
        }
    }
    None
}

/// The near misses of `text`, in text order, leaving out the places inside
/// `skipped` (the scanner's skipped candidates say why themselves). A
/// marker place where the structure's pattern matches is no near miss (the
/// scanner left the sentence out for another reason: in code, say).
///
/// Linear in the length of `text`: the skipped spans are an index walked
/// once (sorted, merged), each position is tested against the markers'
/// first bytes, at most [`MAX_CANDIDATES`] places are parsed, and each
/// structure's pattern is searched forward from where its last match was
/// found, never from every position again (P281).
pub fn near_misses(text: &str, skipped: &[Range<usize>]) -> Vec<NearMiss> {
    let markers: Vec<(SentenceKind, &str)> = SentenceKind::ALL
        .iter()
        .filter_map(|k| marker(k.tag()).map(|m| (*k, m)))
        .collect();
    let firsts: Vec<u8> = markers
        .iter()
        .map(|(_, m)| m.as_bytes()[0].to_ascii_lowercase())
        .collect();
    let spans = span_index(skipped);
    // Per pattern: the first match at or after the position it was searched
    // from (`None`: none there), reused while the walk has not passed it.
    let mut next_match: Vec<Option<(usize, Option<usize>)>> = vec![None; markers.len()];
    let mut out = Vec::new();
    let mut parsed = 0;
    let mut span = 0;
    let mut at = 0;
    let bytes = text.as_bytes();
    while at < text.len() && parsed < MAX_CANDIDATES {
        #[cfg(test)]
        tests::STEPS.with(|s| s.set(s.get() + 1));
        while span < spans.len() && spans[span].end <= at {
            #[cfg(test)]
            tests::STEPS.with(|s| s.set(s.get() + 1));
            span += 1;
        }
        if let Some(r) = spans.get(span).filter(|r| r.start <= at) {
            at = r.end;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            continue;
        }
        let here = at;
        at += text[at..].chars().next().map_or(1, char::len_utf8);
        if !firsts.contains(&bytes[here].to_ascii_lowercase()) {
            continue;
        }
        let kinds: Vec<(usize, SentenceKind)> = markers
            .iter()
            .enumerate()
            .filter(|(_, (_, m))| marker_at(text, here, m))
            .map(|(i, (k, _))| (i, *k))
            .collect();
        if kinds.is_empty() {
            continue;
        }
        parsed += 1;
        // A structure's pattern that matches right here: a sentence the
        // scanner left out for another reason (in code, say), no near miss.
        let matched = kinds.iter().any(|&(i, k)| {
            let Some(re) = patterns::info(k.pattern_key()).map(|p| p.regex()) else {
                return false;
            };
            let stale =
                next_match[i].is_none_or(|(from, m)| from > here || m.is_some_and(|s| s < here));
            if stale {
                next_match[i] = Some((here, re.find_at(text, here).map(|m| m.start())));
            }
            next_match[i].is_some_and(|(_, m)| m == Some(here))
        });
        if matched {
            continue;
        }
        let rest = &text[here..];
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        // The line alone, and the rest of the text (a body may run on over
        // lines): the error that got further; none when either parses.
        let mut best: Option<(ParseError, SentenceKind, &str)> = None;
        let mut fits = false;
        for &(_, k) in &kinds {
            for candidate in [line, rest] {
                match k.parse(candidate) {
                    Ok(_) => fits = true,
                    Err(e) => {
                        if best.as_ref().is_none_or(|(b, _, _)| e.offset > b.offset) {
                            best = Some((e, k, candidate));
                        }
                    }
                }
            }
        }
        if fits {
            continue;
        }
        let Some((e, k, candidate)) = best else {
            continue;
        };
        out.push(explain(here, e, k, candidate));
    }
    out
}

/// The near miss at `start` from the error `e` of parsing `candidate` (the
/// text from `start`) as `kind`.
fn explain(start: usize, e: ParseError, kind: SentenceKind, candidate: &str) -> NearMiss {
    let structure = e.structure.unwrap_or_default();
    let (name, expected) = kind_name(&e.kind);
    if let ParseErrorKind::NoMatch { expected: what } = &e.kind {
        let literal = what.strip_prefix('`').and_then(|w| w.strip_suffix('`'));
        if let Some((i, found, piece)) =
            literal.and_then(|l| lookalike(kind, candidate, e.offset, l))
        {
            let offset = start + i;
            return NearMiss {
                start,
                structure,
                offset,
                kind: name,
                expected: Some(code(&piece)),
                found: Some(found.clone()),
                message: format!(
                    "not {} `{structure}` sentence: the text stops fitting at byte {offset}: expected {}, found {} ({} is not {})",
                    agent_sentences::ParseError::article(structure),
                    code(&piece),
                    code(&found),
                    code(&found),
                    code(&piece),
                ),
            };
        }
        let found = found_at(candidate, e.offset);
        let offset = start + e.offset;
        let e = ParseError { offset, ..e };
        let shown = found
            .as_deref()
            .map_or("the end of the text".to_owned(), code);
        return NearMiss {
            start,
            structure,
            offset,
            kind: name,
            expected,
            message: format!("{e}, found {shown}"),
            found,
        };
    }
    let offset = start + e.offset;
    let e = ParseError { offset, ..e };
    NearMiss {
        start,
        structure,
        offset,
        kind: name,
        expected,
        found: None,
        message: e.to_string(),
    }
}

/// A word the text holds where a structure writes an optional enumerated
/// field (`DONE` in `[RESULT 7fce46e0] DONE all good`, where a `status`
/// would be), which the parse read as the start of the next field because
/// it is none of the field's values.
#[derive(Debug, Serialize)]
pub struct Note {
    /// The byte of the whole text where the word starts.
    pub start: usize,
    /// The structure of the sentence found.
    pub structure: &'static str,
    /// The optional field whose place the word is in (`status`).
    pub field: &'static str,
    /// The word.
    pub word: String,
    /// The field that took it (`summary`).
    pub read_as: &'static str,
    /// What the note says, for a reader.
    pub message: String,
}

/// The notes on the sentences of `found`: for each optional enumerated field
/// a sentence lacks, whose placeholder the template follows with a blank and
/// another field's (`{status} {summary}`), a first word of that next field
/// shaped like the field's values (ASCII letters, and upper case where
/// every value is) but none of them (P281).
pub fn notes(text: &str, found: &[agent_sentences::scan::Found]) -> Vec<Note> {
    let mut out = Vec::new();
    for f in found {
        let agent_sentences::scan::Item::Sentence { value } = &f.item else {
            continue;
        };
        let kind = value.kind();
        let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(value) else {
            continue;
        };
        let template = kind.template();
        for field in kind.field_info() {
            if field.required
                || field.ty != agent_sentences::ValueType::Enum
                || fields.get(field.name).is_some_and(|v| !v.is_null())
            {
                continue;
            }
            let placeholder = format!("{{{}}} {{", field.name);
            let Some(i) = template.find(&placeholder) else {
                continue;
            };
            let after = &template[i + placeholder.len()..];
            let next_name = &after[..after.find('}').unwrap_or(after.len())];
            let Some(next) = kind.field_info().iter().find(|x| x.name == next_name) else {
                continue;
            };
            let sentence = &text[f.span.clone()];
            let Some(at) = patterns::info(kind.pattern_key())
                .and_then(|p| p.regex().captures(sentence))
                .and_then(|c| next.groups.iter().find_map(|g| c.name(g)))
                .map(|m| m.start())
            else {
                continue;
            };
            let word: &str = sentence[at..]
                .split([' ', '\t', '\n', '\r'])
                .next()
                .unwrap_or("");
            let upper = field
                .values
                .iter()
                .all(|v| v.bytes().all(|b| b.is_ascii_uppercase()));
            let shaped = word.len() >= 2
                && word.bytes().all(|b| b.is_ascii_alphabetic())
                && (!upper
                    || word.bytes().all(|b| b.is_ascii_uppercase())
                    || field.values.contains(&word.to_ascii_uppercase().as_str()));
            if !shaped || field.values.contains(&word) {
                continue;
            }
            out.push(Note {
                start: f.span.start + at,
                structure: kind.key(),
                field: field.name,
                word: word.to_owned(),
                read_as: next.name,
                message: format!(
                    "`{word}` is not a `{}` ({}): read as the start of the `{}`",
                    field.name,
                    field.values.join(", "),
                    next.name
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Steps of the walk in [`near_misses`]: positions visited and
        /// skipped spans passed.
        pub static STEPS: Cell<usize> = const { Cell::new(0) };
    }

    fn steps_of(text: &str, skipped: &[Range<usize>]) -> usize {
        STEPS.with(|s| s.set(0));
        near_misses(text, skipped);
        STEPS.with(Cell::get)
    }

    /// P281: the walk used to test every character against every skipped
    /// span (1.2 MB of broken calls: 16.5 s, ×4 per doubling). Its steps
    /// are now at most one per character and one per span, however many
    /// spans there are, overlapping or not, in any order.
    #[test]
    fn the_walk_is_linear_in_the_text_and_the_skipped_spans() {
        for n in [1_000, 4_000] {
            let call = "[TOOL x {]";
            let text = format!("\u{202e}{}", call.repeat(n));
            let first = '\u{202e}'.len_utf8();
            let mut spans: Vec<Range<usize>> = (0..n)
                .map(|i| first + i * call.len()..first + (i + 1) * call.len())
                .collect();
            spans.reverse();
            spans.extend(spans.clone());
            let steps = steps_of(&text, &spans);
            assert!(
                steps <= text.chars().count() + spans.len() + 2,
                "{n}: {steps} steps"
            );
            // Text with no span: one step per character up to the cap of places parsed.
            let plain = "x".repeat(n);
            assert_eq!(steps_of(&plain, &[]), n);
        }
    }

    fn one(text: &str) -> NearMiss {
        let mut m = near_misses(text, &[]);
        assert_eq!(m.len(), 1, "{text}: {m:?}");
        m.remove(0)
    }

    /// P281: the hyphen, not the end of the text: the title took ` - check
    /// endpoints`, but the text stopped fitting the structure as written
    /// where ` - ` stands for ` — `.
    #[test]
    fn a_look_alike_of_the_expected_literal_is_where_the_text_stops_fitting() {
        let m = one("[WO:7fce46e0] [from super] Run audit - check endpoints");
        assert_eq!(
            (m.offset, m.kind, m.structure),
            (36, "no_match", "work_order")
        );
        assert_eq!(
            (m.expected.as_deref(), m.found.as_deref()),
            (Some("` — `"), Some(" - "))
        );
        assert_eq!(
            m.message,
            "not a `work_order` sentence: the text stops fitting at byte 36: expected ` — `, found ` - ` (` - ` is not ` — `)"
        );
        // A hyphen inside the id is no look-alike of ` — `: the next one is.
        let m = one("say [WO:7fce-46e0] [from super] Run audit – check endpoints");
        let at = "say [WO:7fce-46e0] [from super] Run audit".len();
        assert_eq!(
            (m.start, m.offset, m.found.as_deref()),
            (4, at, Some(" – "))
        );
        // No look-alike: the stop, with what the text holds there.
        let m = one("[WO:7fce46e0] [from super] Run audit check endpoints");
        assert_eq!((m.offset, m.found), (52, None));
        assert!(
            m.message
                .ends_with("expected `—`, found the end of the text"),
            "{}",
            m.message
        );
        let m = one("on it: [ACK:7FCE46E0]");
        assert_eq!((m.offset, m.found.as_deref()), (13, Some("FCE46E0]")));
        assert!(m.message.ends_with(", found `FCE46E0]`"), "{}", m.message);
        // What the text holds is shown escaped when a terminal would act on it.
        let m = one("[ACK:\u{202e}7f]");
        assert_eq!(m.found.as_deref(), Some("\u{202e}7f]"));
        assert!(
            m.message.ends_with(r#", found "\u202e7f]""#),
            "{}",
            m.message
        );
    }

    /// P282: the article before every structure key of the spec, in the
    /// library's message and the near miss's; the rule (a vowel letter
    /// takes `an`) holds for every key: none starts with a vowel letter
    /// sounded as a consonant or a silent `h`.
    #[test]
    fn messages_write_the_article_of_every_structure() {
        let sounded_otherwise = [
            "eu", "one", "once", "uni", "use", "usu", "ute", "hour", "honest", "honor", "heir",
        ];
        for k in SentenceKind::ALL {
            let key = k.key();
            assert!(
                !sounded_otherwise.iter().any(|p| key.starts_with(p)),
                "`{key}`: add its article to ParseError::article"
            );
            let an = key.starts_with(['a', 'e', 'i', 'o', 'u']);
            let e = k.parse("\u{1}").unwrap_err().to_string();
            let want = format!("not {} `{key}` sentence: ", if an { "an" } else { "a" });
            assert!(e.starts_with(&want), "{e}");
        }
        let e = SentenceKind::Ack.parse("[ACK:]").unwrap_err().to_string();
        assert!(e.starts_with("not an `ack` sentence: "), "{e}");
        assert_eq!(
            one("[ACK:] hi").message.split(':').next(),
            Some("not an `ack` sentence")
        );
    }

    /// P281: a word where a status would be that is no status is said; a
    /// status, a lower-case word of prose and a found status are not.
    #[test]
    fn a_word_in_a_status_position_that_is_no_status_is_noted() {
        let text = "done: [RESULT 7fce46e0] DONE all good";
        let found = agent_sentences::scan::scan(text);
        let n = notes(text, &found);
        assert_eq!(n.len(), 1, "{n:?}");
        assert_eq!(
            (n[0].start, n[0].field, n[0].word.as_str(), n[0].read_as),
            (24, "status", "DONE", "summary")
        );
        assert_eq!(
            n[0].message,
            "`DONE` is not a `status` (OK, FAIL, DECLINE, SUCCESS, ERROR): read as the start of the `summary`"
        );
        for fine in [
            "[RESULT 7f] OK all good",
            "[RESULT 7f] all good",
            "[RESULT 7f] A-OK",
        ] {
            assert!(
                notes(fine, &agent_sentences::scan::scan(fine)).is_empty(),
                "{fine}"
            );
        }
        let lower = "[RESULT 7f] ok all good";
        assert_eq!(
            notes(lower, &agent_sentences::scan::scan(lower))[0].word,
            "ok"
        );
    }

    #[test]
    fn markers_come_from_the_tags() {
        assert_eq!(marker("[WO:]"), Some("[WO"));
        assert_eq!(marker("[RESULT ]"), Some("[RESULT"));
        assert_eq!(marker("[fleet-alert]"), Some("[fleet-alert"));
        assert_eq!(marker("Reply: [ACK id] seen ..."), Some("Reply:"));
        assert_eq!(marker("["), None);
    }

    #[test]
    fn a_marker_does_not_run_on_into_a_word() {
        assert!(marker_at("x [wo:1]", 2, "[WO"));
        assert!(!marker_at("[WORK]", 0, "[WO"));
    }

    #[test]
    fn many_markers_parse_at_most_the_cap() {
        let text = "[RESULT]".repeat(1000);
        assert_eq!(near_misses(&text, &[]).len(), MAX_CANDIDATES);
    }
}
