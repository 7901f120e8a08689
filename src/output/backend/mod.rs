//! Where a data set's files are kept, as the few operations its commit
//! protocol needs: write a file if there is none (create-if-absent),
//! replace or delete it only if it is still the version read
//! (replace-if-unchanged, delete-if-unchanged), read it with its version,
//! and list every file with its version. The generations that make a
//! compaction visible (`dataset::generation`) and a writer's lease
//! (`bucket::lease`) are written once, over this trait.
//!
//! ```text
//! Backend --- Bucket       (bucket/): an S3 prefix; If-None-Match: *, If-Match: <ETag>
//!         \-- DirBackend   (dir.rs):  a directory; link(2), rename(2) under a lock
//! ```
//!
//! A version ("ETag") is whatever the backend says it is, compared only
//! for equality: S3's ETag, or a local file's inode, change time and size.

mod dir;

use std::collections::BTreeMap;

pub use dir::DirBackend;

/// Why an operation failed, in words (the key, what the backend said;
/// never a credential).
pub type Failure = String;

/// The condition a write or a deletion is made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond<'a> {
    /// None: the file is written whatever is there.
    None,
    /// Only if there is no file of that key (create-if-absent).
    Create,
    /// Only if the file is this version (replace- or delete-if-unchanged).
    Match(&'a str),
}

/// A write's or a deletion's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Done {
    /// Done (the new version; empty for a deletion).
    Yes(String),
    /// The condition did not hold: the file is there (create-only), or
    /// is another version.
    Refused,
}

/// A file read.
#[derive(Clone, Debug)]
pub struct Object {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its version.
    pub etag: String,
    /// Seconds between its last write and the answer, by the backend's
    /// clock (0 when it cannot tell).
    pub age: u64,
}

/// A file listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Its key (relative to the data set).
    pub key: String,
    /// Its version.
    pub etag: String,
    /// Its size in bytes.
    pub size: u64,
}

