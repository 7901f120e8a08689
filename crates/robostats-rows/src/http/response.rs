//! A response record's block -> HTTP status, headers and bounded body.

use std::ops::Range;

use crate::warc::{Error, ErrorKind, Stage};
use crate::warc::{Fields, HTTP_HEAD_CAP, Record};

/// The HTTP response stored in a `response` record.
///
/// The head is copied (a few hundred bytes); the body stays in the record and
/// is reached through [`Response::body`]. Header lookups are ASCII
/// case-insensitive, keep duplicates and allocate nothing.
#[derive(Clone, Debug, Default)]
pub struct Response {
    head: Vec<u8>,
    status: u16,
    reason: Range<usize>,
    headers: Fields,
    body_start: usize,
    /// Payload bytes stored in the record (before our cap).
    payload_len: u64,
    /// The status line was not HTTP/1.x and was read as HTTP/1.1.
    version_rewritten: bool,
}

/// Where `part`, a slice httparse returned, lies in `base`. An empty part
/// may be a static empty string rather than a slice of `base`.
fn span(base: &[u8], part: &[u8]) -> Range<usize> {
    let start = (part.as_ptr() as usize).wrapping_sub(base.as_ptr() as usize);
    match start.checked_add(part.len()) {
        Some(end) if !part.is_empty() && end <= base.len() => start..end,
        _ => 0..0,
    }
}

impl Response {
    /// Parses the HTTP head at the start of a response record's block.
    ///
    /// Lenient where crawlers meet real servers: LF line ends, spaces
    /// before colons, folded lines and invalid header lines (dropped, as
    /// Common Crawl's writer does) are accepted, and a status line of another
    /// HTTP version (`HTTP/2 200`, `HTTP/1.2`) is read as HTTP/1.1.
    pub fn parse(record: &Record, file: &str) -> Result<Response, Error> {
        let block = record.block();
        let err = |kind, msg: &str| {
            Error::new(
                Stage::Http,
                kind,
                file,
                Some(record.offset()),
                msg.to_owned(),
            )
        };
        let mut fixed = Vec::new();
        let (src, shift) = match rewrite_version(block, &mut fixed) {
            Some(shift) => (&fixed[..], shift),
            None => (block, 0),
        };
        let mut resp = Response::default();
        let mut parsed = parse_head(src, &mut resp, FEW_HEADERS);
        if matches!(parsed, Err(httparse::Error::TooManyHeaders)) {
            parsed = parse_head(src, &mut resp, 4096);
        }
        match parsed {
            Ok(Some(head_len)) => {
                resp.body_start = head_len.saturating_add_signed(-shift);
                resp.payload_len = record
                    .content_length()
                    .saturating_sub(resp.body_start as u64);
                resp.version_rewritten = shift != 0;
                Ok(resp)
            }
            Ok(None) if block.len() >= HTTP_HEAD_CAP => Err(err(
                ErrorKind::HttpHeadTooLong,
                "HTTP head longer than the reader accepts",
            )),
            Ok(None) => Err(err(ErrorKind::NotHttp, "the HTTP head does not end")),
            Err(e) => Err(err(
                ErrorKind::NotHttp,
                &format!("not an HTTP response: {e}"),
            )),
        }
    }

    /// The status code.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The reason phrase (may be empty).
    pub fn reason(&self) -> &[u8] {
        &self.head[self.reason.clone()]
    }

    /// The raw head (status line and header lines).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Whether the status line named another HTTP version than 1.0/1.1.
    pub fn version_rewritten(&self) -> bool {
        self.version_rewritten
    }

    /// The first value of a header (ASCII case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers.get(&self.head, name)
    }

    /// The first value of a header, lossily decoded and trimmed.
    pub fn header_str(&self, name: &str) -> Option<String> {
        self.header(name)
            .map(|v| String::from_utf8_lossy(v.trim_ascii()).into_owned())
    }

    /// Every value of a header, in order.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers.get_all(&self.head, name)
    }

    /// The value of a header as the server sent it: Common Crawl stores
    /// payloads decoded and renames `Content-Encoding`, `Transfer-Encoding`
    /// and a wrong `Content-Length` with an `X-Crawler-` prefix, so the
    /// renamed header wins over the plain one.
    pub fn original_header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .get_prefixed(&self.head, "X-Crawler-", name)
            .or_else(|| self.header(name))
    }

    /// Every header as `(name, value)`, in order.
    pub fn headers(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.headers.iter(&self.head)
    }

    /// The kept body (at most the reader's body cap).
    pub fn body<'r>(&self, record: &'r Record) -> &'r [u8] {
        let block = record.block();
        let end = block
            .len()
            .min(self.body_start.saturating_add(record.body_cap()));
        block.get(self.body_start..end).unwrap_or_default()
    }

    /// The length of the payload stored in the record, before the cap.
    pub fn payload_len(&self) -> u64 {
        self.payload_len
    }
}

/// The headers a head is parsed for first; a head with more is parsed
/// again for up to 4,096.
const FEW_HEADERS: usize = 128;

/// Parses with httparse; `Ok(None)` when the head does not end in `src`.
fn parse_head(
    src: &[u8],
    out: &mut Response,
    max_headers: usize,
) -> Result<Option<usize>, httparse::Error> {
    // (On the stack for the usual head: a vector of 128 was an allocation
    // and 4 KiB zeroed per response.)
    let mut few = [httparse::EMPTY_HEADER; FEW_HEADERS];
    let mut many = Vec::new();
    let headers = if max_headers <= FEW_HEADERS {
        &mut few[..max_headers]
    } else {
        many.resize(max_headers, httparse::EMPTY_HEADER);
        &mut many[..]
    };
    let mut resp = httparse::Response::new(headers);
    let status = httparse::ParserConfig::default()
        .allow_spaces_after_header_name_in_responses(true)
        .allow_obsolete_multiline_headers_in_responses(true)
        .allow_multiple_spaces_in_response_status_delimiters(true)
        .ignore_invalid_headers_in_responses(true)
        .parse_response(&mut resp, src)?;
    let httparse::Status::Complete(len) = status else {
        return Ok(None);
    };
    out.head.clear();
    out.head.extend_from_slice(&src[..len]);
    out.status = resp.code.unwrap_or(0);
    out.reason = resp.reason.map_or(0..0, |r| span(src, r.as_bytes()));
    out.headers.clear();
    out.headers.reserve(resp.headers.len());
    for h in resp.headers.iter() {
        out.headers
            .push(span(src, h.name.as_bytes()), span(src, h.value));
    }
    Ok(Some(len))
}

/// httparse knows only HTTP/1.0 and 1.1. For `HTTP/<other>` status lines,
/// writes a copy with `HTTP/1.1` into `out`; returns how many bytes longer
/// the copy is.
fn rewrite_version(block: &[u8], out: &mut Vec<u8>) -> Option<isize> {
    let rest = block.strip_prefix(b"HTTP/")?;
    let vlen = rest.iter().position(|&b| b == b' ')?;
    let version = &rest[..vlen];
    if version == b"1.0" || version == b"1.1" || vlen > 8 {
        return None;
    }
    out.extend_from_slice(b"HTTP/1.1");
    let tail = &rest[vlen..];
    let keep = tail.len().min(HTTP_HEAD_CAP);
    out.extend_from_slice(&tail[..keep]);
    Some(3 - vlen as isize)
}
