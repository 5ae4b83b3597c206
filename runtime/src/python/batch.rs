//! Scanning from Python: one text, or a batch scheduled on every core with
//! the interpreter released in turns; and the scan result as JSON.

use super::*;

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
pub(super) fn pool() -> PyResult<std::sync::Arc<rayon::ThreadPool>> {
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
