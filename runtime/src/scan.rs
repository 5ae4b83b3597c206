//! The scanner: every sentence and every tool directive in free agent text.
//!
//! Generic over the sentence type: the generated crate supplies, built from
//! `schema/`, a [`StructureScan`] per structure (its scan pattern and parse
//! function) and the [`DirectiveSpec`] (the directive grammar of
//! `schema/directives.json`), from which [`Scanner::new`] compiles a scanner.
//!
//! # Rules
//! - Where a candidate may be comes from the text's Markdown context
//!   (pulldown-cmark, see `markdown.rs`, P150–P152): candidates are read only
//!   inside text runs, stretches of one block shown as written. Code, HTML,
//!   blockquotes, image descriptions, link destinations and reference
//!   definitions are quoted text. A candidate that reaches the end of its run
//!   while more text follows is skipped as [`SkipReason::NotPlainText`].
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
//! # Cost
//! Every byte is examined a bounded number of times: JSON is read at most once
//! (scanning resumes where a failed object stopped), pattern attempts are
//! anchored (and made only where a structure's head text is), a free-text
//! tail is read once, the Markdown parse is linear, and a curl
//! command is tokenized once (its continuation lines are not read again as
//! commands of their own). Spans are **byte** offsets into the text (UTF-8),
//! half-open.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

use regex_automata::meta::Regex as MetaRegex;
use regex_automata::{Anchored, Input};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::context::{Breaker, Context, Fence, TextRun, BOM};
use crate::json::{scan_object, Limits};
use crate::{AutomataGroups, Cap, Groups, ParseError};

/// The groups of a match read in two parts: the capture pass over the
/// pattern before its free-text tail, and the tail's span.
struct TailGroups<'a, 't> {
    head: AutomataGroups<'a, 't>,
    tail: (&'static str, Cap<'t>),
    end: usize,
}

impl<'t> Groups<'t> for TailGroups<'_, 't> {
    fn group(&self, name: &str) -> Option<Cap<'t>> {
        if name == self.tail.0 {
            Some(self.tail.1)
        } else {
            self.head.group(name)
        }
    }
    fn end(&self) -> usize {
        self.end
    }
}

/// One structure as the scanner sees it (generated from the spec).
#[derive(Debug)]
pub struct StructureScan<S: 'static> {
    /// Structure key, e.g. `work_order`.
    pub key: &'static str,
    /// The literal text every sentence of the structure starts with
    /// (e.g. `[WO:`, `Reply:`).
    pub head: &'static str,
    /// The pattern, flags inline, with fixed groups replaced by their text.
    pub source: &'static str,
    /// Builds the sentence from the groups of a match of `source`.
    pub from_groups: for<'t> fn(&dyn Groups<'t>) -> Result<S, ParseError>,
    /// When the head matches but the sentence does not, the bracketed text
    /// that follows is still quoted (markers inside it are not sentences).
    pub quotes_brackets: bool,
    /// When the pattern ends in a free-text group: `(group, the pattern
    /// before it, the group's inner pattern)`, flags inline. The scanner then
    /// runs the capture engine on the part before the group only, and finds
    /// the group's end from there (same result; the tail is read once, by a
    /// byte search or a DFA).
    pub tail: Option<(&'static str, &'static str, &'static str)>,
    /// With `tail`: the match goes on after the tail group over blanks and
    /// line breaks (`[ \t\r\n]*`, a free-text field's trailer), which
    /// belong to no group.
    pub trailing_blanks: bool,
}

/// The directive grammar (generated from `schema/directives.json`).
#[derive(Debug)]
pub struct DirectiveSpec {
    /// The op pattern, e.g. `[A-Za-z0-9_.-]+`.
    pub op_pattern: &'static str,
    /// Engine keywords of the bracket form, e.g. `TOOL`, `EXEC`.
    pub bracket_engines: &'static [&'static str],
    /// Shorthands: (keyword, op, engine), e.g. (`DM`, `dm.send`, `TOOL`).
    pub shorthands: &'static [(&'static str, &'static str, &'static str)],
    /// Directive fences: (info string, engine).
    pub fences: &'static [(&'static str, &'static str)],
    /// The URL path a curl command must post to.
    pub curl_path: &'static str,
    /// Curl flags whose next argument is the payload.
    pub curl_data_flags: &'static [&'static str],
    /// Other curl options that take the next word as their value.
    pub curl_value_options: &'static [&'static str],
    /// Curl options that take no value.
    pub curl_flag_options: &'static [&'static str],
    /// The engine of curl directives.
    pub curl_engine: &'static str,
    /// Payload key of the op.
    pub curl_op_key: &'static str,
    /// Payload key of the arguments.
    pub curl_args_key: &'static str,
    /// Native aliases: (alias, op).
    pub aliases: &'static [(&'static str, &'static str)],
    /// Limits on the argument object.
    pub limits: Limits,
}

/// Where a directive was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectiveForm {
    /// `[TOOL op {…}]` or `[EXEC op {…}]`.
    Bracket,
    /// `[DM {…}]`.
    Shorthand,
    /// A ```` ```tool ```` / ```` ```exec ```` / ```` ```box ```` fence.
    Fence,
    /// A curl command posting to `/exec`.
    Curl,
}

/// A tool call found in text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolDirective {
    /// How it was written.
    pub form: DirectiveForm,
    /// The engine keyword, e.g. `TOOL`.
    pub engine: &'static str,
    /// The op to run, aliases resolved (e.g. `dm.send`).
    pub op: String,
    /// The op as written (e.g. `dm`); equal to `op` when no alias applied.
    pub written_op: String,
    /// The arguments: one strict JSON object, keys in written order.
    pub args: Map<String, Value>,
}

/// What was found at a span.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item<S> {
    /// A sentence of one of the spec's structures.
    Sentence {
        /// Its typed value.
        value: S,
    },
    /// A tool call.
    Directive {
        /// The call.
        #[serde(flatten)]
        directive: ToolDirective,
    },
}

/// One thing found in the text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found<S> {
    /// Byte span in the scanned text.
    pub span: Range<usize>,
    /// What it is.
    #[serde(flatten)]
    pub item: Item<S>,
}

/// Why a directive candidate was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// The arguments are not one strict JSON object (syntax, duplicate keys,
    /// depth, size, or truncation).
    InvalidJson,
    /// Text other than whitespace between the object and the closing `]`, or
    /// the end of the text before it.
    TrailingText,
    /// `[TOOL op …]` / `[EXEC op …]` whose arguments do not start with `{`.
    NoObject,
    /// `[DM …]` without a JSON object (decision D3).
    ShorthandWithoutObject,
    /// A directive fence that is never closed.
    UnclosedFence,
    /// A directive fence whose body is not `<op> {json}`.
    FenceBody,
    /// A curl command to the exec path whose payload is missing, double-quoted,
    /// not strict JSON, or has other keys than op and args.
    CurlPayload,
    /// A `[Directive: …]` that does not close: its text is skipped as quoted.
    UnclosedDirective,
    /// A candidate that a CommonMark renderer does not show as it is
    /// written: a code span, inline HTML, emphasis or strikethrough markup,
    /// link or image markup, or an entity starts inside it, or it runs past
    /// its block (P151).
    NotPlainText,
    /// An invisible character (Unicode category Cf, another default-ignorable
    /// code point, U+2028 or U+2029) written in the op or the arguments
    /// (P154, P164), or a bidi control before the call in its paragraph
    /// (P159).
    InvisibleCharacter,
    /// Two keys of one object that are equal after NFKC normalization once
    /// invisible characters are removed (P155, P164).
    LookalikeKeys,
    /// A candidate that some CommonMark reader shows as text and that not
    /// every reader shows as text of the same block, or a directive fence
    /// that not every reader reads alike (P172): the message names each
    /// reader and what it shows there (`comrak: html_block`).
    HiddenBy,
    /// A curl command that starts a block (a list item's, a heading's, a
    /// table cell's text) on a line where Markdown markup precedes it: only
    /// a line that starts with `curl` is a directive (P156, P176).
    CurlNotAtLineStart,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::InvalidJson => "invalid-json",
            SkipReason::TrailingText => "trailing-text",
            SkipReason::NoObject => "no-object",
            SkipReason::ShorthandWithoutObject => "shorthand-without-object",
            SkipReason::UnclosedFence => "unclosed-fence",
            SkipReason::FenceBody => "fence-body",
            SkipReason::CurlPayload => "curl-payload",
            SkipReason::UnclosedDirective => "unclosed-directive",
            SkipReason::NotPlainText => "not-plain-text",
            SkipReason::InvisibleCharacter => "invisible-character",
            SkipReason::LookalikeKeys => "lookalike-keys",
            SkipReason::HiddenBy => "hidden-by",
            SkipReason::CurlNotAtLineStart => "curl-not-at-line-start",
        })
    }
}

