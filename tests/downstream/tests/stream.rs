//! The stream against batch (P265–P271): for every text of the scan
//! vectors and of a set of Markdown-rich and generated texts, every
//! chunking (one byte, one character, every single split point, random cuts,
//! lines, 64 bytes) commits exactly the events `scan_with_diagnostics`
//! returns, nothing twice, in text order; and no committed item is hidden by
//! any continuation (adversarial suffixes appended at each commit point,
//! judged by one reading of the whole text), but for a late link reference
//! definition, which is reported.

use std::path::Path;
use std::sync::LazyLock;

use agent_sentences::scan::{
    scan_single_reading, scan_with_diagnostics, Event, Found, SkipReason, Stream,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// The inputs of every scan vector (`tests/vectors/scan/`).
static VECTORS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/scan");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/vectors/scan")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let case: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).expect("a vector")).expect("JSON");
            case["input"].as_str().expect("an input").to_owned()
        })
        .collect()
});

/// Texts with blank lines, blocks that span them, open tails and the other
/// constructs a stream must hold back.
const TEXTS: &[&str] = &[
    "Plan:\n\n[TOOL fs.read {\"path\": \"a\"}]\n\nThen [DM {\"to\": \"pip\", \"text\": \"hi\"}]\n\nDone.",
    "- one [TOOL a {}]\n\n- two [TOOL b {}]\n\n  still two [TOOL c {}]\n\nafter\n",
    "```tool\nfs.read {\"path\": \"x\"}\n```\n\n```tool\nfs.read {\"path\":\n\n\"y\"}\n```\n\nz",
    "[WO:7fce46e0] [from super] Title — body\n\n[TOOL a {}] in the body\n\nmore body\n",
    "[RESULT j1] OK done one\n\n[TOOL a {}] in the summary\n\n[RESULT j2] FAIL two\n\n[TOOL b {}]\n\nend\n",
    "[x] [TOOL a {}]\n\n[x]: /u\n\nnext [TOOL b {}]\n\n[TOOL b {}]: /v\n\ntail\n",
    "a\r\n\r\n[TOOL a {}]\r\n\r\nb\r\rc [TOOL b {}]\r\r\rd",
    "\u{feff}[TOOL a {}]\n\n\u{feff}[TOOL b {}]\n\n> [TOOL c {}]\n\n    [TOOL d {}]\n\ne",
    "é — [TOOL a {\"k\": \"✓\"}]\n\n<div>\n\n[TOOL b {}]\n\n</div>\n\n[TOOL c {}]\n",
    "curl -s http://h/exec -d '{\"op\": \"a\", \"args\": {}}'\n\ncurl http://h/exec -d @- <<EOF\n{}\n\ncurl http://h/exec -d '{\"op\": \"b\", \"args\": {}}'\nEOF\n\nx\n",
    "`code [TOOL a {}]\n\nstill` [TOOL b {}]\n\n*em [TOOL c {}]\n\nem*\n",
    "| a | b |\n| - | - |\n| [TOOL a {}] | x |\n\n[TOOL b {}]\n===\n\n[TOOL c {}]\n",
    "\n\n\n[TOOL a {}]\n \t\n\t[TOOL b {}]\n\n",
    "```\n\ncurl https://h/exec -d '{\"op\": \"t.c6\", \"args\": {\"n\": 6}}'\n",
    "```sh\n\n[TOOL t.c10 {\"n\": 10}]\n",
    "~~~\nx\n\n[TOOL a {}]\n\n~~~\n\n[TOOL b {}]\n",
    "999.\t[TOOL t.c9 {\"n\": 9}]&ast;\r\r***\r[tool t.c9 {\"n\": 9}]: /u",
    " ~~~tool\n~~~\n\n```\n\n[TOOL t.c11 {\"n\": 11}]\n[see [TOOL t.c12 {\"n\": 12}]](/u) [ACK:abcd17] [from x]\n",
    "<!--\n\n[TOOL a {}]\n\n-->\n\n<pre>\n\n[TOOL b {}]\n\n</pre>\n\n[TOOL c {}]\n",
    "- a\n\n      [TOOL a {}]\n\n    [TOOL b {}]\n\n[TOOL c {}]\n",
    "```\n\n[TOOL a {}]\n\n```\n\n[TOOL b {}]\n\nc\n",
    "```\n\n```\n}] --> [a](_) [TOOL t.c12 {\"n\": 12}]\n",
    "```sh\n\n```\n```` tool\nt.c12 {\n  \"n\": 12\n}\n`````\n",
    "```\n\n}]\n```\n```\n```\n| a | [TOOL t.c17 {\"n\": 17}] |\n",
    // A definition whose label is a call, in an earlier section: the call
    // is a reference to it, a link, in every later section.
    "[TOOL a {}]: /u\n\n[TOOL a {}]\n\nz\n",
    "[tool a {}]: /u\n\nsee [TOOL a {}]\n",
    "[TOOL a {}]\n\n[TOOL a {}]: /u\n\n[TOOL a {}]\n",
    // A carried label matches as each reader matches it (P365): neither
    // links `[TOOL a {}]` to a label ending in a no-break space.
    "[TOOL a {}\u{a0}]: /u\n\n[x][TOOL a {}]\n",
    // A definition only comrak reads (its title closed by an escaped
    // quote) keeps its section open (P366): the call after it is a link.
    "[TOOL a {}]: /u 't\n\\'\n\n[TOOL a {}]\n",
    "> [TOOL a {}]: /u (t\n> \\)\n\n[TOOL a {}]\n",
    "[TOOL a {}]: /u \"t\n\\\"\nmore\n\n[TOOL a {}]\n",
    "[TOOL a {}]: /u 't\n\\'\nHead\n===\n\n[TOOL a {}]\n",
    // Such a definition after a committed item is reported as late, by the
    // label written before its `]:` (P366).
    "[TOOL a {}]\n\n[TOOL a {}]: /u 't\n\\'\n\nz\n",
    // A call before an escaped bracket: pulldown-cmark reports no broken
    // reference there, comrak reads a shortcut reference; a later
    // definition of it is reported as late all the same (P367).
    "[TOOL a {}]\\[f]\n\nz\n\n[TOOL a {}]: /u\n",
    "[TOOL a {}]\\[f]\n\n[TOOL a {}]: <>\n",
];

