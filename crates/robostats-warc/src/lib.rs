//! File -> gzip member -> WARC record.
//!
//! [`WarcReader`] reads `.warc.gz` (one gzip member per record as Common
//! Crawl writes it, or any multi- or single-member gzip) and plain `.warc`,
//! with memory bounded by its options, not by the input. Its fast path,
//! [`WarcReader::read_record`], fills one reused [`Record`]; the iterator is a
//! convenience on top.
//!
//! Cheap filters first: the record type decides whether a block is kept at
//! all (only `response`, capped, and `warcinfo`, for the crawl name); every
//! other block is skipped without copying.
//!
//! Why not the `warc` crate: it reads through a `MultiGzDecoder`, which hides
//! member boundaries, so it cannot give the compressed offset and length that
//! join with Common Crawl's index, and it buffers whole blocks. This reader
//! is small and built on libdeflate (whole members) and flate2 (streaming).
//!
//! Broken input is reported, not fatal: each problem is an [`Error`] with the
//! file, offset, stage and kind, and the next call carries on with the next
//! record (after garbage: at the next gzip magic or the next `WARC/` line).
#![deny(missing_docs)]
// The one exception, libdeflate's FFI, is allowed in `inflate`.
#![deny(unsafe_code)]

mod date;
mod error;
mod gzip;
mod header;
mod inflate;
mod record;
mod source;

use std::fs::File;
use std::io::Read;
use std::path::Path;

pub use date::parse_warc_date;
pub use error::{Error, ErrorKind, Stage};
pub use header::{Fields, Headers};
pub use record::{Record, RecordType};

use gzip::{Fault, GzipMembers, Input};
use source::Source;

/// Largest HTTP body kept per response (Common Crawl's own fetch limit).
pub const BODY_CAP: usize = 1 << 20;
/// Largest HTTP head accepted in a response block.
pub const HTTP_HEAD_CAP: usize = 64 * 1024;
/// Largest WARC header block accepted.
pub const WARC_HEADER_CAP: usize = 64 * 1024;
/// Largest `warcinfo` block kept.
const WARCINFO_CAP: usize = 64 * 1024;

/// Reader settings. The defaults suit Common Crawl; the small settings exist
/// so tests can drive every code path with the same input.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    read_size: usize,
    whole_member_max: usize,
    body_cap: usize,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            read_size: 256 * 1024,
            whole_member_max: 4 << 20,
            body_cap: BODY_CAP,
        }
    }
}

impl ReadOptions {
    /// Bytes asked of the underlying reader per read (default 256 KiB).
    pub fn read_size(mut self, n: usize) -> ReadOptions {
        self.read_size = n.max(1);
        self
    }

    /// Largest gzip member, compressed or uncompressed, inflated in one call
    /// (default 4 MiB). Bigger members are inflated by a streaming decoder;
    /// 0 streams every member.
    pub fn whole_member_max(mut self, n: usize) -> ReadOptions {
        self.whole_member_max = n;
        self
    }

    /// Largest HTTP body kept per response (default 1 MiB). The response
    /// block is kept up to this plus [`HTTP_HEAD_CAP`].
    pub fn body_cap(mut self, n: usize) -> ReadOptions {
        self.body_cap = n;
        self
    }
}

