//! Source positions of JSON values: maps an RFC 6901 JSON pointer to the
//! line and column where the value starts in the file's text.
//!
//! `serde_json` does not keep positions in a `Value`, so this module walks the
//! text once and records the start of every value. It assumes the text is
//! syntactically valid JSON (the loader checks that first); on malformed text
//! it stops early and unknown pointers fall back to their nearest known parent.

use std::collections::HashMap;

/// Byte offsets of every value in one JSON document, keyed by JSON pointer.
#[derive(Debug, Clone, Default)]
pub struct PositionIndex {
    starts: HashMap<String, usize>,
    line_starts: Vec<usize>,
    text: String,
    duplicates: Vec<(String, usize)>,
}

impl PositionIndex {
    /// Indexes `text`, a JSON document.
    pub fn new(text: &str) -> Self {
        let mut idx = PositionIndex {
            starts: HashMap::new(),
            line_starts: std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            text: text.to_owned(),
            duplicates: Vec::new(),
        };
        let mut walker = Walker {
            bytes: text.as_bytes(),
            pos: 0,
            text,
            duplicates: Vec::new(),
        };
        walker.value(String::new(), &mut idx.starts);
        idx.duplicates = walker.duplicates;
        idx
    }

    /// Every key that occurs a second time in its object (a JSON reader
    /// keeps one of the values silently), in text order: the pointer of the
    /// member and the (line, column) of the repeated key.
    pub fn duplicate_keys(&self) -> Vec<(String, (usize, usize))> {
        self.duplicates
            .iter()
            .map(|(p, o)| (p.clone(), self.offset_line_col(*o)))
            .collect()
    }

    /// 1-based (line, column) of the value at `pointer`; column counts
    /// characters. An unknown pointer resolves to its nearest known ancestor.
    pub fn line_col(&self, pointer: &str) -> (usize, usize) {
        let mut p = pointer;
        let offset = loop {
            if let Some(&o) = self.starts.get(p) {
                break o;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => break 0,
            }
        };
        self.offset_line_col(offset)
    }

    /// 1-based (line, column) of the `index`-th character (counted in the
    /// decoded string, from 0) inside the string value at `pointer`, so a
    /// finding can point into a long text. Escapes count as the one character
    /// they stand for. Falls back to [`Self::line_col`] when `pointer` is not
    /// a string value.
    pub fn string_char_line_col(&self, pointer: &str, index: usize) -> (usize, usize) {
        let Some(&start) = self.starts.get(pointer) else {
            return self.line_col(pointer);
        };
        let raw = &self.text[start..];
        if !raw.starts_with('"') {
            return self.line_col(pointer);
        }
        let mut chars = raw.char_indices().skip(1).peekable();
        let mut decoded = 0;
        while let Some(&(i, c)) = chars.peek() {
            if decoded == index || c == '"' {
                return self.offset_line_col(start + i);
            }
            chars.next();
            if c == '\\' {
                let escaped = chars.next().map(|(_, e)| e);
                if escaped == Some('u') {
                    let hex: String = (0..4)
                        .filter_map(|_| chars.next().map(|(_, h)| h))
                        .collect();
                    // A high surrogate is one character with the low one after it.
                    let high =
                        u32::from_str_radix(&hex, 16).is_ok_and(|v| (0xD800..0xDC00).contains(&v));
                    if high && raw[chars.peek().map_or(raw.len(), |&(j, _)| j)..].starts_with("\\u")
                    {
                        (0..6).for_each(|_| {
                            chars.next();
                        });
                    }
                }
            }
            decoded += 1;
        }
        self.line_col(pointer)
    }

    /// 1-based (line, column) of a byte offset; column counts characters.
    pub fn offset_line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts[line - 1];
        let column = self.text[start..offset.min(self.text.len())]
            .chars()
            .count()
            + 1;
        (line, column)
    }
}

/// Escapes one reference token for a JSON pointer (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Joins a parent pointer and one unescaped token.
pub fn child(parent: &str, token: &str) -> String {
    format!("{parent}/{}", escape_token(token))
}

