//! A run's claim on a manifest of a data set on S3: an object
//! `_manifest/<name>.lease` that only one run can create, renewed while
//! the run lives, and taken over by another run only once S3's own clock
//! says it was not renewed for its whole duration.
//!
//! ```text
//! take:    PUT If-None-Match: *        412 -> GET it, wait, GET again:
//!                                              changed      -> held by a live run: refused
//!                                              unchanged past its duration -> PUT If-Match: <ETag>
//! renew:   PUT If-Match: <own ETag>    every quarter of the duration; 412 -> lost
//! check:   before each upload and append: lost, or not renewed for half
//!          the duration (a process stopped, a network cut)  -> the run stops
//! release: DELETE If-Match: <own ETag>
//! ```
//!
//! A claim whose holder ran on this host (the same kernel and process
//! namespace) and is gone (killed at a batch job's time limit, say) is
//! taken over at once, without waiting for it to expire: the claim records
//! its holder's [`Identity`]. The claims of other kinds (`compact.lease`
//! for an ingest, an ingest's lease for `compact`) are looked at the same
//! way ([`clear_dead`]): a dead one is deleted (on its ETag), a live one
//! refuses the run, naming its holder, since when, and when it expires.
//!
//! A run that lost its claim may still have a request in flight: its
//! appends are fenced (the manifest's ETag changed when the new holder
//! appended its run line), and a part file it uploaded but never recorded
//! is a leftover the next run of the manifest deletes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::output::backend::{Backend, Cond, Done, Failure, Object};
use crate::output::process::Identity;

/// How long a claim lasts unrenewed: 120 s (`ROBOSTATS_S3_LEASE_SECONDS`
/// shortens it for tests).
pub fn duration() -> Duration {
    Duration::from_secs(super::test_setting("ROBOSTATS_S3_LEASE_SECONDS", 2, 120))
}

/// What a lease object says: who holds it (no credential, no path).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claim {
    /// What holds it: `ingest (shard-00001-of-00004)`, `compact`.
    pub holder: String,
    /// The host it runs on.
    pub host: String,
    /// Its process id.
    pub process: u32,
    /// A random id of the run.
    pub run: String,
    /// Seconds since the Unix epoch when it was taken.
    pub since: u64,
    /// How long it lasts unrenewed, seconds.
    pub seconds: u64,
    /// Renewals so far (each changes the object, and so its ETag).
    pub renewals: u64,
    /// Its process, as another one on its host can tell it is gone.
    #[serde(default)]
    pub identity: Option<Identity>,
}

impl Claim {
    fn new(holder: &str) -> Claim {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::env::var("HOSTNAME"))
            .unwrap_or_default();
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let run = format!("{:x}-{:x}", since.as_nanos(), std::process::id());
        Claim {
            holder: holder.to_owned(),
            host: crate::terminal::escaped(host.trim())
                .chars()
                .take(64)
                .collect(),
            process: std::process::id(),
            run,
            since: since.as_secs(),
            seconds: duration().as_secs(),
            renewals: 0,
            identity: Identity::own(),
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut text = serde_json::to_vec(self).expect("a claim serializes");
        text.push(b'\n');
        text
    }

    /// Who holds it, in words, as a lock holder is named (what anyone who
    /// can write under the prefix may have written: escaped for a
    /// terminal).
    pub fn shown(&self) -> String {
        // An HTTP date up to the year 9999 (httpdate's range); past it, a
        // planted claim's number as it is.
        let since = if self.since < 253_402_300_800 {
            httpdate::fmt_http_date(std::time::UNIX_EPOCH + Duration::from_secs(self.since))
        } else {
            format!("{} (Unix time)", self.since)
        };
        format!(
            "{} (process {} on {}, since {since})",
            crate::terminal::escaped(&self.holder),
            self.process,
            crate::terminal::escaped(&self.host),
        )
    }

