//! The report's query engine: DuckDB, run by Python (`bridge.py`).
//!
//! The report runs the SQL of `queries/` exactly as a user runs it: the
//! files are compiled into the binary, the views first, and DuckDB's
//! Python package executes them. Why Python's DuckDB rather than DuckDB
//! built into the binary or DataFusion is measured in BENCHMARKS.md ("The
//! report's query engine"): the users of these tables have it already,
//! and building DuckDB's C++ would multiply the first build's time.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::links::Links;
pub use super::out::{Out, PATTERN_CHARS, Secret, literal_pattern};
use super::process::run_bounded;
use super::queries::{Query, VIEWS};

// serde_json reads floats exactly (its `float_roundtrip` feature): the
// report shows the very values the queries return.

/// The bridge between robostats and DuckDB's Python package.
const BRIDGE: &str = include_str!("bridge.py");

/// What a run sets on DuckDB's connection besides the data sets: the S3
/// secrets of the other files the queries read, and variables, set after
/// the views and before the queries (a rank list: `robostats_ranks`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Each `SET VARIABLE name = ?`, its value bound as a parameter
    /// (never written into the SQL): (name, value).
    pub variables: Vec<(String, String)>,
    /// DuckDB S3 secrets, each (its scope, `s3://bucket/`, and the secret).
    pub secrets: Vec<(String, Secret)>,
}

/// A query's result: its columns and rows, values as JSON.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Table {
    /// Column names, as the query's SELECT names them.
    pub columns: Vec<String>,
    /// Rows, each value a number, text, boolean, null or list.
    pub rows: Vec<Vec<Value>>,
    /// How long the query took, in seconds.
    #[serde(default)]
    pub seconds: f64,
    /// The rows DuckDB wrote into an [`Export`]'s file (none returned).
    #[serde(default)]
    pub written: Option<u64>,
}

/// A file DuckDB writes a query's rows into (`COPY ... TO`), with their
/// own types: an absolute path (the bridge runs in a directory of its own).
#[derive(Clone, Debug)]
pub struct Export {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: ExportFormat,
}

/// A format DuckDB writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// Comma-separated, a header line first.
    Csv,
    /// Parquet (zstd), the columns' own types.
    Parquet,
    /// Parquet compressed with LZ4 (raw): for a private file read back
    /// once, where zstd costs more than the bytes it saves (`judge`'s
    /// deciding captures and lines: judge 0.94x, and the same time as
    /// uncompressed files twice the size).
    ParquetLz4,
    /// JSON, one object a line.
    Json,
}

impl ExportFormat {
    /// Its name, as DuckDB's `FORMAT` and the bridge take it.
    pub fn name(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Parquet => "parquet",
            ExportFormat::ParquetLz4 => "parquet_lz4",
            ExportFormat::Json => "json",
        }
    }
}

impl Table {
    /// The index of column `name`.
    ///
    /// # Panics
    ///
    /// When the query has no such column: the report and `queries/` are
    /// compiled together, and a test runs every figure.
    pub fn col(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("a query has no column {name}: {:?}", self.columns))
    }

    /// The rows, each with the value of `name` as text (`""` for null).
    pub fn text<'a>(&'a self, row: &'a [Value], name: &str) -> &'a str {
        row[self.col(name)].as_str().unwrap_or("")
    }

    /// The value of `name` as a number (0 for null).
    pub fn num(&self, row: &[Value], name: &str) -> f64 {
        row[self.col(name)].as_f64().unwrap_or(0.0)
    }
}

