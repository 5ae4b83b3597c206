//! A strict JSON object read once, straight into its final form (issue 27).
//!
//! [`super::scan_object`] reads an object in two passes: [`super::syntax_end`]
//! finds where it ends (and where a broken one stops), then `serde_json`
//! builds the value and the strict checks run. Most objects a scan meets are
//! well formed, so this reader first tries to build the value in one pass,
//! checking as it goes everything the two passes check: JSON syntax, nesting
//! depth, size, duplicate keys, escapes and surrogate pairs, integers within
//! 64 bits. It answers only when it is sure of the same result; on anything
//! else (any fault, a lone surrogate, a float out of range) it answers
//! nothing, and the two passes run as before, so every error, its message and
//! the offset a scan resumes at stay exactly what they were.

use serde_json::{map::Entry, Map, Number, Value};

use super::{number_end, Limits};

/// Deepest nesting this reader follows (it recurses once per level): the
/// deepest `serde_json` reads in the two passes (its recursion limit of 128
/// fails a value 128 levels deep). A deeper object, when the limits allow it
/// (`max_json_depth` may be 128), is left to the two passes, which reject it.
const MAX_RECURSION: usize = 127;

/// The object whose `{` is at byte `start` of `text`, and the offset just
/// after its `}`, when it is one that [`super::scan_object`] accepts within
/// `limits`, exactly as that function would return it; `None` for every
/// other text (the caller then runs the two passes for the verdict).
pub(super) fn object_at(
    text: &str,
    start: usize,
    limits: Limits,
) -> Option<(Map<String, Value>, usize)> {
    let mut r = Reader {
        text,
        b: text.as_bytes(),
        i: start,
        max_depth: limits.max_depth.min(MAX_RECURSION),
        past: start.saturating_add(limits.max_bytes),
    };
    if r.b.get(start) != Some(&b'{') {
        return None;
    }
    let map = r.object(1)?;
    (r.i - start <= limits.max_bytes).then_some((map, r.i))
}

/// The object that `text` is as a whole (whitespace around it allowed), when
/// [`super::parse_object_with`] accepts it within `limits`, as that function
/// would return it; `None` for every other text.
pub(super) fn whole_object(text: &str, limits: Limits) -> Option<Map<String, Value>> {
    if text.len() > limits.max_bytes {
        return None;
    }
    let mut r = Reader {
        text,
        b: text.as_bytes(),
        i: 0,
        max_depth: limits.max_depth.min(MAX_RECURSION),
        // The whole text is within the size limit (checked above).
        past: usize::MAX,
    };
    r.ws();
    if r.b.get(r.i) != Some(&b'{') {
        return None;
    }
    let map = r.object(1)?;
    r.ws();
    (r.i == r.b.len()).then_some(map)
}

/// The bytes that end a run of plain string bytes: `"`, `\` and the control
/// bytes (below U+0020), which JSON strings may not hold raw.
const STRING_STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