/// The events as comparable strings, sorted (a multiset).
fn multiset(events: &[Event]) -> Vec<String> {
    let mut v: Vec<String> = events
        .iter()
        .map(|e| serde_json::to_string(e).expect("serializes"))
        .collect();
    v.sort();
    v
}

/// The batch scan's events.
fn batch(text: &str) -> Vec<Event> {
    let (found, skipped) = scan_with_diagnostics(text);
    found
        .into_iter()
        .map(Event::Found)
        .chain(skipped.into_iter().map(Event::Skipped))
        .collect()
}

/// The events of `text` pushed in pieces that end at each of `cuts`
/// (byte offsets, in order), as bytes; each push's events in text order
/// and after every earlier push's.
fn streamed(text: &str, cuts: &[usize]) -> Result<Vec<Event>, String> {
    let mut stream = Stream::new();
    let mut events: Vec<Event> = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain(std::iter::once(&text.len())) {
        let cut = cut.clamp(at, text.len());
        let new = stream
            .push_bytes(&text.as_bytes()[at..cut])
            .map_err(|e| format!("{e} on UTF-8 input"))?;
        events.extend(new);
        at = cut;
    }
    events.extend(stream.finish().map_err(|e| e.to_string())?);
    let starts: Vec<usize> = events.iter().map(|e| e.span().start).collect();
    if starts.windows(2).any(|w| w[0] > w[1]) {
        return Err(format!("events out of text order: {starts:?}"));
    }
    Ok(events)
}

