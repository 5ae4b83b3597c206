//! The Markdown context of a text: where it shows ordinary text, and which
//! fenced code blocks are directive fences.
//!
//! The context is the agreement of independent CommonMark readers that
//! report source positions (P170): `Context::of` = normalize
//! (`normalize.rs`) → every reader in `READERS` (`reader.rs`, one file a
//! reader) → their meet (`meet.rs`). A byte is live only where every reader
//! shows it as text of the same block; a directive fence counts only where
//! every reader reads the same fenced block outside every container. No rule
//! here re-derives block structure from the raw bytes: where readers differ,
//! the disagreement removes the text, and what some reader shows as text and
//! the meet does not is kept for the scanner to report (P172).
//!
//! Blockquotes (quotes of earlier messages) and image descriptions are quoted
//! by decision, whatever the readers say: no reader shows text there.
//!
//! A text whose rendering is trivial (`trivial.rs`) skips the readers: its
//! context is read from its lines, and is the readers' own (P174).
//!
//! All offsets are **byte** offsets into the text given to `Context::of`,
//! half-open.

mod meet;
mod normalize;
mod reader;
mod trivial;

use std::ops::Range;

pub(crate) use meet::Unshared;
pub(crate) use normalize::BOM;
pub(crate) use reader::{fold_label, Breaker, Fence, Labels, Records, Showing, TextRun};
pub(crate) use trivial::line_is_trivial;

use reader::{Ask, Reader, Reading};

/// Declares each reader's module (`<module>.rs`, beside this file) and
/// lists its [`Reader`] in [`READERS`], in the order given.
macro_rules! readers {
    ($($module:ident::$reader:ident),+ $(,)?) => {
        $(mod $module;)+
        /// The readers whose agreement is the context (P170), in the order
        /// their readings are kept and named.
        static READERS: &[&dyn Reader] = &[$(&$module::$reader),+];
    };
}

// The readers. Adding a reader is its file and its entry here, at the end
// (P260): everything else that names readers reads this list.
readers! {
    pulldown::Pulldown,
    comrak::Comrak,
}

/// The Markdown context of a text (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Context {
    /// The live text runs, in order, none overlapping.
    pub runs: Vec<TextRun>,
    /// The directive fences every reader reads alike, in order.
    pub fences: Vec<Fence>,
    /// The directive fences that some reader reads otherwise, in order.
    pub disputed: Vec<Fence>,
    /// The links whose text starts with their `[`, in order: a candidate
    /// there is shown as a link, without its brackets.
    pub links: Vec<Range<usize>>,
    /// What some reader shows as text and the meet does not, in order.
    pub unshared: Vec<Unshared>,
    /// Each reader's reading, in the order of [`READERS`] (none when the
    /// readers were not needed).
    readings: Vec<Reading>,
    /// Every top-level block any reader read (from each reading's
    /// `blocks`), or the paragraphs of a trivial text; `None` when no reader
    /// ran and the text was not proven trivial.
    pub blocks: Option<Vec<Range<usize>>>,
}

/// Whether anything in `text` could be a candidate: a `[` (every bracket
/// form and sentence head, and `Reply:` before one), a fence run of three
/// backticks or tildes, or `curl`. Where nothing can be, no reader is run.
pub(crate) fn may_hold_candidates(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr(b'[', b).is_some() || holds_unbracketed_marker(b)
}

/// Whether `b` holds a fence run of three backticks or tildes, or `curl`:
/// what may start a candidate without a `[`.
pub(crate) fn holds_unbracketed_marker(b: &[u8]) -> bool {
    MARKERS[..3].iter().any(|f| f.find(b).is_some())
}

/// Whether `b` may hold a link reference definition: its label's `]` is
/// followed by its `:` directly, wherever the definition stands.
pub(crate) fn may_define(b: &[u8]) -> bool {
    MARKERS[3].find(b).is_some()
}

/// The substrings [`may_hold_candidates`] and [`may_define`] look for, each
/// a finder built once (building one costs about as much as searching a
/// short text).
static MARKERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 4]> =
    std::sync::LazyLock::new(|| {
        [&b"```"[..], b"~~~", b"curl", b"]:"].map(memchr::memmem::Finder::new)
    });

