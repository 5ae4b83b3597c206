//! The scanner: every sentence and every tool directive in free agent text.
//!
//! Generic over the sentence type: the generated crate supplies, built from
//! `schema/`, a [`StructureScan`] per structure (its scan pattern and parse
//! function) and the [`DirectiveSpec`] (the directive grammar of
//! `schema/directives.json`), from which [`Scanner::new`] compiles a scanner.
//!
//! # Rules
//! - Where a candidate may be comes from the text's Markdown context
//!   (`crate::context`: the meet of independent CommonMark readers, P170–P172):
//!   candidates are read only inside live text runs, stretches of one block
//!   that every reader shows as written. Code, HTML, blockquotes, image
//!   descriptions, link destinations and reference definitions are quoted
//!   text. A candidate that reaches the end of its run while more text
//!   follows is skipped as [`SkipReason::NotPlainText`]; one that starts
//!   where only some reader shows text is skipped as [`SkipReason::HiddenBy`].
//! - A fenced code block outside every container whose info string's first
//!   word is a directive fence's (`tool`, `exec`, `box`) is a directive: its
//!   body must be `<op> {json}`.
//! - At a `[`, the bracket directive forms (`[TOOL op {…}]`, `[EXEC op {…}]`,
//!   `[DM {…}]`) are tried first, then every structure's pattern, anchored at
//!   that byte; the first structure in spec order that matches wins. Scanning
//!   resumes after what was found, so a marker inside another sentence's
//!   payload (a JSON string, a work order's body, a directive's text) is never
//!   a sentence of its own. A match whose fields are invalid (a contract
//!   footer whose five ids differ) is not a sentence, and its text is passed
//!   over whole, as quoted text: its markers are not read one by one.
//! - A structure whose head does not start with `[` (the contract footer's
//!   `Reply:`) is tried where its head, then spaces, precede a `[`.
//! - A line that starts with `curl` and posts a single-quoted payload to the
//!   spec's path (`/exec`) is a directive, read as a shell reads it (P156). A line inside a curl command already
//!   read (after a `\` line continuation, or inside a quoted argument) is part
//!   of that command, not the start of another.
//! - Tool arguments are exactly one strict JSON object, found by validating
//!   JSON as it is read (strings, escapes and nesting tracked), never by the
//!   first `}`. A broken candidate is skipped (reported by
//!   [`Scanner::scan_with_diagnostics`]) and scanning resumes at the first byte
//!   the broken JSON could not claim (a broken string as a whole: to the quote
//!   that could close it, or its line end, P80), so it never hides the calls
//!   on the lines after it and is never repaired into a call. A bracket form
//!   whose object is missing or followed by other text is skipped to its
//!   closing `]`, or its line end (P81).
//!
//! # Files
//! `types.rs` (the public types), `walk.rs` (the walk over the context and
//! the bracket forms), `tails.rs` (free-text tails and their DFAs),
//! `shell.rs` (curl as a shell reads it), `visibility.rs` (invisible
//! characters and look-alike keys), `cause.rs` (why a candidate some reader
//! shows is not run, as data, and its message).
//!
//! # Cost
//! Every byte is examined a bounded number of times: JSON is read at most once
//! (scanning resumes where a failed object stopped), pattern attempts are
//! anchored (and made only where a structure's head text is), a free-text
//! tail is read once, each reader's parse is linear, and a curl
//! command is tokenized once (its continuation lines are not read again as
//! commands of their own). Spans are **byte** offsets into the text (UTF-8),
//! half-open.

mod cause;
mod indexed;
mod shell;
mod stream;
mod tails;
mod types;
mod visibility;
mod walk;

use cause::Hidden;
pub use indexed::{found_as_index, MAX_INDEXED};
use shell::Heredocs;
pub use stream::{Event, Stream, StreamError};
use tails::*;
pub use types::*;
use visibility::*;

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use regex_automata::meta::Regex as MetaRegex;
use regex_automata::util::pool::{Pool, PoolGuard};
use regex_automata::{Anchored, Input};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::context::{Breaker, Context, Fence, Labels, TextRun, BOM};
use crate::json::{scan_object, Limits};
use crate::{AutomataGroups, Cap, Groups, ParseError};

