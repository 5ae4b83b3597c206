//! The stream's unit tests: its walk for commit points, the sections it
//! reads, and what it records (P362, P364).

use super::*;
use crate::json::Limits;

/// A directive grammar with one engine, enough to find `[TOOL a {}]`.
fn directives() -> DirectiveSpec {
    let none = Vec::new;
    DirectiveSpec {
        op_pattern: "[a-z.]+".into(),
        bracket_engines: vec!["TOOL".into()],
        shorthands: Vec::new(),
        fences: Vec::new(),
        curl: CurlForm {
            description: String::new(),
            path: "/exec".into(),
            data_flags: vec!["-d".into()],
            value_options: none(),
            flag_options: none(),
            method_options: none(),
            methods: none(),
            url_options: none(),
            engine: "TOOL".into(),
            op_key: "op".into(),
            args_key: "args".into(),
        },
        aliases: Vec::new(),
        limits: Limits {
            max_depth: 64,
            max_bytes: 65536,
        },
    }
}

/// A section in which nothing could be a candidate or a definition
/// (links, emphasis) is not read at its commit point: it is read with
/// the next section that could hold one, and what the stream commits
/// is what it was when every section with a `[` was read (P362).
#[test]
fn sections_of_links_alone_are_read_with_the_next_candidate() {
    let scanner: Scanner<()> = Scanner::new(Vec::new(), directives());
    let links = "See [the runbook](https://example.com) and *this*.\n\n".repeat(10);
    let text = format!("{links}[TOOL a {{}}]\n\nDone [here](u).\n\nEnd.\n");
    let mut stream = scanner.stream();
    let mut events = stream.push(&text);
    // Two readings: at the commit point on the call's line (the links
    // before it with it), and at the next, which commits the call. The
    // sections of links alone are not read at theirs (12 readings when
    // every section with a `[` was).
    assert_eq!(stream.readings(), 2);
    events.extend(stream.finish().expect("UTF-8"));
    let spans: Vec<(usize, usize)> = events
        .iter()
        .map(|e| (e.span().start, e.span().end))
        .collect();
    let at = links.len();
    assert_eq!(spans, [(at, at + "[TOOL a {}]".len())]);
    // A definition's `]:` is read at once: its label is carried.
    let mut stream = scanner.stream();
    stream.push("[x]: /u\n\nText.\n\nMore.\n");
    assert_eq!(stream.readings(), 1);
}

/// A text scanned whole with no `]:` holds no definition: no reading
/// notes the references over its committed items, which only a later
/// definition would use (P364). With a `]:` anywhere they are noted, as
/// a stream notes them.
#[test]
fn a_text_scanned_whole_without_a_definition_notes_no_references() {
    let scanner: Scanner<()> = Scanner::new(Vec::new(), directives());
    let text = "[TOOL a {}] [x]\n\nMore [y].\n\nEnd.\n";
    let mut stream = Stream::over_whole(&scanner, text);
    let committed = stream.advance();
    assert_eq!(committed.len(), 1);
    assert!(stream.references.is_empty());
    let with = format!("{text}[z]: /u\n");
    let mut stream = Stream::over_whole(&scanner, &with);
    assert_eq!(stream.advance().len(), 1);
    let labels: Vec<&String> = stream.references.keys().collect();
    assert_eq!(labels, ["tool a {}"]);
    let mut pushed = scanner.stream();
    pushed.push(text);
    assert_eq!(pushed.references.keys().collect::<Vec<_>>(), ["tool a {}"]);
}

/// Every text of up to `len` bytes from line endings, blanks and a
/// letter: what decides where a stream's walk finds blank lines.
fn short_texts(len: usize) -> Vec<String> {
    let bytes = ["\n", "\r", " ", "\t", "a"];
    let mut texts = vec![String::new()];
    let mut last = texts.clone();
    for _ in 0..len {
        last = last
            .iter()
            .flat_map(|t| bytes.iter().map(move |b| format!("{t}{b}")))
            .collect();
        texts.extend(last.iter().cloned());
    }
    texts
}