/// A skipped candidate, for operators (the protocol skips silently).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Byte span of the candidate, from its start to where it stopped fitting.
    pub span: Range<usize>,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// Details, e.g. the JSON error.
    pub message: String,
}

/// A compiled scanner for one spec.
pub struct Scanner<S: 'static> {
    structures: &'static [StructureScan<S>],
    /// Per byte after a `[`: the structures whose head starts with `[` and
    /// that byte (or is `[` alone), in spec order.
    bracketed: Vec<Vec<usize>>,
    others: Vec<usize>,
    singles: Vec<MetaRegex>,
    /// Per structure with a tail: (group, the pattern before it, the tail).
    tails: Vec<Option<(&'static str, MetaRegex, TailEnd)>>,
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
    directives: &'static DirectiveSpec,
    /// Bytes that may follow a `[` that starts something: a cheap test that
    /// skips most brackets in prose without running a regex.
    after_bracket: [bool; 256],
    /// When the op pattern is one repeated class of ASCII bytes (`[…]+`), the
    /// class as a table: ops are then read without running a regex.
    op_bytes: Option<[bool; 256]>,
    /// The info-string words of directive fences.
    fence_words: Vec<&'static str>,
}

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

/// How the scanner finds the end of a free-text tail that starts at a given
/// byte (the tail's leftmost-first match, anchored there).
enum TailEnd {
    /// The tail is one character of `first`, then the longest run of
    /// characters that are none of `stop` (ASCII bytes; none at all: the run
    /// reaches the end of the text). E.g. `[^ \t].*` with `s`, or
    /// `[^ \t\r\n][^\r\n]*`: found without running a regex.
    Run {
        first: regex_syntax::hir::ClassUnicode,
        stop: Vec<u8>,
    },
    /// Any other tail: its pattern as a fully built DFA, when that is small
    /// (the lazy DFA of a meta regex checks its cache at every byte).
    Dense(DenseTail),
    /// Any other tail: its pattern, run by the lazy DFA.
    Regex(MetaRegex),
}

/// The bytes `Run::bracket_close` acts on: a newline, a backslash, a quote,
/// brackets and braces.
const CLOSE_STOPS: [bool; 256] = byte_set(b"\n\\\"[]{}");

/// A table of the bytes in `bytes`, for the constant byte sets above.
const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

/// Failed attempts of one structure in one text after which its pattern is
/// run by a DFA before the capture pass (see `Scanner::quick`).
const MISSES_BEFORE_DFA: u32 = 8;

/// A fully built DFA, for anchored searches only.
type DenseDfa = Box<regex_automata::dfa::dense::DFA<Vec<u32>>>;

/// The anchored DFA of `pattern`, when it builds within 1 MiB (not, e.g.,
/// with a Unicode word boundary).
fn dense_anchored(pattern: &str) -> Option<DenseDfa> {
    use regex_automata::dfa::{dense, StartKind};
    let config = dense::Config::new()
        .start_kind(StartKind::Anchored)
        .dfa_size_limit(Some(1 << 20))
        .determinize_size_limit(Some(1 << 20));
    dense::Builder::new()
        .configure(config)
        .build(pattern)
        .ok()
        .map(Box::new)
}

/// The end of `dfa`'s leftmost-first match anchored at byte `from` of `text`.
fn dense_end(dfa: &DenseDfa, text: &str, from: usize) -> Option<usize> {
    use regex_automata::dfa::Automaton;
    let input = Input::new(text).range(from..).anchored(Anchored::Yes);
    // No quit bytes and no size-bounded cache: the search cannot fail.
    dfa.try_search_fwd(&input)
        .ok()
        .flatten()
        .map(|m| m.offset())
}

/// A tail's DFA, with the states that loop on most bytes (in a result's
/// summary: every byte but `[` and those that start a non-ASCII character).
struct DenseTail {
    dfa: DenseDfa,
    /// Such states, each with the bytes that leave it: a run of other bytes
    /// is passed over by a byte search instead of one transition per byte.
    loops: Vec<(regex_automata::util::primitives::StateID, Box<[bool; 256]>)>,
}

impl DenseTail {
    /// Loop states kept: at most this many, each looping on at least
    /// [`DenseTail::MIN_LOOP_BYTES`] bytes.
    const MAX_LOOPS: usize = 4;
    /// Bytes a loop state must go back to itself on (a quarter of them).
    const MIN_LOOP_BYTES: usize = 64;

    fn new(dfa: DenseDfa) -> Self {
        use regex_automata::dfa::Automaton;
        use regex_automata::util::primitives::StateID;
        // The states reachable from the anchored starts (one per kind of
        // byte that may precede the tail). Which states are found decides
        // only what is passed over quickly, never a result.
        let mut loops = Vec::new();
        let mut queue: Vec<StateID> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for before in ["", "a", " ", "\n", "\r", "é"] {
            let input = Input::new(before)
                .range(before.len()..)
                .anchored(Anchored::Yes);
            if let Ok(sid) = dfa.start_state_forward(&input) {
                if seen.insert(sid) {
                    queue.push(sid);
                }
            }
        }
        let mut k = 0;
        while k < queue.len() && queue.len() <= 4096 {
            let sid = queue[k];
            k += 1;
            let mut stop = [false; 256];
            for b in 0..=255u8 {
                let next = dfa.next_state(sid, b);
                stop[usize::from(b)] = next != sid;
                if seen.insert(next) {
                    queue.push(next);
                }
            }
            let dead = dfa.is_dead_state(sid) || dfa.is_quit_state(sid);
            if !dead
                && stop.iter().filter(|&&x| !x).count() >= Self::MIN_LOOP_BYTES
                && loops.len() < Self::MAX_LOOPS
            {
                loops.push((sid, Box::new(stop)));
            }
        }
        DenseTail { dfa, loops }
    }

    /// The end of the DFA's leftmost-first match anchored at byte `from` of
    /// `text`: the DFA run a byte at a time (as `find_fwd` runs it), except
    /// that a run of bytes on which a loop state goes back to itself is
    /// passed over at once, noting the match at its last byte when the state
    /// is a match state (a match state's match ends just before the byte
    /// that led to it, as in `find_fwd`).
    fn end(&self, text: &str, from: usize) -> Option<usize> {
        use regex_automata::dfa::Automaton;
        let hay = text.as_bytes();
        let input = Input::new(text).range(from..).anchored(Anchored::Yes);
        let dfa = &self.dfa;
        let mut sid = dfa.start_state_forward(&input).ok()?;
        let mut mat = None;
        let mut at = from;
        while at < hay.len() {
            let next = dfa.next_state(sid, hay[at]);
            if next == sid {
                if let Some((_, stop)) = self.loops.iter().find(|l| l.0 == sid) {
                    let n = hay[at..]
                        .iter()
                        .position(|&b| stop[usize::from(b)])
                        .unwrap_or(hay.len() - at);
                    if dfa.is_match_state(sid) {
                        mat = Some(at + n - 1);
                    }
                    at += n;
                    continue;
                }
            }
            sid = next;
            if dfa.is_special_state(sid) {
                if dfa.is_match_state(sid) {
                    mat = Some(at);
                } else if dfa.is_dead_state(sid) {
                    return mat;
                } else if dfa.is_quit_state(sid) {
                    // No quit bytes are configured; a quit would be a failed search.
                    return dense_end(&self.dfa, text, from);
                }
            }
            at += 1;
        }
        sid = dfa.next_eoi_state(sid);
        if dfa.is_match_state(sid) {
            mat = Some(hay.len());
        }
        mat
    }
}

impl TailEnd {
    /// The tail of inner pattern `inner` (flags inline); `None` when it does
    /// not compile.
    fn new(inner: &str) -> Option<Self> {
        Self::run(inner)
            .or_else(|| Self::dense(inner))
            .or_else(|| MetaRegex::new(inner).ok().map(TailEnd::Regex))
    }

    /// The [`TailEnd::Dense`] of `inner`, when its DFA stays under a size
    /// limit.
    fn dense(inner: &str) -> Option<Self> {
        dense_anchored(inner).map(|dfa| TailEnd::Dense(DenseTail::new(dfa)))
    }

