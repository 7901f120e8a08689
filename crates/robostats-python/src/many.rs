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
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher, RandomState};

use arrow_array::cast::AsArray;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi};
use arrow_array::{Array, ArrayRef, BooleanArray, make_array};
use arrow_schema::DataType;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use rayon::prelude::*;
use robostats_robots::{AgentRules, RobotsTxt};
use robostats_rows::classify::crawler::Policy;

use crate::robots::limit;

/// An Arrow array of bytes or text (binary, string, their large and view
/// forms), imported from Python without a copy.
pub struct Column {
    array: ArrayRef,
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
        let array = make_array(data);
        match array.data_type() {
            DataType::Binary
            | DataType::LargeBinary
            | DataType::Utf8
            | DataType::LargeUtf8
            | DataType::BinaryView
            | DataType::Utf8View => Ok(Column { array }),
            other => Err(PyTypeError::new_err(format!(
                "an Arrow array of bytes or text was expected, not {other}"
            ))),
        }
    }
}

/// A column of bytes as the verdicts read it: an Arrow array here, a
/// DuckDB vector in `duckdb.rs`.
pub trait Rows: Sync {
    /// The value of row `i`, or None for a NULL.
    fn get(&self, i: usize) -> Option<&[u8]>;
    fn len(&self) -> usize;
}

impl Rows for Column {
    fn get(&self, i: usize) -> Option<&[u8]> {
        let a = &self.array;
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

    fn len(&self) -> usize {
        self.array.len()
    }
}

/// The user agents of [`can_fetch_many`]: one for every row, or a column.
pub enum Agents<'a, C> {
    One(&'a str),
    Each(&'a C),
}

/// A body and its hash, computed beforehand (in parallel): the map finds a
/// body by the hash and compares the bytes.
struct Key<'a> {
    hash: u64,
    bytes: &'a [u8],
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.bytes == other.bytes
    }
}

impl Eq for Key<'_> {}

/// Hands a [`Key`]'s hash to the map as it is.
#[derive(Default)]
struct Precomputed(u64);

impl Hasher for Precomputed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Rows per block of work: a call with fewer (a DuckDB chunk has 2,048)
/// runs on the calling thread, where handing blocks to other threads
/// would cost more than it saves (DuckDB calls from several threads).
const BLOCK: usize = 4096;

/// `f` over the rows in blocks of [`BLOCK`], on rayon's threads when there
/// is more than one block and `parallel`; the results in row order.
fn in_blocks<T: Send>(
    n: usize,
    parallel: bool,
    f: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>, String> + Sync,
) -> Result<Vec<T>, String> {
    if n <= BLOCK || !parallel {
        return f(0..n);
    }
    let blocks: Vec<std::ops::Range<usize>> = (0..n)
        .step_by(BLOCK)
        .map(|s| s..(s + BLOCK).min(n))
        .collect();
    let done: Vec<Vec<T>> = blocks
        .into_par_iter()
        .map(&f)
        .collect::<Result<_, String>>()?;
    Ok(done.into_iter().flatten().collect())
}

/// What a row's body is, found in parallel before the bodies are indexed.
#[derive(Clone, Copy)]
enum Seen {
    Null,
    /// The bytes of the row before (rows of one site often follow each
    /// other): a comparison instead of a hash.
    AsBefore,
    Hashed(u64),
}

/// Each row's body as an index into the distinct bodies, and those bodies.
/// Bodies are told apart by their bytes; the hashes that find them are
/// keyed per call (SipHash with a random key), so bodies made to collide
/// cost no more than others.
fn distinct_bodies<C: Rows>(bodies: &C, parallel: bool) -> (Vec<Option<u32>>, Vec<&[u8]>) {
    let n = bodies.len();
    let state = RandomState::new();
    let seen = in_blocks(n, parallel, |rows| {
        Ok(rows
            .map(|i| match bodies.get(i) {
                None => Seen::Null,
                Some(b) if i > 0 && bodies.get(i - 1) == Some(b) => Seen::AsBefore,
                Some(b) => Seen::Hashed(state.hash_one(b)),
            })
            .collect())
    })
    .expect("no error");
    let mut index: HashMap<Key<'_>, u32, BuildHasherDefault<Precomputed>> = HashMap::default();
    let mut distinct: Vec<&[u8]> = Vec::new();
    let mut which: Vec<Option<u32>> = Vec::with_capacity(n);
    for (i, seen) in seen.into_iter().enumerate() {
        let body = match seen {
            Seen::Null => None,
            Seen::AsBefore => which[i - 1],
            Seen::Hashed(hash) => {
                let bytes = bodies.get(i).expect("not null");
                Some(*index.entry(Key { hash, bytes }).or_insert_with(|| {
                    distinct.push(bytes);
                    (distinct.len() - 1) as u32
                }))
            }
        };
        which.push(body);
    }
    (which, distinct)
}

/// Google's verdict for each row (None for a NULL input), on rayon's
/// threads where `parallel`, else on the calling thread alone (DuckDB's,
/// which has other chunks for the other cores). A call of one block (up
/// to [`BLOCK`] rows) runs on the calling thread either way.
pub fn can_fetch_many<'a, C: Rows>(
    bodies: &'a C,
    agents: Agents<'a, C>,
    urls: &'a C,
    size_limit: bool,
    policy: Policy,
    parallel: bool,
) -> Result<Vec<Option<bool>>, String> {
    if let Agents::One(agent) = &agents {
        policy.crawler(agent)?;
    }
    let n = bodies.len();
    let agents_len = match &agents {
        Agents::Each(col) => col.len(),
        Agents::One(_) => n,
    };
    if agents_len != n || urls.len() != n {
        return Err(format!(
            "bodies, user_agents and urls differ in length ({n}, {agents_len}, {})",
            urls.len()
        ));
    }
    let (which, distinct) = distinct_bodies(bodies, parallel);
    let max = limit(size_limit);
    let parse = |b: &&'a [u8]| RobotsTxt::parse_with_limit(b, max);
    let parsed: Vec<RobotsTxt<'_>> = if n <= BLOCK || !parallel {
        distinct.iter().map(parse).collect()
    } else {
        distinct.par_iter().map(parse).collect()
    };
    let text = |col: &'a C, i: usize, what: &str| -> Result<Option<&'a str>, String> {
        col.get(i)
            .map(|b| std::str::from_utf8(b).map_err(|_| format!("{what} of row {i} is not UTF-8")))
            .transpose()
    };
    // The groups of one agent in one body are found once for the rows that
    // follow each other with both (one site's URLs for one crawler).
    in_blocks(n, parallel, |rows| {
        let mut last: Option<(u32, &str, AgentRules<'_, '_>)> = None;
        rows.map(|i| {
            let Some(body) = which[i] else {
                return Ok(None);
            };
            let agent = match &agents {
                Agents::One(agent) => Some(*agent),
                Agents::Each(col) => text(col, i, "user_agent")?,
            };
            let (Some(agent), Some(url)) = (agent, text(urls, i, "url")?) else {
                return Ok(None);
            };
            match &last {
                Some((b, a, _)) if *b == body && *a == agent => {}
                _ => {
                    let token = policy.crawler(agent).map_err(|e| format!("row {i}: {e}"))?;
                    last = Some((body, agent, policy.rules(&parsed[body as usize], token)));
                }
            }
            let (_, _, rules) = last.as_ref().expect("just set");
            Ok(Some(rules.allowed(url)))
        })
        .collect()
    })
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
        can_fetch_many(&bodies, agents, &urls, size_limit, policy, true)
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
