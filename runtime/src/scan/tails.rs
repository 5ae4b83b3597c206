//! Free-text tails and the DFAs that find where a pattern ends: a tail is
//! read once, by a byte search or a DFA.

use super::*;

/// The groups of a match read in two parts: the capture pass over the
/// pattern before its free-text tail, and the tail's span.
pub(super) struct TailGroups<'a, 't> {
    pub(super) head: AutomataGroups<'a, 't>,
    pub(super) tail: (&'a str, Cap<'t>),
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
    /// Runs of plain bytes, read without a transition per byte, when the
    /// DFA allows it (see [`Plain`]).
    pub(super) plain: Option<Box<Plain>>,
    /// Whether only the end of the text ends the tail once it has started
    /// (see [`DenseTail::ends_only_at_end`]).
    pub(super) to_end: bool,
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
        // Seen from the first loop state from which it holds.
        let plain = loops
            .iter()
            .find_map(|&(home, _)| Plain::new(&dfa, home, &queue))
            .map(Box::new);
        let to_end = Self::ends_only_at_end(&dfa);
        DenseTail {
            dfa,
            loops,
            plain,
            to_end,
        }
    }

    /// Whether no text stops `dfa` once it has read a first character: from
    /// every state a character leads to from a start state (the tail has
    /// started), no character leads to the dead state (the match would then
    /// have ended before it). Read by characters, each valid UTF-8 sequence
    /// (a byte of each class of the DFA for continuation bytes), so bytes no
    /// `str` holds stop nothing. `false` when it cannot tell in a few
    /// thousand states (a work order's body: `true`; a result's summary,
    /// which the next `[RESULT ` ends: `false`).
    fn ends_only_at_end(dfa: &DenseDfa) -> bool {
        use regex_automata::dfa::Automaton;
        use regex_automata::util::primitives::StateID;
        let classes = dfa.byte_classes();
        // One byte of each class of `range`.
        let reps = |range: std::ops::RangeInclusive<u8>| {
            let mut seen = std::collections::HashSet::new();
            range
                .filter(|&b| seen.insert(classes.get(b)))
                .collect::<Vec<u8>>()
        };
        let any = reps(0x80..=0xBF);
        // The lead bytes of valid sequences, each with the bytes that may
        // follow it (the second byte is restricted for some leads).
        // Leads of one class with the same rule for what follows read
        // alike: one of each.
        let mut leads: Vec<(u8, Vec<u8>, usize)> = Vec::new();
        let mut kinds = std::collections::HashSet::new();
        for lead in 0xC2..=0xF4u8 {
            let (kind, second, more) = match lead {
                0xC2..=0xDF => (0, 0x80..=0xBF, 0),
                0xE0 => (1, 0xA0..=0xBF, 1),
                0xED => (2, 0x80..=0x9F, 1),
                0xE1..=0xEF => (3, 0x80..=0xBF, 1),
                0xF0 => (4, 0x90..=0xBF, 2),
                0xF4 => (5, 0x80..=0x8F, 2),
                _ => (6, 0x80..=0xBF, 2),
            };
            if kinds.insert((kind, classes.get(lead))) {
                leads.push((lead, reps(second), more));
            }
        }
        let ascii = reps(0..=0x7F);
        let dead = |s: StateID| dfa.is_dead_state(s) || dfa.is_quit_state(s);
        // The states one character leads to from `s`; `None` when some
        // character leads to the dead state.
        let step = |s: StateID, out: &mut Vec<StateID>| -> bool {
            let mut ok = true;
            for &b in &ascii {
                let t = dfa.next_state(s, b);
                ok &= !dead(t);
                out.push(t);
            }
            for (lead, second, more) in &leads {
                let mut frontier = vec![dfa.next_state(s, *lead)];
                for bytes in std::iter::once(second).chain(std::iter::repeat_n(&any, *more)) {
                    let mut next = Vec::new();
                    for &f in &frontier {
                        if dead(f) {
                            ok = false;
                            continue;
                        }
                        next.extend(bytes.iter().map(|&c| dfa.next_state(f, c)));
                    }
                    next.sort_unstable();
                    next.dedup();
                    frontier = next;
                }
                for t in frontier {
                    ok &= !dead(t);
                    out.push(t);
                }
            }
            ok
        };
        let mut started: Vec<StateID> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for before in ["", "a", " ", "\n", "\r", "é"] {
            let input = Input::new(before)
                .range(before.len()..)
                .anchored(Anchored::Yes);
            let Ok(start) = dfa.start_state_forward(&input) else {
                return false;
            };
            let mut out = Vec::new();
            // A first character that stops the tail: it never started.
            step(start, &mut out);
            for t in out {
                if !dead(t) && seen.insert(t) {
                    started.push(t);
                }
            }
        }
        let mut k = 0;
        while k < started.len() {
            if started.len() > 4096 {
                return false;
            }
            let mut out = Vec::new();
            if !step(started[k], &mut out) {
                return false;
            }
            k += 1;
            for t in out {
                if seen.insert(t) {
                    started.push(t);
                }
            }
        }
        !started.is_empty()
    }

    /// The end of the DFA's leftmost-first match anchored at byte `from` of
    /// `text`: the DFA run a byte at a time (as `find_fwd` runs it), except
    /// that a run of bytes on which a loop state goes back to itself is
    /// passed over at once, noting the match at its last byte when the state
    /// is a match state (a match state's match ends just before the byte
    /// that led to it, as in `find_fwd`).
    #[cfg(test)]
    pub(super) fn end(&self, text: &str, from: usize) -> Option<usize> {
        self.end_open(text, from).0
    }

    /// [`DenseTail::end`], and whether the DFA was still alive at the end of
    /// `text` (more text could then change the end).
    pub(super) fn end_open(&self, text: &str, from: usize) -> (Option<usize>, bool) {
        use regex_automata::dfa::Automaton;
        let hay = text.as_bytes();
        let input = Input::new(text).range(from..).anchored(Anchored::Yes);
        let dfa = &self.dfa;
        let Ok(mut sid) = dfa.start_state_forward(&input) else {
            return (None, true);
        };
        let mut mat = None;
        let mut at = from;
        while at < hay.len() {
            if let Some(p) = &self.plain {
                // A run of at least three plain bytes, from a state that
                // reads it alike: its states come from its bytes' classes.
                if hay.len() - at >= 3
                    && hay[at..at + 3].iter().all(|&b| p.plain[usize::from(b)])
                    && p.starts.binary_search(&sid).is_ok()
                {
                    let end = p.run_end(hay, at);
                    let classes = dfa.byte_classes();
                    // The state after byte `i` (past the run's first byte).
                    let after = |i: usize| {
                        p.after[usize::from(classes.get(hay[i - 1])) * p.classes
                            + usize::from(classes.get(hay[i]))]
                    };
                    // The last match in the run, as the loop below would
                    // note it: a match state after byte `i` ends one at `i`.
                    match (at + 1..end).rev().find(|&i| after(i).1) {
                        Some(i) => mat = Some(i),
                        None if dfa.is_match_state(dfa.next_state(sid, hay[at])) => mat = Some(at),
                        None => {}
                    }
                    sid = after(end - 1).0;
                    at = end;
                    continue;
                }
            }
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
                    return (mat, false);
                } else if dfa.is_quit_state(sid) {
                    // No quit bytes are configured; a quit would be a failed search.
                    return (dense_end(&self.dfa, text, from), true);
                }
            }
            at += 1;
        }
        sid = dfa.next_eoi_state(sid);
        if dfa.is_match_state(sid) {
            mat = Some(hay.len());
        }
        (mat, true)
    }
}

