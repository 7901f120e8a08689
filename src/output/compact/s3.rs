//! `compact` of a data set on S3: the same merges as on disk, made in a
//! local copy, then published as a new generation.
//!
//! ```text
//! compact.lease (create-only)  -> no live ingest's lease listed, else refused
//!                                 (a dead one's deleted: killed on this host, or expired)
//! generation-00000000.json     -> written first if there is none: readers filter from now on
//! the data set, copied lazily  -> compact::run on the copy (the disk's rules, unchanged):
//!                                 each part file there with its size, downloaded only
//!                                 when read (merged); the crawl tables read from S3
//! new files                    -> PUT If-None-Match: *   (hidden: no generation names their compaction)
//! changed manifests            -> PUT If-Match (compact.jsonl: its merges and repairs)
//! generation-N.json            -> PUT If-None-Match: *   THE COMMIT: its compaction visible,
//!                                                        the merged files hidden; it names
//!                                                        the id of generation N-1
//! after --grace                -> the merged files deleted (If-Match on their listed ETag) by
//!                                 the next compact or ingest (with --grace 0, by this one)
//! ```
//!
//! Readers (`queries/tables.sql`) read the newest generation: a file it
//! lists as retired, or a compacted file of a compaction it does not name,
//! is not read. So a reader sees the old files or the new ones, never both
//! and never neither: a query begun before the commit finishes on the old
//! files (deleted only once the grace is past), and a session that read the views
//! before the commit is told to read them again. A compaction killed before
//! its commit leaves files no generation names (hidden, and deleted by the
//! next compaction); killed after it, the next one deletes what it retired.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use robostats_report::engine::{Out, Secret};

use super::{Compaction, Fetched, Options};
use crate::output::backend::{Backend, Cond, Done, Listed};
use crate::output::bucket::{Lease, S3Location, lease};
use crate::output::dataset::manifest::DIR_NAME;
use crate::output::dataset::s3::{
    Generation, claim, delete_retired, fetch, generation_key, newest_generation,
};
use crate::output::dataset::{
    At, CRAWL_TABLES, Dataset, Op, OutputError, compaction_of, is_finished_part, is_table_file,
    table_dirs,
};
use crate::output::kill_point::{self, Step};
use crate::output::scratch::Scratch;
use crate::s3::S3Options;

/// Where a compaction on S3 goes.
pub struct S3Compact<'a> {
    /// The data set.
    pub location: &'a S3Location,
    /// How S3 is reached.
    pub s3: &'a S3Options,
    /// How long to wait for an answer.
    pub timeout: Duration,
    /// How long the merged files are kept after the commit, for queries
    /// begun before it.
    pub grace: Duration,
}

/// Compacts the data set on S3 `at` (see the module's documentation).
pub fn run(at: &S3Compact<'_>, options: &Options) -> Result<Compaction, OutputError> {
    let key = format!("{DIR_NAME}/compact.lease");
    let (bucket, lease) = claim(at.location, at.s3, at.timeout, &key, "compact")?;
    let bucket = bucket.as_ref();
    let mut listing = bucket.listing().map_err(OutputError::Store)?;
    refuse_live_ingests(bucket, &listing, &key)?;
    crate::output::dataset::refuse_older_rules_in(bucket, Path::new(&at.location.url()))?;
    let previous = match newest_generation(bucket, &listing)? {
        Some(found) => {
            // What an earlier compaction retired, past its grace.
            delete_retired(bucket, &mut listing, &found)?;
            found
        }
        None => {
            // Readers filter by generation from now on, before any
            // compacted file is uploaded.
            let first = Generation::first(&listing)?;
            commit(bucket, &first)?;
            first
        }
    };
    let mirror =
        Scratch::new("compact").map_err(|(path, e)| OutputError::io(Op::CreateDir, &path, e))?;
    let mirror = mirror.path();
    let (copy, manifests, garbage, adopted) =
        kill_point::uncounted(|| copy(bucket, &listing, &previous, mirror))?;
    let kept = copy.keys();
    let on_s3 = Out::S3 {
        url: at.location.url().trim_end_matches('/').to_owned(),
        secret: Secret(
            bucket
                .duckdb_secret()
                .map_err(OutputError::Store)?
                .into_pairs(),
        ),
    };
    let reads = super::Reads {
        fetch: &|path| copy.fetch(path),
        fetch_all: &|why| copy.fetch_all(Some(why)),
        // What is left unread weighs less than a merged file: downloaded
        // (no httpfs needed, and fewer requests than DuckDB's reads);
        // more, and DuckDB reads the data set on S3.
        crawls_from: &|| {
            if copy.unfetched_bytes() < options.target_bytes {
                copy.fetch_all(None)?;
                return Ok(None);
            }
            Ok(Some(on_s3.clone()))
        },
    };
    let mut done = kill_point::uncounted(|| super::run_reading(mirror, options, &reads))?;
    done.fetched = Some(copy.fetched());
    done.warnings.extend(copy.fetched_all());
    lease.check().map_err(|_| lost(&lease))?;
    let mut ids = publish(bucket, &listing, &manifests, &kept, mirror)?;
    ids.extend(adopted);
    let retired: BTreeSet<String> = kept
        .iter()
        .filter(|k| is_table_file(k) && !mirror.join(k.as_str()).exists())
        .cloned()
        .chain(
            previous
                .retired
                .iter()
                .filter(|k| listing.contains_key(*k))
                .cloned(),
        )
        .chain(garbage.iter().cloned())
        .collect();
    if ids.is_empty() && retired.is_empty() {
        return Ok(done);
    }
    let next = previous.next(
        previous.compactions.iter().cloned().chain(ids).collect(),
        retired.iter().cloned().collect(),
        at.grace,
    )?;
    lease.check().map_err(|_| lost(&lease))?;
    commit(bucket, &next)?;
    // The merged files stay for the queries begun before the commit: the
    // next compact or ingest past the grace deletes them (no batch job
    // waits out the grace); with no grace, now.
    if at.grace.is_zero() {
        delete_retired(bucket, &mut listing, &next)?;
    }
    drop(lease);
    Ok(done)
}

