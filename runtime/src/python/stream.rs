//! The streaming scan for Python ([`PyStream`]): a text fed in pieces, each
//! piece's events built as the package's `Found` and `Skipped` instances.
//!
//! The events are the Rust stream's (`crate::scan::Stream`), in its order;
//! nothing here decides when an item is final. A `Span`'s `str` indexes
//! count from the start of the whole stream ([`StreamChars`]).

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;

use super::*;
use crate::scan::{Event, StreamError};

pyo3::create_exception!(
    _native,
    NativeStreamError,
    pyo3::exceptions::PyValueError,
    "Bytes pushed to a stream that are not UTF-8; args: (message, byte offset in the whole stream)."
);

/// A stream of the generated crate (its `scan::Stream` over the spec's
/// scanner), as [`PyStream`] feeds it.
pub trait StreamFeed: Send + 'static {
    /// The generated `Sentence`.
    type Sentence: Serialize + Send;
    /// `Stream::push`.
    fn push(&mut self, chunk: &str) -> Vec<Event<Self::Sentence>>;
    /// `Stream::push_bytes`.
    ///
    /// # Errors
    /// As `Stream::push_bytes`.
    fn push_bytes(&mut self, chunk: &[u8]) -> Result<Vec<Event<Self::Sentence>>, StreamError>;
    /// `Stream::finish`.
    ///
    /// # Errors
    /// As `Stream::finish`.
    fn finish(self) -> Result<Vec<Event<Self::Sentence>>, StreamError>;
}

/// Byte offset in a stream → `str` index in the text pushed so far. Keeps
/// no text while the stream is ASCII (an offset is then its index), and
/// from its first other byte on every byte, as a batch scan keeps its text.
/// Offsets are visited mostly in increasing order: linear overall.
#[derive(Default)]
struct StreamChars {
    /// The length of the stream's leading run of ASCII bytes.
    ascii: usize,
    /// Every byte after that run.
    rest: Vec<u8>,
    /// A cursor into `rest`: a byte offset and the characters before it.
    byte: usize,
    char: usize,
}

impl StreamChars {
    fn add(&mut self, bytes: &[u8]) {
        if self.rest.is_empty() {
            let n = bytes
                .iter()
                .position(|b| !b.is_ascii())
                .unwrap_or(bytes.len());
            self.ascii += n;
            self.rest.extend_from_slice(&bytes[n..]);
        } else {
            self.rest.extend_from_slice(bytes);
        }
    }

    fn len(&self) -> usize {
        self.ascii + self.rest.len()
    }

    /// The bytes of the incomplete UTF-8 sequence at the end of what was
    /// added (the stream holds them until the next piece completes them).
    fn held(&self) -> usize {
        let tail = &self.rest[self.rest.len().saturating_sub(3)..];
        for (k, &b) in tail.iter().rev().enumerate() {
            if b & 0xc0 != 0x80 {
                let width = match b {
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    0xf0..=0xff => 4,
                    _ => 1,
                };
                return if width > k + 1 { k + 1 } else { 0 };
            }
        }
        0
    }
}

impl CharAt for StreamChars {
    fn at(&mut self, at: usize) -> usize {
        if at <= self.ascii {
            return at;
        }
        let at = (at - self.ascii).min(self.rest.len());
        let count = bytecount::num_chars;
        if at >= self.byte {
            self.char += count(&self.rest[self.byte..at]);
        } else {
            self.char -= count(&self.rest[at..self.byte]);
        }
        self.byte = at;
        self.ascii + self.char
    }
}

/// What a stream is given next.
enum Piece<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
    End,
}

/// Where a stream is.
enum State<F> {
    Open(F),
    Finished,
    Failed(StreamError),
}

/// A [`StreamFeed`] and the `str` indexes of its text.
struct Feeder<F> {
    state: State<F>,
    chars: StreamChars,
}

/// [`Feeder`] with its sentence type erased, for the one Python class.
trait Erased: Send {
    fn feed<'py>(&mut self, py: Python<'py>, piece: Piece<'_>) -> PyResult<Bound<'py, PyList>>;
    fn bytes(&self) -> usize;
}