    /// The [`TailEnd::Run`] of `inner`, when it has that shape: a class, then
    /// a greedy unbounded repeat of a class whose complement is at most three
    /// ASCII characters.
    fn run(inner: &str) -> Option<Self> {
        use regex_syntax::hir::{Class, HirKind};
        let hir = regex_syntax::Parser::new().parse(inner).ok()?;
        let HirKind::Concat(parts) = hir.kind() else {
            return None;
        };
        let [first, rest] = parts.as_slice() else {
            return None;
        };
        let HirKind::Class(Class::Unicode(first)) = first.kind() else {
            return None;
        };
        let HirKind::Repetition(rep) = rest.kind() else {
            return None;
        };
        if rep.min != 0 || rep.max.is_some() || !rep.greedy {
            return None;
        }
        let HirKind::Class(Class::Unicode(run)) = rep.sub.kind() else {
            return None;
        };
        let mut stop = run.clone();
        stop.negate();
        let mut bytes = Vec::new();
        for r in stop.ranges() {
            if !r.end().is_ascii() {
                return None;
            }
            bytes.extend((r.start()..=r.end()).map(|c| c as u8));
        }
        (bytes.len() <= 3).then(|| TailEnd::Run {
            first: first.clone(),
            stop: bytes,
        })
    }

    /// The end of the tail's match anchored at byte `from` of `text`, if it
    /// matches there.
    fn end(&self, text: &str, from: usize) -> Option<usize> {
        match self {
            TailEnd::Run { first, stop } => {
                let c = text[from..].chars().next()?;
                if !first
                    .ranges()
                    .iter()
                    .any(|r| r.start() <= c && c <= r.end())
                {
                    return None;
                }
                let at = from + c.len_utf8();
                let rest = &text.as_bytes()[at..];
                let n = match stop.as_slice() {
                    [] => None,
                    [a] => memchr::memchr(*a, rest),
                    [a, b] => memchr::memchr2(*a, *b, rest),
                    [a, b, c] => memchr::memchr3(*a, *b, *c, rest),
                    _ => unreachable!("at most three stop bytes"),
                };
                Some(n.map_or(text.len(), |n| at + n))
            }
            TailEnd::Dense(tail) => tail.end(text, from),
            TailEnd::Regex(re) => re
                .search(&Input::new(text).range(from..).anchored(Anchored::Yes))
                .map(|m| m.end()),
        }
    }
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
    pub fn new(
        structures: &'static [StructureScan<S>],
        directives: &'static DirectiveSpec,
    ) -> Self {
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
            .map(|s| MetaRegex::new(s.source).expect("compiled by the generator"))
            .collect();
        let tails = structures
            .iter()
            .map(|s| {
                s.tail.and_then(|(g, before, inner)| {
                    Some((g, MetaRegex::new(before).ok()?, TailEnd::new(inner)?))
                })
            })
            .collect();
        let op = MetaRegex::new(directives.op_pattern).expect("compiled by the generator");
        let mut after_bracket = [false; 256];
        let keywords = directives
            .bracket_engines
            .iter()
            .copied()
            .chain(directives.shorthands.iter().map(|s| s.0));
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
        let op_bytes = op_byte_table(directives.op_pattern);
        let quick = structures.iter().map(|_| OnceLock::new()).collect();
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
            fence_words: directives.fences.iter().map(|f| f.0).collect(),
        }
    }

    /// Every sentence and directive in `text`, in order.
    pub fn scan(&self, text: &str) -> Vec<Found<S>> {
        self.scan_with_diagnostics(text).0
    }

    /// As [`Scanner::scan`], plus every skipped directive candidate and why.
    pub fn scan_with_diagnostics(&self, text: &str) -> (Vec<Found<S>>, Vec<Skipped>) {
        let mut run = Run {
            s: self,
            full: text,
            text,
            bytes: text.as_bytes(),
            floor: 0,
            block_start: 0,
            breaker: Breaker::Block,
            block_end: text.len(),
            found: Vec::new(),
            skipped: Vec::new(),
            caps: Vec::new(),
            curl_end: 0,
            unclosed: [usize::MAX; 2],
            shell: None,
            heredocs: None,
            bidi: None,
        };
        run.all();
        (run.found, run.skipped)
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
            .get_or_init(|| dense_anchored(self.structures[k].source))
            .as_ref()
    }

    fn resolve(&self, op: &str) -> String {
        self.directives
            .aliases
            .iter()
            .find(|(a, _)| *a == op)
            .map_or_else(|| op.to_owned(), |(_, o)| (*o).to_owned())
    }
}

/// Why a shell reads the line holding byte `at` as part of the line before
/// it (P162): the `\` that ends that line (an odd run of backslashes before
/// its LF or CRLF), or a lone CR, which ends no shell line (P156).
fn continued_line(b: &[u8], at: usize) -> Option<String> {
    let line = memchr::memrchr2(b'\n', b'\r', &b[..at])?;
    if b[line] == b'\r' {
        // The last line break before `at` is a CR that no LF follows.
        return Some(format!("the lone CR at byte {line} ends no shell line"));
    }
    let mut end = line;
    if end > 0 && b[end - 1] == b'\r' {
        end -= 1;
    }
    let slashes = b[..end].iter().rev().take_while(|&&c| c == b'\\').count();
    (slashes % 2 == 1).then(|| format!("the `\\` at byte {}", end - 1))
}

/// The closing quote of the shell string opened by the quote `q` at `open`:
/// single quotes end at the next `'`; in double quotes a `\` escapes the next
/// byte.
fn closing_quote(b: &[u8], open: usize, q: u8) -> Option<usize> {
    if q == b'\'' {
        return memchr::memchr(q, &b[open + 1..]).map(|k| open + 1 + k);
    }
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The characters that show as nothing or as a line break: Unicode format
/// characters (category Cf: bidi controls, zero-width characters, the byte
/// order mark, tags, P154), the other default-ignorable code points (the
/// Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining grapheme
/// joiner U+034F, variation selectors) and the line and paragraph separators
/// U+2028 and U+2029 (P164).
fn format_characters() -> &'static regex::Regex {
    static CF: OnceLock<regex::Regex> = OnceLock::new();
    CF.get_or_init(|| {
        regex::Regex::new(r"[\p{Cf}\p{Default_Ignorable_Code_Point}\u{2028}\u{2029}]")
            .expect("a valid class")
    })
}

/// Whether `c` is a format character (category Cf), as a message names it.
fn is_format(c: char) -> bool {
    static CF: OnceLock<regex::Regex> = OnceLock::new();
    CF.get_or_init(|| regex::Regex::new(r"\A\p{Cf}\z").expect("a valid class"))
        .is_match(c.encode_utf8(&mut [0; 4]))
}

/// The first format character written in `text` (see [`format_characters`])
/// and its byte offset; `None` for ASCII text, which has none.
fn first_format_character(text: &str) -> Option<(usize, char)> {
    if text.is_ascii() {
        return None;
    }
    let at = format_characters().find(text)?.start();
    text[at..].chars().next().map(|c| (at, c))
}

/// Whether `c` is a bidi control: the marks (U+061C, U+200E, U+200F), the
/// embeddings and overrides (U+202A to U+202E) and the isolates (U+2066 to
/// U+2069). One anywhere in a paragraph can reorder what follows it in the
/// paragraph (Unicode's bidirectional algorithm), so a call after one does
/// not show as it runs (P159).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// What a skip says of the format character `c` at byte `at`, written in `place`.
fn invisible_message(c: char, at: usize, place: &str) -> String {
    format!(
        "the invisible {} U+{:04X} at byte {at} is written in {place}",
        if is_format(c) {
            "format character"
        } else {
            "character"
        },
        u32::from(c)
    )
}

