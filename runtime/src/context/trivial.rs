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

/// What [`bytes_leave_no_room`] does at each byte: 0 nothing, else one of
/// the `CLASS_*` constants.
const fn byte_classes() -> [u8; 256] {
    let inner = inner_bytes();
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        if !inner[c] {
            t[c] = CLASS_BANNED;
        }
        c += 1;
    }
    t[b'_' as usize] = CLASS_UNDERSCORE;
    t[b'!' as usize] = CLASS_BANG;
    t[b']' as usize] = CLASS_CLOSE;
    t
}

/// A byte no trivial text holds.
const CLASS_BANNED: u8 = 1;
/// `_`: its run needs an ASCII letter or digit on both sides.
const CLASS_UNDERSCORE: u8 = 2;
/// `!`: not before `[` (an image).
const CLASS_BANG: u8 = 3;
/// `]`: not before `(`, `[` or `:` (a link's destination, a full
/// reference, a definition).
const CLASS_CLOSE: u8 = 4;

static CLASSES: [u8; 256] = byte_classes();

/// Whether `CLASSES[c]` is not 0, by comparisons alone (no table: a loop of
/// it is vectorized).
#[inline(always)]
fn special(c: u8) -> bool {
    (c < 0x20 && c != b'\n')
        | (c == b'*')
        | (c == b'~')
        | (c == b'`')
        | (c == b'<')
        | (c == b'>')
        | (c == b'&')
        | (c == b'\\')
        | (c == 0x7f)
        | (c == b'_')
        | (c == b'!')
        | (c == b']')
}

/// Whether the bytes of `b` (a text or one line) leave no room for inline
/// markup: every byte one a trivial text may hold, an `_` only between two
/// ASCII letters or digits, and none of the pairs that start inline markup
/// (`![`, `](`, `][`, `]:`). One pass over the bytes.
fn bytes_leave_no_room(b: &[u8]) -> bool {
    let word = |k: usize| b.get(k).is_some_and(u8::is_ascii_alphanumeric);
    let mut k = 0;
    while k < b.len() {
        // Most bytes are plain: 32 at a time, by a test the compiler
        // turns into vector instructions, then on to the first special one.
        if let Some(chunk) = b.get(k..k + 32) {
            if !chunk.iter().fold(false, |a, &c| a | special(c)) {
                k += 32;
                continue;
            }
            k += chunk.iter().position(|&c| special(c)).unwrap_or(0);
        }
        match CLASSES[usize::from(b[k])] {
            0 => {}
            CLASS_UNDERSCORE => {
                // A run of `_` needs a letter or digit on both sides.
                let start = k;
                while b.get(k + 1) == Some(&b'_') {
                    k += 1;
                }
                if !(start > 0 && word(start - 1) && word(k + 1)) {
                    return false;
                }
            }
            CLASS_BANG => {
                if b.get(k + 1) == Some(&b'[') {
                    return false;
                }
            }
            CLASS_CLOSE => {
                if matches!(b.get(k + 1), Some(b'(' | b'[' | b':')) {
                    return false;
                }
            }
            _ => return false,
        }
        k += 1;
    }
    true
}

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
/// bytes (so no backtick, no entity, no escape); the closing line is the
/// character alone, unindented, at least as many times, then spaces only;
/// every other body line that starts, after blanks, with the fence's
/// character is unindented and cannot close it (a shorter run, or a byte
/// not blank after the run: P360); no body line holds a CR. A fence may interrupt a paragraph and be
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
    if memchr::memchr2(b'`', b'~', b).is_none() {
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
                if memchr::memchr(b'\r', bl).is_some() {
                    return None;
                }
                let lead = bl.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
                if bl.get(lead) == Some(&ch) {
                    let run = bl.iter().take_while(|&&c| c == ch).count();
                    let rest = &bl[run..];
                    if lead == 0 && run >= n && rest.iter().all(|&c| c == b' ') {
                        close = Some((p, e));
                        break;
                    }
                    // Unindented, too short a run or a byte not blank after
                    // it: a line no reader can read as the closing line, so
                    // a body line (P360). Any other line could close it.
                    let body =
                        lead == 0 && (run < n || rest.iter().any(|&c| c != b' ' && c != b'\t'));
                    if !body {
                        return None;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The check [`bytes_leave_no_room`] replaced (one pass per rule),
    /// kept to hold the fused pass to the same answers.
    fn replaced(b: &[u8]) -> bool {
        if !b.iter().all(|&c| inner_bytes()[usize::from(c)]) {
            return false;
        }
        let word = |k: usize| b.get(k).is_some_and(u8::is_ascii_alphanumeric);
        let mut k = 0;
        while let Some(f) = memchr::memchr(b'_', &b[k..]) {
            let start = k + f;
            let end = start + b[start..].iter().take_while(|&&c| c == b'_').count();
            if !(start > 0 && word(start - 1) && word(end)) {
                return false;
            }
            k = end;
        }
        ![&b"!["[..], b"](", b"][", b"]:"]
            .iter()
            .any(|pair| memchr::memmem::find(b, pair).is_some())
    }

    #[test]
    fn special_bytes_are_the_classed_ones() {
        for c in 0..=255u8 {
            assert_eq!(special(c), CLASSES[usize::from(c)] != 0, "{c}");
        }
    }

    /// Every string of up to five bytes over the bytes each rule turns on,
    /// and a few longer ones: the fused pass answers as the one it replaced.
    #[test]
    fn fused_pass_answers_as_the_passes_it_replaced() {
        let alphabet = b"a1_![](:* \n\xc3";
        let mut strings: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|s| {
                    alphabet.iter().map(move |&c| {
                        let mut t = s.clone();
                        t.push(c);
                        t
                    })
                })
                .collect();
            strings.extend(last.iter().cloned());
        }
        let (mut yes, mut no) = (0, 0);
        for s in &strings {
            let want = replaced(s);
            assert_eq!(
                bytes_leave_no_room(s),
                want,
                "{:?}",
                String::from_utf8_lossy(s)
            );
            if want {
                yes += 1;
            } else {
                no += 1;
            }
        }
        // Both answers are well represented.
        assert!(yes > 10_000 && no > 10_000, "{yes} {no}");
        // Longer strings, where whole chunks of plain bytes are skipped:
        // one or two bytes of the alphabet dropped into plain text.
        let plain = "Plain words of text, 42 (and more) here. ".repeat(3);
        for (i, &c) in alphabet.iter().enumerate() {
            for at in [0, 1, 31, 32, 33, 63, 64, 100, plain.len() - 1] {
                for &d in alphabet {
                    let mut t = plain.as_bytes().to_vec();
                    t[at] = c;
                    t[(at + 1 + i) % plain.len()] = d;
                    assert_eq!(
                        bytes_leave_no_room(&t),
                        replaced(&t),
                        "{:?}",
                        String::from_utf8_lossy(&t)
                    );
                }
            }
        }
        let long = "snake_case words [TOOL x] and (parens) end.".repeat(50);
        assert!(bytes_leave_no_room(long.as_bytes()));
        assert!(!bytes_leave_no_room(format!("{long}](").as_bytes()));
    }
}
