//! One object, start to end: GET, stream, retry, resume.
//!
//! Every request waits for its slot in the run's [`Limiter`]. A request
//! that fails in a way worth retrying (503 or S3's SlowDown, 429, other
//! 5xx, 408, a CDN's 403, a timeout, a reset, a body cut short) is sent
//! again after an exponential backoff with jitter, at least as long as a
//! `Retry-After` asks. A body broken after some bytes resumes with
//! `Range: bytes=N-` from the first byte not received, conditional on
//! the object being the one first read (`If-Match` with its ETag, else
//! `If-Unmodified-Since` with its Last-Modified), and the answer is
//! checked again (the validator sent must come back unchanged, and a
//! `Content-Range` start at N): no byte reaches the reader twice, and none
//! is skipped. A body longer than announced fails the transfer.
//!
//! Every wait is bounded: the connection, the headers and each read by
//! the timeout; a body by a minimum rate over each timeout window; the
//! resumptions of a transfer by a cap (a request that made progress starts
//! a new count of retries, at most that many times); a `Retry-After` by
//! its own cap; and a run whose inputs keep failing the same way stops
//! (module `mod`'s breaker).

use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};

use super::{Shared, Target};

/// Why an object could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchError {
    /// The server's last answer, after the retries (or at once, for an
    /// answer not worth retrying).
    Status {
        /// The HTTP status.
        status: u16,
        /// S3's error code (`AccessDenied`, `SlowDown`...), if any.
        code: Option<String>,
        /// Retries made.
        retries: u32,
    },
    /// No answer (connection refused or reset, timeout, body cut short),
    /// after the retries.
    Transport {
        /// What happened last.
        what: String,
        /// Retries made.
        retries: u32,
    },
    /// The object changed between two requests of one transfer.
    Changed {
        /// What told.
        how: String,
    },
    /// A broken transfer that cannot be resumed safely.
    Unresumable(String),
    /// The URL cannot be read by this client (or S3 is not set up).
    Setup(String),
    /// The reader went away (the run is stopping).
    Cancelled,
    /// Not read: the run stopped early, because its inputs kept failing
    /// the same way (the reason).
    Stopped(String),
}

/// How the reason of an input the stopped run did not read begins.
pub const STOPPED: &str = "not read: the run stopped";

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tries = |retries: &u32| match retries {
            0 => String::new(),
            1 => ", after 1 retry".to_owned(),
            n => format!(", after {n} retries"),
        };
        match self {
            FetchError::Status {
                status,
                code,
                retries,
            } => {
                let reason = StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("");
                write!(f, "HTTP {status} {reason}")?;
                if let Some(code) = code {
                    write!(f, " ({code})")?;
                }
                write!(f, "{}", tries(retries))
            }
            FetchError::Transport { what, retries } => write!(f, "{what}{}", tries(retries)),
            FetchError::Changed { how } => write!(
                f,
                "the object changed while it was read ({how}): the next run reads it again \
                 from the start"
            ),
            FetchError::Unresumable(why) => write!(f, "{why}"),
            FetchError::Setup(why) => write!(f, "{why}"),
            FetchError::Cancelled => f.write_str("the run stopped"),
            FetchError::Stopped(why) => write!(f, "{STOPPED} after {why}"),
        }
    }
}

impl std::error::Error for FetchError {}

impl FetchError {
    /// What kind of failure this is, for the run's breaker: the status,
    /// or the words of a transport failure without their figures.
    /// `None`: not a failure of the input (the run is stopping).
    pub(super) fn class(&self) -> Option<String> {
        match self {
            FetchError::Status { status, code, .. } => {
                Some(format!("HTTP {status} {}", code.as_deref().unwrap_or("")))
            }
            FetchError::Transport { what, .. } => {
                Some(what.chars().filter(|c| !c.is_ascii_digit()).collect())
            }
            FetchError::Changed { .. } => Some("changed".to_owned()),
            FetchError::Unresumable(_) => Some("unresumable".to_owned()),
            FetchError::Setup(why) => Some(why.clone()),
            FetchError::Cancelled | FetchError::Stopped(_) => None,
        }
    }

