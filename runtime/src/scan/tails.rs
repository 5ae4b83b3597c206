//! Free-text tails and the DFAs that find where a pattern ends: a tail is
//! read once, by a byte search or a DFA.

use super::*;

/// The groups of a match read in two parts: the capture pass over the
/// pattern before its free-text tail, and the tail's span.
pub(super) struct TailGroups<'a, 't> {
    pub(super) head: AutomataGroups<'a, 't>,
    pub(super) tail: (&'static str, Cap<'t>),
    pub(super) end: usize,
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

/// How the scanner finds the end of a free-text tail that starts at a given
/// byte (the tail's leftmost-first match, anchored there).
pub(super) enum TailEnd {
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
pub(super) const CLOSE_STOPS: [bool; 256] = byte_set(b"\n\\\"[]{}");

/// A table of the bytes in `bytes`, for the constant byte sets above.
pub(super) const fn byte_set(bytes: &[u8]) -> [bool; 256] {
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
pub(super) const MISSES_BEFORE_DFA: u32 = 8;

/// A fully built DFA, for anchored searches only.
pub(super) type DenseDfa = Box<regex_automata::dfa::dense::DFA<Vec<u32>>>;

/// The anchored DFA of `pattern`, when it builds within 1 MiB (not, e.g.,
/// with a Unicode word boundary).
pub(super) fn dense_anchored(pattern: &str) -> Option<DenseDfa> {
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
pub(super) fn dense_end(dfa: &DenseDfa, text: &str, from: usize) -> Option<usize> {
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
pub(super) struct DenseTail {
    pub(super) dfa: DenseDfa,
    /// Such states, each with the bytes that leave it: a run of other bytes
    /// is passed over by a byte search instead of one transition per byte.
    pub(super) loops: Vec<(regex_automata::util::primitives::StateID, Box<[bool; 256]>)>,
}

impl DenseTail {
    /// Loop states kept: at most this many, each looping on at least
    /// [`DenseTail::MIN_LOOP_BYTES`] bytes.
    const MAX_LOOPS: usize = 4;
    /// Bytes a loop state must go back to itself on (a quarter of them).
    const MIN_LOOP_BYTES: usize = 64;

    pub(super) fn new(dfa: DenseDfa) -> Self {
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
    pub(super) fn end(&self, text: &str, from: usize) -> Option<usize> {
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
    pub(super) fn new(inner: &str) -> Option<Self> {
        Self::run(inner)
            .or_else(|| Self::dense(inner))
            .or_else(|| MetaRegex::new(inner).ok().map(TailEnd::Regex))
    }

    /// The [`TailEnd::Dense`] of `inner`, when its DFA stays under a size
    /// limit.
    pub(super) fn dense(inner: &str) -> Option<Self> {
        dense_anchored(inner).map(|dfa| TailEnd::Dense(DenseTail::new(dfa)))
    }

    /// The [`TailEnd::Run`] of `inner`, when it has that shape: a class, then
    /// a greedy unbounded repeat of a class whose complement is at most three
    /// ASCII characters.
    pub(super) fn run(inner: &str) -> Option<Self> {
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
    pub(super) fn end(&self, text: &str, from: usize) -> Option<usize> {
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
