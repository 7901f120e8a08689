//! `robostats_cc.can_fetch_many`: Google's verdict for each row of three
//! Arrow columns, each distinct body parsed once, on every core, without
//! the GIL.
//!
//! The Python side (`robostats_cc/_arrow.py`) turns any sequence into an
//! Arrow array of bytes or text; this side takes it through the Arrow
//! PyCapsule interface (`__arrow_c_array__`: the Arrow C data interface,
//! no copy), checks it whole, and answers with the two bitmaps of a
//! boolean array.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi};
use arrow_array::{Array, ArrayRef, BooleanArray, make_array};
use arrow_schema::DataType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use robostats_duckdb::batch::{Agents, Many, Rows, can_fetch_many};
use robostats_rows::classify::crawler::Policy;

/// An Arrow array of bytes or text (binary, string, their large and view
/// forms), or a dictionary array of them (pyarrow's `dictionary_encode`,
/// a Parquet column read with `read_dictionary`, pandas' and polars'
/// categoricals, the Python side's bodies deduplicated by object),
/// imported from Python without a copy.
pub struct Column {
    /// The values: the array itself, or its dictionary.
    values: ArrayRef,
    /// A dictionary array's keys, each row's value (None: a NULL row).
    keys: Option<Vec<Option<u32>>>,
    len: usize,
}

/// Whether `t` is a type of bytes or text.
fn is_bytes(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Binary
            | DataType::LargeBinary
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::BinaryView
            | DataType::Utf8View
    )
}

/// The value of row `i` of `a`, an array of bytes or text, or None for a
/// NULL.
fn value(a: &dyn Array, i: usize) -> Option<&[u8]> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Binary => a.as_binary::<i32>().value(i),
        DataType::LargeBinary => a.as_binary::<i64>().value(i),
        DataType::Utf8 => a.as_string::<i32>().value(i).as_bytes(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i).as_bytes(),
        DataType::BinaryView => a.as_binary_view().value(i),
        DataType::Utf8View => a.as_string_view().value(i).as_bytes(),
        _ => unreachable!("Column holds bytes or text only"),
    })
}

impl Column {
    /// `array` as a column, or the type it has instead of bytes or text.
    fn new(array: ArrayRef) -> Result<Column, String> {
        let len = array.len();
        if is_bytes(array.data_type()) {
            return Ok(Column {
                values: array,
                keys: None,
                len,
            });
        }
        let Some(dict) = array
            .as_any_dictionary_opt()
            .filter(|d| is_bytes(d.values().data_type()))
        else {
            return Err(format!(
                "an Arrow array of bytes or text was expected, not {}",
                array.data_type()
            ));
        };
        let values = dict.values().clone();
        let keys = if values.is_empty() {
            vec![None; len]
        } else {
            let nulls = dict.keys();
            dict.normalized_keys()
                .into_iter()
                .enumerate()
                .map(|(i, k)| (!nulls.is_null(i)).then_some(k as u32))
                .collect()
        };
        if values.len() > u32::MAX as usize {
            return Err("a dictionary of more than 2^32 values".to_owned());
        }
        Ok(Column {
            values,
            keys: Some(keys),
            len,
        })
    }
}

impl<'py> FromPyObject<'_, 'py> for Column {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Column> {
        let capsules = ob.call_method0("__arrow_c_array__")?;
        let (schema, array): (Bound<'py, PyCapsule>, Bound<'py, PyCapsule>) = capsules.extract()?;
        let schema = schema
            .pointer_checked(Some(c"arrow_schema"))?
            .cast::<FFI_ArrowSchema>();
        let array = array
            .pointer_checked(Some(c"arrow_array"))?
            .cast::<FFI_ArrowArray>();
        // SAFETY: as below; only the structs' release fields are read. A
        // released struct (its capsule consumed already) points at freed
        // memory: refuse it.
        let released =
            unsafe { array.as_ref().is_released() || schema.as_ref().release().is_none() };
        if released {
            return Err(PyValueError::new_err(
                "an Arrow array handed over twice: its capsule was consumed already",
            ));
        }
        // SAFETY: by the Arrow PyCapsule interface, capsules of these names
        // hold a valid, aligned `ArrowSchema` and `ArrowArray` (the C data
        // interface's structs). The array is moved out (its release
        // callback is ours from now on, run when `data` drops) and the
        // schema is read while its capsule lives. What the structs point
        // to is checked whole below (offsets, bounds, UTF-8).
        let data = unsafe {
            let array = FFI_ArrowArray::from_raw(array.as_ptr());
            from_ffi(array, schema.as_ref())
        }
        .map_err(|e| PyValueError::new_err(format!("an Arrow array cannot be read: {e}")))?;
        data.validate_full()
            .map_err(|e| PyValueError::new_err(format!("an Arrow array is not valid: {e}")))?;
        Column::new(make_array(data)).map_err(PyTypeError::new_err)
    }
}

impl Rows for Column {
    fn get(&self, i: usize) -> Option<&[u8]> {
        match &self.keys {
            None => value(&self.values, i),
            Some(keys) => value(&self.values, keys[i]? as usize),
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// A dictionary column's rows are told apart by their keys: only the
    /// values some row's key names (a slice of a large dictionary, a
    /// categorical with many categories, uses few) are compared, by their
    /// bytes, in the order the rows first name them; no row's bytes are
    /// read.
    fn distinct(&self) -> Option<robostats_duckdb::batch::Distinct<'_>> {
        let keys = self.keys.as_ref()?;
        // Per dictionary value: not met yet (None), or its distinct body.
        let mut of_value: Vec<Option<Option<u32>>> = vec![None; self.values.len()];
        let mut index: HashMap<&[u8], u32> = HashMap::new();
        let mut distinct: Vec<&[u8]> = Vec::new();
        let which = keys
            .iter()
            .map(|k| {
                let k = (*k)? as usize;
                *of_value[k].get_or_insert_with(|| {
                    let v = value(&self.values, k)?;
                    Some(*index.entry(v).or_insert_with(|| {
                        distinct.push(v);
                        (distinct.len() - 1) as u32
                    }))
                })
            })
            .collect();
        Some((which, distinct))
    }
}

/// `_can_fetch_many(bodies, agent, agents, urls, size_limit)`: the
/// verdicts' `(values, validity, null count)`; the columns are Arrow
/// arrays (any object with `__arrow_c_array__`).
#[pyfunction]
#[pyo3(signature = (bodies, agent, agents, urls, size_limit, policy))]
pub fn _can_fetch_many<'py>(
    py: Python<'py>,
    bodies: Column,
    agent: Option<String>,
    agents: Option<Column>,
    urls: Column,
    size_limit: bool,
    policy: &str,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, usize)> {
    let policy = Policy::parse(policy).map_err(PyValueError::new_err)?;
    let verdicts = py.detach(|| {
        let agents = match (&agent, &agents) {
            (Some(a), _) => Agents::One(a),
            (None, Some(col)) => Agents::Each(col),
            (None, None) => return Err("no user agents given".to_owned()),
        };
        can_fetch_many(Many {
            bodies: &bodies,
            agents,
            urls: &urls,
            size_limit,
            policy,
            parallel: true,
        })
    });
    let v = BooleanArray::from(verdicts.map_err(PyValueError::new_err)?);
    // Both bitmaps start at bit 0 (a new array has no offset).
    let validity = v.nulls().map_or(&[][..], |n| n.buffer().as_slice());
    Ok((
        PyBytes::new(py, v.values().inner().as_slice()),
        PyBytes::new(py, validity),
        v.null_count(),
    ))
}
