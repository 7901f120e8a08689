//! The bodies a data set stores: the `bodies` table read back, and the
//! choice of one writer per body where two wrote it.
//!
//! A body's rows (its `bodies` row and its line rows in `body_rules`,
//! ...) are written once per run, by the first input that meets it; two
//! runs (shards) or two inputs read at once may each write them. Every
//! writer's rows of one body are the same, but for the `writer` column:
//! the views (`queries/views.sql`) and `compact` keep the smallest writer
//! of each body listed in `bodies`, so a body written twice reads once.
//! Line rows whose writer has no `bodies` row (a run killed between
//! publishing the two) are never read.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::path::Path;

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::{At, Op, OutputError, is_finished_part, is_lower_hex};
use crate::classify::Table;

/// A body digest (32 lower-case hex digits, as `captures.body_digest`) as
/// a number; `None` for any other text.
pub fn digest_key(digest: &str) -> Option<u128> {
    let hex = digest.len() == 32 && is_lower_hex(digest);
    hex.then(|| u128::from_str_radix(digest, 16).ok()).flatten()
}

/// Calls `each` with every `(body_digest, writer)` of the `bodies` part
/// files under `dir` (a data set's `bodies` directory).
fn each_body(dir: &Path, mut each: impl FnMut(u128, i64)) -> Result<(), OutputError> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry.at(Op::ListDir, dir)?;
        let name = entry.file_name();
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if !regular || !is_finished_part(&name.to_string_lossy()) {
            continue;
        }
        let path = entry.path();
        let file = File::open(&path).at(Op::ReadPart, &path)?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).at(Op::ReadPart, &path)?;
        let mask = ProjectionMask::roots(builder.parquet_schema(), [0, 1]);
        let reader = builder
            .with_projection(mask)
            .with_batch_size(64 * 1024)
            .build()
            .at(Op::ReadPart, &path)?;
        for batch in reader {
            let batch = batch
                .map_err(|e| OutputError::io(Op::ReadPart, &path, std::io::Error::other(e)))?;
            read_batch(&batch, &mut each).ok_or_else(|| {
                OutputError::io(
                    Op::ReadPart,
                    &path,
                    std::io::Error::other("not a bodies table: (body_digest, writer) expected"),
                )
            })?;
        }
    }
    Ok(())
}

fn read_batch(batch: &RecordBatch, each: &mut impl FnMut(u128, i64)) -> Option<()> {
    for (digest, writer) in keys(batch)? {
        if let (Some(digest), Some(writer)) = (digest, writer) {
            each(digest, writer);
        }
    }
    Some(())
}

/// The body key `(body_digest, writer)` of every row of a batch of a table
/// stored once per body; `None` if its first two columns are not that key.
pub fn keys(batch: &RecordBatch) -> Option<Vec<(Option<u128>, Option<i64>)>> {
    let digests = batch.column(0).as_dictionary_opt::<Int32Type>()?;
    let values = digests.values().as_string_opt::<i32>()?;
    let writers = batch.column(1).as_primitive_opt::<Int64Type>()?;
    Some(
        digests
            .keys()
            .iter()
            .zip(writers.iter())
            .map(|(key, writer)| {
                let digest = key.and_then(|k| digest_key(values.value(k as usize)));
                (digest, writer)
            })
            .collect(),
    )
}

/// The digests of the bodies the data set under `out` stores.
pub fn stored(out: &Path) -> Result<HashSet<u128>, OutputError> {
    let mut digests = HashSet::new();
    each_body(&out.join(Table::Bodies.name()), |digest, _| {
        digests.insert(digest);
    })?;
    Ok(digests)
}

/// The writer whose rows are read, per body: the smallest.
pub fn chosen_writers(out: &Path) -> Result<HashMap<u128, i64>, OutputError> {
    let mut chosen: HashMap<u128, i64> = HashMap::new();
    each_body(&out.join(Table::Bodies.name()), |digest, writer| {
        chosen
            .entry(digest)
            .and_modify(|w| *w = (*w).min(writer))
            .or_insert(writer);
    })?;
    Ok(chosen)
}