    /// As an I/O error, for the reader.
    pub fn into_io(self) -> std::io::Error {
        let kind = match &self {
            FetchError::Status { status: 404, .. } | FetchError::Status { status: 410, .. } => {
                std::io::ErrorKind::NotFound
            }
            FetchError::Status {
                status: 401 | 403, ..
            } => std::io::ErrorKind::PermissionDenied,
            FetchError::Transport { .. } => std::io::ErrorKind::TimedOut,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, self)
    }
}

/// Where a transfer's bytes go.
pub trait Sink {
    /// The object's size, once known.
    fn size(&mut self, _bytes: u64) {}
    /// The next bytes. `false`: nobody reads any more.
    fn put(&mut self, bytes: Bytes) -> impl Future<Output = bool> + Send;
}

/// What the object was when first read: how a resumed request asks for
/// the same object.
#[derive(Clone, Debug)]
enum Validator {
    ETag(String),
    LastModified(String),
}

/// How one attempt ended.
enum Attempt {
    /// All bytes delivered.
    Done,
    /// Worth another try after `wait` (at least), and whether the server
    /// asked the run to slow down.
    Retry {
        error: FetchError,
        wait: Option<Duration>,
        throttled: bool,
    },
    /// Not worth another try.
    Fail(FetchError),
}

/// Reads `target` into `sink`, start to end.
pub(super) async fn run(
    shared: &Shared,
    target: &Target,
    sink: &mut impl Sink,
) -> Result<(), FetchError> {
    let options = &shared.options;
    let mut state = State::default();
    let mut retries = 0u32;
    let mut resumes = 0u32;
    loop {
        shared.check_stopped()?;
        let wait = shared.limiter.reserve();
        if !wait.is_zero() {
            shared.sleep(wait).await?;
        }
        let before = state.received;
        let outcome = attempt(shared, target, &mut state, sink).await;
        match outcome {
            Attempt::Done => {
                shared.limiter.succeeded();
                return Ok(());
            }
            Attempt::Fail(e) => return Err(with_retries(e, retries)),
            Attempt::Retry {
                error,
                wait,
                throttled,
            } => {
                // A request that moved the transfer on starts a new count,
                // at most `max_resumes` times: a server that cuts every
                // answer short is not asked again for ever.
                if state.received > before {
                    resumes += 1;
                    if resumes > options.max_resumes {
                        return Err(broke(error, resumes, retries));
                    }
                    retries = 0;
                }
                if retries >= options.retries {
                    return Err(with_retries(error, retries));
                }
                let backoff = backoff(options.retry_wait, options.retry_wait_max, retries);
                let asked = wait.map(|w| w.min(options.retry_after_max));
                let pause = asked.map_or(backoff, |w| w.max(backoff));
                if throttled {
                    shared.limiter.throttled(pause, options.max_downloads);
                }
                retries += 1;
                shared.stats.retries.fetch_add(1, Ordering::Relaxed);
                if options.log_retries {
                    eprintln!(
                        "robostats: retrying {}: {error} ({retries}/{}, next in {} s)",
                        target.name(),
                        options.retries,
                        seconds(pause)
                    );
                }
                shared.sleep(pause).await?;
            }
        }
    }
}

/// A wait in words: whole seconds, or tenths below 10 s.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.0}")
    }
}

/// The error of a transfer that broke more often than it may resume.
fn broke(e: FetchError, resumes: u32, retries: u32) -> FetchError {
    match with_retries(e, retries) {
        FetchError::Transport { what, retries } => FetchError::Transport {
            what: format!("{what} (the transfer broke {resumes} times)"),
            retries,
        },
        other => other,
    }
}

fn with_retries(e: FetchError, n: u32) -> FetchError {
    match e {
        FetchError::Status { status, code, .. } => FetchError::Status {
            status,
            code,
            retries: n,
        },
        FetchError::Transport { what, .. } => FetchError::Transport { what, retries: n },
        other => other,
    }
}

