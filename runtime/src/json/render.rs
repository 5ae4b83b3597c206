//! The canonical rendering of an object (see the module docs of
//! `crate::json`): Python's `json.dumps(value, ensure_ascii=False)`, floats
//! as Python's `repr(float)`.

use serde_json::{Map, Value};

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
