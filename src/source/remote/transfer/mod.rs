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
//! (the `remote` module's breaker).

mod answer;
mod error;
mod headers;

use std::sync::atomic::Ordering;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::HeaderMap;

use super::{Shared, Target};
use answer::{Answer, answer, body, refused, request};
pub use error::{FetchError, STOPPED};
use headers::describe;
pub(super) use headers::redirect_refusal;
pub use headers::shown;

/// Where a transfer's bytes go.
pub trait Sink {
    /// The object's size, once known.
    fn size(&mut self, _bytes: u64) {}
    /// The next bytes. `false`: nobody reads any more.
    fn put(&mut self, bytes: Bytes) -> impl Future<Output = bool> + Send;
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
                    // The error may hold a server's words.
                    eprintln!(
                        "robostats: retrying {}: {} ({retries}/{}, next in {} s)",
                        target.name(),
                        crate::terminal::escaped(&error.to_string()),
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

/// One request of a transfer: asked (resuming where the last one broke),
/// its answer checked, its body streamed into `sink`.
async fn attempt(
    shared: &Shared,
    target: &Target,
    state: &mut State,
    sink: &mut impl Sink,
) -> Attempt {
    let request = match request(shared, target, state).await {
        Ok(request) => request,
        Err(end) => return end,
    };
    let timeout = shared.options.timeout;
    shared.stats.requests.fetch_add(1, Ordering::Relaxed);
    let response = match tokio::time::timeout(timeout, request.send()).await {
        Err(_) => {
            return transport(format!("no answer within {} s", timeout.as_secs_f64()));
        }
        // A redirect refused by the policy (a downgrade to http://):
        // asking again gets the same answer.
        Ok(Err(e)) if e.is_redirect() => return Attempt::Fail(FetchError::Setup(describe(e))),
        Ok(Err(e)) => return transport(describe(e)),
        Ok(Ok(response)) => response,
    };
    let skip = match answer(state, &response) {
        Answer::Body { skip } => skip,
        Answer::End(end) => return end,
        Answer::Refused => {
            let (status, headers) = (response.status(), response.headers().clone());
            return refused(target, status, &headers, response).await;
        }
    };
    if !state.sized
        && let Some(total) = state.total
    {
        sink.size(total);
        state.sized = true;
    }
    body(shared, state, sink, response, skip).await
}

/// A failure of the connection: worth another try.
fn transport(what: String) -> Attempt {
    Attempt::Retry {
        error: FetchError::Transport { what, retries: 0 },
        wait: None,
        throttled: false,
    }
}

#[cfg(test)]
mod tests {
    use super::headers::*;
    use super::*;
    use reqwest::header;

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
        // a first answer without validators is never resumed (see `answer::request`)
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