/// Reads the WARC records of one file.
///
/// ```
/// use robostats_warc::{Record, RecordType, WarcReader};
///
/// let warc = b"WARC/1.0\r\nWARC-Type: response\r\n\
///     WARC-Target-URI: https://example.com/robots.txt\r\n\
///     Content-Length: 42\r\n\r\n\
///     HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nAllow: /\n\r\n\r\n";
/// let mut reader = WarcReader::new(&warc[..], "example.warc");
/// let mut record = Record::new();
/// assert!(reader.read_record(&mut record)?);
/// assert_eq!(record.record_type(), RecordType::Response);
/// assert_eq!(record.target_uri(), Some("https://example.com/robots.txt"));
/// assert!(!reader.read_record(&mut record)?);
/// # Ok::<(), robostats_warc::Error>(())
/// ```
pub struct WarcReader<R> {
    src: Source<R>,
    file: String,
    opts: ReadOptions,
    /// An error to return on the next call (found after a record that was
    /// still worth returning).
    pending: Option<Error>,
    /// Skip to the next `WARC/` line before reading the next record.
    resync: bool,
    /// Stop: the input cannot be read any further.
    done: bool,
    records: u64,
    crawl: Option<String>,
    crawl_from_warcinfo: bool,
    /// The header block being read, before it is parsed into the record.
    scratch: Vec<u8>,
}

impl WarcReader<File> {
    /// Opens a file. An error here concerns this file only (stage `open`).
    pub fn open(path: impl AsRef<Path>) -> Result<WarcReader<File>, Error> {
        let path = path.as_ref();
        let name = path.to_string_lossy();
        Ok(WarcReader::new(open(path, &name)?, &name))
    }
}

/// Opens the input file `path`, named `name` in errors (its
/// `warc_filename`). A failure is an error of stage `open` that keeps the
/// operating system's error as its source.
pub fn open(path: &Path, name: &str) -> Result<File, Error> {
    let file = File::open(path).map_err(|e| Error::io(Stage::Open, name, None, e))?;
    // A directory opens, and then every read fails: say so at once.
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let e = std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a directory");
        return Err(Error::io(Stage::Open, name, None, e));
    }
    Ok(file)
}

impl<R: Read> WarcReader<R> {
    /// A reader over `inner` with the default options; `file` names the
    /// input in records' errors.
    pub fn new(inner: R, file: &str) -> WarcReader<R> {
        WarcReader::with_options(inner, file, ReadOptions::default())
    }

    /// A reader with explicit options.
    pub fn with_options(inner: R, file: &str, opts: ReadOptions) -> WarcReader<R> {
        WarcReader {
            src: Source::Unknown(Input::new(inner, opts.read_size)),
            file: file.to_owned(),
            opts,
            pending: None,
            resync: false,
            done: false,
            records: 0,
            crawl: crawl_from_path(file).map(str::to_owned),
            crawl_from_warcinfo: false,
            scratch: Vec::new(),
        }
    }

    /// The name given for the file.
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// The crawl: `isPartOf` of the first `warcinfo` record that has one, or
    /// else a `CC-MAIN-YYYY-WW` component of the file's path.
    pub fn crawl(&self) -> Option<&str> {
        self.crawl.as_deref()
    }

    /// Whether the input turned out to be gzip (known after the first read).
    pub fn is_gzip(&self) -> bool {
        self.src.is_gzip()
    }

    fn error(
        &self,
        kind: ErrorKind,
        stage: Stage,
        offset: u64,
        message: impl Into<String>,
    ) -> Error {
        Error::new(stage, kind, &self.file, Some(offset), message)
    }

    /// Decides between gzip and plain from the first bytes.
    fn detect(&mut self) -> Result<(), Error> {
        let Source::Unknown(input) = &mut self.src else {
            return Ok(());
        };
        let head = input
            .fill_to(2)
            .map_err(|e| Error::io(Stage::Open, &self.file, Some(0), e))?;
        if head.is_empty() {
            self.done = true;
            return Err(self.error(ErrorKind::EmptyFile, Stage::Open, 0, "the file is empty"));
        }
        let gzip = head.starts_with(&[0x1f, 0x8b]);
        let Source::Unknown(input) = std::mem::replace(&mut self.src, Source::Gone) else {
            unreachable!("checked above")
        };
        self.src = if gzip {
            Source::Gzip(Box::new(GzipMembers::new(
                input,
                self.opts.read_size,
                self.opts.whole_member_max,
            )))
        } else {
            Source::Plain(input)
        };
        Ok(())
    }

