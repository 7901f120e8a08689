//! The output directory: one directory of Parquet part files per table,
//! and the manifest. This module names, creates, renames and deletes the
//! part files and the manifest (`compact` adds its own staging
//! directories, through the same part files).
//!
//! ```text
//! OUT/_manifest/run.jsonl                  which inputs are done (the manifest; a shard
//!                                          writes shard-00003-of-00100.jsonl, compact compact.jsonl)
//! OUT/<table>/~empty.parquet               schema only: an empty table reads as empty
//! OUT/<table>/.<part>.parquet.<token>.tmp  a part file being written
//! OUT/<table>/<stem>-<hash>[-shard-..]-<lane>.parquet   a finished part file
//! ```
//!
//! A reader must never take a half-written file for a finished one:
//! Parquet writes its footer only when the writer is finished, so a part
//! file is written under a hidden temporary name (which neither
//! `*.parquet` globs nor pyarrow's dataset discovery pick up), finished and
//! synced, and only then renamed to its final name ([`PartFile`],
//! [`FinishedPart`]). The part files of an input are named after it
//! ([`part_stem`]), so that a re-run can delete whatever an interrupted
//! input left ([`Dataset::remove_leftovers`]) before doing it again.

pub mod bodies;
mod checks;
mod error;
mod files;
mod generation;
#[cfg(test)]
pub(crate) use generation::check_generation_protocol;
pub mod lock;
pub mod manifest;
mod names;
mod part;
pub mod s3;

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use checks::{other_files, refuse_older_format, refuse_url};

pub(crate) use checks::refuse_older_rules_in;
pub use checks::url_scheme;
pub use error::{At, Op, OutputError};
pub use files::{S3Out, S3Read, file_secret};
pub use manifest::{Counts, InputEntry, InputStatus, Manifest};
use names::is_lower_hex;
pub use names::{
    COMPACTED_PREFIX, CRAWL_TABLES, EMPTY_PART, LEGACY_EMPTY_PART, body_part_name, body_part_shard,
    compaction_of, in_table, is_body_part_of, is_finished_part, is_part_of, is_schema_only,
    is_table_file, is_temp_of, part_name, part_stem, short_hash, table_dirs, temp_of, temp_path,
};
pub use part::{FinishedPart, PartFile, PartSummary};

use crate::classify::Table;
use crate::classify::agents::AgentList;
use crate::output::batch::{TableBuilder, schema_of};

/// The start of the name of the `agents` table's file, the data set's
/// crawler list: `list-<version>.parquet`.
pub const AGENTS_PREFIX: &str = "list-";

/// An output directory.
#[derive(Clone, Debug)]
pub struct Dataset {
    dir: PathBuf,
    /// Where the data set is, when it is on S3 (`dir` is then the local
    /// staging directory its files are written in before they are
    /// uploaded): see [`s3`].
    s3: Option<std::sync::Arc<s3::S3Files>>,
    /// The private staging directory (`dir`) of a run on S3, removed when
    /// the last clone of the data set is dropped.
    _stage: Option<std::sync::Arc<crate::output::scratch::Scratch>>,
}

impl Dataset {
    /// Makes `dir` an output directory for `ingest`: creates it and every
    /// table's directory with its schema-only part file, so that a table
    /// no input has rows for still reads as an empty table (a glob that
    /// matches no file is an error in DuckDB).
    ///
    /// A directory that holds other files than an output's is refused
    /// (tables written beside foreign files, or foreign files in a table's
    /// directory, would break every query), unless `allow_other_files`.
    ///
    /// No lock is taken: an ingest calls [`Dataset::create_locked`].
    pub fn create(dir: &Path, allow_other_files: bool) -> Result<Dataset, OutputError> {
        let dataset = Dataset::prepare(dir, allow_other_files)?;
        dataset.init_tables()?;
        Ok(dataset)
    }

    /// [`Dataset::create`] for an ingest writing the manifest `name`: the
    /// directory is checked and made, the run's locks taken (see
    /// [`lock`]), and only then is anything written into it.
    pub fn create_locked(
        dir: &Path,
        allow_other_files: bool,
        name: &str,
    ) -> Result<(Dataset, lock::Held), OutputError> {
        let dataset = Dataset::prepare(dir, allow_other_files)?;
        let held = dataset.lock_ingest(name)?;
        dataset.init_tables()?;
        Ok((dataset, held))
    }

    /// Checks `dir` (not an older format, no foreign files) and creates it;
    /// writes nothing into it.
    fn prepare(dir: &Path, allow_other_files: bool) -> Result<Dataset, OutputError> {
        refuse_url(dir)?;
        refuse_older_format(dir)?;
        if !allow_other_files {
            let others = other_files(dir)?;
            if !others.is_empty() {
                return Err(OutputError::OtherFiles {
                    dir: dir.to_path_buf(),
                    examples: others,
                });
            }
        }
        fs::create_dir_all(dir).at(Op::CreateDir, dir)?;
        Ok(Dataset {
            dir: dir.to_path_buf(),
            s3: None,
            _stage: None,
        })
    }

