//! The scanner fed a text as it arrives: items are committed (final, never
//! retracted) as soon as no later text can change them, and what a stream
//! commits equals what [`Scanner::scan_with_diagnostics`] returns on the
//! whole text, for every way of cutting it (P265–P271).
//!
//! # The rule (P266)
//! An item is final once a blank line follows it: a blank line closes every
//! paragraph, heading, table and list-item paragraph, no inline construct
//! crosses it, and setext underlines and delimiter rows act only on the line
//! directly above. A sentence whose free-text tail runs to the end of the
//! text (a work order's body) is final only at [`Stream::finish`]; one
//! whose tail stops at a later marker (a result's summary, at the next
//! `[RESULT `) once that marker has arrived. Which applies is read from the
//! tail's automaton (the scan tables the spec generates), never from a
//! structure's name: a tail is final once its automaton stops before the end
//! of the text read. Everything else is final at `finish`.
//!
//! # Commit points (P265)
//! Where items become final is a function of the text alone, never of
//! where chunks were cut: a commit point is the end of the first line that
//! is not blank after a blank line (that line's first bytes tell the
//! readers whether a new top-level block starts there). At each, the text
//! read so far up to that line's end is read as if nothing more had
//! arrived; a chunk holding several commit points is read at each in turn.
//! [`Scanner::scan_with_diagnostics`] is a stream fed the whole text, so the
//! two cannot part.
//!
//! # Sections (P268)
//! The readers read only the open section: the text since the last commit
//! point at which every reader starts a new top-level block (no block of
//! theirs spans the blank line before it) and every item before it was
//! committed. The labels of the link reference definitions of earlier
//! sections are carried (a reference to one resolves, through each reader's
//! broken-link callback), and so are the heredoc bodies (`shell.rs`). A
//! section in which nothing could be a candidate or a definition (by the
//! scanner's own heads: a link's `[` is neither) is not read at a commit
//! point: it stays open, and the next reading reads it with what follows
//! (P362). A section that cannot be
//! closed (a long list, an open fence, an open work order) is read again
//! only while the bytes read since it opened stay within a constant factor
//! of its length, so any chunking costs linear time overall.
//!
//! Spans are **byte** offsets into the whole stream.

mod late;

use super::*;
use crate::context::{fold_label, line_is_trivial, Records};
use std::borrow::Cow;

/// One event of a stream: an item committed (final, never retracted) or a
/// skipped candidate reported. Serialized with an `event` key (`found`,
/// `skipped`) beside the item's own fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<S> {
    /// An item found: the same span and value as the whole text's scan.
    Found(Found<S>),
    /// A candidate skipped: the same span, reason and message as the whole
    /// text's scan.
    Skipped(Skipped),
}

impl<S> Event<S> {
    /// The event's span (bytes of the whole stream).
    pub fn span(&self) -> &Range<usize> {
        match self {
            Event::Found(f) => &f.span,
            Event::Skipped(s) => &s.span,
        }
    }
}

/// A UTF-8 error in the bytes pushed to a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    /// The byte offset, into the whole stream, of the first byte that is
    /// not (or does not end) a UTF-8 sequence.
    pub at: usize,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the stream is not UTF-8 at byte {}", self.at)
    }
}

impl std::error::Error for StreamError {}

/// Bytes a section may cost in readings beyond a constant factor of its
/// length (see [`Stream`]'s `spent`): a short section is read at every
/// commit point.
const READ_ALLOWANCE: usize = 1024;

/// How many times its own length a section may be read in all, beyond
/// [`READ_ALLOWANCE`] (P270: the Markdown-rich corpus scanned whole costs
/// 2.4 times the readers' bare parses with 1, 3.2 with 4).
const READ_FACTOR: usize = 1;