    /// Reads the next record into `rec`. `Ok(false)` at the end of the file.
    ///
    /// An `Err` reports one problem (garbage, a broken member, a bad record);
    /// call again to continue after it. A record cut short by the end of the
    /// input is still returned (see [`Record::is_complete`]) and the cause is
    /// the next call's error.
    pub fn read_record(&mut self, rec: &mut Record) -> Result<bool, Error> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.done {
            return Ok(false);
        }
        self.detect()?;
        if self.resync {
            self.resync = false;
            self.skip_to_next_record()
                .map_err(|f| f.into_error(&self.file))?;
        }
        let Some((offset, in_member)) = self.seek_record()? else {
            return Ok(false);
        };
        self.records += 1;
        let content_length = self.header(rec, offset, in_member)?;
        rec.content_length = content_length;
        rec.body_cap = self.opts.body_cap;
        let cap = match rec.record_type {
            RecordType::Response => self.opts.body_cap.saturating_add(HTTP_HEAD_CAP),
            RecordType::Warcinfo => WARCINFO_CAP,
            _ => 0,
        };
        let (fault, left) = self.read_block(rec, cap);
        if !rec.complete {
            self.pending = Some(match fault {
                Some(f) => f.into_error(&self.file),
                None => self.error(
                    ErrorKind::TruncatedRecord,
                    Stage::Warc,
                    offset,
                    format!(
                        "block ends after {} of its {content_length} bytes",
                        content_length - left
                    ),
                ),
            });
            return Ok(true);
        }
        self.finish_record(rec, offset)?;
        if rec.record_type == RecordType::Warcinfo
            && !self.crawl_from_warcinfo
            && let Some(crawl) = warcinfo_field(&rec.block, "isPartOf")
        {
            self.crawl = Some(crawl.to_owned());
            self.crawl_from_warcinfo = true;
        }
        Ok(true)
    }
}

impl<R: Read> WarcReader<R> {
    /// Moves to the start of the next record, over member ends and the
    /// empty lines between records, and checks that a version line starts
    /// there. `None` at the end of the input.
    fn seek_record(&mut self) -> Result<Option<(u64, u64)>, Error> {
        loop {
            let buf = self.src.fill_buf().map_err(|f| f.into_error(&self.file))?;
            if buf.is_empty() {
                match self.src.next_member() {
                    Ok(true) => continue,
                    Ok(false) => {
                        self.done = true;
                        return Ok(None);
                    }
                    Err(f) => return Err(f.into_error(&self.file)),
                }
            }
            let blank = leading_line_ends(buf);
            if blank == 0 {
                break;
            }
            self.src.consume(blank);
        }
        let (offset, in_member) = self.src.position();
        let starts_record = self
            .src
            .fill_at_least(5)
            .map_err(|f| f.into_error(&self.file))?
            .starts_with(b"WARC/");
        if starts_record {
            return Ok(Some((offset, in_member)));
        }
        self.resync = true;
        let (kind, stage, msg) = if self.records == 0 && offset == 0 && !self.src.is_gzip() {
            (
                ErrorKind::NotWarc,
                Stage::Open,
                "neither gzip nor a WARC file",
            )
        } else {
            (
                ErrorKind::NotARecord,
                Stage::Warc,
                "expected a WARC version line",
            )
        };
        Err(self.error(kind, stage, offset, msg))
    }

    /// Reads the header block of the record at `offset` into `rec`: its
    /// fields, type and position; returns its `Content-Length`.
    fn header(&mut self, rec: &mut Record, offset: u64, in_member: u64) -> Result<u64, Error> {
        if let Err(e) = self.read_header(offset) {
            self.resync = true;
            return Err(e);
        }
        rec.headers.parse_from(&self.scratch);
        rec.offset = offset;
        rec.offset_in_member = in_member;
        rec.length = None;
        rec.record_type = rec
            .headers
            .get("WARC-Type")
            .map_or(RecordType::Other, RecordType::from_bytes);
        let content_length = rec
            .headers
            .get_str("Content-Length")
            .and_then(|v| v.trim().parse::<u64>().ok());
        content_length.ok_or_else(|| {
            self.resync = true;
            self.error(
                ErrorKind::BadContentLength,
                Stage::Warc,
                offset,
                "missing or invalid Content-Length",
            )
        })
    }