/// Two keys of one object in `args` (at any depth) that look alike: equal
/// after invisible characters are removed and NFKC normalization (P155,
/// P164).
fn lookalike_keys(args: &Map<String, Value>) -> Option<(String, String)> {
    use unicode_normalization::UnicodeNormalization;
    if args.keys().any(|k| !k.is_ascii()) {
        let mut seen: HashMap<String, &String> = HashMap::new();
        for k in args.keys() {
            let shown: String = format_characters().replace_all(k, "").nfkc().collect();
            if let Some(other) = seen.insert(shown, k) {
                return Some((other.clone(), k.clone()));
            }
        }
    }
    fn within(v: &Value) -> Option<(String, String)> {
        match v {
            Value::Object(o) => lookalike_keys(o),
            Value::Array(items) => items.iter().find_map(within),
            _ => None,
        }
    }
    args.values().find_map(within)
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

/// The heredoc bodies of `text`, in order (P156): after each `<<WORD`
/// (`<<-WORD`, `<< 'WORD'`, `<<"WORD"`; not `<<<`) outside an earlier body,
/// the lines from the next line to the line that is `WORD` (after leading
/// tabs for `<<-`), or to the end of the text. Each returned range is
/// (where the `<<` is, the body).
fn heredoc_bodies(text: &str) -> Vec<(usize, Range<usize>)> {
    let b = text.as_bytes();
    let mut bodies = Vec::new();
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&b[from..], b"<<") {
        let at = from + k;
        let mut p = at + 2;
        if b.get(p) == Some(&b'<') {
            from = p + b[p..].iter().take_while(|&&c| c == b'<').count();
            continue;
        }
        let strip_tabs = b.get(p) == Some(&b'-');
        p += usize::from(strip_tabs);
        while p < b.len() && is_blank(b[p]) {
            p += 1;
        }
        let quote = b.get(p).copied().filter(|&c| c == b'\'' || c == b'"');
        p += usize::from(quote.is_some());
        let word_start = p;
        while p < b.len() && (b[p].is_ascii_alphanumeric() || b[p] == b'_' || b[p] == b'-') {
            p += 1;
        }
        if p == word_start {
            from = at + 2;
            continue;
        }
        let word = &text[word_start..p];
        let Some(nl) = text[p..].find(['\n', '\r']).map(|k| p + k) else {
            break;
        };
        let body_start = if text[nl..].starts_with("\r\n") {
            nl + 2
        } else {
            nl + 1
        };
        let mut line = body_start;
        let mut end = text.len();
        while line < text.len() {
            let line_end = text[line..]
                .find(['\n', '\r'])
                .map_or(text.len(), |k| line + k);
            let l = &text[line..line_end];
            let l = if strip_tabs {
                l.trim_start_matches('\t')
            } else {
                l
            };
            if l == word {
                end = line;
                break;
            }
            line = if text[line_end..].starts_with("\r\n") {
                line_end + 2
            } else {
                line_end + 1
            };
        }
        bodies.push((at, body_start..end));
        if end == text.len() {
            break;
        }
        from = end;
    }
    bodies
}

