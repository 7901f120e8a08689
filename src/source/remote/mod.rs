//! Inputs read over the network: `http://`, `https://` and `s3://` URLs,
//! streamed into the WARC reader.
//!
//! - **Streamed.** Bytes go from the socket to the reader through a
//!   bounded buffer ([`BUFFER_BYTES`] a transfer): no temporary copy, and
//!   memory bounded whatever the size of a file.
//! - **Ahead of the parser.** [`Prefetch`] starts the inputs' transfers
//!   in the order the workers take them, up to `max_downloads` at a time,
//!   and a few inputs ahead of the workers, so that the next inputs are
//!   downloaded while earlier ones are parsed.
//! - **Polite.** One [`Limiter`] caps the run's requests
//!   per second (every request: retries and resumptions too), and slows
//!   the whole run down when a server says it is overloaded. The
//!   defaults follow Common Crawl's guidance (see [`Options`]).
//! - **Robust.** Retries with exponential backoff and jitter, `Retry-After`
//!   honoured (up to a cap), broken transfers resumed with a range request
//!   after checking the object did not change (module `transfer`).
//! - **Bounded.** Every wait has a bound (a timeout, a minimum rate, caps
//!   on resumptions and on `Retry-After`), and a breaker stops the run
//!   after many inputs in a row failed the same way ([`Options`]).
//! - **Credentials stay home.** Signed (`s3://`) requests follow no
//!   redirect; others never from `https://` to `http://`; no `Referer`.
//!   A URL's own secrets (see [`secrets`](super::secrets)) go with its
//!   requests only: a redirect to another host, port or scheme takes no
//!   `Authorization` (the user name and password) with it, and a query
//!   is never carried over to the place redirected to.
//!
//! # Crates, and why
//!
//! Measured (BENCHMARKS.md, "Choosing the network crates"): each stack
//! built alone in release on 2 cores, and read in its source for what the
//! issue asks. The transfer loop is robostats' own, over `reqwest` (async,
//! on one small tokio runtime), because the policy asked for (retry a
//! CDN's 403, honour `Retry-After`, one request budget for the run, resume
//! mid-body after an ETag check, a stall timeout per read) is what the
//! ready-made layers do differently:
//!
//! - `object_store` (0.13/0.14) is the lightest (1-2 min to build, a 6-9
//!   MB binary against 12 MB for this stack) and resumes a body with its
//!   ETag, but returns 403 as final, never reads `Retry-After`, has no
//!   request-rate budget, and finds no credentials in the shared profile
//!   files (`AWS_PROFILE`, SSO): only environment variables and roles;
//! - `opendal` (0.59) reads profiles but not their region, and its retry
//!   layer decides on its own error kinds;
//! - `aws-sdk-s3` reads S3 only (HTTPS would need a second stack) and is
//!   the heaviest (4.5-5.5 min, 17.7 MB, two TLS stacks);
//! - `reqwest-retry` retries `send()`, not a body broken midway, and
//!   treats 403 as final.
//!
//! S3 requests are signed with `aws-sigv4`, with credentials and region
//! from `aws-config`, the SDK's own chains (environment, profiles, SSO,
//! web identity, container and instance roles); see module `store::s3`.
//! The price is the build: 2.7-4.5 min alone, the most of it
//! aws-config's.
//!
//! # The bridge to the workers
//!
//! The workers are rayon threads reading `std::io::Read`. The only meeting
//! point of the two worlds is a bounded channel per transfer: the async
//! transfer sends pieces, and [`Stream`] (a `Read`) receives them with
//! a blocking call. Nothing else of tokio leaves this module.

mod limit;
mod options;
mod store;
mod stream;
mod target;
mod transfer;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{Semaphore, mpsc};

use super::secrets::RemoteUrl;

pub use limit::Limiter;
pub use options::{NetCounts, Options, S3Options};
pub(crate) use store::{shape_refused, userinfo_refused};
use stream::{Channel, Piece, Slots};
pub use stream::{Download, Prefetch, Stream};
pub(crate) use target::Target;
pub use transfer::{FetchError, STOPPED, shown};

/// Bytes buffered a transfer, at most (about): what a transfer may get
/// ahead of its reader. Common Crawl's robots.txt WARC files are 1-3 MB,
/// so a whole file usually fits and its connection is released at once.
pub const BUFFER_BYTES: usize = 8 << 20;

/// The most bytes one message of a transfer's channel holds: the
/// channel's capacity is counted in messages, and the HTTP client's
/// chunks grow to hundreds of KiB on a fast link, so they are sliced
/// (without copying) to keep the buffer within [`BUFFER_BYTES`].
const PIECE_BYTES: usize = 64 << 10;

#[derive(Debug, Default)]
struct Stats {
    requests: AtomicU64,
    retries: AtomicU64,
    resumes: AtomicU64,
    bytes: AtomicU64,
}

