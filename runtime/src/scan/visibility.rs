//! What shows as nothing: invisible and bidi characters and keys that look
//! alike (P154, P155, P159, P164). These are not Markdown rules.

use super::*;

/// The characters that show as nothing or as a line break: Unicode format
/// characters (category Cf: bidi controls, zero-width characters, the byte
/// order mark, tags, P154), the other default-ignorable code points (the
/// Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining grapheme
/// joiner U+034F, variation selectors) and the line and paragraph separators
/// U+2028 and U+2029 (P164).
pub(super) fn format_characters() -> &'static regex::Regex {
    static CF: OnceLock<regex::Regex> = OnceLock::new();
    CF.get_or_init(|| {
        regex::Regex::new(r"[\p{Cf}\p{Default_Ignorable_Code_Point}\u{2028}\u{2029}]")
            .expect("a valid class")
    })
}

/// Whether `c` is a format character (category Cf), as a message names it.
pub(super) fn is_format(c: char) -> bool {
    static CF: OnceLock<regex::Regex> = OnceLock::new();
    CF.get_or_init(|| regex::Regex::new(r"\A\p{Cf}\z").expect("a valid class"))
        .is_match(c.encode_utf8(&mut [0; 4]))
}

/// The first format character written in `text` (see [`format_characters`])
/// and its byte offset; `None` for ASCII text, which has none.
pub(super) fn first_format_character(text: &str) -> Option<(usize, char)> {
    if text.is_ascii() {
        return None;
    }
    let at = format_characters().find(text)?.start();
    text[at..].chars().next().map(|c| (at, c))
}

/// Whether `c` is a bidi control: the marks (U+061C, U+200E, U+200F), the
/// embeddings and overrides (U+202A to U+202E) and the isolates (U+2066 to
/// U+2069). One anywhere in a paragraph can reorder what follows it in the
/// paragraph (Unicode's bidirectional algorithm), so a call after one does
/// not show as it runs (P159).
pub(super) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The first bidi control ([`is_bidi_control`]) in `text` and its byte
/// offset. Searched by the lead bytes of their UTF-8 forms (U+061C is
/// `D8 9C`; the others start with `E2`), a `memchr2` over the text, then the
/// character at each hit decoded: most text has few such bytes.
pub(super) fn first_bidi_control(text: &str) -> Option<(usize, char)> {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = memchr::memchr2(0xD8, 0xE2, &b[from..]) {
        let at = from + k;
        // A lead byte in valid UTF-8: a character starts there.
        let c = text[at..]
            .chars()
            .next()
            .expect("a character starts at a lead byte");
        if is_bidi_control(c) {
            return Some((at, c));
        }
        from = at + 1;
    }
    None
}

/// What a skip says of the format character `c` at byte `at`, written in `place`.
pub(super) fn invisible_message(c: char, at: usize, place: &str) -> String {
    format!(
        "the invisible {} U+{:04X} at byte {at} is written in {place}",
        if is_format(c) {
            "format character"
        } else {
            "character"
        },
        u32::from(c)
    )
}

/// Two keys of one object in `args` (at any depth) that look alike: equal
/// after invisible characters are removed and NFKC normalization (P155,
/// P164).
pub(super) fn lookalike_keys(args: &Map<String, Value>) -> Option<(String, String)> {
    use unicode_normalization::UnicodeNormalization;
    if args.keys().any(|k| !k.is_ascii()) {
        let mut seen: HashMap<String, &String> = HashMap::new();
        for k in args.keys() {
            let shown: String = format_characters().replace_all(k, "").nfkc().collect();
            if let Some(other) = seen.insert(shown, k) {
                return Some((other.clone(), k.clone()));
            }
        }
    }
    fn within(v: &Value) -> Option<(String, String)> {
        match v {
            Value::Object(o) => lookalike_keys(o),
            Value::Array(items) => items.iter().find_map(within),
            _ => None,
        }
    }
    args.values().find_map(within)
}

impl<S: 'static> Run<'_, S> {
    /// The first bidi control ([`is_bidi_control`]) written in the current
    /// block before byte `at`, and its byte offset. Each block is searched
    /// once, however many calls it holds.
    pub(super) fn bidi_before(&mut self, at: usize) -> Option<(usize, char)> {
        let start = self.block_start;
        let first = match self.bidi {
            Some((s, first)) if s == start => first,
            _ => {
                let end = self.block_end.clamp(start, self.full.len());
                let block = &self.full[start..end];
                let first = first_bidi_control(block).map(|(i, c)| (start + i, c));
                self.bidi = Some((start, first));
                first
            }
        };
        first.filter(|&(p, _)| p < at)
    }

    pub(super) fn directive(
        &mut self,
        span: Range<usize>,
        form: DirectiveForm,
        engine: &str,
        written: &str,
        args: Map<String, Value>,
    ) {
        // Arguments must show as they run (P154, P155).
        if let Some((at, c)) = first_format_character(&self.full[span.clone()]) {
            let message = invisible_message(c, span.start + at, "the call");
            return self.skip(span, SkipReason::InvisibleCharacter, message);
        }
        // A bidi control earlier in its paragraph reorders how it shows (P159).
        if form != DirectiveForm::Fence {
            if let Some((at, c)) = self.bidi_before(span.start) {
                let message = invisible_message(c, at, "its block before the call");
                return self.skip(span, SkipReason::InvisibleCharacter, message);
            }
        }
        if let Some((a, b)) = lookalike_keys(&args) {
            return self.skip(
                span,
                SkipReason::LookalikeKeys,
                format!("the keys {a:?} and {b:?} look alike (equal after NFKC normalization, invisible characters removed)"),
            );
        }
        let op = self.s.resolve(written);
        self.found.push(Found {
            span,
            item: Item::Directive {
                directive: ToolDirective {
                    form,
                    engine: engine.to_owned(),
                    op,
                    written_op: written.to_owned(),
                    args,
                },
            },
        });
    }
}
