//! Tool arguments: one strict JSON object (RFC 8259), parsed without loss and
//! rendered canonically.
//!
//! Parsing rejects, beyond what `serde_json` rejects already (trailing commas,
//! comments, single quotes, bare keys, `NaN`/`Infinity`, raw control
//! characters in strings, lone surrogates, trailing text): duplicate keys (two
//! readers could see two different commands) and nesting deeper than
//! [`MAX_DEPTH`].
//!
//! Rendering is the canonical form the spec's examples use, the same as
//! Python's `json.dumps(value, ensure_ascii=False)`: `", "` between members,
//! `": "` after keys, keys in their original order.

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
    match value {
        Value::Object(map) => Ok((map, start + obj_end)),
        _ => Err(ScanError { at: start + 1, truncated: false, error: JsonError { message: "not a JSON object".into() } }),
    }
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
        Value::Number(n) => out.push_str(&n.to_string()),
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
    fn limits_depth() {
        let deep = format!("{}{}", "{\"a\": ".repeat(MAX_DEPTH), "1".to_owned() + &"}".repeat(MAX_DEPTH));
        assert!(parse_object(&deep).is_ok());
        let deeper = format!("{}1{}", "{\"a\": ".repeat(MAX_DEPTH + 1), "}".repeat(MAX_DEPTH + 1));
        assert!(parse_object(&deeper).unwrap_err().message.contains("deeper"));
    }
}