/// Refuses the compaction while an ingest's claim lives; the claims of
/// dead ingests (killed on this host, or expired) are deleted.
fn refuse_live_ingests(
    bucket: &dyn Backend,
    listing: &BTreeMap<String, Listed>,
    own: &str,
) -> Result<(), OutputError> {
    let mut live = Vec::new();
    for key in listing
        .keys()
        .filter(|k| k.starts_with(&format!("{DIR_NAME}/")) && k.ends_with(".lease") && **k != own)
    {
        if let Some(holder) = lease::clear_dead(bucket, key).map_err(OutputError::Store)? {
            live.push((key, holder));
        }
    }
    match live.first() {
        None => Ok(()),
        Some((key, holder)) => Err(OutputError::Locked {
            path: bucket.shown(key).into(),
            holder: crate::output::dataset::lock::ingests_named(holder, live.len() - 1),
            wanted_by: "compact".to_owned(),
        }),
    }
}

fn lost(lease: &Lease) -> OutputError {
    OutputError::Store(format!(
        "compact no longer holds {}: it stops before publishing anything more",
        lease.shown()
    ))
}

/// Writes `generation` create-only: two compactions cannot both commit.
fn commit(bucket: &dyn Backend, generation: &Generation) -> Result<(), OutputError> {
    if generation.put(bucket)? {
        kill_point::passed(Step::Commit);
        return Ok(());
    }
    Err(OutputError::Store(format!(
        "{} exists: another compaction committed it meanwhile",
        bucket.shown(&generation_key(generation.generation))
    )))
}

/// What [`copy`] made: the copy, the manifests' bytes (to tell which
/// the compaction changed), the compacted files of compactions never
/// committed (garbage), and the compactions done elsewhere to adopt
/// ([`done_elsewhere`]).
type Copied<'a> = (
    LazyCopy<'a>,
    BTreeMap<String, Vec<u8>>,
    Vec<String>,
    BTreeSet<String>,
);