/// A compiled scanner for one spec.
pub struct Scanner<S: 'static> {
    structures: Vec<StructureScan<S>>,
    /// Per byte after a `[`: the structures whose head starts with `[` and
    /// that byte (or is `[` alone), in spec order.
    bracketed: Vec<Vec<usize>>,
    others: Vec<usize>,
    singles: Vec<MetaRegex>,
    /// Per structure with a tail: (group, the pattern before it, the tail).
    tails: Vec<Option<(String, MetaRegex, TailEnd)>>,
    /// Per structure: the DFA of its whole pattern. A structure is found by
    /// capture passes that are fast when it matches but slow to reject a
    /// text that only looks like it: the meta regex runs its one-pass engine
    /// on a one-pass pattern straight away (`[RESULT [RESULT …`), and a head
    /// may match where its tail then does not (`[DECLINE a] ` at a line
    /// end), which runs the whole pattern too. Once a structure's attempts
    /// have failed [`MISSES_BEFORE_DFA`] times in a text, this DFA first
    /// finds whether and where it matches. Built on first need: most texts
    /// never need one.
    quick: Vec<OnceLock<Option<DenseDfa>>>,
    op: MetaRegex,
    directives: DirectiveSpec,
    /// Bytes that may follow a `[` that starts something: a cheap test that
    /// skips most brackets in prose without running a regex.
    after_bracket: [bool; 256],
    /// When the op pattern is one repeated class of ASCII bytes (`[…]+`), the
    /// class as a table: ops are then read without running a regex.
    op_bytes: Option<[bool; 256]>,
    /// The info-string words of directive fences (`fence_words` lends them).
    fence_words: Vec<String>,
    /// A finder for each head that does not start with `[` (`Reply:`),
    /// built once: [`Scanner::may_hold_candidates`] runs for every line a
    /// stream checks.
    other_heads: Vec<memchr::memmem::Finder<'static>>,
    /// Capture slots per structure, kept across texts (each scan takes one
    /// set, and gives it back when it ends): a scan allocates none for its
    /// candidates once the pool holds one per thread.
    scratch: Pool<Scratch, fn() -> Scratch>,
}

/// Per structure: its capture slots (of the pattern before its tail, if it
/// has one), made on first use, and its failed attempts in the text being
/// scanned (see `Scanner::quick`).
type Scratch = Vec<(Option<regex_automata::util::captures::Captures>, u32)>;

/// The table of an op pattern of the form `[…]+` over ASCII, if it is one.
fn op_byte_table(pattern: &str) -> Option<[bool; 256]> {
    use regex_syntax::hir::{Class, HirKind};
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let HirKind::Repetition(rep) = hir.kind() else {
        return None;
    };
    if rep.min != 1 || rep.max.is_some() || !rep.greedy {
        return None;
    }
    let HirKind::Class(Class::Unicode(class)) = rep.sub.kind() else {
        return None;
    };
    let mut table = [false; 256];
    for r in class.ranges() {
        if !r.end().is_ascii() {
            return None;
        }
        for c in r.start()..=r.end() {
            table[c as usize] = true;
        }
    }
    Some(table)
}

impl<S> fmt::Debug for Scanner<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scanner")
            .field("structures", &self.structures.len())
            .finish()
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t')
}

/// Whether `b` holds `lit` at byte `at`, compared byte by byte (the
/// literals are short heads and keywords; a `memcmp` call costs more).
#[inline]
fn has_at(b: &[u8], at: usize, lit: &[u8]) -> bool {
    match (b.get(at), lit.first()) {
        (Some(x), Some(y)) => {
            x == y && b.len() - at >= lit.len() && b[at..].iter().zip(lit).all(|(x, y)| x == y)
        }
        (_, None) => at <= b.len(),
        (None, Some(_)) => false,
    }
}

