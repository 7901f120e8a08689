//! What a client is asked to do: the run's request budget, retries,
//! timeouts and S3 settings, and what it counts.

use std::time::Duration;

pub use crate::s3::S3Options;

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
