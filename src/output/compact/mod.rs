//! `compact`: the many small part files of a finished data set merged into
//! fewer large ones, with the same rows, atomically.
//!
//! ```text
//! <table>/ part files  -> merged into .compact-<table>/compacted-*.parquet
//!                         (plus hard links to every file left as it is)
//!                      -> its line in _manifest/compact.jsonl (which file went where)
//!                      -> one renameat2(RENAME_EXCHANGE): <table>/ is the new set
//!                      -> the old set is deleted
//! ```
//!
//! A compaction is four steps: list each table's part files, plan the
//! merges ([`plan_merges`], a pure function), write the merged files, and
//! swap each table's directory for its new set. A reader globbing
//! `<table>/*.parquet` sees the old files or the new ones, never both: the
//! directory is swapped in one step (where the system has no atomic
//! exchange, the old directory is renamed aside first, and for a moment the
//! table is missing, never doubled; a compaction killed then is undone by
//! the next run or compaction, [`recover`]).
//!
//! A table's merges are recorded (synced) before its swap, so that no
//! moment leaves done inputs' part files gone with no record of where
//! their rows are (the next ingest would do them again, doubling every
//! row); a merge counts only once its compacted file is there
//! (`manifest::Merges`). The old files are deleted last: a deletion that
//! fails (a file held open on NFS) is a warning, and the next compaction
//! deletes them. A compaction killed at any moment leaves the data set as
//! it was, or compacted, plus hidden directories the next `compact`
//! deletes.
//!
//! Only files whose rows are final are merged: the part files the manifest
//! lists for inputs that are done, and earlier compactions' files. Part
//! files of failed or unfinished inputs stay as they are, so that a later
//! `ingest` can still redo those inputs (it deletes their part files by
//! name first). The part files of the tables stored once per body are
//! final once published (they belong to no input); merging them keeps
//! one writer's rows per body, the one the views read
//! (`dataset::bodies`): a body two runs wrote is stored once after. The
//! body store is checked first (`bodies::check`): writers whose files are
//! gone are retired, and `bodies` files no run recorded (a run killed
//! between publishing and recording them) are deleted with their lines.
//!
//! A data set read by generation (one compacted on S3, then copied to
//! disk) keeps to its chain (`generations.rs`): what the newest generation
//! hides is deleted first, and the next names this compaction before its
//! first file is put in place.

pub mod crawls;
pub mod s3;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::Schema;
use arrow_select::filter::filter_record_batch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rayon::prelude::*;

mod generations;
mod swap;

use swap::{Swap, recover, remove_staging};

use crate::classify::Table;
use crate::output::batch::schema_of;
use crate::output::dataset::bodies::check::{self, Store};
use crate::output::dataset::{
    At, Dataset, InputStatus, Op, OutputError, PartFile, bodies, is_finished_part, open_regular,
    short_hash,
};

/// What `compact` does.
#[derive(Clone, Debug)]
pub struct Options {
    /// Files are merged up to about this many bytes each; files this large
    /// already are left as they are.
    pub target_bytes: u64,
    /// Files written at once.
    pub threads: usize,
    /// How the crawl tables are written (or why not).
    pub crawl_tables: crawls::Maker,
}

/// What happened to one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableReport {
    /// The table.
    pub table: &'static str,
    /// Part files before (the schema-only file not counted).
    pub files_before: usize,
    /// Part files after.
    pub files_after: usize,
    /// Rows moved into new files.
    pub rows_merged: u64,
    /// Rows of a body's second writer (or of a writer without a `bodies`
    /// row) left out of the new files: rows the views never read.
    pub rows_dropped: u64,
}

pub use crate::output::dataset::COMPACTED_PREFIX;

/// Encoded bytes at which a compacted file's row group is closed: large
/// row groups suit readers; one writer's buffer at a time per thread.
pub const COMPACT_ROW_GROUP_BYTES: usize = 64 << 20;

/// A part file of a table, as found on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartInfo {
    /// Its path.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its rows are final: a done input's part file, or a compaction's.
    pub is_final: bool,
}

/// One output file: the inputs merged into it, in order.
struct Merge {
    table: Table,
    sources: Vec<PathBuf>,
    target: PathBuf,
}

/// What a merge wrote.
#[derive(Clone, Copy, Debug, Default)]
struct Moved {
    rows: u64,
    dropped: u64,
}

