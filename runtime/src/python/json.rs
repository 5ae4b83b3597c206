//! Strict JSON for Python: the reader's error class, and an object read
//! and handed over as a `dict`.

use super::*;

pyo3::create_exception!(
    _native,
    NativeJsonError,
    pyo3::exceptions::PyValueError,
    "The strict JSON reader's error: the text is not one strict JSON object (message as Rust's `JsonError`)."
);

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
