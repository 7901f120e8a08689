//! The generations of a data set on S3: which compactions readers see and
//! which files they do not, as a chain of `_manifest/generation-N.json`
//! files (docs/object-storage.md, "compact"), and the deletion of the
//! files a generation retired once its grace is over.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::OutputError;
use super::names::{DIR_NAME, compaction_of, is_table_file};
use crate::output::backend::{Backend, Cond, Done, Listed};

/// A generation: which compactions are visible, which files are not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generation {
    /// Its number (`generation-NNNNNNNN.json`).
    pub generation: u64,
    /// The ids of the compactions whose `compacted-<id>-*` files are read.
    pub compactions: Vec<String>,
    /// Files merged into compacted ones (keys under the prefix), not read,
    /// and deleted once no query can be reading them.
    pub retired: Vec<String>,
    /// When, seconds since the Unix epoch.
    #[serde(default)]
    pub unix: u64,
    /// A random id of its own (32 hex digits), which the next generation
    /// names.
    #[serde(default)]
    pub id: String,
    /// The id of the generation before it (empty for generation 0): the
    /// chain readers and `compact` follow, so that a generation file
    /// written by anyone else is refused.
    #[serde(default)]
    pub previous: String,
    /// Seconds its retired files are kept after it, for the queries begun
    /// before it (`compact --grace`): the first compact or ingest that
    /// starts later deletes them.
    #[serde(default = "default_grace")]
    pub grace: u64,
}

fn default_grace() -> u64 {
    GRACE.as_secs()
}

/// The key of generation `n`.
pub fn generation_key(n: u64) -> String {
    format!("{DIR_NAME}/generation-{n:08}.json")
}

impl Generation {
    /// Generation 0: nothing retired, and the compactions whose files
    /// `listing` holds read. A data set's first generation is written
    /// before any compaction of its own (by its first ingest or compaction
    /// on S3), so a compacted file there already is one a compaction on
    /// disk wrote before the data set was copied: its rows are read.
    pub fn first(listing: &BTreeMap<String, Listed>) -> Result<Generation, OutputError> {
        let compactions: BTreeSet<&str> = listing
            .keys()
            .filter(|key| is_table_file(key))
            .filter_map(|key| compaction_of(key))
            .collect();
        Ok(Generation {
            compactions: compactions.into_iter().map(str::to_owned).collect(),
            id: new_id()?,
            unix: seconds_now(),
            grace: GRACE.as_secs(),
            ..Generation::default()
        })
    }

    /// The generation after this one: its compactions and retired files,
    /// kept `grace` after it.
    pub fn next(
        &self,
        compactions: Vec<String>,
        retired: Vec<String>,
        grace: Duration,
    ) -> Result<Generation, OutputError> {
        Ok(Generation {
            generation: self.generation + 1,
            compactions,
            retired,
            unix: seconds_now(),
            id: new_id()?,
            previous: self.id.clone(),
            grace: grace.as_secs(),
        })
    }

    /// Whether it names the compaction `id`: its files are read.
    pub fn names(&self, id: &str) -> bool {
        self.compactions.iter().any(|c| c == id)
    }

    /// Whether its readers skip the file `key`: a file it retired, or a
    /// table's file of a compaction it does not name.
    pub fn hides(&self, key: &str) -> bool {
        self.retired.iter().any(|r| r == key)
            || (is_table_file(key) && compaction_of(key).is_some_and(|id| !self.names(id)))
    }

    /// Its bytes, as written.
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a generation serializes")
    }

    /// Writes it create-only; false if it exists.
    pub fn put(&self, bucket: &dyn Backend) -> Result<bool, OutputError> {
        let key = generation_key(self.generation);
        Ok(bucket
            .put(&key, &self.bytes(), Cond::Create)
            .map_err(OutputError::Store)?
            != Done::Refused)
    }
}

/// The bytes of `key`, which the listing holds.
pub fn fetch(bucket: &dyn Backend, key: &str) -> Result<Vec<u8>, OutputError> {
    match bucket.get(key).map_err(OutputError::Store)? {
        Some(object) => Ok(object.bytes),
        None => Err(OutputError::Store(format!(
            "{} vanished while read",
            bucket.shown(key)
        ))),
    }
}

