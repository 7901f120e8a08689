//! A response -> outcome classes and content facts: one plain struct per
//! capture that the ingest step turns into a row.
//!
//! Two classifications stand side by side so results compare both with
//! Google's behaviour and with published Common Crawl studies:
//!
//! * [`GoogleClass`]: the seeds' table (2xx conditional allow, 3xx redirect,
//!   4xx full allow including 401/403, 5xx full disallow; a failed or
//!   incomplete fetch counts as a server error, class `failed`), and
//!   `google_current_class`, which follows Google's current documentation
//!   where it differs (429 is treated like 5xx).
//! * [`CcClass`]: Common Crawl's `fetch_status_classify()` (robotstxt
//!   experiments): 200 success, 403 forbidden, 5xx/429 defer_visits, 3xx
//!   redirect, 400/404/410 notfound, 401 unauthorized, else other.

use url::Url;

use super::response::Response;
use super::target::{UrlFacts, registered_domain};
use crate::error::{Error, ErrorKind, Stage};
use crate::warc::{Record, RecordType};

/// Google's robots.txt outcome for an HTTP result.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GoogleClass {
    /// 2xx: the rules in the body decide.
    ConditionalAllow,
    /// 3xx: follow the redirect (up to 5 hops, then as 404).
    Redirect,
    /// 4xx (401 and 403 included): crawl everything.
    FullAllow,
    /// 5xx: crawl nothing, for now.
    FullDisallow,
    /// The fetch failed or its data is incomplete: the HTTP head cannot be
    /// read, the record is cut, the crawler marks it truncated for another
    /// reason than its size limit, or the status is outside 200-599.
    /// Google treats this like a server error.
    Failed,
}

impl GoogleClass {
    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            GoogleClass::ConditionalAllow => "conditional_allow",
            GoogleClass::Redirect => "redirect",
            GoogleClass::FullAllow => "full_allow",
            GoogleClass::FullDisallow => "full_disallow",
            GoogleClass::Failed => "failed",
        }
    }
}

/// Common Crawl's own status class (`fetch_status_classify`).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CcClass {
    /// 200.
    Success,
    /// 403: CCBot abstains from the host.
    Forbidden,
    /// 5xx or 429: visits are deferred.
    DeferVisits,
    /// 3xx.
    Redirect,
    /// 400, 404, 410.
    Notfound,
    /// 401.
    Unauthorized,
    /// Anything else (other 2xx and 4xx, no readable status).
    Other,
}

impl CcClass {
    /// The class of a status code.
    pub fn of(status: Option<u16>) -> CcClass {
        match status {
            Some(200) => CcClass::Success,
            Some(403) => CcClass::Forbidden,
            Some(429) | Some(500..=599) => CcClass::DeferVisits,
            Some(300..=399) => CcClass::Redirect,
            Some(400 | 404 | 410) => CcClass::Notfound,
            Some(401) => CcClass::Unauthorized,
            _ => CcClass::Other,
        }
    }

    /// The name Common Crawl's scripts use.
    pub fn as_str(self) -> &'static str {
        match self {
            CcClass::Success => "success",
            CcClass::Forbidden => "forbidden",
            CcClass::DeferVisits => "defer_visits",
            CcClass::Redirect => "redirect",
            CcClass::Notfound => "notfound",
            CcClass::Unauthorized => "unauthorized",
            CcClass::Other => "other",
        }
    }
}

/// Where a redirect points, relative to the URL that was fetched. Checked in
/// this order, the first that applies wins.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RedirectKind {
    /// No `Location` header (or an empty one).
    MissingLocation,
    /// A `Location` that cannot be resolved against the URL.
    InvalidLocation,
    /// The target is the fetched URL itself.
    SameUrl,
    /// The target's path is not `/robots.txt` (a home page, a login page,
    /// `/robots.txt/`...): whatever comes back is not a robots.txt.
    NotRobotsPath,
    /// Same host, `http` to `https` (same port, or the default one).
    HttpsUpgrade,
    /// Same host, `https` to `http` (same port, or the default one).
    HttpsDowngrade,
    /// The host gains a `www.` prefix (the scheme may change too).
    WwwAdded,
    /// The host loses its `www.` prefix (the scheme may change too).
    WwwRemoved,
    /// Another host with the same registered domain (`shop.x.com` to
    /// `www.x.com`).
    SameSite,
    /// A host with another registered domain.
    OtherHost,
    /// Same host, another port (or another scheme change).
    Other,
}

