//! The harvest's native half: scan results as Arrow-layout columns, and
//! message logs (JSON Lines) read and scanned in batches.

use super::*;

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
/// with `file`, `line`, `at` and `sender`; the bad lines as runs `(index in
/// lines of the first, count, why)`, in order, one run per stretch of
/// consecutive bad lines with one reason (a log of line breaks is a few runs
/// a batch, not a Python object per line: decision P280). A bad line (not UTF-8, not one JSON object, `text`
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
        let mut errors: Vec<(usize, usize, String)> = Vec::new();
        for (i, r) in read.into_iter().enumerate() {
            match r {
                Ok((sender, mut r)) => {
                    senders.push(sender);
                    rows.append(&mut r);
                }
                Err(e) => {
                    senders.push((None, None));
                    match errors.last_mut() {
                        // The next line of a run of bad lines with one reason: counted.
                        Some((start, count, why)) if *start + *count == i && *why == e => {
                            *count += 1
                        }
                        _ => errors.push((i, 1, e)),
                    }
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

#[cfg(test)]
mod tests {
    use super::{read_message, StrCol};

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
}