/// What went wrong running the queries.
#[derive(Debug)]
pub enum EngineError {
    /// No Python with the duckdb package was found.
    NoDuckdb {
        /// The interpreters tried, in order.
        tried: Vec<PathBuf>,
    },
    /// Python could not be started or fed.
    Spawn(PathBuf, std::io::Error),
    /// The data sets could not be reached as DuckDB reads them (the
    /// symbolic links of [`Links`]).
    Links(std::io::Error),
    /// The bridge failed (its standard error).
    Failed(PathBuf, String),
    /// The data sets cannot be read, or not as one: a damaged file, two
    /// crawler lists, a capture in two of them (the bridge's message).
    DataSet(String),
    /// A query failed in DuckDB.
    Query(&'static str, String),
    /// The queries took longer than the time allowed (the Python process
    /// was stopped).
    TimedOut(PathBuf, Duration),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::NoDuckdb { tried } => {
                let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "the report runs its queries in DuckDB's Python package, and no Python here \
                     has it (tried: {}); install it (pip install duckdb) or name a Python that \
                     has it with --python",
                    tried.join(", ")
                )
            }
            EngineError::Spawn(python, err) => {
                write!(f, "cannot run {}: {err}", python.display())
            }
            EngineError::Links(err) => write!(
                f,
                "cannot make the private directory the report reads the data sets through: {err}"
            ),
            EngineError::DataSet(message) => f.write_str(message),
            EngineError::Failed(python, stderr) => {
                write!(
                    f,
                    "{} failed running the queries: {stderr}",
                    python.display()
                )
            }
            EngineError::Query(name, err) => write!(f, "query {name}.sql failed: {err}"),
            EngineError::TimedOut(python, limit) => write!(
                f,
                "the queries took longer than {} s in {} and were stopped; allow more with \
                 --timeout",
                limit.as_secs(),
                python.display()
            ),
        }
    }
}

impl std::error::Error for EngineError {}

/// A Python interpreter with the duckdb package, and how long its
/// queries may take.
#[derive(Clone, Debug)]
pub struct Engine {
    python: PathBuf,
    timeout: Duration,
    verbose: bool,
}

/// How long the report's queries may take by default: a month's crawl
/// takes about an hour on a laptop.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(6 * 3600);

/// How long finding the duckdb package may take when looking for a Python.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct Answer {
    duckdb: String,
    prepare_seconds: f64,
    results: std::collections::HashMap<String, Outcome>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Outcome {
    Table(Table),
    Error { error: String },
}

/// The results of a run: every query's table, and DuckDB's version.
#[derive(Debug)]
pub struct Results {
    /// DuckDB's version, as its Python package gives it.
    pub duckdb: String,
    /// Seconds spent creating the views and the rows of `crawl_hosts`,
    /// which several queries read, before the first query.
    pub prepare_seconds: f64,
    /// Each query's table, at its place in [`Query::ALL`]: none for a
    /// query not run (a run without the result of a query it ran fails).
    tables: Vec<Option<Table>>,
}

impl Results {
    /// The results of the queries run: `tables`, each with its query.
    pub(crate) fn new(
        duckdb: String,
        prepare_seconds: f64,
        tables: Vec<(Query, Table)>,
    ) -> Results {
        let mut placed: Vec<Option<Table>> = vec![None; Query::ALL.len()];
        for (query, table) in tables {
            placed[query.index()] = Some(table);
        }
        Results {
            duckdb,
            prepare_seconds,
            tables: placed,
        }
    }

    /// The queries run, by time taken, slowest first: (name, seconds).
    pub fn timings(&self) -> Vec<(&'static str, f64)> {
        let mut t: Vec<(&'static str, f64)> = Query::ALL
            .iter()
            .zip(&self.tables)
            .filter_map(|(query, table)| Some((query.name(), table.as_ref()?.seconds)))
            .collect();
        t.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        t
    }

    /// The table of `query`, if the run included it.
    pub fn table(&self, query: Query) -> Option<&Table> {
        self.tables[query.index()].as_ref()
    }

    /// The table of `query`.
    ///
    /// # Panics
    ///
    /// When the run did not include it: every report runs every query but
    /// those that read a rank list ([`Query::reads_ranks`]), which a
    /// figure reads with [`Results::table`].
    pub fn get(&self, query: Query) -> &Table {
        self.table(query)
            .unwrap_or_else(|| panic!("query {} was not run", query.name()))
    }
}

impl Engine {
    /// The first Python in which the duckdb package is found among: `explicit` alone,
    /// or the `ROBOSTATS_PYTHON` variable, the active virtual environment
    /// (`VIRTUAL_ENV`), the one the test script makes in the checkout this
    /// binary was built in (`target/python-venv`, when the user owns it)
    /// and `python3` on the `PATH` ([`super::python::candidates`]).
    pub fn find(explicit: Option<&Path>) -> Result<Engine, EngineError> {
        let candidates = super::python::candidates(explicit);
        for python in &candidates {
            // Found, not imported: an import costs DuckDB's start (0.2 s of
            // CPU), paid again by the bridge; a package that is there but
            // cannot load fails the bridge with its own message.
            let mut probe = Command::new(python);
            probe.args([
                "-c",
                "import importlib.util, sys; sys.exit(importlib.util.find_spec('duckdb') is None)",
            ]);
            let has_duckdb = run_bounded(&mut probe, b"", false, PROBE_TIMEOUT)
                .is_ok_and(|out| out.is_some_and(|o| o.status.success()));
            if has_duckdb {
                return Ok(Engine {
                    python: python.clone(),
                    timeout: DEFAULT_TIMEOUT,
                    verbose: false,
                });
            }
        }
        Err(EngineError::NoDuckdb { tried: candidates })
    }

