//! Free-text groups: the spec states where a free-text field stops
//! (`runs_until` on a group), the generator writes the pattern.
//!
//! A group with `runs_until` is written in the spec pattern as an empty named
//! group, `(?P<summary>)`, and must be the pattern's last element. The loader
//! ([`crate::load`]) replaces it by [`expand`]'s pattern followed by
//! [`TRAILER`], so every later stage (the checks, the examples, both engines,
//! the docs) sees only the expansion.
//!
//! What the field holds (P91):
//! - at least one character; the first is not a blank or a line break
//!   (`[ \t\r\n]`), and neither is the last: trailing blanks and line breaks
//!   belong to no field (the pattern matches them after the group);
//! - any character otherwise, across lines;
//! - never one of the stop strings (`runs_until`), so the field ends before
//!   the first of them;
//! - never ending in a prefix of a stop string's marker (`[`, `[R`, …,
//!   `[RESULT` for `[RESULT ` and its kin) where the text goes on (P90): the
//!   field may end in one only where the pattern must match the whole text
//!   (a lazy alternative), and a field is never such a prefix alone.
//!
//! The stop strings must share one marker (all but their last character, e.g.
//! `[RESULT`) whose first character occurs nowhere else in the marker nor
//! among the last characters, and which holds no blank or line break. With
//! that shape the expansion is unambiguous: every text splits into its parts
//! in exactly one way (runs of plain characters, runs of blanks, and units
//! that start with the marker's first character and end at the first
//! character that leaves the marker), each quantifier's run is ended by a
//! character it cannot take, so a backtracking engine (Python `re`) gives up
//! in linear time, and the text uses no look-around, so Rust `regex`
//! compiles it too.

use regex_syntax::escape;

/// The blanks and line breaks a free-text field neither starts nor ends with.
pub const BLANKS: [char; 4] = [' ', '\t', '\r', '\n'];

/// What the pattern matches after a free-text group: the trailing blanks and
/// line breaks, which belong to no field.
pub const TRAILER: &str = r"[\t\n\r ]*";

/// The parts a list of stop strings is made of: the shared marker and the
/// characters that may follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stops {
    /// The marker every stop string starts with, e.g. `[RESULT`.
    pub marker: Vec<char>,
    /// The last characters, sorted, e.g. `\t \n \r ' '`.
    pub last: Vec<char>,
}

/// Splits the stop strings into their marker and last characters.
///
/// # Errors
/// What makes the list unusable, as one message: a string shorter than two
/// characters, strings with different markers, a marker holding a blank or
/// line break, or a marker whose first character occurs again in the marker or
/// among the last characters.
pub fn stops(list: &[String]) -> Result<Option<Stops>, String> {
    let Some(first) = list.first() else {
        return Ok(None);
    };
    let chars: Vec<char> = first.chars().collect();
    if chars.len() < 2 {
        return Err(format!("stop string {first:?} is shorter than two characters: a stop is a marker and the character after it"));
    }
    let marker = chars[..chars.len() - 1].to_vec();
    let mut last = Vec::new();
    for s in list {
        let c: Vec<char> = s.chars().collect();
        if c.len() != marker.len() + 1 || c[..marker.len()] != marker[..] {
            let m: String = marker.iter().collect();
            return Err(format!("stop string {s:?} does not start with the marker {m:?} of {first:?} followed by one character: every stop string is one marker and one character"));
        }
        last.push(c[marker.len()]);
    }
    last.sort_unstable();
    last.dedup();
    let m: String = marker.iter().collect();
    if marker.iter().any(|c| BLANKS.contains(c)) {
        return Err(format!("the marker {m:?} holds a blank or line break"));
    }
    let a = marker[0];
    if marker[1..].contains(&a) || last.contains(&a) {
        return Err(format!("the marker's first character {a:?} occurs again in the stop strings: the expansion needs it to start a marker only"));
    }
    Ok(Some(Stops { marker, last }))
}

