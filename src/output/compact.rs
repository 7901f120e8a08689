//! `compact`: the many small part files of a finished data set merged into
//! fewer large ones, with the same rows, atomically.
//!
//! ```text
//! <table>/ part files  -> merged into .compact-<table>/compacted-*.parquet
//!                         (plus hard links to every file left as it is)
//!                      -> one renameat2(RENAME_EXCHANGE): <table>/ is the new set
//!                      -> the old set is deleted
//! ```
//!
//! A compaction is four steps: list each table's part files, plan the
//! merges ([`plan_merges`], a pure function), write the merged files, and
//! swap each table's directory for its new set. A reader globbing
//! `<table>/*.parquet` sees the old files or the new ones, never both: the
//! directory is swapped in one step (where the system has no atomic
//! exchange, the old directory is renamed away first, and for a moment the
//! table is missing, never doubled). A compaction killed at any moment
//! leaves the data set as it was, or compacted, plus a hidden staging
//! directory the next `compact` deletes.
//!
//! Only files whose rows are final are merged: the part files the manifest
//! lists for inputs that are done, and earlier compactions' files. Part
//! files of failed or unfinished inputs stay as they are, so that a later
//! `ingest` can still redo those inputs (it deletes their part files by
//! name first). The part files of the tables stored once per body are
//! final once published (they belong to no input); merging them keeps
//! one writer's rows per body, the one the views read
//! (`dataset::bodies`): a body two runs wrote is stored once after.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::Schema;
use arrow_select::filter::filter_record_batch;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rayon::prelude::*;

use crate::classify::Table;
use crate::output::batch::schema_of;
use crate::output::dataset::manifest::{CompactLine, Line, Merged};
use crate::output::dataset::{
    At, Dataset, InputStatus, Op, OutputError, PartFile, bodies, is_finished_part, short_hash,
    sync_dir,
};

