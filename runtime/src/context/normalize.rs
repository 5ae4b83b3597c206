//! What every reader reads: the text with its line endings made plain, in
//! one place, keeping every byte offset.

use std::borrow::Cow;

/// The byte order mark, which CommonMark readers skip at the start of a text.
pub(crate) const BOM: &str = "\u{feff}";

/// A text as the readers read it.
pub(crate) struct Normalized<'t> {
    /// The text, with every CR that no LF follows read as an LF (a lone CR
    /// is a line ending in CommonMark; not every reader reads it as one).
    /// Only ASCII bytes are replaced by ASCII bytes: offsets are the
    /// original's.
    pub text: Cow<'t, str>,
    /// Where the readers start: after a byte order mark, if the text starts
    /// with one.
    pub from: usize,
}

/// `text`, normalized (see [`Normalized`]).
pub(crate) fn normalize(text: &str) -> Normalized<'_> {
    let from = if text.starts_with(BOM) { BOM.len() } else { 0 };
    Normalized {
        text: lone_crs_as_lf(text).map_or(Cow::Borrowed(text), Cow::Owned),
        from,
    }
}

/// `text` with every CR that no LF follows replaced by an LF, when it has one.
fn lone_crs_as_lf(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let lone = |i: usize| b.get(i + 1) != Some(&b'\n');
    memchr::memchr_iter(b'\r', b).find(|&i| lone(i))?;
    let mut out = b.to_vec();
    for i in memchr::memchr_iter(b'\r', b).filter(|&i| lone(i)) {
        out[i] = b'\n';
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(out).ok()
}

/// `text`, a section of a longer text that does not start it, normalized: a
/// byte order mark there is a character like any other.
pub(crate) fn normalize_section(text: &str) -> Normalized<'_> {
    Normalized {
        text: lone_crs_as_lf(text).map_or(Cow::Borrowed(text), Cow::Owned),
        from: 0,
    }
}
