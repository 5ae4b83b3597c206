//! What makes a pattern slow in a backtracking engine (Python `re`): the
//! lint's `nested-quantifier`, `overlapping-alternatives` and
//! `empty-repetition` findings.
//!
//! Rust `regex` runs every pattern in linear time; Python `re` backtracks,
//! and a pattern that can read one text in many ways makes it try them all on
//! a text that almost matches (exponential in the text's length for
//! `(?:[^\[]+|…)*`). The analysis walks the syntax tree (`regex-syntax`'s
//! AST, for the spans) and, under every unbounded repetition, asks the
//! question that makes the readings multiply, with two DFAs
//! (`regex-automata`):
//!
//! - a repetition inside it that can end an iteration (`[^\[]+` in
//!   `(?:[^\[]+|\[…)*`): can the inner one go on reading where the next
//!   iteration could start? (some text has a prefix matched by the inner
//!   repetition's body and a prefix matched by the outer one's);
//! - an alternation inside it: can two alternatives start the same text
//!   (one matches a prefix of what the other reads, `a|ab`)?
//! - the repeated part can match the empty text.
//!
//! Then, for an unbounded repetition none of those questions flagged, the
//! complete one for exponential ambiguity (`ambiguous-repetition`): its
//! Thompson NFA (`regex-automata`) read twice at once, a pair of states
//! that both return to one state by one text along different paths
//! (`(?:[0-9a-f][0-9a-f]?)+`: `aa` is one repetition or two).
//!
//! A yes is a finding; the patterns the generator writes itself
//! ([`crate::free_text`]) answer no everywhere.

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::primitives::StateID;
use regex_automata::MatchKind;
use regex_automata::{Anchored, Input};
use regex_syntax::ast::{self, Ast, RepetitionKind, RepetitionRange};

use crate::model::Flag;

/// One way a pattern may take more than linear time in Python `re`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The finding's code: `nested-quantifier`, `overlapping-alternatives`,
    /// `empty-repetition`, `overlapping-quantifiers` or
    /// `ambiguous-repetition`.
    pub code: &'static str,
    /// Byte offset of the offending sub-pattern in the pattern.
    pub offset: usize,
    /// The offending sub-pattern (shortened when long).
    pub sub: String,
    /// What is wrong, with the sub-patterns involved.
    pub message: String,
}

/// Longest sub-pattern text quoted in a message.
const QUOTE_MAX: usize = 48;

fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_MAX {
        format!("`{text}`")
    } else {
        format!("`{}…`", text.chars().take(QUOTE_MAX).collect::<String>())
    }
}

/// Every finding in `pattern` (in the common dialect, with `flags`), in
/// pattern order; none when the pattern does not parse (other checks report
/// that).
pub fn analyze(pattern: &str, flags: &[Flag]) -> Vec<Finding> {
    let Ok(tree) = ast::parse::Parser::new().parse(pattern) else {
        return Vec::new();
    };
    let mut a = Analyzer {
        pattern,
        prefix: crate::pattern::flag_prefix(flags),
        out: Vec::new(),
    };
    a.walk(&tree);
    a.out.sort_by_key(|f| f.offset);
    a.out.dedup();
    a.out
}

struct Analyzer<'p> {
    pattern: &'p str,
    prefix: String,
    out: Vec<Finding>,
}

fn unbounded(r: &ast::Repetition) -> bool {
    match &r.op.kind {
        RepetitionKind::ZeroOrMore | RepetitionKind::OneOrMore => true,
        RepetitionKind::ZeroOrOne => false,
        RepetitionKind::Range(RepetitionRange::AtLeast(_)) => true,
        RepetitionKind::Range(RepetitionRange::Bounded(_, n)) => *n > 1,
        RepetitionKind::Range(RepetitionRange::Exactly(n)) => *n > 1,
    }
}

/// The unbounded repetitions that can end a match of `node`.
fn tails<'a>(node: &'a Ast, out: &mut Vec<&'a ast::Repetition>) {
    match node {
        Ast::Repetition(r) => {
            if unbounded(r) {
                out.push(r);
            }
            tails(&r.ast, out);
        }
        Ast::Group(g) => tails(&g.ast, out),
        Ast::Alternation(x) => x.asts.iter().for_each(|s| tails(s, out)),
        Ast::Concat(x) => {
            for s in x.asts.iter().rev() {
                tails(s, out);
                if !nullable(s) {
                    break;
                }
            }
        }
        _ => {}
    }
}