/// A character class of `chars` (negated when `negated`), sorted and escaped.
fn class(chars: &[char], negated: bool) -> String {
    let mut v = chars.to_vec();
    v.sort_unstable();
    v.dedup();
    let body: String = v
        .iter()
        .map(|&c| match c {
            '\t' => r"\t".to_owned(),
            '\n' => r"\n".to_owned(),
            '\r' => r"\r".to_owned(),
            ' ' => " ".to_owned(),
            c if c.is_ascii_alphanumeric() => c.to_string(),
            c => escape(&c.to_string()),
        })
        .collect();
    format!("[{}{body}]", if negated { "^" } else { "" })
}

/// The inner pattern of a free-text group that stops before any of `list`
/// (none: it runs to the end of the text). See the module docs for what it
/// matches.
///
/// # Errors
/// As [`stops`].
pub fn expand(list: &[String]) -> Result<String, String> {
    let ws = class(&BLANKS, false);
    let nws = class(&BLANKS, true);
    let Some(Stops { marker, last }) = stops(list)? else {
        return Ok(format!("{nws}+(?:{ws}+{nws}+)*"));
    };
    let a = marker[0];
    let rest = &marker[1..];
    let ea = escape(&a.to_string());
    let lit = |c: char| escape(&c.to_string());
    let with = |extra: &[char]| -> Vec<char> { extra.iter().copied().chain(BLANKS).collect() };
    // The character that leaves the marker after `k` of its characters past
    // the first: ending in a blank or line break (`blank`) or in another
    // character.
    fn leave(
        k: usize,
        blank: bool,
        a: char,
        rest: &[char],
        last: &[char],
        ws: &str,
        lit: &dyn Fn(char) -> String,
    ) -> Option<String> {
        let with = |extra: &[char]| -> Vec<char> { extra.iter().copied().chain(BLANKS).collect() };
        if k == rest.len() {
            return if blank {
                let free: Vec<char> = BLANKS
                    .iter()
                    .copied()
                    .filter(|c| !last.contains(c))
                    .collect();
                (!free.is_empty()).then(|| class(&free, false))
            } else {
                let mut stop = vec![a];
                stop.extend_from_slice(last);
                Some(class(&with(&stop), true))
            };
        }
        let here = if blank {
            ws.to_owned()
        } else {
            class(&with(&[a, rest[k]]), true)
        };
        match leave(k + 1, blank, a, rest, last, ws, lit) {
            Some(deeper) => Some(format!("(?:{here}|{}{deeper})", lit(rest[k]))),
            None => Some(here),
        }
    }
    // Some of the marker's characters past the first, in order (any number).
    let mut partial = String::new();
    for c in rest.iter().rev() {
        partial = format!("(?:{}{partial})?", lit(*c));
    }
    let start = format!("{ea}(?:{partial}{ea})*");
    let unit_plain = format!(
        "{start}{}",
        leave(0, false, a, rest, &last, &ws, &lit).unwrap_or_default()
    );
    let unit_blank = format!(
        "{start}{}",
        leave(0, true, a, rest, &last, &ws, &lit).unwrap_or_default()
    );
    let tail = format!("{start}{partial}");
    let plain = class(&with(&[a]), true);
    let seg_plain = format!("(?:{plain}+(?:{unit_plain}{plain}*)*|(?:{unit_plain}{plain}*)+)");
    let seg_blank_unit = format!("(?:{unit_blank}{ws}*)+");
    let seg_blank = format!("(?:{ws}+(?:{unit_blank}{ws}*)*|{seg_blank_unit})");
    let more = format!("(?:{seg_blank}{seg_plain})*(?:{seg_blank}?{tail})??");
    Ok(format!(
        "(?:{seg_plain}{more}|{seg_blank_unit}(?:{seg_plain}{more}|{tail}))"
    ))
}

/// Where a spec pattern holds a free-text group's empty body: the byte offset
/// just inside `(?P<name>` when the pattern ends with `(?P<name>)`.
pub fn hole(pattern: &str, name: &str) -> Option<usize> {
    let group = format!("(?P<{name}>)");
    pattern
        .strip_suffix(&group)
        .map(|before| before.len() + group.len() - 1)
}

