//! Python support (feature `python`): what a generated PyO3 module needs to
//! hand the Rust scanner and the strict JSON reader to Python.
//!
//! Written once, generic over the sentence type: the generated binding crate
//! (`generated/python/native/`, the private module `agent_sentences._native`)
//! defines the `#[pyfunction]`s and calls these with the generated crate's
//! `scan_with_diagnostics`. Nothing here knows a structure.
//!
//! # Objects, not JSON
//! Results are built as the generated Python package's own frozen
//! dataclasses (`Span`, `Found`, `ToolDirective`, `Skipped` and one class per
//! structure), which the package hands over once with [`Classes::register`].
//! An instance is allocated with the class's allocator and its fields are set
//! with the generic attribute setter, as `object.__new__` and
//! `object.__setattr__` do in the dataclass's own `__init__`, without a
//! Python call per field and without a JSON round trip. A sentence is
//! converted through its `serde::Serialize` impl ([`PyValue`]): a struct
//! whose first field is the tag `structure` becomes an instance of the class
//! registered for that tag, its fields set in serialization order (the spec's
//! field order, which is also the dataclass's).
//!
//! # Offsets
//! Spans are UTF-8 **byte** offsets (as in Rust); each `Span` also carries
//! the `str` (code point) indexes, counted here in one forward pass per list
//! ([`CharIndex`]); an ASCII text skips the count.
//!
//! # The GIL
//! The scan runs detached from the interpreter ([`Python::detach`]); a batch
//! ([`scan_many`]) scans its texts on every core with rayon and returns the
//! results in input order.

use std::collections::HashMap;

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use rayon::prelude::*;
use serde::ser::{self, Serialize};
use serde_json::{Map, Value};

use crate::json::{parse_object_with, render_object, JsonError, Limits};
use crate::scan::{Found, Item, Skipped, ToolDirective};

pyo3::create_exception!(
    _native,
    NativeJsonError,
    pyo3::exceptions::PyValueError,
    "The strict JSON reader's error: the text is not one strict JSON object (message as Rust's `JsonError`)."
);

/// The tag field of a serialized sentence (`#[serde(tag = "structure")]`).
const TAG: &str = "structure";

/// A class and its field names, in the order the fields are set.
struct Shape {
    class: Py<PyType>,
    fields: Vec<Py<PyString>>,
}

impl Shape {
    fn new(class: &Bound<'_, PyType>, fields: &[&str]) -> Self {
        let py = class.py();
        Shape {
            class: class.clone().unbind(),
            fields: fields
                .iter()
                .map(|f| PyString::intern(py, f).unbind())
                .collect(),
        }
    }
}

/// The Python classes results are built as, registered once by the
/// generated package ([`Classes::register`]).
pub struct Classes {
    span: Shape,
    found: Shape,
    tool_directive: Shape,
    skipped: Shape,
    /// Structure key (the serde tag, e.g. `ack`) → its dataclass.
    sentences: HashMap<String, Shape>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

impl Classes {
    /// Registers the result classes; the generated package calls this once at
    /// import. `sentences` maps each structure key to `(class, field names)`,
    /// the names in the spec's field order (the order serde writes them).
    ///
    /// # Errors
    /// `RuntimeError` when classes were registered already (a second
    /// registration would make earlier results and later ones differ in
    /// type).
    pub fn register(
        span: &Bound<'_, PyType>,
        found: &Bound<'_, PyType>,
        tool_directive: &Bound<'_, PyType>,
        skipped: &Bound<'_, PyType>,
        sentences: HashMap<String, (Bound<'_, PyType>, Vec<String>)>,
    ) -> PyResult<()> {
        let py = span.py();
        let dataclass_fields = py.import("dataclasses")?.getattr("fields")?;
        let check = |class: &Bound<'_, PyType>, fields: &[&str]| -> PyResult<()> {
            // The package's frozen dataclasses only: a heap type (a class
            // statement) whose dataclass fields are these, in this order.
            // SAFETY: `class` is a live type object.
            let flags = unsafe { ffi::PyType_GetFlags(class.as_ptr().cast()) };
            let declared: Vec<String> = match dataclass_fields.call1((class,)) {
                Ok(f) => f
                    .try_iter()?
                    .map(|f| f?.getattr("name")?.extract::<String>())
                    .collect::<PyResult<_>>()?,
                Err(_) => Vec::new(),
            };
            if flags & ffi::Py_TPFLAGS_HEAPTYPE == 0 || declared != fields {
                return Err(PyTypeError::new_err(format!(
                    "{} is not a dataclass with the fields {fields:?}",
                    class.name()?
                )));
            }
            Ok(())
        };
        check(span, &["start", "end", "char_start", "char_end"])?;
        check(found, &["span", "item"])?;
        check(
            tool_directive,
            &["form", "engine", "op", "written_op", "args"],
        )?;
        check(skipped, &["span", "reason", "message"])?;
        for (class, fields) in sentences.values() {
            check(
                class,
                &fields.iter().map(String::as_str).collect::<Vec<_>>(),
            )?;
        }
        let classes = Classes {
            span: Shape::new(span, &["start", "end", "char_start", "char_end"]),
            found: Shape::new(found, &["span", "item"]),
            tool_directive: Shape::new(
                tool_directive,
                &["form", "engine", "op", "written_op", "args"],
            ),
            skipped: Shape::new(skipped, &["span", "reason", "message"]),
            sentences: sentences
                .into_iter()
                .map(|(key, (class, fields))| {
                    let names: Vec<&str> = fields.iter().map(String::as_str).collect();
                    let shape = Shape::new(&class, &names);
                    (key, shape)
                })
                .collect(),
        };
        CLASSES
            .set(py, classes)
            .map_err(|_| PyRuntimeError::new_err("the result classes are registered already"))
    }