/// The operations of a data set's commit protocol. Keys are relative to
/// the data set, `/`-separated (`_manifest/generation-00000001.json`).
pub trait Backend: Send + Sync {
    /// Writes `key` if `cond` holds.
    fn put(&self, key: &str, bytes: &[u8], cond: Cond<'_>) -> Result<Done, Failure>;
    /// Reads `key`; `None` if there is no such file.
    fn get(&self, key: &str) -> Result<Option<Object>, Failure>;
    /// Deletes `key` if `cond` holds; a file already gone is deleted.
    fn delete(&self, key: &str, cond: Cond<'_>) -> Result<Done, Failure>;
    /// Every file, by key.
    fn listing(&self) -> Result<BTreeMap<String, Listed>, Failure>;
    /// `key` as messages name it (`s3://bucket/prefix/key`, a path).
    fn shown(&self, key: &str) -> String;
}

/// What every backend promises, checked on `backend` (empty): the tests
/// of each implementation run it.
#[cfg(test)]
pub(crate) fn check_contract(backend: &dyn Backend) {
    let key = "_manifest/x.json";
    assert_eq!(backend.get(key).unwrap().map(|o| o.bytes), None);
    // create-if-absent: once
    let Done::Yes(first) = backend.put(key, b"one", Cond::Create).unwrap() else {
        panic!("created");
    };
    assert_eq!(
        backend.put(key, b"two", Cond::Create).unwrap(),
        Done::Refused
    );
    let read = backend.get(key).unwrap().unwrap();
    assert_eq!(
        (read.bytes.as_slice(), read.etag.as_str()),
        (&b"one"[..], first.as_str())
    );
    // replace-if-unchanged: on the version read only
    let Done::Yes(second) = backend.put(key, b"two", Cond::Match(&first)).unwrap() else {
        panic!("replaced");
    };
    assert_ne!(second, first);
    assert_eq!(
        backend.put(key, b"three", Cond::Match(&first)).unwrap(),
        Done::Refused
    );
    assert_eq!(backend.get(key).unwrap().unwrap().bytes, b"two");
    // listed with its version and size
    let listing = backend.listing().unwrap();
    assert_eq!(
        listing.get(key),
        Some(&Listed {
            key: key.to_owned(),
            etag: second.clone(),
            size: 3
        })
    );
    // delete-if-unchanged
    assert_eq!(
        backend.delete(key, Cond::Match(&first)).unwrap(),
        Done::Refused
    );
    assert!(matches!(
        backend.delete(key, Cond::Match(&second)).unwrap(),
        Done::Yes(_)
    ));
    assert!(backend.get(key).unwrap().is_none());
    assert!(matches!(
        backend.delete(key, Cond::None).unwrap(),
        Done::Yes(_)
    ));
    assert_eq!(
        backend.put(key, b"x", Cond::Match(&second)).unwrap(),
        Done::Refused
    );
    assert!(backend.listing().unwrap().is_empty());
}

/// Writers racing on one key, checked on `backend` (empty): eight
/// creating it at once, then eight replacing the version one of them
/// wrote; each time, one wins.
#[cfg(test)]
pub(crate) fn check_races<B: Backend + 'static>(backend: std::sync::Arc<B>) {
    /// Eight threads writing `key` at once, each on `cond` and bytes of
    /// its own (`tag` and its number: no writer writes the bytes there,
    /// whose version an S3 ETag, their MD5, would leave unchanged): how
    /// many did.
    fn race<B: Backend + 'static>(
        backend: &std::sync::Arc<B>,
        key: &'static str,
        cond: Cond<'static>,
        tag: &'static str,
    ) -> usize {
        let answers: Vec<Done> = (0..8)
            .map(|i| {
                let backend = std::sync::Arc::clone(backend);
                std::thread::spawn(move || {
                    backend
                        .put(key, format!("{tag} {i}").as_bytes(), cond)
                        .unwrap()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        answers.iter().filter(|d| **d != Done::Refused).count()
    }
    let key = "_manifest/generation-00000001.json";
    assert_eq!(
        race(&backend, key, Cond::Create, "created"),
        1,
        "creators of {key}"
    );
    let found = backend.listing().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let version: &'static str = Box::leak(found[key].etag.clone().into_boxed_str());
    assert_eq!(
        race(&backend, key, Cond::Match(version), "replaced"),
        1,
        "replacers of {key}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S3 keeps the contract a directory keeps (`dir.rs`' tests), and the
    /// lease and the generations work over it as over a directory, checked
    /// against moto's S3 server, which `scripts/test.sh` starts and names
    /// in `ROBOSTATS_TEST_S3_ENDPOINT` (with a bucket `robostats-contract`,
    /// and test credentials in the environment, for this test alone).
    #[test]
    fn an_s3_prefix_keeps_the_contract() {
        let Ok(endpoint) = std::env::var("ROBOSTATS_TEST_S3_ENDPOINT") else {
            eprintln!("skipped: ROBOSTATS_TEST_S3_ENDPOINT is not set (scripts/test.sh sets it)");
            return;
        };
        let options = crate::s3::S3Options {
            endpoint: Some(endpoint),
            region: Some("us-east-1".to_owned()),
            anonymous: false,
        };
        let bucket = |what: &str| {
            let prefix = format!("{what}-{}", std::process::id());
            let timeout = std::time::Duration::from_secs(10);
            crate::output::bucket::Bucket::new("robostats-contract", &prefix, &options, timeout)
                .unwrap()
        };
        check_contract(&bucket("contract"));
        // (scripts/test.sh's moto answers one request at a time: its
        // conditional writes are then atomic, as S3's are)
        check_races(std::sync::Arc::new(bucket("races")));
        // the protocol written over it, as over a directory
        crate::output::bucket::lease::check_lease_protocol(std::sync::Arc::new(bucket("lease")));
        crate::output::dataset::check_generation_protocol(&bucket("generations"));
    }
}
