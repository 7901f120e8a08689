//! Arrow record batches -> Parquet bytes: the encoding settings, chosen on
//! purpose, and a writer that keeps its buffered row group small.
//!
//! Where the bytes go (a part file under its temporary name, renamed when
//! finished) is the output directory's business: `dataset`.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

/// Rows per row group: large enough for good compression and few metadata
/// entries, small enough that a writer's buffered row group stays a few
/// megabytes.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Encoded bytes at which a row group is closed (see [`ParquetSink::write`]).
pub const ROW_GROUP_BYTES: usize = 512 << 10;

/// The Arrow field metadata key that lists a dictionary column's values
/// when they are a fixed set (a class, a kind): written by
/// `batch::schema_of`, read here and by anyone reading the part files.
pub const VALUES_KEY: &str = "values";

/// The writer properties of a part file, set on purpose, column by column
/// (Parquet's default is no compression and a dictionary for every column):
///
/// - text that Arrow does not dictionary-encode (URLs, patterns, values:
///   mostly distinct) has no Parquet dictionary, which would only cost
///   hashing every value (a profile showed it), and is written as
///   `DELTA_LENGTH_BYTE_ARRAY` (the lengths packed apart from the bytes,
///   which zstd then compresses better: 9 % less data, fewer instructions);
///   lists of text (protocols, crawler names: a few values) keep Parquet's
///   dictionary;
/// - integers and times are `DELTA_BINARY_PACKED` (line numbers, offsets
///   and constants become a few bits a value);
/// - those, booleans and dictionary columns of a fixed set of values (the
///   classes) are not compressed: packed already, zstd gains little on
///   them and costs a compression and a decompression context per column
///   chunk, which `parquet` makes for each (ingest 0.93x without them,
///   the data set still 5 % smaller than with zstd everywhere); the rest
///   is zstd level 1, within a few percent of level 3 at a fraction of
///   the time (BENCHMARKS.md).
pub fn writer_properties(schema: &Schema) -> WriterProperties {
    let mut builder = WriterProperties::builder();
    for field in schema.fields() {
        // (A list's values are the leaf `<name>.list.item`: settings on the
        // name alone would reach nothing.)
        let path = || match field.data_type() {
            DataType::List(item) => ColumnPath::new(vec![
                field.name().clone(),
                "list".into(),
                item.name().clone(),
            ]),
            _ => ColumnPath::from(field.name().as_str()),
        };
        let data_type = field.data_type();
        // Lists of text (protocols, crawler names: a few values) keep
        // Parquet's dictionary.
        if !matches!(
            data_type,
            DataType::Dictionary(..) | DataType::Boolean | DataType::List(_)
        ) {
            builder = builder.set_column_dictionary_enabled(path(), false);
        }
        let integers = matches!(
            data_type,
            DataType::Int32 | DataType::Int64 | DataType::Timestamp(..)
        );
        if integers {
            builder = builder.set_column_encoding(path(), Encoding::DELTA_BINARY_PACKED);
        } else if *data_type == DataType::Utf8 {
            builder = builder.set_column_encoding(path(), Encoding::DELTA_LENGTH_BYTE_ARRAY);
        }
        let fixed_values = matches!(data_type, DataType::Dictionary(..))
            && field.metadata().contains_key(VALUES_KEY);
        if integers || fixed_values || *data_type == DataType::Boolean {
            builder = builder.set_column_compression(path(), Compression::UNCOMPRESSED);
        }
        // Min/max of text columns cost a string comparison per row (a
        // profile showed it) and prune nothing useful: keep statistics for
        // numbers, times and the file name only.
        if matches!(
            data_type,
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

/// Batches of one table -> one Parquet file's bytes. The footer is written
/// only by [`ParquetSink::finish`]: until then the bytes are not a Parquet
/// file.
pub struct ParquetSink<W: Write + Send> {
    writer: ArrowWriter<W>,
    rows: u64,
    row_group_bytes: usize,
}

impl<W: Write + Send> ParquetSink<W> {
    /// A sink writing batches of `schema` to `out`.
    pub fn new(out: W, schema: SchemaRef) -> Result<ParquetSink<W>, ParquetError> {
        let props = writer_properties(&schema);
        Ok(ParquetSink {
            writer: ArrowWriter::try_new(out, schema, Some(props))?,
            rows: 0,
            row_group_bytes: ROW_GROUP_BYTES,
        })
    }

    /// Closes row groups at `bytes` of encoded data instead of
    /// [`ROW_GROUP_BYTES`] (still at most [`ROW_GROUP_ROWS`] rows).
    pub fn with_row_group_bytes(mut self, bytes: usize) -> ParquetSink<W> {
        self.row_group_bytes = bytes;
        self
    }

    /// Appends a batch. A row group is closed once it holds
    /// [`ROW_GROUP_BYTES`] of encoded data, so a writer's memory stays small
    /// whatever the table's row width: `ingest` keeps a writer per table,
    /// thread and input in progress.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ParquetError> {
        self.writer.write(batch)?;
        self.rows += batch.num_rows() as u64;
        if self.writer.in_progress_size() >= self.row_group_bytes {
            self.writer.flush()?;
        }
        Ok(())
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Writes the footer; returns the underlying writer.
    pub fn finish(self) -> Result<W, ParquetError> {
        self.writer.into_inner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Int64Array;
    use arrow_schema::Field;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use std::collections::HashMap;
    use std::sync::Arc;

    #[test]
    fn each_column_is_written_as_its_type_asks() {
        let fixed = HashMap::from([(VALUES_KEY.to_owned(), "allow,disallow".to_owned())]);
        let dict = || DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let schema = Schema::new(vec![
            Field::new("url", DataType::Utf8, false),
            Field::new("line", DataType::Int32, false),
            Field::new("is_typo", DataType::Boolean, false),
            Field::new("kind", dict(), false).with_metadata(fixed),
            Field::new("body_digest", dict(), false),
            Field::new(
                "agents",
                DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
                false,
            ),
        ]);
        let props = writer_properties(&schema);
        let col = |name: &str| ColumnPath::from(name);
        let zstd = Compression::ZSTD(ZstdLevel::try_new(1).unwrap());
        assert_eq!(props.compression(&col("url")), zstd);
        assert_eq!(
            props.encoding(&col("url")),
            Some(Encoding::DELTA_LENGTH_BYTE_ARRAY)
        );
        assert!(!props.dictionary_enabled(&col("url")));
        assert_eq!(props.compression(&col("line")), Compression::UNCOMPRESSED);
        assert_eq!(
            props.encoding(&col("line")),
            Some(Encoding::DELTA_BINARY_PACKED)
        );
        assert_eq!(
            props.compression(&col("is_typo")),
            Compression::UNCOMPRESSED
        );
        assert_eq!(props.compression(&col("kind")), Compression::UNCOMPRESSED);
        assert!(props.dictionary_enabled(&col("kind")));
        assert_eq!(props.compression(&col("body_digest")), zstd);
        assert!(props.dictionary_enabled(&col("body_digest")));
        // a list's settings are its leaf's
        let item = ColumnPath::new(vec!["agents".into(), "list".into(), "item".into()]);
        assert!(props.dictionary_enabled(&item));
        assert_eq!(props.statistics_enabled(&item), EnabledStatistics::None);
        assert_eq!(
            props.statistics_enabled(&col("line")),
            EnabledStatistics::Chunk
        );
    }

    #[test]
    fn batches_round_trip() {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        let path = std::env::temp_dir().join(format!("robostats-sink-{}", std::process::id()));
        let mut sink = ParquetSink::new(std::fs::File::create(&path).unwrap(), schema).unwrap();
        sink.write(&batch).unwrap();
        sink.write(&batch).unwrap();
        assert_eq!(sink.rows(), 6);
        sink.finish().unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
        assert_eq!(rows, 6);
        std::fs::remove_file(path).unwrap();
    }
}