impl<F: StreamFeed> Erased for Feeder<F> {
    fn feed<'py>(&mut self, py: Python<'py>, piece: Piece<'_>) -> PyResult<Bound<'py, PyList>> {
        let classes = Classes::get(py)?;
        let result = match (&mut self.state, piece) {
            (State::Finished, _) => {
                return Err(PyValueError::new_err("the stream is finished"));
            }
            (State::Failed(e), _) => {
                return Err(PyValueError::new_err(format!("the stream failed: {e}")));
            }
            (State::Open(_), Piece::End) => {
                let State::Open(feed) = std::mem::replace(&mut self.state, State::Finished) else {
                    unreachable!("matched as open")
                };
                py.detach(move || feed.finish())
            }
            // Text after bytes that end inside a character: the character
            // can never be completed. The stream fails here, at the
            // character, before the text is scanned (P351): no event is
            // given for text the agent did not send whole.
            (State::Open(_), Piece::Text(_)) if self.chars.held() > 0 => Err(StreamError {
                at: self.chars.len() - self.chars.held(),
            }),
            (State::Open(feed), Piece::Text(text)) => {
                self.chars.add(text.as_bytes());
                Ok(py.detach(|| feed.push(text)))
            }
            (State::Open(feed), Piece::Bytes(bytes)) => {
                let pushed = py.detach(|| feed.push_bytes(bytes));
                if pushed.is_ok() {
                    self.chars.add(bytes);
                }
                pushed
            }
        };
        let events = result.map_err(|e| {
            let err = NativeStreamError::new_err((e.to_string(), e.at));
            self.state = State::Failed(e);
            err
        })?;
        let list = PyList::empty(py);
        for event in &events {
            list.append(match event {
                Event::Found(f) => found_object(py, classes, f, &mut self.chars)?,
                Event::Skipped(s) => skipped_object(py, classes, s, &mut self.chars)?,
            })?;
        }
        Ok(list)
    }

    fn bytes(&self) -> usize {
        self.chars.len()
    }
}

/// The streaming scan for Python (`agent_sentences.stream.Stream` wraps
/// it): push pieces of one text, then finish; each call returns the events
/// it made final, as `Found` and `Skipped` instances. The Rust work runs
/// detached from the interpreter.
#[pyclass(name = "Stream", module = "agent_sentences._native")]
pub struct PyStream {
    // A mutex makes the class shareable between threads whatever the feed
    // holds; the class's own borrow already keeps calls one at a time.
    inner: Mutex<Box<dyn Erased>>,
}

impl PyStream {
    /// A stream over `feed`, fresh.
    pub fn new<F: StreamFeed>(feed: F) -> Self {
        PyStream {
            inner: Mutex::new(Box::new(Feeder {
                state: State::Open(feed),
                chars: StreamChars::default(),
            })),
        }
    }

    fn feed<'py>(&mut self, py: Python<'py>, piece: Piece<'_>) -> PyResult<Bound<'py, PyList>> {
        self.inner
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .feed(py, piece)
    }
}

#[pymethods]
impl PyStream {
    /// Pushes the next piece of text: `list[Found | Skipped]`, the events it
    /// made final.
    ///
    /// # Errors
    /// `UnicodeEncodeError` for a lone surrogate (nothing is pushed then);
    /// `ValueError` once the stream is finished or has failed.
    #[pyo3(signature = (text, /))]
    fn push<'py>(&mut self, text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyList>> {
        let utf8 = Utf8::of(text)?;
        self.feed(text.py(), Piece::Text(utf8.as_str()))
    }

    /// Pushes the next piece as UTF-8 bytes (an incomplete sequence at the
    /// end is held for the next piece).
    ///
    /// # Errors
    /// `StreamError((message, at))` at an invalid sequence (the stream fails);
    /// `ValueError` once the stream is finished or has failed.
    #[pyo3(signature = (chunk, /))]
    fn push_bytes<'py>(
        &mut self,
        py: Python<'py>,
        chunk: &Bound<'py, PyBytes>,
    ) -> PyResult<Bound<'py, PyList>> {
        self.feed(py, Piece::Bytes(chunk.as_bytes()))
    }

    /// Ends the stream: the events not yet given.
    ///
    /// # Errors
    /// `StreamError((message, at))` when the bytes end inside a UTF-8
    /// sequence; `ValueError` when the stream is finished or has failed.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.feed(py, Piece::End)
    }

    /// The bytes pushed so far (held ones included): the byte offset of the
    /// next piece.
    #[getter]
    fn offset(&mut self) -> usize {
        self.inner
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .bytes()
    }
}

/// Rust's serde JSON of the events of `feed` given `chunks` then finished,
/// one list per call (each push, then the finish); the tests compare the
/// Python events' `to_dict()` with it.
///
/// # Errors
/// `UnicodeEncodeError` for a lone surrogate; `ValueError` for an error of
/// the stream.
pub fn stream_json<F: StreamFeed>(mut feed: F, chunks: &[Bound<'_, PyString>]) -> PyResult<String> {
    let mut calls = Vec::with_capacity(chunks.len() + 1);
    for chunk in chunks {
        calls.push(feed.push(Utf8::of(chunk)?.as_str()));
    }
    calls.push(
        feed.finish()
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
    );
    serde_json::to_string(&calls)
        .map_err(|e| PyRuntimeError::new_err(format!("serializing the events: {e}")))
}
