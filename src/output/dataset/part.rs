//! A part file: written under a hidden temporary name, finished and
//! synced, and only then renamed to its final name, so a reader never
//! takes a half-written file for a finished one.

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use super::{At, Op, OutputError, create_dir_no_follow, open_options_no_follow, temp_path};
use crate::classify::Table;
use crate::output::dataset::s3::S3Files;
use crate::output::sink::ParquetSink;

/// Where a part file of a data set on S3 goes once published: the data
/// set, and the file's key.
type Upload = Option<(Arc<S3Files>, String)>;

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
    upload: Upload,
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
            upload: None,
        };
        part.sink = Some(ParquetSink::new(BufWriter::new(file), schema).at(Op::CreatePart, &tmp)?);
        Ok(part)
    }

    /// Publishing the finished file uploads it to `s3` as `key` (and
    /// deletes the local file).
    pub fn uploaded_to(mut self, s3: &Arc<S3Files>, key: String) -> PartFile {
        self.upload = Some((Arc::clone(s3), key));
        self
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
            upload: self.upload.take(),
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
    upload: Upload,
}

impl FinishedPart {
    /// Its table.
    pub fn table(&self) -> Table {
        self.table
    }

    /// Gives the file its final name: readers see it from now on. On S3,
    /// the file is then uploaded whole (one create-only PUT: readers see
    /// all of it or nothing) and deleted locally.
    pub fn publish(mut self) -> Result<PartSummary, OutputError> {
        fs::rename(temp_path(&self.path), &self.path).at(Op::PublishPart, &self.path)?;
        self.published = true;
        if let Some((s3, key)) = self.upload.take() {
            let uploaded = s3.upload(&key, &self.path);
            let _ = fs::remove_file(&self.path);
            uploaded?;
        }
        // (a table's schema-only file is no input's part)
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        if !super::is_schema_only(&name) {
            crate::output::kill_point::passed(crate::output::kill_point::Step::Part);
        }
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
