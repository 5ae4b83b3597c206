//! The loop tracker for Python ([`PyTracker`]).

use super::*;

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

    /// Drops every rejected event held; how many.
    fn prune_rejected(&mut self) -> usize {
        self.inner.prune_rejected()
    }

    /// The whole state, as JSON (what `restore` takes).
    fn state(&self) -> PyResult<String> {
        to_json(self.inner.state())
    }
}
