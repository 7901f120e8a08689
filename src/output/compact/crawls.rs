//! The crawl tables: what every crawl-over-crawl query computes from all
//! of a crawl's captures (`follow_redirects(true)`'s redirect chains,
//! `crawl_hosts`' deciding captures and `crawl_outcomes`' Common Crawl
//! outcomes, `queries/views.sql`), written once by `compact` so that the
//! views read them instead.
//!
//! ```text
//! captures --DuckDB: the views' own macros--> .compact-crawl_hosts/compacted-<id>-00000.parquet
//!                                              .compact-crawl_chains/...
//!                                              .compact-crawl_outcomes/...
//!          --one exchange per table---------> crawl_hosts/, crawl_chains/, crawl_outcomes/
//!                                              (each old set deleted)
//! ```
//!
//! On S3 (`s3.rs`), DuckDB reads the captures from the compaction's local
//! copy when what it holds unread is small, else from the bucket through
//! its httpfs extension, and, where it cannot, from the copy, every file
//! of which is then downloaded.
//!
//! Each row carries its crawl's fingerprint as it was when the table was
//! written: the crawl's captures and the sum of their keys' hashes
//! (`crawl_fingerprints`). The views read a crawl's rows only while its
//! fingerprint still holds, and compute any other crawl from `captures`:
//! an ingest after the compaction never makes them wrong, only slower
//! for the crawls it added to, until the next `compact`. They are
//! computed by the views' own macros, so they cannot differ from what the
//! views compute; a test checks it on every sample.

use std::fs;

use robostats_report::engine::{Engine, Export, ExportFormat, Out, Settings};

use super::COMPACTED_PREFIX;
use crate::output::dataset::{At, CRAWL_TABLES, Dataset, Op, OutputError, sync_dir};
use crate::output::kill_point::{self, Step};

/// How each crawl table ([`CRAWL_TABLES`], in order) is computed: the
/// views' table macro, and the order its rows are written in (by crawl
/// and host, so that DuckDB can skip row groups).
const COMPUTED: [(&str, &str); CRAWL_TABLES.len()] = [
    ("robostats_crawl_hosts", "crawl, url_host_name"),
    ("robostats_chains", "crawl, url_host_name, start_url"),
    ("robostats_crawl_outcomes", "crawl, url_host_name"),
];

/// The query that writes the crawl table `name`: its rows whose crawl's
/// fingerprint holds, kept as they are (where it is `stored`), and every
/// other crawl computed by `computed`, each row with its crawl's
/// fingerprint, and a `crawl_only` row for a crawl computed without rows
/// (so that it is known as it was too).
fn table_sql(name: &str, stored: bool, (computed, order): (&str, &str)) -> String {
    let kept = if stored {
        format!(
            "UNION ALL BY NAME SELECT s.* FROM robostats_table('{name}') s \
             SEMI JOIN robostats_held h ON s.crawl IS NOT DISTINCT FROM h.crawl \
             AND s.crawl_captures = h.crawl_captures AND s.crawl_keys = h.crawl_keys"
        )
    } else {
        String::new()
    };
    format!(
        "WITH robostats_f AS MATERIALIZED (FROM crawl_fingerprints), \
         robostats_held AS MATERIALIZED (FROM robostats_holds('{name}')), \
         robostats_todo AS MATERIALIZED (SELECT f.* FROM robostats_f f \
         ANTI JOIN robostats_held h ON f.crawl IS NOT DISTINCT FROM h.crawl), \
         r AS MATERIALIZED (FROM {computed}('robostats_todo')) \
         SELECT r.*, f.crawl_captures, f.crawl_keys, false AS crawl_only FROM r \
         JOIN robostats_f f ON r.crawl IS NOT DISTINCT FROM f.crawl \
         UNION ALL BY NAME SELECT t.*, true AS crawl_only FROM robostats_todo t \
         ANTI JOIN r ON r.crawl IS NOT DISTINCT FROM t.crawl {kept} ORDER BY {order}"
    )
}

/// The query that counts the crawls some crawl table does not hold as
/// they are now (every crawl where one is missing), and says which
/// tables are there (a column each).
fn stale_sql() -> String {
    let stale: Vec<String> = CRAWL_TABLES
        .iter()
        .map(|name| format!("SELECT crawl FROM robostats_stale('{name}')"))
        .collect();
    let stored: Vec<String> = CRAWL_TABLES
        .iter()
        .map(|name| {
            format!("coalesce(list_contains(getvariable('robostats_stored'), '{name}'), false) AS {name}")
        })
        .collect();
    format!(
        "SELECT (SELECT count(*) FROM ({})) AS stale, {}",
        stale.join(" UNION "),
        stored.join(", ")
    )
}

/// What became of the crawl tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrawlTables {
    /// Written: each table's rows ([`CRAWL_TABLES`] in order: each
    /// crawl's hosts, its robots.txt URLs, its hosts again; a row for
    /// each crawl without one).
    Written([u64; CRAWL_TABLES.len()]),
    /// Already up to date: every crawl as the captures are.
    UpToDate,
    /// Not written (why, in words: no DuckDB, or not wanted); the views
    /// compute the crawls the tables do not hold.
    Skipped(String),
    /// They could not be written (why: DuckDB's message, or a file's):
    /// the same, and a warning.
    Failed(String),
}

