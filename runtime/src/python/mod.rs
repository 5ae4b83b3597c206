//! Python support (feature `python`): what a generated PyO3 module needs to
//! hand the Rust scanner and the strict JSON reader to Python.
//!
//! Written once, generic over the sentence type: the generated binding crate
//! (`generated/python/native/`, the private module `agent_sentences._native`)
//! defines the `#[pyfunction]`s and calls these with the generated crate's
//! `scan_with_diagnostics` (and its `scan::Stream`, [`StreamFeed`]). Nothing
//! here knows a structure.
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

mod batch;
mod harvest;
mod json;
mod loops;
mod objects;
mod serialize;
mod stream;
mod text;

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

use batch::pool;
use objects::{found_list, found_object, instance, skipped_list, skipped_object, TAG};
use text::{CharAt, Utf8};

pub use batch::{scan, scan_json, scan_many, ScanResult, SERIAL_BATCH_BYTES};
pub use harvest::{harvest_lines, scan_rows};
pub use json::{object_to_py, parse_object, NativeJsonError};
pub use loops::{FeedText, PyTracker};
pub use objects::Classes;
pub use serialize::{ConvertError, MapOut, PyValue, SeqOut, StructOut};
pub use stream::{stream_json, NativeStreamError, PyStream, StreamFeed};
pub use text::{CharIndex, CACHED_UTF8_MAX_CHARS};
