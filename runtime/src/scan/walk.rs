//! The walk over a text's context: its live runs, its directive fences and
//! links, then what only some reader shows (P172); at each `[`, the bracket
//! forms and the structures.

use super::*;

impl<'a, S: 'static> Run<'a, S> {
    pub(super) fn line_end(&self, from: usize) -> usize {
        memchr::memchr(b'\n', &self.bytes[from..]).map_or(self.bytes.len(), |i| from + i)
    }

    /// Reports a skipped candidate. One that reads to the end of a text run
    /// that markup ends is reported as [`SkipReason::NotPlainText`]: the
    /// markup is what stopped it (P151).
    pub(super) fn skip(
        &mut self,
        span: Range<usize>,
        reason: SkipReason,
        message: impl Into<String>,
    ) {
        self.skip_ended(span, false, reason, message);
    }

    /// [`Run::skip`] of a candidate that, when `ended`, ended by itself at
    /// the end of `span` (its closing `]`, or the line end of a curl
    /// command): the end of its text run there did not stop it, so its
    /// reason is its own whatever follows the run (P352).
    pub(super) fn skip_ended(
        &mut self,
        span: Range<usize>,
        ended: bool,
        reason: SkipReason,
        message: impl Into<String>,
    ) {
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
            && !ended
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

    /// Reads the whole text in its context `ctx`.
    pub(super) fn all(&mut self, ctx: &Context) {
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
                // A fence inside a sentence's free text is the field's (P196).
                Part::Fence(f) if f.span.start >= resume => self.directive_fence(f),
                Part::Fence(f) => self.fence_in_free_text(f),
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
        // What follows reads runs again only to report what they hold.
        self.reporting = true;
        self.in_free_text(ctx);
        self.hidden(ctx);
    }

    /// The found sentence whose span holds `at`, if any.
    fn sentence_over(&self, at: usize) -> Option<Range<usize>> {
        let i = self.found.partition_point(|f| f.span.start <= at);
        let f = self.found[..i].last()?;
        (matches!(f.item, Item::Sentence { .. }) && at < f.span.end).then(|| f.span.clone())
    }

    /// A directive fence inside a sentence's free text is that sentence's
    /// text (P196); it is reported, never run.
    pub(super) fn fence_in_free_text(&mut self, f: &Fence) {
        let Some(over) = self.sentence_over(f.span.start) else {
            // Passed over by a broken candidate's text: read as ever.
            self.directive_fence(f);
            return;
        };
        self.skipped.push(Skipped {
            // As far as the sentence reaches, as for every other candidate.
            span: f.span.start..f.span.end.min(over.end),
            reason: SkipReason::InFreeText,
            message: format!(
                "a directive fence inside the free text of the sentence at bytes {}..{}: part of that sentence, never run on its own",
                over.start, over.end
            ),
        });
    }

    /// Takes back what was found and skipped since there were `f0` found
    /// items and `s0` skips (candidates read inside something that makes
    /// them part of it), each as its span and what it was: `a sentence`, `a
    /// call`, or `a broken candidate (reason: message)`.
    pub(super) fn take_read_since(&mut self, f0: usize, s0: usize) -> Vec<(Range<usize>, String)> {
        let found = self.found.split_off(f0);
        let skipped = self.skipped.split_off(s0);
        found
            .into_iter()
            .map(|f| {
                let kind = match f.item {
                    Item::Sentence { .. } => "a sentence",
                    Item::Directive { .. } => "a call",
                };
                (f.span, kind.to_owned())
            })
            .chain(skipped.into_iter().map(|k| {
                let kind = format!("a broken candidate ({}: {})", k.reason, k.message);
                (k.span, kind)
            }))
            .collect()
    }

    /// Reports every candidate written in a later block of a found
    /// sentence's free text (P196): the runs that start inside a sentence
    /// but not in the run where it starts are read again, and what they
    /// hold is reported as [`SkipReason::InFreeText`], never run. Each run
    /// is read again at most once (found sentences do not overlap).
    pub(super) fn in_free_text(&mut self, ctx: &Context) {
        let sentences: Vec<Range<usize>> = self
            .found
            .iter()
            .filter(|f| matches!(f.item, Item::Sentence { .. }))
            .map(|f| f.span.clone())
            .collect();
        let mut reports: Vec<Skipped> = Vec::new();
        let mut r = 0;
        self.shell = None;
        self.bidi = None;
        for s in &sentences {
            // Skip the runs before the sentence and the run it starts in.
            while r < ctx.runs.len() && ctx.runs[r].span.start <= s.start {
                r += 1;
            }
            while r < ctx.runs.len() && ctx.runs[r].span.start < s.end {
                let run = &ctx.runs[r];
                let until = run.span.end.min(s.end);
                let (f0, s0) = (self.found.len(), self.skipped.len());
                self.text_run(run, run.span.start, until);
                for (span, kind) in self.take_read_since(f0, s0) {
                    // Reported as far as the sentence reaches: past it, the
                    // text is read as ever.
                    reports.push(Skipped {
                        span: span.start..span.end.min(s.end),
                        reason: SkipReason::InFreeText,
                        message: format!(
                            "{kind} inside the free text of the sentence at bytes {}..{}: part of that sentence, never read on its own",
                            s.start, s.end
                        ),
                    });
                }
                r += 1;
            }
        }
        if !reports.is_empty() {
            self.skipped.extend(reports);
            self.skipped.sort_by_key(|s| s.span.start);
        }
    }

    /// Reports what some reader shows as text and the readers do not agree
    /// on (P172): each candidate that starts there, read as that reader
    /// shows it, and each disputed directive fence. Nothing found there runs.
    pub(super) fn hidden(&mut self, ctx: &Context) {
        if ctx.unshared.is_empty() && ctx.disputed.is_empty() {
            return;
        }
        let mut covered: std::collections::BTreeMap<usize, usize> = self
            .found
            .iter()
            .map(|f| (f.span.start, f.span.end))
            .chain(self.skipped.iter().map(|s| (s.span.start, s.span.end)))
            .collect();
        // (span, kind, cause) of each report: the messages are written from
        // the causes once every decision is made (P257).
        let mut reports: Vec<(Range<usize>, String, Hidden)> = Vec::new();
        for f in &ctx.disputed {
            let cause = Hidden::at(ctx, f.span.start, None);
            reports.push((f.span.clone(), String::new(), cause));
        }
        // The pass over the live runs is done: its shell state (the quotes it
        // saw, where its last curl command ended) says nothing of the
        // unshared runs, which start over from the text's start. A curl
        // command there after one the live pass read is reported too.
        self.shell = None;
        self.bidi = None;
        self.curl_end = 0;
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
                let cause = Hidden::at(ctx, at, Some(u.reader));
                reports.push((span, kind, cause));
            }
        }
        if !reports.is_empty() {
            self.skipped
                .extend(reports.into_iter().map(|(span, kind, cause)| Skipped {
                    span,
                    reason: SkipReason::HiddenBy,
                    message: cause.message(&kind),
                }));
            self.skipped.sort_by_key(|s| s.span.start);
        }
    }

    /// A candidate at the `[` of a link's text is shown as a link, without
    /// its brackets: a call there is skipped, a sentence is none (P151).
    pub(super) fn link(&mut self, link: &Range<usize>) {
        // The paragraph's bidi search stays cached across the link (each link
        // is searched on its own: linear, as links do not overlap).
        let paragraph_bidi = self.bidi.take();
        self.link_text(link);
        self.bidi = paragraph_bidi;
    }

    pub(super) fn link_text(&mut self, link: &Range<usize>) {
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
    pub(super) fn text_run(&mut self, run: &TextRun, from: usize, until: usize) -> usize {
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

    /// A directive fence that pulldown-cmark found.
    pub(super) fn directive_fence(&mut self, f: &Fence) {
        self.text = self.full;
        self.bytes = self.full.as_bytes();
        self.floor = 0;
        self.breaker = Breaker::Block;
        let word = &self.full[f.word.clone()];
        let scanner = self.s;
        let Some(engine) = scanner
            .directives
            .fences
            .iter()
            .find(|(w, _)| w == word)
            .map(|(_, e)| e.as_str())
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

    pub(super) fn fence_body(&mut self, span: Range<usize>, from: usize, to: usize, engine: &str) {
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
    pub(super) fn bracket(&mut self, i: usize) -> usize {
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
            if self.text[i..].starts_with(st.head.as_str()) {
                return self.quoted_brackets(i, &st.key);
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
    pub(super) fn sentence_at(&mut self, k: usize, start: usize) -> Option<(usize, Option<S>)> {
        if self.caps.is_empty() {
            let n = self.s.structures.len();
            self.caps.extend((0..n).map(|_| (None, 0)));
        }
        let quick = if self.caps[k].1 >= MISSES_BEFORE_DFA {
            self.s.quick_dfa(k)
        } else {
            None
        };
        let block = self.haystack();
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

    /// The text a sentence candidate is read in: up to its block's end, or
    /// up to its text run's when runs are read again only to report what
    /// they hold (P350).
    fn haystack(&self) -> &'a str {
        if self.reporting {
            self.text
        } else {
            &self.full[..self.block_end.max(self.text.len())]
        }
    }

    /// [`Run::sentence_at`] for structure `k` at `start`, given the end of
    /// the whole pattern's match when a DFA found it.
    ///
    /// Everything before a free-text tail lies in the text run; the tail
    /// runs on as its pattern says, past the run's block (P196, which
    /// replaces P153's end at the block), inline markup included.
    pub(super) fn capture_at(
        &mut self,
        k: usize,
        start: usize,
        known_end: Option<usize>,
    ) -> Option<(usize, Option<S>)> {
        let st = &self.s.structures[k];
        let block = self.haystack();
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
            // The tail is read in the whole text, not cut at its block: a
            // free-text field ends where its pattern ends (`runs_until`, else
            // the end of the text), as `parse` reads it, so nothing written
            // inside it, in a later block too, is read on its own (P196).
            // A run read again only to report what it holds reads a tail
            // within the run (P350): each such run is read once, so the
            // reports cost linear time however many sentences whose tails
            // run to the end of the text it holds.
            let tail_text = if self.reporting { self.text } else { self.full };
            let (tail_end, open) = tail.end_open(tail_text, split);
            let open = open && tail_text.len() == self.full.len();
            if open {
                // More text could move the tail's end: a stream holds the
                // sentence (and what follows) until it cannot.
                if self.open_tail.is_none_or(|o| start < o.start) {
                    self.open_tail = Some(OpenTail {
                        start,
                        to_end: tail.ends_only_at_end(),
                    });
                }
            }
            let ends = tail_end.map(|group_end| {
                // Trailing blanks belong to the sentence's span, past its
                // block's end too (the DFA's match ends at the block's end).
                let b = self.full.as_bytes();
                let mut end = group_end;
                let mut in_block = group_end.min(block.len());
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
                    tail: (group, Cap::new(split, &tail_text[split..group_end])),
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
    pub(super) fn before_bracket(&mut self, i: usize) -> Option<usize> {
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
    pub(super) fn quoted_brackets(&mut self, i: usize, key: &str) -> usize {
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
    /// none), else the end of the text. Returns the end of the skip span, and
    /// whether the candidate closed there (at its `]`, not at a line or text
    /// end).
    pub(super) fn bracket_close(&self, from: usize) -> (usize, bool) {
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
                b'\n' => return (p, false),
                b'\\' if in_string && b.get(p + 1).is_some_and(|&c| c != b'\n') => p += 1,
                b'"' => in_string = !in_string,
                b'[' | b'{' if !in_string => depth += 1,
                b'}' if !in_string && depth > 1 => depth -= 1,
                b']' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        return (p + 1, true);
                    }
                }
                _ => {}
            }
            p += 1;
        }
        (b.len(), false)
    }

    /// `[TOOL op {…}]`, `[EXEC op {…}]`, `[DM {…}]` at `i`.
    pub(super) fn bracket_directive(&mut self, i: usize) -> Option<usize> {
        let b = self.bytes;
        // (What follows a keyword at the end of its block is what follows the block.)
        let full = self.full.as_bytes();
        let scanner = self.s;
        let d = &scanner.directives;
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
                let (end, ended) = self.bracket_close(op_end);
                self.skip_ended(i..end, ended, SkipReason::NoObject, message());
                return Some(end);
            }
            return Some(self.object_then_close(i, q, DirectiveForm::Bracket, engine, written));
        }
        for (kw, op, engine) in &d.shorthands {
            if !has_at(b, i + 1, kw.as_bytes()) {
                continue;
            }
            let mut p = i + 1 + kw.len();
            if !full.get(p).is_some_and(|&c| is_ws(c) || c == b'{') {
                continue;
            }
            if full[p] == b'{' && p < b.len() {
                // `[DM{…}]`: the keyword runs into the object, as `[TOOL a{}]`'s op does (P84).
                let (end, ended) = self.bracket_close(p);
                self.skip_ended(
                    i..end,
                    ended,
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
                let (end, ended) = self.bracket_close(i + 1 + kw.len());
                self.skip_ended(
                    i..end,
                    ended,
                    SkipReason::ShorthandWithoutObject,
                    format!("`[{kw}` without a JSON object is ignored (D3)"),
                );
                return Some(end);
            }
            return Some(self.object_then_close(i, p, DirectiveForm::Shorthand, engine, op));
        }
        None
    }

    pub(super) fn object_then_close(
        &mut self,
        i: usize,
        brace: usize,
        form: DirectiveForm,
        engine: &str,
        written: &str,
    ) -> usize {
        let b = self.bytes;
        match scan_object(self.text, brace, self.s.directives.limits) {
            Err(e) => {
                // The broken candidate runs to its closing `]` or its line end
                // (P87), and never ends before what the JSON reader consumed,
                // so nothing inside its strings is read as a marker.
                let (close, ended) = self.bracket_close(brace);
                let end = e.at.max(close);
                let ended = ended && end == close;
                self.skip_ended(i..end, ended, SkipReason::InvalidJson, e.error.message);
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
                    let (close, ended) = self.bracket_close(end);
                    self.skip_ended(i..close, ended, SkipReason::TrailingText, message);
                    close
                }
            }
        }
    }
}