/// The wait before retry `n` (from 0): `first` doubled `n` times, at most
/// `max`, then a random point of its upper half ("equal jitter": spread,
/// yet never much shorter than planned).
pub fn backoff(first: Duration, max: Duration, n: u32) -> Duration {
    let planned = first.checked_mul(1u32 << n.min(30)).unwrap_or(max).min(max);
    planned.mul_f64(0.5 + fastrand::f64() * 0.5)
}

/// What a transfer knows between its requests.
#[derive(Default)]
struct State {
    received: u64,
    total: Option<u64>,
    /// The first answer's headers: what the object was (its validators).
    first: HeaderMap,
    sized: bool,
    /// The end of the bytes this answer announced (exclusive): more is
    /// an error.
    limit: Option<u64>,
}

async fn attempt(
    shared: &Shared,
    target: &Target,
    state: &mut State,
    sink: &mut impl Sink,
) -> Attempt {
    let timeout = shared.options.timeout;
    let transport = |what: String| Attempt::Retry {
        error: FetchError::Transport { what, retries: 0 },
        wait: None,
        throttled: false,
    };
    let (url, signature) = match target.request(shared).await {
        Ok(request) => request,
        Err(e) => return Attempt::Fail(FetchError::Setup(e)),
    };
    let client = if target.is_s3() {
        &shared.signed
    } else {
        &shared.http
    };
    let mut request = client.get(url);
    for (name, value) in signature {
        request = request.header(name, value);
    }
    let resuming = state.received > 0;
    if resuming {
        request = request.header(header::RANGE, format!("bytes={}-", state.received));
        request = match validator(&state.first) {
            Some(Validator::ETag(tag)) => request.header(header::IF_MATCH, tag),
            Some(Validator::LastModified(at)) => request.header(header::IF_UNMODIFIED_SINCE, at),
            None => {
                return Attempt::Fail(FetchError::Unresumable(
                    "the transfer broke, and the server gives no ETag or Last-Modified to \
                     resume it safely: the next run reads it again from the start"
                        .to_owned(),
                ));
            }
        };
        shared.stats.resumes.fetch_add(1, Ordering::Relaxed);
    }
    shared.stats.requests.fetch_add(1, Ordering::Relaxed);
    let mut response = match tokio::time::timeout(timeout, request.send()).await {
        Err(_) => {
            return transport(format!("no answer within {} s", timeout.as_secs_f64()));
        }
        // A redirect refused by the policy (a downgrade to http://):
        // asking again gets the same answer.
        Ok(Err(e)) if e.is_redirect() => return Attempt::Fail(FetchError::Setup(describe(e))),
        Ok(Err(e)) => return transport(describe(e)),
        Ok(Ok(response)) => response,
    };
    let status = response.status();
    let headers = response.headers().clone();
    let mut skip = 0u64;
    match status.as_u16() {
        200 => {
            if resuming {
                // The server ignored the range: the same object (its
                // validator unchanged), read past what was received.
                if let Some(changed) = changed(&state.first, &headers) {
                    return Attempt::Fail(changed);
                }
                state.limit = state.total;
                if let (Some(then), Some(now)) = (state.total, response.content_length())
                    && then != now
                {
                    return Attempt::Fail(FetchError::Changed {
                        how: format!("its size went from {then} to {now} bytes"),
                    });
                }
                skip = state.received;
            } else {
                state.total = response.content_length();
                state.limit = state.total;
                state.first = headers.clone();
            }
        }
        206 if resuming => {
            if let Some(changed) = changed(&state.first, &headers) {
                return Attempt::Fail(changed);
            }
            match content_range(&headers) {
                Some((start, end, total)) if start == state.received => {
                    match (state.total, total) {
                        (Some(then), Some(now)) if then != now => {
                            return Attempt::Fail(FetchError::Changed {
                                how: format!("its size went from {then} to {now} bytes"),
                            });
                        }
                        (None, now) => state.total = now,
                        _ => {}
                    }
                    state.limit = Some(end.saturating_add(1));
                }
                _ => {
                    return Attempt::Fail(FetchError::Unresumable(format!(
                        "the server answered a request for the bytes from {} with other bytes \
                         (Content-Range: {})",
                        state.received,
                        header_text(&headers, header::CONTENT_RANGE).unwrap_or("none")
                    )));
                }
            }
        }
        416 if resuming => {
            // Nothing left: the transfer was complete (a Content-Length
            // that promised more than the object has).
            return match content_range_total(&headers) {
                Some(total) if total == state.received => Attempt::Done,
                _ => Attempt::Fail(FetchError::Changed {
                    how: format!(
                        "it no longer has the bytes from {} (Content-Range: {})",
                        state.received,
                        header_text(&headers, header::CONTENT_RANGE).unwrap_or("none")
                    ),
                }),
            };
        }
        412 if resuming => {
            return Attempt::Fail(FetchError::Changed {
                how: "the server says it is not the object first read (412)".to_owned(),
            });
        }
        _ => return refused(target, status, &headers, response).await,
    }
    if !state.sized
        && let Some(total) = state.total
    {
        sink.size(total);
        state.sized = true;
    }
    // The body's pace: at least `min_rate` bytes a second over each
    // window of `timeout` (a trickle is a stall).
    let min_rate = shared.options.min_rate;
    let mut window = (tokio::time::Instant::now(), 0u64);
    loop {
        match tokio::time::timeout(timeout, response.chunk()).await {
            Err(_) => {
                return transport(format!(
                    "the transfer stalled: no data for {} s",
                    timeout.as_secs_f64()
                ));
            }
            Ok(Err(e)) => return transport(describe(e)),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(mut bytes))) => {
                if skip > 0 {
                    let n = skip.min(bytes.len() as u64);
                    skip -= n;
                    bytes = bytes.slice(n as usize..);
                    if bytes.is_empty() {
                        continue;
                    }
                }
                let len = bytes.len() as u64;
                if let Some(limit) = state.limit
                    && state.received + len > limit
                {
                    return Attempt::Fail(FetchError::Unresumable(format!(
                        "the server sent more bytes than it announced (more than {limit}): \
                         the transfer cannot be trusted"
                    )));
                }
                state.received += len;
                window.1 += len;
                let elapsed = window.0.elapsed();
                if elapsed >= timeout {
                    if min_rate > 0.0 && (window.1 as f64) < min_rate * elapsed.as_secs_f64() {
                        // Delivered first: the resumption starts after them.
                        shared.stats.bytes.fetch_add(len, Ordering::Relaxed);
                        if !sink.put(bytes).await {
                            return Attempt::Fail(FetchError::Cancelled);
                        }
                        return transport(format!(
                            "the transfer was too slow: {} bytes in {:.0} s, under the \
                             minimum of {} bytes a second",
                            window.1,
                            elapsed.as_secs_f64(),
                            min_rate
                        ));
                    }
                    window = (tokio::time::Instant::now(), 0);
                }
                shared
                    .stats
                    .bytes
                    .fetch_add(bytes.len() as u64, Ordering::Relaxed);
                if !sink.put(bytes).await {
                    return Attempt::Fail(FetchError::Cancelled);
                }
            }
        }
    }
    match state.total {
        Some(total) if state.received < total => transport(format!(
            "the body ended after {} of {total} bytes",
            state.received
        )),
        _ if skip > 0 => transport(format!(
            "the body ended before the bytes from {}",
            state.received
        )),
        _ => Attempt::Done,
    }
}