/// How the crawl tables are made: by DuckDB through `engine`, or not at
/// all (why, in words: no DuckDB, or not wanted).
pub type Maker = Result<Engine, String>;

/// Writes the crawl tables of the data set, unless they hold every crawl
/// as it is; their files are named after the compaction `id`. Nothing
/// here fails the compaction: the rows are compacted already, and without
/// the tables the views compute every crawl. `before_publish` runs before
/// the first table is put in place.
pub(super) fn write(
    dataset: &Dataset,
    maker: &Maker,
    reads: &super::Reads<'_>,
    id: &str,
    before_publish: &mut dyn FnMut() -> Result<(), OutputError>,
) -> CrawlTables {
    let engine = match maker {
        Ok(engine) => engine,
        Err(why) => return CrawlTables::Skipped(why.clone()),
    };
    written(dataset, engine, reads, id, before_publish).unwrap_or_else(CrawlTables::Failed)
}

fn written(
    dataset: &Dataset,
    engine: &Engine,
    reads: &super::Reads<'_>,
    id: &str,
    before_publish: &mut dyn FnMut() -> Result<(), OutputError>,
) -> Result<CrawlTables, String> {
    // DuckDB runs in a directory of its own: every path absolute.
    let dir = std::path::absolute(dataset.dir()).map_err(|e| e.to_string())?;
    let stale = |out: &[Out]| {
        engine.run_one(
            out,
            "crawl_tables_stale",
            &stale_sql(),
            None,
            &Settings::default(),
        )
    };
    let local = [Out::Dir(dir.clone())];
    let from = (reads.crawls_from)().map_err(|e| e.to_string())?;
    let (out, state) = match &from {
        None => {
            let state = stale(&local).map_err(|e| e.to_string())?;
            (local, state)
        }
        Some(from) => match stale(std::slice::from_ref(from)) {
            Ok(state) => ([from.clone()], state),
            Err(e) => {
                // DuckDB here cannot read the bucket (no httpfs): the
                // copy, every file fetched.
                (reads.fetch_all)(&e.to_string()).map_err(|e| e.to_string())?;
                let state = stale(&local).map_err(|e| e.to_string())?;
                (local, state)
            }
        },
    };
    let row = state.rows.first().cloned().unwrap_or_default();
    if state.num(&row, "stale") == 0.0 {
        return Ok(CrawlTables::UpToDate);
    }
    let mut staged = Vec::new();
    let mut sql = Vec::new();
    for (name, computed) in CRAWL_TABLES.into_iter().zip(COMPUTED) {
        let staging = dataset.staging_of(name);
        fs::create_dir(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
        staged.push(Export {
            path: dir
                .join(staging.file_name().unwrap_or_default())
                .join(format!("{COMPACTED_PREFIX}{id}-00000.parquet")),
            format: ExportFormat::Parquet,
        });
        let stored = row[state.col(name)].as_bool().unwrap_or(false);
        sql.push(table_sql(name, stored, computed));
    }
    let queries: Vec<(&'static str, &str, &Export)> = CRAWL_TABLES
        .iter()
        .zip(&sql)
        .zip(&staged)
        .map(|((&name, sql), export)| (name, sql.as_str(), export))
        .collect();
    // (The staging directories of a failure go with the next compaction's
    // tidying.)
    let rows = engine
        .run_exports(&out, &queries)
        .map_err(|e| e.to_string())?;
    for export in &staged {
        fs::File::open(&export.path)
            .and_then(|f| f.sync_all())
            .map_err(|e| format!("{}: {e}", export.path.display()))?;
    }
    before_publish().map_err(|e| e.to_string())?;
    for name in CRAWL_TABLES {
        swap_in(dataset, name).map_err(|e| e.to_string())?;
    }
    let rows = rows.try_into().map_err(|rows: Vec<u64>| {
        format!("{} tables written, not {}", rows.len(), CRAWL_TABLES.len())
    })?;
    Ok(CrawlTables::Written(rows))
}

/// Puts a crawl table's staged set in place: exchanged with the old one
/// in one step (which is then deleted), or moved there if there was none.
fn swap_in(dataset: &Dataset, name: &str) -> Result<(), OutputError> {
    let staging = dataset.staging_of(name);
    sync_dir(&staging)?;
    let dir = dataset.dir().join(name);
    let old = fs::symlink_metadata(&dir);
    if old.is_ok() {
        super::swap::exchange(&staging, &dir).at(Op::SwapDir, &dir)?;
        sync_dir(dataset.dir())?;
        kill_point::passed(Step::Commit);
        // Gone now or by the next compaction's tidying of `.compact-*`.
        let _ = fs::remove_dir_all(&staging);
    } else {
        fs::rename(&staging, &dir).at(Op::SwapDir, &dir)?;
        sync_dir(dataset.dir())?;
        kill_point::passed(Step::Commit);
    }
    Ok(())
}
