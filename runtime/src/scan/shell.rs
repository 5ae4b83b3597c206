//! curl as a shell reads it (P156, P162, P165): quotes, line continuations,
//! heredocs and expansions.

use super::*;

/// Why a shell reads the line holding byte `at` as part of the line before
/// it (P162): the `\` that ends that line (an odd run of backslashes before
/// its LF or CRLF), or a lone CR, which ends no shell line (P156).
pub(super) fn continued_line(b: &[u8], at: usize) -> Option<String> {
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
pub(super) fn closing_quote(b: &[u8], open: usize, q: u8) -> Option<usize> {
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

/// The heredoc bodies of `text`, in order (P156): after each `<<WORD`
/// (`<<-WORD`, `<< 'WORD'`, `<<"WORD"`; not `<<<`) outside an earlier body,
/// the lines from the next line to the line that is `WORD` (after leading
/// tabs for `<<-`), or to the end of the text. Each returned range is
/// (where the `<<` is, the body).
#[cfg(test)]
pub(super) fn heredoc_bodies(text: &str) -> Vec<(usize, Range<usize>)> {
    let mut h = Heredocs::default();
    let mut rest = Vec::new();
    h.advance(text, true, &mut rest);
    h.bodies.extend(rest);
    h.bodies
}

/// The heredoc bodies of a text read as it grows (see [`heredoc_bodies`]):
/// the bodies that no later text changes, and where reading resumes. A
/// stream advances it over each prefix it reads, so a text is read for
/// heredocs once, however it is cut.
#[derive(Debug, Clone, Default)]
pub(crate) struct Heredocs {
    /// The bodies found, in order, each closed by its word's line.
    bodies: Vec<(usize, Range<usize>)>,
    /// Where the search for the next `<<` resumes.
    from: usize,
    /// The body being read: where its `<<` is, where it starts, its word,
    /// whether leading tabs are stripped, and the next line to compare.
    open: Option<(usize, usize, String, bool, usize)>,
}

/// Where a heredoc's word ends (from `p`).
fn word_end(b: &[u8], mut p: usize) -> usize {
    while p < b.len() && (b[p].is_ascii_alphanumeric() || b[p] == b'_' || b[p] == b'-') {
        p += 1;
    }
    p
}

impl Heredocs {
    /// Reads `text` (a longer prefix of the text than before) as far as
    /// more text cannot change what it found; with `end`, `text` is the
    /// whole text and is read to its end, and the bodies that are not
    /// final (the last, when it runs to the end) go to `rest`.
    pub(crate) fn advance(&mut self, text: &str, end: bool, rest: &mut Vec<(usize, Range<usize>)>) {
        let b = text.as_bytes();
        let len = b.len();
        // The start of the line after the line ending at `le`, if known.
        let next_line = |le: usize| -> Option<usize> {
            if le >= len {
                Some(le + 1)
            } else if b[le] == b'\r' {
                match b.get(le + 1) {
                    Some(b'\n') => Some(le + 2),
                    Some(_) => Some(le + 1),
                    None if end => Some(le + 1),
                    None => None,
                }
            } else {
                Some(le + 1)
            }
        };
        loop {
            if let Some((at, body_start, word, strip, mut line)) = self.open.take() {
                loop {
                    if line >= len {
                        if end {
                            rest.push((at, body_start..len));
                            self.from = len;
                        } else {
                            self.open = Some((at, body_start, word, strip, line));
                        }
                        return;
                    }
                    let le = memchr::memchr2(b'\n', b'\r', &b[line..]).map(|k| line + k);
                    let next = match le {
                        Some(le) => next_line(le),
                        None if end => Some(len + 1),
                        None => None,
                    };
                    let Some(next) = next else {
                        self.open = Some((at, body_start, word, strip, line));
                        return;
                    };
                    let l = &text[line..le.unwrap_or(len)];
                    let l = if strip { l.trim_start_matches('\t') } else { l };
                    if l == word {
                        self.bodies.push((at, body_start..line));
                        self.from = line;
                        break;
                    }
                    line = next;
                }
                continue;
            }
            let Some(k) = memchr::memmem::find(&b[self.from..], b"<<") else {
                if !end {
                    // A `<` at the end may be the first of a `<<`.
                    self.from = self.from.max(len.saturating_sub(1));
                }
                return;
            };
            let at = self.from + k;
            let mut p = at + 2;
            if !end && p >= len {
                self.from = at;
                return;
            }
            if b.get(p) == Some(&b'<') {
                let run = b[p..].iter().take_while(|&&c| c == b'<').count();
                if !end && p + run >= len {
                    self.from = at;
                    return;
                }
                self.from = p + run;
                continue;
            }
            let strip_tabs = b.get(p) == Some(&b'-');
            p += usize::from(strip_tabs);
            while p < len && is_blank(b[p]) {
                p += 1;
            }
            let quote = b.get(p).copied().filter(|&c| c == b'\'' || c == b'"');
            p += usize::from(quote.is_some());
            let word_start = p;
            p = word_end(b, p);
            if !end && p >= len {
                self.from = at;
                return;
            }
            if p == word_start {
                self.from = at + 2;
                continue;
            }
            let word = &text[word_start..p];
            let Some(nl) = memchr::memchr2(b'\n', b'\r', &b[p..]).map(|k| p + k) else {
                if end {
                    self.from = len;
                } else {
                    self.from = at;
                }
                return;
            };
            let Some(body_start) = next_line(nl) else {
                self.from = at;
                return;
            };
            self.open = Some((at, body_start, word.to_owned(), strip_tabs, body_start));
        }
    }

    /// A copy of where reading stands, without the bodies found.
    fn clone_state(&self) -> Heredocs {
        Heredocs {
            bodies: Vec::new(),
            from: self.from,
            open: self.open.clone(),
        }
    }

    /// Where the heredoc whose body holds byte `at` opens, among the final
    /// bodies and then `rest`.
    fn open_at(&self, rest: &[(usize, Range<usize>)], at: usize) -> Option<usize> {
        [&self.bodies[..], rest].into_iter().find_map(|bodies| {
            let k = bodies.partition_point(|(_, body)| body.end <= at);
            bodies
                .get(k)
                .filter(|(_, body)| body.start <= at)
                .map(|&(open, _)| open)
        })
    }
}

impl<S: 'static> Run<'_, S> {
    /// [`closing_quote`], remembering a string that never closes: one opened later
    /// never closes either (for `'`, no `'` follows; for `"`, the scan from the
    /// earlier quote passed the later one as escaped, so from just after it both
    /// read alike). Without this, lines of `curl \"` read the rest of the text each.
    pub(super) fn closing_quote(&mut self, open: usize, q: u8) -> Option<usize> {
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
    pub(super) fn heredoc_at(&mut self, at: usize) -> Option<usize> {
        let (seed, full) = (self.heredoc_seed, self.full);
        let rest = self.heredocs.get_or_insert_with(|| {
            // The bodies the seed has not found final, read to the end of
            // the text read (from where the seed stopped: a few lines).
            let mut rest = Vec::new();
            let mut state = seed.clone_state();
            state.advance(full, true, &mut rest);
            state.bodies.extend(rest);
            state.bodies
        });
        seed.open_at(rest, at)
    }

    /// The shell string (its quote) or expansion (`{`, `(`) open at the line
    /// holding byte `at`, and where it opened, when one opened on an earlier
    /// line of its block is still open there (P156, P165). The block's lines
    /// are lexed once, as far as they are asked about.
    pub(super) fn inside_quote(&mut self, at: usize) -> Option<(u8, usize)> {
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

    /// A curl command when `pos` is at a line start or inside its
    /// indentation (where a broken call that ended there leaves scanning,
    /// P72); returns where scanning resumes, or `None`.
    pub(super) fn line_start(&mut self, pos: usize) -> Option<usize> {
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
                return Some(self.curl_not_at_line_start(pos));
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
        // A line whose text shows `curl` after markup or a prompt only (no
        // letter before it: `1. curl …`, `$ curl …`): no line a shell runs
        // as written, reported (P176).
        let b = self.bytes;
        let q = at
            + b[at..]
                .iter()
                .take_while(|&&c| !c.is_ascii_alphabetic() && !matches!(c, b'\n' | b'\r'))
                .count();
        if q > at
            && q >= self.curl_end
            && has_at(b, q, b"curl")
            && b.get(q + 4).is_some_and(|&c| is_blank(c))
        {
            return Some(self.curl_not_at_line_start(q));
        }
        None
    }

    /// Reports the curl command at `at`, which does not start its line
    /// (P176); returns where scanning resumes: its line's end.
    pub(super) fn curl_not_at_line_start(&mut self, at: usize) -> usize {
        let end = self.line_end(at);
        let end = end - usize::from(end > at && self.bytes[end - 1] == b'\r');
        self.skipped.push(Skipped {
            span: at..end,
            reason: SkipReason::CurlNotAtLineStart,
            message: "a curl command that does not start its line (Markdown markup or a prompt is before it): only a line that starts with curl is a directive".into(),
        });
        end.max(at + 1)
    }

    /// Reports every bracket form and sentence written inside the curl
    /// command at `command` (its words, continuation lines included): shell
    /// text, an argument of that command, never read on its own (P255). Each
    /// candidate is read as prose would read it, once: scanning resumes after
    /// it, so the command is read in linear time.
    pub(super) fn in_curl_command(&mut self, command: Range<usize>) {
        let (f0, s0) = (self.found.len(), self.skipped.len());
        let mut pos = command.start;
        while pos < command.end {
            let Some(k) = memchr::memchr(b'[', &self.bytes[pos..command.end]) else {
                break;
            };
            let i = pos + k;
            // (A candidate may read past the command: the command ends it.)
            pos = self.bracket(i).max(i + 1);
        }
        for (span, kind) in self.take_read_since(f0, s0) {
            self.skipped.push(Skipped {
                span: span.start..span.end.min(command.end).max(span.start),
                reason: SkipReason::InCurlCommand,
                message: format!(
                    "{kind} among the words of the curl command at bytes {}..{}: an argument of that shell command, never read on its own",
                    command.start, command.end
                ),
            });
        }
    }

    /// A curl command starting at `at` (line start, after blanks). Every curl
    /// command is shell text: scanning resumes after it. It is a directive
    /// only when curl would POST exactly one single-quoted payload to the
    /// exec path (see `schema/directives.json`, `/curl`).
    pub(super) fn curl(&mut self, at: usize) -> Option<usize> {
        let b = self.bytes;
        let scanner = self.s;
        let d = &scanner.directives.curl;
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
            if self.text[at..end].contains(d.path.as_str()) {
                // The whole line, whatever follows it: nothing cut it short.
                self.skipped.push(Skipped {
                    span: at..end,
                    reason: SkipReason::CurlPayload,
                    message: format!("the line is {why}, not a command"),
                });
            } else {
                self.in_curl_command(at..end);
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
                .is_some_and(|path| path == d.path)
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
                if d.takes_value(w) {
                    match tokens.get(k + 1) {
                        None => {
                            problem.get_or_insert_with(|| format!("option `{w}` has no value"));
                        }
                        Some(v) if d.data_flags.iter().any(|o| o == w) => payloads.push(*v),
                        Some(v) if d.url_options.iter().any(|o| o == w) => urls.push(*v),
                        Some(v) if d.method_options.iter().any(|o| o == w) => methods.push(*v),
                        Some(_) => {}
                    }
                    k += 2;
                    continue;
                }
                if !d.flag_options.iter().any(|o| o == w) {
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
            w.contains("://") && w.contains(d.path.as_str())
        });
        if !mentions && !unclosed {
            // Shell text that posts elsewhere: quoted; what it holds that
            // would be read in prose is reported (P255).
            self.in_curl_command(at..end);
            return Some(end);
        }
        let span = at..end;
        // A command whose quotes closed ends at its line's end: the end of
        // its text run, when that is a line end too, did not stop it (P352).
        let full = self.full.as_bytes();
        let ended = !unclosed && full.get(end).is_none_or(|&c| c == b'\n' || c == b'\r');
        let reject = |run: &mut Self, message: String| {
            run.skip_ended(span.clone(), ended, SkipReason::CurlPayload, message);
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
            [_] => return reject(self, format!("the URL's path is not exactly `{}`", d.path)),
            _ => {
                return reject(
                    self,
                    format!("{} URLs; a directive posts to exactly one", urls.len()),
                )
            }
        }
        if methods
            .iter()
            .any(|m| !d.methods.iter().any(|x| x == word(m)))
        {
            let methods = d.methods.join(" or ");
            return reject(self, format!("the method is not {methods}"));
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
            scanner.directives.limits,
        ) {
            Ok(o) => o,
            Err(e) => {
                self.skip_ended(span, ended, SkipReason::InvalidJson, e.message);
                return Some(end);
            }
        };
        if obj.len() != 2 || !obj.contains_key(&d.op_key) || !obj.contains_key(&d.args_key) {
            return reject(
                self,
                format!(
                    "the payload must hold exactly `{}` and `{}`",
                    d.op_key, d.args_key
                ),
            );
        }
        let op = match obj.get(&d.op_key) {
            Some(Value::String(op))
                if !op.is_empty() && self.s.op_end(op, 0, op.len()) == Some(op.len()) =>
            {
                op.clone()
            }
            _ => return reject(self, format!("`{}` is not a valid op name", d.op_key)),
        };
        let args = match obj.get(&d.args_key) {
            Some(Value::Object(a)) => a.clone(),
            _ => return reject(self, format!("`{}` is not a JSON object", d.args_key)),
        };
        self.directive(span, DirectiveForm::Curl, &d.engine, &op, args);
        Some(end)
    }
}

#[cfg(test)]
mod heredoc_tests {
    use super::*;

    /// Read as a text grows, cut anywhere, the bodies are those of the
    /// whole text read at once (P268).
    #[test]
    fn heredocs_read_as_the_text_grows_are_the_whole_texts() {
        let texts = [
            "curl -d @- http://h/exec <<EOF\n{}\nEOF\nx <<-'E2'\n\tbody\n\tE2\n",
            "a <<<b <<\n <<W\r\nbody\r\nW\r\n<<Z\rq\rZ\r<< \"Q\"\nno end",
            "<<A\n<<B\nA\n<<",
            "x<<",
            "",
        ];
        for text in texts {
            let whole = heredoc_bodies(text);
            for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let mut h = Heredocs::default();
                for k in (0..=cut).filter(|&i| text.is_char_boundary(i)) {
                    h.advance(&text[..k], false, &mut Vec::new());
                }
                let mut rest = Vec::new();
                let mut state = h.clone();
                state.advance(text, true, &mut rest);
                state.bodies.extend(rest);
                assert_eq!(state.bodies, whole, "{text:?} read to {cut} first");
            }
        }
        assert_eq!(
            heredoc_bodies("a <<EOF\nb\nEOF\nc"),
            vec![(2, 8..10)],
            "the body is the lines before the word's line"
        );
    }
}