impl Context {
    /// The context of `text`: empty when nothing in it could be a candidate
    /// ([`may_hold_candidates`]), read from its lines when its rendering is
    /// trivial, else the meet of the readers.
    ///
    /// `fence_words` are the info-string words of directive fences
    /// (`schema/directives.json`, `/fences`).
    pub(crate) fn of(text: &str, fence_words: &[&str]) -> Context {
        if !may_hold_candidates(text) {
            return Context::default();
        }
        if let Some((runs, fences)) = trivial::runs_and_fences(text, fence_words) {
            return Context {
                runs,
                fences,
                ..Context::default()
            };
        }
        Self::read(text, fence_words)
    }

    /// The context of `text` forced trivial, whatever its Markdown: each
    /// paragraph one text run, no fence, no link (empty when nothing in it
    /// could be a candidate). Not the text's context: the bench scans with
    /// it to measure the candidate work apart from the readers.
    pub(crate) fn forced_trivial(text: &str) -> Context {
        if !may_hold_candidates(text) {
            return Context::default();
        }
        Context {
            runs: trivial::paragraphs(text),
            ..Context::default()
        }
    }

    /// The context of `text` as the readers give it, never the trivial
    /// path's (the two are compared in tests).
    pub(crate) fn read(text: &str, fence_words: &[&str]) -> Context {
        let n = normalize::normalize(text);
        let ask = Ask {
            fence_words,
            carried: &Labels::new(),
            records: Records::ALL,
        };
        let readings: Vec<Reading> = READERS
            .iter()
            .map(|r| r.read(&n.text, n.from, ask))
            .collect();
        Self::of_readings(&n.text, readings)
    }

    /// The meet of `readings` of the normalized text `text`.
    fn of_readings(text: &str, readings: Vec<Reading>) -> Context {
        let m = meet::meet(text, &readings);
        let mut blocks: Vec<Range<usize>> = readings
            .iter()
            .flat_map(|r| r.blocks.iter().cloned())
            .collect();
        blocks.sort_by_key(|b| b.start);
        Context {
            runs: m.runs,
            fences: m.fences,
            disputed: m.disputed,
            links: m.links,
            unshared: m.unshared,
            readings,
            blocks: Some(blocks),
        }
    }

    /// The context of the section `text[from..to]` of a stream, read as a
    /// text of its own (a byte order mark counts only at the stream's
    /// start), with the labels `carried` of the link reference definitions
    /// of earlier sections, recording what `records` asks for; offsets are
    /// into `text`. As [`Context::of`]:
    /// empty when nothing could be a candidate (and `blocks` then `None`),
    /// read from its lines when trivial, else the meet of the readers.
    pub(crate) fn section(
        text: &str,
        from: usize,
        to: usize,
        fence_words: &[&str],
        carried: &Labels,
        records: Records,
    ) -> Context {
        let part = &text[from..to];
        if !may_hold_candidates(part) {
            return Context::default();
        }
        // The plain-text proof reads a text alone: a bracket pair in it is a
        // reference only to a definition in it, and it holds none. With the
        // labels of earlier sections carried, a pair may be a reference to
        // one of them (a link), which only the readers know.
        let carried_may_apply =
            !carried.is_empty() && memchr::memchr(b']', part.as_bytes()).is_some();
        if (from > 0 && part.starts_with(BOM)) || carried_may_apply {
            // Not the text's start: no reader skips it (the trivial check,
            // which expects a skipped mark, is not asked). Or labels carried.
        } else if let Some((runs, fences, code)) = trivial::read_fences(part, fence_words) {
            // Every fenced code block, a directive fence or not, is a block
            // a stream must not cut.
            let mut blocks: Vec<Range<usize>> =
                runs.iter().map(|r| r.span.clone()).chain(code).collect();
            blocks.sort_by_key(|b| b.start);
            return Context {
                runs,
                fences,
                blocks: Some(blocks),
                ..Context::default()
            }
            .shifted(from);
        }
        let n = if from == 0 {
            normalize::normalize(part)
        } else {
            normalize::normalize_section(part)
        };
        let ask = Ask {
            fence_words,
            carried,
            records,
        };
        let readings: Vec<Reading> = READERS
            .iter()
            .map(|r| r.read(&n.text, n.from, ask))
            .collect();
        Self::of_readings(&n.text, readings).shifted(from)
    }