impl RedirectKind {
    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectKind::MissingLocation => "missing_location",
            RedirectKind::InvalidLocation => "invalid_location",
            RedirectKind::SameUrl => "same_url",
            RedirectKind::NotRobotsPath => "not_robots_path",
            RedirectKind::HttpsUpgrade => "https_upgrade",
            RedirectKind::HttpsDowngrade => "https_downgrade",
            RedirectKind::WwwAdded => "www_added",
            RedirectKind::WwwRemoved => "www_removed",
            RedirectKind::SameSite => "same_site",
            RedirectKind::OtherHost => "other_host",
            RedirectKind::Other => "other",
        }
    }

    /// Classifies a redirect from `from` to the resolved `to`.
    pub fn of(from: &Url, to: &Url) -> RedirectKind {
        if from == to {
            return RedirectKind::SameUrl;
        }
        if to.path() != "/robots.txt" {
            return RedirectKind::NotRobotsPath;
        }
        let (fh, th) = (from.host_str().unwrap_or(""), to.host_str().unwrap_or(""));
        if fh == th {
            // A scheme change counts whether the port stays or becomes the
            // new scheme's default (`http://h:8080/` -> `https://h/`).
            let port_ok =
                to.port().is_none() || to.port_or_known_default() == from.port_or_known_default();
            return match (from.scheme(), to.scheme()) {
                ("http", "https") if port_ok => RedirectKind::HttpsUpgrade,
                ("https", "http") if port_ok => RedirectKind::HttpsDowngrade,
                _ => RedirectKind::Other,
            };
        }
        if th.strip_prefix("www.") == Some(fh) {
            return RedirectKind::WwwAdded;
        }
        if fh.strip_prefix("www.") == Some(th) {
            return RedirectKind::WwwRemoved;
        }
        match (registered_domain(fh), registered_domain(th)) {
            (Some(a), Some(b)) if a == b => RedirectKind::SameSite,
            _ => RedirectKind::OtherHost,
        }
    }
}

/// A byte order mark at the start of the body.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bom {
    /// `EF BB BF`.
    Utf8,
    /// `FF FE`.
    Utf16Le,
    /// `FE FF`.
    Utf16Be,
}

impl Bom {
    /// The BOM at the start of `body`, if any.
    pub fn of(body: &[u8]) -> Option<Bom> {
        if body.starts_with(b"\xef\xbb\xbf") {
            Some(Bom::Utf8)
        } else if body.starts_with(b"\xff\xfe") {
            Some(Bom::Utf16Le)
        } else if body.starts_with(b"\xfe\xff") {
            Some(Bom::Utf16Be)
        } else {
            None
        }
    }

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Bom::Utf8 => "utf-8",
            Bom::Utf16Le => "utf-16le",
            Bom::Utf16Be => "utf-16be",
        }
    }

    fn len(self) -> usize {
        match self {
            Bom::Utf8 => 3,
            Bom::Utf16Le | Bom::Utf16Be => 2,
        }
    }
}

/// Google reads at most this much of a robots.txt (500 KiB).
pub const GOOGLE_SIZE_LIMIT: u64 = 512_000;

