//! The bodies a data set stores: the `bodies` table read back, the choice
//! of one writer per body where two wrote it, the record of who wrote
//! which files ([`record`]), its check ([`check`]), and what a run knows
//! to be stored ([`cache`]).
//!
//! A body's rows (its `bodies` row and its line rows in `body_rules`,
//! ...) are written once per run, by the first input that meets it; two
//! runs (shards) or two inputs read at once may each write them. Every
//! writer's rows of one body are the same, but for the `writer` column:
//! the views (`queries/tables.sql`) and `compact` keep the smallest writer
//! of each body listed in `bodies`, so a body written twice reads once.
//! Line rows whose writer has no `bodies` row (a run killed between
//! publishing the two, a writer retired) are never read.
//!
//! Bodies are keyed by their BLAKE3 digest (`captures.body_digest`), which
//! no one can make two bodies share: a key someone could collide would let
//! one host's capture be read with another host's lines.

pub mod cache;
pub mod check;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::{At, Op, OutputError, is_lower_hex, open_regular};

/// A body's key: the BLAKE3 digest of its bytes.
pub type Digest = [u8; 32];

/// A body digest (64 lower-case hex digits, as `captures.body_digest`) as
/// bytes; `None` for any other text.
pub fn digest_key(hex: &str) -> Option<Digest> {
    if hex.len() != 64 || !is_lower_hex(hex) {
        return None;
    }
    let mut digest = [0; 32];
    for (byte, pair) in digest.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
        let value = |c: u8| (c as char).to_digit(16).expect("hex") as u8;
        *byte = (value(pair[0]) << 4) | value(pair[1]);
    }
    Some(digest)
}

/// Calls `each` with every `(body_digest, writer)` of the `bodies` part
/// file `path`, until it returns false. Only a regular file is opened.
fn each_body(path: &Path, mut each: impl FnMut(Digest, i64) -> bool) -> Result<(), OutputError> {
    let file = open_regular(path).at(Op::ReadPart, path)?;
    let unreadable = |e: &dyn std::fmt::Display| unreadable(path, e);
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| unreadable(&e))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), [0, 1]);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(64 * 1024)
        .build()
        .map_err(|e| unreadable(&e))?;
    for batch in reader {
        let batch = batch.map_err(|e| unreadable(&e))?;
        let keys = keys(&batch)
            .ok_or_else(|| unreadable(&"not a bodies table: (body_digest, writer) expected"))?;
        for (digest, writer) in keys {
            if let (Some(digest), Some(writer)) = (digest, writer)
                && !each(digest, writer)
            {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Why a part file of the data set cannot be read, and what to do: it
/// was written with a codec this build does not read, or it is damaged
/// (cut short, rewritten by hand).
pub fn unreadable(path: &Path, e: &dyn std::fmt::Display) -> OutputError {
    let e = e.to_string();
    let what = if e.contains("Disabled feature at compile time") {
        format!(
            "{e}: the file was rewritten with a compression robostats does not read \
             (it reads zstd, snappy, LZ4 and gzip): write it again with one of those, or \
             delete it and run ingest again with the same inputs"
        )
    } else {
        format!(
            "{e}: the file is damaged (cut short?): delete it and run ingest again with the \
             same inputs; what it held is written again"
        )
    };
    OutputError::io(Op::ReadPart, path, std::io::Error::other(what))
}

/// The body key `(body_digest, writer)` of every row of a batch of a table
/// stored once per body; `None` if its first two columns are not that key.
pub fn keys(batch: &RecordBatch) -> Option<Vec<(Option<Digest>, Option<i64>)>> {
    let digests = batch.column(0).as_dictionary_opt::<Int32Type>()?;
    let values = digests.values().as_string_opt::<i32>()?;
    let writers = batch.column(1).as_primitive_opt::<Int64Type>()?;
    // Each dictionary value once.
    let decoded: Vec<Option<Digest>> = values.iter().map(|v| v.and_then(digest_key)).collect();
    Some(
        digests
            .keys()
            .iter()
            .zip(writers.iter())
            .map(|(key, writer)| (key.and_then(|k| decoded[k as usize]), writer))
            .collect(),
    )
}

/// Fills `cache` with the digests the `bodies` files `files` list (those
/// [`check`] found whole). It reads at most four times what the cache
/// holds: past that, each digest read would only push out another.
pub fn stored(files: &[PathBuf], cache: &cache::StoredBodies) -> Result<(), OutputError> {
    let budget = cache.capacity().saturating_mul(4);
    let mut read = 0usize;
    let mut batch = Vec::with_capacity(4096);
    for path in files {
        each_body(path, |digest, _| {
            batch.push(digest);
            read += 1;
            if batch.len() == batch.capacity() {
                cache.extend(&batch);
                batch.clear();
            }
            read < budget
        })?;
        cache.extend(&batch);
        batch.clear();
        if read >= budget {
            break;
        }
    }
    Ok(())
}

/// The writer whose rows are read, per body: the smallest of those the
/// `bodies` files `files` list.
pub fn chosen_writers(files: &[PathBuf]) -> Result<HashMap<Digest, i64>, OutputError> {
    let mut chosen: HashMap<Digest, i64> = HashMap::new();
    for path in files {
        each_body(path, |digest, writer| {
            chosen
                .entry(digest)
                .and_modify(|w| *w = (*w).min(writer))
                .or_insert(writer);
            true
        })?;
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_64_lower_hex_digits() {
        let hex = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";
        let digest = digest_key(hex).unwrap();
        assert_eq!(digest[0], 0xaf);
        assert_eq!(digest[31], 0x62);
        assert_eq!(digest_key(&hex.to_uppercase()), None);
        assert_eq!(digest_key(&hex[..32]), None);
        assert_eq!(digest_key(&format!("{hex}0")), None);
        assert_eq!(digest_key(&hex.replace('a', "g")), None);
    }
}
