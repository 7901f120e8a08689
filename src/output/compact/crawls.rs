//! The crawl tables: what every crawl-over-crawl query computes from all
//! of a crawl's captures (`follow_redirects(true)`'s redirect chains and
//! `crawl_hosts`' deciding captures, `queries/views.sql`), written once
//! by `compact` so that the views read them instead.
//!
//! ```text
//! captures --DuckDB: the views' own macros--> .compact-crawl_hosts/compacted-<id>-00000.parquet
//!                                              .compact-crawl_chains/compacted-<id>-00000.parquet
//!          --one exchange per table---------> crawl_hosts/, crawl_chains/ (the old set deleted)
//! ```
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

/// The query that writes each crawl table ([`CRAWL_TABLES`], in order):
/// the views' macro over every capture, each row with its crawl's
/// fingerprint, and a `crawl_only` row for each crawl without rows (so that
/// it is known as it was too), sorted by crawl and host so that DuckDB can
/// skip row groups.
const QUERIES: [&str; 2] = [
    "WITH r AS MATERIALIZED (FROM robostats_crawl_hosts('captures')) \
     SELECT r.*, f.crawl_captures, f.crawl_keys, false AS crawl_only FROM r \
     JOIN crawl_fingerprints f ON r.crawl IS NOT DISTINCT FROM f.crawl \
     UNION ALL BY NAME SELECT f.*, true AS crawl_only FROM crawl_fingerprints f \
     ANTI JOIN r ON r.crawl IS NOT DISTINCT FROM f.crawl \
     ORDER BY crawl, url_host_name",
    "WITH r AS MATERIALIZED (FROM robostats_follow(true, 'captures')) \
     SELECT r.*, f.crawl_captures, f.crawl_keys, false AS crawl_only FROM r \
     JOIN crawl_fingerprints f ON r.crawl IS NOT DISTINCT FROM f.crawl \
     UNION ALL BY NAME SELECT f.*, true AS crawl_only FROM crawl_fingerprints f \
     ANTI JOIN r ON r.crawl IS NOT DISTINCT FROM f.crawl \
     ORDER BY crawl, url_host_name, start_url",
];

/// The crawls some crawl table does not hold as they are now (every
/// crawl where one is missing).
const STALE_SQL: &str = "SELECT count(*) AS stale FROM (SELECT crawl FROM \
     robostats_stale('crawl_hosts') UNION SELECT crawl FROM robostats_stale('crawl_chains'))";

/// What became of the crawl tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrawlTables {
    /// Written.
    Written {
        /// Rows of crawl_hosts: each crawl's hosts (and a row for each
        /// crawl without one).
        hosts: u64,
        /// Rows of crawl_chains: each crawl's robots.txt URLs (the same).
        chains: u64,
    },
    /// Already up to date: every crawl as the captures are.
    UpToDate,
    /// Not written (why, in words: no DuckDB, or not wanted); the views
    /// compute the crawls the tables do not hold.
    Skipped(String),
    /// DuckDB failed writing them (its message): the same, and a warning.
    Failed(String),
}

/// How the crawl tables are made: by DuckDB through `engine`, or not at
/// all (why, in words: no DuckDB, or not wanted).
pub type Maker = Result<Engine, String>;

/// Writes the crawl tables of the data set, unless they hold every crawl
/// as it is; their files are named after the compaction `id`.
pub(super) fn write(
    dataset: &Dataset,
    maker: &Maker,
    id: &str,
) -> Result<CrawlTables, OutputError> {
    let engine = match maker {
        Ok(engine) => engine,
        Err(why) => return Ok(CrawlTables::Skipped(why.clone())),
    };
    // DuckDB runs in a directory of its own: every path absolute.
    let dir = std::path::absolute(dataset.dir()).at(Op::ListDir, dataset.dir())?;
    let out = [Out::Dir(dir.clone())];
    let stale = match engine.run_one(
        &out,
        "crawl_tables_stale",
        STALE_SQL,
        None,
        &Settings::default(),
    ) {
        Ok(table) => table,
        Err(e) => return Ok(CrawlTables::Failed(e.to_string())),
    };
    let row = stale.rows.first().cloned().unwrap_or_default();
    if stale.num(&row, "stale") == 0.0 {
        return Ok(CrawlTables::UpToDate);
    }
    let mut staged = Vec::new();
    for name in CRAWL_TABLES {
        let staging = dataset.staging_of(name);
        fs::create_dir(&staging).at(Op::CreateDir, &staging)?;
        staged.push(Export {
            path: dir
                .join(staging.file_name().unwrap_or_default())
                .join(format!("{COMPACTED_PREFIX}{id}-00000.parquet")),
            format: ExportFormat::Parquet,
        });
    }
    let queries: Vec<(&'static str, &str, &Export)> = CRAWL_TABLES
        .iter()
        .zip(QUERIES)
        .zip(&staged)
        .map(|((&name, sql), export)| (name, sql, export))
        .collect();
    let written = match engine.run_exports(&out, &queries) {
        Ok(rows) => rows,
        // The staging directories go with the next compaction's tidying.
        Err(e) => return Ok(CrawlTables::Failed(e.to_string())),
    };
    for export in &staged {
        let file = fs::File::open(&export.path).at(Op::ReadPart, &export.path)?;
        file.sync_all().at(Op::ReadPart, &export.path)?;
    }
    for name in CRAWL_TABLES {
        swap_in(dataset, name)?;
    }
    Ok(CrawlTables::Written {
        hosts: written[0],
        chains: written[1],
    })
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
        // Gone now or by the next compaction's tidying of `.compact-*`.
        let _ = fs::remove_dir_all(&staging);
    } else {
        fs::rename(&staging, &dir).at(Op::SwapDir, &dir)?;
        sync_dir(dataset.dir())?;
    }
    Ok(())
}