/// A byte pushed alone is read as the walk from line to line reads it:
/// on every text of up to five bytes from line endings, blanks and a
/// letter, and each with a call after it, a stream fed one byte at a
/// time (by `push_bytes` and by `push`) ends in the state, and commits
/// at the points, of a stream whose whole text is walked at once.
#[test]
fn a_byte_pushed_alone_is_read_as_the_walk_reads_it() {
    let scanner: Scanner<()> = Scanner::new(Vec::new(), directives());
    let texts = short_texts(5);
    let state = |s: &Stream<'_, ()>| {
        (
            s.seen,
            s.ws,
            s.waiting,
            s.line_start,
            s.section,
            s.closed,
            s.readings,
        )
    };
    let mut commits = 0;
    for t in texts
        .iter()
        .flat_map(|t| [t.clone(), format!("{t}[TOOL a {{}}]\n{t}")])
    {
        let mut whole = scanner.stream();
        whole.text = Cow::Owned(t.clone());
        let at_once: Vec<Range<usize>> = whole.advance().iter().map(|e| e.span().clone()).collect();
        let mut by_bytes = scanner.stream();
        let mut by_chars = scanner.stream();
        let (mut from_bytes, mut from_chars) = (Vec::new(), Vec::new());
        for (k, b) in t.bytes().enumerate() {
            from_bytes.extend(by_bytes.push_bytes(&[b]).expect("ASCII"));
            from_chars.extend(by_chars.push(&t[k..=k]));
        }
        for (s, events) in [(&by_bytes, &from_bytes), (&by_chars, &from_chars)] {
            assert_eq!(state(s), state(&whole), "{t:?}");
            let spans: Vec<Range<usize>> = events.iter().map(|e| e.span().clone()).collect();
            assert_eq!(spans, at_once, "{t:?}");
        }
        commits += at_once.len();
    }
    assert!(commits > 500, "{commits}");
}

/// The quick test for a blank line never misses one: on every text of up
/// to four bytes from line endings, blanks and a letter, it holds
/// wherever a stream's walk finds a blank line.
#[test]
fn the_quick_test_never_misses_a_blank_line() {
    let scanner: Scanner<()> = Scanner::new(Vec::new(), directives());
    let texts = short_texts(4);
    let mut blank = 0;
    for t in &texts {
        let mut stream = scanner.stream();
        stream.text = Cow::Borrowed(t);
        stream.advance();
        // A blank line has ended once the walk waits for the next line.
        let found = stream.waiting.is_some() || stream.ws.is_some_and(|(_, n)| n >= 2);
        if found {
            blank += 1;
            assert!(may_hold_blank_line(t), "{t:?}");
        }
    }
    assert!(!may_hold_blank_line("a\nb c\nd"));
    assert!(blank > 100, "{blank}");
}

/// Paragraphs ended by lone CRs hold no line feed: the text is searched
/// for one once in all, not from its start at every commit point (P354;
/// 2,000 paragraphs, 26 KB, searched 26 MB before, at most the text's length
/// now). Counted, not timed.
#[test]
fn lines_ended_by_lone_crs_are_searched_for_line_feeds_once() {
    let scanner: Scanner<()> = Scanner::new(Vec::new(), directives());
    let text = "[TOOL a {}]\r\r".repeat(2000);
    for whole in [true, false] {
        let mut stream = scanner.stream();
        let mut events = Vec::new();
        if whole {
            events.extend(stream.push(&text));
        } else {
            for piece in text.as_bytes().chunks(5) {
                events.extend(stream.push_bytes(piece).expect("UTF-8"));
            }
        }
        assert!(events.len() >= 1999, "{}", events.len());
        assert!(
            stream.searched <= text.len(),
            "{} bytes searched in {}",
            stream.searched,
            text.len()
        );
    }
}