/// Stretches of a tail's text that its DFA reads without looking at which
/// state it is in (issue 27): a run of "plain" bytes (ASCII bytes outside a
/// few special ones) takes every state of a set to a state that depends only
/// on the run's last two bytes (their byte classes), and the states along the
/// run are found the same way. A run is then found by a word-at-a-time
/// search, not a transition per byte. Built only when that holds of the DFA
/// (checked over every reachable state and every pair of plain bytes when
/// the tail is compiled), so it never changes a result.
pub(super) struct Plain {
    /// The ASCII bytes that are not plain (at most three); every byte from
    /// 0x80 up is not plain either.
    specials: Vec<u8>,
    /// Per byte: whether it is plain.
    plain: [bool; 256],
    /// The states a run may start from, sorted.
    starts: Vec<regex_automata::util::primitives::StateID>,
    /// The DFA's byte classes' count.
    classes: usize,
    /// Per pair of byte classes (the run's last two bytes): the state after
    /// the run, and whether it is a match state.
    after: Vec<(regex_automata::util::primitives::StateID, bool)>,
}

impl Plain {
    /// At most this many ASCII bytes are special (each is searched for).
    const MAX_SPECIALS: usize = 3;

    /// The plain-run reading of `dfa`, seen from its loop state `home` and
    /// its reachable `states`, when it holds (see [`Plain`]). The special
    /// bytes are chosen among the ASCII bytes on which `home` does not loop
    /// (at most eight of them), fewest first.
    pub(super) fn new(
        dfa: &DenseDfa,
        home: regex_automata::util::primitives::StateID,
        states: &[regex_automata::util::primitives::StateID],
    ) -> Option<Self> {
        use regex_automata::dfa::Automaton;
        let live = |s| !(dfa.is_dead_state(s) || dfa.is_quit_state(s));
        let mut plain = [false; 256];
        for b in 0..0x80u8 {
            plain[usize::from(b)] = live(dfa.next_state(home, b));
        }
        let leaving: Vec<u8> = (0..0x80u8)
            .filter(|&b| plain[usize::from(b)] && dfa.next_state(home, b) != home)
            .collect();
        if leaving.len() > 8 || (0..0x80).filter(|&b| !plain[b]).count() > Self::MAX_SPECIALS {
            return None;
        }
        // Every subset of `leaving` of at most three bytes, smallest first.
        let mut subsets: Vec<Vec<u8>> = (0u32..1 << leaving.len())
            .map(|m| {
                (0..leaving.len())
                    .filter(|&k| m & (1 << k) != 0)
                    .map(|k| leaving[k])
                    .collect::<Vec<u8>>()
            })
            .collect();
        subsets.sort_by_key(Vec::len);
        for extra in subsets {
            let mut p = plain;
            for &b in &extra {
                p[usize::from(b)] = false;
            }
            if (0..0x80).filter(|&b| !p[b]).count() > Self::MAX_SPECIALS {
                break;
            }
            if let Some(found) = Self::with(dfa, home, states, p) {
                return Some(found);
            }
        }
        None
    }