/// An answer other than the object's bytes: retried, or failed.
async fn refused(
    target: &Target,
    status: StatusCode,
    headers: &HeaderMap,
    response: reqwest::Response,
) -> Attempt {
    // S3 says why in an XML body (`<Code>SlowDown</Code>`): its first
    // 4 KiB are enough.
    let mut response = response;
    let mut body = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while body.len() < 4096 {
            match response.chunk().await {
                Ok(Some(bytes)) => body.extend_from_slice(&bytes),
                _ => break,
            }
        }
    })
    .await;
    let code = s3_code(&body);
    let error = FetchError::Status {
        status: status.as_u16(),
        code: code.clone(),
        retries: 0,
    };
    let retry_after = retry_after(headers);
    let slow_down = code.as_deref() == Some("SlowDown");
    match status.as_u16() {
        429 | 503 => Attempt::Retry {
            error,
            wait: retry_after,
            throttled: true,
        },
        // CloudFront's rate limit is a 403 (an HTML page); S3's 403, on
        // s3:// or behind a CDN, says why in its XML (`AccessDenied`...),
        // an answer about credentials that asking again will not change.
        403 if !target.is_s3() && code.is_none() => Attempt::Retry {
            error,
            wait: retry_after,
            throttled: true,
        },
        408 | 500..=599 => Attempt::Retry {
            error,
            wait: retry_after,
            throttled: slow_down,
        },
        // Signed requests follow no redirect (the signature, the session
        // token and the request's path would go elsewhere).
        300..=399 if target.is_s3() => Attempt::Fail(FetchError::Setup(format!(
            "the S3 endpoint answered {error} with a redirect to {}: a signed request is \
             not sent anywhere else (give --s3-endpoint or --s3-region of the bucket's \
             own endpoint)",
            header_text(headers, header::LOCATION).map_or_else(|| "nowhere".to_owned(), shown)
        ))),
        _ => Attempt::Fail(error),
    }
}

