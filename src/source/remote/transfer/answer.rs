//! One request and its answer: the request (signed; ranged and
//! conditional when resuming), the answer checked against what the
//! transfer knows, and its body streamed at a minimum rate.

use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};

use super::headers::{
    Validator, changed, content_range, content_range_total, describe, header_text, retry_after,
    s3_code, shown, validator,
};
use super::{Attempt, FetchError, Sink, State, transport};
use crate::source::remote::{Shared, Target};

/// The request: signed if its store signs (S3); when resuming, for the
/// bytes not received yet, and only if the object is still the one first
/// read (its ETag, or its Last-Modified). `Err`: how the attempt ends
/// without a request.
pub(super) async fn request(
    shared: &Shared,
    target: &Target,
    state: &State,
) -> Result<reqwest::RequestBuilder, Attempt> {
    let (url, signature) = target
        .request(shared)
        .await
        .map_err(|e| Attempt::Fail(FetchError::Setup(e)))?;
    let client = if target.signed() {
        &shared.signed
    } else {
        &shared.http
    };
    let mut request = client.get(url);
    for (name, value) in signature {
        request = request.header(name, value);
    }
    if state.received == 0 {
        return Ok(request);
    }
    request = request.header(header::RANGE, format!("bytes={}-", state.received));
    request = match validator(&state.first) {
        Some(Validator::ETag(tag)) => request.header(header::IF_MATCH, tag),
        Some(Validator::LastModified(at)) => request.header(header::IF_UNMODIFIED_SINCE, at),
        None => {
            return Err(Attempt::Fail(FetchError::Unresumable(
                "the transfer broke, and the server gives no ETag or Last-Modified to \
                 resume it safely: the next run reads it again from the start"
                    .to_owned(),
            )));
        }
    };
    shared.stats.resumes.fetch_add(1, Ordering::Relaxed);
    Ok(request)
}

/// What an answer means for the transfer.
pub(super) enum Answer {
    /// The object's bytes follow, once the first `skip` are dropped (a
    /// server that ignored the range sends the object from its start).
    Body { skip: u64 },
    /// The attempt ends here.
    End(Attempt),
    /// Not the object: an error status, retried or failed by [`refused`].
    Refused,
}

/// Checks an answer against what the transfer knows: a first answer sets
/// the size and the validators; a resumed one must be the same object,
/// with the bytes asked for.
pub(super) fn answer(state: &mut State, response: &reqwest::Response) -> Answer {
    let headers = response.headers();
    let resuming = state.received > 0;
    let changed_size = |then: u64, now: u64| {
        Answer::End(Attempt::Fail(FetchError::Changed {
            how: format!("its size went from {then} to {now} bytes"),
        }))
    };
    match response.status().as_u16() {
        200 if !resuming => {
            state.total = response.content_length();
            state.limit = state.total;
            state.first = headers.clone();
            Answer::Body { skip: 0 }
        }
        200 => {
            // The server ignored the range: the same object (its
            // validator unchanged), read past what was received.
            if let Some(changed) = changed(&state.first, headers) {
                return Answer::End(Attempt::Fail(changed));
            }
            state.limit = state.total;
            if let (Some(then), Some(now)) = (state.total, response.content_length())
                && then != now
            {
                return changed_size(then, now);
            }
            Answer::Body {
                skip: state.received,
            }
        }
        206 if resuming => {
            if let Some(changed) = changed(&state.first, headers) {
                return Answer::End(Attempt::Fail(changed));
            }
            match content_range(headers) {
                Some((start, end, total)) if start == state.received => {
                    match (state.total, total) {
                        (Some(then), Some(now)) if then != now => return changed_size(then, now),
                        (None, now) => state.total = now,
                        _ => {}
                    }
                    state.limit = Some(end.saturating_add(1));
                    Answer::Body { skip: 0 }
                }
                _ => Answer::End(Attempt::Fail(FetchError::Unresumable(format!(
                    "the server answered a request for the bytes from {} with other bytes \
                     (Content-Range: {})",
                    state.received,
                    header_text(headers, header::CONTENT_RANGE).unwrap_or("none")
                )))),
            }
        }
        // Nothing left: the transfer was complete (a Content-Length
        // that promised more than the object has).
        416 if resuming => Answer::End(match content_range_total(headers) {
            Some(total) if total == state.received => Attempt::Done,
            _ => Attempt::Fail(FetchError::Changed {
                how: format!(
                    "it no longer has the bytes from {} (Content-Range: {})",
                    state.received,
                    header_text(headers, header::CONTENT_RANGE).unwrap_or("none")
                ),
            }),
        }),
        412 if resuming => Answer::End(Attempt::Fail(FetchError::Changed {
            how: "the server says it is not the object first read (412)".to_owned(),
        })),
        _ => Answer::Refused,
    }
}

/// Streams an answer's body into `sink`, dropping its first `skip` bytes,
/// at no less than `min_rate` bytes a second over each window of
/// `timeout` (a trickle is a stall), and no more bytes than announced.
pub(super) async fn body(
    shared: &Shared,
    state: &mut State,
    sink: &mut impl Sink,
    mut response: reqwest::Response,
    mut skip: u64,
) -> Attempt {
    let timeout = shared.options.timeout;
    let min_rate = shared.options.min_rate;
    let mut window = (tokio::time::Instant::now(), 0u64);
    loop {
        let mut bytes = match tokio::time::timeout(timeout, response.chunk()).await {
            Err(_) => {
                return transport(format!(
                    "the transfer stalled: no data for {} s",
                    timeout.as_secs_f64()
                ));
            }
            Ok(Err(e)) => return transport(describe(e)),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(bytes))) => bytes,
        };
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
        let too_slow = elapsed >= timeout
            && min_rate > 0.0
            && (window.1 as f64) < min_rate * elapsed.as_secs_f64();
        if elapsed >= timeout && !too_slow {
            window = (tokio::time::Instant::now(), 0);
        }
        // Delivered first, even when too slow: a resumption starts after
        // them.
        shared.stats.bytes.fetch_add(len, Ordering::Relaxed);
        if !sink.put(bytes).await {
            return Attempt::Fail(FetchError::Cancelled);
        }
        if too_slow {
            return transport(format!(
                "the transfer was too slow: {} bytes in {:.0} s, under the \
                 minimum of {} bytes a second",
                window.1,
                elapsed.as_secs_f64(),
                min_rate
            ));
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
pub(super) async fn refused(
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
        403 if target.bare_403_is_throttling() && code.is_none() => Attempt::Retry {
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
        300..=399 if target.signed() => Attempt::Fail(FetchError::Setup(target.redirect_refused(
            &error,
            &header_text(headers, header::LOCATION).map_or_else(|| "nowhere".to_owned(), shown),
        ))),
        _ => Attempt::Fail(error),
    }
}
