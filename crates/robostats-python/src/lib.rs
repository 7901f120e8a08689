//! `robostats_cc._robostats`, the compiled module of the Python package
//! `robostats` (its Python half is `python/robostats_cc/`): the engine
//! crates' code behind Python types, and the `robostats` command.
//!
//! ```text
//! RobotsTxt(body)            -> robostats-robots (parse, match, lint)
//!                               + robostats-rows (digests, template, preference columns)
//! can_fetch_many(columns)    -> the same, over Arrow buffers, on rayon's threads
//! main(argv)                 -> robostats::cli::main: the Rust binary's command
//! duckdb_extension_file(..)  -> the extension file shipped beside this module
//!                               (crates/robostats-duckdb) with a platform's footer
//! ```

use std::ffi::OsString;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod many;
mod robots;

/// Runs the `robostats` command with `argv` (the program's name first)
/// and returns its exit status. The GIL is released while it runs. As in
/// the Rust binary, a panic has printed its message and gives status 101,
/// and standard output is flushed at the end.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> u8 {
    py.detach(|| {
        let code = std::panic::catch_unwind(|| robostats::cli::main(argv).0).unwrap_or(101);
        let _ = std::io::Write::flush(&mut std::io::stdout());
        code
    })
}

/// Runs `robostats judge` with `argv` (the program's name first), the GIL
/// released: (URLs judged, scopes in use, scopes with a capture), or
/// `ValueError` with the command's message.
#[pyfunction]
fn judge(py: Python<'_>, argv: Vec<OsString>) -> PyResult<(u64, usize, usize)> {
    let summary = py.detach(|| robostats::cli::judge(argv).map_err(|e| format!("{e:#}")));
    let summary = summary.map_err(PyValueError::new_err)?;
    Ok((summary.urls, summary.scopes.0, summary.scopes.1))
}

/// `queries/tables.sql`, `views.sql` and `strata.sql`: the views over a
/// data set, as the report loads them.
#[pyfunction]
fn views_sql() -> &'static str {
    robostats_report::queries::VIEWS
}

/// The ready queries of `queries/`: each file's stem and text.
#[pyfunction]
fn query_files() -> Vec<(&'static str, &'static str)> {
    robostats_report::queries::FILES.to_vec()
}

/// A DuckDB secret's parameters (name, value).
type Params = Vec<(String, String)>;

/// Opens the data set `out` for reading as `robostats report` does (its
/// one parser of a data set's location: a directory, or
/// `s3://bucket/prefix/` reached with the credentials of the AWS chains):
/// the name DuckDB reads it by, and for S3 the parameters of the DuckDB
/// S3 secret that reaches it (None for a directory). Raises `ValueError`
/// with the command's message, its causes after colons.
#[pyfunction]
fn open_data_set(py: Python<'_>, out: std::path::PathBuf) -> PyResult<(String, Option<Params>)> {
    use robostats::output::location::Location;
    use robostats_report::engine::Out;
    let location = Location::parse(out.as_os_str()).map_err(PyValueError::new_err)?;
    let opened = py
        .detach(|| location.open_read())
        .map_err(|err| PyValueError::new_err(chain(&err)))?;
    Ok(match opened {
        Out::Dir(dir) => (dir.to_string_lossy().into_owned(), None),
        Out::S3 { url, secret } => (url, Some(secret.0)),
    })
}

/// The DuckDB S3 secret for a file or glob on S3 that DuckDB reads beside
/// a data set (a rank list), with the credentials `open_data_set`
/// finds: its scope (`s3://bucket/`) and its parameters; raises
/// `ValueError` when `url` is not an `s3://` URL of a bucket.
#[pyfunction]
fn s3_file_secret(py: Python<'_>, url: &str) -> PyResult<(String, Vec<(String, String)>)> {
    let (scope, secret) = py
        .detach(|| robostats::output::dataset::file_secret(url))
        .map_err(|err| PyValueError::new_err(chain(&err)))?;
    Ok((scope, secret.into_pairs()))
}

/// `err` and its causes, joined by colons as the command prints them.
fn chain(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        message.push_str(": ");
        message.push_str(&c.to_string());
        cause = c.source();
    }
    message
}

/// The extension file `robostats` (crates/robostats-duckdb) for DuckDB's
/// `platform` (`PRAGMA platform`): `data`, the file or its library, with
/// that platform's footer (`robostats_duckdb::extension_file`, as
/// `robostats duckdb-extension` writes it); `ValueError` for bytes that
/// are not the extension's library.
#[pyfunction]
fn duckdb_extension_file<'py>(
    py: Python<'py>,
    data: &[u8],
    platform: &str,
) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
    let file = robostats_duckdb::extension_file(data, platform).map_err(PyValueError::new_err)?;
    Ok(pyo3::types::PyBytes::new(py, &file))
}

#[pymodule]
fn _robostats(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<robots::RobotsTxt>()?;
    m.add_class::<robots::Explanation>()?;
    m.add_class::<robots::Preferences>()?;
    m.add_class::<robots::Finding>()?;
    m.add_class::<robots::Line>()?;
    m.add_function(wrap_pyfunction!(robots::escape_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(robots::path_params_query, m)?)?;
    m.add_function(wrap_pyfunction!(robots::is_valid_user_agent_to_obey, m)?)?;
    m.add_function(wrap_pyfunction!(many::_can_fetch_many, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(judge, m)?)?;
    m.add_function(wrap_pyfunction!(views_sql, m)?)?;
    m.add_function(wrap_pyfunction!(query_files, m)?)?;
    m.add_function(wrap_pyfunction!(s3_file_secret, m)?)?;
    m.add_function(wrap_pyfunction!(open_data_set, m)?)?;
    m.add_function(wrap_pyfunction!(duckdb_extension_file, m)?)?;
    Ok(())
}