    /// Refuses planted links, puts back a table a killed compaction left
    /// aside, then writes every table's schema-only file.
    fn init_tables(&self) -> Result<(), OutputError> {
        self.refuse_links()?;
        self.recover_swap()?;
        for &table in Table::ALL {
            self.write_empty_table(table)?;
        }
        Ok(())
    }

    /// An existing output directory of `ingest`, to write into (compact):
    /// the checks of [`Dataset::open_read`] but the tables' directories,
    /// and none of its directories or manifest files is a link.
    pub fn open(dir: &Path) -> Result<Dataset, OutputError> {
        let dataset = Dataset::existing(dir)?;
        dataset.refuse_links()?;
        Ok(dataset)
    }

    /// An existing output directory of `ingest`, to read its tables
    /// (`robostats report`, the Python package's `connect`): it has a
    /// manifest, is not of an earlier format, and has every table's
    /// directory (the views read them all). Only reads: creates, locks and
    /// repairs nothing, so it works in a directory the user cannot write
    /// and beside a running ingest or compaction. Links are followed: a
    /// reader reads where the user pointed.
    pub fn open_read(dir: &Path) -> Result<Dataset, OutputError> {
        let dataset = Dataset::existing(dir)?;
        for &table in Table::ALL {
            if !dataset.table_dir(table).is_dir() {
                return Err(OutputError::NoTable {
                    dir: dir.to_path_buf(),
                    table: table.name(),
                });
            }
        }
        Ok(dataset)
    }

    /// The checks of every opening of an existing output directory: it
    /// exists, has a manifest and is not of an earlier format.
    fn existing(dir: &Path) -> Result<Dataset, OutputError> {
        refuse_url(dir)?;
        if !dir.exists() {
            return Err(OutputError::Missing {
                dir: dir.to_path_buf(),
            });
        }
        if !manifest::dir(dir).is_dir() {
            return Err(OutputError::NotADataset {
                dir: dir.to_path_buf(),
            });
        }
        refuse_older_format(dir)?;
        Ok(Dataset {
            dir: dir.to_path_buf(),
            s3: None,
            _stage: None,
        })
    }

    /// Refuses an output directory whose manifest directory, table
    /// directories or manifest files are symbolic links (or not directories
    /// and files): whatever robostats writes, deletes or appends to stays
    /// inside the output directory.
    fn refuse_links(&self) -> Result<(), OutputError> {
        let mut dirs = vec![manifest::dir(&self.dir)];
        dirs.extend(table_dirs().map(|name| self.dir.join(name)));
        for dir in &dirs {
            if let Ok(meta) = fs::symlink_metadata(dir)
                && !meta.is_dir()
            {
                return Err(OutputError::Linked { path: dir.clone() });
            }
        }
        if let Ok(entries) = fs::read_dir(manifest::dir(&self.dir)) {
            for entry in entries {
                let entry = entry.at(Op::ListDir, manifest::dir(&self.dir))?;
                if !entry.file_type().is_ok_and(|t| t.is_file()) {
                    return Err(OutputError::Linked { path: entry.path() });
                }
            }
        }
        Ok(())
    }

    /// Takes the locks an ingest writing the manifest `name` needs (see
    /// [`lock`]), for as long as the value lives.
    pub fn lock_ingest(&self, name: &str) -> Result<lock::Held, OutputError> {
        lock::acquire(&self.dir, lock::Holder::Ingest(name))
    }

    /// Takes the data set's lock for a compaction: no ingest runs beside
    /// it.
    pub fn lock_compact(&self) -> Result<lock::Held, OutputError> {
        lock::acquire(&self.dir, lock::Holder::Compact)
    }

    /// The hidden directory `compact` prepares a table's new files in.
    pub fn staging_dir(&self, table: Table) -> PathBuf {
        self.staging_of(table.name())
    }

    /// The hidden directory `compact` prepares the new files of the
    /// directory `name` in (a table's, or a crawl table's).
    pub fn staging_of(&self, name: &str) -> PathBuf {
        staging_of(&self.dir, name)
    }

