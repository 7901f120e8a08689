//! Errors that say where: file, byte offset, pipeline stage and kind.
//!
//! A bad record or a bad gzip member is not fatal: the readers return an
//! [`Error`] for it and carry on with the next record, so the caller can turn
//! every error into one row of the `errors` table and keep going.

use std::fmt;
use std::io;

/// An error met while reading a WARC file, with its position.
///
/// Boxed so that `Result<T, Error>` stays one pointer wide on the hot path.
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    stage: Stage,
    file: String,
    offset: Option<u64>,
    message: String,
    source: Option<io::Error>,
}

/// The step of the pipeline that failed.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Opening or identifying the file.
    Open,
    /// Splitting the file into gzip members and inflating them.
    Gzip,
    /// Reading WARC records (version line, headers, block framing).
    Warc,
    /// Reading the HTTP response inside a WARC record.
    Http,
}

impl Stage {
    /// The stable lower-case name used in the `errors` table.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Open => "open",
            Stage::Gzip => "gzip",
            Stage::Warc => "warc",
            Stage::Http => "http",
        }
    }
}

/// What went wrong.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// An I/O error from the operating system.
    Io,
    /// The file holds no bytes at all.
    EmptyFile,
    /// The file is neither gzip nor a WARC file.
    NotWarc,
    /// Bytes that are not a gzip member where a member should start.
    GarbageBetweenMembers,
    /// A gzip member whose compressed data is invalid.
    CorruptMember,
    /// A gzip member cut off by the end of the file.
    TruncatedMember,
    /// Bytes that are not a WARC record where a record should start.
    NotARecord,
    /// The WARC header block is larger than the reader accepts.
    HeaderTooLong,
    /// The WARC header block ends before its terminating empty line.
    TruncatedHeader,
    /// A WARC header line without a colon.
    BadHeaderLine,
    /// A record without a usable `Content-Length`.
    BadContentLength,
    /// The record's block is shorter than its `Content-Length` says.
    TruncatedRecord,
    /// The record is not followed by the empty lines that end it, so its
    /// `Content-Length` is probably wrong.
    ContentLengthMismatch,
    /// A response record without `WARC-Target-URI`.
    MissingTargetUri,
    /// The block of a response record is not an HTTP response.
    NotHttp,
    /// The HTTP head is larger than the reader accepts.
    HttpHeadTooLong,
}

impl ErrorKind {
    /// The stable snake_case name used in the `errors` table.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Io => "io",
            ErrorKind::EmptyFile => "empty_file",
            ErrorKind::NotWarc => "not_warc",
            ErrorKind::GarbageBetweenMembers => "garbage_between_members",
            ErrorKind::CorruptMember => "corrupt_member",
            ErrorKind::TruncatedMember => "truncated_member",
            ErrorKind::NotARecord => "not_a_record",
            ErrorKind::HeaderTooLong => "header_too_long",
            ErrorKind::TruncatedHeader => "truncated_header",
            ErrorKind::BadHeaderLine => "bad_header_line",
            ErrorKind::BadContentLength => "bad_content_length",
            ErrorKind::TruncatedRecord => "truncated_record",
            ErrorKind::ContentLengthMismatch => "content_length_mismatch",
            ErrorKind::MissingTargetUri => "missing_target_uri",
            ErrorKind::NotHttp => "not_http",
            ErrorKind::HttpHeadTooLong => "http_head_too_long",
        }
    }
}

impl Error {
    /// A new error; `offset` is the byte offset the error refers to (see
    /// [`Error::offset`]).
    pub fn new(
        stage: Stage,
        kind: ErrorKind,
        file: &str,
        offset: Option<u64>,
        message: impl Into<String>,
    ) -> Error {
        Error(Box::new(Inner {
            kind,
            stage,
            file: file.to_owned(),
            offset,
            message: message.into(),
            source: None,
        }))
    }

    pub(crate) fn io(stage: Stage, file: &str, offset: Option<u64>, err: io::Error) -> Error {
        let mut e = Error::new(stage, ErrorKind::Io, file, offset, err.to_string());
        e.0.source = Some(err);
        e
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The pipeline step that failed.
    pub fn stage(&self) -> Stage {
        self.0.stage
    }

    /// The name of the file being read, as given to the reader.
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// The byte offset in the file: of the gzip member (compressed offset)
    /// or of the record or garbage (plain files) the error is about. `None`
    /// when the error is about the whole file.
    pub fn offset(&self) -> Option<u64> {
        self.0.offset
    }

    /// A human-readable description, without the position.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("stage", &self.0.stage)
            .field("kind", &self.0.kind)
            .field("file", &self.0.file)
            .field("offset", &self.0.offset)
            .field("message", &self.0.message)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.file)?;
        if let Some(off) = self.0.offset {
            write!(f, " at offset {off}")?;
        }
        write!(
            f,
            ": {} error ({}): {}",
            self.0.stage.as_str(),
            self.0.kind.as_str(),
            self.0.message
        )
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