/// Everything the reading half knows about one robots.txt capture: the row
/// the ingest step writes to `captures`, minus the robots.txt parse.
/// Field names follow Common Crawl's columnar index where they mean the same.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// `warc_filename`: the file name as given to the reader.
    pub warc_filename: String,
    /// `warc_record_offset` (see [`Record`] for plain and multi-record members).
    pub warc_record_offset: u64,
    /// Position of the record inside its gzip member (0 for Common Crawl).
    pub warc_record_offset_in_member: u64,
    /// `warc_record_length`, `None` when the member holds other records too.
    pub warc_record_length: Option<u64>,
    /// `warc_record_id`: `WARC-Record-ID`.
    pub warc_record_id: Option<String>,
    /// `crawl`: warcinfo `isPartOf`, or the path's `CC-MAIN-YYYY-WW`.
    pub crawl: Option<String>,
    /// `url`: `WARC-Target-URI` as stored (angle brackets removed).
    pub url: String,
    /// The URL facts, `None` if the URL does not parse.
    pub url_facts: Option<UrlFacts>,
    /// `fetch_time`: `WARC-Date` as stored.
    pub fetch_time: Option<String>,
    /// `WARC-Date` as seconds since the Unix epoch, when it is a valid
    /// `YYYY-MM-DDThh:mm:ss[.f]Z` date.
    pub fetch_time_unix: Option<i64>,
    /// `WARC-IP-Address`.
    pub ip_address: Option<String>,
    /// `WARC-Protocol` values in order (e.g. `h2`, `tls/1.3`).
    pub warc_protocols: Vec<String>,
    /// `content_digest`: `WARC-Payload-Digest`.
    pub content_digest: Option<String>,
    /// `content_mime_detected`: `WARC-Identified-Payload-Type`.
    pub content_mime_detected: Option<String>,
    /// `content_truncated`: `WARC-Truncated` (`length`, `time`,
    /// `disconnect`, `unspecified`), lower case.
    pub content_truncated: Option<String>,
    /// `fetch_status`: the HTTP status, `None` if the head is unreadable.
    pub fetch_status: Option<u16>,
    /// Why the HTTP head could not be read (`not_http`,
    /// `http_head_too_long`).
    pub http_error: Option<ErrorKind>,
    /// Google's class by the seeds' table.
    pub google_class: GoogleClass,
    /// Google's class by its current documentation (429 like 5xx).
    pub google_current_class: GoogleClass,
    /// Common Crawl's class.
    pub cc_class: CcClass,
    /// `fetch_redirect`: `Location` resolved against the URL (3xx only).
    pub fetch_redirect: Option<String>,
    /// The kind of redirect (3xx only).
    pub redirect_kind: Option<RedirectKind>,
    /// The `Content-Type` the server sent, as sent.
    pub content_type: Option<String>,
    /// `content_mime_type`: the server's MIME type, lower case, without
    /// parameters.
    pub content_mime_type: Option<String>,
    /// The content coding the server used (`X-Crawler-Content-Encoding`,
    /// else `Content-Encoding`), lower case.
    pub content_encoding: Option<String>,
    /// The transfer coding the server used (`X-Crawler-Transfer-Encoding`,
    /// else `Transfer-Encoding`), lower case.
    pub transfer_encoding: Option<String>,
    /// The payload is stored still encoded: a non-identity
    /// `Content-Encoding` or `Transfer-Encoding` that the crawler did not
    /// rename (Common Crawl decodes and renames; some producers keep gzip
    /// or chunked bodies). The body is not decoded here.
    pub payload_encoded: bool,
    /// Payload bytes stored in the record.
    pub payload_length: u64,
    /// The record ends before its declared length (input cut off).
    pub record_incomplete: bool,
    /// The body was cut by the reader's cap (1 MiB by default).
    pub body_capped: bool,
    /// The body starts with a byte order mark.
    pub bom: Option<Bom>,
    /// The kept body (after a UTF-8 BOM) is valid UTF-8; `false` for a body
    /// with a UTF-16 BOM.
    pub valid_utf8: bool,
    /// The body starts, after a BOM and white space, with `<html` or
    /// `<!doctype html` (case-insensitive), Common Crawl's test.
    pub looks_like_html: bool,
    /// The payload is longer than Google reads (512,000 bytes).
    pub over_500kib: bool,
    /// `max-age` of `Cache-Control`, in seconds.
    pub cache_max_age: Option<u64>,
}