/// What every transfer shares.
struct Shared {
    /// For `http(s)://` URLs: redirects followed, never from https://
    /// to http://.
    http: reqwest::Client,
    /// For signed (`s3://`) requests: no redirect followed.
    signed: reqwest::Client,
    /// Inputs failing in a row, and why the run stopped.
    breaker: Mutex<Breaker>,
    /// Wakes the transfers waiting when the run stops.
    stop: tokio::sync::Notify,
    limiter: Limiter,
    options: Options,
    stats: Stats,
    /// What each store keeps for the run (S3's set-up, made at the first
    /// `s3://` URL).
    sessions: store::Sessions,
    /// Transfers with a request in flight or a body streaming.
    active: Arc<Semaphore>,
}

/// Why a [`Client`] could not be made (the cause is its `source`).
#[derive(Debug)]
pub enum ClientError {
    /// Its network thread could not be started.
    Runtime(std::io::Error),
    /// The HTTP client could not be built (its TLS set-up, mostly).
    Http(reqwest::Error),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Runtime(_) => f.write_str("cannot start the network thread"),
            ClientError::Http(_) => f.write_str("cannot make the HTTP client"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Runtime(e) => Some(e),
            ClientError::Http(e) => Some(e),
        }
    }
}

/// The network client of a run.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("options", &self.shared.options)
            .finish()
    }
}

impl Client {
    /// A client; nothing is sent yet.
    ///
    /// TLS is rustls with *ring*'s cryptography, installed as the
    /// process's default provider unless one is installed already (then
    /// that one is used).
    pub fn new(options: Options) -> Result<Client, ClientError> {
        // aws-lc-rs, the other provider, compiles C with cmake for minutes
        // (BENCHMARKS.md, "The build"). An error here means another
        // provider came first: it is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("robostats-net")
            .enable_all()
            .build()
            .map_err(ClientError::Runtime)?;
        let client = |policy| {
            reqwest::Client::builder()
                .user_agent(concat!("robostats/", env!("CARGO_PKG_VERSION")))
                .connect_timeout(options.timeout)
                .read_timeout(options.timeout)
                .referer(false)
                .redirect(policy)
                .build()
                .map_err(ClientError::Http)
        };
        let http =
            client(reqwest::redirect::Policy::custom(
                |attempt| match transfer::redirect_refusal(
                    attempt.previous().last(),
                    attempt.url(),
                    attempt.previous().len(),
                ) {
                    Some(why) => attempt.error(why),
                    None => attempt.follow(),
                },
            ))?;
        let signed = client(reqwest::redirect::Policy::none())?;
        let max_downloads = options.max_downloads.max(1);
        let sessions = store::Sessions::new(&options);
        Ok(Client {
            runtime,
            shared: Arc::new(Shared {
                http,
                signed,
                breaker: Mutex::default(),
                stop: tokio::sync::Notify::new(),
                limiter: Limiter::new(options.max_requests_per_second),
                options: Options {
                    max_downloads,
                    ..options
                },
                stats: Stats::default(),
                sessions,
                active: Arc::new(Semaphore::new(max_downloads)),
            }),
        })
    }

    /// What the network did so far.
    pub fn counts(&self) -> NetCounts {
        let s = &self.shared.stats;
        NetCounts {
            requests: s.requests.load(Ordering::Relaxed),
            retries: s.retries.load(Ordering::Relaxed),
            resumes: s.resumes.load(Ordering::Relaxed),
            bytes: s.bytes.load(Ordering::Relaxed),
        }
    }

    /// Why the run stopped early, if it did: its inputs kept failing the
    /// same way (see [`Options::max_failures_in_a_row`]).
    pub fn stopped(&self) -> Option<String> {
        self.shared
            .breaker
            .lock()
            .expect("breaker lock")
            .tripped
            .clone()
    }

    /// One object as a `Read` (a paths file), streamed with the run's
    /// retries and request budget: memory stays bounded whatever its size.
    pub fn open(&self, url: &RemoteUrl) -> Result<Download, FetchError> {
        let prefetch = self.prefetch(vec![(0, url.clone())], 1);
        let stream = prefetch.open(0)?;
        Ok(Download {
            stream,
            _prefetch: prefetch,
        })
    }

