//! The prompt envelope at run time: rendering the pieces the generator lays
//! out from `schema/envelope.json`, and checking that a wrapped message still
//! reads as the envelope says (P149). The generated crate's
//! `envelope::wrap` calls both.

use std::fmt;
use std::ops::Range;

use crate::scan::{Found, Item, Skipped};

/// One piece of the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// The wrapped message, verbatim.
    Message,
    /// Literal text.
    Text(&'static str),
    /// The message's id (inside the footer).
    Id,
}

/// Why a message cannot be wrapped: the envelope, around it, would not read
/// as the envelope (nothing is returned: a prompt whose footer is not read
/// would leave the reply unanswerable, P149).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeError {
    /// What was read instead, in words.
    pub message: String,
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EnvelopeError {}

/// The text of `pieces` around `message` with `id`, and the byte span of the
/// pieces `footer` in it.
pub fn render(
    pieces: &[Piece],
    footer: Range<usize>,
    message: &str,
    id: &str,
) -> (String, Range<usize>) {
    let mut out = String::new();
    let mut span = 0..0;
    for (i, p) in pieces.iter().enumerate() {
        if i == footer.start {
            span.start = out.len();
        }
        match p {
            Piece::Message => out.push_str(message),
            Piece::Text(t) => out.push_str(t),
            Piece::Id => out.push_str(id),
        }
        if i + 1 == footer.end {
            span.end = out.len();
        }
    }
    (out, span)
}

/// Checks a scan of a wrapped message: past the message (its first
/// `message_len` bytes) the scanner must find exactly the footer, at
/// `footer`, as a sentence `is_footer` accepts (the footer's structure
/// carrying the id), and skip nothing; no item may run from the message
/// into the envelope.
///
/// # Errors
/// An [`EnvelopeError`] naming the first item that does not fit.
pub fn check<S>(
    message_len: usize,
    footer: &Range<usize>,
    found: &[Found<S>],
    skipped: &[Skipped],
    is_footer: impl Fn(&S) -> bool,
) -> Result<(), EnvelopeError> {
    let mut footer_seen = false;
    for f in found.iter().filter(|f| f.span.end > message_len) {
        let ok =
            f.span == *footer && matches!(&f.item, Item::Sentence { value } if is_footer(value));
        if !ok {
            let what = match &f.item {
                Item::Sentence { .. } => "a sentence",
                Item::Directive { .. } => "a call",
            };
            return Err(EnvelopeError {
                message: format!(
                    "the envelope does not read as itself: {what} at bytes {}..{} (the message ends at byte {message_len}, the footer is bytes {}..{})",
                    f.span.start, f.span.end, footer.start, footer.end
                ),
            });
        }
        footer_seen = true;
    }
    if let Some(s) = skipped.iter().find(|s| s.span.end > message_len) {
        return Err(EnvelopeError {
            message: format!(
                "the envelope does not read as itself: a skipped candidate ({}) at bytes {}..{} (the message ends at byte {message_len})",
                s.reason, s.span.start, s.span.end
            ),
        });
    }
    if !footer_seen {
        return Err(EnvelopeError {
            message: format!(
                "the envelope does not read as itself: its footer (bytes {}..{}) is not read as the footer of this id (the message quotes it, or the id does not fit it)",
                footer.start, footer.end
            ),
        });
    }
    Ok(())
}