/// What `compact` does.
#[derive(Clone, Debug)]
pub struct Options {
    /// Files are merged up to about this many bytes each; files this large
    /// already are left as they are.
    pub target_bytes: u64,
    /// Files written at once.
    pub threads: usize,
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

/// The prefix of the files a compaction writes.
pub const COMPACTED_PREFIX: &str = "compacted-";

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

/// Compacts the data set under `out`.
pub fn run(out: &Path, options: &Options) -> Result<Vec<TableReport>, OutputError> {
    let started = Instant::now();
    let dataset = Dataset::open(out)?;
    // No ingest runs beside a compaction, nor starts during it.
    let _lock = dataset.lock_compact()?;
    remove_staging(&dataset)?;
    dataset.retire_legacy_empty()?;
    let fixed = final_parts(&dataset)?;
    // A name for this compaction's files, unique to it.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let id = short_hash(format!("{nanos}-{}", std::process::id()).as_bytes());

    let mut reports = Vec::new();
    let mut merges = Vec::new();
    for &table in Table::ALL {
        let parts = list_parts(&dataset, table, &fixed)?;
        let groups = plan_merges(&parts, options.target_bytes);
        let merged_away: usize = groups.iter().map(|g| g.len() - 1).sum();
        reports.push(TableReport {
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
    if merges.is_empty() {
        return Ok(reports);
    }
    let chosen = if merges.iter().any(|m| m.table.per_body()) {
        bodies::chosen_writers(dataset.dir())?
    } else {
        HashMap::new()
    };
    let written = write_merges(&merges, &chosen, options.threads)
        .and_then(|rows| swap_in_all(&dataset, &merges, &rows, &mut reports, started));
    if written.is_err() {
        // Best effort: the next `compact` deletes them anyway, but a full
        // disk wants its space back now.
        let _ = remove_staging(&dataset);
    }
    written.map(|()| reports)
}

/// The hidden staging directory of a table.
fn staging_dir(dataset: &Dataset, table: Table) -> PathBuf {
    dataset.dir().join(format!(".compact-{}", table.name()))
}

/// Deletes the staging directories of a compaction that was killed.
fn remove_staging(dataset: &Dataset) -> Result<(), OutputError> {
    let dir = dataset.dir();
    for entry in fs::read_dir(dir).at(Op::ListDir, dir)? {
        let entry = entry.at(Op::ListDir, dir)?;
        if entry.file_name().to_string_lossy().starts_with(".compact-") {
            let path = entry.path();
            fs::remove_dir_all(&path).at(Op::RemoveDir, &path)?;
        }
    }
    Ok(())
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
/// file means an ingest is writing, or was interrupted: nothing is merged
/// then.
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
        if is_finished_part(&name) {
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
    chosen: &HashMap<u128, i64>,
    threads: usize,
) -> Result<Vec<Moved>, OutputError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| OutputError::Threads(e.to_string()))?;
    pool.install(|| merges.par_iter().map(|m| merge(m, chosen)).collect())
}

/// The rows of `batch` (of a table stored once per body) whose writer is
/// the one `chosen` for their body; `None` if its key columns are not
/// `(body_digest, writer)`.
fn chosen_rows(batch: &RecordBatch, chosen: &HashMap<u128, i64>) -> Option<RecordBatch> {
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
fn merge(m: &Merge, chosen: &HashMap<u128, i64>) -> Result<Moved, OutputError> {
    // The table's schema as this version declares it: part files of older
    // versions may describe their columns in other words (field metadata),
    // which does not keep them from being merged; other columns do.
    let schema = schema_of(m.table.columns());
    let mut writer = PartFile::create(m.table, m.target.clone(), schema.clone())?
        .with_row_group_bytes(COMPACT_ROW_GROUP_BYTES);
    let mut expected = 0u64;
    let mut dropped = 0u64;
    for source in &m.sources {
        let file = File::open(source).at(Op::ReadPart, source)?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).at(Op::ReadPart, source)?;
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

/// Swaps in every table that has merges, and logs each in the manifest.
fn swap_in_all(
    dataset: &Dataset,
    merges: &[Merge],
    moved: &[Moved],
    reports: &mut [TableReport],
    started: Instant,
) -> Result<(), OutputError> {
    let mut log = dataset.manifest("compact")?;
    for (&table, report) in Table::ALL.iter().zip(reports) {
        let table_merges: Vec<(&Merge, Moved)> = merges
            .iter()
            .zip(moved.iter().copied())
            .filter(|(m, _)| m.table == table)
            .collect();
        if table_merges.is_empty() {
            continue;
        }
        report.rows_merged = table_merges.iter().map(|(_, moved)| moved.rows).sum();
        report.rows_dropped = table_merges.iter().map(|(_, moved)| moved.dropped).sum();
        let merged: HashSet<&PathBuf> = table_merges.iter().flat_map(|(m, _)| &m.sources).collect();
        swap_in(dataset, table, &merged)?;
        let table_dir = dataset.table_dir(table);
        log.append(&Line::Compact(CompactLine {
            table: table.name().to_owned(),
            merged: table_merges
                .iter()
                .map(|(m, moved)| Merged {
                    path: dataset
                        .relative(&table_dir.join(m.target.file_name().unwrap_or_default())),
                    rows: moved.rows,
                    from: m.sources.iter().map(|p| dataset.relative(p)).collect(),
                })
                .collect(),
            unix: crate::output::dataset::manifest::unix_now(),
            seconds: started.elapsed().as_secs_f64(),
        }))?;
    }
    Ok(())
}

/// Completes a table's staging directory with every file not merged, and
/// swaps it in for the table's directory.
fn swap_in(dataset: &Dataset, table: Table, merged: &HashSet<&PathBuf>) -> Result<(), OutputError> {
    let dir = dataset.table_dir(table);
    let staging = staging_dir(dataset, table);
    for entry in fs::read_dir(&dir).at(Op::ListDir, &dir)? {
        let path = entry.at(Op::ListDir, &dir)?.path();
        if merged.contains(&path) {
            continue;
        }
        let to = staging.join(path.file_name().unwrap_or_default());
        if fs::hard_link(&path, &to).is_err() {
            fs::copy(&path, &to).at(Op::StageFile, &path)?;
        }
    }
    sync_dir(&staging)?;
    exchange(&staging, &dir).at(Op::SwapDir, &dir)?;
    sync_dir(dataset.dir())?;
    // The staging path now holds the old files.
    fs::remove_dir_all(&staging).at(Op::RemoveDir, &staging)
}

/// Swaps two directories in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(()),
        // Old kernels and some file systems (NFS) cannot exchange.
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            exchange_in_two_steps(a, b)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    exchange_in_two_steps(a, b)
}

/// Without an atomic exchange: `b` is moved aside, then `a` takes its
/// place (for a moment `b` is missing), then the old `b` goes to `a`.
fn exchange_in_two_steps(a: &Path, b: &Path) -> io::Result<()> {
    let aside = a.with_extension("old");
    fs::rename(b, &aside)?;
    fs::rename(a, b)?;
    fs::rename(&aside, a)
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