    fn get(py: Python<'_>) -> PyResult<&Classes> {
        CLASSES.get(py).ok_or_else(|| {
            PyRuntimeError::new_err(
                "the result classes are not registered (import agent_sentences first)",
            )
        })
    }
}

/// A new instance of `shape`'s class with its fields set to `values`, in
/// order, without calling `__init__` (`object.__new__`, then
/// `object.__setattr__` per field, as a frozen dataclass's `__init__` does).
fn instance<'py>(
    py: Python<'py>,
    shape: &Shape,
    values: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyAny>> {
    if values.len() != shape.fields.len() {
        return Err(PyTypeError::new_err(format!(
            "{} takes {} fields, the native value has {}",
            shape.class.bind(py).name()?,
            shape.fields.len(),
            values.len()
        )));
    }
    let class = shape.class.bind(py);
    // SAFETY: `class` is a live type object; `PyType_GenericNew` returns a new
    // reference or NULL with an exception set, which `from_owned_ptr_or_err`
    // turns into `Err`.
    let obj = unsafe {
        let empty = PyTuple::empty(py);
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyType_GenericNew(class.as_ptr().cast(), empty.as_ptr(), std::ptr::null_mut()),
        )?
    };
    for (name, value) in shape.fields.iter().zip(values) {
        // SAFETY: all three are live objects; the generic setter returns -1
        // with an exception set on failure (e.g. a name that is no slot).
        let rc =
            unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
        if rc != 0 {
            return Err(PyErr::fetch(py));
        }
    }
    Ok(obj)
}

/// Byte offset → `str` index, for offsets visited mostly in increasing
/// order (each list of a scan result is): linear in the text overall.
pub struct CharIndex<'t> {
    text: &'t [u8],
    ascii: bool,
    byte: usize,
    char: usize,
}

impl<'t> CharIndex<'t> {
    /// An index over `text`.
    pub fn new(text: &'t str) -> Self {
        CharIndex {
            text: text.as_bytes(),
            ascii: text.is_ascii(),
            byte: 0,
            char: 0,
        }
    }

    /// The code point index of byte offset `at` (a char boundary of the text).
    pub fn at(&mut self, at: usize) -> usize {
        if self.ascii {
            return at;
        }
        let count = bytecount::num_chars;
        if at >= self.byte {
            self.char += count(&self.text[self.byte..at]);
        } else {
            self.char -= count(&self.text[at..self.byte]);
        }
        self.byte = at;
        self.char
    }
}

fn span<'py>(
    py: Python<'py>,
    classes: &Classes,
    range: &std::ops::Range<usize>,
    chars: &mut CharIndex<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let (cs, ce) = (chars.at(range.start), chars.at(range.end));
    let start = range.start.into_pyobject(py)?.into_any();
    let end = range.end.into_pyobject(py)?.into_any();
    // In ASCII text (and before a text's first non-ASCII character) a `str`
    // index equals its byte offset: then the same `int` object serves both
    // fields, one allocation and one deallocation fewer each.
    let index = |index: usize, offset: usize, object: &Bound<'py, PyAny>| -> PyResult<_> {
        if index == offset {
            Ok(object.clone())
        } else {
            Ok(index.into_pyobject(py)?.into_any())
        }
    };
    let char_start = index(cs, range.start, &start)?;
    let char_end = index(ce, range.end, &end)?;
    let values = [start, end, char_start, char_end];
    instance(py, &classes.span, &values)
}

fn directive<'py>(
    py: Python<'py>,
    classes: &Classes,
    d: &ToolDirective,
) -> PyResult<Bound<'py, PyAny>> {
    let op = PyString::new(py, &d.op).into_any();
    let written_op = if d.written_op == d.op {
        op.clone()
    } else {
        PyString::new(py, &d.written_op).into_any()
    };
    let values = [
        d.form.serialize(PyValue {
            py,
            classes: Some(classes),
        })?,
        PyString::intern(py, d.engine).into_any(),
        op,
        written_op,
        object_to_py(py, &d.args)?.into_any(),
    ];
    instance(py, &classes.tool_directive, &values)
}

/// The `Found` instances of a scan result, in order. Each Rust item is
/// dropped as soon as its Python object exists, so the two copies of a large
/// result are never both whole.
fn found_list<'py, S: Serialize>(
    py: Python<'py>,
    classes: &Classes,
    text: &str,
    found: Vec<Found<S>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut chars = CharIndex::new(text);
    let list = PyList::empty(py);
    for f in found {
        let item = match &f.item {
            Item::Sentence { value } => value.serialize(PyValue {
                py,
                classes: Some(classes),
            })?,
            Item::Directive { directive: d } => directive(py, classes, d)?,
        };
        let span = span(py, classes, &f.span, &mut chars)?;
        list.append(instance(py, &classes.found, &[span, item])?)?;
    }
    Ok(list)
}

/// The `Skipped` instances of a scan result, in order.
fn skipped_list<'py>(
    py: Python<'py>,
    classes: &Classes,
    text: &str,
    skipped: Vec<Skipped>,
) -> PyResult<Bound<'py, PyList>> {
    let mut chars = CharIndex::new(text);
    let list = PyList::empty(py);
    for s in skipped {
        let span = span(py, classes, &s.span, &mut chars)?;
        let reason = s.reason.serialize(PyValue {
            py,
            classes: Some(classes),
        })?;
        list.append(instance(
            py,
            &classes.skipped,
            &[span, reason, PyString::new(py, &s.message).into_any()],
        )?)?;
    }
    Ok(list)
}

/// Texts of at most this many characters are read through CPython's UTF-8
/// cache, larger ones through a temporary copy (decision P115).
pub const CACHED_UTF8_MAX_CHARS: usize = 1 << 20;

/// The UTF-8 bytes of a Python `str` (decision P115). An ASCII `str` is read
/// in place (its characters are its UTF-8). Any other up to
/// [`CACHED_UTF8_MAX_CHARS`] characters through CPython's UTF-8 cache, as
/// C extensions usually do: encoded once, kept inside the `str` for its life,
/// so scanning the same text again costs no second encoding. A larger one is
/// encoded into a temporary `bytes` dropped with this value, so that a 1 GB
/// text does not hold 2 GB for the rest of its life.
struct Utf8<'a, 'py> {
    cached: Option<&'a str>,
    encoded: Option<Bound<'py, PyBytes>>,
}

impl<'a, 'py> Utf8<'a, 'py> {
    /// # Errors
    /// `UnicodeEncodeError` for a lone surrogate.
    fn of(text: &'a Bound<'py, PyString>) -> PyResult<Self> {
        // CPython's own `str` functions, never the object's methods: a `str`
        // subclass's `__len__` or `isascii` runs no code of its own here.
        let py = text.py();
        // SAFETY: `text` is a live `str` (a `PyString`, subclasses included).
        let chars = unsafe { ffi::PyUnicode_GetLength(text.as_ptr()) };
        if chars < 0 {
            return Err(PyErr::fetch(py));
        }
        if chars as usize <= CACHED_UTF8_MAX_CHARS
            || py
                .get_type::<PyString>()
                .call_method1(pyo3::intern!(py, "isascii"), (text,))?
                .is_truthy()?
        {
            return Ok(Utf8 {
                cached: Some(text.to_str()?),
                encoded: None,
            });
        }
        Ok(Utf8 {
            cached: None,
            encoded: Some(text.encode_utf8()?),
        })
    }

