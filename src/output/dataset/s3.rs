//! A data set on S3 (`--out s3://bucket/prefix/`): the same layout as
//! on disk, written with S3's own guarantees instead of a file system's
//! (the requests and the claim are `output::bucket`'s).
//!
//! ```text
//! staging dir (local) --a finished part file--> PUT If-None-Match: *  (whole or nothing)
//!                     --the input's lines-----> PUT If-Match: <ETag> of the manifest segment
//! _manifest/<name>.lease                        the run's claim (lease.rs)
//! ```
//!
//! A run writes its part files into a local staging directory exactly as
//! it writes a local data set; each finished file is uploaded by one
//! create-only PUT and deleted locally, and only then is the input's line
//! appended to the run's manifest segment, rewritten whole with
//! `If-Match` on its last ETag (a run that lost its claim cannot append:
//! the new holder's first append changed the ETag). What the run needs to
//! know of the data set (which files are there, what the manifests say)
//! it lists and reads once at its start: nobody else writes its
//! manifest's inputs while it holds the claim.
//!
//! The promises of docs/concurrency.md, and S3's means for each, are in
//! docs/object-storage.md.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use super::generation::{
    GRACE, Generation, delete_retired, fetch, generation_key, generation_number, newest_generation,
};
use super::names::DIR_NAME;
use super::{At, Op, OutputError};
use crate::output::backend::{Backend, Cond, Done, Listed};
use crate::output::bucket::{Bucket, Lease, LeaseError, S3Location, lease, test_setting};
use crate::s3::S3Options;

/// A manifest segment is closed at this size, and the next begun (each
/// append rewrites the segment: this bounds the bytes an append sends).
pub const SEGMENT_BYTES: usize = 256 * 1024;

/// The size at which this run closes a segment: [`SEGMENT_BYTES`], or
/// what `ROBOSTATS_S3_SEGMENT_BYTES` says (at least 1 KiB), so that a test
/// sees segments rotate within a few inputs.
fn segment_bytes() -> usize {
    let bytes = test_setting("ROBOSTATS_S3_SEGMENT_BYTES", 1024, SEGMENT_BYTES as u64);
    usize::try_from(bytes).unwrap_or(SEGMENT_BYTES)
}

/// The segment of the run's manifest it appends to.
#[derive(Debug, Default)]
struct Segment {
    /// The manifest's name (`run`, `shard-00001-of-00004`).
    name: String,
    /// 0 for `<name>.jsonl`, k for `<name>.000k.jsonl`.
    index: u32,
    bytes: Vec<u8>,
    /// `None`: not created yet.
    etag: Option<String>,
    /// The run's own `run` line, which begins every segment it opens.
    run_line: Vec<u8>,
    /// The size at which it is closed ([`segment_bytes`]).
    limit: usize,
}

impl Segment {
    fn key(&self) -> String {
        segment_key(&self.name, self.index)
    }
}

/// The key of segment `index` of the manifest `name`.
fn segment_key(name: &str, index: u32) -> String {
    if index == 0 {
        format!("{DIR_NAME}/{name}.jsonl")
    } else {
        format!("{DIR_NAME}/{name}.{index:04}.jsonl")
    }
}

/// Which segment of the manifest `name` the file `file` (a name in
/// `_manifest/`) is, if it is one.
fn segment_index(name: &str, file: &str) -> Option<u32> {
    let rest = file.strip_prefix(name)?.strip_suffix(".jsonl")?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix('.')?;
    (digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// A data set on S3, as one run writes it.
pub struct S3Files {
    bucket: Arc<Bucket>,
    lease: Lease,
    /// Every object under the prefix, by key (relative to it): listed at
    /// the start, kept up to date with what this run writes and deletes.
    listing: Mutex<BTreeMap<String, Listed>>,
    segment: Mutex<Segment>,
}

impl std::fmt::Debug for S3Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Files")
            .field("url", &self.bucket.url())
            .finish()
    }
}