    /// [`Plain`] with the plain bytes `plain`, when it holds.
    fn with(
        dfa: &DenseDfa,
        home: regex_automata::util::primitives::StateID,
        states: &[regex_automata::util::primitives::StateID],
        plain: [bool; 256],
    ) -> Option<Self> {
        use regex_automata::dfa::Automaton;
        use regex_automata::util::primitives::StateID;
        let live = |s: StateID| !(dfa.is_dead_state(s) || dfa.is_quit_state(s));
        let byte_classes = dfa.byte_classes();
        let classes = byte_classes.alphabet_len();
        let class = |b: u8| usize::from(byte_classes.get(b));
        // One plain byte per class: bytes of a class have the same
        // transitions everywhere.
        let mut reps: Vec<u8> = Vec::new();
        for b in (0..0x80u8).filter(|&b| plain[usize::from(b)]) {
            if !reps.iter().any(|&r| class(r) == class(b)) {
                reps.push(b);
            }
        }
        if reps.is_empty() {
            return None;
        }
        // The state after two plain bytes from `home`, per pair of classes.
        let mut after = vec![(home, false); classes * classes];
        for &x in &reps {
            for &y in &reps {
                let s = dfa.next_state(dfa.next_state(home, x), y);
                after[class(x) * classes + class(y)] = (s, dfa.is_match_state(s));
            }
        }
        // The states from which every plain byte leads to a live state and
        // every two plain bytes lead where they lead from `home`.
        let mut set: Vec<StateID> = states
            .iter()
            .copied()
            .filter(|&s| {
                live(s)
                    && reps.iter().all(|&x| {
                        let t = dfa.next_state(s, x);
                        live(t)
                            && reps.iter().all(|&y| {
                                dfa.next_state(t, y) == after[class(x) * classes + class(y)].0
                            })
                    })
            })
            .collect();
        set.sort();
        // Closed under plain bytes: the largest such subset.
        loop {
            let before = set.len();
            let kept: Vec<StateID> = set
                .iter()
                .copied()
                .filter(|&s| {
                    reps.iter()
                        .all(|&x| set.binary_search(&dfa.next_state(s, x)).is_ok())
                })
                .collect();
            set = kept;
            if set.len() == before {
                break;
            }
        }
        set.binary_search(&home).is_ok().then(|| Plain {
            specials: (0..0x80u8).filter(|&b| !plain[usize::from(b)]).collect(),
            plain,
            starts: set,
            classes,
            after,
        })
    }