    fn as_str(&self) -> &str {
        match (&self.cached, &self.encoded) {
            (Some(s), _) => s,
            // SAFETY: CPython's strict UTF-8 encoder (`str.encode("utf-8")`,
            // which `encode_utf8` calls) writes valid UTF-8 or fails.
            (None, Some(b)) => unsafe { std::str::from_utf8_unchecked(b.as_bytes()) },
            (None, None) => unreachable!("one of the two is set"),
        }
    }
}

/// What a scan function of the generated crate returns.
pub type ScanResult<S> = (Vec<Found<S>>, Vec<Skipped>);

/// Scans `text` with `scan` detached from the interpreter and returns
/// `list[Found]`, or `(list[Found], list[Skipped])` when `diagnostics`.
///
/// # Errors
/// `UnicodeEncodeError` when `text` holds a lone surrogate (no UTF-8 text
/// can; the generated package turns it into its `ParseError`, decision P22);
/// `RuntimeError` before the classes are registered.
pub fn scan<'py, S: Serialize + Send>(
    text: &Bound<'py, PyString>,
    diagnostics: bool,
    scan: fn(&str) -> ScanResult<S>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = text.py();
    let classes = Classes::get(py)?;
    let utf8 = Utf8::of(text)?;
    let s = utf8.as_str();
    let (found, skipped) = py.detach(|| scan(s));
    result(py, classes, s, found, skipped, diagnostics)
}

/// Pauses the cyclic garbage collector while results are built, and
/// restores its state when dropped (also on an error). The objects built form
/// no cycles, but a million new container objects would otherwise run a
/// collection every 700 allocations over everything alive, which took more
/// than half of the time of a scan with many items.
struct GcPause {
    was_enabled: bool,
}

impl GcPause {
    fn new(_py: Python<'_>) -> Self {
        // SAFETY: called with the interpreter attached (the `Python` token);
        // `PyGC_Disable` returns the previous state and cannot fail.
        GcPause {
            was_enabled: unsafe { ffi::PyGC_Disable() } != 0,
        }
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: dropped where it was made, with the interpreter attached.
            unsafe { ffi::PyGC_Enable() };
        }
    }
}

fn result<'py, S: Serialize>(
    py: Python<'py>,
    classes: &Classes,
    text: &str,
    found: Vec<Found<S>>,
    skipped: Vec<Skipped>,
    diagnostics: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let _pause = GcPause::new(py);
    let found = found_list(py, classes, text, found)?;
    if diagnostics {
        Ok(PyTuple::new(
            py,
            [
                found.into_any(),
                skipped_list(py, classes, text, skipped)?.into_any(),
            ],
        )?
        .into_any())
    } else {
        Ok(found.into_any())
    }
}

/// Gives other Python threads the interpreter during a long stretch of work
/// that holds it, the way CPython's own loop does.
///
/// A thread waiting for the interpreter asks for it only after waiting one
/// switch interval (`sys.getswitchinterval()`, 5 ms by default) without any
/// change of holder, and a release is handed to it only once it has asked.
/// Releasing after every small piece of work (a chunk's objects take about
/// 2 ms) therefore starves it: each release and re-take counts as a change,
/// so it never asks (measured: other threads blocked for 0.12 s at the end of
/// a batch of a million texts). Releasing only once two intervals have passed
/// since the interpreter was last released lets it ask in between.
struct Turns {
    every: std::time::Duration,
    last: std::time::Instant,
}

impl Turns {
    fn new(py: Python<'_>) -> PyResult<Self> {
        let interval: f64 = py
            .import("sys")?
            .call_method0("getswitchinterval")?
            .extract()?;
        Ok(Turns {
            // An infinite interval (a patched `sys.getswitchinterval`) never
            // offers; a negative or NaN one offers every time.
            every: std::time::Duration::try_from_secs_f64((2.0 * interval).max(0.0))
                .unwrap_or(std::time::Duration::MAX),
            last: std::time::Instant::now(),
        })
    }

    /// Notes that the interpreter was just released (a detached scan or wait).
    fn released(&mut self) {
        self.last = std::time::Instant::now();
    }

    /// Releases the interpreter for a moment when two switch intervals have
    /// passed since it was last released.
    fn offer(&mut self, py: Python<'_>) {
        if self.last.elapsed() >= self.every {
            py.detach(|| ());
            self.released();
        }
    }
}

/// A batch of at most this many bytes of text is scanned on the calling
/// thread alone: waking the pool's threads would cost about as much as
/// scanning it (8 KiB take about 60 µs).
pub const SERIAL_BATCH_BYTES: usize = 8 << 10;

