//! Building the generated package's own dataclass instances: the
//! registered classes, an instance with its fields set, and the `Span`,
//! `Found`, `ToolDirective` and `Skipped` lists of a scan result, or the
//! instances of single items (a stream's events).

use super::*;

/// The tag field of a serialized sentence (`#[serde(tag = "structure")]`).
pub(super) const TAG: &str = "structure";

/// A class and its field names, in the order the fields are set.
pub(super) struct Shape {
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
    pub(super) sentences: HashMap<String, Shape>,
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

    pub(super) fn get(py: Python<'_>) -> PyResult<&Classes> {
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
pub(super) fn instance<'py>(
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

fn span<'py>(
    py: Python<'py>,
    classes: &Classes,
    range: &std::ops::Range<usize>,
    chars: &mut impl CharAt,
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
        PyString::intern(py, &d.engine).into_any(),
        op,
        written_op,
        object_to_py(py, &d.args)?.into_any(),
    ];
    instance(py, &classes.tool_directive, &values)
}

/// The `Found` instances of a scan result, in order. Each Rust item is
/// dropped as soon as its Python object exists, so the two copies of a large
/// result are never both whole.
pub(super) fn found_list<'py, S: Serialize>(
    py: Python<'py>,
    classes: &Classes,
    text: &str,
    found: Vec<Found<S>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut chars = CharIndex::new(text);
    let list = PyList::empty(py);
    for f in found {
        list.append(found_object(py, classes, &f, &mut chars)?)?;
    }
    Ok(list)
}

/// The `Found` instance of one found item.
pub(super) fn found_object<'py, S: Serialize>(
    py: Python<'py>,
    classes: &Classes,
    f: &Found<S>,
    chars: &mut impl CharAt,
) -> PyResult<Bound<'py, PyAny>> {
    let item = match &f.item {
        Item::Sentence { value } => value.serialize(PyValue {
            py,
            classes: Some(classes),
        })?,
        Item::Directive { directive: d } => directive(py, classes, d)?,
    };
    let span = span(py, classes, &f.span, chars)?;
    instance(py, &classes.found, &[span, item])
}

/// The `Skipped` instances of a scan result, in order.
pub(super) fn skipped_list<'py>(
    py: Python<'py>,
    classes: &Classes,
    text: &str,
    skipped: Vec<Skipped>,
) -> PyResult<Bound<'py, PyList>> {
    let mut chars = CharIndex::new(text);
    let list = PyList::empty(py);
    for s in skipped {
        list.append(skipped_object(py, classes, &s, &mut chars)?)?;
    }
    Ok(list)
}

/// The `Skipped` instance of one skipped candidate.
pub(super) fn skipped_object<'py>(
    py: Python<'py>,
    classes: &Classes,
    s: &Skipped,
    chars: &mut impl CharAt,
) -> PyResult<Bound<'py, PyAny>> {
    let span = span(py, classes, &s.span, chars)?;
    let reason = s.reason.serialize(PyValue {
        py,
        classes: Some(classes),
    })?;
    instance(
        py,
        &classes.skipped,
        &[span, reason, PyString::new(py, &s.message).into_any()],
    )
}
