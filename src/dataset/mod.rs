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

mod error;
pub mod lock;
pub mod manifest;

use std::fs::{self, File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use sha2::{Digest, Sha256};

pub use error::{At, Op, OutputError};
pub use manifest::{Counts, InputEntry, InputStatus, Manifest};

use crate::batch::{TableBuilder, schema_of};
use crate::classify::Table;
use crate::classify::agents::AgentList;
use crate::shard::Shard;
use crate::sink::ParquetSink;

/// The name of the schema-only part file every table directory holds. It
/// sorts after every part file (whose names are made of ASCII letters,
/// digits, `-`, `_` and `.`: [`part_stem`]): DuckDB 2.0 estimates a glob's
/// rows from the first file it lists, and an empty first file made it
/// plan every join of a data set as if its tables were empty.
pub const EMPTY_PART: &str = "~empty.parquet";

/// The schema-only file's name before it was [`EMPTY_PART`]: still read as
/// schema-only, and replaced by `compact` ([`Dataset::retire_legacy_empty`]).
pub const LEGACY_EMPTY_PART: &str = "_empty.parquet";

/// Whether `name` is a table's schema-only file, by either name.
pub fn is_schema_only(name: &str) -> bool {
    name == EMPTY_PART || name == LEGACY_EMPTY_PART
}

/// Whether `name` is a finished part file's: a Parquet file, neither
/// hidden (being written) nor the schema-only file.
pub fn is_finished_part(name: &str) -> bool {
    name.ends_with(".parquet") && !name.starts_with('.') && !is_schema_only(name)
}

/// The start of the name of the `agents` table's file, the data set's
/// crawler list: `list-<version>.parquet`.
pub const AGENTS_PREFIX: &str = "list-";

/// Refuses an output directory that an earlier version of robostats
/// made, whose tables differ from today's: rows of both would not make one
/// data set. Those with a dense `agent_verdicts` table (now a view), and
/// those with captures but no `verdict_counts` table (which the
/// `agent_verdict_counts` view sums): its directory is made with every
/// other table's, before any input is read, so a data set with a
/// `captures` part file and no `verdict_counts` directory is older.
fn refuse_older_format(dir: &Path) -> Result<(), OutputError> {
    if !manifest::dir(dir).is_dir() {
        return Ok(());
    }
    let older = |missing: &'static str| {
        Err(OutputError::OlderFormat {
            dir: dir.to_path_buf(),
            missing,
        })
    };
    if dir.join("agent_verdicts").is_dir() {
        return older("it has an agent_verdicts table, which is now a view over named_verdicts");
    }
    let table_dir = |t: Table| dir.join(t.name());
    let has_parts = fs::read_dir(table_dir(Table::Captures)).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| is_finished_part(&e.file_name().to_string_lossy()))
    });
    if has_parts && !table_dir(Table::VerdictCounts).exists() {
        return older(
            "it has no verdict_counts table, which the agent_verdict_counts view now sums",
        );
    }
    Ok(())
}