/// Scans every text of `texts` on all cores, detached from the interpreter,
/// and returns one result per text, in input order, each as [`scan`]
/// returns it.
///
/// The texts are cut into chunks, which the scan threads claim one at a time
/// (an atomic counter): all but one of the rayon pool's threads, one per core,
/// and this thread. The pool's threads only scan and send each chunk's
/// results here; this thread, the only one that may build Python objects,
/// builds every chunk that is done, at its texts' places in the list,
/// whichever finished first, and when none is waiting scans the next
/// unclaimed chunk itself, detached. So there is one scanning or building
/// thread per core, never more: building runs beside the scans instead of
/// competing with them for a core, and the time after the last scan is one
/// chunk's building (decision P168). A batch of at most
/// [`SERIAL_BATCH_BYTES`] is scanned here alone.
///
/// The interpreter is released while this thread scans a chunk, and
/// between the chunks it builds once two switch intervals have passed since
/// it was last released (`Turns`), so other Python threads run while a long
/// batch is built; it is never held while this thread waits for the pool's
/// threads (also at the end, when a pool busy with other batches has not yet
/// started this batch's task).
///
/// # Errors
/// As [`scan`], for the first text that holds a lone surrogate: then no text
/// is scanned. `RuntimeError` when a scan thread stopped early (a panic,
/// which is then raised as pyo3's `PanicException`).
pub fn scan_many<'py, S: Serialize + Send>(
    py: Python<'py>,
    texts: &[Bound<'py, PyString>],
    diagnostics: bool,
    scan: fn(&str) -> ScanResult<S>,
) -> PyResult<Bound<'py, PyList>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    use std::sync::mpsc::Receiver;

    type Done<S> = (usize, Vec<ScanResult<S>>);

    let classes = Classes::get(py)?;
    let mut turns = Turns::new(py)?;
    let mut holders = Vec::with_capacity(texts.len());
    for text in texts {
        // Reading a million texts takes a tenth of a second.
        holders.push(Utf8::of(text)?);
        turns.offer(py);
    }
    let strs: Vec<&str> = holders.iter().map(Utf8::as_str).collect();
    let pool = pool()?;
    let bytes: usize = strs.iter().map(|s| s.len()).sum();
    let helpers = if bytes <= SERIAL_BATCH_BYTES {
        0
    } else {
        pool.current_num_threads().saturating_sub(1)
    };
    // Chunks of texts, so that a batch of many tiny texts costs one message
    // per chunk, not per text; enough chunks that building objects can start
    // early, the cores stay busy and the last chunk's building is short.
    let per_chunk = strs.len().div_ceil((helpers + 1) * 16).clamp(1, 4096);
    let chunks: Vec<&[&str]> = strs.chunks(per_chunk).collect();
    // Every place holds `None` until its text's result is built.
    let list = PyList::new(
        py,
        std::iter::repeat_n(py.None().into_bound(py), strs.len()),
    )?;
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let (chunks, next, cancel) = (&chunks, &next, &cancel);
    // The next unclaimed chunk, or `None` when all are claimed or the call
    // failed.
    let claim = move || -> Option<usize> {
        if cancel.load(Relaxed) {
            return None;
        }
        let i = next.fetch_add(1, Relaxed);
        (i < chunks.len()).then_some(i)
    };
    let scan_chunk =
        move |i: usize| -> Vec<ScanResult<S>> { chunks[i].iter().map(|s| scan(s)).collect() };
    let build = |(i, results): Done<S>| -> PyResult<()> {
        let _pause = GcPause::new(py);
        let first = i * per_chunk;
        for (k, (text, (found, skipped))) in chunks[i].iter().zip(results).enumerate() {
            list.set_item(
                first + k,
                result(py, classes, text, found, skipped, diagnostics)?,
            )?;
        }
        Ok(())
    };
    // This thread's part: build every chunk, scanning unclaimed ones while
    // none is waiting.
    let mut run = |rx: &mut Option<Receiver<Done<S>>>| -> PyResult<()> {
        let mut left = chunks.len();
        while left > 0 {
            let waiting = rx.as_ref().and_then(|rx| rx.try_recv().ok());
            let done = match waiting {
                Some(done) => done,
                None => match claim() {
                    Some(i) => {
                        let scanned = py.detach(move || scan_chunk(i));
                        turns.released();
                        (i, scanned)
                    }
                    None => {
                        // Every chunk is claimed and some are still being
                        // scanned. The receiver is moved into the detached
                        // wait and back (it is `Send`, not `Sync`).
                        let taken = rx.take();
                        let (got, back) = py.detach(move || {
                            let got = taken.as_ref().and_then(|rx| rx.recv().ok());
                            (got, taken)
                        });
                        *rx = back;
                        turns.released();
                        got.ok_or_else(|| {
                            PyRuntimeError::new_err("the scan threads stopped early")
                        })?
                    }
                },
            };
            build(done)?;
            left -= 1;
            // Ctrl-C and other signals are seen between chunks, and other
            // Python threads get their turns.
            py.check_signals()?;
            turns.offer(py);
        }
        Ok(())
    };
    if helpers == 0 {
        return run(&mut None).map(|()| list);
    }
    let (tx, rx) = std::sync::mpsc::channel::<Done<S>>();
    let mut rx = Some(rx);
    pool.in_place_scope(|threads| -> PyResult<()> {
        for _ in 0..helpers {
            let tx = tx.clone();
            threads.spawn(move |_| {
                while let Some(i) = claim() {
                    // The receiver is gone only after an error: stop quietly.
                    if tx.send((i, scan_chunk(i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let built = run(&mut rx);
        if built.is_err() {
            cancel.store(true, Relaxed);
        }
        // Wait, detached, until every pool thread's part has ended (each drops
        // its sender then), so that the scope's own wait at its end, which
        // holds the interpreter, takes no time.
        let taken = rx.take();
        py.detach(move || {
            if let Some(rx) = taken {
                while rx.recv().is_ok() {}
            }
        });
        built
    })?;
    Ok(list)
}

/// The rayon pool of this process. A pool made before a `fork()` has no
/// threads in the child (only the forking thread survives), so a process
/// whose id changed makes a new one and leaves the old one alone (dropping
/// it would wait on threads that do not exist).
fn pool() -> PyResult<std::sync::Arc<rayon::ThreadPool>> {
    static POOL: std::sync::Mutex<Option<(u32, std::sync::Arc<rayon::ThreadPool>)>> =
        std::sync::Mutex::new(None);
    let mut slot = POOL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let pid = std::process::id();
    if let Some((owner, pool)) = slot.as_ref() {
        if *owner == pid {
            return Ok(pool.clone());
        }
    }
    if let Some(old) = slot.take() {
        std::mem::forget(old);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("agent-sentences-scan-{i}"))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the scan threads: {e}")))?;
    let pool = std::sync::Arc::new(pool);
    *slot = Some((pid, pool.clone()));
    Ok(pool)
}

/// Rust's serde JSON of `scan(text)`: `{"found": [..], "skipped": [..]}`,
/// exactly as the Rust crate serializes its values; the tests compare the
/// Python objects' `to_dict()` with it.
///
/// # Errors
/// `UnicodeEncodeError` for a lone surrogate.
pub fn scan_json<S: Serialize + Send>(
    text: &Bound<'_, PyString>,
    scan: fn(&str) -> ScanResult<S>,
) -> PyResult<String> {
    let py = text.py();
    let utf8 = Utf8::of(text)?;
    let s = utf8.as_str();
    let (found, skipped) = py.detach(|| scan(s));
    serde_json::to_string(&serde_json::json!({ "found": found, "skipped": skipped }))
        .map_err(|e| PyRuntimeError::new_err(format!("serializing the scan result: {e}")))
}

/// One row of a harvest table: a found item or, with diagnostics, a
/// skipped candidate (see `harvest.py`'s schema).
struct Row {
    /// The message (text) the row comes from: its index in the batch.
    index: usize,
    start: usize,
    end: usize,
    kind: &'static str,
    structure: Option<String>,
    op: Option<String>,
    /// Canonical JSON ([`render_object`]) of the sentence's fields, or of the
    /// directive's form, engine, op and written op; `None` for a skip.
    fields: Option<String>,
    /// Canonical JSON of a directive's arguments.
    args: Option<String>,
    reason: Option<String>,
    message: Option<String>,
}

/// The rows of one text's scan result, in text order (found items and
/// skipped candidates merged by span start; a found item first on a tie).
fn rows_of<S: Serialize>(
    index: usize,
    found: Vec<Found<S>>,
    skipped: Vec<Skipped>,
    diagnostics: bool,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::with_capacity(found.len() + if diagnostics { skipped.len() } else { 0 });
    for f in found {
        let row = match f.item {
            Item::Sentence { value } => {
                let mut map = match serde_json::to_value(&value).map_err(|e| e.to_string())? {
                    Value::Object(map) => map,
                    other => {
                        return Err(format!("a sentence serialized as {other}, not an object"))
                    }
                };
                let structure = match map.shift_remove(TAG) {
                    Some(Value::String(s)) => s,
                    _ => return Err("a sentence serialized without its `structure` tag".to_owned()),
                };
                Row {
                    index,
                    start: f.span.start,
                    end: f.span.end,
                    kind: "sentence",
                    structure: Some(structure),
                    op: None,
                    fields: Some(render_object(&map)),
                    args: None,
                    reason: None,
                    message: None,
                }
            }
            Item::Directive { directive: d } => {
                let mut map = Map::new();
                map.insert(
                    "form".to_owned(),
                    serde_json::to_value(d.form).map_err(|e| e.to_string())?,
                );
                map.insert("engine".to_owned(), Value::String(d.engine.to_owned()));
                map.insert("op".to_owned(), Value::String(d.op.clone()));
                map.insert("written_op".to_owned(), Value::String(d.written_op));
                Row {
                    index,
                    start: f.span.start,
                    end: f.span.end,
                    kind: "directive",
                    structure: None,
                    op: Some(d.op),
                    fields: Some(render_object(&map)),
                    args: Some(render_object(&d.args)),
                    reason: None,
                    message: None,
                }
            }
        };
        rows.push(row);
    }
    if diagnostics && !skipped.is_empty() {
        for s in skipped {
            let reason = match serde_json::to_value(s.reason).map_err(|e| e.to_string())? {
                Value::String(r) => r,
                other => return Err(format!("a skip reason serialized as {other}")),
            };
            rows.push(Row {
                index,
                start: s.span.start,
                end: s.span.end,
                kind: "skipped",
                structure: None,
                op: None,
                fields: None,
                args: None,
                reason: Some(reason),
                message: Some(s.message),
            });
        }
        // Stable: a found item stays before a skip that starts where it does.
        rows.sort_by_key(|r| r.start);
    }
    Ok(rows)
}

/// A string column in Arrow's layout (`utf8`): validity bitmap (bit `i` of
/// byte `i / 8`, least significant first, set when row `i` is not null),
/// `i32` offsets, and the bytes.
struct StrCol {
    validity: Vec<u8>,
    offsets: Vec<i32>,
    data: Vec<u8>,
    nulls: usize,
    len: usize,
}

impl StrCol {
    fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        StrCol {
            validity: Vec::with_capacity(rows.div_ceil(8)),
            offsets,
            data: Vec::new(),
            nulls: 0,
            len: 0,
        }
    }

    fn push(&mut self, value: Option<&str>) -> Result<(), String> {
        if self.len % 8 == 0 {
            self.validity.push(0);
        }
        match value {
            Some(v) => {
                self.data.extend_from_slice(v.as_bytes());
                if let Some(byte) = self.validity.last_mut() {
                    *byte |= 1 << (self.len % 8);
                }
            }
            None => self.nulls += 1,
        }
        self.offsets.push(
            i32::try_from(self.data.len())
                .map_err(|_| "a string column of a batch passed 2 GiB".to_owned())?,
        );
        self.len += 1;
        Ok(())
    }

    /// `("utf8", validity or None, offsets, data, null count)`.
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let validity = if self.nulls == 0 {
            py.None().into_bound(py)
        } else {
            PyBytes::new(py, &self.validity).into_any()
        };
        let offsets: Vec<u8> = self.offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        (
            PyString::intern(py, "utf8"),
            validity,
            PyBytes::new(py, &offsets),
            PyBytes::new(py, &self.data),
            self.nulls,
        )
            .into_pyobject(py)
    }
}

/// `("int64", little-endian values)`.
fn int_col<'py>(
    py: Python<'py>,
    values: impl Iterator<Item = i64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let bytes: Vec<u8> = values.flat_map(i64::to_le_bytes).collect();
    (PyString::intern(py, "int64"), PyBytes::new(py, &bytes)).into_pyobject(py)
}

/// Where the per-message columns of a harvest batch come from.
struct Origin<'a> {
    file: &'a str,
    senders: &'a [(Option<String>, Option<String>)],
}

/// The string columns of `rows`, built without the interpreter: `kind`,
/// `structure`, `op`, `fields`, `args`, `reason`, `message`, and with an
/// origin `file`, `at`, `sender`.
fn string_columns(
    rows: &[Row],
    origin: Option<&Origin<'_>>,
) -> Result<Vec<(&'static str, StrCol)>, String> {
    type Get = fn(&Row) -> Option<&str>;
    let getters: [(&'static str, Get); 7] = [
        ("kind", |r| Some(r.kind)),
        ("structure", |r| r.structure.as_deref()),
        ("op", |r| r.op.as_deref()),
        ("fields", |r| r.fields.as_deref()),
        ("args", |r| r.args.as_deref()),
        ("reason", |r| r.reason.as_deref()),
        ("message", |r| r.message.as_deref()),
    ];
    let mut cols = Vec::new();
    for (name, get) in getters {
        let mut col = StrCol::with_capacity(rows.len());
        for r in rows {
            col.push(get(r))?;
        }
        cols.push((name, col));
    }
    if let Some(o) = origin {
        let mut file = StrCol::with_capacity(rows.len());
        let mut at = StrCol::with_capacity(rows.len());
        let mut sender = StrCol::with_capacity(rows.len());
        for r in rows {
            file.push(Some(o.file))?;
            at.push(o.senders[r.index].0.as_deref())?;
            sender.push(o.senders[r.index].1.as_deref())?;
        }
        cols.extend([("file", file), ("at", at), ("sender", sender)]);
    }
    Ok(cols)
}

/// The columns of harvest rows in Arrow's layout, by name (see
/// [`StrCol::to_py`], [`int_col`]): `index` (the message's index in the
/// batch), `span_start`, `span_end`, the string columns of
/// [`string_columns`], and with an origin `line` (`first_line + index`).
fn columns<'py>(
    py: Python<'py>,
    rows: &[Row],
    strings: Vec<(&'static str, StrCol)>,
    first_line: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let as_i64 = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
    dict.set_item("index", int_col(py, rows.iter().map(|r| as_i64(r.index)))?)?;
    dict.set_item(
        "span_start",
        int_col(py, rows.iter().map(|r| as_i64(r.start)))?,
    )?;
    dict.set_item("span_end", int_col(py, rows.iter().map(|r| as_i64(r.end)))?)?;
    if let Some(first) = first_line {
        dict.set_item(
            "line",
            int_col(
                py,
                rows.iter().map(|r| first.saturating_add(as_i64(r.index))),
            )?,
        )?;
    }
    for (name, col) in &strings {
        dict.set_item(*name, col.to_py(py)?)?;
    }
    Ok(dict)
}

/// The harvest rows of every text of `texts`, scanned on all cores with the
/// interpreter released, as `(row count, columns)` (see [`columns`]; no
/// `file`, `line`, `at` or `sender`): `agent_sentences.harvest.scan_batch`
/// builds its record batch from it.
///
/// # Errors
/// `UnicodeEncodeError` for the first text holding a lone surrogate (then no
/// text is scanned).
pub fn scan_rows<'py, S: Serialize + Send>(
    py: Python<'py>,
    texts: &[Bound<'py, PyString>],
    diagnostics: bool,
    scan: fn(&str) -> ScanResult<S>,
) -> PyResult<Bound<'py, PyTuple>> {
    let holders = texts
        .iter()
        .map(Utf8::of)
        .collect::<PyResult<Vec<Utf8<'_, 'py>>>>()?;
    let strs: Vec<&str> = holders.iter().map(Utf8::as_str).collect();
    let pool = pool()?;
    let built = py.detach(|| -> Result<_, String> {
        let rows = pool.install(|| {
            strs.par_iter()
                .enumerate()
                .map(|(i, s)| {
                    let (found, skipped) = scan(s);
                    rows_of(i, found, skipped, diagnostics)
                })
                .collect::<Result<Vec<Vec<Row>>, String>>()
        })?;
        let rows: Vec<Row> = rows.into_iter().flatten().collect();
        let strings = string_columns(&rows, None)?;
        Ok((rows, strings))
    });
    let (rows, strings) = built.map_err(PyRuntimeError::new_err)?;
    let cols = columns(py, &rows, strings, None)?;
    (rows.len(), cols).into_pyobject(py)
}

/// One JSON Lines message as `box-docs loops` writes it; other keys are
/// ignored, a repeated key is an error (serde's derive rejects it).
#[derive(serde::Deserialize)]
struct Message {
    at: Option<String>,
    from: Option<String>,
    text: String,
}

/// Reads one line (its `\n` or `\r\n` removed) as a message.
fn read_message(line: &[u8]) -> Result<Message, String> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match line.iter().find(|b| !b" \t".contains(b)) {
        Some(b'{') => {}
        Some(_) => return Err("not a JSON object".to_owned()),
        None => return Err("an empty line, not a JSON object".to_owned()),
    }
    serde_json::from_slice::<Message>(line).map_err(|e| e.to_string())
}

/// Reads each line of `lines` (raw bytes of a JSON Lines file, the first of
/// them line `first_line` of `file`) as a message `{"at", "from", "text"}`
/// and scans its text, on all cores with the interpreter released. Returns
/// `(row count, columns, bad lines)`: the columns as [`columns`] builds them,
/// with `file`, `line`, `at` and `sender`; the bad lines as `(index in
/// lines, why)`, in order. A bad line (not UTF-8, not one JSON object, `text`
/// missing or not a string, `at` or `from` neither a string nor null, a key
/// repeated) yields no row.
///
/// # Errors
/// `RuntimeError` when a scan result cannot be serialized (a bug) or a string
/// column of the batch passes 2 GiB.
pub fn harvest_lines<'py, S: Serialize + Send>(
    py: Python<'py>,
    lines: &[Bound<'py, PyBytes>],
    diagnostics: bool,
    file: &str,
    first_line: i64,
    scan: fn(&str) -> ScanResult<S>,
) -> PyResult<Bound<'py, PyTuple>> {
    let bytes: Vec<&[u8]> = lines.iter().map(|b| b.as_bytes()).collect();
    type Read = Result<((Option<String>, Option<String>), Vec<Row>), String>;
    let pool = pool()?;
    let built = py.detach(|| -> Result<_, String> {
        let read = pool.install(|| {
            bytes
                .par_iter()
                .enumerate()
                .map(|(i, line)| -> Result<Read, String> {
                    let message = match read_message(line) {
                        Ok(m) => m,
                        Err(e) => return Ok(Err(e)),
                    };
                    let (found, skipped) = scan(&message.text);
                    Ok(Ok((
                        (message.at, message.from),
                        rows_of(i, found, skipped, diagnostics)?,
                    )))
                })
                .collect::<Result<Vec<Read>, String>>()
        })?;
        let mut senders = Vec::with_capacity(read.len());
        let mut rows = Vec::new();
        let mut errors = Vec::new();
        for (i, r) in read.into_iter().enumerate() {
            match r {
                Ok((sender, mut r)) => {
                    senders.push(sender);
                    rows.append(&mut r);
                }
                Err(e) => {
                    senders.push((None, None));
                    errors.push((i, e));
                }
            }
        }
        let strings = string_columns(
            &rows,
            Some(&Origin {
                file,
                senders: &senders,
            }),
        )?;
        Ok((rows, strings, errors))
    });
    let (rows, strings, errors) = built.map_err(PyRuntimeError::new_err)?;
    let cols = columns(py, &rows, strings, Some(first_line))?;
    (rows.len(), cols, PyList::new(py, errors)?).into_pyobject(py)
}