struct Reader<'t> {
    text: &'t str,
    b: &'t [u8],
    /// The next byte to read.
    i: usize,
    max_depth: usize,
    /// The last offset the object may reach within the size limit: a
    /// value read past it makes the object too large, so the reader stops
    /// there instead of building what the two passes reject unread.
    past: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|&c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    /// The value at the next byte (after whitespace), inside a container
    /// at nesting `depth`.
    fn value(&mut self, depth: usize) -> Option<Value> {
        self.ws();
        if self.i > self.past {
            return None;
        }
        match *self.b.get(self.i)? {
            b'{' => self.object(depth + 1).map(Value::Object),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(Value::String),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, lit: &[u8], v: Value) -> Option<Value> {
        let end = self.i + lit.len();
        (self.b.get(self.i..end) == Some(lit)).then(|| {
            self.i = end;
            v
        })
    }

    /// The object whose `{` is the next byte, at nesting `depth`.
    fn object(&mut self, depth: usize) -> Option<Map<String, Value>> {
        if depth > self.max_depth {
            return None;
        }
        self.i += 1;
        self.ws();
        let mut map = Map::new();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(map);
        }
        loop {
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let key = self.string()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return None;
            }
            self.i += 1;
            match map.entry(key) {
                Entry::Occupied(_) => return None,
                Entry::Vacant(e) => {
                    e.insert(self.value(depth)?);
                }
            }
            self.ws();
            match self.b.get(self.i)? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                b'}' => {
                    self.i += 1;
                    return Some(map);
                }
                _ => return None,
            }
        }
    }

    /// The array whose `[` is the next byte, at nesting `depth`.
    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth > self.max_depth {
            return None;
        }
        self.i += 1;
        self.ws();
        let mut items = Vec::new();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.ws();
            match self.b.get(self.i)? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(Value::Array(items));
                }
                _ => return None,
            }
        }
    }

    /// The string whose `"` is the next byte, its escapes decoded.
    fn string(&mut self) -> Option<String> {
        let b = self.b;
        let start = self.i + 1;
        let mut j = start;
        while j < b.len() && !STRING_STOPS[usize::from(b[j])] {
            j += 1;
        }
        if b.get(j) == Some(&b'"') {
            self.i = j + 1;
            return Some(self.text[start..j].to_owned());
        }
        let mut out = String::with_capacity(j - start + 8);
        out.push_str(&self.text[start..j]);
        loop {
            let from = j;
            while j < b.len() && !STRING_STOPS[usize::from(b[j])] {
                j += 1;
            }
            out.push_str(&self.text[from..j]);
            match *b.get(j)? {
                b'"' => {
                    self.i = j + 1;
                    return Some(out);
                }
                b'\\' => {
                    let c = match *b.get(j + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let (c, len) = self.unicode_escape(j)?;
                            out.push(c);
                            j += len;
                            continue;
                        }
                        _ => return None,
                    };
                    out.push(c);
                    j += 2;
                }
                // A raw control byte.
                _ => return None,
            }
        }
    }

    /// The four hex digits after the `\u` at `at`.
    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.b.get(at + 2..at + 6)?;
        digits.iter().try_fold(0u32, |n, &d| {
            let v = char::from(d).to_digit(16)?;
            Some(n * 16 + v)
        })
    }

    /// The character of the `\u` escape at `at` (a surrogate pair as one),
    /// and how many bytes its escapes take; `None` for a lone surrogate.
    fn unicode_escape(&self, at: usize) -> Option<(char, usize)> {
        let hi = self.hex4(at)?;
        match hi {
            0xD800..=0xDBFF => {
                if self.b.get(at + 6..at + 8) != Some(b"\\u") {
                    return None;
                }
                let lo = self.hex4(at + 6)?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return None;
                }
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                Some((char::from_u32(c)?, 12))
            }
            0xDC00..=0xDFFF => None,
            _ => Some((char::from_u32(hi)?, 6)),
        }
    }

    /// The number at the next byte, as `serde_json` reads it: an integer as
    /// a 64-bit integer (`-0` as the float `-0.0`), anything else as a
    /// float; `None` for an integer outside 64 bits or a float out of range.
    fn number(&mut self) -> Option<Value> {
        let from = self.i;
        let end = number_end(self.b, from).ok()?;
        self.i = end;
        let token = &self.text[from..end];
        let n = if token.contains(['.', 'e', 'E']) {
            // `serde_json` with `float_roundtrip` rounds as `str::parse` does.
            let f: f64 = token.parse().ok()?;
            if !f.is_finite() {
                return None;
            }
            Number::from_f64(f)?
        } else if token.starts_with('-') {
            match token.parse::<i64>().ok()? {
                0 => Number::from_f64(-0.0)?,
                v => Number::from(v),
            }
        } else {
            Number::from(token.parse::<u64>().ok()?)
        };
        Some(Value::Number(n))
    }
}
