//! Scanning a text as it arrives, piece by piece ([`Stream`]).
//!
//! This version is correct but not prompt: it holds every piece and, at
//! [`Stream::finish`], returns what [`Scanner::scan_with_diagnostics`] finds
//! in the whole text, found items and skips merged in span order. Each push
//! commits nothing. The API is the streaming engine's: an [`Event`] commits
//! one found item or reports one skip, spans are byte offsets into the whole
//! stream, and the union of every event equals the batch scan of the text.

use super::*;

/// One event of a [`Stream`]: a found item, final (never retracted), or a
/// skipped candidate. Serializes as the item's own JSON with
/// `"event": "found"` or `"event": "skipped"` first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event<S> {
    /// A sentence or tool call, exactly as the batch scan finds it.
    Found(Found<S>),
    /// A candidate that is not run, and why.
    Skipped(Skipped),
}

/// Bytes pushed to a stream that are not UTF-8: an invalid sequence, or at
/// [`Stream::finish`] an incomplete one at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    /// Byte offset of the offending sequence in the whole stream.
    pub at: usize,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the stream is not UTF-8 at byte {}", self.at)
    }
}

impl std::error::Error for StreamError {}

/// A scan of one text fed in pieces ([`Scanner::stream`]).
pub struct Stream<'s, S: 'static> {
    scanner: &'s Scanner<S>,
    /// Every complete character pushed.
    text: String,
    /// The bytes of an incomplete UTF-8 sequence at the end of the last
    /// [`Stream::push_bytes`].
    held: Vec<u8>,
}

impl<S: 'static> Scanner<S> {
    /// A stream over this scanner: push the text's pieces, then finish.
    pub fn stream(&self) -> Stream<'_, S> {
        Stream {
            scanner: self,
            text: String::new(),
            held: Vec::new(),
        }
    }
}

impl<S> fmt::Debug for Stream<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("bytes", &(self.text.len() + self.held.len()))
            .finish_non_exhaustive()
    }
}

impl<S> Stream<'_, S> {
    /// Pushes the next piece of text; the events it makes final.
    pub fn push(&mut self, chunk: &str) -> Vec<Event<S>> {
        self.text.push_str(chunk);
        Vec::new()
    }

    /// Pushes the next piece as bytes. An incomplete UTF-8 sequence at its
    /// end is held until the next piece completes it.
    ///
    /// # Errors
    /// [`StreamError`] at the first byte that is not UTF-8 (nothing of the
    /// piece is taken then).
    pub fn push_bytes(&mut self, chunk: &[u8]) -> Result<Vec<Event<S>>, StreamError> {
        let mut bytes = std::mem::take(&mut self.held);
        bytes.extend_from_slice(chunk);
        match std::str::from_utf8(&bytes) {
            Ok(s) => Ok(self.push(s)),
            Err(e) if e.error_len().is_none() => {
                let (ok, rest) = bytes.split_at(e.valid_up_to());
                let ok = std::str::from_utf8(ok).expect("valid up to here");
                let events = self.push(ok);
                self.held = rest.to_vec();
                Ok(events)
            }
            Err(e) => {
                let at = self.text.len() + e.valid_up_to();
                self.held = bytes[..bytes.len() - chunk.len()].to_vec();
                Err(StreamError { at })
            }
        }
    }

    /// Ends the stream; the events not yet given.
    ///
    /// # Errors
    /// [`StreamError`] when the stream ends inside a UTF-8 sequence.
    pub fn finish(self) -> Result<Vec<Event<S>>, StreamError> {
        if !self.held.is_empty() {
            return Err(StreamError {
                at: self.text.len(),
            });
        }
        let (found, skipped) = self.scanner.scan_with_diagnostics(&self.text);
        let mut events: Vec<(usize, Event<S>)> = found
            .into_iter()
            .map(|f| (f.span.start, Event::Found(f)))
            .chain(
                skipped
                    .into_iter()
                    .map(|s| (s.span.start, Event::Skipped(s))),
            )
            .collect();
        events.sort_by_key(|e| e.0);
        Ok(events.into_iter().map(|e| e.1).collect())
    }
}
