//! Where a JSON value ends by syntax alone, and an object found in a text
//! (`scan_object`): the syntax pass, then the strict read.

use serde_json::{Map, Value};

use super::*;

/// Why [`scan_object`] found no object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    /// Byte offset (into the whole text) where scanning may resume: the
    /// first byte that cannot continue the JSON value, or, when the value is
    /// well-formed JSON but not an acceptable object (too deep, too large,
    /// duplicate keys, …), the byte just after it. No byte inside the value
    /// is ever rescanned, so text inside its strings is never read as markers.
    pub at: usize,
    /// True when the text ended before the value did.
    pub truncated: bool,
    /// What is wrong.
    pub error: JsonError,
}

/// Where a JSON value that starts at byte `start` ends, by JSON syntax alone
/// (RFC 8259: strings with their escapes, numbers, literals, nesting), and the
/// deepest nesting it reached. Iterative (a byte per open container, no
/// recursion) and linear in the bytes it reads; it stops at the first byte
/// that cannot continue the value. The Python package ports this function
/// byte for byte, so both scanners resume at the same offsets.
///
/// # Errors
/// `(offset, truncated, message)`: the offset of the first byte that cannot
/// continue the value (the text's length when it ended first).
pub fn syntax_end(text: &str, start: usize) -> Result<(usize, usize), (usize, bool, String)> {
    syntax_end_with(text, start, &mut None)
}

/// [`syntax_end`], also noting in `big` the span of the first integer literal
/// outside the 64-bit range (what [`check_integer_literals`] would reject),
/// so the object need not be read a third time.
pub(super) fn syntax_end_with(
    text: &str,
    start: usize,
    big: &mut Option<(usize, usize)>,
) -> Result<(usize, usize), (usize, bool, String)> {
    let b = text.as_bytes();
    let n = b.len();
    let mut i = start;
    let mut stack: Vec<u8> = Vec::new();
    let mut deepest = 0usize;
    let fail = |i: usize, what: &str| -> Result<(usize, usize), (usize, bool, String)> {
        if i >= n {
            Err((
                n,
                true,
                format!("the text ends inside the JSON value (expected {what})"),
            ))
        } else {
            Err((i, false, format!("expected {what} at byte {i}")))
        }
    };
    let ws = |mut i: usize| {
        while i < n && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    };
    // A member's key and its colon, from `i`; the offset just after the colon.
    let key_colon = |i: usize, expected: &str| -> Result<usize, (usize, bool, String)> {
        if i >= n || b[i] != b'"' {
            return fail(i, expected).map(|_| i);
        }
        let i = ws(string_end(text, i)?);
        if i >= n || b[i] != b':' {
            return fail(i, "`:`").map(|_| i);
        }
        Ok(i + 1)
    };
    // States: expecting a value; after a value (inside a container or at the end).
    'value: loop {
        i = ws(i);
        if i >= n {
            return fail(i, "a value");
        }
        match b[i] {
            b'{' | b'[' => {
                stack.push(b[i]);
                deepest = deepest.max(stack.len());
                i = ws(i + 1);
                let top = *stack.last().expect("just pushed");
                if i < n && b[i] == if top == b'{' { b'}' } else { b']' } {
                    stack.pop();
                    i += 1;
                } else if top == b'{' {
                    i = key_colon(i, "a string key or `}`")?;
                    continue 'value;
                } else {
                    continue 'value;
                }
            }
            b'"' => {
                i = string_end(text, i)?;
            }
            b't' | b'f' | b'n' => {
                let lit: &[u8] = match b[i] {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                for (k, &c) in lit.iter().enumerate() {
                    if i + k >= n || b[i + k] != c {
                        return fail(i + k, "a literal");
                    }
                }
                i += lit.len();
            }
            b'-' | b'0'..=b'9' => {
                let from = i;
                i = number_end(b, i)
                    .map_err(|at| (at, at >= n, format!("invalid number at byte {at}")))?;
                if big.is_none() && integer_out_of_range(&text[from..i]).is_some() {
                    *big = Some((from, i));
                }
            }
            _ => return fail(i, "a value"),
        }
        // After a value: close containers or continue with `,`.
        loop {
            let Some(&top) = stack.last() else {
                return Ok((i, deepest));
            };
            i = ws(i);
            if i >= n {
                return fail(i, "`,` or a closing bracket");
            }
            let close = if top == b'{' { b'}' } else { b']' };
            if b[i] == close {
                stack.pop();
                i += 1;
                continue;
            }
            if b[i] != b',' {
                return fail(i, "`,` or a closing bracket");
            }
            i = ws(i + 1);
            if i < n && b[i] == close {
                return Err((
                    i,
                    false,
                    format!("trailing comma before `{}` at byte {i}", close as char),
                ));
            }
            if top == b'{' {
                i = key_colon(i, "a string key")?;
            }
            continue 'value;
        }
    }
}