impl<S: 'static> Scanner<S> {
    /// Compiles the scanner.
    ///
    /// # Panics
    /// When a pattern does not compile; the generator has compiled every one.
    pub fn new(structures: Vec<StructureScan<S>>, directives: DirectiveSpec) -> Self {
        let with_bracket: Vec<usize> = (0..structures.len())
            .filter(|&i| structures[i].head.starts_with('['))
            .collect();
        let bracketed = (0..=255u8)
            .map(|b| {
                with_bracket
                    .iter()
                    .copied()
                    .filter(|&i| structures[i].head.as_bytes().get(1).is_none_or(|&c| c == b))
                    .collect()
            })
            .collect();
        let others: Vec<usize> = (0..structures.len())
            .filter(|&i| !structures[i].head.starts_with('['))
            .collect();
        let singles = structures
            .iter()
            .map(|s| MetaRegex::new(&s.source).expect("compiled by the generator"))
            .collect();
        let tails = structures
            .iter()
            .map(|s| {
                s.tail.as_ref().and_then(|(g, before, inner)| {
                    Some((
                        g.clone(),
                        MetaRegex::new(before).ok()?,
                        TailEnd::new(inner)?,
                    ))
                })
            })
            .collect();
        let op = MetaRegex::new(&directives.op_pattern).expect("compiled by the generator");
        let mut after_bracket = [false; 256];
        let keywords = directives
            .bracket_engines
            .iter()
            .map(String::as_str)
            .chain(directives.shorthands.iter().map(|s| s.0.as_str()));
        for head in with_bracket
            .iter()
            .map(|&i| &structures[i].head[1..])
            .chain(keywords)
        {
            match head.as_bytes().first() {
                Some(&b) => after_bracket[usize::from(b)] = true,
                None => after_bracket = [true; 256],
            }
        }
        let op_bytes = op_byte_table(&directives.op_pattern);
        let quick = structures.iter().map(|_| OnceLock::new()).collect();
        let fence_words = directives.fences.iter().map(|f| f.0.clone()).collect();
        let other_heads = others
            .iter()
            .map(|&k| memchr::memmem::Finder::new(structures[k].head.as_bytes()).into_owned())
            .collect();
        Scanner {
            structures,
            bracketed,
            others,
            singles,
            tails,
            quick,
            op,
            directives,
            after_bracket,
            op_bytes,
            fence_words,
            other_heads,
            scratch: Pool::new(Vec::new),
        }
    }

    /// Every sentence and directive in `text`, in order.
    pub fn scan(&self, text: &str) -> Vec<Found<S>> {
        self.scan_with_diagnostics(text).0
    }

    /// As [`Scanner::scan`], plus every skipped directive candidate and why.
    ///
    /// This is a [`Stream`] fed the whole text at once (one engine for
    /// batch and stream, P265): the text is read by sections, each item
    /// from the reading where it became final.
    pub fn scan_with_diagnostics(&self, text: &str) -> (Vec<Found<S>>, Vec<Skipped>) {
        Stream::whole(self, text)
    }

    /// As [`Scanner::scan_with_diagnostics`], with the text's Markdown
    /// context forced trivial: each paragraph (lines between blank lines)
    /// read as one run of text, whatever its markup, no fence and no link.
    /// Not the text's scan: the bench measures the candidate work with it,
    /// apart from the CommonMark readers.
    #[doc(hidden)]
    pub fn scan_context_forced_trivial(&self, text: &str) -> (Vec<Found<S>>, Vec<Skipped>) {
        let seed = Heredocs::default();
        let read = self.scan_in(text, &Context::forced_trivial(text), &seed);
        (read.found, read.skipped)
    }

    /// The scan of `text` from one reading of the whole of it, with no
    /// sections and no commit points: what the whole text shows, every
    /// definition counting wherever it is. Not the text's scan (that is
    /// [`Scanner::scan_with_diagnostics`]): the stream's soundness tests
    /// compare what a stream commits with it.
    #[doc(hidden)]
    pub fn scan_single_reading(&self, text: &str) -> (Vec<Found<S>>, Vec<Skipped>) {
        let seed = Heredocs::default();
        let read = self.scan_in(text, &Context::of(text, &self.fence_words()), &seed);
        (read.found, read.skipped)
    }

    /// Every candidate of `full` (the text read so far) in the context
    /// `ctx` (of a section of it), with the heredoc bodies `seed` found
    /// final before.
    fn scan_in(&self, full: &str, ctx: &Context, seed: &Heredocs) -> Reading<S> {
        let mut run = Run {
            s: self,
            full,
            text: full,
            bytes: full.as_bytes(),
            floor: 0,
            block_start: 0,
            breaker: Breaker::Block,
            block_end: full.len(),
            found: Vec::new(),
            skipped: Vec::new(),
            caps: {
                let mut caps = self.scratch.get();
                for c in caps.iter_mut() {
                    c.1 = 0;
                }
                caps
            },
            curl_end: 0,
            unclosed: [usize::MAX; 2],
            shell: None,
            heredocs: None,
            heredoc_seed: seed,
            open_tail: None,
            bidi: None,
            reporting: false,
        };
        run.all(ctx);
        Reading {
            found: run.found,
            skipped: run.skipped,
            open_tail: run.open_tail,
        }
    }

    /// The end of the op that starts at byte `from` of `text` and ends by
    /// `to`, if one does.
    fn op_end(&self, text: &str, from: usize, to: usize) -> Option<usize> {
        match &self.op_bytes {
            Some(table) => {
                let n = text.as_bytes()[from..to]
                    .iter()
                    .take_while(|&&b| table[usize::from(b)])
                    .count();
                (n > 0).then_some(from + n)
            }
            None => self
                .op
                .search(&Input::new(text).range(from..to).anchored(Anchored::Yes))
                .map(|m| m.end()),
        }
    }

    /// The DFA of structure `k`'s whole pattern (see `Scanner::quick`),
    /// built on first use.
    fn quick_dfa(&self, k: usize) -> Option<&DenseDfa> {
        self.quick[k]
            .get_or_init(|| dense_anchored(&self.structures[k].source))
            .as_ref()
    }

    /// Whether anything in `text` could be one of this scanner's candidates,
    /// or a link reference definition: a `[` followed by a byte that starts
    /// a bracketed head or a bracket form's keyword (`after_bracket`), a
    /// `[` in a text that holds a head not starting with `[` (`Reply:`), a
    /// `]:`, a fence run or `curl`. Narrower than
    /// `context::may_hold_candidates` (any `[`): a stream reads its open
    /// section at a commit point only when this holds of it (P362).
    pub(crate) fn may_hold_candidates(&self, text: &str) -> bool {
        let b = text.as_bytes();
        let mut bracket = false;
        for i in memchr::memchr_iter(b'[', b) {
            bracket = true;
            if b.get(i + 1)
                .is_some_and(|&c| self.after_bracket[usize::from(c)])
            {
                return true;
            }
        }
        crate::context::holds_unbracketed_marker(b)
            || crate::context::may_define(b)
            || (bracket && self.other_heads.iter().any(|f| f.find(b).is_some()))
    }

    /// The info-string words of directive fences, as the context reads them.
    fn fence_words(&self) -> Vec<&str> {
        self.fence_words.iter().map(String::as_str).collect()
    }

    fn resolve(&self, op: &str) -> String {
        self.directives
            .aliases
            .iter()
            .find(|(a, _)| a == op)
            .map_or_else(|| op.to_owned(), |(_, o)| o.clone())
    }
}