impl Capture {
    /// Builds the capture of a `response` record. `response` is the result of
    /// [`Response::parse`] for it (an unreadable head gives class `failed`).
    /// Errors only when the record cannot be a capture: not a response, or
    /// no `WARC-Target-URI`.
    pub fn new(
        file: &str,
        crawl: Option<&str>,
        record: &Record,
        response: Result<&Response, &Error>,
    ) -> Result<Capture, Error> {
        if record.record_type() != RecordType::Response {
            return Err(Error::new(
                Stage::Warc,
                ErrorKind::NotARecord,
                file,
                Some(record.offset()),
                "not a response record",
            ));
        }
        let Some(url) = record.target_uri() else {
            return Err(Error::new(
                Stage::Warc,
                ErrorKind::MissingTargetUri,
                file,
                Some(record.offset()),
                "response record without WARC-Target-URI",
            ));
        };
        let warc = |name: &str| record.headers().get_str(name).map(str::to_owned);
        let parsed = UrlFacts::parse(url).ok();
        let truncated = warc("WARC-Truncated").map(|t| t.to_ascii_lowercase());
        let mut cap = Capture {
            warc_filename: file.to_owned(),
            warc_record_offset: record.offset(),
            warc_record_offset_in_member: record.offset_in_member(),
            warc_record_length: record.length(),
            warc_record_id: warc("WARC-Record-ID"),
            crawl: crawl.map(str::to_owned),
            url: url.to_owned(),
            url_facts: parsed.as_ref().map(|(_, f)| f.clone()),
            fetch_time: warc("WARC-Date"),
            fetch_time_unix: record.date().and_then(parse_warc_date),
            ip_address: warc("WARC-IP-Address"),
            warc_protocols: record
                .headers()
                .get_all("WARC-Protocol")
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect(),
            content_digest: warc("WARC-Payload-Digest"),
            content_mime_detected: warc("WARC-Identified-Payload-Type").filter(|v| !v.is_empty()),
            content_truncated: truncated,
            fetch_status: None,
            http_error: None,
            google_class: GoogleClass::Failed,
            google_current_class: GoogleClass::Failed,
            cc_class: CcClass::Other,
            fetch_redirect: None,
            redirect_kind: None,
            content_type: None,
            content_mime_type: None,
            content_encoding: None,
            transfer_encoding: None,
            payload_encoded: false,
            payload_length: 0,
            record_incomplete: !record.is_complete(),
            body_capped: false,
            bom: None,
            valid_utf8: false,
            looks_like_html: false,
            over_500kib: false,
            cache_max_age: None,
        };
        let resp = match response {
            Ok(resp) => resp,
            Err(e) => {
                cap.http_error = Some(e.kind());
                return Ok(cap);
            }
        };
        let status = resp.status();
        cap.fetch_status = Some(status);
        cap.cc_class = CcClass::of(Some(status));
        let cut_by_crawler = matches!(cap.content_truncated.as_deref(), Some(t) if t != "length");
        let failed = cap.record_incomplete || cut_by_crawler;
        cap.google_class = if failed {
            GoogleClass::Failed
        } else {
            google_class(status)
        };
        cap.google_current_class = match status {
            429 if !failed => GoogleClass::FullDisallow,
            _ => cap.google_class,
        };
        if (300..=399).contains(&status) {
            let location = resp.header_str("Location").filter(|l| !l.is_empty());
            let (target, kind) = match (&parsed, location) {
                (_, None) => (None, RedirectKind::MissingLocation),
                (Some((base, _)), Some(loc)) => match base.join(&loc) {
                    Ok(to) => {
                        let kind = RedirectKind::of(base, &to);
                        (Some(to.to_string()), kind)
                    }
                    Err(_) => (None, RedirectKind::InvalidLocation),
                },
                (None, Some(loc)) => match Url::parse(&loc) {
                    Ok(to) => (Some(to.to_string()), RedirectKind::OtherHost),
                    Err(_) => (None, RedirectKind::InvalidLocation),
                },
            };
            cap.fetch_redirect = target;
            cap.redirect_kind = Some(kind);
        }
        cap.content_type = resp.header_str("Content-Type");
        cap.content_mime_type = cap.content_type.as_deref().and_then(mime_essence);
        let lower = |v: &[u8]| String::from_utf8_lossy(v.trim_ascii()).to_ascii_lowercase();
        cap.content_encoding = resp.original_header("Content-Encoding").map(lower);
        cap.transfer_encoding = resp.original_header("Transfer-Encoding").map(lower);
        let encoded = |v: Option<&[u8]>| {
            v.map(lower)
                .is_some_and(|v| !v.is_empty() && v != "identity")
        };
        cap.payload_encoded =
            encoded(resp.header("Content-Encoding")) || encoded(resp.header("Transfer-Encoding"));
        cap.payload_length = resp.payload_len();
        let body = resp.body(record);
        cap.body_capped = record.is_complete() && (body.len() as u64) < resp.payload_len();
        cap.bom = Bom::of(body);
        let text = &body[cap.bom.map_or(0, Bom::len)..];
        // A UTF-16 body is not UTF-8, even when its ASCII text would pass.
        cap.valid_utf8 =
            matches!(cap.bom, None | Some(Bom::Utf8)) && std::str::from_utf8(text).is_ok();
        cap.looks_like_html = looks_like_html(text);
        cap.over_500kib = resp.payload_len() > GOOGLE_SIZE_LIMIT;
        cap.cache_max_age = resp.header("Cache-Control").and_then(max_age);
        Ok(cap)
    }
}