/// A part of a text that the scanner reads, from its Markdown context.
enum Part<'c> {
    Run(&'c TextRun),
    Fence(&'c Fence),
    Link(&'c Range<usize>),
}

struct Run<'a, S: 'static> {
    s: &'a Scanner<S>,
    /// The whole text.
    full: &'a str,
    /// The text up to the end of the text run being read (a candidate never
    /// reads past it), or the whole text.
    text: &'a str,
    bytes: &'a [u8],
    /// Where the text run being read starts: nothing before it is looked at.
    floor: usize,
    /// Where the block of the text run being read starts.
    block_start: usize,
    /// What ends the text run being read.
    breaker: Breaker,
    /// Where the block of the text run being read ends: a free-text field
    /// may run to it (P153).
    block_end: usize,
    found: Vec<Found<S>>,
    skipped: Vec<Skipped>,
    /// Where the last curl command read ends: lines that start before it
    /// belong to that command.
    curl_end: usize,
    /// Per quote (`'`, `"`): the first shell string found never to close. A
    /// string opened after it does not close either (see `Run::closing_quote`).
    unclosed: [usize; 2],
    /// Per structure: capture slots (of the pattern before its tail, if it
    /// has one), made on first use, and failed attempts (see `Scanner::quick`).
    caps: Vec<(Option<regex_automata::util::captures::Captures>, u32)>,
    /// The shell quote state of the text run being read, as far as it was
    /// lexed (see `Run::inside_quote`).
    shell: Option<ShellLexer>,
    /// The heredoc bodies of the text, found when the first curl line is.
    heredocs: Option<Vec<(usize, Range<usize>)>>,
    /// The start of the last block searched for a bidi control, and the
    /// first one in it (see `Run::bidi_before`).
    bidi: Option<(usize, Option<(usize, char)>)>,
}

impl<S: 'static> Run<'_, S> {
    /// [`closing_quote`], remembering a string that never closes: one opened later
    /// never closes either (for `'`, no `'` follows; for `"`, the scan from the
    /// earlier quote passed the later one as escaped, so from just after it both
    /// read alike). Without this, lines of `curl \"` read the rest of the text each.
    fn closing_quote(&mut self, open: usize, q: u8) -> Option<usize> {
        let k = usize::from(q == b'"');
        if open > self.unclosed[k] {
            return None;
        }
        let close = closing_quote(self.bytes, open, q);
        if close.is_none() {
            self.unclosed[k] = open;
        }
        close
    }

    /// Where the heredoc whose body holds byte `at` opens, if one does.
    fn heredoc_at(&mut self, at: usize) -> Option<usize> {
        let bodies = self
            .heredocs
            .get_or_insert_with(|| heredoc_bodies(self.full));
        let k = bodies.partition_point(|(_, body)| body.end <= at);
        bodies
            .get(k)
            .filter(|(_, body)| body.start <= at)
            .map(|&(open, _)| open)
    }

    /// The shell string (its quote) or expansion (`{`, `(`) open at the line
    /// holding byte `at`, and where it opened, when one opened on an earlier
    /// line of its block is still open there (P156, P165). The block's lines
    /// are lexed once, as far as they are asked about.
    fn inside_quote(&mut self, at: usize) -> Option<(u8, usize)> {
        let b = self.full.as_bytes();
        let mut line = at;
        while line > self.floor && !matches!(b[line - 1], b'\n' | b'\r') {
            line -= 1;
        }
        if self
            .shell
            .as_ref()
            .is_none_or(|l| l.block_end != self.block_end)
        {
            self.shell = Some(ShellLexer {
                block_end: self.block_end,
                pos: self.block_start,
                quote: None,
                depth: 0,
            });
        }
        let lexer = self.shell.as_mut().expect("made above");
        let mut p = lexer.pos.max(self.block_start);
        let mut quote = lexer.quote;
        let mut depth = lexer.depth;
        while p < line {
            let c = b[p];
            match quote {
                Some((b'\'', _)) if c == b'\'' => quote = None,
                Some((b'"', _)) if c == b'"' => quote = None,
                Some((b'"', _)) if c == b'\\' => p += 1,
                // Inside `${…}` or `$(…)`: its brackets counted, quotes
                // inside it not read (P165).
                Some((open @ (b'{' | b'('), _)) => {
                    if c == b'\\' {
                        p += 1;
                    } else if c == b'#' && is_ws(b[p - 1]) {
                        // A comment inside it: its brackets count for nothing.
                        while p + 1 < line && !matches!(b[p + 1], b'\n' | b'\r') {
                            p += 1;
                        }
                    } else if c == open {
                        depth += 1;
                    } else if c == if open == b'{' { b'}' } else { b')' } {
                        depth -= 1;
                        if depth == 0 {
                            quote = None;
                        }
                    }
                }
                Some(_) => {}
                None => match c {
                    b'\'' | b'"' => quote = Some((c, p)),
                    b'$' | b'<' | b'>'
                        if b.get(p + 1) == Some(&b'(')
                            || (c == b'$' && b.get(p + 1) == Some(&b'{')) =>
                    {
                        quote = Some((b[p + 1], p));
                        depth = 1;
                        p += 1;
                    }
                    b'\\' => p += 1,
                    b'#' if p == 0 || is_ws(b[p - 1]) => {
                        while p + 1 < line && !matches!(b[p + 1], b'\n' | b'\r') {
                            p += 1;
                        }
                    }
                    _ => {}
                },
            }
            p += 1;
        }
        lexer.pos = p.max(lexer.pos);
        lexer.quote = quote;
        lexer.depth = depth;
        quote
    }

    fn line_end(&self, from: usize) -> usize {
        memchr::memchr(b'\n', &self.bytes[from..]).map_or(self.bytes.len(), |i| from + i)
    }

    /// Reports a skipped candidate. One that reads to the end of a text run
    /// that markup ends is reported as [`SkipReason::NotPlainText`]: the
    /// markup is what stopped it (P151).
    fn skip(&mut self, span: Range<usize>, reason: SkipReason, message: impl Into<String>) {
        let mut message = message.into();
        let mut reason = reason;
        // A call read whole and skipped for what it holds: its end is its own.
        let whole = matches!(
            reason,
            SkipReason::InvisibleCharacter | SkipReason::LookalikeKeys
        );
        let checked = !whole && reason != SkipReason::UnclosedDirective;
        let invisible = checked
            .then(|| first_format_character(&self.full[span.clone()]))
            .flatten();
        if let Some((at, c)) = invisible {
            // What is written but not shown is the first thing wrong (P154).
            let place = format!("the candidate ({message})");
            message = invisible_message(c, span.start + at, &place);
            reason = SkipReason::InvisibleCharacter;
        } else if !whole
            && span.end >= self.text.len()
            && self.text.len() < self.full.len()
            && (self.breaker != Breaker::Block
                || !self.full[self.text.len()..].trim_ascii().is_empty())
        {
            message = format!(
                "{} at byte {} is inside the candidate ({})",
                self.breaker.describe(),
                self.text.len(),
                message.replace("the text ends", "its block ends")
            );
            reason = SkipReason::NotPlainText;
        }
        let mut span = span;
        if span.end == self.text.len() {
            // The blanks at the end of its line, which its block leaves out.
            let rest = &self.full.as_bytes()[span.end..];
            span.end += rest.iter().take_while(|&&c| is_blank(c)).count();
        }
        self.skipped.push(Skipped {
            span,
            reason,
            message,
        });
    }

    /// The first bidi control ([`is_bidi_control`]) written in the current
    /// block before byte `at`, and its byte offset. Each block is searched
    /// once, however many calls it holds.
    fn bidi_before(&mut self, at: usize) -> Option<(usize, char)> {
        let start = self.block_start;
        let first = match self.bidi {
            Some((s, first)) if s == start => first,
            _ => {
                let end = self.block_end.clamp(start, self.full.len());
                let block = &self.full[start..end];
                let first = if block.is_ascii() {
                    None
                } else {
                    block
                        .char_indices()
                        .find(|&(_, c)| is_bidi_control(c))
                        .map(|(i, c)| (start + i, c))
                };
                self.bidi = Some((start, first));
                first
            }
        };
        first.filter(|&(p, _)| p < at)
    }

    fn directive(
        &mut self,
        span: Range<usize>,
        form: DirectiveForm,
        engine: &'static str,
        written: &str,
        args: Map<String, Value>,
    ) {
        // Arguments must show as they run (P154, P155).
        if let Some((at, c)) = first_format_character(&self.full[span.clone()]) {
            let message = invisible_message(c, span.start + at, "the call");
            return self.skip(span, SkipReason::InvisibleCharacter, message);
        }
        // A bidi control earlier in its paragraph reorders how it shows (P159).
        if form != DirectiveForm::Fence {
            if let Some((at, c)) = self.bidi_before(span.start) {
                let message = invisible_message(c, at, "its block before the call");
                return self.skip(span, SkipReason::InvisibleCharacter, message);
            }
        }
        if let Some((a, b)) = lookalike_keys(&args) {
            return self.skip(
                span,
                SkipReason::LookalikeKeys,
                format!("the keys {a:?} and {b:?} look alike (equal after NFKC normalization, invisible characters removed)"),
            );
        }
        let op = self.s.resolve(written);
        self.found.push(Found {
            span,
            item: Item::Directive {
                directive: ToolDirective {
                    form,
                    engine,
                    op,
                    written_op: written.to_owned(),
                    args,
                },
            },
        });
    }

    fn all(&mut self) {
        let ctx = Context::of(self.full, &self.s.fence_words);
        // What every reader shows, in the order of the text.
        let mut parts: Vec<(usize, Part<'_>)> = ctx
            .runs
            .iter()
            .map(|r| (r.span.start, Part::Run(r)))
            .chain(ctx.fences.iter().map(|f| (f.span.start, Part::Fence(f))))
            .chain(ctx.links.iter().map(|l| (l.start, Part::Link(l))))
            .collect();
        parts.sort_by_key(|&(start, _)| start);
        let mut resume = 0;
        for (_, part) in parts {
            match part {
                Part::Fence(f) => self.directive_fence(f),
                Part::Link(l) if l.start >= resume => self.link(l),
                Part::Link(_) => {}
                Part::Run(run) => {
                    let from = resume.max(run.span.start);
                    if from < run.span.end {
                        resume = self.text_run(run, from, run.span.end);
                    }
                }
            }
        }
        self.hidden(&ctx);
    }

    /// Reports what some reader shows as text and the readers do not agree
    /// on (P172): each candidate that starts there, read as that reader
    /// shows it, and each disputed directive fence. Nothing found there runs.
    fn hidden(&mut self, ctx: &Context) {
        if ctx.unshared.is_empty() && ctx.disputed.is_empty() {
            return;
        }
        let mut covered: std::collections::BTreeMap<usize, usize> = self
            .found
            .iter()
            .map(|f| (f.span.start, f.span.end))
            .chain(self.skipped.iter().map(|s| (s.span.start, s.span.end)))
            .collect();
        let mut reports: Vec<Skipped> = Vec::new();
        for f in &ctx.disputed {
            reports.push(Skipped {
                span: f.span.clone(),
                reason: SkipReason::HiddenBy,
                message: format!(
                    "the readers do not read the same directive fence here ({})",
                    ctx.shown_at(f.span.start)
                ),
            });
        }
        self.shell = None;
        self.bidi = None;
        for u in &ctx.unshared {
            let (f0, s0) = (self.found.len(), self.skipped.len());
            self.text_run(&u.run, u.span.start, u.span.end);
            let found = self.found.split_off(f0);
            let skipped = self.skipped.split_off(s0);
            let what = found
                .into_iter()
                .map(|f| {
                    let kind = match f.item {
                        Item::Sentence { .. } => "a sentence".to_owned(),
                        Item::Directive { .. } => "a call".to_owned(),
                    };
                    (f.span, kind)
                })
                .chain(skipped.into_iter().map(|s| {
                    let kind = format!("a broken candidate ({}: {})", s.reason, s.message);
                    (s.span, kind)
                }));
            for (span, kind) in what {
                let at = span.start;
                if covered
                    .range(..=at)
                    .next_back()
                    .is_some_and(|(_, &end)| end > at)
                {
                    continue;
                }
                covered.insert(span.start, span.end);
                let shown = ctx.shown_at(at);
                let placed = if shown.matches(": text").count() > 1 {
                    ", which place it in different blocks"
                } else {
                    ""
                };
                reports.push(Skipped {
                    span,
                    reason: SkipReason::HiddenBy,
                    message: format!(
                        "{kind} that {} shows as text, not every reader ({shown}){placed}",
                        Context::reader_name(u.reader),
                    ),
                });
            }
        }
        if !reports.is_empty() {
            self.skipped.extend(reports);
            self.skipped.sort_by_key(|s| s.span.start);
        }
    }

    /// A candidate at the `[` of a link's text is shown as a link, without
    /// its brackets: a call there is skipped, a sentence is none (P151).
    fn link(&mut self, link: &Range<usize>) {
        // The paragraph's bidi search stays cached across the link (each link
        // is searched on its own: linear, as links do not overlap).
        let paragraph_bidi = self.bidi.take();
        self.link_text(link);
        self.bidi = paragraph_bidi;
    }

    fn link_text(&mut self, link: &Range<usize>) {
        self.text = &self.full[..link.end];
        self.bytes = self.text.as_bytes();
        self.floor = link.start;
        self.breaker = Breaker::Link;
        self.block_start = link.start;
        self.block_end = link.end;
        let before = self.found.len();
        self.bracket(link.start);
        for f in self.found.split_off(before) {
            if let Item::Directive { .. } = f.item {
                self.skipped.push(Skipped {
                    span: f.span,
                    reason: SkipReason::NotPlainText,
                    message: "its brackets are link markup: it is shown as a link, not as a call"
                        .into(),
                });
            }
        }
    }

    /// Reads the text run `run` for candidates that start from `from` to
    /// `until`; returns where scanning resumes (past the run when a
    /// sentence's free text runs on to its block's end).
    fn text_run(&mut self, run: &TextRun, from: usize, until: usize) -> usize {
        let end = run.span.end;
        self.text = &self.full[..end];
        self.bytes = self.text.as_bytes();
        self.floor = run.span.start;
        self.breaker = run.breaker;
        self.block_start = run.block_start;
        self.block_end = run.block_end;
        self.unclosed = [usize::MAX; 2];
        let mut pos = from;
        while pos < until {
            if let Some(next) = self.line_start(pos) {
                pos = next;
                continue;
            }
            // (A candidate right at `pos`, as in runs of brackets, skips the call.)
            let i = match self.bytes[pos] {
                b'[' | b'\n' | b'\r' => pos,
                _ => match memchr::memchr3(b'[', b'\n', b'\r', &self.bytes[pos..until]) {
                    Some(i) => pos + i,
                    None => break,
                },
            };
            pos = match self.bytes[i] {
                b'[' => self.bracket(i),
                _ => i + 1,
            };
        }
        pos.max(end)
    }

    /// A curl command when `pos` is at a line start or inside its
    /// indentation (where a broken call that ended there leaves scanning,
    /// P72); returns where scanning resumes, or `None`.
    fn line_start(&mut self, pos: usize) -> Option<usize> {
        let b = self.full.as_bytes();
        let mut p = pos;
        while p > 0 && is_blank(b[p - 1]) {
            p -= 1;
        }
        let line = p == 0 || matches!(b[p - 1], b'\n' | b'\r') || &self.full[..p] == BOM;
        if !line {
            // A block whose text starts with a curl command on a line that
            // holds something before it (a list marker, a heading's `#`, a
            // table's `|`): shown as text, but no line a shell runs (P176).
            if pos == self.block_start
                && has_at(self.bytes, pos, b"curl")
                && self.bytes.get(pos + 4).is_some_and(|&c| is_blank(c))
            {
                let end = self.line_end(pos);
                let end = end - usize::from(end > pos && self.bytes[end - 1] == b'\r');
                self.skipped.push(Skipped {
                    span: pos..end,
                    reason: SkipReason::CurlNotAtLineStart,
                    message: "a curl command that starts its block but not its line (Markdown markup is before it on the line): only a line that starts with curl is a directive".into(),
                });
                return Some(end.max(pos + 1));
            }
            return None;
        }
        let at = pos
            + self.bytes[pos..]
                .iter()
                .take_while(|&&c| is_blank(c))
                .count();
        if at >= self.curl_end
            && has_at(self.bytes, at, b"curl")
            && self.bytes.get(at + 4).is_some_and(|&c| is_blank(c))
        {
            return self.curl(at);
        }
        None
    }

    /// A directive fence that pulldown-cmark found.
    fn directive_fence(&mut self, f: &Fence) {
        self.text = self.full;
        self.bytes = self.full.as_bytes();
        self.floor = 0;
        self.breaker = Breaker::Block;
        let word = &self.full[f.word.clone()];
        let Some(engine) = self
            .s
            .directives
            .fences
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, e)| *e)
        else {
            return;
        };
        if !f.closed {
            let ch = char::from(self.bytes[f.span.start]);
            self.skip(
                f.span.clone(),
                SkipReason::UnclosedFence,
                format!("the {ch}{ch}{ch}{word} fence is never closed"),
            );
            return;
        }
        self.fence_body(f.span.clone(), f.body.start, f.body.end, engine);
    }

    fn fence_body(&mut self, span: Range<usize>, from: usize, to: usize, engine: &'static str) {
        let body = &self.text[..to];
        let mut p = from;
        while p < to && is_ws(self.bytes[p]) {
            p += 1;
        }
        let op_end = match self.s.op_end(body, p, to) {
            Some(end) => end,
            None => {
                return self.skip(
                    span,
                    SkipReason::FenceBody,
                    "the fence body does not start with an op",
                )
            }
        };
        let mut q = op_end;
        while q < to && is_ws(self.bytes[q]) {
            q += 1;
        }
        if q == op_end || q >= to || self.bytes[q] != b'{' {
            return self.skip(
                span,
                SkipReason::FenceBody,
                "the op is not followed by whitespace and a JSON object",
            );
        }
        match scan_object(body, q, self.s.directives.limits) {
            Err(e) => self.skip(span, SkipReason::InvalidJson, e.error.message),
            Ok((args, end)) => {
                if !self.bytes[end..to].iter().all(|&c| is_ws(c)) {
                    return self.skip(
                        span,
                        SkipReason::FenceBody,
                        "text after the JSON object in the fence body",
                    );
                }
                let text = self.text;
                self.directive(span, DirectiveForm::Fence, engine, &text[p..op_end], args);
            }
        }
    }

    /// Everything that can start at the `[` at `i`; returns where scanning resumes.
    fn bracket(&mut self, i: usize) -> usize {
        if let Some(next) = self.before_bracket(i) {
            return next;
        }
        if !self
            .bytes
            .get(i + 1)
            .is_some_and(|&b| self.s.after_bracket[usize::from(b)])
        {
            return i + 1;
        }
        if let Some(next) = self.bracket_directive(i) {
            return next;
        }
        // The first structure in spec order that matches wins; a structure can
        // match only where its head's literal text is.
        let rest = &self.bytes[i..];
        let after = rest.get(1).map_or(0, |&b| usize::from(b));
        for n in 0..self.s.bracketed[after].len() {
            let k = self.s.bracketed[after][n];
            if !has_at(rest, 0, self.s.structures[k].head.as_bytes()) {
                continue;
            }
            if let Some((end, value)) = self.sentence_at(k, i) {
                // A match whose fields are invalid is passed over whole, as quoted
                // text: its markers are not read one by one (P71).
                if let Some(v) = value {
                    self.found.push(Found {
                        span: i..end,
                        item: Item::Sentence { value: v },
                    });
                }
                return end.max(i + 1);
            }
        }
        for st in self.s.structures.iter().filter(|st| st.quotes_brackets) {
            if self.text[i..].starts_with(st.head) {
                return self.quoted_brackets(i, st.key);
            }
        }
        i + 1
    }

    /// The match of structure `k`'s pattern anchored at `start`, if there is
    /// one: its end, and its sentence (`None` when its fields are invalid).
    ///
    /// A structure with a free-text tail is read in two parts: the capture
    /// engine runs over the pattern before the tail, then the tail's end is
    /// found from there (by a byte search for the usual tails, else the
    /// DFA), so the tail is read once. That is the whole pattern's match: a
    /// leftmost-first match prefers the paths of its head in their order,
    /// and the head's preferred path is followed by a tail. Only when the tail
    /// does not match after the head's preferred path is the whole pattern
    /// run by the capture engine.
    ///
    /// Once the structure has failed [`MISSES_BEFORE_DFA`] times in the text,
    /// the whole pattern's DFA first finds whether and where it matches (see
    /// `Scanner::quick`).
    fn sentence_at(&mut self, k: usize, start: usize) -> Option<(usize, Option<S>)> {
        if self.caps.is_empty() {
            self.caps = (0..self.s.structures.len()).map(|_| (None, 0)).collect();
        }
        let quick = if self.caps[k].1 >= MISSES_BEFORE_DFA {
            self.s.quick_dfa(k)
        } else {
            None
        };
        let block = &self.full[..self.block_end.max(self.text.len())];
        let known_end = match quick {
            Some(dfa) => Some(dense_end(dfa, block, start)?),
            None => None,
        };
        let found = self.capture_at(k, start, known_end);
        if found.is_none() {
            self.caps[k].1 += 1;
        }
        found
    }

    /// [`Run::sentence_at`] for structure `k` at `start`, given the end of
    /// the whole pattern's match when a DFA found it.
    ///
    /// Everything before a free-text tail lies in the text run; the tail
    /// runs on to the end of the run's block, inline markup included (P153).
    fn capture_at(
        &mut self,
        k: usize,
        start: usize,
        known_end: Option<usize>,
    ) -> Option<(usize, Option<S>)> {
        let st = &self.s.structures[k];
        let block = &self.full[..self.block_end.max(self.text.len())];
        let run_end = self.text.len();
        let input = Input::new(block).anchored(Anchored::Yes);
        let in_run = input
            .clone()
            .range(start..known_end.map_or(run_end, |e| e.min(run_end)));
        if let Some((group, head, tail)) = &self.s.tails[k] {
            let caps = self.caps[k].0.get_or_insert_with(|| head.create_captures());
            head.search_captures(&in_run, caps);
            let caps = &*caps;
            // No match of the head: no match of the whole pattern either.
            let split = caps.get_match()?.end();
            // (With the whole match's end known, the tail must end there.)
            let ends = tail.end(block, split).map(|group_end| {
                // Trailing blanks belong to the sentence's span, past its
                // block's end too (the DFA's match ends at the block's end).
                let b = self.full.as_bytes();
                let mut end = group_end;
                let mut in_block = group_end;
                if st.trailing_blanks {
                    while end < b.len() && is_ws(b[end]) {
                        end += 1;
                    }
                    in_block = end.min(block.len());
                }
                (group_end, end, in_block)
            });
            if let Some((group_end, end, _)) =
                ends.filter(|&(_, _, e)| known_end.is_none_or(|known| known == e))
            {
                let groups = TailGroups {
                    head: AutomataGroups { caps, text: block },
                    tail: (group, Cap::new(split, &block[split..group_end])),
                    end,
                };
                return Some((end, (st.from_groups)(&groups).ok()));
            }
            let single = &self.s.singles[k];
            let mut caps = single.create_captures();
            single.search_captures(&input.range(start..run_end), &mut caps);
            let end = caps.get_match()?.end();
            return Some((
                end,
                (st.from_groups)(&AutomataGroups {
                    caps: &caps,
                    text: block,
                })
                .ok(),
            ));
        }
        let single = &self.s.singles[k];
        let caps = self.caps[k]
            .0
            .get_or_insert_with(|| single.create_captures());
        single.search_captures(&in_run, caps);
        let end = caps.get_match()?.end();
        Some((
            end,
            (st.from_groups)(&AutomataGroups { caps, text: block }).ok(),
        ))
    }

    /// Structures whose head (e.g. `Reply:`) precedes the `[` at `i`.
    fn before_bracket(&mut self, i: usize) -> Option<usize> {
        let b = self.bytes;
        let mut p = i;
        while p > self.floor && is_blank(b[p - 1]) {
            p -= 1;
        }
        if p == i {
            return None;
        }
        for &k in &self.s.others {
            let st = &self.s.structures[k];
            let Some(start) = p
                .checked_sub(st.head.len())
                .filter(|&start| start >= self.floor)
            else {
                continue;
            };
            if !has_at(b, start, st.head.as_bytes()) || !self.text.is_char_boundary(start) {
                continue;
            }
            // Do not reach back over what was already found.
            if self.found.last().is_some_and(|f| f.span.end > start) {
                continue;
            }
            if let Some((end, value)) = self.sentence_at(k, start) {
                // Fields invalid (a footer whose ids differ): passed over whole (P71).
                if let Some(v) = value {
                    self.found.push(Found {
                        span: start..end,
                        item: Item::Sentence { value: v },
                    });
                }
                return Some(end);
            }
        }
        None
    }

    /// The bracketed text of a failed quoting structure: skipped to its
    /// matching `]` on the line, or to the end of the line.
    fn quoted_brackets(&mut self, i: usize, key: &str) -> usize {
        // Read to the matching `]` or the line end, whichever comes first: finding
        // the line end first would read a long line once per candidate on it.
        let mut depth = 0usize;
        let mut end = self.bytes.len();
        for (p, &c) in self.bytes[i..].iter().enumerate() {
            match c {
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + p + 1;
                    }
                }
                b'\n' => {
                    end = i + p;
                    break;
                }
                _ => {}
            }
        }
        self.skip(
            i..end,
            SkipReason::UnclosedDirective,
            format!("a `{key}` that does not close; its text is quoted to the end of the line"),
        );
        end
    }

    /// Where a broken bracket form closes (P81), read from `from` (just after
    /// its op, keyword or object, so a line break before the failure stops it): the `]`
    /// that brings the nesting back to zero, JSON strings tracked (`"` opens
    /// and closes one, `\` escapes the next byte) and `[`/`{` against `]`/`}`
    /// counted (the candidate's own `[` is depth 1; a `}` never closes it), else
    /// the end of the line (a newline ends a string too: JSON strings hold
    /// none), else the end of the text. Returns the end of the skip span.
    fn bracket_close(&self, from: usize) -> usize {
        let b = self.bytes;
        let mut depth = 1usize;
        let mut in_string = false;
        let mut p = from;
        while p < b.len() {
            // Pass over the bytes that change nothing in a tight loop.
            while p < b.len() && !CLOSE_STOPS[usize::from(b[p])] {
                p += 1;
            }
            let Some(&c) = b.get(p) else { break };
            match c {
                b'\n' => return p,
                b'\\' if in_string && b.get(p + 1).is_some_and(|&c| c != b'\n') => p += 1,
                b'"' => in_string = !in_string,
                b'[' | b'{' if !in_string => depth += 1,
                b'}' if !in_string && depth > 1 => depth -= 1,
                b']' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        return p + 1;
                    }
                }
                _ => {}
            }
            p += 1;
        }
        b.len()
    }

    /// `[TOOL op {…}]`, `[EXEC op {…}]`, `[DM {…}]` at `i`.
    fn bracket_directive(&mut self, i: usize) -> Option<usize> {
        let b = self.bytes;
        // (What follows a keyword at the end of its block is what follows the block.)
        let full = self.full.as_bytes();
        let d = self.s.directives;
        if let Some(engine) = d.bracket_engines.iter().find(|e| {
            has_at(b, i + 1, e.as_bytes()) && full.get(i + 1 + e.len()).is_some_and(|&c| is_ws(c))
        }) {
            let mut p = i + 1 + engine.len();
            while p < b.len() && is_ws(b[p]) {
                p += 1;
            }
            let op_end = self.s.op_end(self.text, p, b.len())?;
            let text = self.text;
            let written = &text[p..op_end];
            let mut q = op_end;
            while q < b.len() && is_ws(b[q]) {
                q += 1;
            }
            if q < b.len() && b[q] == b']' {
                return Some(q + 1); // `[TOOL op]` advertises an op: not a call.
            }
            let message = || format!("`[{engine} {written}` is not followed by a JSON object");
            if q == op_end && q < b.len() && !matches!(b[q], b'{' | b'[' | b'"' | b'\'') {
                // The op runs into other text (`[TOOL Reply: …`): it is no word of
                // its own, so the candidate ends before it and its text is read again
                // (P73). An op that runs into a quote or bracket (`[TOOL a"…"]`) is
                // not: that candidate runs to its closing `]` (P88).
                let next = self.text[q..].chars().next().unwrap_or_default();
                let next = &self.text[q..q + next.len_utf8()];
                if let Some((_, c)) = first_format_character(next) {
                    // An op that runs into a format character (P154).
                    let end = q + c.len_utf8();
                    self.skip(
                        i..end,
                        SkipReason::InvisibleCharacter,
                        invisible_message(c, q, "the op"),
                    );
                    return Some(end);
                }
                self.skip(i..p, SkipReason::NoObject, message());
                return Some(p);
            }
            if q >= b.len() || b[q] != b'{' || q == op_end {
                // The candidate runs to its closing `]` (P81); an op that runs
                // straight into `{` (`[TOOL a{…}]`) is no word of its own either.
                let end = self.bracket_close(op_end);
                self.skip(i..end, SkipReason::NoObject, message());
                return Some(end);
            }
            return Some(self.object_then_close(i, q, DirectiveForm::Bracket, engine, written));
        }
        for &(kw, op, engine) in d.shorthands {
            if !has_at(b, i + 1, kw.as_bytes()) {
                continue;
            }
            let mut p = i + 1 + kw.len();
            if !full.get(p).is_some_and(|&c| is_ws(c) || c == b'{') {
                continue;
            }
            if full[p] == b'{' && p < b.len() {
                // `[DM{…}]`: the keyword runs into the object, as `[TOOL a{}]`'s op does (P84).
                let end = self.bracket_close(p);
                self.skip(
                    i..end,
                    SkipReason::ShorthandWithoutObject,
                    format!("`[{kw}` is not followed by whitespace and a JSON object"),
                );
                return Some(end);
            }
            while p < b.len() && is_ws(b[p]) {
                p += 1;
            }
            if p >= b.len() || b[p] != b'{' {
                // The candidate runs to its closing `]` (P81).
                let end = self.bracket_close(i + 1 + kw.len());
                self.skip(
                    i..end,
                    SkipReason::ShorthandWithoutObject,
                    format!("`[{kw}` without a JSON object is ignored (D3)"),
                );
                return Some(end);
            }
            return Some(self.object_then_close(i, p, DirectiveForm::Shorthand, engine, op));
        }
        None
    }

    fn object_then_close(
        &mut self,
        i: usize,
        brace: usize,
        form: DirectiveForm,
        engine: &'static str,
        written: &str,
    ) -> usize {
        let b = self.bytes;
        match scan_object(self.text, brace, self.s.directives.limits) {
            Err(e) => {
                // The broken candidate runs to its closing `]` or its line end
                // (P87), and never ends before what the JSON reader consumed,
                // so nothing inside its strings is read as a marker.
                let end = e.at.max(self.bracket_close(brace));
                self.skip(i..end, SkipReason::InvalidJson, e.error.message);
                end
            }
            Ok((args, end)) => {
                let mut q = end;
                while q < b.len() && is_ws(b[q]) {
                    q += 1;
                }
                if q < b.len() && b[q] == b']' {
                    self.directive(i..q + 1, form, engine, written, args);
                    q + 1
                } else {
                    let message = if q < b.len() {
                        "text between the JSON object and the closing `]`"
                    } else {
                        "the text ends before the closing `]`"
                    };
                    // The candidate runs to its closing `]` (P81).
                    let close = self.bracket_close(end);
                    self.skip(i..close, SkipReason::TrailingText, message);
                    close
                }
            }
        }
    }

    /// A curl command starting at `at` (line start, after blanks). Every curl
    /// command is shell text: scanning resumes after it. It is a directive
    /// only when curl would POST exactly one single-quoted payload to the
    /// exec path (see `schema/directives.json`, `/curl`).
    fn curl(&mut self, at: usize) -> Option<usize> {
        let b = self.bytes;
        let d = self.s.directives;
        // A line inside a heredoc body or inside a quoted string opened on an
        // earlier line, or one that continues the line before it, is no
        // command (P156, P162).
        let inside = match self.heredoc_at(at) {
            Some(open) => Some(format!("inside the heredoc body opened at byte {open}")),
            None => match continued_line(self.full.as_bytes(), at) {
                Some(why) => Some(format!("continued from the line before it ({why})")),
                None => self.inside_quote(at).map(|(kind, open)| match kind {
                    b'{' | b'(' => format!("inside the shell expansion opened at byte {open}"),
                    _ => format!("inside the shell string opened at byte {open}"),
                }),
            },
        };
        if let Some(why) = inside {
            let end = self.line_end(at);
            if self.text[at..end].contains(d.curl_path) {
                // The whole line, whatever follows it: nothing cut it short.
                self.skipped.push(Skipped {
                    span: at..end,
                    reason: SkipReason::CurlPayload,
                    message: format!("the line is {why}, not a command"),
                });
            }
            return Some(end);
        }
        // Words up to the end of the command (a newline not escaped by `\`):
        // (start, end, quote, joined to the previous word).
        let mut tokens: Vec<(usize, usize, u8, bool)> = Vec::new();
        let mut p = at;
        let mut unclosed = false;
        let mut lone_cr: Option<usize> = None;
        let mut blank = true;
        loop {
            let before = p;
            while p < b.len() && is_blank(b[p]) {
                p += 1;
            }
            if p + 1 < b.len()
                && b[p] == b'\\'
                && (b[p + 1] == b'\n' || (b[p + 1] == b'\r' && b.get(p + 2) == Some(&b'\n')))
            {
                p += if b[p + 1] == b'\r' { 3 } else { 2 };
                blank = true;
                continue;
            }
            if p > before {
                blank = true;
            }
            if p < b.len() && b[p] == b'\r' && b.get(p + 1) != Some(&b'\n') {
                // A lone CR ends no shell command (P156): read on past it.
                lone_cr.get_or_insert(p);
                p += 1;
                blank = true;
                continue;
            }
            if p >= b.len() || b[p] == b'\n' || b[p] == b'\r' {
                break;
            }
            let joined = !blank;
            blank = false;
            match b[p] {
                q @ (b'\'' | b'"') => match self.closing_quote(p, q) {
                    Some(c) => {
                        tokens.push((p + 1, c, q, joined));
                        p = c + 1;
                    }
                    None => {
                        unclosed = true;
                        break;
                    }
                },
                _ => {
                    let s = p;
                    while p < b.len() && !is_ws(b[p]) && b[p] != b'\'' && b[p] != b'"' {
                        p += 1;
                    }
                    tokens.push((s, p, 0, joined));
                }
            }
        }
        let end = if unclosed { self.line_end(at) } else { p };
        self.curl_end = end;
        let word = |t: &(usize, usize, u8, bool)| &self.text[t.0..t.1];
        let exact = |w: &str| {
            let rest = w
                .strip_prefix("https://")
                .or_else(|| w.strip_prefix("http://"));
            rest.and_then(|r| r.find('/').map(|k| &r[k..]))
                .is_some_and(|path| path == d.curl_path)
        };
        // Read the words as curl would: options in the value list take the
        // next word; the URL is the positional word (or --url's value).
        let (mut urls, mut payloads, mut methods) = (Vec::new(), Vec::new(), Vec::new());
        let mut problem: Option<String> = None;
        let mut k = 1;
        while k < tokens.len() {
            let t = tokens[k];
            let w = word(&t);
            if t.2 == 0 && w.starts_with('-') && w.len() > 1 {
                if d.curl_data_flags.contains(&w) || d.curl_value_options.contains(&w) {
                    match tokens.get(k + 1) {
                        None => {
                            problem.get_or_insert_with(|| format!("option `{w}` has no value"));
                        }
                        Some(v) if d.curl_data_flags.contains(&w) => payloads.push(*v),
                        Some(v) if w == "--url" => urls.push(*v),
                        Some(v) if w == "-X" || w == "--request" => methods.push(*v),
                        Some(_) => {}
                    }
                    k += 2;
                    continue;
                }
                if !d.curl_flag_options.contains(&w) {
                    problem.get_or_insert_with(|| {
                        format!("unknown curl option `{w}` (it might take a value)")
                    });
                }
            } else {
                urls.push(t);
            }
            k += 1;
        }
        let mentions = urls.iter().any(|u| {
            let w = word(u);
            w.contains("://") && w.contains(d.curl_path)
        });
        if !mentions && !unclosed {
            return Some(end); // Shell text that posts elsewhere: quoted, no diagnostic.
        }
        let span = at..end;
        let reject = |run: &mut Self, message: String| {
            run.skip(span.clone(), SkipReason::CurlPayload, message);
            Some(end)
        };
        if let Some(cr) = lone_cr.filter(|&cr| cr < end) {
            return reject(
                self,
                format!("a lone CR at byte {cr}: a shell reads the command on past it"),
            );
        }
        if unclosed {
            return reject(
                self,
                "an unclosed quote: the command is read to the end of its first line and not run"
                    .into(),
            );
        }
        if tokens.iter().skip(1).any(|t| t.3) {
            return reject(self, "a word joins quoted and unquoted text".into());
        }
        for t in &tokens {
            let w = word(t);
            if t.2 == 0
                && (w.starts_with('#')
                    || w.contains([';', '|', '&', '<', '>', '`'])
                    || w.contains("$("))
            {
                return reject(self, format!("shell syntax outside quotes: `{w}`"));
            }
            // Expansions and globs change what runs (P156).
            let expands: &[char] = match t.2 {
                0 => &['$', '{', '}', '*', '?', '[', '~', '!'],
                b'"' => &['$', '`', '!'],
                _ => &[],
            };
            if let Some(c) = w.chars().find(|c| expands.contains(c)) {
                return reject(
                    self,
                    format!("the shell expands `{c}` in `{w}`; a directive's words are literal"),
                );
            }
        }
        if let Some(message) = problem {
            return reject(self, message);
        }
        match urls.as_slice() {
            [u] if exact(word(u)) => {}
            [_] => {
                return reject(
                    self,
                    format!("the URL's path is not exactly `{}`", d.curl_path),
                )
            }
            _ => {
                return reject(
                    self,
                    format!("{} URLs; a directive posts to exactly one", urls.len()),
                )
            }
        }
        if methods.iter().any(|m| word(m) != "POST") {
            return reject(self, "the method is not POST".into());
        }
        let payload = match payloads.as_slice() {
            [one] if one.2 == b'\'' => *one,
            [one] if one.2 == b'"' => {
                return reject(
                    self,
                    "the payload is double-quoted; only single-quoted payloads are read".into(),
                )
            }
            [_] => return reject(self, "the payload is not single-quoted".into()),
            [] => return reject(self, "no payload after a data flag".into()),
            _ => return reject(self, "more than one payload".into()),
        };
        let text = &self.text[payload.0..payload.1];
        let obj = match crate::json::parse_object_with(
            text.trim_matches([' ', '\t', '\r', '\n']),
            d.limits,
        ) {
            Ok(o) => o,
            Err(e) => {
                self.skip(span, SkipReason::InvalidJson, e.message);
                return Some(end);
            }
        };
        if obj.len() != 2 || !obj.contains_key(d.curl_op_key) || !obj.contains_key(d.curl_args_key)
        {
            return reject(
                self,
                format!(
                    "the payload must hold exactly `{}` and `{}`",
                    d.curl_op_key, d.curl_args_key
                ),
            );
        }
        let op = match obj.get(d.curl_op_key) {
            Some(Value::String(op))
                if !op.is_empty() && self.s.op_end(op, 0, op.len()) == Some(op.len()) =>
            {
                op.clone()
            }
            _ => return reject(self, format!("`{}` is not a valid op name", d.curl_op_key)),
        };
        let args = match obj.get(d.curl_args_key) {
            Some(Value::Object(a)) => a.clone(),
            _ => return reject(self, format!("`{}` is not a JSON object", d.curl_args_key)),
        };
        self.directive(span, DirectiveForm::Curl, d.curl_engine, &op, args);
        Some(end)
    }
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
        let lib = include_str!("../../generated/rust/src/lib.rs");
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
        let meta = MetaRegex::new(&summary).unwrap();
        let pieces = [
            "a", "b", " ", "\t", "\n", "\r\n", "[", "R", "E", "S", "U", "L", "T", "[RESULT ",
            "[RESUL", "é", "✓", "—", "ok done",
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