/// What one reading of a section found.
struct Reading<S> {
    found: Vec<Found<S>>,
    skipped: Vec<Skipped>,
    /// See `Run::open_tail`.
    open_tail: Option<OpenTail>,
}

/// The first sentence candidate of a reading whose free-text tail ran to
/// the end of the text read without its pattern stopping.
#[derive(Debug, Clone, Copy)]
struct OpenTail {
    /// Where the candidate starts.
    start: usize,
    /// Whether only the end of the text ends its tail (its automaton stops
    /// at no byte, e.g. a work order's body): no text to come makes it
    /// final before `finish`.
    to_end: bool,
}

/// The shell quote state of one block's lines, lexed as far as `pos`
/// (see `Run::inside_quote`).
struct ShellLexer {
    /// The block's end, which names the block.
    block_end: usize,
    pos: usize,
    /// The open quote (`'`, `"`) or expansion (`{` of `${`, `(` of `$(`)
    /// and where it opened.
    quote: Option<(u8, usize)>,
    /// How deep the open expansion's braces or parentheses nest.
    depth: u32,
}

/// A part of a text that the scanner reads, from its Markdown context.
enum Part<'c> {
    Run(&'c TextRun),
    Fence(&'c Fence),
    Link(&'c Range<usize>),
}

struct Run<'a, S: 'static> {
    pub(super) s: &'a Scanner<S>,
    /// The whole text.
    pub(super) full: &'a str,
    /// The text up to the end of the text run being read (a candidate never
    /// reads past it), or the whole text.
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    /// Where the text run being read starts: nothing before it is looked at.
    pub(super) floor: usize,
    /// Where the block of the text run being read starts.
    pub(super) block_start: usize,
    /// What ends the text run being read.
    pub(super) breaker: Breaker,
    /// Where the block of the text run being read ends: a free-text field
    /// may run to it (P153).
    pub(super) block_end: usize,
    pub(super) found: Vec<Found<S>>,
    pub(super) skipped: Vec<Skipped>,
    /// Where the last curl command read ends: lines that start before it
    /// belong to that command.
    pub(super) curl_end: usize,
    /// Per quote (`'`, `"`): the first shell string found never to close. A
    /// string opened after it does not close either (see `Run::closing_quote`).
    pub(super) unclosed: [usize; 2],
    /// Per structure: capture slots (of the pattern before its tail, if it
    /// has one), made on first use, and failed attempts (see `Scanner::quick`).
    pub(super) caps: PoolGuard<'a, Scratch, fn() -> Scratch>,
    /// The shell quote state of the text run being read, as far as it was
    /// lexed (see `Run::inside_quote`).
    pub(super) shell: Option<ShellLexer>,
    /// The heredoc bodies of the text that `heredoc_seed` has not found
    /// final, found when the first curl line is.
    pub(super) heredocs: Option<Vec<(usize, Range<usize>)>>,
    /// The heredoc bodies of the text before the text read (a stream's).
    pub(super) heredoc_seed: &'a Heredocs,
    /// The first sentence candidate whose free-text tail ran to the end of
    /// the text read without its pattern stopping: text after it could
    /// change it.
    pub(super) open_tail: Option<OpenTail>,
    /// The start of the last block searched for a bidi control, and the
    /// first one in it (see `Run::bidi_before`).
    pub(super) bidi: Option<(usize, Option<(usize, char)>)>,
    /// Runs are read again only to report what they hold (inside a found
    /// sentence's free text, or where only some reader shows text): a
    /// free-text tail then ends by the end of its text run (P350).
    pub(super) reporting: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tail's end as the DFA finds it, for comparison.
    fn by_regex(inner: &str, text: &str, from: usize) -> Option<usize> {
        MetaRegex::new(inner)
            .unwrap()
            .search(&Input::new(text).range(from..).anchored(Anchored::Yes))
            .map(|m| m.end())
    }

    /// The search by lead byte finds what a search char by char finds.
    #[test]
    fn bidi_controls_are_found_by_their_lead_bytes() {
        let by_char = |t: &str| t.char_indices().find(|&(_, c)| is_bidi_control(c));
        let controls = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| is_bidi_control(c));
        let mut texts: Vec<String> = vec![
            String::new(),
            "plain".into(),
            "é — ؛ \u{2065}\u{206A}\u{2010}\u{202F}\u{200D} Ø".into(),
        ];
        for c in controls {
            texts.push(format!("a — é{c}b\u{202E}"));
            texts.push(format!("{c}"));
        }
        // Every character whose UTF-8 form starts as a control's does.
        texts.push(
            (0x600..0x700)
                .chain(0x2000..0x2100)
                .filter_map(char::from_u32)
                .filter(|&c| !is_bidi_control(c))
                .collect(),
        );
        for t in &texts {
            assert_eq!(first_bidi_control(t), by_char(t), "{t:?}");
        }
    }

    #[test]
    fn free_text_tails_are_read_without_a_regex() {
        let texts = [
            "",
            " ",
            "a",
            "\t x",
            "ab\ncd",
            "x\r\ny",
            "é—\n",
            "a \t\r",
            "\n",
            "—body runs on\n[WO:x] more",
        ];
        for inner in [r"(?ms)[^ \t].*", r"[^ \t\r\n][^\r\n]*", r"(?s)[a-z][^\n]*"] {
            let tail = TailEnd::new(inner).unwrap();
            assert!(matches!(tail, TailEnd::Run { .. }), "{inner}");
            for text in texts {
                for from in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    assert_eq!(
                        tail.end(text, from),
                        by_regex(inner, text, from),
                        "{inner} on {text:?} from {from}"
                    );
                }
            }
        }
    }

    /// A tail that no text stops once started is told from one that some
    /// text stops, by its automaton; a stop only bytes no `str` holds would
    /// make (an invalid UTF-8 sequence) is no stop.
    #[test]
    fn tails_that_only_the_end_of_the_text_ends_are_told_apart() {
        let body = r"[^\t\n\r ]+(?:[\t\n\r ]+[^\t\n\r ]+)*[\t\n\r ]*";
        let summary = r"[^\t\n\r ](?:[^\[]|\[[^R]|\[R[^E]|\[RE[^S]|\[RES[^U]|\[RESU[^L]|\[RESUL[^T]|\[RESULT[^\t\n\r ])*";
        for (inner, want) in [
            (body, true),
            (r"(?s).+", true),
            (r"(?s)[a-zé].*", true),
            (summary, false),
            (r"[a-z]+", false),
            // Greedy: a later `x` always moves the end, so no text stops it.
            (r"(?s)[^ ].*x", true),
            (r"[^ ][^\n]*", false),
            // Stopped only by a character outside the Basic Multilingual
            // Plane, and only by one of them.
            (r"[^\t](?:[^\u{1F600}])*", false),
        ] {
            let tail = TailEnd::dense(inner).expect("a dense tail");
            assert_eq!(tail.ends_only_at_end(), want, "{inner}");
        }
        assert!(TailEnd::run(r"(?ms)[^ \t].*").unwrap().ends_only_at_end());
        assert!(!TailEnd::run(r"[^ \t\r\n][^\r\n]*")
            .unwrap()
            .ends_only_at_end());
    }

    #[test]
    fn other_tails_run_a_dfa() {
        let texts = [
            "",
            " ",
            "a",
            "ab c\n",
            "x[RESULT y",
            "é[R[RE[RES \t",
            "[RESULT\t",
            "aé✓—\r\n[",
            "acccc b",
            "[x",
        ];
        for inner in [
            r"[^ \t].+",
            r"(?s)[^ \t].*?",
            r"[^ \t][^\r\n\]\[x]*",
            r"(?:a|b)c*",
            r"[^ \t][^é]*",
            r"(?s)(?:[^\[]|\[[^R])*",
            r"\w+\b",
        ] {
            let tail = TailEnd::new(inner).unwrap();
            assert!(
                matches!(tail, TailEnd::Dense(_) | TailEnd::Regex(_)),
                "{inner}"
            );
            for text in texts {
                for from in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    assert_eq!(
                        tail.end(text, from),
                        by_regex(inner, text, from),
                        "{inner} on {text:?} from {from}"
                    );
                }
            }
        }
        assert!(
            matches!(TailEnd::new(r"\w+\b").unwrap(), TailEnd::Regex(_)),
            "a Unicode word boundary needs the lazy DFA"
        );
    }

    /// A result's summary: the tail the generated crate hands the scanner for
    /// `result` (read from `generated/rust/src/lib.rs`, so that this test runs
    /// the pattern the scanner runs, not a copy that can go stale), whose DFA
    /// loop states are passed over by byte search.
    fn summary_tail() -> String {
        let lib = include_str!("../../../generated/rust/src/lib.rs");
        let at = lib
            .find("from_groups: parse_result,")
            .expect("the generated crate scans results");
        let tail = &lib[at..][lib[at..]
            .find("tail: Some((")
            .expect("the result pattern ends in a free-text tail")..];
        // The third string literal of the tail: (group, head, inner).
        let literals: Vec<&str> = tail
            .split("r#\"")
            .skip(1)
            .take(3)
            .map(|l| &l[..l.find("\"#").expect("a closed raw string")])
            .collect();
        assert!(
            tail.trim_start_matches("tail: Some((")
                .trim_start()
                .starts_with("\"summary\""),
            "the tail is the summary"
        );
        literals[1].to_owned()
    }

    #[test]
    fn loop_states_are_passed_over_exactly() {
        let summary = summary_tail();
        assert!(summary.contains("\\[") && summary.len() > 20, "{summary}");
        let TailEnd::Dense(tail) = TailEnd::new(&summary).unwrap() else {
            panic!("the summary's DFA is small")
        };
        assert!(
            !tail.loops.is_empty(),
            "the summary's DFA loops on text without `[`"
        );
        let plain = tail.plain.as_ref().expect("the summary reads plain runs");
        assert_eq!(plain.specials(), b"[", "only `[` stops a plain run");
        let meta = MetaRegex::new(&summary).unwrap();
        let pieces = [
            "a",
            "b",
            " ",
            "\t",
            "\n",
            "\r\n",
            "[",
            "R",
            "E",
            "S",
            "U",
            "L",
            "T",
            "[RESULT ",
            "[RESUL",
            "é",
            "✓",
            "—",
            "ok done",
            "a longer word",
            "R E S",
            "\t\tx  y z ",
            "0123456789abcdef",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..5_000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 80) {
                text.push_str(
                    pieces[((seed >> (k % 50)) as usize ^ (k as usize * 7)) % pieces.len()],
                );
            }
            for from in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let expected = meta
                    .search(&Input::new(&text).range(from..).anchored(Anchored::Yes))
                    .map(|m| m.end());
                assert_eq!(tail.end(&text, from), expected, "{text:?} from {from}");
            }
        }
    }
}