/// Copies the data set into `mirror` (a new private directory): its
/// manifests, then the part files `previous` does not hide, each as a
/// file of its size with no bytes yet ([`LazyCopy`]).
fn copy<'a>(
    bucket: &'a dyn Backend,
    listing: &BTreeMap<String, Listed>,
    previous: &Generation,
    mirror: &Path,
) -> Result<Copied<'a>, OutputError> {
    let mut copy = LazyCopy {
        bucket,
        dir: mirror.to_path_buf(),
        files: BTreeMap::new(),
        manifests: BTreeSet::new(),
        fetched: Mutex::new((0, 0)),
        whole: Mutex::new(None),
    };
    let mut manifests = BTreeMap::new();
    let is_manifest = |key: &str| {
        key.strip_prefix(&format!("{DIR_NAME}/"))
            .is_some_and(|name| name.ends_with(".jsonl") && !name.contains('/'))
    };
    for key in listing.keys().filter(|k| is_manifest(k)) {
        let bytes = fetch(bucket, key)?;
        write_new(&mirror.join(key), |file| {
            std::io::Write::write_all(file, &bytes)
        })?;
        manifests.insert(key.clone(), bytes);
        copy.manifests.insert(key.clone());
    }
    let adopted = done_elsewhere(mirror, listing, previous)?;
    let mut garbage = Vec::new();
    for (key, listed) in listing.iter().filter(|(k, _)| is_table_file(k)) {
        if previous.retired.contains(key) {
            continue;
        }
        if previous.hides(key) && !compaction_of(key).is_some_and(|id| adopted.contains(id)) {
            garbage.push(key.clone());
            continue;
        }
        let path = mirror.join(key);
        // A file of the object's size that holds no bytes (sparse): what
        // the compaction lists and plans by, fetched once it is read.
        write_new(&path, |file| file.set_len(listed.size))?;
        copy.files
            .insert(path, Arc::new(Mutex::new(Some(listed.clone()))));
    }
    // Every table's directory and schema-only file (never uploaded: the
    // data set has its own), so that the copy reads as a data set does.
    Dataset::create(mirror, true)?;
    Ok((copy, manifests, garbage, adopted))
}

/// Creates the file `path` (and its directory), written by `write`.
fn write_new(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).at(Op::CreateDir, dir)?;
    }
    std::fs::File::create_new(path)
        .and_then(|mut file| write(&mut file))
        .at(Op::StageFile, path)
}

/// The local copy of a data set on S3 that a compaction runs in: its
/// manifests are there, and each part file is there with its size and
/// without its bytes until the compaction reads it ([`LazyCopy::fetch`]):
/// the files it merges, and the `bodies` files it chooses writers by.
/// What it leaves as it is (most of a data set compacted before) is
/// never downloaded.
struct LazyCopy<'a> {
    bucket: &'a dyn Backend,
    dir: PathBuf,
    /// Each part file by path, as listed until its bytes are fetched (a
    /// lock each: the merges fetch in parallel, and a file read twice is
    /// fetched once).
    files: BTreeMap<PathBuf, Arc<Mutex<Option<Listed>>>>,
    /// The manifests' keys (copied whole).
    manifests: BTreeSet<String>,
    /// Files and bytes fetched.
    fetched: Mutex<(usize, u64)>,
    /// Why every file was fetched, if it was ([`LazyCopy::fetch_all`]).
    whole: Mutex<Option<String>>,
}

impl LazyCopy<'_> {
    /// Every key copied: the manifests and the part files.
    fn keys(&self) -> BTreeSet<String> {
        let part_keys = self.files.keys().filter_map(|path| {
            let key = path.strip_prefix(&self.dir).ok()?;
            Some(key.to_string_lossy().into_owned())
        });
        self.manifests.iter().cloned().chain(part_keys).collect()
    }

    /// Brings the bytes of the file `path` (a no-op for a file fetched
    /// already, one the compaction wrote, or one it deleted from the copy,
    /// which is not made again): the object as listed, or an error if it
    /// changed since.
    fn fetch(&self, path: &Path) -> Result<(), OutputError> {
        let Some(slot) = self.files.get(path) else {
            return Ok(());
        };
        let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
        let Some(listed) = slot.as_ref() else {
            return Ok(());
        };
        if std::fs::symlink_metadata(path).is_err() {
            *slot = None;
            return Ok(());
        }
        let object = self
            .bucket
            .get(&listed.key)
            .map_err(OutputError::Store)?
            .filter(|o| o.etag == listed.etag)
            .ok_or_else(|| {
                OutputError::Store(format!(
                    "{} changed or went while compact ran",
                    self.bucket.shown(&listed.key)
                ))
            })?;
        std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, &object.bytes))
            .at(Op::StageFile, path)?;
        let mut fetched = self.fetched.lock().unwrap_or_else(|e| e.into_inner());
        fetched.0 += 1;
        fetched.1 += object.bytes.len() as u64;
        *slot = None;
        Ok(())
    }

    /// Brings the bytes of every file, for DuckDB to read the copy as a
    /// data set: because the copy is small (no reason), or because DuckDB
    /// cannot read the bucket (`why`, which [`LazyCopy::fetched_all`]
    /// turns into a warning).
    fn fetch_all(&self, why: Option<&str>) -> Result<(), OutputError> {
        use rayon::prelude::*;
        if let Some(why) = why {
            *self.whole.lock().unwrap_or_else(|e| e.into_inner()) = Some(why.trim().to_owned());
        }
        let paths: Vec<&PathBuf> = self.files.keys().collect();
        paths.par_iter().try_for_each(|path| self.fetch(path))
    }

    /// Why every file was fetched, as a warning, if it was.
    fn fetched_all(&self) -> Option<String> {
        let why = self
            .whole
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()?;
        Some(format!(
            "DuckDB could not read the data set on S3 for the crawl tables, so every part file \
             was downloaded for them ({why}); where a DuckDB with the httpfs extension \
             (--python) reads it there, compact downloads only the files it merges"
        ))
    }

    /// The bytes of the files not fetched yet.
    fn unfetched_bytes(&self) -> u64 {
        let fetched = self.fetched();
        fetched.of_bytes - fetched.bytes
    }

    /// What was fetched, of what was copied.
    fn fetched(&self) -> Fetched {
        let (files, bytes) = *self.fetched.lock().unwrap_or_else(|e| e.into_inner());
        let listed = self.files.values().filter_map(|slot| {
            let slot = slot.lock().unwrap_or_else(|e| e.into_inner());
            slot.as_ref().map(|l| l.size)
        });
        let (mut of_files, mut of_bytes) = (files, bytes);
        for size in listed {
            of_files += 1;
            of_bytes += size;
        }
        Fetched {
            files,
            bytes,
            of_files,
            of_bytes,
        }
    }
}

