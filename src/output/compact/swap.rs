//! A table's swap: its new set of files staged beside it, its merges
//! logged, the directories exchanged, the old files deleted; and what a
//! killed or failing swap leaves, undone or tidied by the next run.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{Merge, Moved, TableReport, staging_dir};
use crate::classify::Table;
use crate::output::dataset::manifest::{CompactLine, Line, Manifest, Merged};
use crate::output::dataset::{At, Dataset, Op, OutputError, open_regular, short_hash, sync_dir};
use crate::output::kill_point::{self, Step};

/// [`Dataset::recover_swap`], then the staging directories of killed
/// compactions deleted (a deletion that fails is a warning).
pub(super) fn recover(dataset: &Dataset, warnings: &mut Vec<String>) -> Result<(), OutputError> {
    dataset.recover_swap()?;
    remove_staging(dataset, warnings)
}

/// Deletes the staging directories of compactions that were killed, and
/// the old files of compactions that could not delete them. One that will
/// not go (files held open on NFS) is renamed out of the way, and a
/// warning says so: this compaction needs the staging names.
pub(super) fn remove_staging(
    dataset: &Dataset,
    warnings: &mut Vec<String>,
) -> Result<(), OutputError> {
    let dir = dataset.dir();
    for entry in fs::read_dir(dir).at(Op::ListDir, dir)? {
        let entry = entry.at(Op::ListDir, dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(".compact-") {
            continue;
        }
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let removed = if is_dir {
            fs::remove_dir_all(&path)
        } else {
            // Not ours to delete: a link or a file planted here.
            continue;
        };
        match removed {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                warnings.push(format!(
                    "could not delete {} ({e}): the next compact tries again",
                    path.display()
                ));
                if !name.starts_with(".compact-trash-") {
                    let trash = dir.join(format!(
                        ".compact-trash-{}",
                        short_hash(format!("{name}-{:?}", Instant::now()).as_bytes())
                    ));
                    fs::rename(&path, &trash).at(Op::RemoveDir, &path)?;
                }
            }
        }
    }
    Ok(())
}

/// Swaps in every table that has merges, each logged in the manifest
/// first.
pub(super) struct Swap<'a> {
    pub(super) dataset: &'a Dataset,
    pub(super) log: &'a mut Manifest,
    pub(super) started: Instant,
    pub(super) warnings: &'a mut Vec<String>,
}

impl Swap<'_> {
    pub(super) fn all(
        &mut self,
        merges: &[Merge],
        moved: &[Moved],
        reports: &mut [TableReport],
    ) -> Result<(), OutputError> {
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
            let merged: HashSet<&PathBuf> =
                table_merges.iter().flat_map(|(m, _)| &m.sources).collect();
            self.table(table, &table_merges, &merged)?;
        }
        Ok(())
    }

    /// One table: its staging directory completed, its merges logged (and
    /// synced), the directories swapped, the old files deleted.
    fn table(
        &mut self,
        table: Table,
        merges: &[(&Merge, Moved)],
        merged: &HashSet<&PathBuf>,
    ) -> Result<(), OutputError> {
        let dataset = self.dataset;
        let table_dir = dataset.table_dir(table);
        let staging = stage(dataset, table, merged)?;
        self.log.append(&Line::Compact(CompactLine {
            table: table.name().to_owned(),
            merged: merges
                .iter()
                .map(|(m, moved)| Merged {
                    path: dataset
                        .relative(&table_dir.join(m.target.file_name().unwrap_or_default())),
                    rows: moved.rows,
                    from: m.sources.iter().map(|p| dataset.relative(p)).collect(),
                })
                .collect(),
            unix: crate::output::dataset::manifest::unix_now(),
            seconds: self.started.elapsed().as_secs_f64(),
        }))?;
        exchange(&staging, &table_dir).at(Op::SwapDir, &table_dir)?;
        sync_dir(dataset.dir())?;
        kill_point::passed(Step::Commit);
        // The staging path now holds the old files: their rows are in the
        // new ones. Should they not go now, the next compaction deletes
        // them.
        let removed = fs::remove_dir_all(&staging);
        if removed.is_ok() {
            kill_point::passed(Step::Delete);
        }
        if let Err(e) = removed {
            self.warnings.push(format!(
                "could not delete the old files of {} in {} ({e}): the rows are compacted;                  the next compact deletes them",
                table.name(),
                staging.display()
            ));
        }
        Ok(())
    }
}

/// Completes a table's staging directory with every file not merged (by
/// hard link; a regular file is copied where links cannot be made), and
/// makes it durable.
fn stage(
    dataset: &Dataset,
    table: Table,
    merged: &HashSet<&PathBuf>,
) -> Result<PathBuf, OutputError> {
    let dir = dataset.table_dir(table);
    let staging = staging_dir(dataset, table);
    for entry in fs::read_dir(&dir).at(Op::ListDir, &dir)? {
        let entry = entry.at(Op::ListDir, &dir)?;
        let path = entry.path();
        if merged.contains(&path) {
            continue;
        }
        let to = staging.join(path.file_name().unwrap_or_default());
        if let Err(e) = fs::hard_link(&path, &to) {
            // Never a copy of what is not a regular file: a link would be
            // followed, a FIFO would block.
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                return Err(OutputError::io(Op::StageFile, &path, e));
            }
            let mut from = open_regular(&path).at(Op::StageFile, &path)?;
            let mut into = File::create_new(&to).at(Op::StageFile, &to)?;
            io::copy(&mut from, &mut into)
                .and_then(|_| into.sync_all())
                .at(Op::StageFile, &path)?;
        }
    }
    sync_dir(&staging)?;
    Ok(staging)
}

/// Swaps two directories in one step.
#[cfg(target_os = "linux")]
pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
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
pub(super) fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    exchange_in_two_steps(a, b)
}

/// Without an atomic exchange: `b` is moved aside, then `a` takes its
/// place (for a moment `b` is missing), then the old `b` goes to `a`.
fn exchange_in_two_steps(a: &Path, b: &Path) -> io::Result<()> {
    let aside = crate::output::dataset::aside_dir(a);
    fs::rename(b, &aside)?;
    fs::rename(a, b)?;
    fs::rename(&aside, a)
}