/// What a compaction did.
#[derive(Clone, Debug, Default)]
pub struct Compaction {
    /// Each table's files and rows.
    pub tables: Vec<TableReport>,
    /// What could not be tidied (old files that could not be deleted), for
    /// the next compaction to finish; the rows are compacted all the same.
    pub warnings: Vec<String>,
    /// Writers whose files were found gone, retired now: their bodies are
    /// owed by these inputs, which the next ingest reads for them.
    pub owed_by: Vec<String>,
    /// `bodies` files no run recorded, deleted with their lines.
    pub unrecorded: usize,
    /// What became of the crawl tables (`None`: the compaction stopped
    /// before them).
    pub crawl_tables: Option<crawls::CrawlTables>,
    /// On S3: the part files downloaded, of those the data set holds.
    pub fetched: Option<Fetched>,
}

/// The part files a compaction on S3 downloaded (the ones it read), of
/// the part files of the data set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fetched {
    /// Files downloaded.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The data set's part files.
    pub of_files: usize,
    /// Their bytes.
    pub of_bytes: u64,
}

/// How a compaction reads its files: in place on disk. On S3 (`s3.rs`) it
/// runs in a local copy whose files are all there with their sizes but
/// hold their bytes only once read: `fetch` brings them before a file is
/// read, and DuckDB reads the crawl tables' captures where `crawls_from`
/// says: the copy (made whole first), or the bucket itself, and, where
/// it cannot read there, the copy once `fetch_all` has brought every file.
pub(crate) struct Reads<'a> {
    /// Makes a file of the data set readable (a no-op on disk).
    pub(crate) fetch: &'a (dyn Fn(&Path) -> Result<(), OutputError> + Sync),
    /// Makes every file readable, for the reason given (a no-op on disk).
    pub(crate) fetch_all: &'a dyn Fn(&str) -> Result<(), OutputError>,
    /// Where DuckDB reads the data set for the crawl tables: `None`, the
    /// directory compacted (whole once this returns), or another place.
    pub(crate) crawls_from:
        &'a dyn Fn() -> Result<Option<robostats_report::engine::Out>, OutputError>,
}

/// Compacts the data set under `out`.
pub fn run(out: &Path, options: &Options) -> Result<Compaction, OutputError> {
    let reads = Reads {
        fetch: &|_| Ok(()),
        fetch_all: &|_| Ok(()),
        crawls_from: &|| Ok(None),
    };
    run_reading(out, options, &reads)
}

/// Compacts the data set under `out`, its files read as `reads` says.
pub(crate) fn run_reading(
    out: &Path,
    options: &Options,
    reads: &Reads<'_>,
) -> Result<Compaction, OutputError> {
    let started = Instant::now();
    let dataset = Dataset::open(out)?;
    // No ingest runs beside a compaction, nor starts during it: where the
    // lock is honoured, a part file still under its temporary name is one
    // a killed ingest left, and goes (as the ingest's next run would do).
    let lock = dataset.lock_compact()?;
    if lock.honoured() {
        dataset.remove_temporaries_of_dead_runs()?;
    }
    let mut done = Compaction::default();
    recover(&dataset, &mut done.warnings)?;
    let mut generations = generations::Generations::open(&dataset)?;
    dataset.retire_legacy_empty()?;
    let mut log = dataset.manifest("compact")?;
    let store = check::check(&dataset, &mut log)?;
    done.owed_by = store.owed.keys().map(|o| o.input.clone()).collect();
    done.unrecorded = check::remove_unrecorded(&dataset, &store.unrecorded)?;
    let fixed = final_parts(&dataset)?;
    // A name for this compaction's files, unique to it.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let id = short_hash(format!("{nanos}-{}", std::process::id()).as_bytes());

    let mut merges = Vec::new();
    for &table in Table::ALL {
        let parts = list_parts(&dataset, table, &fixed)?;
        let groups = plan_merges(&parts, options.target_bytes);
        let merged_away: usize = groups.iter().map(|g| g.len() - 1).sum();
        done.tables.push(TableReport {
            table: table.name(),
            files_before: parts.len(),
            files_after: parts.len() - merged_away,
            rows_merged: 0,
            rows_dropped: 0,
        });
        for (seq, sources) in groups.into_iter().enumerate() {
            let target = staging_dir(&dataset, table)
                .join(format!("{COMPACTED_PREFIX}{id}-{seq:05}.parquet"));
            merges.push(Merge {
                table,
                sources,
                target,
            });
        }
    }
    // Where the data set is read by generation, this compaction is named
    // in one before any of its files is put in place.
    let name_it = |generations: &mut Option<generations::Generations>| {
        generations.as_mut().map_or(Ok(()), |g| g.name(&id))
    };
    if merges.is_empty() {
        let crawl_tables = crawls::write(&dataset, &options.crawl_tables, reads, &id, &mut || {
            name_it(&mut generations)
        });
        done.crawl_tables = Some(crawl_tables);
        return Ok(done);
    }
    let chosen = chosen_writers(&merges, &store, reads)?;
    let written = write_merges(&merges, &chosen, options.threads, reads).and_then(|rows| {
        name_it(&mut generations)?;
        let mut swap = Swap {
            dataset: &dataset,
            log: &mut log,
            started,
            warnings: &mut done.warnings,
        };
        swap.all(&merges, &rows, &mut done.tables)
    });
    if written.is_err() {
        // Best effort: the next `compact` deletes them anyway, but a full
        // disk wants its space back now.
        let _ = remove_staging(&dataset, &mut Vec::new());
    }
    written?;
    let crawl_tables = crawls::write(&dataset, &options.crawl_tables, reads, &id, &mut || {
        name_it(&mut generations)
    });
    done.crawl_tables = Some(crawl_tables);
    Ok(done)
}

