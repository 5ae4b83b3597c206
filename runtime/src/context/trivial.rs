//! A conservative check that a text's rendering is trivial: every reader
//! shows each paragraph (a stretch of lines between blank lines) as one run
//! of text, from its first byte to its last that is not a space (P174).
//!
//! It holds for a text whose bytes and lines leave no room for Markdown: no
//! byte that starts inline markup (`*`, `~`, `` ` ``, `<`, `>`, `&`, `\`), an
//! `_` only between two ASCII letters or digits (it can then neither open nor
//! close emphasis), no `![`, `](`, `][` or `]:`, no control byte other than
//! LF, no byte order mark at the start, and every line either blank (spaces
//! only) or starting, unindented, with an ASCII letter, a non-ASCII
//! character or one of `[`, `(`, `"`, `'`, `{`: no such line starts a block
//! other than a paragraph or interrupts one (so no line is a table's
//! delimiter row, and `|` is text). Anything else goes to the readers; a test
//! compares the two paths over the vectors and generated texts.

use super::reader::{fence, Breaker, Fence, TextRun};

/// Bytes that may be anywhere in a trivial text's lines.
const fn inner_bytes() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0x20;
    while c < 256 {
        t[c] = true;
        c += 1;
    }
    let banned = b"*~`<>&\\\x7f";
    let mut k = 0;
    while k < banned.len() {
        t[banned[k] as usize] = false;
        k += 1;
    }
    t[b'\n' as usize] = true;
    t
}

/// Bytes that may start a trivial text's line that is not blank.
const fn first_bytes() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = b'a';
    while c <= b'z' {
        t[c as usize] = true;
        t[(c - 32) as usize] = true;
        c += 1;
    }
    let mut c = 0x80;
    while c < 256 {
        t[c] = true;
        c += 1;
    }
    let more = b"[(\"'{";
    let mut k = 0;
    while k < more.len() {
        t[more[k] as usize] = true;
        k += 1;
    }
    t
}

static INNER: [bool; 256] = inner_bytes();
static FIRST: [bool; 256] = first_bytes();

/// The runs of `text` when its rendering is trivial (see the module docs),
/// else `None`.
pub(crate) fn runs(text: &str) -> Option<Vec<TextRun>> {
    if !bytes_leave_no_room(text.as_bytes()) || text.starts_with(super::BOM) {
        return None;
    }
    read_lines(text, true)
}

/// Whether the bytes of `b` (a text or one line) leave no room for inline
/// markup: every byte one a trivial text may hold, an `_` only between two
/// ASCII letters or digits, and none of the pairs that start inline markup.
fn bytes_leave_no_room(b: &[u8]) -> bool {
    if !b.iter().all(|&c| INNER[usize::from(c)]) {
        return false;
    }
    let word = |k: usize| b.get(k).is_some_and(u8::is_ascii_alphanumeric);
    // A run of `_` needs a letter or digit on both sides.
    let mut k = 0;
    while let Some(f) = memchr::memchr(b'_', &b[k..]) {
        let start = k + f;
        let end = start + b[start..].iter().take_while(|&&c| c == b'_').count();
        if !(start > 0 && word(start - 1) && word(end)) {
            return false;
        }
        k = end;
    }
    !PAIRS.iter().any(|pair| pair.find(b).is_some())
}

/// The pairs of bytes that start inline markup (`![`, `](`, `][`, `]:`), each
/// a substring finder built once.
static PAIRS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 4]> =
    std::sync::LazyLock::new(|| [&b"!["[..], b"](", b"][", b"]:"].map(memchr::memmem::Finder::new));

/// The runs of `text` read as a trivial text's: each paragraph (a stretch of
/// lines between lines of spaces only) one run, from its first byte to its
/// last that is not a space. The readers' context only when [`runs`] holds;
/// on any other text, the context forced trivial (what the scan costs with
/// no Markdown context, for the bench: `Context::forced_trivial`).
pub(crate) fn paragraphs(text: &str) -> Vec<TextRun> {
    read_lines(text, false).unwrap_or_default()
}

/// The paragraphs of `text` (see [`paragraphs`]); with `check`, `None` as
/// soon as a line that is not blank starts with a byte no trivial line
/// starts with.
fn read_lines(text: &str, check: bool) -> Option<Vec<TextRun>> {
    let b = text.as_bytes();
    let mut runs = Vec::new();
    // The paragraph being read: its start and its last byte not a space.
    let mut open: Option<(usize, usize)> = None;
    let mut line = 0;
    // One searcher over the text for every line's end.
    let mut ends = memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len()));
    while line <= b.len() {
        let end = ends.next().unwrap_or(b.len());
        let l = &b[line..end];
        match l.iter().rposition(|&c| c != b' ') {
            None => {
                if let Some((s, e)) = open.take() {
                    runs.push(paragraph(s, e));
                }
            }
            Some(last) => {
                if check && !FIRST[usize::from(l[0])] {
                    return None;
                }
                let e = line + last + 1;
                open = Some(open.map_or((line, e), |(s, _)| (s, e)));
            }
        }
        line = end + 1;
    }
    if let Some((s, e)) = open {
        runs.push(paragraph(s, e));
    }
    Some(runs)
}

