//! Plain-text layout: aligned columns and unambiguous values.

/// `rows` as lines of columns padded to a common width (two spaces apart),
/// each line starting with `indent`; the last column is not padded, and a
/// column empty in every row is left out.
pub fn table(rows: &[Vec<String>], indent: &str) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let empty: Vec<usize> = (0..columns)
        .filter(|&c| rows.iter().all(|r| r.get(c).is_none_or(String::is_empty)))
        .collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .filter(|(c, _)| !empty.contains(c))
                .map(|(_, cell)| cell.clone())
                .collect()
        })
        .collect();
    let columns = columns - empty.len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = indent.to_owned();
        for (c, cell) in row.iter().enumerate() {
            if c + 1 == row.len() {
                line.push_str(cell);
            } else {
                // Padded by hand: `format!`'s width tops out at 65,535, and a
                // cell (a sender, an id from a log) may be longer.
                line.push_str(cell);
                let pad = widths[c].saturating_sub(cell.chars().count()) + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A text value for one line of output: as it is, unless it would read
/// ambiguously (empty, a control character such as a line break or a tab,
/// leading or trailing whitespace, or a leading `"`); then JSON-quoted.
pub fn show(s: &str) -> String {
    let ambiguous = s.is_empty()
        || s.chars().any(|c| c.is_control() || is_invisible(c))
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
        || s.starts_with('"');
    if !ambiguous {
        return s.to_owned();
    }
    let json = serde_json::to_string(s).expect("a string serializes");
    // JSON leaves C1 controls and invisible format characters (bidi
    // overrides, zero-width and line separators) raw; a terminal would act on
    // them, so they are escaped too.
    // JSON's escapes: one `\uXXXX` per UTF-16 unit (a tag character
    // is a surrogate pair).
    json.chars()
        .map(|c| {
            if c.is_control() || is_invisible(c) {
                let mut units = [0u16; 2];
                c.encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("\\u{u:04x}"))
                    .collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Characters that do not show themselves, or change how a terminal shows
/// the text around them, by Unicode general category (P283): format
/// characters (`Cf`: bidirectional controls, zero-width characters, the
/// soft hyphen, the Arabic letter mark, the Mongolian vowel separator, tag
/// characters, the byte order mark), line and paragraph separators (`Zl`,
/// `Zp`), every space separator but the ASCII space (`Zs`: a no-break
/// space reads as a space), private-use (`Co`), surrogate (`Cs`) and
/// unassigned (`Cn`) code points. Controls (`Cc`) are `char::is_control`.
pub fn is_invisible(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory as G};
    match get_general_category(c) {
        G::Format
        | G::LineSeparator
        | G::ParagraphSeparator
        | G::PrivateUse
        | G::Surrogate
        | G::Unassigned => true,
        G::SpaceSeparator => c != ' ',
        _ => false,
    }
}

/// `s` quoted for a POSIX shell (single quotes).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn show_escapes_what_a_terminal_would_act_on() {
        assert_eq!(show("plain"), "plain");
        assert_eq!(show("a\tb"), r#""a\tb""#);
        assert_eq!(show("x\u{9b}y"), r#""x\u009by""#);
        assert_eq!(show("abc\u{202e}def"), r#""abc\u202edef""#);
        assert_eq!(show("zero\u{200b}width"), r#""zero\u200bwidth""#);
    }

    /// P283: by general category, not a list: the Arabic letter mark, the
    /// soft hyphen, the Mongolian vowel separator, tag characters (a
    /// surrogate pair in JSON), a no-break space; letters, marks and the
    /// ASCII space stay.
    #[test]
    fn show_escapes_every_format_and_invisible_character() {
        assert_eq!(show("a\u{61c}b"), r#""a\u061cb""#);
        assert_eq!(show("a\u{ad}b"), r#""a\u00adb""#);
        assert_eq!(show("a\u{180e}b"), r#""a\u180eb""#);
        assert_eq!(
            show("a\u{e0041}\u{e007f}b"),
            r#""a\udb40\udc41\udb40\udc7fb""#
        );
        assert_eq!(show("a\u{a0}b"), r#""a\u00a0b""#);
        assert_eq!(show("a\u{e000}b"), r#""a\ue000b""#);
        assert_eq!(show("café e\u{301} b"), "café e\u{301} b");
        let back: String = serde_json::from_str(&show("x\u{e0041}\u{ad}y")).unwrap();
        assert_eq!(back, "x\u{e0041}\u{ad}y");
    }

    #[test]
    fn a_cell_past_65535_characters_is_padded_without_a_panic() {
        let long = "a".repeat(70_000);
        let rows = vec![
            vec![long.clone(), "x".to_owned()],
            vec!["b".to_owned(), "y".to_owned()],
        ];
        let t = table(&rows, "");
        let second = t.lines().nth(1).unwrap();
        assert_eq!(second.len(), 70_000 + 2 + 1);
        assert!(second.starts_with('b') && second.ends_with('y'));
        assert_eq!(t.lines().next().unwrap(), format!("{long}  x"));
    }

    #[test]
    fn columns_align_on_the_widest_cell() {
        let rows = vec![
            vec!["ack".to_owned(), "[ACK:]".to_owned(), "Signals".to_owned()],
            vec![
                "work_order".to_owned(),
                "[WO:]".to_owned(),
                "Structured".to_owned(),
            ],
        ];
        assert_eq!(
            table(&rows, "  "),
            "  ack         [ACK:]  Signals\n  work_order  [WO:]   Structured\n"
        );
        let sparse = vec![cells(&["dm_id", "", "ID"]), cells(&["sender", "", "who"])];
        assert_eq!(
            table(&sparse, ""),
            "dm_id   ID\nsender  who\n",
            "an all-empty column is left out"
        );
    }

    #[test]
    fn values_with_line_breaks_are_quoted() {
        assert_eq!(show("step 1"), "step 1");
        assert_eq!(show("step 1\nstep 2"), r#""step 1\nstep 2""#);
        assert_eq!(show(""), r#""""#);
        assert_eq!(show("a\tb"), r#""a\tb""#);
        assert_eq!(show("Title — "), r#""Title — ""#);
        assert_eq!(show(r#""quoted""#), r#""\"quoted\"""#);
    }

    #[test]
    fn shell_quoting_survives_single_quotes() {
        assert_eq!(shell_quote("[CLAIM 7f]"), "'[CLAIM 7f]'");
        assert_eq!(shell_quote("Subagent 'x'"), r"'Subagent '\''x'\'''");
    }
}