    /// The ASCII bytes that are not plain.
    #[cfg(test)]
    pub(super) fn specials(&self) -> &[u8] {
        &self.specials
    }

    /// The end of the run of plain bytes that starts at `at` in `hay`.
    fn run_end(&self, hay: &[u8], mut at: usize) -> usize {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        const ONES: u64 = 0x0101_0101_0101_0101;
        // A word holds byte `c` where `w ^ c*ONES` has a zero byte.
        let has = |w: u64, c: u8| {
            let x = w ^ (ONES * u64::from(c));
            x.wrapping_sub(ONES) & !x & HIGH != 0
        };
        while let Some(chunk) = hay.get(at..at + 8) {
            let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            if w & HIGH != 0 || self.specials.iter().any(|&c| has(w, c)) {
                break;
            }
            at += 8;
        }
        while at < hay.len() && self.plain[usize::from(hay[at])] {
            at += 1;
        }
        at
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
    #[cfg(test)]
    pub(super) fn end(&self, text: &str, from: usize) -> Option<usize> {
        self.end_open(text, from).0
    }

    /// Whether only the end of the text ends the tail once it has started:
    /// a run that no byte stops (a work order's body). Other tails are taken
    /// as able to stop.
    pub(super) fn ends_only_at_end(&self) -> bool {
        match self {
            TailEnd::Run { stop, .. } => stop.is_empty(),
            TailEnd::Dense(tail) => tail.to_end,
            TailEnd::Regex(_) => false,
        }
    }

    /// [`TailEnd::end`], and whether text after `text` could change it
    /// (`false` once the tail's automaton has stopped before the end: then
    /// the end is final, as a stream needs to know). A tail run by the lazy
    /// DFA is always taken as open.
    pub(super) fn end_open(&self, text: &str, from: usize) -> (Option<usize>, bool) {
        match self {
            TailEnd::Run { first, stop } => {
                let Some(c) = text[from..].chars().next() else {
                    return (None, true);
                };
                if !first
                    .ranges()
                    .iter()
                    .any(|r| r.start() <= c && c <= r.end())
                {
                    return (None, false);
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
                (Some(n.map_or(text.len(), |n| at + n)), n.is_none())
            }
            TailEnd::Dense(tail) => tail.end_open(text, from),
            TailEnd::Regex(re) => (
                re.search(&Input::new(text).range(from..).anchored(Anchored::Yes))
                    .map(|m| m.end()),
                true,
            ),
        }
    }
}