    /// Copies the header block (up to its empty line) into `scratch`.
    fn read_header(&mut self, offset: u64) -> Result<(), Error> {
        self.scratch.clear();
        let mut line_start = 0;
        loop {
            let buf = self.src.fill_buf().map_err(|f| f.into_error(&self.file))?;
            if buf.is_empty() {
                return Err(self.error(
                    ErrorKind::TruncatedHeader,
                    Stage::Warc,
                    offset,
                    "the input ends inside a WARC header block",
                ));
            }
            let (n, line_end) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            self.scratch.extend_from_slice(&buf[..n]);
            self.src.consume(n);
            if self.scratch.len() > WARC_HEADER_CAP {
                return Err(self.error(
                    ErrorKind::HeaderTooLong,
                    Stage::Warc,
                    offset,
                    format!("WARC header block longer than {WARC_HEADER_CAP} bytes"),
                ));
            }
            if line_end {
                let line = &self.scratch[line_start..];
                if line_start > 0 && (line == b"\n" || line == b"\r\n") {
                    return Ok(());
                }
                line_start = self.scratch.len();
            }
        }
    }

    /// Reads the block, keeping at most `cap` bytes. Returns the fault that
    /// stopped it early, if any, and the number of bytes not read.
    fn read_block(&mut self, rec: &mut Record, cap: usize) -> (Option<Fault>, u64) {
        rec.block.clear();
        let mut left = rec.content_length;
        let cap = cap.min(usize::try_from(rec.content_length).unwrap_or(usize::MAX));
        let mut fault = None;
        while left > 0 {
            let buf = match self.src.fill_buf() {
                Ok(buf) => buf,
                Err(f) => {
                    fault = Some(f);
                    break;
                }
            };
            if buf.is_empty() {
                // A block may go on in the next gzip member (some writers
                // split records), unless that member starts a new record:
                // then this block's Content-Length was too long.
                match self.src.next_member() {
                    Ok(true) => match self.src.fill_at_least(5) {
                        Ok(next) if next.starts_with(b"WARC/") => break,
                        Ok(_) => continue,
                        Err(f) => {
                            fault = Some(f);
                            break;
                        }
                    },
                    Ok(false) => break,
                    Err(f) => {
                        fault = Some(f);
                        break;
                    }
                }
            }
            let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let keep = n.min(cap - rec.block.len());
            rec.block.extend_from_slice(&buf[..keep]);
            self.src.consume(n);
            left -= n as u64;
        }
        rec.complete = left == 0;
        (fault, left)
    }

    /// Consumes the empty lines that end a record, checks that a record or
    /// the end of the member follows, and sets the record's length.
    fn finish_record(&mut self, rec: &mut Record, offset: u64) -> Result<(), Error> {
        loop {
            let buf = self
                .src
                .fill_at_least(1)
                .map_err(|f| f.into_error(&self.file))?;
            let blank = leading_line_ends(buf);
            if blank == 0 {
                break;
            }
            self.src.consume(blank);
        }
        let next = self
            .src
            .fill_at_least(5)
            .map_err(|f| f.into_error(&self.file))?;
        let at_end = next.is_empty();
        if !at_end && !next.starts_with(b"WARC/") {
            self.resync = true;
            let (pos, _) = self.src.position();
            self.pending = Some(self.error(
                ErrorKind::ContentLengthMismatch,
                Stage::Warc,
                offset,
                format!("record not followed by a new record (Content-Length {} is probably wrong; next bytes at {pos})", rec.content_length),
            ));
        }
        rec.length = match &self.src {
            Source::Gzip(gz) if at_end => gz.member_end_reached().map(|end| end - offset),
            Source::Gzip(_) => None,
            _ => Some(self.src.position().0 - offset),
        };
        Ok(())
    }