/// The pattern with the free-text group `name` expanded: `(?P<name>)` at its
/// end becomes `(?P<name>…)` and the [`TRAILER`].
///
/// # Errors
/// A message when the pattern does not end with `(?P<name>)`, or as
/// [`expand`].
pub fn expand_pattern(pattern: &str, name: &str, list: &[String]) -> Result<String, String> {
    let at = hole(pattern, name).ok_or_else(|| {
        format!("a group with `runs_until` is written empty at the very end of the pattern, `(?P<{name}>)`: the generator writes its body and what follows it")
    })?;
    let inner = expand(list)?;
    Ok(format!("{}{inner}){TRAILER}", &pattern[..at]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result_stops() -> Vec<String> {
        ["[RESULT ", "[RESULT\t", "[RESULT\r", "[RESULT\n"]
            .map(String::from)
            .to_vec()
    }

    fn full(inner: &str) -> regex::Regex {
        regex::Regex::new(&format!(r"\A(?:(?P<g>{inner}){TRAILER})\z")).unwrap()
    }

    fn field<'t>(re: &regex::Regex, text: &'t str) -> Option<&'t str> {
        re.captures(text)
            .map(|c| c.name("g").map_or("", |m| m.as_str()))
    }

    #[test]
    fn a_field_with_stops_excludes_them_and_its_trailing_blanks() {
        let re = full(&expand(&result_stops()).unwrap());
        assert_eq!(field(&re, "done\n"), Some("done"));
        assert_eq!(field(&re, "two\r\nlines \r\n\n"), Some("two\r\nlines"));
        assert_eq!(
            field(&re, "see [RESULTS] and [RESULT]"),
            Some("see [RESULTS] and [RESULT]")
        );
        assert_eq!(field(&re, "see [RESU"), Some("see [RESU"));
        assert_eq!(field(&re, "[R [RE"), Some("[R [RE"));
        assert_eq!(field(&re, "[[x"), Some("[[x"));
        assert_eq!(field(&re, "a [RESULT b"), None);
        assert_eq!(field(&re, "a [RESULT\nb"), None);
        assert_eq!(
            field(&re, "[RESU"),
            None,
            "a prefix of the marker alone is no field (P90)"
        );
        assert_eq!(field(&re, " a"), None);
        assert_eq!(field(&re, ""), None);
    }

    #[test]
    fn a_search_ends_the_field_before_a_stop_and_before_a_partial_marker() {
        let re = regex::Regex::new(&format!(
            r"\A(?P<g>{}){TRAILER}",
            expand(&result_stops()).unwrap()
        ))
        .unwrap();
        let c = re.captures("x [RESULT b] y").unwrap();
        assert_eq!((&c["g"], c.get(0).unwrap().end()), ("x", 2));
        assert_eq!(&re.captures("x [RESU").unwrap()["g"], "x");
    }

    #[test]
    fn a_field_without_stops_runs_to_the_end() {
        let re = full(&expand(&[]).unwrap());
        assert_eq!(field(&re, "a [RESULT b\n"), Some("a [RESULT b"));
        assert_eq!(field(&re, "\n"), None);
    }

    #[test]
    fn stops_of_another_shape_are_refused() {
        let s = |v: &[&str]| stops(&v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert!(s(&["x"]).unwrap_err().contains("shorter than two"));
        assert!(s(&["ab", "cd"])
            .unwrap_err()
            .contains("does not start with the marker"));
        assert!(s(&["a b", "a c"]).unwrap_err().contains("blank"));
        assert!(s(&["abab"]).unwrap_err().contains("occurs again"));
        assert_eq!(s(&["[X ", "[X\t"]).unwrap().unwrap().last, vec!['\t', ' ']);
    }

    #[test]
    fn the_hole_must_end_the_pattern() {
        assert!(expand_pattern(r"x(?P<g>)y", "g", &[]).is_err());
        assert_eq!(
            expand_pattern(r"x(?P<g>)", "g", &[]).unwrap(),
            format!("x(?P<g>{}){TRAILER}", expand(&[]).unwrap())
        );
    }
}
