//! A `serde::Serializer` whose output is Python objects ([`PyValue`]):
//! how a sentence becomes an instance of its registered class.

use super::*;

/// A `serde::Serializer` whose output is a Python object: strings, integers,
/// floats, `None`, lists, dicts, unit enum variants as their serde name, and
/// a struct whose first field is the `structure` tag as an instance of the
/// class registered for the tag (any other struct as a `dict`).
#[derive(Clone, Copy)]
pub struct PyValue<'py, 'c> {
    pub(super) py: Python<'py>,
    pub(super) classes: Option<&'c Classes>,
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