impl S3Files {
    /// Takes the claim of the manifest `name` in the data set at
    /// `location` for `holder`, checks that the store honours conditional
    /// writes, and lists the data set.
    pub fn open(
        location: &S3Location,
        options: &S3Options,
        timeout: Duration,
        name: &str,
        holder: &str,
    ) -> Result<S3Files, OutputError> {
        let key = format!("{DIR_NAME}/{name}.lease");
        let (bucket, lease) = claim(location, options, timeout, &key, holder)?;
        probe(&bucket, &lease, &key)?;
        let listing = bucket.listing().map_err(OutputError::Store)?;
        // A compaction's claim: refused while it lives; a dead one (killed
        // on this host, or expired) is deleted.
        let compact = format!("{DIR_NAME}/compact.lease");
        if listing.contains_key(&compact)
            && let Some(live) =
                lease::clear_dead(bucket.as_ref(), &compact).map_err(OutputError::Store)?
        {
            return Err(OutputError::Locked {
                path: bucket.shown(&compact).into(),
                holder: live,
                wanted_by: holder.to_owned(),
            });
        }
        // What a compaction retired, past its grace: deleted here, so that
        // compact need not wait it out (a generation out of its chain, or
        // a deletion that fails, is left to compact, which says why).
        let mut listing = listing;
        if let Ok(Some(generation)) = newest_generation(bucket.as_ref(), &listing) {
            let _ = delete_retired(bucket.as_ref(), &mut listing, &generation);
        }
        Ok(S3Files {
            bucket,
            lease,
            listing: Mutex::new(listing),
            segment: Mutex::new(Segment {
                name: name.to_owned(),
                limit: segment_bytes(),
                ..Segment::default()
            }),
        })
    }

    /// Writes generation 0 if the data set has no generation: readers of
    /// a data set on S3 always read by generation, so that a session begun
    /// before the first compaction is told of it (queries/tables.sql).
    pub fn begin_generations(&self) -> Result<(), OutputError> {
        let first = self
            .listing
            .lock()
            .expect("listing")
            .keys()
            .any(|k| generation_number(k) == Some(0));
        if !first {
            let listing = self.listing.lock().expect("listing");
            Generation::first(&listing)?.put(self.bucket.as_ref())?;
        }
        Ok(())
    }

    /// The keys listed under the prefix that are not a data set's: up to
    /// three, when there is no manifest yet (see [`other_keys`]).
    pub fn other_objects(&self) -> Vec<String> {
        other_keys(self.listing.lock().expect("listing").keys())
    }

    /// Writes every manifest file of the data set into `dir` (the staging
    /// directory's `_manifest/`): the run's own segments as one file
    /// `<name>.jsonl`, the others under their own names. Remembers the
    /// run's last segment, to append to it.
    pub fn download_manifests(&self, dir: &Path) -> Result<(), OutputError> {
        let keys: Vec<String> = {
            let listing = self.listing.lock().expect("listing");
            listing
                .keys()
                .filter(|k| k.starts_with(&format!("{DIR_NAME}/")) && k.ends_with(".jsonl"))
                .cloned()
                .collect()
        };
        let mut segment = self.segment.lock().expect("segment");
        let mut own: BTreeMap<u32, (Vec<u8>, String)> = BTreeMap::new();
        for key in keys {
            let file = &key[DIR_NAME.len() + 1..];
            if file.contains('/') {
                continue;
            }
            let Some(object) = self.bucket.get(&key).map_err(OutputError::Store)? else {
                continue;
            };
            if let Some(index) = segment_index(&segment.name, file) {
                own.insert(index, (object.bytes, object.etag));
            } else {
                let path = dir.join(file);
                std::fs::write(&path, &object.bytes).at(Op::WriteManifest, &path)?;
            }
        }
        let mut whole = Vec::new();
        for (bytes, _) in own.values() {
            whole.extend_from_slice(bytes);
            if !whole.ends_with(b"\n") && !whole.is_empty() {
                whole.push(b'\n');
            }
        }
        let path = dir.join(format!("{}.jsonl", segment.name));
        std::fs::write(&path, &whole).at(Op::WriteManifest, &path)?;
        if let Some((&index, (bytes, etag))) = own.iter().next_back() {
            segment.index = index;
            segment.bytes = bytes.clone();
            segment.etag = Some(etag.clone());
        }
        Ok(())
    }