    /// Starts reading `urls` (each with its key), in order, ahead of
    /// [`Prefetch::open`]: at most `max_downloads` transfers at a time,
    /// and at most `ahead + max_downloads` inputs started and not yet
    /// read to their end (`ahead`: the readers, one input each).
    ///
    /// Transfers take their download slots in list order, in the
    /// scheduler: a later input's transfer never holds a slot (waiting
    /// for its reader, with a full buffer) that an earlier input, whose
    /// reader is waiting, needs.
    pub fn prefetch(&self, urls: Vec<(usize, RemoteUrl)>, ahead: usize) -> Prefetch {
        let slots = Arc::new(Slots::default());
        let window = Arc::new(Semaphore::new(
            ahead.max(1) + self.shared.options.max_downloads,
        ));
        let shared = Arc::clone(&self.shared);
        let task_slots = Arc::clone(&slots);
        let tasks: Arc<Mutex<Vec<tokio::task::AbortHandle>>> = Arc::default();
        let task_list = Arc::clone(&tasks);
        let scheduler = self.runtime.spawn(async move {
            for (key, url) in urls {
                let Ok(permit) = Arc::clone(&window).acquire_owned().await else {
                    return;
                };
                let Ok(active) = Arc::clone(&shared.active).acquire_owned().await else {
                    return;
                };
                let (tx, rx) = mpsc::channel(BUFFER_BYTES / PIECE_BYTES);
                task_slots.put(
                    key,
                    Stream {
                        rx,
                        current: Bytes::new(),
                        failed: None,
                        ended: false,
                        size: None,
                        _window: permit,
                    },
                );
                let shared = Arc::clone(&shared);
                let task = tokio::spawn(async move {
                    let _active = active;
                    let mut sink = Channel(tx);
                    let outcome = match Target::parse(&url) {
                        Ok(target) => transfer::run(&shared, &target, &mut sink).await,
                        Err(e) => Err(e),
                    };
                    shared.record(&outcome);
                    let last = match outcome {
                        Ok(()) => Piece::End,
                        Err(FetchError::Cancelled) => return,
                        Err(e) => Piece::Failed(e),
                    };
                    let _ = sink.0.send(last).await;
                });
                let mut list = task_list.lock().expect("tasks lock");
                list.retain(|t| !t.is_finished());
                list.push(task.abort_handle());
            }
        });
        Prefetch {
            slots,
            scheduler,
            tasks,
        }
    }
}

/// The inputs failing in a row the same way.
#[derive(Debug, Default)]
struct Breaker {
    /// The class of the last failures (`FetchError::class`), and how many
    /// inputs in a row failed so.
    class: Option<String>,
    count: u32,
    /// Why the run stopped.
    tripped: Option<String>,
}

impl Breaker {
    /// Counts an input's outcome; trips after `limit` (`0`: never)
    /// failures of one class in a row. Whether it tripped now.
    fn record(&mut self, outcome: &Result<(), FetchError>, limit: u32) -> bool {
        let error = match outcome {
            Ok(()) => {
                self.class = None;
                self.count = 0;
                return false;
            }
            Err(e) => e,
        };
        let Some(class) = error.class() else {
            return false;
        };
        if self.class.as_ref() == Some(&class) {
            self.count += 1;
        } else {
            self.class = Some(class);
            self.count = 1;
        }
        if limit == 0 || self.count < limit || self.tripped.is_some() {
            return false;
        }
        self.tripped = Some(format!(
            "{limit} inputs in a row failed the same way (the last: {error})"
        ));
        true
    }
}

impl Shared {
    /// Counts an input's outcome; stops the run when the breaker trips.
    fn record(&self, outcome: &Result<(), FetchError>) {
        let limit = self.options.max_failures_in_a_row;
        let tripped = self
            .breaker
            .lock()
            .expect("breaker lock")
            .record(outcome, limit);
        if tripped {
            self.stop.notify_waiters();
        }
    }

    /// `Err(Stopped)` once the run stopped.
    fn check_stopped(&self) -> Result<(), FetchError> {
        match &self.breaker.lock().expect("breaker lock").tripped {
            Some(why) => Err(FetchError::Stopped(why.clone())),
            None => Ok(()),
        }
    }

    /// Sleeps `wait`, or less if the run stops meanwhile.
    async fn sleep(&self, wait: Duration) -> Result<(), FetchError> {
        let stop = self.stop.notified();
        self.check_stopped()?;
        let _ = tokio::time::timeout(wait, stop).await;
        self.check_stopped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breaker_trips_after_failures_of_one_kind_in_a_row() {
        let refused = || {
            Err(FetchError::Transport {
                what: "cannot connect: Connection refused (os error 111)".to_owned(),
                retries: 10,
            })
        };
        let status = |status| {
            Err(FetchError::Status {
                status,
                code: None,
                retries: 0,
            })
        };
        let mut b = Breaker::default();
        for _ in 0..2 {
            assert!(!b.record(&refused(), 3));
        }
        // another kind of failure, a success, a stopped input: a new count
        assert!(!b.record(&status(404), 3));
        assert!(!b.record(&refused(), 3));
        assert!(!b.record(&Ok(()), 3));
        assert!(!b.record(&Err(FetchError::Cancelled), 3));
        assert!(!b.record(&refused(), 3) && !b.record(&refused(), 3));
        assert!(b.tripped.is_none());
        assert!(b.record(&refused(), 3));
        let why = b.tripped.clone().unwrap();
        assert!(
            why.starts_with("3 inputs in a row failed the same way"),
            "{why}"
        );
        assert!(!b.record(&refused(), 3), "trips once");
        // 0: never
        let mut b = Breaker::default();
        assert!((0..100).all(|_| !b.record(&status(503), 0)));
    }
}