fn nullable(node: &Ast) -> bool {
    match node {
        Ast::Empty(_) | Ast::Flags(_) | Ast::Assertion(_) => true,
        Ast::Repetition(r) => {
            matches!(
                r.op.kind,
                RepetitionKind::ZeroOrMore
                    | RepetitionKind::ZeroOrOne
                    | RepetitionKind::Range(
                        RepetitionRange::AtLeast(0)
                            | RepetitionRange::Bounded(0, _)
                            | RepetitionRange::Exactly(0)
                    )
            ) || nullable(&r.ast)
        }
        Ast::Group(g) => nullable(&g.ast),
        Ast::Alternation(x) => x.asts.iter().any(nullable),
        Ast::Concat(x) => x.asts.iter().all(nullable),
        _ => false,
    }
}

/// The unbounded repetitions that can start a match of `node`.
fn heads<'a>(node: &'a Ast, out: &mut Vec<&'a ast::Repetition>) {
    match node {
        Ast::Repetition(r) => {
            if unbounded(r) {
                out.push(r);
            }
            heads(&r.ast, out);
        }
        Ast::Group(g) => heads(&g.ast, out),
        Ast::Alternation(x) => x.asts.iter().for_each(|s| heads(s, out)),
        Ast::Concat(x) => {
            for s in &x.asts {
                heads(s, out);
                if !nullable(s) {
                    break;
                }
            }
        }
        _ => {}
    }
}

/// Alternations anywhere inside `node`.
fn alternations<'a>(node: &'a Ast, out: &mut Vec<&'a ast::Alternation>) {
    match node {
        Ast::Repetition(r) => alternations(&r.ast, out),
        Ast::Group(g) => alternations(&g.ast, out),
        Ast::Alternation(x) => {
            out.push(x);
            x.asts.iter().for_each(|s| alternations(s, out));
        }
        Ast::Concat(x) => x.asts.iter().for_each(|s| alternations(s, out)),
        _ => {}
    }
}

type Dfa = dense::DFA<Vec<u32>>;

/// Pairs of states the product search visits at most; past it, no finding.
const PRODUCT_MAX: usize = 200_000;