    /// Whether the claim, written `age` seconds ago by S3's clock, is dead:
    /// why, or `None` while its holder may be alive. Dead: its holder ran
    /// on this host and is gone, or it was not renewed for its whole
    /// duration (its own, at least this run's), and a little more.
    fn dead(claim: Option<&Claim>, age: u64) -> Option<String> {
        if let Some(claim) = claim
            && claim.identity.as_ref().and_then(Identity::gone) == Some(true)
        {
            return Some(format!(
                "its process {} on this host is gone",
                claim.process
            ));
        }
        let lasts = lasts(claim);
        let expired = lasts + (lasts / 24).max(1);
        (age > expired).then(|| format!("not renewed for {age} s (it lasts {lasts} s)"))
    }
}

/// How long `claim` lasts unrenewed: what its holder says (its
/// `ROBOSTATS_S3_LEASE_SECONDS`), at least this run's duration and at most
/// an hour (a planted claim cannot last for ever).
fn lasts(claim: Option<&Claim>) -> u64 {
    let own = duration().as_secs();
    claim.map_or(own, |c| c.seconds.clamp(own, own.max(3600)))
}

/// What a claim object found says of its holder, for a refusal: who, and
/// when the claim expires unless renewed.
fn holder_of(found: &Object) -> String {
    match serde_json::from_slice::<Claim>(&found.bytes) {
        Ok(claim) => {
            format!(
                "{}, renewed {} s ago (taken over if not renewed for {} s)",
                claim.shown(),
                found.age,
                lasts(Some(&claim))
            )
        }
        Err(_) => format!(
            "a claim robostats cannot read, written {} s ago (taken over once {} s old)",
            found.age,
            duration().as_secs()
        ),
    }
}

/// Looks at the claim `key` of another kind of run: deletes it (on its
/// ETag: not one renewed meanwhile) when its holder is dead (see
/// [`Claim`]'s rules), and returns its holder, in words, while it lives.
/// `None`: there is no live claim.
pub fn clear_dead(bucket: &dyn Backend, key: &str) -> Result<Option<String>, Failure> {
    let Some(found) = bucket.get(key)? else {
        return Ok(None);
    };
    let claim = serde_json::from_slice::<Claim>(&found.bytes).ok();
    if Claim::dead(claim.as_ref(), found.age).is_none() {
        return Ok(Some(holder_of(&found)));
    }
    match bucket.delete(key, Cond::Match(&found.etag))? {
        Done::Yes(_) => Ok(None),
        // Renewed meanwhile: alive after all.
        Done::Refused => Ok(Some(holder_of(&found))),
    }
}

/// Why a claim could not be taken or was lost.
#[derive(Debug)]
pub enum LeaseError {
    /// Another run holds it, alive (it renewed it while this one waited).
    Held {
        /// Who, as its lease says.
        holder: String,
    },
    /// Another run took it first, or took it over from this run.
    Lost,
    /// S3 could not be asked.
    Store(String),
}

/// The state a renewal thread and the run share.
struct State {
    etag: Mutex<String>,
    claim: Mutex<Claim>,
    lost: AtomicBool,
    renewed: Mutex<Instant>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// A claim held: renewed by a thread of its own until it is released
/// (dropped).
pub struct Lease {
    bucket: Arc<dyn Backend>,
    key: String,
    state: Arc<State>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("key", &self.key).finish()
    }
}