/// A URL as it may be shown: without user name, password, query or
/// fragment (a signature may be in them); text that is not a URL is
/// shown up to its first `?` or `#`, without what is before an `@` of its
/// authority.
pub fn shown(text: &str) -> String {
    let text = text.split(['?', '#']).next().unwrap_or("");
    match text.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(end);
            let host = authority
                .rsplit_once('@')
                .map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => text.to_owned(),
    }
}

/// Whether a redirect from `from` to `to` is followed (`None`), or why
/// not: never from https:// to anything else, at most 10 in a row.
pub(super) fn redirect_refusal(
    from: Option<&url::Url>,
    to: &url::Url,
    hops: usize,
) -> Option<String> {
    if hops >= 10 {
        return Some(format!(
            "more than 10 redirects in a row (the last to {})",
            shown(to.as_str())
        ));
    }
    let from_https = from.is_some_and(|u| u.scheme() == "https");
    if from_https && to.scheme() != "https" {
        return Some(format!(
            "a redirect from https:// to {} is not followed (it would send the request in \
             clear text)",
            shown(to.as_str())
        ));
    }
    if !matches!(to.scheme(), "http" | "https") {
        return Some(format!(
            "a redirect to {} is not followed",
            shown(to.as_str())
        ));
    }
    None
}