/// The end of the string starting with the `"` at `i`: escapes must be
/// valid, raw control characters (below U+0020) are not allowed.
///
/// A string that fails before the text ends fails as a whole: the error's
/// offset is where that string could end ([`string_resume`]), so no byte that
/// was inside it is ever scanned again (P80). The message names the fault and
/// the byte it starts at.
pub(super) fn string_end(text: &str, mut i: usize) -> Result<usize, (usize, bool, String)> {
    let b = text.as_bytes();
    let n = b.len();
    let truncated = || Err((n, true, "unterminated or invalid string".to_owned()));
    i += 1;
    while i < n {
        match b[i] {
            b'"' => return Ok(i + 1),
            b'\\' => match b.get(i + 1) {
                None => return truncated(),
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    for k in 2..6 {
                        match b.get(i + k) {
                            None => return truncated(),
                            Some(c) if c.is_ascii_hexdigit() => {}
                            Some(_) => {
                                return Err((
                                    string_resume(b, i),
                                    false,
                                    format!("invalid `\\u` escape at byte {i}"),
                                ))
                            }
                        }
                    }
                    i += 6;
                }
                Some(_) => {
                    let c = text[i + 1..].chars().next().expect("a byte follows");
                    let shown = if c.is_control() {
                        format!("U+{:04X}", u32::from(c))
                    } else {
                        c.to_string()
                    };
                    return Err((
                        string_resume(b, i),
                        false,
                        format!("invalid escape `\\{shown}` in a string at byte {i}"),
                    ));
                }
            },
            c if c < 0x20 => {
                return Err((
                    string_resume(b, i),
                    false,
                    format!("raw control character U+{:04X} in a string at byte {i}", c),
                ));
            }
            _ => i += 1,
        }
    }
    truncated()
}

/// Where a string that failed at byte `from` (a bad escape's `\`, or a raw
/// control character) could end: just after the next `"` on the same line that
/// is not escaped (a `\` escapes the next byte, whatever it is, except a
/// newline), else the line's `\n` byte, else the end of the text.
pub(super) fn string_resume(b: &[u8], from: usize) -> usize {
    let n = b.len();
    let mut i = from;
    while i < n {
        match b[i] {
            b'\n' => return i,
            b'"' => return i + 1,
            b'\\' if b.get(i + 1).is_some_and(|&c| c != b'\n') => i += 2,
            _ => i += 1,
        }
    }
    n
}

/// The end of the number starting at `i` (`-? (0|[1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`).
pub(super) fn number_end(b: &[u8], mut i: usize) -> Result<usize, usize> {
    let n = b.len();
    let digits = |mut i: usize| {
        let s = i;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i > s)
    };
    if b[i] == b'-' {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i).0,
        _ => return Err(i),
    }
    if i < n && b[i] == b'.' {
        let (j, any) = digits(i + 1);
        if !any {
            return Err(j);
        }
        i = j;
    }
    if i < n && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < n && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let (j, any) = digits(i);
        if !any {
            return Err(j);
        }
        i = j;
    }
    Ok(i)
}

/// Scans one strict JSON object that starts at byte `start` of `text` (which
/// must be `{`): [`syntax_end`] finds where it ends, then the object is read
/// strictly ([`parse_object_with`]: duplicate keys, integer range, lone
/// surrogates, depth and size limits). Returns the object and the byte offset
/// just after it. Linear in the bytes of the value: an acceptable object is
/// read once, straight into its value (`once.rs`); any other is read again by
/// the two passes, which give the error and where scanning resumes.
///
/// # Errors
/// [`ScanError`]: at the first byte that cannot continue the value, or just
/// after a well-formed value that is not an acceptable object.
pub fn scan_object(
    text: &str,
    start: usize,
    limits: Limits,
) -> Result<(Map<String, Value>, usize), ScanError> {
    if let Some(found) = once::object_at(text, start, limits) {
        return Ok(found);
    }
    scan_object_two_passes(text, start, limits)
}

/// [`scan_object`] by its two passes alone: [`syntax_end`], then
/// `serde_json` and the strict checks.
pub(super) fn scan_object_two_passes(
    text: &str,
    start: usize,
    limits: Limits,
) -> Result<(Map<String, Value>, usize), ScanError> {
    let mut big = None;
    let (end, depth) = match syntax_end_with(text, start, &mut big) {
        Ok(x) => x,
        Err((at, truncated, message)) => {
            return Err(ScanError {
                at: at.max(start + 1),
                truncated,
                error: JsonError { message },
            })
        }
    };
    let err = |message: String| ScanError {
        at: end,
        truncated: false,
        error: JsonError { message },
    };
    if end - start > limits.max_bytes {
        return Err(err(format!(
            "the arguments are longer than {} bytes",
            limits.max_bytes
        )));
    }
    if depth > limits.max_depth {
        return Err(err(format!(
            "nested deeper than {} levels",
            limits.max_depth
        )));
    }
    // As `parse_object_with`, faults in the same order; the integers were
    // read by `syntax_end_with` in the order `check_integer_literals` reads them.
    let value = parse_value(&text[start..end], limits).map_err(|e| err(e.message))?;
    if let Some(e) = big.and_then(|(a, b)| integer_out_of_range(&text[a..b])) {
        return Err(err(e.message));
    }
    match value {
        Value::Object(map) => Ok((map, end)),
        _ => Err(err("the arguments are not a JSON object".into())),
    }
}