    /// Undoes what a compaction killed during a swap without an atomic
    /// exchange (NFS) left: a table directory renamed aside and not
    /// replaced is put back. Its merges never happened (the files they
    /// name are not there). Never deletes anything.
    pub fn recover_swap(&self) -> Result<(), OutputError> {
        for name in table_dirs() {
            let dir = self.dir.join(name);
            let aside = aside_dir(&self.staging_of(name));
            let aside_is_dir = fs::symlink_metadata(&aside).is_ok_and(|m| m.is_dir());
            if aside_is_dir && fs::symlink_metadata(&dir).is_err() {
                match fs::rename(&aside, &dir) {
                    // Another process put it back first.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    other => other.at(Op::SwapDir, &dir)?,
                }
                sync_dir(&self.dir)?;
            }
        }
        Ok(())
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A table's directory.
    pub fn table_dir(&self, table: Table) -> PathBuf {
        self.dir.join(table.name())
    }

    /// `path` relative to the output directory, as the manifest records it.
    pub fn relative(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.dir).unwrap_or(path).to_path_buf()
    }

    /// What the manifests say of every input.
    pub fn read_inputs(
        &self,
    ) -> Result<std::collections::HashMap<String, InputEntry>, OutputError> {
        manifest::read_inputs(&self.dir)
    }

    /// Opens (appending) the manifest file `_manifest/<name>.jsonl`.
    pub fn manifest(&self, name: &str) -> Result<Manifest, OutputError> {
        Ok(Manifest::open(&self.dir, name)?.appended_to(self.s3.clone()))
    }

    fn write_empty_table(&self, table: Table) -> Result<(), OutputError> {
        self.write_once(table, EMPTY_PART, schema_of(table.columns()), None)
    }

    /// Replaces the schema-only file of a data set written before it was
    /// named [`EMPTY_PART`] (`_empty.parquet`, which DuckDB lists first).
    /// Only under `compact`'s exclusive lock: a reader listing the files
    /// in the meantime would miss it.
    pub fn retire_legacy_empty(&self) -> Result<(), OutputError> {
        for &table in Table::ALL {
            let legacy = self.table_dir(table).join(LEGACY_EMPTY_PART);
            match fs::symlink_metadata(&legacy) {
                Ok(meta) if meta.is_file() => {
                    self.write_empty_table(table)?;
                    fs::remove_file(&legacy).at(Op::RemoveLeftover, &legacy)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Writes the file `name` of `table`, with `batch`'s rows (or none),
    /// unless it is there already. Shards starting together all write it,
    /// with the same bytes, and one rename wins; the temporary files of
    /// runs killed while writing it (or of a shard writing it now, which
    /// then finds the final file) are removed.
    fn write_once(
        &self,
        table: Table,
        name: &str,
        schema: SchemaRef,
        batch: Option<&RecordBatch>,
    ) -> Result<(), OutputError> {
        if !self.has_file(table, name) {
            let written = self.create_part(table, name, schema).and_then(|mut part| {
                if let Some(batch) = batch {
                    part.write(batch)?;
                }
                part.finish().and_then(FinishedPart::publish)
            });
            if let Err(e) = written
                && !self.has_file(table, name)
            {
                return Err(e);
            }
        }
        self.remove_in(table, |n| is_temp_of(n, name))
    }

    /// Deletes the files of a table's directory whose name `doomed` picks.
    fn remove_in(&self, table: Table, doomed: impl Fn(&str) -> bool) -> Result<(), OutputError> {
        if let Some(s3) = &self.s3 {
            for name in s3.names_in(table.name()) {
                if doomed(&name) {
                    s3.remove(&format!("{}/{name}", table.name()))?;
                }
            }
        }
        let dir = self.table_dir(table);
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(());
        };
        for entry in entries {
            let entry = entry.at(Op::ListDir, &dir)?;
            // Only regular files: never a link, never what it points to.
            let regular = entry.file_type().is_ok_and(|t| t.is_file());
            let name = entry.file_name();
            if regular && name.to_str().is_some_and(&doomed) {
                let path = entry.path();
                match fs::remove_file(&path) {
                    // Another process (a shard's run) removed it first.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    other => other.at(Op::RemoveLeftover, &path)?,
                }
            }
        }
        Ok(())
    }

    /// Deletes the part files, finished or not, that an unfinished input
    /// left (whichever shard wrote them).
    ///
    /// Only the names robostats gives an input's part files are matched,
    /// exactly ([`is_part_of`], and their temporary names): another input
    /// whose stem starts with this one's keeps its files.
    ///
    /// The finished part files of the tables stored once per body stay:
    /// other inputs' captures may lead to their bodies. Only their
    /// temporary files go.
    pub fn remove_leftovers(&self, stem: &str) -> Result<(), OutputError> {
        for &table in Table::ALL.iter().filter(|t| t.per_input()) {
            self.remove_in(table, |name| {
                is_part_of(stem, name) || temp_of(name).is_some_and(|part| is_part_of(stem, part))
            })?;
        }
        for &table in Table::ALL.iter().filter(|t| t.per_body()) {
            self.remove_in(table, |name| {
                temp_of(name).is_some_and(|part| is_body_part_of(stem, part))
            })?;
        }
        Ok(())
    }

    /// Deletes the temporary files an attempt at an input left (killed
    /// while it wrote them), and no finished part file: for an input read
    /// again for its bodies only, whose own part files stay.
    pub fn remove_temporaries(&self, stem: &str) -> Result<(), OutputError> {
        for &table in Table::ALL.iter().filter(|t| **t != Table::Agents) {
            self.remove_in(table, |name| {
                temp_of(name)
                    .is_some_and(|part| is_part_of(stem, part) || is_body_part_of(stem, part))
            })?;
        }
        Ok(())
    }

    /// Deletes every part file under a temporary name (robostats' own
    /// names only, regular files only): for `compact`, which holds the data
    /// set's lock exclusively, where locks are honoured, so that every such
    /// file is one a killed ingest left (a live one holds the lock shared).
    pub fn remove_temporaries_of_dead_runs(&self) -> Result<(), OutputError> {
        for &table in Table::ALL {
            self.remove_in(table, |name| temp_of(name).is_some())?;
        }
        Ok(())
    }

    /// Starts the part file `name` of `table` (under its temporary name).
    pub fn create_part(
        &self,
        table: Table,
        name: &str,
        schema: SchemaRef,
    ) -> Result<PartFile, OutputError> {
        let part = PartFile::create(table, self.table_dir(table).join(name), schema)?;
        Ok(match &self.s3 {
            Some(s3) => part.uploaded_to(s3, format!("{}/{name}", table.name())),
            None => part,
        })
    }

    /// Writes the `agents` table: the crawlers of interest this data set is
    /// judged for (`agents/list-<version>.parquet`), after the run's
    /// manifest line, unless it is there already (a re-run writes
    /// nothing). A data set is made with one list: a run with another is
    /// refused once an input is done, and until then the new list replaces
    /// the old one, whose file is deleted. Shards starting together write
    /// the same bytes, and one rename wins.
    pub fn write_agents(&self, agents: &AgentList) -> Result<(), OutputError> {
        let dir = self.table_dir(Table::Agents);
        let digest = agents.version.trim_start_matches("sha256:");
        let name = format!("{AGENTS_PREFIX}{}.parquet", &digest[..digest.len().min(16)]);
        if !self.has_file(Table::Agents, &name) {
            let mut builder = TableBuilder::new(Table::Agents);
            for row in agents.rows() {
                builder.push(&row);
            }
            let schema = builder.schema();
            self.write_once(Table::Agents, &name, schema, Some(&builder.finish()))?;
        }
        // Another list's file (of runs that finished no input), and the
        // temporary files of runs killed while writing one.
        let is_list = |n: &str| {
            n.strip_prefix(AGENTS_PREFIX)
                .and_then(|n| n.strip_suffix(".parquet"))
                .is_some_and(|hex| hex.len() == 16 && is_lower_hex(hex))
        };
        self.remove_in(Table::Agents, |n| {
            (is_list(n) && n != name) || temp_of(n).is_some_and(is_list)
        })?;
        sync_dir(&dir)
    }

    /// Makes the renames in every table directory durable.
    pub fn sync_tables(&self) -> Result<(), OutputError> {
        for &table in Table::ALL {
            sync_dir(&self.table_dir(table))?;
        }
        Ok(())
    }
}

/// Options that open a file without following a symbolic link at its
/// last component (`O_NOFOLLOW`): a link planted in the output directory
/// makes the open fail instead of writing where it points.
pub(crate) fn open_options_no_follow() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options
}

/// [`Dataset::staging_of`], for the data set in `dir`.
pub(crate) fn staging_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".compact-{name}"))
}