/// The writer read per body, where a table stored once per body is
/// merged: from the `bodies` files the check found whole.
fn chosen_writers(
    merges: &[Merge],
    store: &Store,
    reads: &Reads<'_>,
) -> Result<HashMap<bodies::Digest, i64>, OutputError> {
    if merges.iter().any(|m| m.table.per_body()) {
        for path in &store.intact {
            (reads.fetch)(path)?;
        }
        bodies::chosen_writers(&store.intact)
    } else {
        Ok(HashMap::new())
    }
}

/// The hidden staging directory of a table.
fn staging_dir(dataset: &Dataset, table: Table) -> PathBuf {
    dataset.staging_dir(table)
}

/// The part files the manifest lists for inputs that are done.
fn final_parts(dataset: &Dataset) -> Result<HashSet<PathBuf>, OutputError> {
    Ok(dataset
        .read_inputs()?
        .into_values()
        .filter(|e| e.line.status == InputStatus::Done)
        .flat_map(|e| e.line.parts)
        .map(|part| dataset.dir().join(part.path))
        .collect())
}

/// A table's part files, sorted by name (the schema-only file aside). A hidden
/// file left (where locks are not honoured, an ingest may be writing it)
/// means nothing is merged.
fn list_parts(
    dataset: &Dataset,
    table: Table,
    fixed: &HashSet<PathBuf>,
) -> Result<Vec<PartInfo>, OutputError> {
    let dir = dataset.table_dir(table);
    let mut parts = Vec::new();
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(parts);
    };
    for entry in entries {
        let entry = entry.at(Op::ListDir, &dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name.starts_with('.') {
            return Err(OutputError::Unfinished { path });
        }
        // Only regular files are merged: a link, a FIFO or anything else
        // planted here is neither read nor deleted (it is carried over as
        // it is).
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if regular && is_finished_part(&name) {
            let size = entry.metadata().at(Op::ListDir, &path)?.len();
            let is_final =
                table.per_body() || fixed.contains(&path) || name.starts_with(COMPACTED_PREFIX);
            parts.push(PartInfo {
                path,
                size,
                is_final,
            });
        }
    }
    parts.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(parts)
}

/// Which files to merge into which: consecutive final files smaller than
/// `target_bytes`, grouped up to `target_bytes` each, in the given order.
/// Only groups of two files or more are returned (a file alone stays as it
/// is); files that are not final, or already large, are left out.
pub fn plan_merges(parts: &[PartInfo], target_bytes: u64) -> Vec<Vec<PathBuf>> {
    let mut groups: Vec<Vec<PathBuf>> = vec![Vec::new()];
    let mut group_bytes = 0;
    for part in parts {
        if !part.is_final || part.size >= target_bytes {
            continue;
        }
        let current = groups.last().expect("never empty");
        if group_bytes + part.size > target_bytes && !current.is_empty() {
            groups.push(Vec::new());
            group_bytes = 0;
        }
        groups
            .last_mut()
            .expect("never empty")
            .push(part.path.clone());
        group_bytes += part.size;
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Writes every merged file, in parallel; returns what each moved.
fn write_merges(
    merges: &[Merge],
    chosen: &HashMap<bodies::Digest, i64>,
    threads: usize,
    reads: &Reads<'_>,
) -> Result<Vec<Moved>, OutputError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| OutputError::Threads(e.to_string()))?;
    pool.install(|| {
        merges
            .par_iter()
            .map(|m| {
                for source in &m.sources {
                    (reads.fetch)(source)?;
                }
                merge(m, chosen)
            })
            .collect()
    })
}

