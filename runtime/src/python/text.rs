//! Text conversion: byte offsets to `str` indexes ([`CharIndex`]), and a
//! Python `str` read as UTF-8 without a copy where CPython caches it.

use super::*;

/// Byte offset → `str` index: what a `Span` is built with.
pub trait CharAt {
    /// The code point index of byte offset `at` (a char boundary).
    fn at(&mut self, at: usize) -> usize;
}

impl CharAt for CharIndex<'_> {
    fn at(&mut self, at: usize) -> usize {
        CharIndex::at(self, at)
    }
}

/// Byte offset → `str` index, for offsets visited mostly in increasing
/// order (each list of a scan result is): linear in the text overall.
pub struct CharIndex<'t> {
    text: &'t [u8],
    ascii: bool,
    byte: usize,
    char: usize,
}

impl<'t> CharIndex<'t> {
    /// An index over `text`.
    pub fn new(text: &'t str) -> Self {
        CharIndex {
            text: text.as_bytes(),
            ascii: text.is_ascii(),
            byte: 0,
            char: 0,
        }
    }

    /// The code point index of byte offset `at` (a char boundary of the text).
    pub fn at(&mut self, at: usize) -> usize {
        if self.ascii {
            return at;
        }
        let count = bytecount::num_chars;
        if at >= self.byte {
            self.char += count(&self.text[self.byte..at]);
        } else {
            self.char -= count(&self.text[at..self.byte]);
        }
        self.byte = at;
        self.char
    }
}

/// Texts of at most this many characters are read through CPython's UTF-8
/// cache, larger ones through a temporary copy (decision P115).
pub const CACHED_UTF8_MAX_CHARS: usize = 1 << 20;

/// The UTF-8 bytes of a Python `str` (decision P115). An ASCII `str` is read
/// in place (its characters are its UTF-8). Any other up to
/// [`CACHED_UTF8_MAX_CHARS`] characters through CPython's UTF-8 cache, as
/// C extensions usually do: encoded once, kept inside the `str` for its life,
/// so scanning the same text again costs no second encoding. A larger one is
/// encoded into a temporary `bytes` dropped with this value, so that a 1 GB
/// text does not hold 2 GB for the rest of its life.
pub(super) struct Utf8<'a, 'py> {
    cached: Option<&'a str>,
    encoded: Option<Bound<'py, PyBytes>>,
}

impl<'a, 'py> Utf8<'a, 'py> {
    /// # Errors
    /// `UnicodeEncodeError` for a lone surrogate.
    pub(super) fn of(text: &'a Bound<'py, PyString>) -> PyResult<Self> {
        // CPython's own `str` functions, never the object's methods: a `str`
        // subclass's `__len__` or `isascii` runs no code of its own here.
        let py = text.py();
        // SAFETY: `text` is a live `str` (a `PyString`, subclasses included).
        let chars = unsafe { ffi::PyUnicode_GetLength(text.as_ptr()) };
        if chars < 0 {
            return Err(PyErr::fetch(py));
        }
        if chars as usize <= CACHED_UTF8_MAX_CHARS
            || py
                .get_type::<PyString>()
                .call_method1(pyo3::intern!(py, "isascii"), (text,))?
                .is_truthy()?
        {
            return Ok(Utf8 {
                cached: Some(text.to_str()?),
                encoded: None,
            });
        }
        Ok(Utf8 {
            cached: None,
            encoded: Some(text.encode_utf8()?),
        })
    }

    pub(super) fn as_str(&self) -> &str {
        match (&self.cached, &self.encoded) {
            (Some(s), _) => s,
            // SAFETY: CPython's strict UTF-8 encoder (`str.encode("utf-8")`,
            // which `encode_utf8` calls) writes valid UTF-8 or fails.
            (None, Some(b)) => unsafe { std::str::from_utf8_unchecked(b.as_bytes()) },
            (None, None) => unreachable!("one of the two is set"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CharIndex;

    #[test]
    fn char_indexes_count_code_points_both_ways() {
        let text = "é [CLAIM 7f] 😀x";
        let mut idx = CharIndex::new(text);
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(idx.at(at("[")), 2);
        assert_eq!(idx.at(at("x")), text[..at("x")].chars().count());
        assert_eq!(idx.at(0), 0);
        assert_eq!(idx.at(text.len()), text.chars().count());
        let mut ascii = CharIndex::new("abc");
        assert_eq!(ascii.at(2), 2);
    }
}