impl Analyzer<'_> {
    fn text(&self, node: &Ast) -> &str {
        &self.pattern[node.span().start.offset..node.span().end.offset]
    }

    fn span_text(&self, span: &ast::Span) -> &str {
        &self.pattern[span.start.offset..span.end.offset]
    }

    /// An anchored DFA of `text` (with the pattern's flags) that reports
    /// every match, not only the leftmost-first one: its language is the
    /// whole set of texts `text` matches.
    fn language(&self, text: &str) -> Option<Dfa> {
        let config = dense::Config::new()
            .start_kind(StartKind::Anchored)
            .match_kind(MatchKind::All)
            .dfa_size_limit(Some(8 << 20));
        dense::Builder::new()
            .configure(config)
            .syntax(regex_automata::util::syntax::Config::new().utf8(true))
            .build(&format!("{}(?:{text})", self.prefix))
            .ok()
    }

    /// True when one non-empty text is matched, whole, by every DFA.
    fn one_text_for_all(dfas: &[Dfa]) -> bool {
        let start: Option<Vec<StateID>> = dfas
            .iter()
            .map(|d| {
                d.start_state_forward(&Input::new("").anchored(Anchored::Yes))
                    .ok()
            })
            .collect();
        let Some(start) = start else {
            return false;
        };
        let mut seen = std::collections::HashSet::new();
        let mut queue = vec![(start, false)];
        while let Some((states, read)) = queue.pop() {
            if read
                && dfas
                    .iter()
                    .zip(&states)
                    .all(|(d, &s)| d.is_match_state(d.next_eoi_state(s)))
            {
                return true;
            }
            if !seen.insert(states.clone()) {
                continue;
            }
            if seen.len() > PRODUCT_MAX {
                return false;
            }
            for byte in 0..=255u8 {
                let next: Vec<StateID> = dfas
                    .iter()
                    .zip(&states)
                    .map(|(d, &s)| d.next_state(s, byte))
                    .collect();
                if dfas
                    .iter()
                    .zip(&next)
                    .any(|(d, &s)| d.is_dead_state(s) || d.is_quit_state(s))
                {
                    continue;
                }
                queue.push((next, true));
            }
        }
        false
    }

    /// Two unbounded repetitions of one concatenation, `first` before
    /// `second` with `middle` (the text between them) in between, that can
    /// share a run: some text `w` is read by `first`'s part repeated, by
    /// `first`'s part repeated then `middle` then `second`'s part repeated,
    /// and by `second`'s part repeated. A text that almost matches then
    /// holds runs of `w` that a backtracking engine splits between the two
    /// in every way (quadratic for two, the power of their count for more
    /// in a row).
    fn share_a_run(&self, first: &ast::Repetition, middle: &str, second: &ast::Repetition) -> bool {
        let (x, y) = (
            self.span_text(first.ast.span()),
            self.span_text(second.ast.span()),
        );
        let texts = [
            format!("(?:{x})+"),
            format!("(?:{x})*(?:{middle})(?:{y})*"),
            format!("(?:{y})+"),
        ];
        let dfas: Option<Vec<Dfa>> = texts.iter().map(|t| self.language(t)).collect();
        dfas.is_some_and(|d| Self::one_text_for_all(&d))
    }

    /// `overlapping-quantifiers`: in the concatenation `items`, an unbounded
    /// repetition that can end an item and one that can start a later item
    /// that can share a run ([`Self::share_a_run`]); one finding per first
    /// repetition, at it.
    fn concatenation(&mut self, items: &[Ast]) {
        for (i, x) in items.iter().enumerate() {
            let mut ends = Vec::new();
            tails(x, &mut ends);
            'first: for t in ends {
                for (j, y) in items.iter().enumerate().skip(i + 1) {
                    let middle = if j == i + 1 {
                        ""
                    } else {
                        &self.pattern
                            [items[i + 1].span().start.offset..items[j - 1].span().end.offset]
                    };
                    let mut starts = Vec::new();
                    heads(y, &mut starts);
                    for h in starts {
                        if self.share_a_run(t, middle, h) {
                            let first = self.span_text(&t.span).to_owned();
                            let second = self.span_text(&h.span).to_owned();
                            let between = if middle.is_empty() {
                                "right after it".to_owned()
                            } else {
                                format!("after {}", quote(middle))
                            };
                            let m = format!(
                                "overlapping quantifiers: {} and {} {between} can read the same run of text, so on a text that almost matches a backtracking engine (Python `re`) tries every split of each such run between them (quadratic for two, a higher power for more in a row): make the character that ends one unable to start the other, or merge them",
                                quote(&first),
                                quote(&second),
                            );
                            self.out.push(Finding {
                                code: "overlapping-quantifiers",
                                offset: t.span.start.offset,
                                sub: quote(&first),
                                message: m,
                            });
                            continue 'first;
                        }
                    }
                }
            }
        }
    }

    fn dfa(&self, node: &Ast) -> Option<Dfa> {
        let config = dense::Config::new()
            .start_kind(StartKind::Anchored)
            .dfa_size_limit(Some(8 << 20));
        let text = format!("{}(?:{})", self.prefix, self.text(node));
        dense::Builder::new()
            .configure(config)
            .syntax(regex_automata::util::syntax::Config::new().utf8(true))
            .build(&text)
            .ok()
    }

    /// True when some text has a prefix that `x` matches and a prefix that
    /// `y` matches (so a backtracking engine can start both on it).
    fn share_a_start(&self, x: &Ast, y: &Ast) -> bool {
        let (Some(dx), Some(dy)) = (self.dfa(x), self.dfa(y)) else {
            return false;
        };
        let start = |d: &Dfa| {
            d.start_state_forward(&Input::new("").anchored(Anchored::Yes))
                .ok()
        };
        let (Some(sx), Some(sy)) = (start(&dx), start(&dy)) else {
            return false;
        };
        let matched =
            |d: &Dfa, s: StateID| d.is_match_state(s) || d.is_match_state(d.next_eoi_state(s));
        let dead = |d: &Dfa, s: StateID| d.is_dead_state(s) || d.is_quit_state(s);
        let mut seen = std::collections::HashSet::new();
        let mut queue = vec![(sx, sy, false, false)];
        while let Some((a, b, ma, mb)) = queue.pop() {
            let (ma, mb) = (ma || matched(&dx, a), mb || matched(&dy, b));
            if ma && mb {
                return true;
            }
            if !seen.insert((a, b, ma, mb)) {
                continue;
            }
            if seen.len() > PRODUCT_MAX {
                return false;
            }
            for byte in 0..=255u8 {
                let na = if ma { a } else { dx.next_state(a, byte) };
                let nb = if mb { b } else { dy.next_state(b, byte) };
                // A side that has matched stays matched; one that can no
                // longer match ends the path. A match shows one byte late in
                // these DFAs, so a dead state reached right after a match
                // still counts that match.
                let ma2 = ma || dx.is_match_state(na);
                let mb2 = mb || dy.is_match_state(nb);
                if (!ma2 && dead(&dx, na)) || (!mb2 && dead(&dy, nb)) {
                    continue;
                }
                queue.push((na, nb, ma2, mb2));
            }
        }
        false
    }

    fn push(&mut self, code: &'static str, node: &Ast, message: String) {
        let sub = quote(self.text(node));
        self.out.push(Finding {
            code,
            offset: node.span().start.offset,
            sub,
            message,
        });
    }

    fn walk(&mut self, node: &Ast) {
        match node {
            Ast::Repetition(r) => {
                let before = self.out.len();
                if unbounded(r) {
                    self.repetition(node, r);
                }
                self.walk(&r.ast);
                // The complete question, for what the targeted ones passed:
                // one finding per repetition, at the innermost one.
                if unbounded(r) && self.out.len() == before {
                    if let Some(w) =
                        crate::ambiguity::exponential_witness(&self.prefix, self.text(node))
                    {
                        let m = format!(
                            "ambiguous repetition: {} reads {} in more than one way (its repetitions split it differently, or its part does), so on a text that almost matches a backtracking engine (Python `re`) tries every reading of each run of it, exponentially many: make the repeated part read any text in one way only",
                            quote(self.text(node)),
                            quote(&w.escape_debug().to_string()),
                        );
                        self.push("ambiguous-repetition", node, m);
                    }
                }
            }
            Ast::Group(g) => self.walk(&g.ast),
            Ast::Alternation(x) => x.asts.iter().for_each(|s| self.walk(s)),
            Ast::Concat(x) => {
                self.concatenation(&x.asts);
                x.asts.iter().for_each(|s| self.walk(s));
            }
            _ => {}
        }
    }

    fn repetition(&mut self, node: &Ast, r: &ast::Repetition) {
        let body = &*r.ast;
        if matches!(body, Ast::Assertion(_) | Ast::Empty(_)) {
            // Nothing to repeat: the dialect checks report it (Python rejects it).
            return;
        }
        if nullable(body) {
            let m = format!("{} repeats a part that can match the empty text: write the part so that it reads at least one character", quote(self.text(node)));
            self.push("empty-repetition", node, m);
            return;
        }
        let mut inner = Vec::new();
        tails(body, &mut inner);
        for s in inner {
            if self.share_a_start(&s.ast, body) {
                let m = format!(
                    "nested quantifier: {} inside {} can read on where the next repetition could start, so a backtracking engine (Python `re`) tries every split of such a run: write each run so that the character after it ends it (an unrolled loop)",
                    quote(&self.pattern[s.span.start.offset..s.span.end.offset]),
                    quote(self.text(node)),
                );
                self.push("nested-quantifier", node, m);
            }
        }
        let mut alts = Vec::new();
        alternations(body, &mut alts);
        for alt in alts {
            for (i, x) in alt.asts.iter().enumerate() {
                for y in &alt.asts[i + 1..] {
                    if self.share_a_start(x, y) {
                        let m = format!(
                            "overlapping alternatives under the repetition {}: {} and {} can start the same text, so a backtracking engine (Python `re`) tries both at every repetition: make the alternatives start differently",
                            quote(self.text(node)),
                            quote(self.text(x)),
                            quote(self.text(y)),
                        );
                        self.push("overlapping-alternatives", node, m);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(p: &str) -> Vec<&'static str> {
        analyze(p, &[Flag::Dotall]).iter().map(|f| f.code).collect()
    }

    #[test]
    fn finds_what_makes_python_backtrack() {
        assert_eq!(codes(r"(?:a+)*b"), vec!["nested-quantifier"]);
        assert_eq!(
            codes(r"(?P<a>[^\r\n]+)(?P<b>[^\r\n]+)(?P<c>[^\r\n]+)(?P<d>[^\r\n]+)"),
            vec!["overlapping-quantifiers"; 3]
        );
        assert_eq!(codes(r"\w+\d+"), vec!["overlapping-quantifiers"]);
        assert_eq!(codes(r"[^\n]+:[^\n]+"), vec!["overlapping-quantifiers"]);
        assert_eq!(codes(r"(?:[^\[]+|\[x)*"), vec!["nested-quantifier"]);
        assert_eq!(codes(r"(?:a|ab)*c"), vec!["overlapping-alternatives"]);
        assert_eq!(codes(r"(?:a?)*"), vec!["empty-repetition"]);
        assert_eq!(
            codes(r"x(?:[0-9a-f][0-9a-f]?)+!"),
            vec!["ambiguous-repetition"]
        );
        assert_eq!(codes(r"(?:a?a?b)+"), vec!["ambiguous-repetition"]);
    }

    #[test]
    fn hostile_patterns_are_answered() {
        // Large automata and products: each question ends (within its
        // bounds) with an answer or none, never a hang.
        for p in [
            r"(?:\p{L}|\p{N}){1,1000}",
            r"(?:(?:a|b|c|d|e){1,3}){1,3}x",
            r"(?:.{1,3}.{1,3}.{1,3})+!",
            r"(?:[\s\S]?){50}",
            r"(?:\w{0,100}\W{0,100})+x",
            r"(?:(?:\w\w?){1,5}\.)+",
            r"(?:[^\n]{2,900}\n)+",
        ] {
            let _ = analyze(p, &[Flag::Dotall]);
        }
        assert_eq!(
            codes(r"(?:(?:\w\w?){1,5}\.)+"),
            vec!["ambiguous-repetition"]
        );
    }

    #[test]
    fn an_ambiguous_repetition_names_itself_and_a_text_read_two_ways() {
        let f = &analyze(r"x(?:[0-9a-f][0-9a-f]?)+!", &[])[0];
        assert_eq!(
            (f.code, f.offset, f.sub.as_str()),
            ("ambiguous-repetition", 1, "`(?:[0-9a-f][0-9a-f]?)+`")
        );
        assert_eq!(f.message, "ambiguous repetition: `(?:[0-9a-f][0-9a-f]?)+` reads `00` in more than one way (its repetitions split it differently, or its part does), so on a text that almost matches a backtracking engine (Python `re`) tries every reading of each run of it, exponentially many: make the repeated part read any text in one way only");
    }

    #[test]
    fn passes_unrolled_loops_and_disjoint_alternatives() {
        assert!(codes(r"[^\[]*(?:\[[^R][^\[]*)*").is_empty());
        assert!(codes(r"[a-z]+[0-9]+").is_empty());
        assert!(codes(r"\[(?P<id>[^\]]+)\] (?P<body>[^\n]+)").is_empty());
        assert!(codes(r"[^:]+:[^\n]+").is_empty());
        assert!(codes(r"(?:ab|ac)*").is_empty());
        assert!(codes(r"[^ :]+(?::[^ :]+)*(?:[ ]+[^ :]+(?::[^ :]+)*)*").is_empty());
        let stops: Vec<String> = ["[RESULT ", "[RESULT\t"].map(String::from).to_vec();
        assert_eq!(
            analyze(&crate::free_text::expand(&stops).unwrap(), &[]),
            vec![]
        );
        assert_eq!(
            analyze(&crate::free_text::expand(&[]).unwrap(), &[]),
            vec![]
        );
    }

    #[test]
    fn a_finding_quotes_its_sub_pattern() {
        let f = &analyze(r"x(?:a+)*", &[])[0];
        assert_eq!((f.offset, f.sub.as_str()), (1, "`(?:a+)*`"));
        assert!(
            f.message
                .starts_with("nested quantifier: `a+` inside `(?:a+)*`"),
            "{}",
            f.message
        );
    }
}