/// Every chunking of `text` gives batch's events.
fn check_chunkings(text: &str, seed: u64) -> Result<(), String> {
    let expected = multiset(&batch(text));
    let n = text.len();
    let mut chunkings: Vec<Vec<usize>> = vec![
        vec![],
        (1..n).collect(),
        text.char_indices().map(|(i, _)| i).skip(1).collect(),
        (1..n).filter(|i| i % 64 == 0).collect(),
        text.match_indices('\n').map(|(i, _)| i + 1).collect(),
    ];
    if n <= 400 {
        chunkings.extend((1..n).map(|i| vec![i]));
    }
    let mut x = seed | 1;
    for _ in 0..4 {
        let mut cuts: Vec<usize> = (0..8)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x as usize) % (n + 1)
            })
            .collect();
        cuts.sort();
        chunkings.push(cuts);
    }
    for cuts in chunkings {
        let got = multiset(&streamed(text, &cuts)?);
        if got != expected {
            return Err(format!(
                "{text:?} cut at {cuts:?}: streamed {got:#?}, batch {expected:#?}"
            ));
        }
    }
    Ok(())
}

#[test]
fn every_chunking_of_the_vectors_commits_what_batch_returns() {
    let mut texts = 0;
    for (k, text) in VECTORS
        .iter()
        .chain(
            TEXTS
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .iter(),
        )
        .enumerate()
    {
        check_chunkings(text, k as u64 * 0x9e37_79b9).unwrap();
        texts += 1;
    }
    assert!(texts > 200, "{texts} texts");
}

#[test]
fn a_stream_commits_before_it_finishes() {
    // The rule, on the first text: each call once a blank line and the next
    // line follow it; the last paragraph's at the end.
    let text = TEXTS[0];
    let mut stream = Stream::new();
    let mut by_push = Vec::new();
    for line in text.split_inclusive('\n') {
        by_push.push(stream.push(line).len());
    }
    let last = stream.finish().unwrap();
    // The call at the end of the "Then" line; the DM, on the last line,
    // when the stream ends (no line follows its blank line's next line).
    assert_eq!(by_push, [0, 0, 0, 0, 1, 0, 0]);
    assert_eq!(last.len(), 1);
    // A work order's body runs to the end of the text: nothing after it is
    // committed before the end.
    let mut stream = Stream::new();
    assert!(stream.push(TEXTS[3]).is_empty());
    assert!(!stream.finish().unwrap().is_empty());
    // A result's summary ends at the next result: the first result and the
    // call inside its summary are committed once the next result's line is.
    let mut stream = Stream::new();
    let text = TEXTS[4];
    let cut = text.find("[RESULT j2").unwrap();
    assert!(stream.push(&text[..cut]).is_empty());
    let events = stream.push(&text[cut..text.find("\n\n[TOOL b").unwrap() + 1]);
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e {
            Event::Found(f) => format!("found {:?}", f.span),
            Event::Skipped(s) => format!("{} {:?}", s.reason, s.span),
        })
        .collect();
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert!(kinds[0].starts_with("found 0.."), "{kinds:?}");
    assert!(kinds[1].starts_with("in-free-text"), "{kinds:?}");
}

