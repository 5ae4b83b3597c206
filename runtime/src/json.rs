//! Tool arguments: one strict JSON object (RFC 8259), parsed without loss and
//! rendered canonically.
//!
//! Parsing rejects, beyond what `serde_json` rejects already (trailing commas,
//! comments, single quotes, bare keys, `NaN`/`Infinity`, raw control
//! characters in strings, lone surrogates, trailing text): duplicate keys (two
//! readers could see two different commands) and nesting deeper than
//! [`MAX_DEPTH`].
//!
//! Integer literals outside the 64-bit range (`-2^63 ..= 2^64-1`) are
//! rejected too: `serde_json` would silently turn them into floats and Python
//! would keep them exact, so the two readers would disagree on the value.
//! `-0` is read as the float `-0.0`, as `serde_json` does.
//!
//! Rendering is the canonical form the spec's examples use, the same as
//! Python's `json.dumps(value, ensure_ascii=False)`: `", "` between members,
//! `": "` after keys, keys in their original order, and floats written as
//! Python's `repr(float)` writes them ([`format_float`]), so the generated
//! Python package renders byte for byte the same text.

mod once;

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Deepest nesting of objects and arrays accepted (the outer object is 1).
pub const MAX_DEPTH: usize = 64;

/// Why a text is not one strict JSON object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JsonError {}

/// Limits on a JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Deepest nesting of objects and arrays (the outer object is 1).
    pub max_depth: usize,
    /// Largest object, in bytes of its JSON text.
    pub max_bytes: usize,
}

impl Default for Limits {
    /// [`MAX_DEPTH`] levels, no size limit.
    fn default() -> Self {
        Limits {
            max_depth: MAX_DEPTH,
            max_bytes: usize::MAX,
        }
    }
}

/// Parses `text` as exactly one strict JSON object, within [`Limits::default`].
///
/// # Errors
/// [`JsonError`] when the text is not valid JSON, is not an object, holds a
/// duplicate key at any level, or nests deeper than [`MAX_DEPTH`].
pub fn parse_object(text: &str) -> Result<Map<String, Value>, JsonError> {
    parse_object_with(text, Limits::default())
}

/// Parses `text` as exactly one strict JSON object within `limits`.
///
/// # Errors
/// As [`parse_object`], and when the text is longer than `limits.max_bytes`.
pub fn parse_object_with(text: &str, limits: Limits) -> Result<Map<String, Value>, JsonError> {
    // A well-formed object is read once; anything else as before (`once.rs`).
    if let Some(map) = once::whole_object(text, limits) {
        return Ok(map);
    }
    let value = parse_value(text, limits)?;
    check_integer_literals(text)?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(JsonError {
            message: "the arguments are not a JSON object".into(),
        }),
    }
}