    /// Skips to the next line that starts with `WARC/`, or to the end of the
    /// current member (a member start is a record start too).
    fn skip_to_next_record(&mut self) -> Result<(), Fault> {
        loop {
            let buf = self.src.fill_buf()?;
            if buf.is_empty() {
                return Ok(());
            }
            match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    self.src.consume(i + 1);
                    if self.src.fill_at_least(5)?.starts_with(b"WARC/") {
                        return Ok(());
                    }
                }
                None => {
                    let n = buf.len();
                    self.src.consume(n);
                }
            }
        }
    }

    /// An iterator over owned records (a convenience: it allocates per
    /// record; [`WarcReader::read_record`] does not).
    pub fn records(&mut self) -> Records<'_, R> {
        Records { reader: self }
    }
}

/// Iterator returned by [`WarcReader::records`].
pub struct Records<'a, R> {
    reader: &'a mut WarcReader<R>,
}

impl<R: Read> Iterator for Records<'_, R> {
    type Item = Result<Record, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut rec = Record::new();
        match self.reader.read_record(&mut rec) {
            Ok(true) => Some(Ok(rec)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// Inflates every gzip member of `inner` and discards the output: the
/// decompression floor that [`WarcReader`] is measured against. Uses the
/// reader's own member splitting and inflaters. Returns the number of members
/// and of uncompressed bytes.
pub fn inflate_members<R: Read>(inner: R, opts: &ReadOptions) -> Result<(u64, u64), Error> {
    let input = Input::new(inner, opts.read_size);
    let mut gz = GzipMembers::new(input, opts.read_size, opts.whole_member_max);
    let (mut members, mut bytes) = (0u64, 0u64);
    loop {
        match gz.next_member() {
            Ok(true) => members += 1,
            Ok(false) => return Ok((members, bytes)),
            Err(f) => return Err(f.into_error("")),
        }
        loop {
            let n = gz.fill_buf().map_err(|f| f.into_error(""))?.len();
            if n == 0 {
                break;
            }
            bytes += n as u64;
            gz.consume(n);
        }
    }
}

/// The value of a field in a `warcinfo` block (`application/warc-fields`).
pub fn warcinfo_field<'a>(block: &'a [u8], name: &str) -> Option<&'a str> {
    block.split(|&b| b == b'\n').find_map(|line| {
        let colon = memchr::memchr(b':', line)?;
        let (key, value) = (&line[..colon], &line[colon + 1..]);
        if !key.trim_ascii().eq_ignore_ascii_case(name.as_bytes()) {
            return None;
        }
        let value = std::str::from_utf8(value.trim_ascii()).ok()?;
        (!value.is_empty()).then_some(value)
    })
}

/// The Common Crawl crawl name (`CC-MAIN-YYYY-WW`) in a path such as
/// `crawl-data/CC-MAIN-2024-30/segments/.../robotstxt/...warc.gz`.
pub fn crawl_from_path(path: &str) -> Option<&str> {
    path.split(['/', '\\']).find(|part| {
        let b = part.as_bytes();
        b.len() == 15
            && b.starts_with(b"CC-MAIN-")
            && b[8..12].iter().all(u8::is_ascii_digit)
            && b[12] == b'-'
            && b[13..].iter().all(u8::is_ascii_digit)
    })
}

/// The CR and LF bytes `buf` starts with: the empty lines between records.
fn leading_line_ends(buf: &[u8]) -> usize {
    buf.iter()
        .take_while(|&&b| b == b'\r' || b == b'\n')
        .count()
}

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