    /// The interpreter in use.
    pub fn python(&self) -> &Path {
        &self.python
    }

    /// The engine, its queries allowed `timeout` in all (then stopped).
    pub fn with_timeout(self, timeout: Duration) -> Engine {
        Engine { timeout, ..self }
    }

    /// The engine, printing on a failure of its Python what there is to
    /// know (Python's traceback).
    pub fn with_verbose(self, verbose: bool) -> Engine {
        Engine { verbose, ..self }
    }

    /// Runs the views over the data sets `outs` (their tables read as
    /// one; the secrets of `settings` made first), sets the variables of
    /// `settings`, then runs `queries` in order.
    pub fn run(
        &self,
        outs: &[Out],
        queries: &[Query],
        settings: &Settings,
    ) -> Result<Results, EngineError> {
        let requests: Vec<Value> = queries
            .iter()
            .map(|q| {
                serde_json::json!({
                    "name": q.name(), "sql": q.sql(), "limit": q.limit(), "latest": q.latest_crawl(),
                })
            })
            .collect();
        let answer = self.ask(outs, requests, true, None, settings)?;
        let mut tables = Vec::with_capacity(queries.len());
        for &query in queries {
            tables.push((query, self.result(&answer, query.name())?));
        }
        Ok(Results::new(answer.duckdb, answer.prepare_seconds, tables))
    }

    /// Runs the views over `outs` (with `settings`: a rank list), then
    /// the query `sql` named `name` alone: its rows, or, with `export`,
    /// none, DuckDB having written them into the export's file
    /// (`Table::written` says how many).
    pub fn run_one(
        &self,
        outs: &[Out],
        name: &'static str,
        sql: &str,
        export: Option<&Export>,
        settings: &Settings,
    ) -> Result<Table, EngineError> {
        let query = serde_json::json!({"name": name, "sql": sql, "limit": null});
        let answer = self.ask(outs, vec![query], false, export, settings)?;
        self.result(&answer, name)
    }