/// Reads `text` as exactly one strict JSON object within `limits`
/// (`crate::json::parse_object_with`) and returns it as a `dict`.
///
/// # Errors
/// [`NativeJsonError`] with the reader's message; `UnicodeEncodeError` for a
/// lone surrogate.
pub fn parse_object<'py>(
    text: &Bound<'py, PyString>,
    limits: Limits,
) -> PyResult<Bound<'py, PyDict>> {
    let py = text.py();
    let utf8 = Utf8::of(text)?;
    let s = utf8.as_str();
    let map = parse_object_with(s, limits)
        .map_err(|JsonError { message }| NativeJsonError::new_err(message))?;
    object_to_py(py, &map)
}

/// A JSON object as a `dict` (keys in order), arrays as `list`, numbers as
/// `int` or `float`.
pub fn object_to_py<'py>(
    py: Python<'py>,
    map: &Map<String, Value>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in map {
        dict.set_item(PyString::new(py, k), value_to_py(py, v)?)?;
    }
    Ok(dict)
}

fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for item in a {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => object_to_py(py, m)?.into_any(),
    })
}

/// A `serde::Serializer` whose output is a Python object: strings, integers,
/// floats, `None`, lists, dicts, unit enum variants as their serde name, and
/// a struct whose first field is the `structure` tag as an instance of the
/// class registered for the tag (any other struct as a `dict`).
#[derive(Clone, Copy)]
pub struct PyValue<'py, 'c> {
    py: Python<'py>,
    classes: Option<&'c Classes>,
}