/// The seeds' table.
fn google_class(status: u16) -> GoogleClass {
    match status {
        200..=299 => GoogleClass::ConditionalAllow,
        300..=399 => GoogleClass::Redirect,
        400..=499 => GoogleClass::FullAllow,
        500..=599 => GoogleClass::FullDisallow,
        _ => GoogleClass::Failed,
    }
}

fn mime_essence(content_type: &str) -> Option<String> {
    let essence = content_type.split(';').next()?.trim();
    (!essence.is_empty()).then(|| essence.to_ascii_lowercase())
}

/// Common Crawl's HTML test on the first line (`<html`, `<!DOCTYPE html`).
pub fn looks_like_html(body: &[u8]) -> bool {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let head = &body[start..body.len().min(start + 14)];
    let starts = |p: &[u8]| head.len() >= p.len() && head[..p.len()].eq_ignore_ascii_case(p);
    starts(b"<html") || starts(b"<!doctype html")
}

/// `max-age=N` in a `Cache-Control` value.
fn max_age(value: &[u8]) -> Option<u64> {
    value.split(|&b| b == b',').find_map(|directive| {
        let d = directive.trim_ascii();
        let eq = d.iter().position(|&b| b == b'=')?;
        if !d[..eq].trim_ascii().eq_ignore_ascii_case(b"max-age") {
            return None;
        }
        let v = d[eq + 1..].trim_ascii();
        let v = v
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(v);
        std::str::from_utf8(v).ok()?.parse().ok()
    })
}

/// `YYYY-MM-DDThh:mm:ss[.fraction]Z` -> seconds since the Unix epoch.
pub fn parse_warc_date(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let digits = &b[r];
        digits.iter().all(u8::is_ascii_digit).then(|| {
            digits
                .iter()
                .fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0'))
        })
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let rest = &b[19..];
    let rest = match rest.first() {
        Some(b'.') => {
            let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            &rest[1 + digits..]
        }
        _ => rest,
    };
    if rest != b"Z"
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || sec > 60
    {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warc_dates() {
        assert_eq!(parse_warc_date("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_warc_date("2024-05-18T01:58:11Z"), Some(1_715_997_491));
        assert_eq!(
            parse_warc_date("2024-05-18T01:58:11.123456Z"),
            Some(1_715_997_491)
        );
        assert_eq!(parse_warc_date("2008-10-294T05:21:46-0700"), None);
    }

    #[test]
    fn cache_control_and_html() {
        assert_eq!(max_age(b"public, max-age=14400"), Some(14400));
        assert_eq!(max_age(b"no-cache"), None);
        assert!(looks_like_html(b"\n  <!DOCTYPE HTML>"));
        assert!(!looks_like_html(b"User-agent: *"));
    }

    #[test]
    fn redirect_kinds() {
        let k =
            |a: &str, b: &str| RedirectKind::of(&Url::parse(a).unwrap(), &Url::parse(b).unwrap());
        assert_eq!(
            k("http://a.com/robots.txt", "https://a.com/robots.txt"),
            RedirectKind::HttpsUpgrade
        );
        assert_eq!(
            k("http://a.com/robots.txt", "https://www.a.com/robots.txt"),
            RedirectKind::WwwAdded
        );
        assert_eq!(
            k("https://www.a.com/robots.txt", "https://a.com/robots.txt"),
            RedirectKind::WwwRemoved
        );
        assert_eq!(
            k(
                "https://shop.a.com/robots.txt",
                "https://www.a.com/robots.txt"
            ),
            RedirectKind::SameSite
        );
        assert_eq!(
            k("https://a.com/robots.txt", "https://b.org/robots.txt"),
            RedirectKind::OtherHost
        );
        assert_eq!(
            k("https://a.com/robots.txt", "https://a.com/"),
            RedirectKind::NotRobotsPath
        );
        assert_eq!(
            k("https://a.com/robots.txt", "https://a.com/robots.txt"),
            RedirectKind::SameUrl
        );
    }
}