/// The newest generation, if any, once the whole chain is checked:
/// generations numbered 0, 1, 2... (as numbers) with no gap and no number
/// twice, each naming its own number, and each after 0 the id of the one
/// before. Any other generation file is refused, and nothing is compacted
/// or deleted on its word.
pub fn newest_generation(
    bucket: &dyn Backend,
    listing: &BTreeMap<String, Listed>,
) -> Result<Option<Generation>, OutputError> {
    let refused = |key: &str, why: String| {
        OutputError::Store(format!(
            "{} is not a generation robostats compact wrote here ({why}): nothing is \
             compacted or deleted on its word; if no compaction of yours wrote it, delete it",
            bucket.shown(key)
        ))
    };
    let mut numbered: Vec<(u64, &String)> = Vec::new();
    for key in listing
        .keys()
        .filter(|k| k.starts_with(&format!("{DIR_NAME}/generation-")))
    {
        let n = generation_number(key).ok_or_else(|| refused(key, "not numbered".into()))?;
        numbered.push((n, key));
    }
    numbered.sort();
    let mut newest: Option<Generation> = None;
    for (i, (n, key)) in numbered.into_iter().enumerate() {
        if n != i as u64 {
            let why = match i {
                0 => "the first generation is 0".to_owned(),
                _ => format!("after generation {} comes {i}", i - 1),
            };
            return Err(refused(key, why));
        }
        let generation: Generation = serde_json::from_slice(&fetch(bucket, key)?)
            .map_err(|e| refused(key, format!("it does not read: {e}")))?;
        let follows = newest
            .as_ref()
            .is_none_or(|before| generation.previous == before.id);
        if generation.generation != n || !follows {
            return Err(refused(
                key,
                "it does not name the generation before it".into(),
            ));
        }
        newest = Some(generation);
    }
    Ok(newest)
}

/// How long the files a compaction retired are kept after its commit by
/// default (`compact --grace`), for the queries begun before it.
pub const GRACE: Duration = Duration::from_secs(600);

/// Deletes the files `generation` retired (those still listed, each on its
/// listed ETag) once its commit is as old as its grace, and takes them out
/// of `listing`. Readers of `generation` or a later one read none of them.
pub fn delete_retired(
    bucket: &dyn Backend,
    listing: &mut BTreeMap<String, Listed>,
    generation: &Generation,
) -> Result<(), OutputError> {
    if seconds_now().saturating_sub(generation.unix) < generation.grace {
        return Ok(());
    }
    for key in &generation.retired {
        if let Some(listed) = listing.get(key) {
            let deleted = bucket
                .delete(key, Cond::Match(&listed.etag))
                .map_err(OutputError::Store)?;
            listing.remove(key);
            if deleted != Done::Refused {
                crate::output::kill_point::passed(crate::output::kill_point::Step::Delete);
            }
        }
    }
    Ok(())
}

/// Seconds since the Unix epoch (`manifest::unix_now`, which this module
/// may not lean on: the manifest leans on `s3`, which leans on this
/// module).
fn seconds_now() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map_or(0, |d| d.as_secs())
}

/// A new random id for a generation.
fn new_id() -> Result<String, OutputError> {
    crate::output::scratch::random_hex()
        .map_err(|e| OutputError::Store(format!("cannot name a generation: {e}")))
}

/// The number of the generation file `key` names (`_manifest/generation-`,
/// at least eight digits, `.json`), if it names one that way.
pub fn generation_number(key: &str) -> Option<u64> {
    let digits = key
        .strip_prefix(&format!("{DIR_NAME}/generation-"))?
        .strip_suffix(".json")?;
    ((8..=18).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The generations over any backend (a directory's tests, and S3's
/// against moto, `output::backend`): written create-only, read back as
/// one chain, their retired files deleted past the grace, and a
/// generation file out of the chain refused.
#[cfg(test)]
pub(crate) fn check_generation_protocol(backend: &dyn Backend) {
    // A data set compacted elsewhere before its first generation: that
    // compaction's files are read.
    let copied = "captures/compacted-0ddc0ffe-00000.parquet";
    backend.put(copied, b"rows", Cond::None).unwrap();
    let first = Generation::first(&backend.listing().unwrap()).unwrap();
    assert_eq!(first.compactions, ["0ddc0ffe"]);
    assert!(first.names("0ddc0ffe") && !first.hides(copied));
    assert!(first.hides("captures/compacted-0badc0de-00000.parquet"));
    assert!(first.put(backend).unwrap());
    assert!(!first.put(backend).unwrap());
    let merged = "captures/part-00001.parquet";
    backend.put(merged, b"rows", Cond::None).unwrap();
    let next = first
        .next(
            vec!["c0ffee00".to_owned()],
            vec![merged.to_owned()],
            Duration::ZERO,
        )
        .unwrap();
    assert!(next.put(backend).unwrap());
    assert!(next.hides(merged) && !next.hides("captures/part-00002.parquet"));
    let mut listing = backend.listing().unwrap();
    assert_eq!(
        newest_generation(backend, &listing).unwrap(),
        Some(next.clone())
    );
    delete_retired(backend, &mut listing, &next).unwrap();
    assert!(backend.get(merged).unwrap().is_none() && !listing.contains_key(merged));
    // a number skipped: not a chain compact wrote
    backend
        .put(&generation_key(3), &next.bytes(), Cond::Create)
        .unwrap();
    assert!(newest_generation(backend, &backend.listing().unwrap()).is_err());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::backend::DirBackend;

    #[test]
    fn generations_over_a_directory_form_one_chain() {
        let dir = crate::output::scratch::Scratch::new("generations").unwrap();
        check_generation_protocol(&DirBackend::open(dir.path()).unwrap());
    }
}