    /// Runs the views over `outs`, then each query `(name, sql, export)`
    /// in order, DuckDB writing its rows into its export's file (a query
    /// may read the files of those before it): how many rows each wrote.
    pub fn run_exports(
        &self,
        outs: &[Out],
        queries: &[(&'static str, &str, &Export)],
    ) -> Result<Vec<u64>, EngineError> {
        let requests = queries
            .iter()
            .map(|(name, sql, export)| {
                serde_json::json!({
                    "name": name, "sql": sql, "limit": null,
                    "export": {"path": export.path.to_string_lossy(), "format": export.format.name()},
                })
            })
            .collect();
        let answer = self.ask(outs, requests, false, None, &Settings::default())?;
        queries
            .iter()
            .map(|(name, ..)| Ok(self.result(&answer, name)?.written.unwrap_or(0)))
            .collect()
    }

    /// A query's result in `answer`, or its failure.
    fn result(&self, answer: &Answer, name: &'static str) -> Result<Table, EngineError> {
        match answer.results.get(name) {
            Some(Outcome::Table(table)) => Ok(table.clone()),
            Some(Outcome::Error { error }) => Err(EngineError::Query(name, error.clone())),
            None => Err(EngineError::Failed(
                self.python.clone(),
                format!("no result for {name}"),
            )),
        }
    }

    /// Runs the bridge on `outs` with `queries` (and the rows of
    /// `crawl_hosts` computed first where `cache`), `settings` applied
    /// before them: its answer.
    fn ask(
        &self,
        outs: &[Out],
        queries: Vec<Value>,
        cache: bool,
        export: Option<&Export>,
        settings: &Settings,
    ) -> Result<Answer, EngineError> {
        let links = Links::new(outs).map_err(EngineError::Links)?;
        let mut request = self.request(&links, outs, queries, settings);
        request["cache"] = Value::Bool(cache);
        if let Some(export) = export {
            request["export"] = serde_json::json!({
                "path": export.path.to_string_lossy(),
                "format": export.format.name(),
            });
        }
        // One line: the bridge then reads its standard input to the end, to
        // learn when robostats is gone.
        let mut request = request.to_string();
        request.push('\n');
        let python = &self.python;
        let mut bridge = Command::new(python);
        bridge.args(["-c", BRIDGE]);
        let output = run_bounded(&mut bridge, request.as_bytes(), true, self.timeout)
            .map_err(|e| EngineError::Spawn(python.clone(), e))?
            .ok_or_else(|| EngineError::TimedOut(python.clone(), self.timeout))?;
        drop(links);
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        match output.status.code() {
            // The bridge's own messages about the data sets.
            Some(4 | 5) => return Err(EngineError::DataSet(stderr)),
            Some(0) if !output.stdout.is_empty() => {}
            _ if stderr.is_empty() || output.status.success() => {
                let status = format!("it exited ({}) without an answer", output.status);
                return Err(EngineError::Failed(python.clone(), status));
            }
            _ => return Err(EngineError::Failed(python.clone(), stderr)),
        }
        serde_json::from_slice(&output.stdout).map_err(|e| {
            EngineError::Failed(python.clone(), format!("it gave no readable answer ({e})"))
        })
    }

    /// The bridge's request: the data sets as DuckDB reads them (the
    /// links, from the directory holding them) and as the user named them
    /// (for messages), the secrets of those on S3 and of `settings`, each
    /// table's view, the views, the variables of `settings` and the
    /// queries.
    fn request(
        &self,
        links: &Links,
        outs: &[Out],
        queries: Vec<Value>,
        settings: &Settings,
    ) -> Value {
        // Each table's view over a list of globs (`{source}`): the tables
        // stored once per body keep one writer's rows per body, as in
        // tables.sql, or a body in two data sets would read twice.
        let tables: Vec<[String; 2]> = robostats_rows::classify::Table::ALL
            .iter()
            .map(|&t| {
                [
                    t.name().to_owned(),
                    robostats_rows::classify::table_view_sql(t, "{source}"),
                ]
            })
            .collect();
        let body_tables: Vec<&str> = robostats_rows::classify::Table::ALL
            .iter()
            .filter(|t| t.per_body())
            .map(|t| t.name())
            .collect();
        // Each scoped to its data set: `s3://bucket/prefix/`; then those of
        // the other files read.
        let scoped = outs.iter().filter_map(|out| match out {
            Out::S3 { url, secret } => Some((format!("{url}/"), secret)),
            Out::Dir(_) => None,
        });
        let others = settings.secrets.iter().map(|(scope, s)| (scope.clone(), s));
        let secrets: Vec<Value> = scoped
            .chain(others)
            .map(|(scope, secret)| serde_json::json!({"scope": scope, "params": secret.0}))
            .collect();
        let variables: serde_json::Map<String, Value> = settings
            .variables
            .iter()
            .map(|(name, value)| (name.clone(), Value::String(value.clone())))
            .collect();
        serde_json::json!({
            "dir": links.dir().map(|d| d.to_string_lossy()),
            "secrets": secrets,
            "outs": links.outs(),
            "names": links.names(),
            "tables": tables,
            "body_tables": body_tables,
            "views": VIEWS,
            "variables": variables,
            "queries": queries,
            "watch_stdin": true,
            "traceback": self.verbose,
        })
    }
}
