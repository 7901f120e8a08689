//! The manifest: which inputs are finished, with their counts and part
//! files, so that a re-run skips them and every number of a run can be
//! checked.
//!
//! One JSON object a line, appended and synced as each input finishes
//! (`_manifest/<name>.jsonl` under the output directory; the leading `_`
//! keeps the directory out of DuckDB globs and pyarrow datasets). Appending
//! survives a kill at any moment: a torn last line is ignored when read.
//! The lines are a [`Line`]: `run` (tool version, agent-list version,
//! shard, options), `input` (an input's status, counts and part files),
//! `end` (the run's summary), and in `compact.jsonl`, `compact` (which part
//! files were merged into which).

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::{At, Op, OutputError};

pub use super::names::DIR_NAME;

/// The manifest directory under an output directory.
pub fn dir(out: &Path) -> PathBuf {
    out.join(DIR_NAME)
}

mod body_lines;
mod lines;

pub use lines::*;

/// What the manifests say of one input.
#[derive(Clone, Debug, PartialEq)]
pub struct InputEntry {
    /// Its line: the `done` one if there is one, else the last.
    pub line: InputLine,
    /// The options of the run that wrote the line (`None` if its run line
    /// is missing).
    pub options: Option<RunOptions>,
}

/// Every input line of every manifest file under `out`, by the input's
/// identity (by its name in lines without one): an input's latest line
/// (by `ended_ms`); among lines written before times were recorded, its
/// `done` line if it has one, else its last line.
pub fn read_inputs(out: &Path) -> Result<HashMap<String, InputEntry>, OutputError> {
    let mut entries: HashMap<String, InputEntry> = HashMap::new();
    for_each_line(out, |line, options| {
        let Line::Input(input) = line else {
            return;
        };
        let key = input.id.clone().unwrap_or_else(|| input.input.clone());
        if let Some(earlier) = entries.get(&key) {
            let newer = match (earlier.line.ended_ms, input.ended_ms) {
                (Some(then), Some(now)) => now >= then,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                // Done is final among lines of before: a `failed` line in
                // another manifest file (another shard, an earlier run) is
                // older than it.
                (None, None) => {
                    input.status == InputStatus::Done || earlier.line.status != InputStatus::Done
                }
            };
            if !newer {
                return;
            }
        }
        entries.insert(
            key,
            InputEntry {
                line: input,
                options: options.cloned(),
            },
        );
    })?;
    Ok(entries)
}

/// Whether an input of the data set under `out` was done by a run that
/// stored bodies another way than this version ([`BODY_STORE`]): keyed by
/// XXH3-128 digests, with no record of their files.
pub fn older_body_store(out: &Path) -> Result<bool, OutputError> {
    let mut older = false;
    for_each_line(out, |line, options| {
        if let Line::Input(input) = line
            && input.status == InputStatus::Done
            && options.is_none_or(|o| o.body_store.as_deref() != Some(BODY_STORE))
        {
            older = true;
        }
    })?;
    Ok(older)
}

/// Where compactions moved part files: each merged file (relative to the
/// output directory) to the compacted file it was merged into. A
/// compaction records its merges before it swaps a table's files in
/// (`compact`), so a merge counts only where its compacted file is there,
/// or was itself merged on: a compaction killed before its swap moved
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct Merges {
    next: HashMap<PathBuf, Vec<PathBuf>>,
}

impl Merges {
    /// The merges every compaction of the data set under `out` recorded.
    pub fn read(out: &Path) -> Result<Merges, OutputError> {
        let mut merges = Merges::default();
        for_each_line(out, |line, _| {
            if let Line::Compact(compact) = line {
                for merged in compact.merged {
                    for from in merged.from {
                        merges.add(from, merged.path.clone());
                    }
                }
            }
        })?;
        Ok(merges)
    }

    /// Records that `from` was merged into `into`.
    pub fn add(&mut self, from: PathBuf, into: PathBuf) {
        if from != into {
            self.next.entry(from).or_default().push(into);
        }
    }

    /// Whether any compaction recorded `path` as merged into another file.
    pub fn is_merged(&self, path: &Path) -> bool {
        self.next.contains_key(path)
    }

    /// Where the part file `path` (relative to the output directory) is
    /// now: itself if it `exists`, else the compacted file it was merged
    /// into, following later compactions; `None` if it is gone.
    pub fn locate(&self, path: &Path, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
        self.locate_within(path, exists, 0)
    }