/// A reqwest error in words, without its URL.
fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "cannot connect".to_owned()
    } else if e.is_body() || e.is_decode() {
        "the body broke off".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// How a resumed request can ask for the same object: a strong ETag
/// (a weak one never matches `If-Match`), else Last-Modified.
fn validator(headers: &HeaderMap) -> Option<Validator> {
    match header_text(headers, header::ETAG) {
        Some(tag) if !tag.starts_with("W/") => Some(Validator::ETag(tag.to_owned())),
        _ => header_text(headers, header::LAST_MODIFIED)
            .map(|at| Validator::LastModified(at.to_owned())),
    }
}

/// Whether a resumed answer is of another object than the first one: the
/// validator the resumption sent (ETag, else Last-Modified) must come
/// back unchanged, and the other header, where both answers have it, too.
fn changed(first: &HeaderMap, now: &HeaderMap) -> Option<FetchError> {
    let (required, spelt) = match validator(first) {
        Some(Validator::ETag(_)) => (header::ETAG, "ETag"),
        _ => (header::LAST_MODIFIED, "Last-Modified"),
    };
    if header_text(first, required.clone()).is_some()
        && header_text(now, required.clone()).is_none()
    {
        return Some(FetchError::Changed {
            how: format!(
                "the answer to the resumed request has no {spelt}, so it may be another object"
            ),
        });
    }
    [header::ETAG, header::LAST_MODIFIED]
        .into_iter()
        .find_map(|name| {
            match (
                header_text(first, name.clone()),
                header_text(now, name.clone()),
            ) {
                (Some(then), Some(now)) if then != now => Some(FetchError::Changed {
                    how: format!("{name} {then} became {now}"),
                }),
                _ => None,
            }
        })
}

/// `Content-Range: bytes START-END/TOTAL`: START, END, and TOTAL if
/// known.
fn content_range(headers: &HeaderMap) -> Option<(u64, u64, Option<u64>)> {
    let text = header_text(headers, header::CONTENT_RANGE)?.trim();
    let rest = text.strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (start, end) = range.split_once('-')?;
    let (start, end) = (start.trim().parse().ok()?, end.trim().parse().ok()?);
    (start <= end).then_some((start, end, total.trim().parse().ok()))
}

/// `Content-Range: bytes */TOTAL` (a 416's): TOTAL.
fn content_range_total(headers: &HeaderMap) -> Option<u64> {
    let text = header_text(headers, header::CONTENT_RANGE)?.trim();
    text.strip_prefix("bytes */")?.trim().parse().ok()
}

/// `Retry-After`: seconds, or an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = header_text(headers, header::RETRY_AFTER)?.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(Duration::from_secs(seconds.min(3600)));
    }
    let at = httpdate::parse_http_date(text).ok()?;
    let wait = at
        .duration_since(std::time::SystemTime::now())
        .unwrap_or(Duration::ZERO);
    Some(wait.min(Duration::from_secs(3600)))
}

