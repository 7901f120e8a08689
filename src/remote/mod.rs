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
//! web identity, container and instance roles); see module `s3`. The price is
//! the build: 2.7-4.5 min alone, the most of it aws-config's.
//!
//! # The bridge to the workers
//!
//! The workers are rayon threads reading `std::io::Read`. The only meeting
//! point of the two worlds is a bounded channel per transfer: the async
//! transfer sends pieces, and [`Stream`] (a `Read`) receives them with
//! a blocking call. Nothing else of tokio leaves this module.

mod limit;
mod s3;
mod transfer;

use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use url::Url;

pub use limit::Limiter;
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

/// How the network is used.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Requests per second for the whole run, every request counted
    /// (`0`: no cap). Default 2: Common Crawl asks for "a few thousand
    /// requests per second, not millions" from everyone together, and its
    /// CDN answers 403 within minutes to eager downloads of the robotstxt
    /// subset; 2 a second reads a monthly subset (~100,000 files) in
    /// about 14 hours.
    pub max_requests_per_second: f64,
    /// Transfers at a time. Default 2: the `max_concurrent_requests` of
    /// the AWS profile Common Crawl recommends.
    pub max_downloads: usize,
    /// Retries of one request (a request that moves a transfer on starts
    /// a new count, at most `max_resumes` times). Default 10.
    pub retries: u32,
    /// Resumptions of one transfer: how often a request that made
    /// progress may start a new count of retries. Default 20 (a 3 MB file
    /// cut every 150 KB still arrives; a server that cuts every answer
    /// after a few bytes is asked 21 times, not for ever).
    pub max_resumes: u32,
    /// The wait before the first retry, doubled at each next one.
    /// Default 1 s ("no more than once per second", Common Crawl's advice
    /// for retrying whole files).
    pub retry_wait: Duration,
    /// The longest wait between retries. Default 120 s.
    pub retry_wait_max: Duration,
    /// The longest `Retry-After` honoured. Default 120 s (the longest
    /// backoff): a server asking for an hour does not pause the run for
    /// an hour at each retry.
    pub retry_after_max: Duration,
    /// How long to wait for a connection, an answer, or the next bytes of
    /// a body; and the window of `min_rate`. Default 60 s.
    pub timeout: Duration,
    /// The slowest body accepted, bytes a second over each `timeout`
    /// window; slower is a stall (retried, resumed). `0.0`: no minimum.
    /// Default 10 KiB/s: a 3 MB robotstxt file within 5 minutes.
    pub min_rate: f64,
    /// After this many inputs in a row failed the same way, the run stops
    /// (the inputs not read yet fail at once, without a request). `0`:
    /// never. Default 20.
    pub max_failures_in_a_row: u32,
    /// Each retry as a line on standard error (without a progress bar).
    pub log_retries: bool,
    /// S3's set-up.
    pub s3: S3Options,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_requests_per_second: 2.0,
            max_downloads: 2,
            retries: 10,
            max_resumes: 20,
            retry_wait: Duration::from_secs(1),
            retry_wait_max: Duration::from_secs(120),
            retry_after_max: Duration::from_secs(120),
            timeout: Duration::from_secs(60),
            min_rate: 10_240.0,
            max_failures_in_a_row: 20,
            log_retries: false,
            s3: S3Options::default(),
        }
    }
}

/// How `s3://` URLs are read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct S3Options {
    /// The endpoint (an S3-compatible store); else `AWS_ENDPOINT_URL_S3`,
    /// `AWS_ENDPOINT_URL` or the profile's, else AWS.
    pub endpoint: Option<String>,
    /// The region; else the AWS chain's, else `us-east-1`.
    pub region: Option<String>,
    /// Unsigned requests, for public buckets that allow them.
    pub anonymous: bool,
}

/// What the network did in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetCounts {
    /// Requests sent.
    pub requests: u64,
    /// Requests sent again after a failure.
    pub retries: u64,
    /// Requests that resumed a broken transfer with a range.
    pub resumes: u64,
    /// Body bytes received.
    pub bytes: u64,
}

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
    /// S3's set-up, made at the first `s3://` URL.
    s3: tokio::sync::OnceCell<Result<s3::S3, String>>,
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