/// A scan of a text that arrives in chunks (see the module docs).
///
/// ```
/// # use agent_sentences_runtime::scan::{Event, Scanner};
/// # fn demo<S: std::fmt::Debug>(scanner: &Scanner<S>) {
/// let mut stream = scanner.stream();
/// let mut events = stream.push("[TOOL fs.read {\"path\": \"a\"}]\n");
/// events.extend(stream.push("\nmore text"));
/// events.extend(stream.finish().expect("UTF-8"));
/// # }
/// ```
pub struct Stream<'s, S: 'static> {
    s: &'s Scanner<S>,
    /// The text so far: borrowed when the stream is fed one whole text
    /// ([`Scanner::scan_with_diagnostics`]), else owned.
    text: Cow<'s, str>,
    /// The bytes of an incomplete UTF-8 sequence at the end of what was
    /// pushed (at most three).
    held: Vec<u8>,
    /// Bytes of `text` examined for commit points.
    seen: usize,
    /// The whitespace run being read: where it starts, and how many line
    /// endings it holds (CRLF counts once).
    ws: Option<(usize, usize)>,
    /// A blank line has ended: (the end of the text before it, the start
    /// of the line after it, that line's first byte not blank). The commit
    /// point is that line's end.
    waiting: Option<(usize, usize, usize)>,
    /// Where the current line starts (after the last LF or CR).
    line_start: usize,
    /// Where the first LF-ended line not yet checked starts (the lines are
    /// checked one by one, when a commit point needs them: see
    /// [`Stream::check_lines`]).
    lf_line: usize,
    /// How far the text after `lf_line` is known to hold no line feed: a
    /// text whose lines end in lone CRs is searched once, not at every
    /// commit point (P354).
    lf_searched: usize,
    /// Bytes searched for line feeds in all (each at most once).
    searched: usize,
    /// The end of the last LF-ended line checked that may hold a candidate.
    marker_line_end: Option<usize>,
    /// The end of the last LF-ended line checked that is not trivial.
    nontrivial_line_end: Option<usize>,
    /// Where the open section starts.
    section: usize,
    /// Every event that starts before it has been emitted.
    closed: usize,
    /// Bytes read in readings of the open section.
    spent: usize,
    /// Everything before a tail that only the end of the text ends was
    /// committed: the stream reads nothing more before `finish` (P318).
    held_to_end: bool,
    /// Bytes read in all readings (see [`Stream::bytes_read`]).
    read_total: usize,
    /// Readings at commit points (see [`Stream::readings`]).
    readings: usize,
    /// The labels of the definitions of closed sections.
    carried: Labels,
    /// Whether a link reference definition may still come: always in a
    /// stream; in a text scanned whole, only if it holds a `]:` anywhere
    /// (`None` until a reading asks). Without one, nothing can be carried
    /// or come late, and no reading records the references a later
    /// definition would resolve (P364).
    definitions_may_come: Option<bool>,
    /// Whether the whole text, from its start, may hold a candidate: known
    /// by [`Stream::whole`] before it reads, so `finish` does not ask again
    /// of a text with no section closed.
    whole_may_hold_candidates: bool,
    /// The heredoc bodies of the text, read as it grows.
    heredocs: Heredocs,
    /// The first incomplete UTF-8 sequence that text pushed after it cut
    /// off (reported by `finish`).
    failed: Option<StreamError>,
    /// Per label (folded) that nothing defined when an item was committed:
    /// the items a reference with that label lay over.
    references: HashMap<String, Vec<Range<usize>>>,
    /// The items committed in the open section not yet reported as hidden
    /// by a late definition: a later reading in which some reader reads a
    /// link or an image over one is a definition that came late (P267),
    /// whoever reports its label.
    section_items: Vec<Range<usize>>,
}

/// One reading of a stream's open section.
struct SectionRead<S> {
    read: Reading<S>,
    /// Its top-level blocks (see `Context::blocks`).
    blocks: Option<Vec<Range<usize>>>,
    /// Its link reference definitions (folded label, bytes).
    definitions: Vec<(String, Range<usize>)>,
    /// Its references whose label nothing defines (folded label, bytes).
    broken: Vec<(String, Range<usize>)>,
    /// Where a reader read a definition that no reader reported by its
    /// label, in order (see `Context::uncarried`).
    uncarried: Vec<usize>,
    /// Whether the readers read it (else it was empty or trivial, and no
    /// reader reported its references).
    by_readers: bool,
    /// The link and image regions any reader reads in it.
    linked: Vec<Range<usize>>,
    /// Whether its text was read (by the readers or the plain-text proof):
    /// else nothing in it could be a candidate or a definition (P362).
    read_text: bool,
}

