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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of objects and arrays (the outer object is 1).
    pub max_depth: usize,
    /// Largest object, in bytes of its JSON text.
    pub max_bytes: usize,
}

impl Default for Limits {
    /// [`MAX_DEPTH`] levels, no size limit.
    fn default() -> Self {
        Limits { max_depth: MAX_DEPTH, max_bytes: usize::MAX }
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
    if text.len() > limits.max_bytes {
        return Err(JsonError { message: format!("the arguments are longer than {} bytes", limits.max_bytes) });
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue { depth: 0, max_depth: limits.max_depth }
        .deserialize(&mut de)
        .map_err(|e| JsonError { message: e.to_string() })?;
    de.end().map_err(|e| JsonError { message: e.to_string() })?;
    check_integer_literals(text)?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(JsonError { message: "the arguments are not a JSON object".into() }),
    }
}

/// Why [`scan_object`] found no object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    /// Byte offset (into the whole text) of the first byte that could not be
    /// part of the object; scanning may resume there without skipping any
    /// byte the object did not claim.
    pub at: usize,
    /// True when the text ended (or the size limit was reached) before the
    /// object closed.
    pub truncated: bool,
    /// What is wrong.
    pub error: JsonError,
}

/// Scans one strict JSON object that starts at byte `start` of `text` (which
/// must be `{`), validating as it goes, so it stops at the first byte that
/// cannot continue the object. Returns the object and the byte offset just
/// after it. Runs in time linear in the bytes it examines, at most
/// `limits.max_bytes` of them.
///
/// # Errors
/// [`ScanError`] with the offset where the object stopped being valid.
pub fn scan_object(text: &str, start: usize, limits: Limits) -> Result<(Map<String, Value>, usize), ScanError> {
    let mut end = text.len().min(start.saturating_add(limits.max_bytes));
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let slice = &text[start..end];
    let capped = end < text.len();
    let mut de = serde_json::Deserializer::from_str(slice);
    let offset_of = |e: &serde_json::Error| -> usize {
        // serde_json reports 1-based lines and the byte column within the line.
        let mut line_start = 0;
        for _ in 1..e.line() {
            match slice[line_start..].find('\n') {
                Some(i) => line_start += i + 1,
                None => break,
            }
        }
        (line_start + e.column()).min(slice.len())
    };
    let value = match (StrictValue { depth: 0, max_depth: limits.max_depth }).deserialize(&mut de) {
        Ok(v) => v,
        Err(e) => {
            let truncated = e.is_eof();
            let at = start + offset_of(&e).saturating_sub(1).max(1);
            let error = if truncated && capped {
                JsonError { message: format!("the arguments are longer than {} bytes", limits.max_bytes) }
            } else {
                JsonError { message: e.to_string() }
            };
            return Err(ScanError { at, truncated, error });
        }
    };
    // The object ended; find where: `end()` fails at the first trailing byte.
    let after = match de.end() {
        Ok(()) => slice.len(),
        Err(e) => offset_of(&e).saturating_sub(1),
    };
    // Step back over the whitespace `end()` skipped.
    let mut obj_end = after;
    while obj_end > 0 && matches!(slice.as_bytes()[obj_end - 1], b' ' | b'\t' | b'\r' | b'\n') {
        obj_end -= 1;
    }
    if let Err(error) = check_integer_literals(&slice[..obj_end]) {
        return Err(ScanError { at: start + obj_end, truncated: false, error });
    }
    match value {
        Value::Object(map) => Ok((map, start + obj_end)),
        _ => Err(ScanError { at: start + 1, truncated: false, error: JsonError { message: "not a JSON object".into() } }),
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
            while i < bytes.len() && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                i += 1;
            }
            let token = &text[start..i];
            let integer = !token.contains(['.', 'e', 'E']);
            if integer && token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
                return Err(JsonError { message: format!("integer `{token}` is outside the 64-bit range") });
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
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("number out of range"))
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
            return Err(de::Error::custom(format!("nested deeper than {} levels", self.max_depth)));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue { depth, max_depth: self.max_depth })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > self.max_depth {
            return Err(de::Error::custom(format!("nested deeper than {} levels", self.max_depth)));
        }
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            let v = map.next_value_seed(StrictValue { depth, max_depth: self.max_depth })?;
            out.insert(key, v);
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
        return if f.is_nan() { "nan".into() } else if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let (digits, exp) = shortest_digits(f.abs());
    let sign = if f.is_sign_negative() { "-" } else { "" };
    // Python's float_repr_style 'short': positional unless decpt <= -4 or decpt > 16,
    // where the value is 0.DIGITS x 10^decpt.
    let decpt = exp + 1;
    let n = digits.len() as i32;
    if decpt <= -4 || decpt > 16 {
        let rest = &digits[1..];
        let dot = if rest.is_empty() { String::new() } else { format!(".{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{}{dot}e{esign}{:02}", &digits[..1], exp.abs())
    } else if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt < n {
        format!("{sign}{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
    } else {
        format!("{sign}{digits}{}.0", "0".repeat((decpt - n) as usize))
    }
}

/// Splits `{:e}` output into its digits (no point) and decimal exponent.
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always writes an exponent");
    (mantissa.chars().filter(|c| *c != '.').collect(), exp.parse().expect("`{:e}` writes a decimal exponent"))
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
    let neighbours = [last.checked_sub(1).filter(|d| *d > 0), (last < 9).then_some(last + 1)];
    for n in neighbours.into_iter().flatten() {
        let other = with_last(n);
        let reads_back = format!("{}.{}e{exp}", &other[..1], &other[1..]).parse::<f64>() == Ok(f);
        if !reads_back || n % 2 == 1 {
            continue;
        }
        // A tie: the exact value (at most 767 significant digits) is the
        // midpoint, the lower candidate followed by a 5.
        let lower = if n < last { other.clone() } else { digits.clone() };
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

    #[test]
    fn renders_like_python_json_dumps() {
        let m = parse_object(r#"{"in_m":5,"prompt":"Recheck","n":[1,{"a":null}],"t":"é\n"}"#).unwrap();
        assert_eq!(render_object(&m), r#"{"in_m": 5, "prompt": "Recheck", "n": [1, {"a": null}], "t": "é\n"}"#);
    }

    #[test]
    fn rejects_duplicates_at_any_depth() {
        assert!(parse_object(r#"{"a": 1, "a": 2}"#).unwrap_err().message.contains("duplicate key `a`"));
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
    fn scan_respects_the_size_limit() {
        let text = format!("{{\"a\": \"{}\"}}", "x".repeat(100));
        let limits = Limits { max_depth: 64, max_bytes: 50 };
        let e = scan_object(&text, 0, limits).unwrap_err();
        assert!(e.error.message.contains("longer than 50 bytes"), "{e:?}");
        assert!(scan_object(&text, 0, Limits::default()).is_ok());
    }

    #[test]
    fn scan_rejects_integers_outside_64_bits_and_resumes_after_the_object() {
        let text = r#"{"a": 18446744073709551616} tail"#;
        let e = scan_object(text, 0, Limits::default()).unwrap_err();
        assert!(e.error.message.contains("outside the 64-bit range"), "{e:?}");
        assert_eq!(&text[e.at..], " tail");
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
        for bad in [r#"{"a": 18446744073709551616}"#, r#"{"a": [-9223372036854775809]}"#, r#"{"a": {"b": 100000000000000000000000}}"#] {
            assert!(parse_object(bad).unwrap_err().message.contains("outside the 64-bit range"), "{bad}");
        }
        // Digits inside strings are text, and big numbers with a fraction or exponent are floats.
        assert!(parse_object(r#"{"a": "18446744073709551616", "b\"": 1e30, "c": 18446744073709551616.0}"#).is_ok());
        assert!(parse_object(r#"{"a": 1e400}"#).is_err());
    }

    #[test]
    fn limits_depth() {
        let deep = format!("{}{}", "{\"a\": ".repeat(MAX_DEPTH), "1".to_owned() + &"}".repeat(MAX_DEPTH));
        assert!(parse_object(&deep).is_ok());
        let deeper = format!("{}1{}", "{\"a\": ".repeat(MAX_DEPTH + 1), "}".repeat(MAX_DEPTH + 1));
        assert!(parse_object(&deeper).unwrap_err().message.contains("deeper"));
    }
}
