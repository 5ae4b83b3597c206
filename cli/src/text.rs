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
    json.chars()
        .map(|c| {
            if c.is_control() || is_invisible(c) {
                format!("\\u{:04x}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Characters that change how a terminal shows text without showing
/// themselves: bidirectional controls, zero-width characters, line and
/// paragraph separators, the byte order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
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
