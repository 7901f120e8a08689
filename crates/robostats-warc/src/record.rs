//! One WARC record as the reader hands it out: headers, kept block, position.

use super::header::Headers;

/// The `WARC-Type` of a record.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RecordType {
    /// `warcinfo`: describes the file (crawl name in `isPartOf`).
    Warcinfo,
    /// `response`: a full HTTP response; the only type that is parsed.
    Response,
    /// `request`: the HTTP request the crawler sent.
    Request,
    /// `metadata`.
    Metadata,
    /// `revisit`: a capture stored as a reference to an earlier one.
    Revisit,
    /// `resource`: content without protocol headers.
    Resource,
    /// `conversion`.
    Conversion,
    /// `continuation`: the rest of a segmented record.
    Continuation,
    /// Anything else, or no `WARC-Type` at all.
    #[default]
    Other,
}

impl RecordType {
    /// The type named by a `WARC-Type` value (case-insensitive).
    pub fn from_bytes(value: &[u8]) -> RecordType {
        const TYPES: [(&str, RecordType); 8] = [
            ("response", RecordType::Response),
            ("request", RecordType::Request),
            ("warcinfo", RecordType::Warcinfo),
            ("metadata", RecordType::Metadata),
            ("revisit", RecordType::Revisit),
            ("resource", RecordType::Resource),
            ("conversion", RecordType::Conversion),
            ("continuation", RecordType::Continuation),
        ];
        TYPES
            .iter()
            .find(|(name, _)| value.eq_ignore_ascii_case(name.as_bytes()))
            .map_or(RecordType::Other, |&(_, t)| t)
    }
}

/// A WARC record read by [`WarcReader`](super::WarcReader).
///
/// The reader reuses one `Record` per call, so the buffers are allocated once
/// per file, not once per record.
///
/// Position fields, and what they mean for each kind of input:
///
/// * `.warc.gz` with one gzip member per record (Common Crawl): `offset` and
///   `length` are the compressed offset and length of the record's gzip
///   member, exactly Common Crawl's `warc_record_offset` and
///   `warc_record_length`; `offset_in_member` is 0.
/// * A gzip member holding several records (or a record spread over several
///   members): `offset` is the compressed offset of the member where the
///   record starts and `offset_in_member` the record's uncompressed position
///   inside it. `length` counts the compressed bytes from `offset` to the end
///   of the member where the record ends, and is `None` when that member
///   goes on with another record (the length would then not isolate it).
/// * Plain `.warc`: `offset` and `length` are the record's uncompressed byte
///   offset and length (including the two empty lines that end it).
#[derive(Clone, Debug, Default)]
pub struct Record {
    pub(crate) headers: Headers,
    pub(crate) block: Vec<u8>,
    pub(crate) record_type: RecordType,
    pub(crate) content_length: u64,
    pub(crate) offset: u64,
    pub(crate) offset_in_member: u64,
    pub(crate) length: Option<u64>,
    pub(crate) complete: bool,
    /// The reader's cap on the HTTP body (see `ReadOptions::body_cap`).
    pub(crate) body_cap: usize,
}

impl Record {
    /// A new, empty record to pass to
    /// [`WarcReader::read_record`](super::WarcReader::read_record).
    pub fn new() -> Record {
        Record::default()
    }

    /// The WARC header block.
    pub fn headers(&self) -> &Headers {
        &self.headers
    }

    /// The record type from `WARC-Type`.
    pub fn record_type(&self) -> RecordType {
        self.record_type
    }

    /// The first value of a WARC header field (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers.get(name)
    }

    /// `WARC-Target-URI`, without the angle brackets some writers put around
    /// it (wget 1.19 writes `<http://...>`).
    pub fn target_uri(&self) -> Option<&str> {
        let v = self.headers.get_str("WARC-Target-URI")?;
        let v = match v.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
            Some(inner) => inner,
            None => v,
        };
        (!v.is_empty()).then_some(v)
    }

    /// `WARC-Date`, as written.
    pub fn date(&self) -> Option<&str> {
        self.headers.get_str("WARC-Date")
    }

    /// `WARC-Record-ID`, as written (usually `<urn:uuid:...>`).
    pub fn record_id(&self) -> Option<&str> {
        self.headers.get_str("WARC-Record-ID")
    }

    /// The block length declared by `Content-Length`.
    pub fn content_length(&self) -> u64 {
        self.content_length
    }

    /// The kept prefix of the block. Only `response` and `warcinfo` blocks
    /// are kept, each up to the reader's cap; other blocks are skipped
    /// without copying and this is empty.
    pub fn block(&self) -> &[u8] {
        &self.block
    }

    /// Whether the kept block is shorter than the stored one because of the
    /// reader's cap (not because the input was cut).
    pub fn block_capped(&self) -> bool {
        self.complete && (self.block.len() as u64) < self.content_length && !self.block.is_empty()
    }

    /// The reader's cap on the HTTP body of a response.
    pub fn body_cap(&self) -> usize {
        self.body_cap
    }

    /// Whether the whole block was present in the input. `false` when the
    /// file or gzip member ended inside it; the reader then reports the cause
    /// as its next error.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Byte offset of the record (see the type's documentation).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Uncompressed position of the record inside its gzip member (0 for
    /// Common Crawl files and plain WARC files).
    pub fn offset_in_member(&self) -> u64 {
        self.offset_in_member
    }

    /// Byte length of the record (see the type's documentation).
    pub fn length(&self) -> Option<u64> {
        self.length
    }
}
