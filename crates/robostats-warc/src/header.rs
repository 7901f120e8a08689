//! A WARC header block: one byte buffer plus the spans of its fields.
//!
//! Stored like rust-csv's `ByteRecord`: the raw bytes once, and for every
//! field the offsets of its name and value, so a lookup compares names with
//! `eq_ignore_ascii_case` and allocates nothing. Field order and duplicates
//! (`WARC-Protocol` repeats) are kept.

use std::ops::Range;

/// The header block of a WARC record (version line and named fields).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers {
    raw: Vec<u8>,
    version: Range<usize>,
    fields: Fields,
}

/// The name and value spans of header fields in a buffer that holds them:
/// the lookups of WARC headers and of HTTP headers. Order and duplicates
/// are kept; names compare ASCII case-insensitively; nothing allocates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields(Vec<(Range<usize>, Range<usize>)>);

/// Fields a record's header holds, most of the time (Common Crawl's
/// responses: 12 to 16).
const FIELDS_ROOM: usize = 16;

impl Fields {
    /// Forgets every field, keeping the allocation.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Makes room for `n` more fields at once.
    pub fn reserve(&mut self, n: usize) {
        self.0.reserve(n);
    }

    /// Adds a field: the spans of its name and value in the buffer.
    pub fn push(&mut self, name: Range<usize>, value: Range<usize>) {
        self.0.push((name, value));
    }

    /// Extends the last field's value to `end` (a folded line).
    fn extend_last(&mut self, end: usize) {
        if let Some((_, value)) = self.0.last_mut() {
            value.end = end;
        }
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values of every field named `name` (in `raw`), in order.
    pub fn get_all<'a>(
        &'a self,
        raw: &'a [u8],
        name: &'a str,
    ) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.iter(raw)
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| v)
    }

    /// The value of the first field named `name`.
    pub fn get<'a>(&self, raw: &'a [u8], name: &str) -> Option<&'a [u8]> {
        self.0
            .iter()
            .find(|(n, _)| raw[n.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| &raw[v.clone()])
    }

    /// The value of the first field named `prefix` then `name`
    /// (`X-Crawler-` and `Content-Encoding`), compared as [`Fields::get`]
    /// compares, without building that name. (`get` keeps its own loop: it
    /// is the hot one, and the two parts cost it 0.2 % of ingest's
    /// instructions.)
    pub fn get_prefixed<'a>(&self, raw: &'a [u8], prefix: &str, name: &str) -> Option<&'a [u8]> {
        let (prefix, name) = (prefix.as_bytes(), name.as_bytes());
        self.0
            .iter()
            .find(|(n, _)| {
                let n = &raw[n.clone()];
                n.len() == prefix.len() + name.len()
                    && n[..prefix.len()].eq_ignore_ascii_case(prefix)
                    && n[prefix.len()..].eq_ignore_ascii_case(name)
            })
            .map(|(_, v)| &raw[v.clone()])
    }

    /// Every field as `(name, value)`, in order.
    pub fn iter<'a>(&'a self, raw: &'a [u8]) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + 'a {
        self.0
            .iter()
            .map(move |(n, v)| (&raw[n.clone()], &raw[v.clone()]))
    }
}

fn trim(bytes: &[u8], mut r: Range<usize>) -> Range<usize> {
    while r.start < r.end && matches!(bytes[r.start], b' ' | b'\t' | b'\r' | b'\n') {
        r.start += 1;
    }
    while r.end > r.start && matches!(bytes[r.end - 1], b' ' | b'\t' | b'\r' | b'\n') {
        r.end -= 1;
    }
    r
}

impl Headers {
    /// Parses a header block (version line, fields, optional empty line).
    ///
    /// Lenient like the readers researchers compare with: LF or CRLF line
    /// ends, whitespace around names and values, folded continuation lines
    /// (appended to the previous value) and lines without a colon (ignored).
    pub fn parse(raw: &[u8]) -> Headers {
        let mut h = Headers::default();
        h.parse_from(raw);
        h
    }

    /// Like [`Headers::parse`], reusing this value's buffers.
    pub(crate) fn parse_from(&mut self, raw: &[u8]) {
        self.raw.clear();
        self.raw.extend_from_slice(raw);
        self.fields.clear();
        // Room for a Common Crawl response's fields at once (a record taken
        // from its reader starts from nothing: no regrowing by copies).
        self.fields.0.reserve(FIELDS_ROOM);
        self.version = 0..0;
        let bytes = &self.raw;
        let mut start = 0;
        let mut first = true;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1);
            let line = start..end;
            start = end;
            if first {
                self.version = trim(bytes, line);
                first = false;
                continue;
            }
            let content = trim(bytes, line.clone());
            if content.is_empty() {
                break;
            }
            if matches!(bytes[line.start], b' ' | b'\t') {
                self.fields.extend_last(content.end);
                continue;
            }
            if let Some(colon) = memchr::memchr(b':', &bytes[content.clone()]) {
                let colon = content.start + colon;
                self.fields.push(
                    trim(bytes, content.start..colon),
                    trim(bytes, colon + 1..content.end),
                );
            }
        }
    }

    /// The raw bytes of the header block, as read.
    pub fn as_bytes(&self) -> &[u8] {
        &self.raw
    }

    /// The version line, e.g. `WARC/1.0`.
    pub fn version(&self) -> &[u8] {
        &self.raw[self.version.clone()]
    }

    /// The value of the first field named `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.fields.get(&self.raw, name)
    }

    /// The value of the first field named `name`, if it is valid UTF-8.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// The values of every field named `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.fields.get_all(&self.raw, name)
    }

    /// Every field as `(name, value)`, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> + '_ {
        self.fields.iter(&self.raw)
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_case_and_folding() {
        let h = Headers::parse(
            b"WARC/1.0\r\nWARC-Type: response\r\nwarc-protocol: h2\r\nWARC-Protocol:tls/1.3 \r\nX-Long: a\r\n  b\r\nno colon\r\n\r\nignored: yes\r\n",
        );
        assert_eq!(h.version(), b"WARC/1.0");
        assert_eq!(h.get("WARC-TYPE"), Some(&b"response"[..]));
        let protos: Vec<_> = h.get_all("WARC-Protocol").collect();
        assert_eq!(protos, vec![&b"h2"[..], &b"tls/1.3"[..]]);
        assert_eq!(h.get("x-long"), Some(&b"a\r\n  b"[..]));
        assert_eq!(h.get("ignored"), None);
        assert_eq!(h.len(), 4);
    }

    #[test]
    fn a_name_in_two_parts_compares_as_the_whole() {
        let raw = b"HTTP/1.1 200 OK\r\nx-crawler-content-encoding: gzip\r\nContent-Encoding-X: no\r\nX-CrawlerContent-Length: no\r\n\r\n";
        let h = Headers::parse(raw);
        let get = |prefix, name| h.fields.get_prefixed(&h.raw, prefix, name);
        assert_eq!(get("X-Crawler-", "Content-Encoding"), Some(&b"gzip"[..]));
        assert_eq!(get("X-CRAWLER-", "content-encoding"), Some(&b"gzip"[..]));
        // The whole name, not a prefix of it, and the two parts where they are.
        assert_eq!(get("", "Content-Encoding"), None);
        assert_eq!(get("X-Crawler-", "Content-Length"), None);
        assert_eq!(get("", "content-encoding-x"), h.get("Content-Encoding-X"));
    }
}
