//! `robostats.can_fetch_many`: Google's verdict for each row of three
//! Arrow columns, each distinct body parsed once, on every core, without
//! the GIL.
//!
//! The Python side (`robostats/_arrow.py`) turns any sequence into a
//! `large_binary` or `large_string` Arrow array and hands over its buffers
//! (the Arrow columnar format: a validity bitmap, 64-bit offsets and the
//! values' bytes); this side checks them and answers with the two bitmaps
//! of a boolean array.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use robostats_robots::RobotsTxt;

use crate::robots::limit;

/// A variable-length Arrow column (`large_binary` or `large_string`) as
/// handed over: `(length, offset, validity or None, offsets, data)`, each
/// buffer as `bytes` (the stable ABI of Python 3.9 has no buffer protocol).
type Handed<'py> = (
    usize,
    usize,
    Option<Bound<'py, PyBytes>>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

/// A variable-length Arrow column, its buffers borrowed from Python's
/// `bytes` objects and checked.
pub struct Column<'a> {
    len: usize,
    /// The slice's first element in the buffers.
    offset: usize,
    validity: Option<&'a [u8]>,
    /// The slice's `len + 1` offsets, checked.
    offsets: Vec<i64>,
    data: &'a [u8],
}

impl<'a> Column<'a> {
    fn of(handed: &'a Handed<'_>) -> PyResult<Column<'a>> {
        let (len, offset, validity, offsets, data) = handed;
        Column::new(
            *len,
            *offset,
            validity.as_ref().map(|v| v.as_bytes()),
            offsets.as_bytes(),
            data.as_bytes(),
        )
        .map_err(PyValueError::new_err)
    }

    fn new(
        len: usize,
        offset: usize,
        validity: Option<&'a [u8]>,
        raw_offsets: &[u8],
        data: &'a [u8],
    ) -> Result<Column<'a>, String> {
        let end = offset
            .checked_add(len)
            .filter(|e| *e < usize::MAX / 8)
            .ok_or("an Arrow array's length is too large")?;
        if raw_offsets.len() < (end + 1) * 8 {
            return Err("an Arrow array's offsets buffer is shorter than its length".into());
        }
        if validity.is_some_and(|v| v.len() * 8 < end) {
            return Err("an Arrow array's validity bitmap is shorter than its length".into());
        }
        let offsets: Vec<i64> = raw_offsets[offset * 8..(end + 1) * 8]
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let in_bounds = offsets.windows(2).all(|w| 0 <= w[0] && w[0] <= w[1])
            && offsets
                .last()
                .is_some_and(|&e| 0 <= e && e as u64 <= data.len() as u64);
        if !in_bounds {
            return Err("an Arrow array's offsets are out of order or out of bounds".into());
        }
        Ok(Column {
            len,
            offset,
            validity,
            offsets,
            data,
        })
    }

    /// The value of row `i`, or None for a NULL.
    fn get(&self, i: usize) -> Option<&[u8]> {
        if let Some(v) = &self.validity {
            let bit = self.offset + i;
            if v[bit / 8] & (1 << (bit % 8)) == 0 {
                return None;
            }
        }
        Some(&self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize])
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

/// Each row's verdict (None for a NULL input), as Arrow's two bitmaps.
pub struct Verdicts {
    pub values: Vec<u8>,
    pub validity: Vec<u8>,
    pub nulls: usize,
}

/// Google's verdict for each row: `agent` (one for all rows) or `agents`.
pub fn can_fetch_many(
    bodies: &Column<'_>,
    agents: Agents<'_>,
    urls: &Column<'_>,
    size_limit: bool,
) -> Result<Verdicts, String> {
    let n = bodies.len();
    let agents_len = match &agents {
        Agents::Each(col) => col.len(),
        Agents::One(_) => n,
    };
    if agents_len != n || urls.len() != n {
        return Err(format!(
            "bodies, user_agents and urls differ in length ({n}, {}, {})",
            match &agents {
                Agents::Each(a) => a.len().to_string(),
                Agents::One(_) => "one".to_owned(),
            },
            urls.len()
        ));
    }
    // Each distinct body once, keyed by its bytes (not by a hash of them).
    let mut index: HashMap<&[u8], u32> = HashMap::new();
    let mut distinct: Vec<&[u8]> = Vec::new();
    let which: Vec<Option<u32>> = (0..n)
        .map(|i| {
            bodies.get(i).map(|body| {
                *index.entry(body).or_insert_with(|| {
                    distinct.push(body);
                    (distinct.len() - 1) as u32
                })
            })
        })
        .collect();
    let max = limit(size_limit);
    let parsed: Vec<RobotsTxt<'_>> = distinct
        .par_iter()
        .map(|b| RobotsTxt::parse_with_limit(b, max))
        .collect();
    let text = |col: &Column<'_>, i: usize, what: &str| -> Result<Option<String>, String> {
        col.get(i)
            .map(|b| {
                std::str::from_utf8(b)
                    .map(str::to_owned)
                    .map_err(|_| format!("{what} of row {i} is not UTF-8"))
            })
            .transpose()
    };
    let verdicts: Vec<Option<bool>> = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|i| {
            let Some(body) = which[i] else {
                return Ok(None);
            };
            let agent = match &agents {
                Agents::One(agent) => Some(std::borrow::Cow::Borrowed(*agent)),
                Agents::Each(col) => text(col, i, "user_agent")?.map(std::borrow::Cow::Owned),
            };
            let (Some(agent), Some(url)) = (agent, text(urls, i, "url")?) else {
                return Ok(None);
            };
            Ok(Some(parsed[body as usize].allowed(&agent, &url)))
        })
        .collect::<Result<_, String>>()?;
    let mut out = Verdicts {
        values: vec![0; n.div_ceil(8)],
        validity: vec![0; n.div_ceil(8)],
        nulls: 0,
    };
    for (i, v) in verdicts.into_iter().enumerate() {
        match v {
            Some(allowed) => {
                out.validity[i / 8] |= 1 << (i % 8);
                out.values[i / 8] |= u8::from(allowed) << (i % 8);
            }
            None => out.nulls += 1,
        }
    }
    Ok(out)
}

/// The user agents of [`can_fetch_many`]: one for every row, or a column.
pub enum Agents<'a> {
    One(&'a str),
    Each(&'a Column<'a>),
}

/// `_can_fetch_many(bodies, agent, agents, urls, size_limit)`: the
/// verdicts' `(values, validity, null count)`.
#[pyfunction]
#[pyo3(signature = (bodies, agent, agents, urls, size_limit))]
pub fn _can_fetch_many<'py>(
    py: Python<'py>,
    bodies: Handed<'py>,
    agent: Option<String>,
    agents: Option<Handed<'py>>,
    urls: Handed<'py>,
    size_limit: bool,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, usize)> {
    let bodies = Column::of(&bodies)?;
    let agents = agents.as_ref().map(Column::of).transpose()?;
    let urls = Column::of(&urls)?;
    let verdicts = py.detach(|| {
        let agents = match (&agent, &agents) {
            (Some(a), _) => Agents::One(a),
            (None, Some(col)) => Agents::Each(col),
            (None, None) => return Err("no user agents given".to_owned()),
        };
        can_fetch_many(&bodies, agents, &urls, size_limit)
    });
    let v = verdicts.map_err(PyValueError::new_err)?;
    Ok((
        PyBytes::new(py, &v.values),
        PyBytes::new(py, &v.validity),
        v.nulls,
    ))
}
