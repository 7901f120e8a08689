//! The bodies a run knows to be stored, in bounded memory.
//!
//! A run leaves out the rows of a body it knows to be stored. Knowing
//! fewer costs only space: a body not known is stored again, under another
//! writer, which the views never read and `compact` removes. So the set is
//! a cache of fixed size, not a set of every body a crawl holds (about
//! 30 million distinct bodies a month, 1 GB as a hash set): 4-way buckets
//! of digests, the oldest of a full bucket giving way. Memory is reserved
//! zeroed and filled as buckets are used.

use std::sync::RwLock;

use super::Digest;

/// Bytes the cache takes by default: 16 MiB, 524,288 digests.
pub const DEFAULT_BYTES: usize = 16 << 20;

/// Digests per bucket.
const WAYS: usize = 4;

/// An empty slot (no body's BLAKE3 digest is all zeros).
const EMPTY: Digest = [0; 32];

type Bucket = [Digest; WAYS];

/// A set of body digests of bounded size, shared by every thread of a run.
#[derive(Debug)]
pub struct StoredBodies {
    buckets: RwLock<Vec<Bucket>>,
    mask: usize,
}

impl StoredBodies {
    /// A cache of about `bytes` (at least one bucket; a power of two of
    /// buckets, rounded down).
    pub fn new(bytes: usize) -> StoredBodies {
        let wanted = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let count = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        StoredBodies {
            // Zeroed memory: pages are given as buckets are first written.
            buckets: RwLock::new(vec![[EMPTY; WAYS]; count]),
            mask: count - 1,
        }
    }

    /// The digests it can hold.
    pub fn capacity(&self) -> usize {
        (self.mask + 1) * WAYS
    }

    fn bucket_of(&self, digest: &Digest) -> usize {
        // The digest is a cryptographic hash: its first bytes are as good
        // an index as any.
        let head = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
        head as usize & self.mask
    }

    /// Whether `digest` is known to be stored.
    pub fn contains(&self, digest: &Digest) -> bool {
        let buckets = self.buckets.read().expect("no thread panicked");
        buckets[self.bucket_of(digest)].contains(digest)
    }

    /// Knows `digests` to be stored from now on.
    pub fn extend<'a>(&self, digests: impl IntoIterator<Item = &'a Digest>) {
        let mut buckets = self.buckets.write().expect("no thread panicked");
        for digest in digests {
            if *digest == EMPTY {
                continue;
            }
            let bucket = &mut buckets[self.bucket_of(digest)];
            if !bucket.contains(digest) {
                bucket.copy_within(..WAYS - 1, 1);
                bucket[0] = *digest;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(n: u64) -> Digest {
        let hex = crate::classify::copies::body_digest(&n.to_le_bytes());
        super::super::digest_key(&hex).expect("a body digest")
    }

    #[test]
    fn holds_what_fits_and_forgets_the_oldest() {
        let cache = StoredBodies::new(1 << 12);
        assert_eq!(cache.capacity(), 128);
        let digests: Vec<Digest> = (0..64).map(digest).collect();
        cache.extend(&digests);
        // Half full: a bucket may have overflowed, but most are kept.
        let kept = digests.iter().filter(|d| cache.contains(d)).count();
        assert!(kept > 48, "{kept}");
        assert!(!cache.contains(&digest(1000)));
        // Far more than it holds: it holds no more than its capacity, and
        // the latest are kept.
        let many: Vec<Digest> = (0..10_000).map(digest).collect();
        cache.extend(&many);
        let kept = many.iter().filter(|d| cache.contains(d)).count();
        assert!(kept <= cache.capacity(), "{kept}");
        assert!(many[9_996..].iter().all(|d| cache.contains(d)));
        // Nothing is all zeros.
        cache.extend(&[EMPTY]);
        assert!(!cache.contains(&EMPTY));
    }

    #[test]
    fn sizes_round_down_to_whole_buckets() {
        assert_eq!(StoredBodies::new(0).capacity(), WAYS);
        assert_eq!(StoredBodies::new(DEFAULT_BYTES).capacity(), 524_288);
        assert_eq!(StoredBodies::new(DEFAULT_BYTES + 1).capacity(), 524_288);
    }
}
