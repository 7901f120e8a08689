//! What the headers of an answer say (validators, ranges, Retry-After,
//! S3's error code), and URLs and errors as they may be shown.

use std::time::Duration;

use reqwest::header::{self, HeaderMap};

use super::FetchError;

/// What the object was when first read: how a resumed request asks for
/// the same object.
#[derive(Clone, Debug)]
pub(super) enum Validator {
    ETag(String),
    LastModified(String),
}

pub use crate::terminal::shown;

/// Whether a redirect from `from` to `to` is followed (`None`), or why
/// not: never from https:// to anything else, at most 10 in a row.
pub(in crate::source::remote) fn redirect_refusal(
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
pub(super) fn describe(e: reqwest::Error) -> String {
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

pub(super) fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// How a resumed request can ask for the same object: a strong ETag
/// (a weak one never matches `If-Match`), else Last-Modified.
pub(super) fn validator(headers: &HeaderMap) -> Option<Validator> {
    match header_text(headers, header::ETAG) {
        Some(tag) if !tag.starts_with("W/") => Some(Validator::ETag(tag.to_owned())),
        _ => header_text(headers, header::LAST_MODIFIED)
            .map(|at| Validator::LastModified(at.to_owned())),
    }
}

/// Whether a resumed answer is of another object than the first one: the
/// validator the resumption sent (ETag, else Last-Modified) must come
/// back unchanged, and the other header, where both answers have it, too.
pub(super) fn changed(first: &HeaderMap, now: &HeaderMap) -> Option<FetchError> {
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
pub(super) fn content_range(headers: &HeaderMap) -> Option<(u64, u64, Option<u64>)> {
    let text = header_text(headers, header::CONTENT_RANGE)?.trim();
    let rest = text.strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let (start, end) = range.split_once('-')?;
    let (start, end) = (start.trim().parse().ok()?, end.trim().parse().ok()?);
    (start <= end).then_some((start, end, total.trim().parse().ok()))
}

/// `Content-Range: bytes */TOTAL` (a 416's): TOTAL.
pub(super) fn content_range_total(headers: &HeaderMap) -> Option<u64> {
    let text = header_text(headers, header::CONTENT_RANGE)?.trim();
    text.strip_prefix("bytes */")?.trim().parse().ok()
}

/// `Retry-After`: seconds, or an HTTP date.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
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
pub(super) fn s3_code(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let start = text.find("<Code>")? + "<Code>".len();
    let end = start + text[start..].find("</Code>")?;
    let code = text[start..end].trim();
    (!code.is_empty() && code.len() <= 64 && code.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then(|| code.to_owned())
}