    /// Stops the run if its claim is lost.
    fn check(&self) -> Result<(), OutputError> {
        self.lease.check().map_err(|_| self.lost())
    }

    fn lost(&self) -> OutputError {
        OutputError::Store(format!(
            "this run no longer holds {}: another run of the same manifest took it over (this \
             one was stopped or cut off for longer than the claim lasts). It stops here; what \
             it uploaded and did not record is deleted by the next run",
            self.lease.shown()
        ))
    }

    /// Appends `text` (whole lines) to the run's manifest segment.
    pub fn append(&self, text: &[u8]) -> Result<(), OutputError> {
        self.check()?;
        let mut segment = self.segment.lock().expect("segment");
        if segment.run_line.is_empty()
            && let Some(line) = text
                .split_inclusive(|&b| b == b'\n')
                .find(|l| l.starts_with(br#"{"type":"run""#))
        {
            segment.run_line = line.to_vec();
        }
        if segment.bytes.len() + text.len() > segment.limit && !segment.bytes.is_empty() {
            segment.index += 1;
            segment.bytes = segment.run_line.clone();
            segment.etag = None;
        }
        let mut bytes = segment.bytes.clone();
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(text);
        let key = segment.key();
        let cond = match &segment.etag {
            Some(etag) => Cond::Match(etag),
            None => Cond::Create,
        };
        match self
            .bucket
            .put(&key, &bytes, cond)
            .map_err(OutputError::Store)?
        {
            Done::Yes(etag) => {
                segment.etag = Some(etag);
                segment.bytes = bytes;
                Ok(())
            }
            Done::Refused => Err(OutputError::Store(format!(
                "{} was written by another run since this one read it (a twin of this shard, \
                 or a run that took over its claim): this run stops here",
                self.bucket.shown(&key)
            ))),
        }
    }

    /// Uploads the finished part file `path` as `key`, create-only. An
    /// object of that key with the same bytes (a retry, or a schema-only
    /// file every run writes alike) is fine; with other bytes, the run
    /// stops.
    pub fn upload(&self, key: &str, path: &Path) -> Result<(), OutputError> {
        self.check()?;
        let bytes = std::fs::read(path).at(Op::PublishPart, path)?;
        match self
            .bucket
            .put(key, &bytes, Cond::Create)
            .map_err(OutputError::Store)?
        {
            Done::Yes(etag) => {
                self.remember(key, etag, bytes.len() as u64);
                Ok(())
            }
            Done::Refused => match self.bucket.get(key).map_err(OutputError::Store)? {
                Some(there) if there.bytes == bytes => {
                    self.remember(key, there.etag, bytes.len() as u64);
                    Ok(())
                }
                _ => Err(OutputError::Store(format!(
                    "{} exists with other bytes: another run wrote it since this one listed \
                     the data set (a twin of this shard?); this run stops here",
                    self.bucket.shown(key)
                ))),
            },
        }
    }

    fn remember(&self, key: &str, etag: String, size: u64) {
        self.listing.lock().expect("listing").insert(
            key.to_owned(),
            Listed {
                key: key.to_owned(),
                etag,
                size,
            },
        );
    }

    /// The store the data set is in.
    pub(super) fn bucket(&self) -> &Bucket {
        &self.bucket
    }

    /// The bytes of `key`.
    pub fn read(&self, key: &str) -> Result<Vec<u8>, OutputError> {
        fetch(self.bucket.as_ref(), key)
    }

    /// Whether `key` is in the data set.
    pub fn exists(&self, key: &str) -> bool {
        self.listing.lock().expect("listing").contains_key(key)
    }

    /// The names of the objects directly under `dir/` (a table's).
    pub fn names_in(&self, dir: &str) -> Vec<String> {
        let start = format!("{dir}/");
        self.listing
            .lock()
            .expect("listing")
            .range(start.clone()..)
            .take_while(|(k, _)| k.starts_with(&start))
            .map(|(k, _)| k[start.len()..].to_owned())
            .filter(|name| !name.contains('/'))
            .collect()
    }

    /// Deletes `key`, the version listed (a newer one is someone else's:
    /// the run stops).
    pub fn remove(&self, key: &str) -> Result<(), OutputError> {
        self.check()?;
        let Some(listed) = self.listing.lock().expect("listing").get(key).cloned() else {
            return Ok(());
        };
        match self
            .bucket
            .delete(key, Cond::Match(&listed.etag))
            .map_err(OutputError::Store)?
        {
            Done::Yes(_) => {
                self.listing.lock().expect("listing").remove(key);
                Ok(())
            }
            Done::Refused => Err(OutputError::Store(format!(
                "{} changed since this run listed it: not deleted, and the run stops here",
                self.bucket.shown(key)
            ))),
        }
    }
}

/// Checks that the store refuses a create-only PUT of an existing object
/// and a PUT on a wrong ETag (412): a store that ignores them would let
/// two runs of one manifest both write.
fn probe(bucket: &Bucket, lease: &Lease, key: &str) -> Result<(), OutputError> {
    let bytes = lease.bytes();
    let create = bucket
        .put(key, &bytes, Cond::Create)
        .map_err(OutputError::Store)?;
    let wrong = bucket
        .put(key, &bytes, Cond::Match("\"robostats-probe\""))
        .map_err(OutputError::Store)?;
    // A claim of a dead run is deleted on its ETag, as are the files a
    // compaction retired: a store that deletes on a wrong one would
    // delete a live run's claim, or a file replaced meanwhile.
    let delete = if create == Done::Refused && wrong == Done::Refused {
        bucket
            .delete(key, Cond::Match("\"robostats-probe\""))
            .map_err(OutputError::Store)?
    } else {
        Done::Yes(String::new())
    };
    if delete == Done::Refused {
        return Ok(());
    }
    Err(OutputError::Store(format!(
        "{} does not honour conditional writes (a create-only PUT of an existing object, a \
         PUT on a wrong ETag, or a DELETE on a wrong ETag, was done): two runs could both \
         write one manifest, or one delete another's claim. Use a store that honours \
         If-None-Match and If-Match (S3 does), or a local --out",
        bucket.endpoint_shown()
    )))
}

/// Up to three of `keys` that are not a data set's, when none is a
/// manifest segment: a data set's are a table's part files and schema-only
/// files (which a shard starting at the same moment uploads before its
/// first manifest line), and whatever is in `_manifest/` (claims,
/// generations).
fn other_keys<'a>(keys: impl Iterator<Item = &'a String> + Clone) -> Vec<String> {
    let in_manifest = |k: &str| k.starts_with(&format!("{DIR_NAME}/"));
    if keys
        .clone()
        .any(|k| in_manifest(k) && k.ends_with(".jsonl"))
    {
        return Vec::new();
    }
    keys.filter(|k| !in_manifest(k))
        .filter(|k| {
            !super::in_table(k)
                .is_some_and(|file| super::is_finished_part(file) || super::is_schema_only(file))
        })
        .take(3)
        .cloned()
        .collect()
}

/// Reaches the data set at `location` and takes the claim `key` for
/// `holder` (an ingest's manifest, or compact): the bucket and the lease.
pub(crate) fn claim(
    location: &S3Location,
    options: &S3Options,
    timeout: Duration,
    key: &str,
    holder: &str,
) -> Result<(Arc<Bucket>, Lease), OutputError> {
    let bucket = Bucket::new(&location.bucket, &location.prefix, options, timeout)
        .map_err(OutputError::Store)?;
    let bucket = Arc::new(bucket);
    let lease = Lease::take(bucket.clone(), key, holder)
        .map_err(|e| lease_error(&bucket, key, holder, e))?;
    Ok((bucket, lease))
}

/// A claim not taken, as the run's error.
fn lease_error(bucket: &Bucket, key: &str, wanted_by: &str, e: LeaseError) -> OutputError {
    match e {
        LeaseError::Held { holder } => OutputError::Locked {
            path: bucket.shown(key).into(),
            holder,
            wanted_by: wanted_by.to_owned(),
        },
        LeaseError::Lost => OutputError::Locked {
            path: bucket.shown(key).into(),
            holder: "another run, which took it over at the same moment".to_owned(),
            wanted_by: wanted_by.to_owned(),
        },
        LeaseError::Store(why) => OutputError::Store(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_are_numbered_as_numbers() {
        assert_eq!(
            generation_number("_manifest/generation-00000007.json"),
            Some(7)
        );
        assert_eq!(
            generation_number("_manifest/generation-100000000.json"),
            Some(100_000_000)
        );
        for bad in [
            "_manifest/generation-7.json",
            "_manifest/generation-0000000x.json",
            "_manifest/generation-00000007.json.tmp",
            "_manifest/generation-1234567890123456789.json",
            "captures/generation-00000007.json",
        ] {
            assert_eq!(generation_number(bad), None, "{bad}");
        }
        let first = Generation::first(&BTreeMap::new()).unwrap();
        let second = first
            .next(vec!["c1".to_owned()], vec![], Duration::from_secs(5))
            .unwrap();
        assert_eq!(second.grace, 5);
        assert_eq!(
            (second.generation, second.previous.as_str()),
            (1, first.id.as_str())
        );
        assert_eq!(first.id.len(), 32);
        assert_ne!(first.id, second.id);
        let read: Generation = serde_json::from_slice(&second.bytes()).unwrap();
        assert_eq!(read, second);
        // An older generation, without ids, reads (empty ids).
        let older: Generation =
            serde_json::from_str(r#"{"generation":0,"compactions":[],"retired":[]}"#).unwrap();
        assert_eq!((older.id.as_str(), older.previous.as_str()), ("", ""));
        assert_eq!(older.grace, 600);
    }

    #[test]
    fn segments_are_named_and_recognised() {
        assert_eq!(segment_key("run", 0), "_manifest/run.jsonl");
        assert_eq!(segment_key("run", 3), "_manifest/run.0003.jsonl");
        assert_eq!(segment_index("run", "run.jsonl"), Some(0));
        assert_eq!(segment_index("run", "run.0012.jsonl"), Some(12));
        assert_eq!(segment_index("run", "runner.jsonl"), None);
        assert_eq!(segment_index("run", "run.12.jsonl"), None);
        assert_eq!(segment_index("shard-00001-of-00002", "run.jsonl"), None);
    }

    #[test]
    fn another_shard_starting_is_a_data_set() {
        let others = |keys: &[&str]| {
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            other_keys(keys.iter())
        };
        // A shard that has claimed its manifest and uploaded its
        // schema-only files and crawler list, but written no line yet.
        let starting = [
            "_manifest/shard-00000-of-00003.lease",
            "captures/~empty.parquet",
            "agents/~empty.parquet",
            "agents/list-e421589ed6e89ba0.parquet",
            "captures/x-00.parquet",
        ];
        assert_eq!(others(&starting), Vec::<String>::new());
        assert_eq!(
            others(&[
                "captures/~empty.parquet",
                "notes.txt",
                "other/~empty.parquet"
            ]),
            ["notes.txt", "other/~empty.parquet"]
        );
        assert_eq!(
            others(&["notes.txt", "_manifest/run.jsonl"]),
            Vec::<String>::new()
        );
    }
}