    /// The link reference definitions the readers read, each label as the
    /// reader gives it, with their bytes.
    pub(crate) fn definitions(&self) -> impl Iterator<Item = &(String, Range<usize>)> {
        self.readings.iter().flat_map(|r| r.definitions.iter())
    }

    /// Where a reader read a definition whose label it does not report
    /// ([`Reading::unlabelled`]) and no reader reported one: a definition a
    /// stream cannot carry by its label (P366).
    /// In order.
    pub(crate) fn uncarried(&self) -> Vec<usize> {
        let mut marks: Vec<usize> = self
            .readings
            .iter()
            .flat_map(|r| r.unlabelled.iter().copied())
            .collect();
        if marks.is_empty() {
            return marks;
        }
        marks.sort_unstable();
        let spans = self.definitions().map(|(_, d)| d.clone()).collect();
        reader::outside(marks, spans)
    }

    /// The link and image regions any reader reads, in no particular order:
    /// a stream reports a committed item one of them comes to cover (P267).
    pub(crate) fn linked(&self) -> impl Iterator<Item = &Range<usize>> {
        self.readings.iter().flat_map(|r| {
            r.regions
                .iter()
                .filter(|g| matches!(g.shown, reader::Shown::Link | reader::Shown::Image))
                .map(|g| &g.span)
        })
    }

    /// Whether the readers read it (not the trivial path, not empty).
    pub(crate) fn by_readers(&self) -> bool {
        !self.readings.is_empty()
    }

    /// The references the readers read whose label nothing defines, by
    /// [`reader::fold_label`], with their bytes.
    pub(crate) fn broken(&self) -> impl Iterator<Item = &(String, Range<usize>)> {
        self.readings.iter().flat_map(|r| r.broken.iter())
    }

    /// This context with every offset moved on by `by`.
    fn shifted(mut self, by: usize) -> Context {
        if by == 0 {
            return self;
        }
        let range = |r: &mut Range<usize>| *r = r.start + by..r.end.saturating_add(by);
        let run = |r: &mut TextRun| {
            range(&mut r.span);
            r.block_start += by;
            r.block_end += by;
        };
        let fence = |f: &mut Fence| {
            range(&mut f.span);
            range(&mut f.word);
            range(&mut f.body);
        };
        self.runs.iter_mut().for_each(run);
        self.fences.iter_mut().for_each(fence);
        self.disputed.iter_mut().for_each(fence);
        self.links.iter_mut().for_each(range);
        for u in &mut self.unshared {
            run(&mut u.run);
            range(&mut u.span);
        }
        for r in &mut self.readings {
            r.runs.iter_mut().for_each(run);
            r.fences.iter_mut().for_each(fence);
            r.links.iter_mut().for_each(range);
            r.regions.iter_mut().for_each(|g| range(&mut g.span));
            r.blocks.iter_mut().for_each(range);
            r.definitions.iter_mut().for_each(|d| range(&mut d.1));
            r.broken.iter_mut().for_each(|d| range(&mut d.1));
            r.unlabelled.iter_mut().for_each(|p| *p += by);
        }
        if let Some(blocks) = &mut self.blocks {
            blocks.iter_mut().for_each(range);
        }
        self
    }

    /// What each reader shows at byte `at`, in the order of [`READERS`]
    /// (none when the readers were not needed).
    pub(crate) fn showing_at(&self, at: usize) -> Vec<Showing> {
        self.readings.iter().map(|r| r.showing_at(at)).collect()
    }

    /// The name of reader `k` (an index into the readings).
    pub(crate) fn reader_name(k: usize) -> &'static str {
        READERS.get(k).map_or("a reader", |r| r.name())
    }
}

/// The readers' context of `text` and the one [`Context::of`] gives, as
/// comparable values: (runs, fences, links). Equal for every
/// text (P174); tests compare them.
#[doc(hidden)]
pub fn both_paths(text: &str, fence_words: &[&str]) -> [String; 2] {
    let show = |c: &Context| format!("{:?} {:?} {:?}", c.runs, c.fences, c.links);
    let quick = Context::of(text, fence_words);
    let read = if may_hold_candidates(text) {
        Context::read(text, fence_words)
    } else {
        Context::default()
    };
    [show(&read), show(&quick)]
}