/// Where a swap without an atomic exchange puts a table's old directory
/// for a moment: beside its staging directory `staging`.
pub(crate) fn aside_dir(staging: &Path) -> PathBuf {
    let mut name = staging.file_name().unwrap_or_default().to_os_string();
    name.push(".old");
    staging.with_file_name(name)
}

/// Opens `path` for reading only if it is a regular file: never through a
/// symbolic link (`O_NOFOLLOW`), and never waiting on a FIFO (opened
/// without blocking, then checked): files planted in the output directory
/// are neither followed nor read.
pub(crate) fn open_regular(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (robostats writes only regular files here): remove it",
        ));
    }
    Ok(file)
}

/// Creates `dir` (and its parents) and checks that it is a directory, not
/// a link to one.
pub(crate) fn create_dir_no_follow(dir: &Path) -> Result<(), OutputError> {
    fs::create_dir_all(dir).at(Op::CreateDir, dir)?;
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(OutputError::Linked {
            path: dir.to_path_buf(),
        }),
        Err(e) => Err(OutputError::io(Op::CreateDir, dir, e)),
    }
}

/// Makes the renames in a directory durable (a no-op where directories
/// cannot be opened as files).
pub fn sync_dir(dir: &Path) -> Result<(), OutputError> {
    if cfg!(unix) && dir.exists() {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .at(Op::SyncDir, dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