struct Walker<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    duplicates: Vec<(String, usize)>,
}

impl Walker<'_> {
    fn ws(&mut self) {
        while self.pos < self.bytes.len()
            && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r')
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Records the value at `pointer` and skips it. Returns false on malformed text.
    fn value(&mut self, pointer: String, out: &mut HashMap<String, usize>) -> bool {
        self.ws();
        out.insert(pointer.clone(), self.pos);
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut keys = std::collections::HashSet::new();
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b'}') => {
                            self.pos += 1;
                            return true;
                        }
                        Some(b',') => self.pos += 1,
                        Some(b'"') => {
                            let start = self.pos;
                            if !self.string() {
                                return false;
                            }
                            let key: String = serde_json::from_str(&self.text[start..self.pos])
                                .unwrap_or_default();
                            if !keys.insert(key.clone()) {
                                self.duplicates.push((child(&pointer, &key), start));
                            }
                            self.ws();
                            if self.peek() != Some(b':') {
                                return false;
                            }
                            self.pos += 1;
                            if !self.value(child(&pointer, &key), out) {
                                return false;
                            }
                        }
                        _ => return false,
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut i = 0usize;
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b']') => {
                            self.pos += 1;
                            return true;
                        }
                        Some(b',') => self.pos += 1,
                        Some(_) => {
                            if !self.value(format!("{pointer}/{i}"), out) {
                                return false;
                            }
                            i += 1;
                        }
                        None => return false,
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(_) => {
                while self.pos < self.bytes.len()
                    && !matches!(
                        self.bytes[self.pos],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.pos += 1;
                }
                true
            }
            None => false,
        }
    }

    fn string(&mut self) -> bool {
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                b'\\' => self.pos += 1,
                b'"' => return true,
                _ => {}
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values_and_array_items() {
        let text = "{\n  \"a\": {\"b/c\": [1, \"x\"]},\n  \"é\": 2\n}";
        let idx = PositionIndex::new(text);
        assert_eq!(idx.line_col(""), (1, 1));
        assert_eq!(idx.line_col("/a"), (2, 8));
        assert_eq!(idx.line_col("/a/b~1c"), (2, 16));
        assert_eq!(idx.line_col("/a/b~1c/1"), (2, 20));
        assert_eq!(idx.line_col("/é"), (3, 8));
    }

    #[test]
    fn unknown_pointer_falls_back_to_parent() {
        let idx = PositionIndex::new("{\"a\":\n {\"b\": 1}}");
        assert_eq!(idx.line_col("/a/missing/deeper"), (2, 2));
    }

    #[test]
    fn points_into_strings_counting_escapes_as_one_character() {
        let text = "{\"a\": \"x\\\"y\\u00e9z\\ud83d\\ude00w\"}";
        let idx = PositionIndex::new(text);
        assert_eq!(idx.line_col("/a"), (1, 7));
        assert_eq!(idx.string_char_line_col("/a", 0), (1, 8));
        assert_eq!(idx.string_char_line_col("/a", 1), (1, 9));
        assert_eq!(idx.string_char_line_col("/a", 2), (1, 11));
        assert_eq!(idx.string_char_line_col("/a", 3), (1, 12));
        assert_eq!(idx.string_char_line_col("/a", 4), (1, 18));
        assert_eq!(idx.string_char_line_col("/a", 5), (1, 19));
        assert_eq!(idx.string_char_line_col("/a", 6), (1, 31));
        assert_eq!(idx.string_char_line_col("/missing", 3), (1, 1));
    }

    #[test]
    fn finds_duplicate_keys() {
        let idx =
            PositionIndex::new("{\"a\": {\"b\": 1,\n \"b\": 2}, \"c\": [{\"b\": 1}, {\"b\": 2}]}");
        assert_eq!(idx.duplicate_keys(), vec![("/a/b".to_owned(), (2, 2))]);
    }

    #[test]
    fn escapes_tokens() {
        assert_eq!(child("/x", "a/b~c"), "/x/a~1b~0c");
    }
}