/// [`parse_object_with`] up to its integer check: the size limit, then
/// `serde_json` with duplicate keys and depth checked.
fn parse_value(text: &str, limits: Limits) -> Result<Value, JsonError> {
    if text.len() > limits.max_bytes {
        return Err(JsonError {
            message: format!("the arguments are longer than {} bytes", limits.max_bytes),
        });
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue {
        depth: 0,
        max_depth: limits.max_depth,
    }
    .deserialize(&mut de)
    .map_err(|e| JsonError {
        message: e.to_string(),
    })?;
    de.end().map_err(|e| JsonError {
        message: e.to_string(),
    })?;
    Ok(value)
}

/// The error of an integer literal outside `-2^63 ..= 2^64-1`, if `token`
/// (a well-formed JSON number) is one.
fn integer_out_of_range(token: &str) -> Option<JsonError> {
    // Up to 18 digits, with or without a sign, always fits.
    if token.len() < 19 {
        return None;
    }
    let integer = !token.contains(['.', 'e', 'E']);
    (integer && token.parse::<i64>().is_err() && token.parse::<u64>().is_err()).then(|| JsonError {
        message: format!("integer `{token}` is outside the 64-bit range"),
    })
}

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
fn syntax_end_with(
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
fn string_end(text: &str, mut i: usize) -> Result<usize, (usize, bool, String)> {
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
fn string_resume(b: &[u8], from: usize) -> usize {
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
fn number_end(b: &[u8], mut i: usize) -> Result<usize, usize> {
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
fn scan_object_two_passes(
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

/// Rejects integer literals (no fraction, no exponent) outside
/// `-2^63 ..= 2^64-1`. Runs on text `serde_json` already accepted, so every
/// number token outside a string is well formed.
fn check_integer_literals(text: &str) -> Result<(), JsonError> {
    let bytes = text.as_bytes();
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if b == b'-' || b.is_ascii_digit() {
            let start = i;
            while i < bytes.len()
                && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
            {
                i += 1;
            }
            if let Some(e) = integer_out_of_range(&text[start..i]) {
                return Err(e);
            }
            continue;
        }
        i += 1;
    }
    Ok(())
}

struct StrictValue {
    depth: usize,
    max_depth: usize,
}

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > self.max_depth {
            return Err(de::Error::custom(format!(
                "nested deeper than {} levels",
                self.max_depth
            )));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue {
            depth,
            max_depth: self.max_depth,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > self.max_depth {
            return Err(de::Error::custom(format!(
                "nested deeper than {} levels",
                self.max_depth
            )));
        }
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            // One lookup: a duplicate fails before its value is read.
            match out.entry(key) {
                serde_json::map::Entry::Occupied(e) => {
                    return Err(de::Error::custom(format!("duplicate key `{}`", e.key())))
                }
                serde_json::map::Entry::Vacant(e) => {
                    e.insert(map.next_value_seed(StrictValue {
                        depth,
                        max_depth: self.max_depth,
                    })?);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// Renders a JSON object canonically (see the module docs).
pub fn render_object(map: &Map<String, Value>) -> String {
    let mut out = String::new();
    write_object(map, &mut out);
    out
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_string(k, out);
        out.push_str(": ");
        write_value(v, out);
    }
    out.push('}');
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => out.push_str(&format_float(f)),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(m) => write_object(m, out),
    }
}

/// A finite float as Python's `repr(float)` writes it: the shortest digits
/// that read back to the same value, in positional form (with at least one
/// digit after the point) when the decimal exponent is in `-4 ..= 15`, else
/// in scientific form with a signed, at least two-digit exponent:
/// `1.0`, `0.0001`, `1e-05`, `1000000000000000.0`, `1e+16`, `-0.0`.
///
/// Non-finite values (which a JSON value cannot hold) are written as
/// Python writes them (`inf`, `nan`), for completeness.
pub fn format_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "nan".into()
        } else if f > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let (digits, exp) = shortest_digits(f.abs());
    let sign = if f.is_sign_negative() { "-" } else { "" };
    // Python's float_repr_style 'short': positional unless decpt <= -4 or decpt > 16,
    // where the value is 0.DIGITS x 10^decpt.
    let decpt = exp + 1;
    let n = digits.len() as i32;
    if decpt <= -4 || decpt > 16 {
        let rest = &digits[1..];
        let dot = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{}{dot}e{esign}{:02}", &digits[..1], exp.abs())
    } else if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt < n {
        format!(
            "{sign}{}.{}",
            &digits[..decpt as usize],
            &digits[decpt as usize..]
        )
    } else {
        format!("{sign}{digits}{}.0", "0".repeat((decpt - n) as usize))
    }
}

/// Splits `{:e}` output into its digits (no point) and decimal exponent.
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci
        .split_once('e')
        .expect("`{:e}` always writes an exponent");
    (
        mantissa.chars().filter(|c| *c != '.').collect(),
        exp.parse().expect("`{:e}` writes a decimal exponent"),
    )
}

/// The shortest digits that read back as `f` (finite, not negative) and the
/// decimal exponent of the first, as Python's repr picks them.
///
/// Rust's `{:e}` gives the shortest round-trip digits too, but when the exact
/// value lies exactly halfway between two shortest candidates it takes the
/// upper one, where Python (David Gay's dtoa, mode 0) takes the one with the
/// even last digit: `1745217763127424.25` is `…424.3` in Rust, `…424.2` in
/// Python. So the neighbours of Rust's candidate are checked for such a tie.
fn shortest_digits(f: f64) -> (String, i32) {
    let (digits, exp) = split_sci(&format!("{f:e}"));
    let last = digits.as_bytes()[digits.len() - 1] - b'0';
    let with_last = |d: u8| format!("{}{}", &digits[..digits.len() - 1], d);
    // A neighbour in the last place, when no carry or borrow is involved (a
    // shortest candidate never ends in 0, and a neighbour ending in 0 would be
    // a shorter candidate, which `{:e}` would have found).
    let neighbours = [
        last.checked_sub(1).filter(|d| *d > 0),
        (last < 9).then_some(last + 1),
    ];
    for n in neighbours.into_iter().flatten() {
        let other = with_last(n);
        let reads_back = format!("{}.{}e{exp}", &other[..1], &other[1..]).parse::<f64>() == Ok(f);
        if !reads_back || n % 2 == 1 {
            continue;
        }
        // A tie: the exact value (at most 767 significant digits) is the
        // midpoint, the lower candidate followed by a 5.
        let lower = if n < last {
            other.clone()
        } else {
            digits.clone()
        };
        let (exact, exact_exp) = split_sci(&format!("{f:.800e}"));
        if exact_exp == exp && exact.trim_end_matches('0') == format!("{lower}5") {
            return (other, exp);
        }
    }
    (digits, exp)
}

fn write_string(s: &str, out: &mut String) {
    // serde_json escapes exactly what Python's json.dumps(ensure_ascii=False)
    // escapes: `"`, `\`, and control characters below U+0020.
    out.push_str(&serde_json::to_string(s).expect("a str always serializes"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass reader answers only with what the two passes give, and
    /// answers for every acceptable object (here: every one without a lone
    /// surrogate).
    #[test]
    fn an_object_read_once_is_what_the_two_passes_read() {
        let limits = Limits {
            max_depth: 4,
            max_bytes: 200,
        };
        let cases = [
            r#"{}"#,
            r#"{"a": 1, "b": [true, false, null], "c": {"d": "e"}}"#,
            r#"{ "a" : -0 , "b" : 0 , "c" : -1, "d": 18446744073709551615, "e": -9223372036854775808}"#,
            r#"{"f": [1.5, -2.25e3, 1E2, 0e999, 1e-400, -1e-400, 2.2250738585072011e-308]}"#,
            r#"{"g": [123456789012345678901234567890.5, 4.9e-324, 1.7976931348623157e308, -0.0]}"#,
            r#"{"s": "a\"b\\c\/d\b\f\n\r\t\u00e9\u2028\ud83d\ude00 é —", "k\u0041": 1}"#,
            r#"{"a": [[[1]]]}"#,
            // Each rejected, or left to the two passes.
            r#"{"a": [[[[1]]]]}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1, "\u0061": 2}"#,
            r#"{"a": 18446744073709551616}"#,
            r#"{"a": -9223372036854775809}"#,
            r#"{"a": 1e400}"#,
            r#"{"a": "\ud800"}"#,
            r#"{"a": "\udc00x"}"#,
            r#"{"a": "\ud800\u0041"}"#,
            r#"{"a": "\x"}"#,
            "{\"a\": \"\u{1}\"}",
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": tru}"#,
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r#"{"a": [1,]}"#,
            r#"{"a": 1"#,
            r#"{"a": "x"#,
            r#"{"long": "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"}"#,
        ];
        let lone = |t: &str| t.contains("\\ud800") || t.contains("\\udc00");
        for case in cases {
            for text in [case.to_owned(), format!("x {case} y]")] {
                let start = text.find('{').unwrap();
                let slow = scan_object_two_passes(&text, start, limits);
                match once::object_at(&text, start, limits) {
                    Some(fast) => assert_eq!(Ok(fast), slow, "{text}"),
                    None => assert!(slow.is_err() || lone(&text), "{text}: {slow:?}"),
                }
            }
            let slow = parse_value(case, limits).and_then(|v| {
                check_integer_literals(case)?;
                Ok(v)
            });
            match once::whole_object(&format!(" {case}\n"), limits) {
                Some(fast) => assert_eq!(Ok(Value::Object(fast)), slow, "{case}"),
                None => assert!(slow.is_err() || lone(case), "{case}: {slow:?}"),
            }
        }
    }

    /// The one-pass reader follows no deeper than `serde_json` reads: with
    /// a depth limit past its recursion limit (a spec's `max_json_depth` may
    /// be 128), an object or array 128 levels deep is still rejected.
    #[test]
    fn an_object_read_once_is_no_deeper_than_the_two_passes_read() {
        let nested = |depth: usize, open: &str, close: &str| {
            format!(
                "{{\"a\": {}1{}}}",
                open.repeat(depth - 1),
                close.repeat(depth - 1)
            )
        };
        for max_depth in [126, 127, 128, 129, 200] {
            let limits = Limits {
                max_depth,
                max_bytes: usize::MAX,
            };
            for depth in 125..=130 {
                for text in [nested(depth, "[", "]"), nested(depth, "{\"a\": ", "}")] {
                    let slow = scan_object_two_passes(&text, 0, limits);
                    let fast = once::object_at(&text, 0, limits);
                    assert_eq!(
                        fast.is_some(),
                        slow.is_ok(),
                        "{max_depth} {depth}: {slow:?}"
                    );
                    if let Some(fast) = fast {
                        assert_eq!(Ok(fast), slow);
                    }
                    let whole = parse_object_with(&text, limits);
                    assert_eq!(whole.is_ok(), slow.is_ok(), "{max_depth} {depth}");
                }
            }
        }
    }

    #[test]
    fn renders_like_python_json_dumps() {
        let m =
            parse_object(r#"{"in_m":5,"prompt":"Recheck","n":[1,{"a":null}],"t":"é\n"}"#).unwrap();
        assert_eq!(
            render_object(&m),
            r#"{"in_m": 5, "prompt": "Recheck", "n": [1, {"a": null}], "t": "é\n"}"#
        );
    }

    #[test]
    fn rejects_duplicates_at_any_depth() {
        assert!(parse_object(r#"{"a": 1, "a": 2}"#)
            .unwrap_err()
            .message
            .contains("duplicate key `a`"));
        assert!(parse_object(r#"{"x": {"a": 1, "a": 2}}"#).is_err());
    }

    #[test]
    fn rejects_relaxed_json() {
        for bad in [
            r#"{"a": 1,}"#,
            r#"{'a': 1}"#,
            r#"{a: 1}"#,
            r#"{"a": NaN}"#,
            "{\"a\": \"x\u{1}\"}",
            r#"{"a": "\ud800"}"#,
            r#"{"a": 1} x"#,
            r#"[1]"#,
            r#"{"a": 1 /* c */}"#,
        ] {
            assert!(parse_object(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scan_finds_the_end_by_validation_not_by_the_first_brace() {
        let text = r#"[TOOL a {"x": "}]", "y": [{"z": 1}]}  ] tail"#;
        let (obj, end) = scan_object(text, 8, Limits::default()).unwrap();
        assert_eq!(obj["x"], "}]");
        assert_eq!(&text[end..], "  ] tail");
    }

    #[test]
    fn scan_stops_at_the_first_invalid_byte() {
        // The second call starts right where the first stops being JSON.
        let text = r#"[TOOL a {[TOOL b {}]"#;
        let e = scan_object(text, 8, Limits::default()).unwrap_err();
        assert!(e.at <= 9, "{e:?}");
        assert!(!e.truncated);
        let e = scan_object("{\"a\": \"x\ny\"}", 0, Limits::default()).unwrap_err();
        assert!(e.at <= 9 && e.at >= 7, "stops at the raw newline: {e:?}");
        let e = scan_object("{\"a\": 1", 0, Limits::default()).unwrap_err();
        assert!(e.truncated);
    }

    #[test]
    fn syntax_end_reads_json_syntax_only() {
        assert_eq!(
            syntax_end(r#"{"a": [1, -2.5e+3, true, null, "x\"}\u00e9"]} tail"#, 0),
            Ok((45, 2))
        );
        assert_eq!(syntax_end("[[[]]]", 0), Ok((6, 3)));
        // The first byte that cannot continue, and whether the text ran out.
        assert_eq!(syntax_end("{\"a\" 1}", 0).unwrap_err().0, 5);
        assert_eq!(syntax_end("{\"a\": 01}", 0).unwrap_err().0, 7);
        assert_eq!(syntax_end("{\"a\": 1.}", 0).unwrap_err().0, 8);
        // A string that fails resumes where it could end (P80).
        assert_eq!(
            syntax_end("{\"a\": \"\\x\"}", 0).unwrap_err(),
            (
                10,
                false,
                "invalid escape `\\x` in a string at byte 7".to_owned()
            )
        );
        assert_eq!(
            syntax_end("{\"a\": \"\\u12g4\"}", 0).unwrap_err(),
            (14, false, "invalid `\\u` escape at byte 7".to_owned())
        );
        assert_eq!(
            syntax_end("{\"a\": \"\\q \\\" [TOOL b {}]\"} tail", 0)
                .unwrap_err()
                .0,
            25
        );
        assert_eq!(
            syntax_end("{\"a\": \"\\\u{1}\"}", 0).unwrap_err(),
            (
                10,
                false,
                "invalid escape `\\U+0001` in a string at byte 7".to_owned()
            )
        );
        assert_eq!(
            syntax_end("{\"a\": \"x\ty [TOOL b {}]\n[TOOL c {}]", 0).unwrap_err(),
            (
                22,
                false,
                "raw control character U+0009 in a string at byte 8".to_owned()
            )
        );
        assert_eq!(
            syntax_end("{\"a\": \"x\ny\"}", 0).unwrap_err(),
            (
                8,
                false,
                "raw control character U+000A in a string at byte 8".to_owned()
            )
        );
        assert_eq!(syntax_end("{\"a\": tru}", 0).unwrap_err().0, 9);
        assert_eq!(syntax_end("{\"a\": [1,]}", 0).unwrap_err().0, 9);
        assert_eq!(
            syntax_end("{\"a\": 1", 0).unwrap_err(),
            (
                7,
                true,
                "the text ends inside the JSON value (expected `,` or a closing bracket)"
                    .to_owned()
            )
        );
        // Deep nesting needs no recursion.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(syntax_end(&deep, 0), Ok((200_000, 100_000)));
    }

    #[test]
    fn limit_errors_resume_after_the_value() {
        let text = format!("{{\"a\": \"{} [TOOL x {{}}]\"}} tail", "y".repeat(100));
        let e = scan_object(
            &text,
            0,
            Limits {
                max_depth: 64,
                max_bytes: 50,
            },
        )
        .unwrap_err();
        assert_eq!(
            &text[e.at..],
            " tail",
            "the oversized object's strings are not rescanned"
        );
        let deep = format!("{}1{} tail", "{\"a\": ".repeat(70), "}".repeat(70));
        let e = scan_object(&deep, 0, Limits::default()).unwrap_err();
        assert!(e.error.message.contains("deeper than 64"));
        assert_eq!(&deep[e.at..], " tail");
        let dup = r#"{"a": 1, "a": 2} tail"#;
        assert_eq!(
            &dup[scan_object(dup, 0, Limits::default()).unwrap_err().at..],
            " tail"
        );
    }

    #[test]
    fn scan_respects_the_size_limit() {
        let text = format!("{{\"a\": \"{}\"}}", "x".repeat(100));
        let limits = Limits {
            max_depth: 64,
            max_bytes: 50,
        };
        let e = scan_object(&text, 0, limits).unwrap_err();
        assert!(e.error.message.contains("longer than 50 bytes"), "{e:?}");
        assert!(scan_object(&text, 0, Limits::default()).is_ok());
    }

    #[test]
    fn scan_rejects_integers_outside_64_bits_and_resumes_after_the_object() {
        let text = r#"{"a": 18446744073709551616} tail"#;
        let e = scan_object(text, 0, Limits::default()).unwrap_err();
        assert!(
            e.error.message.contains("outside the 64-bit range"),
            "{e:?}"
        );
        assert_eq!(&text[e.at..], " tail");
    }

    #[test]
    fn scan_object_reports_what_parse_object_reports() {
        let objects = [
            r#"{"a": 18446744073709551615, "b": -9223372036854775808}"#,
            r#"{"a": 18446744073709551616, "a": 1}"#,
            r#"{"a": "18446744073709551616", "b": 1e400}"#,
            r#"{"a": [1, -9223372036854775809, 99999999999999999999]}"#,
            r#"{"a": 123456789012345678901.5, "b": 1.8446744073709551616e19}"#,
            r#"{"a": -1234567890123456789, "b": "\ud800"}"#,
            r#"{"a": {"b": {"c": 100000000000000000000000}}}"#,
        ];
        for text in objects {
            let scanned = scan_object(text, 0, Limits::default())
                .map(|(m, _)| m)
                .map_err(|e| e.error);
            assert_eq!(scanned, parse_object(text), "{text}");
        }
    }

    #[test]
    // The tie literals below are exact doubles; clippy's suggestion to shorten
    // them is Rust's round-up choice the test is about.
    #[allow(clippy::excessive_precision)]
    fn floats_render_as_python_repr() {
        // Expected strings are Python 3.11's repr() of the same doubles.
        for (f, py) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (123456789012345680000.0, "1.2345678901234568e+20"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (-2.5e-300, "-2.5e-300"),
            (1234.5678, "1234.5678"),
            (9007199254740993.0, "9007199254740992.0"),
            // Exact ties between two shortest candidates: Python takes the even digit.
            (1745217763127424.25, "1745217763127424.2"),
            (-1523086578685000.25, "-1523086578685000.2"),
            (1736350830000000.25, "1736350830000000.2"),
        ] {
            assert_eq!(format_float(f), py, "{f:e}");
        }
    }

    #[test]
    fn numbers_read_and_render_like_python() {
        let m = parse_object(r#"{"a": -0, "b": 1E2, "c": 1.5e-7, "d": 1e16, "e": 18446744073709551615, "f": -9223372036854775808, "g": 1e-400}"#).unwrap();
        assert_eq!(
            render_object(&m),
            r#"{"a": -0.0, "b": 100.0, "c": 1.5e-07, "d": 1e+16, "e": 18446744073709551615, "f": -9223372036854775808, "g": 0.0}"#
        );
    }

    #[test]
    fn rejects_integers_outside_64_bits() {
        for bad in [
            r#"{"a": 18446744073709551616}"#,
            r#"{"a": [-9223372036854775809]}"#,
            r#"{"a": {"b": 100000000000000000000000}}"#,
        ] {
            assert!(
                parse_object(bad)
                    .unwrap_err()
                    .message
                    .contains("outside the 64-bit range"),
                "{bad}"
            );
        }
        // Digits inside strings are text, and big numbers with a fraction or exponent are floats.
        assert!(parse_object(
            r#"{"a": "18446744073709551616", "b\"": 1e30, "c": 18446744073709551616.0}"#
        )
        .is_ok());
        assert!(parse_object(r#"{"a": 1e400}"#).is_err());
    }

    #[test]
    fn limits_depth() {
        let deep = format!(
            "{}{}",
            "{\"a\": ".repeat(MAX_DEPTH),
            "1".to_owned() + &"}".repeat(MAX_DEPTH)
        );
        assert!(parse_object(&deep).is_ok());
        let deeper = format!(
            "{}1{}",
            "{\"a\": ".repeat(MAX_DEPTH + 1),
            "}".repeat(MAX_DEPTH + 1)
        );
        assert!(parse_object(&deeper)
            .unwrap_err()
            .message
            .contains("deeper"));
    }
}
