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
//! A reader globbing `<table>/*.parquet` sees the old files or the new
//! ones, never both: the directory is swapped in one step (where the
//! system has no atomic exchange, the old directory is renamed away first,
//! and for a moment the table is missing, never doubled). A compaction
//! killed at any moment leaves the data set as it was, or compacted, plus
//! a hidden staging directory the next `compact` deletes.
//!
//! Only files whose rows are final are merged: the part files the manifest
//! lists for inputs that are done, and earlier compactions' files. Part
//! files of failed or unfinished inputs stay as they are, so that a later
//! `ingest` can still redo those inputs (it deletes their part files by
//! name first).

use std::collections::HashSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rayon::prelude::*;
use serde_json::json;

use crate::batch::Table;
use crate::manifest;
use crate::pipeline::{RunError, run_error, short_hash, sync_dir};
use crate::sink::PartWriter;

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
    /// Part files before (`_empty.parquet` not counted).
    pub files_before: usize,
    /// Part files after.
    pub files_after: usize,
    /// Rows moved into new files.
    pub rows_merged: u64,
}

/// The prefix of the files a compaction writes.
pub const COMPACTED_PREFIX: &str = "compacted-";

/// The hidden staging directory of a table.
fn staging_dir(out: &Path, table: Table) -> PathBuf {
    out.join(format!(".compact-{}", table.name()))
}

/// One output file: the inputs merged into it, in order.
struct Merge {
    table: Table,
    sources: Vec<PathBuf>,
    target: PathBuf,
}