/// The compactions no generation names whose files hold rows found
/// nowhere else: each merge the manifests record for them has its file
/// listed and none of the files it merged. Such a compaction was done
/// elsewhere (on disk, before the data set was copied here, by a version
/// whose first generation named none); a compaction killed here before
/// its commit deleted none of the files it merged. Its files are read
/// again from the next generation on, not deleted.
fn done_elsewhere(
    mirror: &Path,
    listing: &BTreeMap<String, Listed>,
    previous: &Generation,
) -> Result<BTreeSet<String>, OutputError> {
    let key = |path: &Path| path.to_string_lossy().into_owned();
    let mut whole: BTreeMap<String, bool> = BTreeMap::new();
    crate::output::dataset::manifest::for_each_line(mirror, |line, _| {
        let crate::output::dataset::manifest::Line::Compact(compact) = line else {
            return;
        };
        for merged in compact.merged {
            let file = key(&merged.path);
            let Some(id) = compaction_of(&file) else {
                continue;
            };
            if previous.names(id) {
                continue;
            }
            let alone = listing.contains_key(&file)
                && !merged.from.iter().any(|f| listing.contains_key(&key(f)));
            *whole.entry(id.to_owned()).or_insert(true) &= alone;
        }
    })?;
    Ok(whole
        .into_iter()
        .filter(|(_, alone)| *alone)
        .map(|(id, _)| id)
        .collect())
}

