//! Exponential ambiguity of a pattern, the complete test: the backtracking
//! lint's `ambiguous-repetition` ([`crate::backtrack`]).
//!
//! A backtracking engine (Python `re`) takes exponential time on a text that
//! almost matches exactly when the pattern's automaton is *exponentially
//! ambiguous*: some state `p` returns to itself by one text `w` along two
//! different paths, so `w` repeated `n` times is read in `2^n` ways, each
//! tried before the engine gives up. `(?:[0-9a-f][0-9a-f]?)+` is: `aa` is one
//! repetition or two. The test (Weber and Seidl's): in the product of the
//! automaton with itself, a pair `(p, p)` and a pair `(q, r)` with `q != r`
//! lie on one cycle (one strongly connected component).
//!
//! The automaton is `regex-automata`'s Thompson NFA, its empty moves
//! (alternation, repetition, assertions, read as always passing: an
//! over-approximation) folded into the moves that read a byte; a wide
//! bounded repetition is read as unbounded ([`RANGE_KEPT`]). Linear in the
//! product's size, which is bounded: past [`PAIRS_MAX`] pairs or
//! [`EDGES_MAX`] moves, no answer.
//! The NFA is built from `regex-syntax`'s simplified tree, which merges
//! equal alternatives (`a|a` is `a`): the AST questions of
//! [`crate::backtrack`] (`overlapping-alternatives`) see those.

use std::collections::{HashMap, VecDeque};

use regex_automata::nfa::thompson::{self, State, WhichCaptures, NFA};
use regex_automata::util::primitives::StateID;
use regex_syntax::hir::{Hir, HirKind};

/// Pairs of states the product visits at most; past it, no answer (and no
/// finding).
pub const PAIRS_MAX: usize = 200_000;

/// Moves of the product made at most; past it, no answer.
pub const EDGES_MAX: usize = 4_000_000;

/// The widest bounded repetition kept as written (`{m,n}` with `n - m` at
/// most this); a wider one is read as `{m,}`: a chain of optional copies
/// makes the product large, and `{m,}` reads each text every way `{m,n}`
/// does and more (so a finding can come from the widening: `(?:a{2,9}b)+`
/// and `(?:a{2,}b)+` answer alike, both no).
pub const RANGE_KEPT: u32 = 3;

/// `hir` with every repetition `{m,n}` wider than [`RANGE_KEPT`] read as
/// `{m,}`.
fn widen(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Repetition(mut r) => {
            if r.max.is_some_and(|n| n - r.min > RANGE_KEPT) {
                r.max = None;
            }
            r.sub = Box::new(widen(*r.sub));
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(widen(*c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(widen).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.into_iter().map(widen).collect()),
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(l) => Hir::literal(l.0),
        HirKind::Class(c) => Hir::class(c),
        HirKind::Look(l) => Hir::look(l),
    }
}

/// A state's moves: `(first byte, last byte, next state)`.
type Moves = Vec<(u8, u8, StateID)>;

/// Empty moves and byte moves of an NFA's states.
struct Folded<'n> {
    nfa: &'n NFA,
    /// `moves[s]`: state `s`'s byte moves (empty for a state that reads
    /// nothing).
    moves: Vec<Moves>,
    /// The reading or match states reached from a state by empty moves (the
    /// state itself when it reads a byte), computed when first asked.
    closure: HashMap<StateID, Vec<StateID>>,
    /// Steps left for computing closures; at 0, no answer.
    budget: usize,
}

/// Steps [`Folded::closure`] may take in all, for one pattern.
const CLOSURE_STEPS: usize = 4_000_000;

fn empty_moves(nfa: &NFA, sid: StateID) -> Vec<StateID> {
    match nfa.state(sid) {
        State::Union { alternates } => alternates.to_vec(),
        State::BinaryUnion { alt1, alt2 } => vec![*alt1, *alt2],
        State::Look { next, .. } | State::Capture { next, .. } => vec![*next],
        _ => Vec::new(),
    }
}

fn reads_or_matches(nfa: &NFA, sid: StateID) -> bool {
    matches!(
        nfa.state(sid),
        State::ByteRange { .. } | State::Sparse(_) | State::Dense(_) | State::Match { .. }
    )
}