/// An output directory.
#[derive(Clone, Debug)]
pub struct Dataset {
    dir: PathBuf,
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
        })
    }

    /// Refuses planted links, then writes every table's schema-only file.
    fn init_tables(&self) -> Result<(), OutputError> {
        self.refuse_links()?;
        for &table in Table::ALL {
            self.write_empty_table(table)?;
        }
        Ok(())
    }

    /// An existing output directory of `ingest` (it has a manifest).
    pub fn open(dir: &Path) -> Result<Dataset, OutputError> {
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
        let dataset = Dataset {
            dir: dir.to_path_buf(),
        };
        dataset.refuse_links()?;
        Ok(dataset)
    }

    /// Refuses an output directory whose manifest directory, table
    /// directories or manifest files are symbolic links (or not directories
    /// and files): whatever robostats writes, deletes or appends to stays
    /// inside the output directory.
    fn refuse_links(&self) -> Result<(), OutputError> {
        let mut dirs = vec![manifest::dir(&self.dir)];
        dirs.extend(Table::ALL.iter().map(|&t| self.table_dir(t)));
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
        Manifest::open(&self.dir, name)
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
        let path = self.table_dir(table).join(name);
        if !path.exists() {
            let written = PartFile::create(table, path.clone(), schema).and_then(|mut part| {
                if let Some(batch) = batch {
                    part.write(batch)?;
                }
                part.finish().and_then(FinishedPart::publish)
            });
            if let Err(e) = written
                && !path.exists()
            {
                return Err(e);
            }
        }
        self.remove_in(table, |n| is_temp_of(n, name))
    }

    /// Deletes the files of a table's directory whose name `doomed` picks.
    fn remove_in(&self, table: Table, doomed: impl Fn(&str) -> bool) -> Result<(), OutputError> {
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
    pub fn remove_leftovers(&self, stem: &str) -> Result<(), OutputError> {
        for &table in Table::ALL.iter().filter(|t| t.per_input()) {
            self.remove_in(table, |name| {
                is_part_of(stem, name) || temp_of(name).is_some_and(|part| is_part_of(stem, part))
            })?;
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
        PartFile::create(table, self.table_dir(table).join(name), schema)
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
        if !dir.join(&name).exists() {
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

/// Up to three entries of `dir` that are not an output's, when it is not
/// one already (it has no manifest): none for a directory that does not
/// exist, is empty, or holds only what an interrupted first run left (table
/// directories with their schema-only file).
fn other_files(dir: &Path) -> Result<Vec<String>, OutputError> {
    if manifest::dir(dir).is_dir() {
        return Ok(Vec::new());
    }
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(OutputError::io(Op::ListDir, dir, e)),
    };
    let ours = |name: &str| Table::ALL.iter().any(|t| t.name() == name);
    let mut others: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry.at(Op::ListDir, dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && name == manifest::DIR_NAME {
            // Made by another shard since the check above.
            continue;
        }
        if !(is_dir && ours(&name)) {
            others.push(name);
            continue;
        }
        // A table's directory before the first manifest line holds only
        // its schema-only file, or the temporary file it is written to (by
        // a run killed then, or by another shard starting at this moment).
        for inner in fs::read_dir(entry.path()).at(Op::ListDir, entry.path())? {
            let inner = inner.at(Op::ListDir, entry.path())?.file_name();
            let inner = inner.to_string_lossy();
            let temporary = (inner.starts_with(&format!(".{EMPTY_PART}."))
                || inner.starts_with(&format!(".{AGENTS_PREFIX}")))
                && inner.ends_with(".tmp");
            let list = name == Table::Agents.name() && inner.starts_with(AGENTS_PREFIX);
            if !is_schema_only(&inner) && !list && !temporary {
                others.push(format!("{name}/{inner}"));
            }
        }
    }
    others.sort();
    others.truncate(3);
    Ok(others)
}

/// The first 4 bytes of the SHA-256 of `bytes`, in hex: a short name that
/// tells things apart.
pub fn short_hash(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    hash[..4].iter().map(|b| format!("{b:02x}")).collect()
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `name` is a part file's name of the input whose stem is `stem`
/// (see [`part_name`]): `<stem>[-shard-IIIII-of-NNNNN]-<lane>.parquet`,
/// exactly.
pub fn is_part_of(stem: &str, name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(stem)
        .and_then(|r| r.strip_prefix('-'))
        .and_then(|r| r.strip_suffix(".parquet"))
    else {
        return false;
    };
    let lane = match rest.strip_prefix("shard-") {
        Some(sharded) => {
            let mut fields = sharded.splitn(4, '-');
            let (Some(index), Some("of"), Some(count), Some(lane)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return false;
            };
            if !(is_digits(index) && is_digits(count)) {
                return false;
            }
            lane
        }
        None => rest,
    };
    is_digits(lane) && lane.len() >= 2
}

/// The final name whose temporary name `name` is (see [`temp_path`]):
/// `.<final name>.<pid>-<8 hex>.tmp`, exactly; `None` for any other name.
pub fn temp_of(name: &str) -> Option<&str> {
    let (final_name, token) = name
        .strip_prefix('.')?
        .strip_suffix(".tmp")?
        .rsplit_once('.')?;
    let (pid, hash) = token.split_once('-')?;
    (is_digits(pid) && hash.len() == 8 && is_lower_hex(hash)).then_some(final_name)
}

/// Whether `name` is a temporary name of the file `final_name`.
pub fn is_temp_of(name: &str, final_name: &str) -> bool {
    temp_of(name) == Some(final_name)
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

/// The part-file name stem of an input: its file name without WARC and
/// gzip extensions, and a hash of its whole name (two inputs with the same
/// file name in different directories must not clash). Every part file of
/// the input starts with it, whichever shard wrote it.
pub fn part_stem(input: &str) -> String {
    let base = input.rsplit(['/', '\\']).next().unwrap_or(input);
    let mut stem = base;
    for ext in [".gz", ".warc", ".arc"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}-{}", short_hash(input.as_bytes()))
}

/// A part file's name: the input's stem, the shard that wrote it, and the
/// worker lane: `<stem>-<hash>[-shard-00003-of-00100]-<lane>.parquet`.
pub fn part_name(stem: &str, shard: Option<Shard>, lane: usize) -> String {
    match shard {
        Some(shard) => format!("{stem}-{}-{lane:02}.parquet", shard.name()),
        None => format!("{stem}-{lane:02}.parquet"),
    }
}

/// The temporary name a part file is written under: hidden, and unique to
/// the process (shards writing into one directory all write the
/// schema-only `_empty.parquet`, maybe from several hosts sharing a file
/// system, where process IDs repeat).
pub fn temp_path(path: &Path) -> PathBuf {
    static TOKEN: OnceLock<String> = OnceLock::new();
    let token = TOKEN.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let pid = std::process::id();
        format!("{pid}-{}", short_hash(format!("{pid}-{nanos}").as_bytes()))
    });
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{token}.tmp"))
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

/// A part file being written under its temporary name. Dropped before it
/// is finished, it deletes its temporary file: a failure on any path
/// leaves nothing behind.
pub struct PartFile {
    table: Table,
    path: PathBuf,
    /// `None` once [`PartFile::finish`] has taken it.
    sink: Option<ParquetSink<BufWriter<File>>>,
    /// The file is a [`FinishedPart`]'s now.
    handed_over: bool,
}

impl PartFile {
    /// Creates the temporary file of the part file `path` (and its
    /// directory).
    pub fn create(table: Table, path: PathBuf, schema: SchemaRef) -> Result<PartFile, OutputError> {
        if let Some(dir) = path.parent() {
            create_dir_no_follow(dir)?;
        }
        let tmp = temp_path(&path);
        // A new file, never an existing one nor a link's target.
        let file = open_options_no_follow()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .at(Op::CreatePart, &tmp)?;
        let mut part = PartFile {
            table,
            path,
            sink: None,
            handed_over: false,
        };
        part.sink = Some(ParquetSink::new(BufWriter::new(file), schema).at(Op::CreatePart, &tmp)?);
        Ok(part)
    }

    /// Closes row groups at `bytes` of encoded data (see
    /// [`ParquetSink::with_row_group_bytes`]).
    pub fn with_row_group_bytes(mut self, bytes: usize) -> PartFile {
        self.sink = self.sink.take().map(|s| s.with_row_group_bytes(bytes));
        self
    }

    /// Appends a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), OutputError> {
        let sink = self.sink.as_mut().expect("not finished");
        sink.write(batch).at(Op::WritePart, temp_path(&self.path))
    }

    /// Writes the footer and syncs the file, still under its temporary
    /// name.
    pub fn finish(mut self) -> Result<FinishedPart, OutputError> {
        let tmp = temp_path(&self.path);
        let sink = self.sink.take().expect("not finished");
        let rows = sink.rows();
        // On failure `self` is dropped, and the temporary file with it.
        let file = sink.finish().at(Op::FinishPart, &tmp)?;
        file.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|file| file.sync_all())
            .at(Op::FinishPart, &tmp)?;
        self.handed_over = true;
        Ok(FinishedPart {
            table: self.table,
            path: std::mem::take(&mut self.path),
            rows,
            published: false,
        })
    }
}

impl Drop for PartFile {
    fn drop(&mut self) {
        if !self.handed_over {
            drop(self.sink.take());
            let _ = fs::remove_file(temp_path(&self.path));
        }
    }
}

/// A part file whose footer is written, still under its temporary name.
/// Dropped before it is published, it deletes its temporary file.
#[derive(Debug)]
pub struct FinishedPart {
    table: Table,
    path: PathBuf,
    rows: u64,
    published: bool,
}

impl FinishedPart {
    /// Gives the file its final name: readers see it from now on.
    pub fn publish(mut self) -> Result<PartSummary, OutputError> {
        fs::rename(temp_path(&self.path), &self.path).at(Op::PublishPart, &self.path)?;
        self.published = true;
        Ok(PartSummary {
            table: self.table,
            path: std::mem::take(&mut self.path),
            rows: self.rows,
        })
    }
}

impl Drop for FinishedPart {
    fn drop(&mut self) {
        if !self.published {
            let _ = fs::remove_file(temp_path(&self.path));
        }
    }
}

/// What a published part file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartSummary {
    /// Its table.
    pub table: Table,
    /// Its final path.
    pub path: PathBuf,
    /// Rows written.
    pub rows: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_up_matches_exact_names_only() {
        let stem = part_stem("n/a.warc.gz");
        assert!(is_part_of(&stem, &format!("{stem}-00.parquet")));
        assert!(is_part_of(&stem, &format!("{stem}-117.parquet")));
        assert!(is_part_of(
            &stem,
            &format!("{stem}-shard-00003-of-00100-01.parquet")
        ));
        // Another input's stem that starts with this one's.
        let other = part_stem(&format!("n/{stem}-x.warc.gz"));
        assert!(other.starts_with(&stem));
        assert!(!is_part_of(&stem, &format!("{other}-00.parquet")));
        for name in [
            format!("{stem}-0.parquet"),
            format!("{stem}-00.parquet.bak"),
            format!("{stem}-shard-1-of-2.parquet"),
            format!("{stem}-shard-x-of-00002-00.parquet"),
            format!("{stem}00.parquet"),
        ] {
            assert!(!is_part_of(&stem, &name), "{name}");
        }
        let part = format!("{stem}-00.parquet");
        assert!(is_temp_of(&format!(".{part}.123-0a1b2c3d.tmp"), &part));
        assert!(!is_temp_of(&format!(".{part}.123-0a1b2c3d.tmp.x"), &part));
        assert!(!is_temp_of(&format!(".{part}.x-0a1b2c3d.tmp"), &part));
        assert!(!is_temp_of(&format!("{part}.123-0a1b2c3d.tmp"), &part));
        let temp = temp_path(Path::new(&part));
        assert!(is_temp_of(&temp.to_string_lossy(), &part), "{temp:?}");
    }

    #[test]
    fn a_part_file_appears_only_when_published() {
        let dir = std::env::temp_dir().join(format!("robostats-dataset-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let dataset = Dataset::create(&dir, false).unwrap();
        for &table in Table::ALL {
            assert!(dataset.table_dir(table).join(EMPTY_PART).exists());
        }
        let schema = schema_of(Table::Errors.columns());
        let name = part_name(&part_stem("a/b.warc.gz"), None, 1);
        assert!(
            name.starts_with("b-") && name.ends_with("-01.parquet"),
            "{name}"
        );
        let part = dataset
            .create_part(Table::Errors, &name, schema.clone())
            .unwrap();
        let path = dataset.table_dir(Table::Errors).join(&name);
        assert!(temp_path(&path).exists() && !path.exists());
        let finished = part.finish().unwrap();
        assert!(!path.exists());
        let summary = finished.publish().unwrap();
        assert!(path.exists() && !temp_path(&path).exists());
        assert_eq!(summary.rows, 0);

        // Dropped before it is finished, or finished and not published: no
        // file is left.
        let other = part_name(&part_stem("a/b.warc.gz"), None, 2);
        let other_path = dataset.table_dir(Table::Errors).join(&other);
        drop(
            dataset
                .create_part(Table::Errors, &other, schema.clone())
                .unwrap(),
        );
        assert!(!temp_path(&other_path).exists());
        let finished = dataset
            .create_part(Table::Errors, &other, schema)
            .unwrap()
            .finish();
        assert!(temp_path(&other_path).exists());
        drop(finished);
        assert!(!temp_path(&other_path).exists() && !other_path.exists());
        dataset.remove_leftovers(&part_stem("a/b.warc.gz")).unwrap();
        assert!(!path.exists());
        assert!(dataset.table_dir(Table::Errors).join(EMPTY_PART).exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