#[test]
fn bytes_hold_an_incomplete_character_and_reject_invalid_ones() {
    let text = "é [TOOL a {\"k\": \"✓\"}]\n\nb\n";
    let mut stream = Stream::new();
    let mut events = Vec::new();
    for b in text.as_bytes() {
        events.extend(stream.push_bytes(&[*b]).unwrap());
    }
    events.extend(stream.finish().unwrap());
    assert_eq!(multiset(&events), multiset(&batch(text)));
    let mut stream = Stream::new();
    stream.push_bytes(b"ab\xc3").unwrap();
    assert_eq!(stream.push_bytes(b"\xff").unwrap_err().at, 2);
    // Unchanged by the error: the held byte still completes.
    stream.push_bytes(b"\xa9").unwrap();
    assert!(stream.finish().is_ok());
    let mut stream = Stream::new();
    stream
        .push_bytes("x✓".as_bytes().split_last().unwrap().1)
        .unwrap();
    assert_eq!(stream.finish().unwrap_err().at, 1);
    // Text after a cut character fails the stream there: the call the lost
    // bytes cut is never committed (P353), nor anything after it.
    let mut stream = Stream::new();
    let cut = b"[TOOL fs.rm {\"path\": \"/tmp/\xc3";
    assert!(stream.push_bytes(cut).unwrap().is_empty());
    assert!(stream.push("\"}]\n\nnext\n\n[ACK 7f]\n\nz\n").is_empty());
    assert_eq!(
        stream.push_bytes(b"more\n\n").unwrap_err().at,
        cut.len() - 1
    );
    assert_eq!(stream.finish().unwrap_err().at, cut.len() - 1);
}

/// Adversarial continuations: each closes, opens or re-reads something
/// that could act on the text before it.
const SUFFIXES: &[&str] = &[
    "`",
    "*",
    "_",
    "**",
    "~~",
    "](/u)",
    "[x][]",
    "[t][x]",
    "\n===",
    "\n---",
    "===\n",
    "| - |\n",
    "\n| - | - |",
    "```\n",
    "~~~\n",
    "```tool\n",
    "<div>\n",
    "<!--\n",
    "<pre>\n",
    "<script>\n",
    "    x\n",
    "  - y\n",
    "> q\n",
    "- item\n",
    "1. item\n",
    "[RESULT ",
    "[RESULT j9] OK x\n",
    "[WO:1] [from a] T — b\n",
    "\r",
    "\r\n",
    "\u{202e}",
    "\u{200b}",
    "\\",
    "'",
    "\"",
    "}",
    "]",
    "EOF\n",
    "\n\n",
];

/// What a found item is, for comparison: its span and value.
fn found_key(f: &Found) -> String {
    serde_json::to_string(f).expect("serializes")
}