/// An error while converting a value to Python.
#[derive(Debug)]
pub struct ConvertError(PyErr);

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ConvertError {}

impl ser::Error for ConvertError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        ConvertError(PyTypeError::new_err(msg.to_string()))
    }
}

impl From<std::convert::Infallible> for ConvertError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

impl From<PyErr> for ConvertError {
    fn from(e: PyErr) -> Self {
        ConvertError(e)
    }
}

impl From<ConvertError> for PyErr {
    fn from(e: ConvertError) -> Self {
        e.0
    }
}

type Out<'py> = Result<Bound<'py, PyAny>, ConvertError>;

/// Collects a sequence.
pub struct SeqOut<'py, 'c> {
    to: PyValue<'py, 'c>,
    items: Bound<'py, PyList>,
}

/// Collects a map.
pub struct MapOut<'py, 'c> {
    to: PyValue<'py, 'c>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
}

/// Collects a struct: a registered sentence class's instance, or a dict.
pub struct StructOut<'py, 'c> {
    to: PyValue<'py, 'c>,
    /// The tag's value once seen first.
    tag: Option<String>,
    names: Vec<&'static str>,
    values: Vec<Bound<'py, PyAny>>,
}

fn unsupported<T>(what: &str) -> Result<T, ConvertError> {
    Err(ConvertError(PyTypeError::new_err(format!(
        "{what} has no Python form in the scan result"
    ))))
}