/// `nfa`'s byte moves; `None` when its empty moves make a cycle (a
/// repetition of what can be empty: the lint's `empty-repetition` reports
/// those).
fn fold(nfa: &NFA) -> Option<Folded<'_>> {
    let n = nfa.states().len();
    let mut moves = vec![Vec::new(); n];
    for (i, s) in nfa.states().iter().enumerate() {
        moves[i] = match s {
            State::ByteRange { trans } => vec![(trans.start, trans.end, trans.next)],
            State::Sparse(t) => t
                .transitions
                .iter()
                .map(|t| (t.start, t.end, t.next))
                .collect(),
            State::Dense(t) => t
                .transitions
                .iter()
                .enumerate()
                .filter(|(_, next)| **next != StateID::ZERO)
                .map(|(b, next)| (b as u8, b as u8, *next))
                .collect(),
            _ => Vec::new(),
        };
    }
    // An empty cycle: depth first over the empty moves, a state met again
    // while still on the path (0 unseen, 1 on the path, 2 done).
    let mut color = vec![0u8; n];
    for root in 0..n {
        if color[root] != 0 {
            continue;
        }
        let root = StateID::new(root).ok()?;
        color[root.as_usize()] = 1;
        let mut stack = vec![(root, empty_moves(nfa, root), 0usize)];
        while let Some((sid, next, k)) = stack.pop() {
            if let Some(&t) = next.get(k) {
                stack.push((sid, next, k + 1));
                match color[t.as_usize()] {
                    0 => {
                        color[t.as_usize()] = 1;
                        stack.push((t, empty_moves(nfa, t), 0));
                    }
                    1 => return None,
                    _ => {}
                }
            } else {
                color[sid.as_usize()] = 2;
            }
        }
    }
    Some(Folded {
        nfa,
        moves,
        closure: HashMap::new(),
        budget: CLOSURE_STEPS,
    })
}

impl Folded<'_> {
    fn closure(&mut self, sid: StateID) -> Option<Vec<StateID>> {
        if let Some(c) = self.closure.get(&sid) {
            return Some(c.clone());
        }
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::from([sid]);
        let mut stack = vec![sid];
        while let Some(s) = stack.pop() {
            self.budget = self.budget.checked_sub(1)?;
            if reads_or_matches(self.nfa, s) {
                out.push(s);
                continue;
            }
            for t in empty_moves(self.nfa, s) {
                if seen.insert(t) {
                    stack.push(t);
                }
            }
        }
        out.sort_unstable();
        self.closure.insert(sid, out.clone());
        Some(out)
    }
}

/// A text that the repetition `text` (a whole pattern, after the flag
/// `prefix`) reads in two ways from one state back to it, when the pattern
/// is exponentially ambiguous; `None` when it is not, or when the question
/// is too large to answer ([`PAIRS_MAX`]) or the pattern does not compile.
pub fn exponential_witness(prefix: &str, text: &str) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(&format!("{prefix}(?:{text})"))
        .ok()?;
    let nfa = thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(8 << 20)),
        )
        .build_from_hir(&widen(hir))
        .ok()?;
    let mut f = fold(&nfa)?;
    // The product, from every pair of the start's closure.
    let start = f.closure(nfa.start_anchored())?;
    let mut index: HashMap<(StateID, StateID), usize> = HashMap::new();
    let mut nodes: Vec<(StateID, StateID)> = Vec::new();
    let mut edges: Vec<Vec<(usize, u8)>> = Vec::new();
    let mut queue = VecDeque::new();
    for &a in &start {
        for &b in &start {
            index.insert((a, b), nodes.len());
            nodes.push((a, b));
            edges.push(Vec::new());
            queue.push_back(nodes.len() - 1);
        }
    }
    let mut budget = EDGES_MAX;
    while let Some(i) = queue.pop_front() {
        let (a, b) = nodes[i];
        let mut out = Vec::new();
        let (ma, mb) = (f.moves[a.as_usize()].clone(), f.moves[b.as_usize()].clone());
        for &(s1, e1, n1) in &ma {
            for &(s2, e2, n2) in &mb {
                let (lo, hi) = (s1.max(s2), e1.min(e2));
                if lo > hi {
                    continue;
                }
                let (cx, cy) = (f.closure(n1)?, f.closure(n2)?);
                for &x in &cx {
                    for &y in &cy {
                        let j = match index.get(&(x, y)) {
                            Some(&j) => j,
                            None => {
                                if nodes.len() >= PAIRS_MAX {
                                    return None;
                                }
                                index.insert((x, y), nodes.len());
                                nodes.push((x, y));
                                edges.push(Vec::new());
                                queue.push_back(nodes.len() - 1);
                                nodes.len() - 1
                            }
                        };
                        out.push((j, lo));
                        budget = budget.checked_sub(1)?;
                    }
                }
            }
        }
        edges[i] = out;
    }
    let component = components(&edges);
    // A component holding a pair (p, p) and a pair (q, r), q != r.
    let mut diagonal: HashMap<usize, usize> = HashMap::new();
    for (i, &(a, b)) in nodes.iter().enumerate() {
        if a == b {
            diagonal.entry(component[i]).or_insert(i);
        }
    }
    let (d, o) = nodes.iter().enumerate().find_map(|(i, &(a, b))| {
        (a != b)
            .then(|| diagonal.get(&component[i]).map(|&d| (d, i)))
            .flatten()
    })?;
    let mut w = path(&edges, d, o, &component)?;
    w.extend(path(&edges, o, d, &component)?);
    Some(String::from_utf8_lossy(&w).into_owned())
}