impl<S: 'static> Scanner<S> {
    /// A stream over this scanner: push text as it arrives, then finish.
    pub fn stream(&self) -> Stream<'_, S> {
        Stream {
            s: self,
            text: Cow::Borrowed(""),
            held: Vec::new(),
            seen: 0,
            ws: None,
            waiting: None,
            line_start: 0,
            lf_line: 0,
            lf_searched: 0,
            searched: 0,
            marker_line_end: None,
            nontrivial_line_end: None,
            section: 0,
            closed: 0,
            spent: 0,
            held_to_end: false,
            read_total: 0,
            readings: 0,
            carried: Labels::new(),
            definitions_may_come: Some(true),
            whole_may_hold_candidates: false,
            heredocs: Heredocs::default(),
            failed: None,
            references: HashMap::new(),
            section_items: Vec::new(),
        }
    }
}

impl<S> fmt::Debug for Stream<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("len", &self.text.len())
            .field("section", &self.section)
            .field("closed", &self.closed)
            .finish()
    }
}

impl<'s, S: 'static> Stream<'s, S> {
    /// Appends `chunk`; returns the events it made final, in the order of
    /// the text.
    ///
    /// Text pushed after bytes that end inside a UTF-8 sequence fails the
    /// stream: the sequence can no longer be completed, so that text and
    /// everything after it is neither read nor committed (an empty list),
    /// and [`Stream::finish`] returns the error (P353).
    pub fn push(&mut self, chunk: &str) -> Vec<Event<S>> {
        if self.failed.is_some() {
            return Vec::new();
        }
        if !self.held.is_empty() {
            // A call cut by the lost bytes must not be committed as if they
            // had never been sent (P353).
            self.failed = Some(StreamError {
                at: self.text.len(),
            });
            self.held.clear();
            return Vec::new();
        }
        self.text.to_mut().push_str(chunk);
        self.advance()
    }

    /// Appends `chunk`, bytes that may end inside a UTF-8 sequence: the
    /// sequence's bytes are held until the rest arrives.
    ///
    /// # Errors
    /// A [`StreamError`] at the first byte that is not UTF-8; the stream is
    /// then as it was before the call. Once text pushed after an incomplete
    /// sequence has failed the stream ([`Stream::push`]), that error.
    #[inline]
    pub fn push_bytes(&mut self, chunk: &[u8]) -> Result<Vec<Event<S>>, StreamError> {
        if let [b] = *chunk {
            // One ASCII byte (a model's stream cut finest): a character of
            // its own, pushed without a UTF-8 check, a copy call or a frame
            // of its own.
            if b.is_ascii() && self.held.is_empty() && self.failed.is_none() {
                self.text.to_mut().push(char::from(b));
                return Ok(self.advance_by(b));
            }
        }
        self.push_bytes_slow(chunk)
    }

    /// [`Stream::push_bytes`] of anything but one ASCII byte.
    #[inline(never)]
    fn push_bytes_slow(&mut self, chunk: &[u8]) -> Result<Vec<Event<S>>, StreamError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.held.is_empty() {
            if let Ok(text) = std::str::from_utf8(chunk) {
                // Whole characters: no bytes to hold.
                self.text.to_mut().push_str(text);
                return Ok(self.advance());
            }
        }
        let mut bytes = std::mem::take(&mut self.held);
        bytes.extend_from_slice(chunk);
        let (valid, rest) = match std::str::from_utf8(&bytes) {
            Ok(_) => (bytes.len(), 0),
            Err(e) if e.error_len().is_none() => (e.valid_up_to(), bytes.len() - e.valid_up_to()),
            Err(e) => {
                let at = self.text.len() + e.valid_up_to();
                // As it was: the held bytes stay held.
                bytes.truncate(bytes.len() - chunk.len());
                self.held = bytes;
                return Err(StreamError { at });
            }
        };
        let text = std::str::from_utf8(&bytes[..valid]).expect("checked");
        self.text.to_mut().push_str(text);
        self.held = bytes[valid..valid + rest].to_vec();
        Ok(self.advance())
    }

    /// The bytes of text its readings have read so far, each reading
    /// counting its section's length: the work of a stream, which tests
    /// hold linear in the text's length for any chunking (P270).
    #[doc(hidden)]
    pub fn bytes_read(&self) -> usize {
        self.read_total
    }

    /// How many times the open section was read at a commit point so far
    /// (tests count them: P362).
    #[doc(hidden)]
    pub fn readings(&self) -> usize {
        self.readings
    }

    /// Ends the stream: the events of everything not yet final.
    ///
    /// # Errors
    /// A [`StreamError`] when the bytes pushed end inside a UTF-8 sequence,
    /// or when text was pushed after bytes that ended inside one (the
    /// sequence was dropped then).
    pub fn finish(self) -> Result<Vec<Event<S>>, StreamError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if !self.held.is_empty() {
            return Err(StreamError {
                at: self.text.len(),
            });
        }
        Ok(self.finish_str())
    }

    /// The items and the skipped candidates of `text` read whole: a stream
    /// fed `text` in one piece, then finished, without copying it; each list
    /// in the order of the text, as the events would give them.
    ///
    /// The items of the final reading are kept in the list their reading
    /// made, not moved through a list of events and then into one of items:
    /// a scan of a text with no commit point holds one list of its items at
    /// a time.
    pub(super) fn whole(s: &'s Scanner<S>, text: &'s str) -> (Vec<Found<S>>, Vec<Skipped>) {
        // Where nothing could be a candidate or a definition, no commit
        // point and no `finish` would read anything (P362): the walk for
        // commit points is skipped.
        if !s.may_hold_candidates(text) {
            return (Vec::new(), Vec::new());
        }
        let mut stream = Self::over_whole(s, text);
        stream.whole_may_hold_candidates = true;
        // A text with no blank line has no commit point: only `finish`
        // reads it.
        let committed = if may_hold_blank_line(text) {
            stream.advance()
        } else {
            Vec::new()
        };
        let (mut found, mut skipped) = (Vec::new(), Vec::new());
        for e in committed {
            match e {
                Event::Found(f) => found.push(f),
                Event::Skipped(s) => skipped.push(s),
            }
        }
        let (last_found, last_skipped) = stream.finish_parts();
        if found.is_empty() {
            found = last_found;
        } else {
            found.extend(last_found);
        }
        skipped.extend(last_skipped);
        (found, skipped)
    }

    /// A stream holding all of `text`, none of it read: a definition may
    /// come only if `text` holds a `]:` (P364), searched for once a reading
    /// asks.
    fn over_whole(s: &'s Scanner<S>, text: &'s str) -> Self {
        let mut stream = s.stream();
        stream.text = Cow::Borrowed(text);
        stream.definitions_may_come = None;
        stream
    }

    /// [`Stream::finish`] of a stream fed only text.
    pub(super) fn finish_str(self) -> Vec<Event<S>> {
        let (found, skipped) = self.finish_parts();
        let mut events: Vec<Event<S>> = Vec::with_capacity(found.len() + skipped.len());
        events.extend(found.into_iter().map(Event::Found));
        events.extend(skipped.into_iter().map(Event::Skipped));
        order(&mut events);
        events
    }

    /// What [`Stream::finish`] of a stream fed only text commits: its items
    /// and its skipped candidates, each list by start (in the order
    /// [`order`] gives them).
    fn finish_parts(mut self) -> (Vec<Found<S>>, Vec<Skipped>) {
        let end = self.text.len();
        let read = self.read(end, true);
        let mut skipped = self.late(&read.definitions, end, end);
        skipped.extend(self.late_unlabelled(&read.uncarried, end, end));
        skipped.extend(self.late_links(&read.linked, end));
        let closed = self.closed;
        let mut found = read.read.found;
        found.retain(|f| f.span.start >= closed);
        found.sort_by_key(|f| f.span.start);
        skipped.extend(
            read.read
                .skipped
                .into_iter()
                .filter(|s| s.span.start >= closed),
        );
        skipped.sort_by_key(|s| s.span.start);
        self.closed = end;
        (found, skipped)
    }

    /// Reads the open section up to `end` (the end of the text with
    /// `whole`): its candidates, its blocks and its definitions.
    fn read(&mut self, end: usize, whole: bool) -> SectionRead<S> {
        let a = self.section;
        if !whole {
            self.check_lines(end);
        }
        let full = &self.text[..end];
        let tail = &self.text[self.lf_line.max(a)..end];
        // Where nothing could be a candidate or a definition, no reading
        // could find an item or make one late (P362).
        let candidates = if whole {
            (a == 0 && self.whole_may_hold_candidates)
                || self.s.may_hold_candidates(&self.text[a..end])
        } else {
            self.marker_line_end.is_some_and(|e| e > a) || self.s.may_hold_candidates(tail)
        };
        if !candidates {
            let trivial = self.nontrivial_line_end.is_none_or(|e| e <= a)
                && line_is_trivial(tail.as_bytes())
                && !(a == 0 && self.text.starts_with(BOM));
            return SectionRead {
                read: Reading {
                    found: Vec::new(),
                    skipped: Vec::new(),
                    open_tail: None,
                },
                blocks: trivial.then(Vec::new),
                definitions: Vec::new(),
                broken: Vec::new(),
                uncarried: Vec::new(),
                by_readers: false,
                linked: Vec::new(),
                read_text: false,
            };
        }
        if !whole {
            self.heredocs.advance(full, false, &mut Vec::new());
        }
        // What a later reading can use (P364): `finish` is the last
        // reading, and its definitions matter only to items committed
        // before it.
        let records = if whole {
            Records {
                definitions: !self.references.is_empty(),
                broken: false,
            }
        } else {
            let text = &self.text;
            let may = *self
                .definitions_may_come
                .get_or_insert_with(|| crate::context::may_define(text.as_bytes()));
            Records {
                definitions: may,
                broken: may,
            }
        };
        let ctx = Context::section(
            &self.text,
            a,
            end,
            &self.s.fence_words(),
            &self.carried,
            records,
        );
        let read = self.s.scan_in(full, &ctx, &self.heredocs);
        SectionRead {
            read,
            definitions: ctx.definitions().cloned().collect(),
            broken: ctx.broken().cloned().collect(),
            uncarried: ctx.uncarried(),
            by_readers: ctx.by_readers(),
            linked: ctx.linked().cloned().collect(),
            blocks: ctx.blocks,
            read_text: true,
        }
    }

    /// Reads the text pushed since the last call for commit points, and
    /// reads the text at each.
    ///
    /// Byte by byte, this is: a line ending or a blank (space, tab) starts
    /// or extends a whitespace run (`ws`, counting its line endings); any
    /// other byte ends the run, and a run of two line endings or more is a
    /// blank line (`waiting`); the line ending after a blank line is a
    /// commit point. Outside a whitespace run only the next line ending
    /// matters, so the text is searched for it (`memchr`), and the blanks
    /// before it start the run it extends.
    #[inline(always)]
    fn advance(&mut self) -> Vec<Event<S>> {
        let len = self.text.len();
        if self.seen + 1 == len {
            return self.advance_by(self.text.as_bytes()[self.seen]);
        }
        self.advance_from_seen()
    }

    /// [`Stream::advance`] where `last` is the text's last byte.
    ///
    /// One byte that does not end a line, pushed alone (a model's stream
    /// cut finest), is read here without a call, as `advance_from_seen`
    /// reads it: a blank starts or extends a whitespace run; any other byte
    /// ends the run, which matters only if it held a blank line.
    #[inline(always)]
    fn advance_by(&mut self, last: u8) -> Vec<Event<S>> {
        let len = self.text.len();
        if self.seen + 1 == len {
            let blank = last == b' ' || last == b'\t';
            match self.ws {
                _ if last == b'\n' || last == b'\r' => {}
                None if blank => {
                    self.ws = Some((self.seen, 0));
                    self.seen = len;
                    return Vec::new();
                }
                None => {
                    self.seen = len;
                    return Vec::new();
                }
                Some(_) if blank => {
                    self.seen = len;
                    return Vec::new();
                }
                Some((_, endings)) if endings < 2 => {
                    self.ws = None;
                    self.seen = len;
                    return Vec::new();
                }
                Some(_) => {}
            }
        }
        self.advance_from_seen()
    }

    /// [`Stream::advance`] byte by byte.
    #[inline(never)]
    fn advance_from_seen(&mut self) -> Vec<Event<S>> {
        let mut events = Vec::new();
        let len = self.text.len();
        while self.seen < len {
            let i = self.seen;
            let b = self.text.as_bytes();
            if self.ws.is_none() {
                // Only a line ending matters before the run it starts. A
                // few bytes (a token's) are read without a searcher's setup.
                let rest = &b[i..];
                let found = if rest.len() <= 16 {
                    rest.iter().position(|&c| c == b'\n' || c == b'\r')
                } else {
                    memchr::memchr2(b'\n', b'\r', rest)
                };
                let at = found.map_or(len, |k| i + k);
                let blanks = b[i..at]
                    .iter()
                    .rev()
                    .take_while(|&&c| c == b' ' || c == b'\t')
                    .count();
                if at > i {
                    if blanks > 0 {
                        self.ws = Some((at - blanks, 0));
                    }
                    self.seen = at;
                    continue;
                }
            }
            let c = b[i];
            self.seen += 1;
            match c {
                b'\n' | b'\r' => {
                    if let Some((blank, line, first)) = self.waiting.take() {
                        self.commit(blank, line, first, i, &mut events);
                    }
                    let crlf = c == b'\n' && i > 0 && self.text.as_bytes()[i - 1] == b'\r';
                    let (start, endings) = self.ws.unwrap_or((i, 0));
                    self.ws = Some((start, endings + usize::from(!crlf)));
                    self.line_start = i + 1;
                }
                b' ' | b'\t' => {}
                _ => {
                    if let Some((start, endings)) = self.ws.take() {
                        if endings >= 2 && self.waiting.is_none() {
                            self.waiting = Some((start, self.line_start, i));
                        }
                    }
                }
            }
        }
        events
    }

    /// Checks the LF-ended lines whose line feed comes before `end`: notes
    /// the last that may hold a candidate and the last that is not trivial.
    /// Each line is checked once.
    fn check_lines(&mut self, end: usize) {
        loop {
            let from = self.lf_searched.max(self.lf_line).min(end);
            let found = memchr::memchr(b'\n', &self.text.as_bytes()[from..end]);
            self.searched += found.map_or(end - from, |k| k + 1);
            let Some(k) = found else {
                self.lf_searched = self.lf_searched.max(end);
                return;
            };
            let at = from + k;
            let line = &self.text[self.lf_line..at];
            if self.s.may_hold_candidates(line) {
                self.marker_line_end = Some(at);
            }
            if !line_is_trivial(line.as_bytes()) || (self.lf_line == 0 && line.starts_with(BOM)) {
                self.nontrivial_line_end = Some(at);
            }
            self.lf_line = at + 1;
        }
    }

    /// The commit point at `end`, the end of the line that starts at
    /// `line` after a blank line, whose first byte not blank is at `first`;
    /// the text before the blank line ends at `blank`.
    ///
    /// Never inlined: [`Stream::advance`] runs for every chunk, however
    /// small, and a commit point is rare; inlined, this made `advance`'s
    /// frame large for every call.
    #[inline(never)]
    fn commit(
        &mut self,
        blank: usize,
        line: usize,
        first: usize,
        end: usize,
        events: &mut Vec<Event<S>>,
    ) {
        let a = self.section;
        let len = end - a;
        // Nothing more can be committed before `finish` (P318).
        if self.held_to_end {
            return;
        }
        // Read again only within the section's allowance (linear overall).
        if self.spent + len > READ_FACTOR * len + READ_ALLOWANCE {
            return;
        }
        let SectionRead {
            read,
            blocks,
            definitions,
            broken,
            uncarried,
            by_readers,
            linked,
            read_text,
        } = self.read(end, false);
        // Only a reading costs: a section left unread is checked line by
        // line, each line once (P362).
        if read_text {
            self.spent += len;
            self.read_total += len;
            self.readings += 1;
        }
        // What is not final holds the section open from its start.
        let open = read.open_tail.map_or(usize::MAX, |t| t.start);
        let final_ = |span: &Range<usize>| span.start < open && span.end <= first;
        let mut hold = line.min(open);
        for span in read
            .found
            .iter()
            .map(|f| &f.span)
            .chain(read.skipped.iter().map(|s| &s.span))
        {
            if span.start >= self.closed && !final_(span) {
                hold = hold.min(span.start);
            }
        }
        let (from, to) = (self.closed, hold.max(self.closed));
        // Everything before a tail that only the end of the text ends is
        // committed: no later reading could commit more (P318).
        self.held_to_end = read.open_tail.is_some_and(|t| t.to_end && t.start == to);
        // Definitions that came too late for a committed item, once final.
        let mut late = self.late(&definitions, first, to);
        late.extend(self.late_unlabelled(&uncarried, first, to));
        late.extend(self.late_links(&linked, to));
        let inside = |span: &Range<usize>| from <= span.start && span.start < to;
        let mut new: Vec<Event<S>> = read
            .found
            .into_iter()
            .filter(|f| inside(&f.span))
            .map(Event::Found)
            .chain(
                read.skipped
                    .into_iter()
                    .filter(|s| inside(&s.span))
                    .chain(late)
                    .map(Event::Skipped),
            )
            .collect();
        order(&mut new);
        // Known once a section that may hold a candidate was read (P364);
        // while unknown, references are noted.
        if self.definitions_may_come != Some(false) {
            self.note_references(&new, &broken, by_readers);
        }
        // An item some reader reads inside a link or an image already (a
        // link's text) is not watched: only a link that comes later counts.
        let covered =
            |i: &Range<usize>| linked.iter().any(|l| l.start <= i.start && i.start < l.end);
        self.section_items
            .extend(new.iter().filter_map(|e| match e {
                Event::Found(f) if !covered(&f.span) => Some(f.span.clone()),
                _ => None,
            }));
        events.extend(new);
        self.closed = to;
        // A new section starts at the line when every reader starts a new
        // top-level block there and nothing before it is pending.
        let spanned = blocks.map(|b| b.iter().any(|r| r.start < blank && r.end > line));
        // A definition before the line that no reader reported by its label
        // cannot be carried: the section stays open, so that the readers
        // read it again with what follows (P366).
        let uncarried = uncarried.first().is_some_and(|&p| p < line);
        if self.closed == line && spanned == Some(false) && !uncarried {
            for (label, span) in definitions.iter().filter(|(_, span)| span.start < line) {
                self.carried.insert(label, &self.text[span.clone()]);
            }
            self.section = line;
            self.spent = 0;
            self.section_items.clear();
        }
    }
}

/// Whether `text` may hold a blank line: two line endings with only blanks
/// between them. Without a CR, one is a line feed followed by a line feed or
/// a blank, so a text with none of those pairs holds none; each is searched
/// for in one vectorized pass, far cheaper than the walk from line to line
/// it spares.
fn may_hold_blank_line(text: &str) -> bool {
    static PAIRS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 3]> =
        std::sync::LazyLock::new(|| {
            [&b"\n\n"[..], b"\n ", b"\n\t"].map(memchr::memmem::Finder::new)
        });
    let b = text.as_bytes();
    memchr::memchr(b'\r', b).is_some() || PAIRS.iter().any(|f| f.find(b).is_some())
}

/// Events in the order of the text: by start, a found item before a skip
/// at the same byte, else as read.
fn order<S>(events: &mut [Event<S>]) {
    events.sort_by_key(|e| (e.span().start, matches!(e, Event::Skipped(_))));
}

#[cfg(test)]
mod tests;
