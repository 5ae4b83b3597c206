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
mod render;
mod syntax;

pub use render::{format_float, render_object};
use syntax::number_end;
pub use syntax::{scan_object, syntax_end, ScanError};

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

#[cfg(test)]
mod tests {
    use super::syntax::scan_object_two_passes;
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