/// The bytes read along a shortest path from `from` to `to` inside their
/// component.
fn path(
    edges: &[Vec<(usize, u8)>],
    from: usize,
    to: usize,
    component: &[usize],
) -> Option<Vec<u8>> {
    let mut back: HashMap<usize, (usize, u8)> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = vec![false; edges.len()];
    seen[from] = true;
    while let Some(i) = queue.pop_front() {
        for &(j, byte) in &edges[i] {
            if seen[j] || component[j] != component[from] {
                continue;
            }
            seen[j] = true;
            back.insert(j, (i, byte));
            if j == to {
                let mut out = Vec::new();
                let mut k = to;
                while k != from {
                    let (p, b) = back[&k];
                    out.push(b);
                    k = p;
                }
                out.reverse();
                return Some(out);
            }
            queue.push_back(j);
        }
    }
    None
}

/// The strongly connected component of every node (Kosaraju's, without
/// recursion).
fn components(edges: &[Vec<(usize, u8)>]) -> Vec<usize> {
    let n = edges.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0)];
        while let Some((i, k)) = stack.pop() {
            if let Some(&(j, _)) = edges[i].get(k) {
                stack.push((i, k + 1));
                if !seen[j] {
                    seen[j] = true;
                    stack.push((j, 0));
                }
            } else {
                order.push(i);
            }
        }
    }
    let mut reverse = vec![Vec::new(); n];
    for (i, out) in edges.iter().enumerate() {
        for &(j, _) in out {
            reverse[j].push(i);
        }
    }
    let mut component = vec![usize::MAX; n];
    for (c, &root) in order.iter().rev().enumerate() {
        if component[root] != usize::MAX {
            continue;
        }
        component[root] = c;
        let mut stack = vec![root];
        while let Some(i) = stack.pop() {
            for &j in &reverse[i] {
                if component[j] == usize::MAX {
                    component[j] = c;
                    stack.push(j);
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_part_read_as_one_repetition_or_two() {
        assert_eq!(
            exponential_witness("", "(?:[0-9a-f][0-9a-f]?)+").as_deref(),
            Some("00")
        );
        assert!(exponential_witness("", "(?:a?a?b)+").is_some());
        // `a|a` is one class once parsed (`regex-syntax` merges and
        // factors alternatives): `overlapping-alternatives` reports it.
        assert_eq!(exponential_witness("", "(?:a|a)+"), None);
        assert!(exponential_witness("", "(?:\\d\\d?\\.?)+").is_some());
        // Wide ranges, each answered within the bounds.
        assert!(exponential_witness("", "(?:.{0,50}x)+").is_some());
        assert!(exponential_witness("(?s)", "(?:[\\w\\d]\\w?)+").is_some());
        assert!(exponential_witness("", "(?:\\p{L}{1,200}\\p{Ll}{0,99})+").is_some());
    }

    #[test]
    fn passes_what_reads_each_text_one_way() {
        for p in [
            "(?:ab|ac)*",
            "(?:[0-9a-f][0-9a-f])+",
            "(?:ab?)+",
            "[^\\[]*(?:\\[[^R][^\\[]*)*",
            "[a-z]+[0-9]+",
            "\\w+",
            "[^\\r\\n]+[^\\r\\n]+",
            "(?:a{1,3}b)+",
            "(?:a{0,50}b)+",
            "(?:[0-9a-f]{32}-)+",
        ] {
            assert_eq!(exponential_witness("", p), None, "{p}");
        }
    }
}