/// Compacts the data set under `out`.
pub fn run(out: &Path, options: &Options) -> Result<Vec<TableReport>, RunError> {
    let started = Instant::now();
    if !manifest::dir(out).is_dir() {
        return Err(RunError(format!(
            "{} is not an ingest output directory (it has no _manifest)",
            out.display()
        )));
    }
    // Staging directories of a compaction that was killed.
    for entry in fs::read_dir(out).map_err(|e| run_error("cannot list the output directory", e))? {
        let entry = entry.map_err(|e| run_error("cannot list the output directory", e))?;
        if entry.file_name().to_string_lossy().starts_with(".compact-") {
            fs::remove_dir_all(entry.path())
                .map_err(|e| run_error("cannot remove old staging files", e))?;
        }
    }
    let finished =
        manifest::read_inputs(out).map_err(|e| run_error("cannot read the manifest", e))?;
    let mut fixed: HashSet<PathBuf> = HashSet::new();
    for entry in finished.values().filter(|e| e.status == "done") {
        for part in entry.line["parts"].as_array().into_iter().flatten() {
            if let Some(path) = part["path"].as_str() {
                fixed.insert(out.join(path));
            }
        }
    }

    // A name for this compaction's files, unique to it.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let id = short_hash(format!("{nanos}-{}", std::process::id()).as_bytes());

    let mut reports = Vec::new();
    let mut merges = Vec::new();
    for table in Table::ALL {
        let dir = out.join(table.name());
        let mut files = Vec::new();
        for entry in fs::read_dir(&dir).into_iter().flatten() {
            let entry = entry.map_err(|e| run_error("cannot list a table directory", e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                return Err(RunError(format!(
                    "{} is being written, or was left by an interrupted ingest: \
                     let the ingest finish (run it again) before compacting",
                    entry.path().display()
                )));
            }
            if name.ends_with(".parquet") && name != crate::pipeline::EMPTY_PART {
                let size = entry
                    .metadata()
                    .map_err(|e| run_error("cannot stat", e))?
                    .len();
                files.push((entry.path(), name, size));
            }
        }
        files.sort();
        let mut report = TableReport {
            table: table.name(),
            files_before: files.len(),
            files_after: files.len(),
            rows_merged: 0,
        };
        // Consecutive small final files, grouped up to the target size.
        let mut groups: Vec<Vec<PathBuf>> = vec![Vec::new()];
        let mut group_bytes = 0;
        for (path, name, size) in files {
            let is_final = fixed.contains(&path) || name.starts_with(COMPACTED_PREFIX);
            if !is_final || size >= options.target_bytes {
                continue;
            }
            if group_bytes + size > options.target_bytes && !groups.last().unwrap().is_empty() {
                groups.push(Vec::new());
                group_bytes = 0;
            }
            groups.last_mut().unwrap().push(path);
            group_bytes += size;
        }
        for (seq, sources) in groups.into_iter().filter(|g| g.len() > 1).enumerate() {
            report.files_after -= sources.len() - 1;
            let target =
                staging_dir(out, table).join(format!("{COMPACTED_PREFIX}{id}-{seq:05}.parquet"));
            merges.push(Merge {
                table,
                sources,
                target,
            });
        }
        reports.push(report);
    }
    if merges.is_empty() {
        return Ok(reports);
    }

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .build()
        .map_err(|e| run_error("cannot start worker threads", e))?;
    let rows: Vec<u64> = pool.install(|| {
        merges
            .par_iter()
            .map(merge)
            .collect::<Result<Vec<u64>, RunError>>()
    })?;

    let mut log = manifest::Manifest::open(out, "compact")
        .map_err(|e| run_error("cannot write the manifest", e))?;
    for (table, report) in Table::ALL.iter().zip(&mut reports) {
        let table_merges: Vec<(&Merge, u64)> = merges
            .iter()
            .zip(rows.iter().copied())
            .filter(|(m, _)| m.table == *table)
            .collect();
        if table_merges.is_empty() {
            continue;
        }
        report.rows_merged = table_merges.iter().map(|(_, r)| r).sum();
        let merged: HashSet<&PathBuf> = table_merges.iter().flat_map(|(m, _)| &m.sources).collect();
        swap_in(out, *table, &merged)?;
        let relative = |p: &Path| p.strip_prefix(out).unwrap_or(p).to_path_buf();
        log.append(&json!({
            "type": "compact",
            "table": table.name(),
            "merged": table_merges.iter().map(|(m, rows)| json!({
                "path": relative(&out.join(table.name()).join(m.target.file_name().unwrap_or_default())),
                "rows": rows,
                "from": m.sources.iter().map(|p| relative(p)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "unix": manifest::unix_now(),
            "seconds": started.elapsed().as_secs_f64(),
        }))
        .map_err(|e| run_error("cannot write the manifest", e))?;
    }
    Ok(reports)
}

/// Writes one merged file into the staging directory; returns its rows.
fn merge(m: &Merge) -> Result<u64, RunError> {
    let mut writer: Option<PartWriter> = None;
    let mut expected = 0u64;
    let mut schema = None;
    for source in &m.sources {
        let what = || format!("cannot read {}", source.display());
        let file = File::open(source).map_err(|e| run_error(what(), e))?;
        let builder =
            ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| run_error(what(), e))?;
        expected += builder.metadata().file_metadata().num_rows() as u64;
        let this = builder.schema().clone();
        match &schema {
            None => schema = Some(this.clone()),
            Some(first) if first.fields() != this.fields() => {
                return Err(RunError(format!(
                    "{} has another schema than {} (written by another version?): \
                     not merged",
                    source.display(),
                    m.sources[0].display()
                )));
            }
            Some(_) => {}
        }
        let reader = builder
            .with_batch_size(64 * 1024)
            .build()
            .map_err(|e| run_error(what(), e))?;
        let w = match &mut writer {
            Some(w) => w,
            None => writer.insert(
                PartWriter::create(m.table.name(), m.target.clone(), this)
                    .map_err(|e| run_error("cannot create a compacted file", e))?
                    .with_row_group_bytes(COMPACT_ROW_GROUP_BYTES),
            ),
        };
        for batch in reader {
            let batch = batch.map_err(|e| run_error(what(), e))?;
            w.write(&batch)
                .map_err(|e| run_error("cannot write a compacted file", e))?;
        }
    }
    let Some(writer) = writer else {
        return Ok(0);
    };
    let summary = writer
        .close()
        .map_err(|e| run_error("cannot finish a compacted file", e))?;
    if summary.rows != expected {
        return Err(RunError(format!(
            "{} rows written to {}, {expected} read: not swapped in",
            summary.rows,
            summary.path.display()
        )));
    }
    Ok(summary.rows)
}

/// Encoded bytes at which a compacted file's row group is closed: large
/// row groups suit readers; one writer's buffer at a time per thread.
pub const COMPACT_ROW_GROUP_BYTES: usize = 64 << 20;

/// Completes a table's staging directory with every file not merged, and
/// swaps it in for the table's directory.
fn swap_in(out: &Path, table: Table, merged: &HashSet<&PathBuf>) -> Result<(), RunError> {
    let dir = out.join(table.name());
    let staging = staging_dir(out, table);
    for entry in fs::read_dir(&dir).map_err(|e| run_error("cannot list a table directory", e))? {
        let entry = entry.map_err(|e| run_error("cannot list a table directory", e))?;
        let path = entry.path();
        if merged.contains(&path) {
            continue;
        }
        let to = staging.join(entry.file_name());
        if fs::hard_link(&path, &to).is_err() {
            fs::copy(&path, &to).map_err(|e| run_error("cannot copy a part file", e))?;
        }
    }
    sync_dir(&staging).map_err(|e| run_error("cannot sync the staging directory", e))?;
    exchange(&staging, &dir).map_err(|e| run_error("cannot swap in the compacted table", e))?;
    sync_dir(out).map_err(|e| run_error("cannot sync the output directory", e))?;
    // The staging path now holds the old files.
    fs::remove_dir_all(&staging).map_err(|e| run_error("cannot remove the merged files", e))
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