/// Whether [`Context::of`] takes the trivial path on `text` (tests count
/// how often the comparison of [`both_paths`] covers it).
#[doc(hidden)]
pub fn is_trivial(text: &str) -> bool {
    may_hold_candidates(text) && trivial::runs(text).is_some()
}

/// The readers' names, in the order of their list (the bench names its
/// reader rows with them, P260).
#[doc(hidden)]
pub fn reader_names() -> Vec<&'static str> {
    READERS.iter().map(|r| r.name()).collect()
}

/// Reader `k`'s bare parse of `text` (see `Reader::parse`; 0 for no such
/// reader): what the bench times for each reader.
#[doc(hidden)]
pub fn bare_parse(k: usize, text: &str) -> usize {
    READERS.get(k).map_or(0, |r| r.parse(text))
}

/// Whether [`Context::of`] takes the trivial path on `text` with a
/// fenced code block in it (P272; tests count how often the comparison of
/// [`both_paths`] covers fences).
#[doc(hidden)]
pub fn is_trivial_with_fence(text: &str, fence_words: &[&str]) -> bool {
    may_hold_candidates(text)
        && trivial::runs(text).is_none()
        && trivial::runs_and_fences(text, fence_words).is_some()
}

/// Each reader's runs and the meet's, for debugging a disagreement.
#[doc(hidden)]
pub fn describe(text: &str) -> String {
    let ctx = Context::read(text, &[]);
    let mut out = String::new();
    for (r, reading) in READERS.iter().zip(&ctx.readings) {
        out.push_str(&format!("{}: {:?}\n", r.name(), reading.runs));
    }
    out.push_str(&format!("meet: {:?}\n", ctx.runs));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reading that records everything, with `carried` and no directive
    /// fence.
    fn everything(carried: &Labels) -> Ask<'_> {
        Ask {
            fence_words: &[],
            carried,
            records: Records::ALL,
        }
    }

    fn runs(text: &str) -> Vec<&str> {
        Context::read(text, &["tool"])
            .runs
            .iter()
            .map(|r| &text[r.span.clone()])
            .collect()
    }

    #[test]
    fn runs_are_what_every_reader_shows_as_written() {
        assert_eq!(runs("a [b] c"), ["a [b] c"]);
        assert_eq!(runs("a `[b]` c"), ["a ", " c"]);
        assert_eq!(runs("x [a\n  b] y\n\nz["), ["x [a\n  b] y", "z["]);
        assert_eq!(runs("\\[a \\\"b\\\\"), ["[a \\\"b\\\\"]);
        assert_eq!(runs("[a &amp; b"), ["[a ", " b"]);
        assert_eq!(runs("> [a]\n\n    [b]\n\n[c] *d*"), ["[c] ", "d"]);
        assert_eq!(runs("\u{feff}    [a]\n"), Vec::<&str>::new());
    }

    #[test]
    fn a_table_then_an_html_line_is_not_live() {
        // cmark-gfm (comrak) ends the table at the HTML line, which opens an
        // HTML block; pulldown-cmark reads on: the disagreement removes it.
        let ctx = Context::read("| a | b |\n| --- | :-: |\n<x-y>\n[TOOL t.c8 {}]", &["tool"]);
        assert_eq!(ctx.runs.len(), 2);
        let comrak = READERS.iter().position(|r| r.name() == "comrak");
        assert_eq!(
            comrak.map(|k| ctx.showing_at(30)[k].clone()),
            Some(Showing::Region(reader::Shown::HtmlBlock))
        );
    }

    /// What a reading records (P364) changes nothing it shows: each
    /// combination of records gives the readings' runs, fences and links
    /// of a reading that records both, and leaves empty what it does not
    /// record.
    #[test]
    fn records_change_only_what_is_recorded() {
        let text = "[x]: /u\n[TOOL a {}] and [x] *y* [z] `[w]`";
        let carried: Labels = ["z"].into_iter().collect();
        let read = |records| Context::section(text, 0, text.len(), &["tool"], &carried, records);
        let all = read(Records::ALL);
        let shown =
            |c: &Context| format!("{:?} {:?} {:?} {:?}", c.runs, c.fences, c.links, c.disputed);
        let labels = |v: Vec<&(String, Range<usize>)>| -> Vec<String> {
            v.into_iter().map(|(l, _)| l.clone()).collect()
        };
        assert_eq!(labels(all.definitions().collect()), ["x"]);
        assert_eq!(labels(all.broken().collect()), ["tool a {}"]);
        // The carried label `z` resolves: a link, not a broken reference.
        assert!(all.linked().any(|l| &text[l.clone()] == "[z]"));
        for definitions in [false, true] {
            for broken in [false, true] {
                let ctx = read(Records {
                    definitions,
                    broken,
                });
                assert_eq!(shown(&ctx), shown(&all));
                assert_eq!(ctx.definitions().next().is_some(), definitions);
                assert_eq!(ctx.broken().next().is_some(), broken);
                assert!(ctx.linked().any(|l| &text[l.clone()] == "[z]"));
            }
        }
    }

    /// A label carried from an earlier section resolves in each reader
    /// exactly where that reader links the reference in the whole text
    /// (P365), over labels that differ in case folding (`unicase` folds
    /// characters `caseless` does not), in Unicode whitespace and in the
    /// whitespace at their ends. Only a definition whose label ends in a
    /// vertical tab or a form feed may resolve more (the broader match fails
    /// closed).
    #[test]
    fn carried_labels_resolve_as_each_reader_resolves_them() {
        let labels = [
            "TOOL a {}",
            "tool A {}",
            "TOOL a {}\u{a0}",
            "TOOL\u{a0}a {}",
            "TOOL\u{2003}a {}",
            "\u{3000}TOOL a {}",
            "TOOL a {}\x0b",
            "\x0cTOOL a {}",
            "TOOL a {\"k\": \"ß\"}",
            "TOOL a {\"k\": \"SS\"}",
            "TOOL a {\"k\": \"ẞ\"}",
            "\u{212a}",
            "k",
            "\u{a7ce}",
            "\u{a7cf}",
            "ǅ",
            "ǆ",
            "ς",
            "σ",
        ];
        let linked = |r: &Reading, at: usize| {
            r.regions.iter().any(|g| {
                matches!(g.shown, reader::Shown::Link) && g.span.start <= at && at < g.span.end
            })
        };
        let (mut readers_differ, mut one_fold_errs) = (0, 0);
        for def in labels {
            let head = format!("[{def}]: /u\n\n");
            let definitions = READERS[0]
                .read(&head, 0, everything(&Labels::new()))
                .definitions;
            assert_eq!(definitions.len(), 1, "{def:?}");
            let mut carried = Labels::new();
            for (label, span) in &definitions {
                carried.insert(label, &head[span.clone()]);
            }
            let broader = def.ends_with(['\x0b', '\x0c']) || def.starts_with(['\x0b', '\x0c']);
            for reference in labels {
                let whole = format!("{head}[{reference}]\n");
                let at = head.len() + 1;
                let mut verdicts = Vec::new();
                for reader in READERS {
                    let all = linked(&reader.read(&whole, 0, everything(&Labels::new())), at);
                    let part = reader.read(&whole, head.len(), everything(&carried));
                    let part = linked(&part, at);
                    assert!(
                        part == all || (broader && part),
                        "{}: [{def:?}] then [{reference:?}]: {part} carried, {all} whole",
                        reader.name()
                    );
                    verdicts.push(all);
                }
                readers_differ += usize::from(verdicts.iter().any(|&v| v != verdicts[0]));
                one_fold_errs += usize::from(
                    fold_label(def) == fold_label(reference) && verdicts.iter().all(|&v| !v),
                );
            }
        }
        // The cases one fold for both readers got wrong, and those the
        // readers part on, are among those held.
        assert!(readers_differ >= 4, "{readers_differ}");
        assert!(one_fold_errs >= 2, "{one_fold_errs}");
    }

    #[test]
    fn directive_fences_are_top_level_only() {
        let text = "```tool x\na {}\n```\n- ```tool\n  b {}\n  ```\n\n~~~tool\nc {}";
        let ctx = Context::read(text, &["tool"]);
        let fences: Vec<(&str, bool)> = ctx
            .fences
            .iter()
            .map(|f| (&text[f.body.clone()], f.closed))
            .collect();
        assert_eq!(fences, [("a {}", true), ("c {}", false)]);
    }
}