impl Lease {
    /// Takes the claim `key` for `holder`, waiting out an expired claim of
    /// a run that died (at most its duration, plus one look).
    pub fn take(bucket: Arc<dyn Backend>, key: &str, holder: &str) -> Result<Lease, LeaseError> {
        let lasts = duration();
        let look_every = (lasts / 8).clamp(Duration::from_secs(1), Duration::from_secs(15));
        let claim = Claim::new(holder);
        let mut seen: Option<String> = None;
        let etag = loop {
            match bucket
                .put(key, &claim.bytes(), Cond::Create)
                .map_err(LeaseError::Store)?
            {
                Done::Yes(etag) => break etag,
                Done::Refused => {}
            }
            let Some(found) = bucket.get(key).map_err(LeaseError::Store)? else {
                continue; // released meanwhile: create it again
            };
            if seen.as_ref().is_some_and(|e| *e != found.etag) {
                return Err(LeaseError::Held {
                    holder: holder_of(&found),
                });
            }
            // Its holder gone from this host, or expired by S3's clock
            // (not renewed for its whole duration, and a little more).
            let found_claim = serde_json::from_slice::<Claim>(&found.bytes).ok();
            if Claim::dead(found_claim.as_ref(), found.age).is_some() {
                match bucket
                    .put(key, &claim.bytes(), Cond::Match(&found.etag))
                    .map_err(LeaseError::Store)?
                {
                    Done::Yes(etag) => break etag,
                    Done::Refused => return Err(LeaseError::Lost),
                }
            }
            seen = Some(found.etag);
            std::thread::sleep(look_every);
        };
        let state = Arc::new(State {
            etag: Mutex::new(etag),
            claim: Mutex::new(claim),
            lost: AtomicBool::new(false),
            renewed: Mutex::new(Instant::now()),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let renewer = {
            let (bucket, key, state) = (Arc::clone(&bucket), key.to_owned(), Arc::clone(&state));
            std::thread::Builder::new()
                .name("robostats-lease".to_owned())
                .spawn(move || renew(bucket.as_ref(), &key, &state, lasts / 4))
                .map_err(|e| LeaseError::Store(format!("cannot start a thread: {e}")))?
        };
        Ok(Lease {
            bucket,
            key: key.to_owned(),
            state,
            renewer: Some(renewer),
        })
    }

    /// Whether the claim still holds: not taken over, and renewed within
    /// half its duration (a run stopped or cut off for longer may have
    /// been taken over already).
    pub fn check(&self) -> Result<(), LeaseError> {
        let fresh = self.state.renewed.lock().expect("lease").elapsed() < duration() / 2;
        if self.state.lost.load(Ordering::SeqCst) || !fresh {
            self.state.lost.store(true, Ordering::SeqCst);
            return Err(LeaseError::Lost);
        }
        Ok(())
    }

    /// The claim's object, as shown in messages.
    pub fn shown(&self) -> String {
        self.bucket.shown(&self.key)
    }

    /// The claim's ETag now.
    fn etag(&self) -> String {
        self.state.etag.lock().expect("lease").clone()
    }

    /// The claim's bytes now.
    pub fn bytes(&self) -> Vec<u8> {
        self.state.claim.lock().expect("lease").bytes()
    }
}

/// Renews the claim every `every` until told to stop, or until it is lost.
fn renew(bucket: &dyn Backend, key: &str, state: &State, every: Duration) {
    let mut stop = state.stop.lock().expect("lease");
    loop {
        // (told to stop before this thread first waited: no wait)
        if *stop {
            return;
        }
        stop = state.wake.wait_timeout(stop, every).expect("lease").0;
        if *stop || state.lost.load(Ordering::SeqCst) {
            return;
        }
        let bytes = {
            let mut claim = state.claim.lock().expect("lease");
            claim.renewals += 1;
            claim.bytes()
        };
        let etag = state.etag.lock().expect("lease").clone();
        match bucket.put(key, &bytes, Cond::Match(&etag)) {
            Ok(Done::Yes(new)) => {
                *state.etag.lock().expect("lease") = new;
                *state.renewed.lock().expect("lease") = Instant::now();
            }
            Ok(Done::Refused) => {
                state.lost.store(true, Ordering::SeqCst);
                return;
            }
            // Not answered: tried again at the next turn; the run stops
            // itself once half the duration passed unrenewed.
            Err(_) => {}
        }
    }
}

impl Drop for Lease {
    /// Stops renewing, then deletes the claim if it is still this run's.
    fn drop(&mut self) {
        *self.state.stop.lock().expect("lease") = true;
        self.state.wake.notify_all();
        if let Some(thread) = self.renewer.take() {
            let _ = thread.join();
        }
        if !self.state.lost.load(Ordering::SeqCst) {
            let etag = self.etag();
            let _ = self.bucket.delete(&self.key, Cond::Match(&etag));
        }
    }
}

/// The lease over any backend (a directory's tests, and S3's against
/// moto, `output::backend`): one claim, created once, named while it
/// lives, taken over at once from a process gone from this host, deleted
/// on release.
#[cfg(test)]
pub(crate) fn check_lease_protocol(backend: Arc<dyn Backend>) {
    let key = "_manifest/run.lease";
    let lease = Lease::take(Arc::clone(&backend), key, "ingest (run)").unwrap();
    lease.check().unwrap();
    assert_eq!(backend.get(key).unwrap().unwrap().bytes, lease.bytes());
    let holder = clear_dead(backend.as_ref(), key).unwrap().unwrap();
    assert!(holder.contains("ingest (run)"), "{holder}");
    drop(lease);
    assert!(backend.get(key).unwrap().is_none());
    assert_eq!(clear_dead(backend.as_ref(), key).unwrap(), None);
    // A claim of a process gone from this host: cleared, or taken over.
    let Some(own) = Identity::own() else { return };
    let gone = Claim {
        identity: Some(Identity {
            started: own.started + 1,
            ..own
        }),
        ..Claim::new("compact")
    };
    backend.put(key, &gone.bytes(), Cond::Create).unwrap();
    assert_eq!(clear_dead(backend.as_ref(), key).unwrap(), None);
    assert!(backend.get(key).unwrap().is_none());
    backend.put(key, &gone.bytes(), Cond::Create).unwrap();
    let taken = Lease::take(Arc::clone(&backend), key, "ingest (run)").unwrap();
    assert_eq!(backend.get(key).unwrap().unwrap().bytes, taken.bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_is_dead_once_its_holder_is_gone_here_or_it_expired() {
        let lasts = duration().as_secs();
        let live = Claim::new("ingest (run)");
        assert_eq!(Claim::dead(Some(&live), 0), None);
        // Not renewed for its whole duration and a little more: dead,
        // whoever holds it; a claim that cannot be read, the same.
        assert!(Claim::dead(Some(&live), lasts + lasts / 24 + 1).is_some());
        assert_eq!(Claim::dead(None, lasts), None);
        assert!(Claim::dead(None, lasts * 2).is_some());
        // Its process gone from this host: dead at once.
        if let Some(own) = Identity::own() {
            let gone = Claim {
                identity: Some(Identity {
                    started: own.started + 1,
                    ..own
                }),
                ..live.clone()
            };
            let why = Claim::dead(Some(&gone), 0).unwrap();
            assert!(why.contains("is gone"), "{why}");
        }
        // A holder elsewhere (another boot): waits for the expiry.
        let elsewhere = Claim {
            identity: Some(Identity {
                boot: "another".to_owned(),
                ..Identity::default()
            }),
            ..live.clone()
        };
        assert_eq!(Claim::dead(Some(&elsewhere), 1), None);
        // A claim of an older robostats, without an identity, reads.
        let older: Claim = serde_json::from_str(
            r#"{"holder":"compact","host":"h","process":7,"run":"r","since":1,"seconds":120,"renewals":0}"#,
        )
        .unwrap();
        assert_eq!(older.identity, None);
        assert!(
            older
                .shown()
                .contains("since Thu, 01 Jan 1970 00:00:01 GMT")
        );
        // What anyone may plant: shown escaped, and never a panic.
        let planted = Claim {
            since: u64::MAX,
            seconds: u64::MAX,
            host: "\x1b[31mnode".to_owned(),
            ..older
        };
        let shown = planted.shown();
        assert!(
            shown.contains("since 18446744073709551615 (Unix time)"),
            "{shown}"
        );
        assert!(!shown.contains('\x1b'), "{shown}");
        assert!(Claim::dead(Some(&planted), 3600 + 150 + 1).is_some());
    }

    #[test]
    fn a_lease_over_a_directory_is_taken_named_taken_over_and_released() {
        use crate::output::backend::DirBackend;
        let dir = crate::output::scratch::Scratch::new("lease").unwrap();
        check_lease_protocol(Arc::new(DirBackend::open(dir.path()).unwrap()));
    }
}