/// Uploads what the compaction of `mirror` wrote: new part files
/// (create-only), then the manifests it changed (If-Match). Returns the
/// ids of the compactions whose files were uploaded.
fn publish(
    bucket: &dyn Backend,
    listing: &BTreeMap<String, Listed>,
    manifests: &BTreeMap<String, Vec<u8>>,
    kept: &BTreeSet<String>,
    mirror: &Path,
) -> Result<Vec<String>, OutputError> {
    let mut ids = BTreeSet::new();
    for dir_name in table_dirs() {
        let dir = mirror.join(dir_name);
        if CRAWL_TABLES.contains(&dir_name) && !dir.exists() {
            continue;
        }
        for entry in std::fs::read_dir(&dir).at(Op::ListDir, &dir)? {
            let entry = entry.at(Op::ListDir, &dir)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let key = format!("{dir_name}/{name}");
            if !is_finished_part(&name) || kept.contains(&key) {
                continue;
            }
            let bytes = std::fs::read(entry.path()).at(Op::ReadPart, entry.path())?;
            if let Done::Refused = bucket
                .put(&key, &bytes, Cond::Create)
                .map_err(OutputError::Store)?
            {
                return Err(OutputError::Store(format!(
                    "{} exists: not overwritten",
                    bucket.shown(&key)
                )));
            }
            kill_point::passed(Step::Part);
            if let Some(id) = compaction_of(&name) {
                ids.insert(id.to_owned());
            }
        }
    }
    let dir = mirror.join(DIR_NAME);
    for entry in std::fs::read_dir(&dir).at(Op::ListDir, &dir)? {
        let entry = entry.at(Op::ListDir, &dir)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".jsonl") {
            continue;
        }
        let key = format!("{DIR_NAME}/{name}");
        let bytes = std::fs::read(entry.path()).at(Op::ReadManifest, entry.path())?;
        let cond = match (manifests.get(&key), listing.get(&key)) {
            (Some(before), _) if *before == bytes => continue,
            (Some(_), Some(listed)) => Cond::Match(&listed.etag),
            _ => Cond::Create,
        };
        if let Done::Refused = bucket.put(&key, &bytes, cond).map_err(OutputError::Store)? {
            return Err(OutputError::Store(format!(
                "{} changed while compact ran: nothing is committed",
                bucket.shown(&key)
            )));
        }
        kill_point::passed(Step::Line);
    }
    Ok(ids.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::backend::DirBackend;

    /// The copy lists every part file with its size and holds the bytes
    /// of those read only; a file replaced since the listing is refused.
    #[test]
    fn the_copy_fetches_only_what_is_read() {
        let root = Scratch::new("lazy-copy").unwrap();
        let (data, mirror) = (root.path().join("data"), root.path().join("copy"));
        std::fs::create_dir_all(&data).unwrap();
        Dataset::create(&data, true).unwrap();
        let backend = DirBackend::open(&data).unwrap();
        for (key, bytes) in [
            ("_manifest/run.jsonl", &b"{}\n"[..]),
            ("captures/a-00.parquet", &b"aaaa"[..]),
            ("captures/b-00.parquet", &b"bbbbbbbb"[..]),
            ("verdict_counts/c-00.parquet", &b"cc"[..]),
        ] {
            backend.put(key, bytes, Cond::Create).unwrap();
        }
        let listing = backend.listing().unwrap();
        let previous = Generation::first(&listing).unwrap();
        let (copy, manifests, garbage, _) = copy(&backend, &listing, &previous, &mirror).unwrap();
        assert_eq!(
            manifests.keys().collect::<Vec<_>>(),
            ["_manifest/run.jsonl"]
        );
        assert!(garbage.is_empty());
        let parts: Vec<&Listed> = listing.values().filter(|l| is_table_file(&l.key)).collect();
        assert!(parts.len() >= 3);
        assert_eq!(copy.keys().len(), parts.len() + 1);
        let a = mirror.join("captures/a-00.parquet");
        let b = mirror.join("captures/b-00.parquet");
        assert_eq!(
            std::fs::read(&b).unwrap(),
            [0; 8],
            "a file of its size, no bytes"
        );
        copy.fetch(&b).unwrap();
        copy.fetch(&b).unwrap();
        copy.fetch(&mirror.join("captures/new.parquet")).unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"bbbbbbbb");
        let fetched = copy.fetched();
        assert_eq!(
            (
                fetched.files,
                fetched.bytes,
                fetched.of_files,
                fetched.of_bytes
            ),
            (1, 8, parts.len(), parts.iter().map(|l| l.size).sum())
        );
        // Replaced since the listing: not taken for the file listed.
        backend
            .put("captures/a-00.parquet", b"AAAA", Cond::None)
            .unwrap();
        let refused = copy.fetch(&a).unwrap_err().to_string();
        assert!(
            refused.contains("changed or went while compact ran"),
            "{refused}"
        );
        assert_eq!(std::fs::read(&a).unwrap(), [0; 4]);
        assert!(copy.fetch_all(Some("no httpfs")).is_err());
        assert!(copy.fetched_all().unwrap().contains("no httpfs"));
        // A file the compaction deleted from the copy stays deleted, and
        // is not left to fetch.
        std::fs::remove_file(&a).unwrap();
        copy.fetch_all(None).unwrap();
        assert!(!a.exists());
        assert_eq!(copy.unfetched_bytes(), 0);
        assert!(copy.fetched_all().is_none(), "no reason given, no warning");
    }

    #[test]
    fn compacted_files_are_known_by_their_compaction() {
        assert_eq!(
            compaction_of("compacted-1a2b3c4d-00003.parquet"),
            Some("1a2b3c4d")
        );
        assert_eq!(
            compaction_of("captures/compacted-1a2b3c4d-00003.parquet"),
            Some("1a2b3c4d")
        );
        assert_eq!(compaction_of("captures-x.parquet"), None);
        assert_eq!(generation_key(7), "_manifest/generation-00000007.json");
        assert!(is_table_file("captures/a-00.parquet"));
        assert!(!is_table_file("_manifest/run.jsonl"));
        assert!(!is_table_file("other/a.parquet"));
        assert!(!is_table_file("captures/.a.parquet.1.tmp"));
    }
}