    fn locate_within(
        &self,
        path: &Path,
        exists: &dyn Fn(&Path) -> bool,
        depth: usize,
    ) -> Option<PathBuf> {
        if exists(path) {
            return Some(path.to_path_buf());
        }
        // Each compaction merges a file once, into a file of a new name:
        // chains are as long as the compactions, and never loop.
        if depth > 1_000 {
            return None;
        }
        self.next
            .get(path)?
            .iter()
            .find_map(|next| self.locate_within(next, exists, depth + 1))
    }
}

/// Calls `each` with every line of every manifest file under `out` (in the
/// files' name order), and the options of the run line before it. A torn
/// last line (a kill mid-write) does not parse, and is skipped. A manifest
/// file that is a symbolic link is refused.
pub(crate) fn for_each_line(
    out: &Path,
    mut each: impl FnMut(Line, Option<&RunOptions>),
) -> Result<(), OutputError> {
    let dir = dir(out);
    if let Ok(meta) = fs::symlink_metadata(&dir)
        && !meta.is_dir()
    {
        return Err(OutputError::Linked { path: dir });
    }
    let Ok(read) = fs::read_dir(&dir) else {
        return Ok(());
    };
    let mut files = Vec::new();
    for entry in read {
        let entry = entry.at(Op::ListDir, &dir)?;
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "jsonl") {
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                return Err(OutputError::Linked { path });
            }
            files.push(path);
        }
    }
    files.sort();
    for path in files {
        let mut options = None;
        let file = super::open_regular(&path).at(Op::ReadManifest, &path)?;
        for line in BufReader::new(file).lines() {
            let line = line.at(Op::ReadManifest, &path)?;
            match serde_json::from_str::<Line>(&line) {
                Ok(Line::Run(run)) => {
                    options = Some(run.options.clone());
                    each(Line::Run(run), options.as_ref());
                }
                Ok(line) => each(line, options.as_ref()),
                Err(_) => {}
            }
        }
    }
    Ok(())
}

/// A manifest file being appended to.
pub struct Manifest {
    path: PathBuf,
    file: File,
    /// The data set on S3 its lines are appended to as well.
    s3: Option<std::sync::Arc<crate::output::dataset::s3::S3Files>>,
}

impl Manifest {
    /// Opens (appending) `_manifest/<name>.jsonl` under `out`. A last
    /// line torn by a kill is ended first, so that it stays one bad line
    /// and the next line is whole.
    pub fn open(out: &Path, name: &str) -> Result<Manifest, OutputError> {
        let dir = dir(out);
        super::create_dir_no_follow(&dir)?;
        let path = dir.join(format!("{name}.jsonl"));
        let mut file = super::open_options_no_follow()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .at(Op::WriteManifest, &path)?;
        let torn = (|| -> std::io::Result<bool> {
            if file.metadata()?.len() == 0 {
                return Ok(false);
            }
            let mut last = [0u8];
            file.seek(SeekFrom::End(-1))?;
            file.read_exact(&mut last)?;
            Ok(last[0] != b'\n')
        })()
        .at(Op::ReadManifest, &path)?;
        if torn {
            file.write_all(b"\n").at(Op::WriteManifest, &path)?;
        }
        Ok(Manifest {
            path,
            file,
            s3: None,
        })
    }

    /// Appends to the manifest of the data set on S3 `s3` as well
    /// (after the local file: the run's own reading is local).
    pub fn appended_to(
        mut self,
        s3: Option<std::sync::Arc<crate::output::dataset::s3::S3Files>>,
    ) -> Manifest {
        self.s3 = s3;
        self
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line and syncs it to disk.
    pub fn append(&mut self, line: &Line) -> Result<(), OutputError> {
        self.append_all(std::slice::from_ref(line))
    }

    /// Appends lines in one write, and syncs them to disk.
    pub fn append_all(&mut self, lines: &[Line]) -> Result<(), OutputError> {
        let mut text = String::new();
        for line in lines {
            text.push_str(&serde_json::to_string(line).expect("manifest lines serialize"));
            text.push('\n');
        }
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data())
            .at(Op::WriteManifest, &self.path)?;
        if let Some(s3) = &self.s3 {
            s3.append(text.as_bytes())?;
        }
        crate::output::kill_point::passed(crate::output::kill_point::Step::Line);
        Ok(())
    }
}

/// Milliseconds since the Unix epoch.
pub fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
