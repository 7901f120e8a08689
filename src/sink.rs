//! Arrow record batches -> Parquet part files, one directory per table.
//!
//! A reader must never take a half-written file for a finished one: Parquet
//! writes its footer only when the writer is closed, so a part file is
//! written under a hidden temporary name (`.name.parquet.<pid>.tmp`, which neither
//! `*.parquet` globs nor pyarrow's dataset discovery pick up) and renamed
//! to its final name only after it is closed and synced. Files are opened
//! lazily: a table with no rows for an input gets no file.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

/// Rows per row group: large enough for good compression and few metadata
/// entries, small enough that a writer's buffered row group stays a few
/// megabytes.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Encoded bytes at which a row group is closed (see [`PartWriter::write`]).
pub const ROW_GROUP_BYTES: usize = 512 << 10;

/// The writer properties of a part file, set on purpose: Parquet's default
/// is no compression, and dictionary encoding for every column. Columns
/// that are not dictionary-encoded in Arrow (URLs, patterns, values: mostly
/// distinct) are written without a Parquet dictionary, which only cost
/// hashing every value (a profile showed it); zstd level 1 compresses these
/// tables within a few percent of level 3 at a fraction of the time.
pub fn writer_properties(schema: &Schema) -> WriterProperties {
    let mut builder = WriterProperties::builder();
    for field in schema.fields() {
        let path = || ColumnPath::from(field.name().as_str());
        if !matches!(
            field.data_type(),
            DataType::Dictionary(..) | DataType::Boolean
        ) {
            builder = builder.set_column_dictionary_enabled(path(), false);
        }
        // Min/max of text columns cost a string comparison per row (a
        // profile showed it) and prune nothing useful: keep statistics for
        // numbers, times and the file name only.
        if matches!(
            field.data_type(),
            DataType::Dictionary(..) | DataType::Utf8 | DataType::List(_)
        ) && field.name() != "warc_filename"
        {
            builder = builder.set_column_statistics_enabled(path(), EnabledStatistics::None);
        }
    }
    builder
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(1).expect("valid level"),
        ))
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_created_by(format!("robostats version {}", env!("CARGO_PKG_VERSION")))
        .build()
}

/// What a closed part file holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartSummary {
    /// Its table.
    pub table: &'static str,
    /// Its final path.
    pub path: PathBuf,
    /// Rows written.
    pub rows: u64,
}

/// The temporary name a part file is written under: hidden, and unique to
/// the process (shards writing into one directory all write the
/// schema-only `_empty.parquet`).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// One Parquet file being written under its temporary name.
pub struct PartWriter {
    table: &'static str,
    path: PathBuf,
    writer: ArrowWriter<BufWriter<File>>,
    rows: u64,
    row_group_bytes: usize,
}

impl PartWriter {
    /// Creates `path`'s temporary file (and its directory).
    pub fn create(
        table: &'static str,
        path: PathBuf,
        schema: Arc<Schema>,
    ) -> io::Result<PartWriter> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let file = File::create(temp_path(&path))?;
        let props = writer_properties(&schema);
        let writer = ArrowWriter::try_new(BufWriter::new(file), schema, Some(props))
            .map_err(io::Error::other)?;
        Ok(PartWriter {
            table,
            path,
            writer,
            rows: 0,
            row_group_bytes: ROW_GROUP_BYTES,
        })
    }

    /// Closes row groups at `bytes` of encoded data instead of
    /// [`ROW_GROUP_BYTES`] (still at most [`ROW_GROUP_ROWS`] rows).
    pub fn with_row_group_bytes(mut self, bytes: usize) -> PartWriter {
        self.row_group_bytes = bytes;
        self
    }

    /// Appends a batch. A row group is closed once it holds
    /// [`ROW_GROUP_BYTES`] of encoded data, so a writer's memory stays small
    /// whatever the table's row width: `ingest` keeps a writer per table,
    /// thread and input in progress.
    pub fn write(&mut self, batch: &RecordBatch) -> io::Result<()> {
        self.rows += batch.num_rows() as u64;
        self.writer.write(batch).map_err(io::Error::other)?;
        if self.writer.in_progress_size() >= self.row_group_bytes {
            self.writer.flush().map_err(io::Error::other)?;
        }
        Ok(())
    }

    /// Writes the footer, syncs, and gives the file its final name.
    pub fn close(self) -> io::Result<PartSummary> {
        let tmp = temp_path(&self.path);
        let buffered = self.writer.into_inner().map_err(io::Error::other)?;
        let file = buffered.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &self.path)?;
        Ok(PartSummary {
            table: self.table,
            path: self.path,
            rows: self.rows,
        })
    }

    /// Drops an unfinished file (on error or cancellation).
    pub fn abort(self) {
        let tmp = temp_path(&self.path);
        drop(self.writer);
        let _ = fs::remove_file(tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Int64Array;
    use arrow::datatypes::{DataType, Field};

    #[test]
    fn file_appears_only_when_closed() {
        let dir = std::env::temp_dir().join(format!("robostats-sink-{}", std::process::id()));
        let path = dir.join("t").join("part-1.parquet");
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        let mut w = PartWriter::create("t", path.clone(), schema.clone()).unwrap();
        w.write(&batch).unwrap();
        assert!(!path.exists());
        assert!(temp_path(&path).exists());
        let summary = w.close().unwrap();
        assert_eq!(summary.rows, 3);
        assert!(path.exists() && !temp_path(&path).exists());

        let w = PartWriter::create("t", dir.join("t").join("part-2.parquet"), schema).unwrap();
        w.abort();
        assert!(!temp_path(&dir.join("t").join("part-2.parquet")).exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