/// The rows of `batch` (of a table stored once per body) whose writer is
/// the one `chosen` for their body; `None` if its key columns are not
/// `(body_digest, writer)`.
fn chosen_rows(batch: &RecordBatch, chosen: &HashMap<bodies::Digest, i64>) -> Option<RecordBatch> {
    let keep: BooleanArray = bodies::keys(batch)?
        .into_iter()
        .map(|(digest, writer)| {
            let writer_chosen = digest.and_then(|d| chosen.get(&d));
            Some(writer_chosen.is_some_and(|w| Some(*w) == writer))
        })
        .collect();
    filter_record_batch(batch, &keep).ok()
}

/// Writes one merged file into the staging directory; returns what it
/// moved. The rows of a table stored once per body are only the chosen
/// writer's of each body (`chosen`).
fn merge(m: &Merge, chosen: &HashMap<bodies::Digest, i64>) -> Result<Moved, OutputError> {
    // The table's schema as this version declares it: part files of older
    // versions may describe their columns in other words (field metadata),
    // which does not keep them from being merged; other columns do.
    let schema = schema_of(m.table.columns());
    let mut writer = PartFile::create(m.table, m.target.clone(), schema.clone())?
        .with_row_group_bytes(COMPACT_ROW_GROUP_BYTES);
    let mut expected = 0u64;
    let mut dropped = 0u64;
    for source in &m.sources {
        let file = open_regular(source).at(Op::ReadPart, source)?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| bodies::unreadable(source, &e))?;
        expected += builder.metadata().file_metadata().num_rows() as u64;
        if !same_columns(builder.schema(), &schema) {
            return Err(OutputError::OtherSchema {
                path: source.clone(),
                first: m.sources[0].clone(),
            });
        }
        let reader = builder
            .with_batch_size(64 * 1024)
            .build()
            .at(Op::ReadPart, source)?;
        for batch in reader {
            let mut batch = batch
                .and_then(|b| RecordBatch::try_new(schema.clone(), b.columns().to_vec()))
                .map_err(|e| OutputError::io(Op::ReadPart, source, io::Error::other(e)))?;
            if m.table.per_body() {
                let read = batch.num_rows();
                batch = chosen_rows(&batch, chosen).ok_or_else(|| {
                    OutputError::io(
                        Op::ReadPart,
                        source,
                        io::Error::other("not a body table: (body_digest, writer) expected"),
                    )
                })?;
                let left_out = (read - batch.num_rows()) as u64;
                dropped += left_out;
                expected -= left_out;
            }
            writer.write(&batch)?;
        }
    }
    let summary = writer.finish()?.publish()?;
    if summary.rows != expected {
        return Err(OutputError::RowsLost {
            path: summary.path,
            written: summary.rows,
            read: expected,
        });
    }
    Ok(Moved {
        rows: summary.rows,
        dropped,
    })
}

/// The same column names, types and nullability (descriptions aside).
fn same_columns(a: &Schema, b: &Schema) -> bool {
    a.fields().len() == b.fields().len()
        && a.fields().iter().zip(b.fields()).all(|(x, y)| {
            x.name() == y.name()
                && x.data_type() == y.data_type()
                && x.is_nullable() == y.is_nullable()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, size: u64, is_final: bool) -> PartInfo {
        PartInfo {
            path: PathBuf::from(name),
            size,
            is_final,
        }
    }

    #[test]
    fn merges_group_consecutive_small_final_files_up_to_the_target() {
        let parts = [
            part("a", 40, true),
            part("b", 40, true),
            part("c", 40, true),
            part("d", 10, false),
            part("e", 100, true),
            part("f", 30, true),
            part("g", 30, true),
            part("h", 5, true),
        ];
        let names = |groups: Vec<Vec<PathBuf>>| -> Vec<Vec<String>> {
            groups
                .into_iter()
                .map(|g| g.iter().map(|p| p.display().to_string()).collect())
                .collect()
        };
        // a+b fill 80 of 100; c would pass it and starts the next group,
        // which f and g fill to 100 (d is not final, e is already large);
        // h would pass it and stays alone.
        assert_eq!(
            names(plan_merges(&parts, 100)),
            [vec!["a", "b"], vec!["c", "f", "g"]]
        );
        assert!(plan_merges(&parts[..1], 100).is_empty());
        assert!(plan_merges(&[], 100).is_empty());
        assert_eq!(
            names(plan_merges(&parts, 1000)),
            [vec!["a", "b", "c", "e", "f", "g", "h"]]
        );
    }
}