impl<'py, 'c> ser::Serializer for PyValue<'py, 'c> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvertError;
    type SerializeSeq = SeqOut<'py, 'c>;
    type SerializeTuple = SeqOut<'py, 'c>;
    type SerializeTupleStruct = SeqOut<'py, 'c>;
    type SerializeTupleVariant = ser::Impossible<Bound<'py, PyAny>, ConvertError>;
    type SerializeMap = MapOut<'py, 'c>;
    type SerializeStruct = StructOut<'py, 'c>;
    type SerializeStructVariant = ser::Impossible<Bound<'py, PyAny>, ConvertError>;

    fn serialize_bool(self, v: bool) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Out<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Out<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Out<'py> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.into_any())
    }
    fn serialize_u8(self, v: u8) -> Out<'py> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Out<'py> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Out<'py> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.into_any())
    }
    fn serialize_f32(self, v: f32) -> Out<'py> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Out<'py> {
        Ok(v.into_pyobject(self.py)?.into_any())
    }
    fn serialize_char(self, v: char) -> Out<'py> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, _: &[u8]) -> Out<'py> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Out<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Out<'py> {
        // One of a few fixed names (a status, a form, a skip reason): shared.
        Ok(PyString::intern(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Out<'py> {
        unsupported("an externally tagged enum variant")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<SeqOut<'py, 'c>, ConvertError> {
        Ok(SeqOut {
            to: self,
            items: PyList::empty(self.py),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqOut<'py, 'c>, ConvertError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<SeqOut<'py, 'c>, ConvertError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, ConvertError> {
        unsupported("a tuple variant")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapOut<'py, 'c>, ConvertError> {
        Ok(MapOut {
            to: self,
            dict: PyDict::new(self.py),
            key: None,
        })
    }
    fn serialize_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<StructOut<'py, 'c>, ConvertError> {
        Ok(StructOut {
            to: self,
            tag: None,
            names: Vec::with_capacity(len),
            values: Vec::with_capacity(len),
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, ConvertError> {
        unsupported("a struct variant")
    }
}

impl<'py> ser::SerializeSeq for SeqOut<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvertError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ConvertError> {
        Ok(self.items.append(value.serialize(self.to)?)?)
    }
    fn end(self) -> Out<'py> {
        Ok(self.items.into_any())
    }
}

impl<'py> ser::SerializeTuple for SeqOut<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvertError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ConvertError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Out<'py> {
        ser::SerializeSeq::end(self)
    }
}

impl<'py> ser::SerializeTupleStruct for SeqOut<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvertError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ConvertError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Out<'py> {
        ser::SerializeSeq::end(self)
    }
}

impl<'py> ser::SerializeMap for MapOut<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvertError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), ConvertError> {
        self.key = Some(key.serialize(self.to)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), ConvertError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <ConvertError as ser::Error>::custom("a map value without its key"))?;
        Ok(self.dict.set_item(key, value.serialize(self.to)?)?)
    }
    fn end(self) -> Out<'py> {
        Ok(self.dict.into_any())
    }
}