/// Soundness: every item committed at a commit point of `text` is still
/// found by one reading of the text so far followed by any suffix; a
/// definition of the item's own brackets after it is reported as late.
fn check_soundness(text: &str) -> Result<(), String> {
    let mut stream = Stream::new();
    let mut so_far = String::new();
    let mut committed: Vec<Found> = Vec::new();
    for c in text.chars() {
        so_far.push(c);
        let events = stream.push(c.encode_utf8(&mut [0; 4]));
        let new: Vec<Found> = events
            .into_iter()
            .filter_map(|e| match e {
                Event::Found(f) => Some(f),
                Event::Skipped(_) => None,
            })
            .collect();
        if new.is_empty() {
            continue;
        }
        committed.extend(new);
        for suffix in SUFFIXES {
            let whole = format!("{so_far}{suffix}");
            let (found, _) = scan_single_reading(&whole);
            let keys: Vec<String> = found.iter().map(found_key).collect();
            // A suffix may complete a definition begun on the commit line
            // (a title closed by a quote): then the item is reported as
            // hidden by a late definition (P267), never silently.
            let (_, skipped) = scan_with_diagnostics(&whole);
            let reported = |f: &Found| {
                let named = format!("item at bytes {}..{}", f.span.start, f.span.end);
                skipped
                    .iter()
                    .any(|s| s.reason == SkipReason::LateDefinition && s.message.contains(&named))
            };
            for f in &committed {
                if !keys.contains(&found_key(f)) && !reported(f) {
                    return Err(format!(
                        "{whole:?}: the item at {:?} committed at byte {} is not found",
                        f.span,
                        so_far.len()
                    ));
                }
            }
        }
        // A definition of the item's own brackets: late, and reported.
        for f in &committed {
            let own = &so_far[f.span.clone()];
            if !(own.starts_with('[') && own.ends_with(']')) {
                continue;
            }
            let whole = format!("{so_far}\n{own}: /u\n\nz\n");
            let (found, skipped) = scan_with_diagnostics(&whole);
            let kept = found.iter().any(|g| found_key(g) == found_key(f));
            let hidden = !scan_single_reading(&whole)
                .0
                .iter()
                .any(|g| found_key(g) == found_key(f));
            let named = format!("item at bytes {}..{}", f.span.start, f.span.end);
            let reported = skipped
                .iter()
                .any(|s| s.reason == SkipReason::LateDefinition && s.message.contains(&named));
            if !kept || (hidden && !reported) {
                return Err(format!(
                    "{whole:?}: kept {kept}, hidden {hidden}, reported {reported}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn no_continuation_hides_a_committed_item() {
    for text in TEXTS
        .iter()
        .copied()
        .chain(VECTORS.iter().map(String::as_str))
    {
        check_soundness(text).unwrap();
    }
}

/// Pieces of replies: calls, sentences, markup and separators with and
/// without blank lines.
const PIECES: &[&str] = &[
    "[TOOL fs.read {\"path\": \"a\"}]",
    "[DM {\"to\": \"p\", \"text\": \"x\"}]",
    "[ACK:7fce46e0] [from 646]",
    "[RESULT j1] OK fine",
    "[WO:7fce46e0] [from super] Do it — now",
    "```tool\nfs.read {}\n```",
    "```",
    "`",
    "*",
    "_x_",
    "- ",
    "> ",
    "    ",
    "# ",
    "[x]",
    "[x]: /u",
    "See [the runbook](https://e.com/r) now.",
    "[a][x]",
    "Reply: [ACK 7fce46e0] seen | [CLAIM 7fce46e0] mine | [RESULT 7fce46e0] done | [DECLINE 7fce46e0] | [NO-ACTION 7fce46e0].",
    "<div>",
    "|a|b|\n|-|-|",
    "curl http://h/exec -d '{\"op\": \"a\", \"args\": {}}'",
    "é✓",
    "\u{202e}",
    "text",
    " ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\t",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Generated replies, cut at random: the stream commits batch's events.
    #[test]
    fn generated_replies_stream_as_batch(
        parts in vec(select(PIECES), 0..24),
        cuts in vec(any::<usize>(), 0..12),
    ) {
        let text: String = parts.concat();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).collect();
        cuts.sort();
        let got = multiset(&streamed(&text, &cuts).map_err(TestCaseError::fail)?);
        prop_assert_eq!(got, multiset(&batch(&text)), "{:?} cut at {:?}", text, cuts);
    }

    /// Generated replies: no continuation hides an item committed at a
    /// commit point, whichever sections were left unread there (P362).
    #[test]
    fn generated_replies_commit_soundly(parts in vec(select(PIECES), 0..16)) {
        check_soundness(&parts.concat()).map_err(TestCaseError::fail)?;
    }
}

/// Fed one byte at a time, a stream's readings read work linear in the
/// text's length, whatever holds its sections open (a list, an open fence,
/// an open work order, lone CRs, an HTML comment): counted, not timed.
#[test]
fn a_stream_fed_a_byte_at_a_time_reads_linear_work() {
    let units = [
        "a [TOOL x {}]\n\n",
        "- a [TOOL x {}]\n\n",
        "```\n[TOOL x {}]\n\n",
        "[WO:1] [from a] T — [TOOL x {}]\n\n",
        "a\r\r[TOOL x {}]\r\r",
        "> [TOOL x {}]\n\n",
        "<!--\n\n[TOOL x {}]\n",
        "[RESULT j] OK [TOOL x {}]\n\n",
        // Definitions, and one only comrak reads, which holds its section
        // open (P366).
        "[x]: /u\n[TOOL x {}]\n\n",
        "[TOOL x {}]: /u 't\n\\'\n\n[TOOL x {}]\n\n",
    ];
    for unit in units {
        let work = |n: usize| {
            let text = unit.repeat(n);
            let mut stream = Stream::new();
            for b in text.as_bytes() {
                stream.push_bytes(&[*b]).unwrap();
            }
            let read = stream.bytes_read();
            stream.finish().unwrap();
            (text.len(), read)
        };
        let (short, w_short) = work(150);
        let (long, w_long) = work(600);
        assert!(
            w_long <= 2 * long + 2048,
            "{unit:?}: {w_long} bytes read for {long}"
        );
        assert!(
            w_long <= 5 * w_short + 4096,
            "{unit:?}: {w_short} bytes read for {short}, {w_long} for {long}"
        );
    }
}

/// Once everything before a work order is committed, its body holds the
/// rest of the text until `finish` (P266), so the stream reads nothing more
/// before then (P318): the bytes its readings read stop growing, and what
/// it commits is still batch's.
#[test]
fn a_work_order_holds_the_rest_until_finish_without_readings() {
    let head = "[CLAIM 7fce46e0] first\n\n[WO:7fce46e0] [from super] Audit — check\n\n";
    let rest = "then [TOOL a.b {}] and more\n\n- a list [ACK 7fce46e0]\n\n".repeat(40);
    let text = format!("{head}{rest}");
    let mut stream = Stream::new();
    let mut events = Vec::new();
    // Up to the first commit point after the work order (the end of the
    // line after its blank line).
    let first = head.len() + rest.find('\n').unwrap();
    events.extend(stream.push(&text[..first + 1]));
    let read = stream.bytes_read();
    assert!(read > 0);
    let committed: Vec<String> = events.iter().map(|e| format!("{e:?}")).collect();
    assert_eq!(committed.len(), 1, "only the claim is final: {committed:?}");
    for b in &text.as_bytes()[first + 1..] {
        events.extend(stream.push_bytes(&[*b]).unwrap());
    }
    assert_eq!(
        stream.bytes_read(),
        read,
        "no reading after the work order's"
    );
    assert_eq!(
        events.len(),
        1,
        "nothing after the work order is final before finish"
    );
    events.extend(stream.finish().unwrap());
    assert_eq!(multiset(&events), multiset(&batch(&text)));
    assert!(events.len() > 80, "{}", events.len());
}

/// Fail-open, never: every item batch finds is found by one reading of the
/// whole text too, unless a later definition that would hide it is
/// reported as late (P267).
#[test]
fn batch_finds_only_what_one_reading_of_the_whole_text_finds() {
    let mut texts: Vec<String> = TEXTS.iter().map(|t| t.to_string()).collect();
    texts.extend(VECTORS.iter().cloned());
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..400 {
        let mut t = String::new();
        for _ in 0..(x % 20) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t.push_str(PIECES[(x as usize) % PIECES.len()]);
        }
        texts.push(t);
    }
    for text in &texts {
        let (found, skipped) = scan_with_diagnostics(text);
        let one: Vec<String> = scan_single_reading(text).0.iter().map(found_key).collect();
        for f in &found {
            let named = format!("item at bytes {}..{}", f.span.start, f.span.end);
            let late = skipped
                .iter()
                .any(|s| s.reason == SkipReason::LateDefinition && s.message.contains(&named));
            assert!(
                late || one.contains(&found_key(f)),
                "{text:?}: {f:?} is found, not by one reading of the whole text"
            );
        }
        // And nothing one reading finds is dropped silently.
        let keys: Vec<String> = found.iter().map(found_key).collect();
        for f in &scan_single_reading(text).0 {
            let reported = skipped
                .iter()
                .any(|s| s.span.start < f.span.end && f.span.start < s.span.end);
            assert!(
                reported || keys.contains(&found_key(f)),
                "{text:?}: {f:?} is found by one reading of the whole text, and batch says nothing of it"
            );
        }
    }
}