/// S3's error code, from its XML error body.
fn s3_code(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let start = text.find("<Code>")? + "<Code>".len();
    let end = start + text[start..].find("</Code>")?;
    let code = text[start..end].trim();
    (!code.is_empty() && code.len() <= 64 && code.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then(|| code.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn backoff_doubles_to_its_cap_with_jitter_in_the_upper_half() {
        let first = Duration::from_secs(1);
        let max = Duration::from_secs(60);
        for n in 0..40 {
            let planned = (1u64 << n.min(30)).min(60) as f64;
            let wait = backoff(first, max, n).as_secs_f64();
            assert!(wait >= planned / 2.0 && wait <= planned, "{n}: {wait}");
        }
    }

    #[test]
    fn answers_headers_are_read() {
        let h = headers(&[
            ("content-range", "bytes 100-199/200"),
            ("etag", "\"abc\""),
            ("retry-after", "7"),
        ]);
        assert_eq!(content_range(&h), Some((100, 199, Some(200))));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        assert!(matches!(validator(&h), Some(Validator::ETag(t)) if t == "\"abc\""));
        let weak = headers(&[
            ("etag", "W/\"x\""),
            ("last-modified", "Tue, 01 Jan 2030 00:00:00 GMT"),
        ]);
        assert!(matches!(validator(&weak), Some(Validator::LastModified(_))));
        assert_eq!(
            content_range_total(&headers(&[("content-range", "bytes */512")])),
            Some(512)
        );
        let later = headers(&[("retry-after", "Tue, 01 Jan 2199 00:00:00 GMT")]);
        assert_eq!(retry_after(&later), Some(Duration::from_secs(3600)));
    }

    #[test]
    fn s3_error_codes_are_read_from_their_xml() {
        let body = b"<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>";
        assert_eq!(s3_code(body).as_deref(), Some("SlowDown"));
        assert_eq!(s3_code(b"<html>403</html>"), None);
    }

    proptest::proptest! {
        /// Whatever a server sends in these headers and error bodies, they
        /// are read without a panic, and a Content-Range read back is the
        /// one written.
        #[test]
        fn servers_headers_never_panic(
            value in "[ -~]{0,80}",
            body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
            start in 0u64..1 << 40,
            len in 1u64..1 << 20,
        ) {
            if let Ok(v) = value.parse::<reqwest::header::HeaderValue>() {
                let mut h = HeaderMap::new();
                for name in [header::CONTENT_RANGE, header::RETRY_AFTER, header::ETAG, header::LAST_MODIFIED] {
                    h.insert(name, v.clone());
                }
                let _ = (content_range(&h), content_range_total(&h), retry_after(&h), validator(&h));
            }
            let _ = s3_code(&body);
            let mut wrapped = b"<Error><Code>".to_vec();
            wrapped.extend_from_slice(&body);
            let _ = s3_code(&wrapped);
            let h = headers(&[("content-range", &format!("bytes {start}-{}/{}", start + len - 1, start + len))]);
            proptest::prop_assert_eq!(content_range(&h), Some((start, start + len - 1, Some(start + len))));
        }
    }

    #[test]
    fn redirects_never_downgrade_and_end() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        let https = u("https://a.example/x");
        let http = u("http://b.example/x");
        assert!(redirect_refusal(Some(&https), &u("https://b.example/y"), 0).is_none());
        assert!(redirect_refusal(Some(&http), &u("https://b.example/y"), 0).is_none());
        assert!(redirect_refusal(Some(&http), &http, 3).is_none());
        let why =
            redirect_refusal(Some(&https), &u("http://u:secret@b.example/k?sig=1"), 0).unwrap();
        assert!(
            why.contains("http://b.example/k") && !why.contains("secret") && !why.contains("sig"),
            "{why}"
        );
        assert!(redirect_refusal(Some(&http), &u("ftp://b.example/"), 0).is_some());
        assert!(redirect_refusal(Some(&http), &http, 10).is_some());
    }

    #[test]
    fn urls_are_shown_without_userinfo_or_query() {
        assert_eq!(
            shown("https://u:p@h:1/a?X-Goog-Signature=1#f"),
            "https://h:1/a"
        );
        assert_eq!(shown("http://user:p@ss@host/x"), "http://host/x");
        assert_eq!(shown("s3://b/k"), "s3://b/k");
        assert_eq!(shown("http://[::1"), "http://[::1");
        assert_eq!(shown("no scheme?q"), "no scheme");
        assert_eq!(shown("é://ü@é"), "é://é");
    }

    #[test]
    fn a_resumed_answer_must_bring_back_its_validator() {
        let first = headers(&[
            ("etag", "\"a\""),
            ("last-modified", "Tue, 01 Jan 2030 00:00:00 GMT"),
        ]);
        assert!(changed(&first, &first).is_none());
        // no ETag, no Last-Modified: another object, perhaps
        assert!(changed(&first, &HeaderMap::new()).is_some());
        assert!(changed(&first, &headers(&[("etag", "\"b\"")])).is_some());
        let dated = headers(&[("last-modified", "Tue, 01 Jan 2030 00:00:00 GMT")]);
        assert!(changed(&dated, &dated).is_none());
        assert!(changed(&dated, &headers(&[("etag", "\"b\"")])).is_some());
        // a first answer without validators is never resumed (see attempt)
        assert!(changed(&HeaderMap::new(), &HeaderMap::new()).is_none());
        assert_eq!(
            content_range(&headers(&[("content-range", "bytes 9-3/10")])),
            None
        );
    }

    #[test]
    fn failures_of_one_kind_are_one_class() {
        let a = FetchError::Transport {
            what: "the body ended after 10 of 700 bytes".into(),
            retries: 1,
        };
        let b = FetchError::Transport {
            what: "the body ended after 20 of 700 bytes".into(),
            retries: 3,
        };
        assert_eq!(a.class(), b.class());
        assert_ne!(
            a.class(),
            FetchError::Status {
                status: 503,
                code: None,
                retries: 0
            }
            .class()
        );
        assert_eq!(FetchError::Cancelled.class(), None);
    }

    #[test]
    fn errors_say_what_and_how_often() {
        let e = FetchError::Status {
            status: 503,
            code: Some("SlowDown".to_owned()),
            retries: 10,
        };
        assert_eq!(
            e.to_string(),
            "HTTP 503 Service Unavailable (SlowDown), after 10 retries"
        );
        let e = FetchError::Changed {
            how: "ETag \"a\" became \"b\"".to_owned(),
        };
        assert!(e.to_string().contains("changed"));
    }
}