impl<'py> ser::SerializeStruct for StructOut<'py, '_> {
    type Ok = Bound<'py, PyAny>;
    type Error = ConvertError;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ConvertError> {
        let value = value.serialize(self.to)?;
        if key == TAG && self.values.is_empty() && self.tag.is_none() {
            self.tag = Some(value.extract::<String>()?);
            return Ok(());
        }
        self.names.push(key);
        self.values.push(value);
        Ok(())
    }
    fn end(self) -> Out<'py> {
        let py = self.to.py;
        if let (Some(tag), Some(classes)) = (&self.tag, self.to.classes) {
            let shape = classes.sentences.get(tag).ok_or_else(|| {
                ConvertError(PyTypeError::new_err(format!(
                    "no class is registered for the structure `{tag}`"
                )))
            })?;
            return Ok(instance(py, shape, &self.values)?);
        }
        let dict = PyDict::new(py);
        if let Some(tag) = &self.tag {
            dict.set_item(TAG, tag)?;
        }
        for (k, v) in self.names.iter().zip(self.values) {
            dict.set_item(k, v)?;
        }
        Ok(dict.into_any())
    }
}

#[cfg(test)]
mod tests {
    use super::{read_message, CharIndex, StrCol};

    #[test]
    fn string_columns_have_arrows_layout() {
        let mut col = StrCol::with_capacity(10);
        let values = [
            Some("ab"),
            None,
            Some(""),
            Some("é"),
            None,
            None,
            None,
            None,
            Some("x"),
        ];
        for v in values {
            col.push(v).unwrap();
        }
        assert_eq!(col.offsets, [0, 2, 2, 2, 4, 4, 4, 4, 4, 5]);
        assert_eq!(col.data, "abéx".as_bytes());
        assert_eq!(col.validity, [0b0000_1101, 0b0000_0001]);
        assert_eq!((col.nulls, col.len), (5, 9));
    }

    #[test]
    fn a_message_is_one_object_with_a_string_text() {
        let m = read_message(
            b"{\"at\": null, \"from\": \"a\", \"text\": \"[CLAIM 1]\", \"x\": [1]}\r\n",
        )
        .unwrap();
        assert_eq!(
            (m.at, m.from.as_deref(), m.text.as_str()),
            (None, Some("a"), "[CLAIM 1]")
        );
        let cases: [(&[u8], &str); 7] = [
            (b"\n", "an empty line"),
            (b"[\"t\", \"f\", \"x\"]\n", "not a JSON object"),
            (b"{\"text\": 1}", "expected a string"),
            (b"{\"at\": \"t\"}", "missing field `text`"),
            (
                b"{\"text\": \"a\", \"text\": \"b\"}",
                "duplicate field `text`",
            ),
            (b"{\"text\": \"\\ud800\"}", "hex escape"),
            (b"{\"text\": \"\xff\"}", "invalid unicode"),
        ];
        for (line, why) in cases {
            let e = read_message(line).err().unwrap_or_default();
            assert!(e.contains(why), "{line:?}: {e}");
        }
    }

    #[test]
    fn char_indexes_count_code_points_both_ways() {
        let text = "é [CLAIM 7f] 😀x";
        let mut idx = CharIndex::new(text);
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(idx.at(at("[")), 2);
        assert_eq!(idx.at(at("x")), text[..at("x")].chars().count());
        assert_eq!(idx.at(0), 0);
        assert_eq!(idx.at(text.len()), text.chars().count());
        let mut ascii = CharIndex::new("abc");
        assert_eq!(ascii.at(2), 2);
    }
}

/// Feeds one message's text to a tracker: scan, then apply (the generated
/// crate's `loops::feed`).
pub type FeedText = fn(&mut crate::loops::Tracker, crate::loops::Timestamp, &str, &str) -> usize;

fn timestamp(at: &str) -> PyResult<crate::loops::Timestamp> {
    at.parse().map_err(|e| {
        pyo3::exceptions::PyValueError::new_err(format!("`{at}` is not an RFC 3339 time: {e}"))
    })
}

fn to_json<T: Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(format!("serializing: {e}")))
}

/// The loop tracker for Python (`agent_sentences.loops.Tracker` wraps it):
/// the runtime's [`crate::loops::Tracker`] and the generated crate's feed.
/// Results cross as JSON text, which the typed wrapper reads.
#[pyclass(name = "Tracker", module = "agent_sentences._native")]
pub struct PyTracker {
    inner: crate::loops::Tracker,
    feed_text: FeedText,
}

impl PyTracker {
    /// Wraps a tracker.
    pub fn new(inner: crate::loops::Tracker, feed_text: FeedText) -> Self {
        PyTracker { inner, feed_text }
    }

    /// A tracker with the same machine resuming from `state_json` (as
    /// `state()` wrote it).
    ///
    /// # Errors
    /// `ValueError` when the JSON is not a saved state, or a state that does
    /// not hold (`Tracker::with_state`, the error located).
    pub fn restore(
        like: crate::loops::Tracker,
        feed_text: FeedText,
        state_json: &str,
    ) -> PyResult<Self> {
        let state: crate::loops::State = serde_json::from_str(state_json).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(format!("not a saved tracker state: {e}"))
        })?;
        let inner = like.with_state(state).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(format!("not a valid tracker state: {e}"))
        })?;
        Ok(PyTracker { inner, feed_text })
    }
}

#[pymethods]
impl PyTracker {
    /// Scans `text` and applies its sentences; how many were applied.
    fn feed(&mut self, at: &str, sender: &str, text: &str) -> PyResult<usize> {
        let at = timestamp(at)?;
        Ok((self.feed_text)(&mut self.inner, at, sender, text))
    }

    /// The nudges due at `at`, as JSON.
    fn due(&self, at: &str) -> PyResult<String> {
        to_json(&self.inner.due(timestamp(at)?))
    }

    /// Marks the nudges of `due_json` (as `due` wrote it) as sent.
    fn nudged(&mut self, due_json: &str) -> PyResult<()> {
        let due: Vec<crate::loops::Due> = serde_json::from_str(due_json).map_err(|e| {
            pyo3::exceptions::PyValueError::new_err(format!("not a list of due nudges: {e}"))
        })?;
        self.inner.nudged(&due);
        Ok(())
    }

    /// The report (loops, rejected, due at `at`), as JSON.
    #[pyo3(signature = (at=None))]
    fn report(&self, at: Option<&str>) -> PyResult<String> {
        let at = at.map(timestamp).transpose()?;
        to_json(&self.inner.report(at))
    }

    /// Removes every closed loop (its id remembered); how many.
    fn prune(&mut self) -> usize {
        self.inner.prune()
    }

    /// The whole state, as JSON (what `restore` takes).
    fn state(&self) -> PyResult<String> {
        to_json(self.inner.state())
    }
}