fn paragraph(start: usize, end: usize) -> TextRun {
    TextRun {
        span: start..end,
        breaker: Breaker::Block,
        block_start: start,
        block_end: end,
    }
}

/// Whether `line` (one line, without its LF) could be a line of a text whose
/// rendering is trivial: what [`runs`] checks of a text, checked of one line
/// (every check but the byte order mark's is a check of each line alone).
/// A stream checks each line once, as it arrives.
pub(crate) fn line_is_trivial(line: &[u8]) -> bool {
    if memchr::memchr(b'\n', line).is_some() || !bytes_leave_no_room(line) {
        return false;
    }
    match line.iter().find(|&&c| c != b' ') {
        None => true,
        Some(_) => FIRST[usize::from(line[0])],
    }
}

/// The runs and the fences of `text` when its rendering is trivial but for
/// fenced code blocks outside every container (P272): every line outside a
/// fence is a trivial text's line, and each fence is one the readers cannot
/// read otherwise. An opening line starts unindented with a run of three or
/// more backticks or tildes followed by an info string of a trivial line's
/// bytes (so no backtick, no entity, no escape); no line of the body starts,
/// after blanks, with the fence's character, except the closing line, which
/// is the character alone, unindented, at least as many times, then spaces
/// only; no body line holds a CR. A fence may interrupt a paragraph and be
/// followed by one; a fence never closed runs to the end of the text. Else
/// `None`; a test compares the two paths over the vectors and generated
/// texts. The directive fences among them are those whose info string's
/// first word is one of `fence_words`, as the readers report them.
pub(crate) fn runs_and_fences(
    text: &str,
    fence_words: &[&str],
) -> Option<(Vec<TextRun>, Vec<Fence>)> {
    read_fences(text, fence_words).map(|(runs, fences, _)| (runs, fences))
}

/// What [`read_fences`] reads: the runs, the directive fences, and the
/// extent of every fenced code block.
pub(crate) type Fenced = (Vec<TextRun>, Vec<Fence>, Vec<std::ops::Range<usize>>);

/// [`runs_and_fences`], with the extent of every fenced code block (a
/// directive fence or not): the blocks a stream must not cut (P268).
pub(crate) fn read_fences(text: &str, fence_words: &[&str]) -> Option<Fenced> {
    let b = text.as_bytes();
    if !b.contains(&b'`') && !b.contains(&b'~') {
        return runs(text).map(|r| (r, Vec::new(), Vec::new()));
    }
    if text.starts_with(super::BOM) {
        return None;
    }
    let len = b.len();
    let line_end = |from: usize| memchr::memchr(b'\n', &b[from..]).map_or(len, |k| from + k);
    let mut runs = Vec::new();
    let mut fences = Vec::new();
    let mut code = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    let mut line = 0;
    while line <= len {
        let end = line_end(line);
        let l = &b[line..end];
        let ch = l.first().copied().filter(|&c| c == b'`' || c == b'~');
        let n = ch.map_or(0, |ch| l.iter().take_while(|&&c| c == ch).count());
        if let (Some(ch), true) = (ch, n >= 3) {
            // An opening fence line: its info string a trivial line's bytes.
            if !l[n..].iter().all(|&c| INNER[usize::from(c)] && c != b'\n') {
                return None;
            }
            if let Some((s, e)) = open.take() {
                runs.push(paragraph(s, e));
            }
            let body_start = (end + 1).min(len);
            let mut p = body_start;
            let mut close = None;
            while p < len {
                let e = line_end(p);
                let bl = &b[p..e];
                if bl.contains(&b'\r') {
                    return None;
                }
                let lead = bl.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
                if bl.get(lead) == Some(&ch) {
                    let run = bl.iter().take_while(|&&c| c == ch).count();
                    if lead == 0 && run >= n && bl[run..].iter().all(|&c| c == b' ') {
                        close = Some((p, e));
                        break;
                    }
                    return None;
                }
                p = e + 1;
            }
            let f = match close {
                Some((c, e)) => fence(text, line, e, body_start..c, true),
                None => fence(text, line, len, body_start..len, false),
            };
            code.push(f.span.clone());
            let word = &text[f.word.clone()];
            if fence_words.contains(&word) {
                fences.push(f);
            }
            match close {
                Some((_, e)) => line = e + 1,
                None => break,
            }
            continue;
        }
        match l.iter().rposition(|&c| c != b' ') {
            None => {
                if let Some((s, e)) = open.take() {
                    runs.push(paragraph(s, e));
                }
            }
            Some(last) => {
                if !line_is_trivial(l) {
                    return None;
                }
                let e = line + last + 1;
                open = Some(open.map_or((line, e), |(s, _)| (s, e)));
            }
        }
        line = end + 1;
    }
    if let Some((s, e)) = open {
        runs.push(paragraph(s, e));
    }
    Some((runs, fences, code))
}
