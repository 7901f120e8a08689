//! `compact` of a data set on S3: the same merges as on disk, made in a
//! local copy, then published as a new generation.
//!
//! ```text
//! compact.lease (create-only)  -> no live ingest's lease listed, else refused
//!                                 (a dead one's deleted: killed on this host, or expired)
//! generation-00000000.json     -> written first if there is none: readers filter from now on
//! the data set, downloaded     -> compact::run on the copy (the disk's rules, unchanged)
//! new files                    -> PUT If-None-Match: *   (hidden: no generation names their compaction)
//! changed manifests            -> PUT If-Match (compact.jsonl: its merges and repairs)
//! generation-N.json            -> PUT If-None-Match: *   THE COMMIT: its compaction visible,
//!                                                        the merged files hidden; it names
//!                                                        the id of generation N-1
//! after --grace                -> the merged files deleted (If-Match on their listed ETag) by
//!                                 the next compact or ingest (with --grace 0, by this one)
//! ```
//!
//! Readers (`queries/views.sql`) read the newest generation: a file it
//! lists as retired, or a compacted file of a compaction it does not name,
//! is not read. So a reader sees the old files or the new ones, never both
//! and never neither: a query begun before the commit finishes on the old
//! files (deleted only once the grace is past), and a session that read views.sql
//! before the commit is told to read it again. A compaction killed before
//! its commit leaves files no generation names (hidden, and deleted by the
//! next compaction); killed after it, the next one deletes what it retired.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use super::{Compaction, Options};
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
    let (kept, manifests, garbage, adopted) = download(bucket, &listing, &previous, mirror)?;
    let done = super::run(mirror, options)?;
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
            holder: match live.len() {
                1 => holder.clone(),
                n => format!("{holder}, and {} other ingest run(s)", n - 1),
            },
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
        return Ok(());
    }
    Err(OutputError::Store(format!(
        "{} exists: another compaction committed it meanwhile",
        bucket.shown(&generation_key(generation.generation))
    )))
}

/// What [`download`] fetched: the keys, the manifests' bytes (to tell
/// which the compaction changed), the compacted files of compactions
/// never committed (garbage), and the compactions done elsewhere to adopt
/// ([`done_elsewhere`]).
type Downloaded = (
    BTreeSet<String>,
    BTreeMap<String, Vec<u8>>,
    Vec<String>,
    BTreeSet<String>,
);

/// Downloads the data set into `mirror` (a new private directory): its
/// manifests, then the part files `previous` does not hide.
fn download(
    bucket: &dyn Backend,
    listing: &BTreeMap<String, Listed>,
    previous: &Generation,
    mirror: &Path,
) -> Result<Downloaded, OutputError> {
    let mut kept = BTreeSet::new();
    let mut manifests = BTreeMap::new();
    let is_manifest = |key: &str| {
        key.strip_prefix(&format!("{DIR_NAME}/"))
            .is_some_and(|name| name.ends_with(".jsonl") && !name.contains('/'))
    };
    for key in listing.keys().filter(|k| is_manifest(k)) {
        manifests.insert(key.clone(), fetch_into(bucket, key, mirror)?);
        kept.insert(key.clone());
    }
    let adopted = done_elsewhere(mirror, listing, previous)?;
    let mut garbage = Vec::new();
    for key in listing.keys().filter(|k| is_table_file(k)) {
        if previous.retired.contains(key) {
            continue;
        }
        if previous.hides(key) && !compaction_of(key).is_some_and(|id| adopted.contains(id)) {
            garbage.push(key.clone());
            continue;
        }
        fetch_into(bucket, key, mirror)?;
        kept.insert(key.clone());
    }
    // Every table's directory and schema-only file (never uploaded: the
    // data set has its own), so that the copy reads as a data set does.
    Dataset::create(mirror, true)?;
    Ok((kept, manifests, garbage, adopted))
}

/// Writes the object `key` under `mirror`; returns its bytes.
fn fetch_into(bucket: &dyn Backend, key: &str, mirror: &Path) -> Result<Vec<u8>, OutputError> {
    let path = mirror.join(key);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).at(Op::CreateDir, dir)?;
    }
    let bytes = fetch(bucket, key)?;
    std::fs::write(&path, &bytes).at(Op::StageFile, &path)?;
    Ok(bytes)
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
    }
    Ok(ids.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

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
