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

/// Parses `text` as exactly one strict JSON object.
///
/// # Errors
/// [`JsonError`] when the text is not valid JSON, is not an object, holds a
/// duplicate key at any level, or nests deeper than [`MAX_DEPTH`].
pub fn parse_object(text: &str) -> Result<Map<String, Value>, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue { depth: 0 }
        .deserialize(&mut de)
        .map_err(|e| JsonError { message: e.to_string() })?;
    de.end().map_err(|e| JsonError { message: e.to_string() })?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(JsonError { message: "the arguments are not a JSON object".into() }),
    }
}

struct StrictValue {
    depth: usize,
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
        if depth > MAX_DEPTH {
            return Err(de::Error::custom(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue { depth })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > MAX_DEPTH {
            return Err(de::Error::custom(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            let v = map.next_value_seed(StrictValue { depth })?;
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
    fn limits_depth() {
        let deep = format!("{}{}", "{\"a\": ".repeat(MAX_DEPTH), "1".to_owned() + &"}".repeat(MAX_DEPTH));
        assert!(parse_object(&deep).is_ok());
        let deeper = format!("{}1{}", "{\"a\": ".repeat(MAX_DEPTH + 1), "}".repeat(MAX_DEPTH + 1));
        assert!(parse_object(&deeper).unwrap_err().message.contains("deeper"));
    }
}