/// Whether `text` names a remote input (a URL this client reads).
pub fn is_url(text: &str) -> bool {
    ["http://", "https://", "s3://"].iter().any(|scheme| {
        text.len() > scheme.len()
            && text
                .get(..scheme.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
    })
}

impl Client {
    /// A client; nothing is sent yet.
    pub fn new(options: Options) -> Result<Client, ClientError> {
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
                s3: tokio::sync::OnceCell::new(),
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
    pub fn open(&self, url: &Url) -> Result<Download, FetchError> {
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
    pub fn prefetch(&self, urls: Vec<(usize, Url)>, ahead: usize) -> Prefetch {
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

/// One object being read: a `Read` (see [`Client::open`]).
pub struct Download {
    stream: Stream,
    _prefetch: Prefetch,
}

impl Read for Download {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.read(buf)
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

/// What a transfer sends its reader.
enum Piece {
    /// The object's size.
    Size(u64),
    /// The next bytes.
    Data(Bytes),
    /// All bytes were sent.
    End,
    /// The transfer failed.
    Failed(FetchError),
}

/// A transfer's end of the channel.
struct Channel(mpsc::Sender<Piece>);

impl transfer::Sink for Channel {
    fn size(&mut self, bytes: u64) {
        let _ = self.0.try_send(Piece::Size(bytes));
    }

    async fn put(&mut self, mut bytes: Bytes) -> bool {
        while !bytes.is_empty() {
            let piece = bytes.split_to(bytes.len().min(PIECE_BYTES));
            if self.0.send(Piece::Data(piece)).await.is_err() {
                return false;
            }
        }
        true
    }
}

/// A remote input as this client reaches it.
pub(crate) enum Target {
    /// `http://` or `https://`: the URL itself.
    Http(Url),
    /// `s3://bucket/key`.
    S3(Url),
}

impl Target {
    fn parse(url: &Url) -> Result<Target, FetchError> {
        match url.scheme() {
            "http" | "https" => Ok(Target::Http(url.clone())),
            "s3" => Ok(Target::S3(url.clone())),
            other => Err(FetchError::Setup(format!(
                "robostats reads http://, https:// and s3:// URLs, not {other}://"
            ))),
        }
    }

    pub(crate) fn is_s3(&self) -> bool {
        matches!(self, Target::S3(_))
    }

    /// The URL as given (`s3://...` for S3), for messages.
    fn name(&self) -> &str {
        match self {
            Target::Http(url) | Target::S3(url) => url.as_str(),
        }
    }

    /// The URL to send a GET to, and the headers that sign it.
    async fn request(&self, shared: &Shared) -> Result<(Url, Vec<(String, String)>), String> {
        match self {
            Target::Http(url) => Ok((url.clone(), Vec::new())),
            Target::S3(s3_url) => {
                let s3 = shared
                    .s3
                    .get_or_init(|| s3::S3::new(&shared.options.s3))
                    .await
                    .as_ref()
                    .map_err(Clone::clone)?;
                let url = s3.object_url(s3_url)?;
                let signature = s3.sign(&url).await?;
                Ok((url, signature))
            }
        }
    }
}

/// The transfers of a run, started ahead of their readers.
pub struct Prefetch {
    slots: Arc<Slots>,
    scheduler: tokio::task::JoinHandle<()>,
    /// The transfers started, to stop them with the run.
    tasks: Arc<Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Prefetch {
    /// The stream of the input `key`, once its transfer has an answer:
    /// blocks until then. An input that cannot be read at all fails here.
    pub fn open(&self, key: usize) -> Result<Stream, FetchError> {
        let mut stream = self.slots.take(key);
        stream.start()?;
        Ok(stream)
    }
}

impl Prefetch {
    /// Stops every transfer, at once: no transfer starts, the ones
    /// started (sending, waiting for a slot, or in a backoff) end, and a
    /// reader waiting for bytes gets an error ("the run stopped").
    pub fn cancel(&self) {
        self.scheduler.abort();
        for task in self.tasks.lock().expect("tasks lock").drain(..) {
            task.abort();
        }
        self.slots.map.lock().expect("slots lock").clear();
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Streams started and not yet taken by a reader.
#[derive(Default)]
struct Slots {
    map: Mutex<HashMap<usize, Stream>>,
    ready: Condvar,
}

impl Slots {
    fn put(&self, key: usize, stream: Stream) {
        self.map.lock().expect("slots lock").insert(key, stream);
        self.ready.notify_all();
    }

    fn take(&self, key: usize) -> Stream {
        let mut map = self.map.lock().expect("slots lock");
        loop {
            if let Some(stream) = map.remove(&key) {
                return stream;
            }
            map = self.ready.wait(map).expect("slots lock");
        }
    }
}

/// A remote input's bytes, as they arrive: a `Read`.
pub struct Stream {
    rx: mpsc::Receiver<Piece>,
    current: Bytes,
    /// The transfer failed: the same error at every read from now on.
    failed: Option<FetchError>,
    ended: bool,
    size: Option<u64>,
    /// Frees the input's place in the prefetch window when read.
    _window: OwnedSemaphorePermit,
}

impl Stream {
    /// Waits for the transfer's first news: its size, its first bytes,
    /// its end, or its failure.
    fn start(&mut self) -> Result<(), FetchError> {
        self.receive();
        self.failed.take().map_or(Ok(()), Err)
    }

    /// Waits for the transfer's next piece and takes it in.
    fn receive(&mut self) {
        match self.rx.blocking_recv() {
            Some(Piece::Data(bytes)) => self.current = bytes,
            Some(Piece::Size(n)) => self.size = Some(n),
            Some(Piece::End) => self.ended = true,
            Some(Piece::Failed(e)) => self.failed = Some(e),
            // The transfer went without a word: it was stopped (the run is
            // stopping), or it failed unexpectedly.
            None => self.failed = Some(FetchError::Cancelled),
        }
    }

    /// The object's size, when the server said it.
    pub fn size(&self) -> Option<u64> {
        self.size
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if !self.current.is_empty() {
                let n = buf.len().min(self.current.len());
                buf[..n].copy_from_slice(&self.current[..n]);
                let _ = self.current.split_to(n);
                return Ok(n);
            }
            if let Some(e) = &self.failed {
                return Err(e.clone().into_io());
            }
            if self.ended {
                return Ok(0);
            }
            self.receive();
        }
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

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_url("https://data.commoncrawl.org/x"));
        assert!(is_url("S3://commoncrawl/x"));
        assert!(is_url("http://127.0.0.1:8000/"));
        assert!(!is_url("s3://"));
        assert!(!is_url("data/https://x"));
        assert!(!is_url("samples/a.warc.gz"));
        assert!(!is_url("résumés.warc.gz"));
        assert!(!is_url("é"));
    }
}
