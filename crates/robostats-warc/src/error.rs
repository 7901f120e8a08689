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
    /// Every value, in declaration order (a value's index is `v as usize`).
    pub const ALL: &'static [Stage] = &[Stage::Open, Stage::Gzip, Stage::Warc, Stage::Http];

    /// Every value's name, in declaration order.
    pub const LABELS: &'static [&'static str] = &["open", "gzip", "warc", "http"];

    /// The stable name (the value of the `errors` table's column).
    pub fn as_str(self) -> &'static str {
        Self::LABELS[self as usize]
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
    /// Reading gave up on the input: the reader kept failing without
    /// reading a record, so the rest of the input is not read.
    GaveUp,
}

impl ErrorKind {
    /// Every value, in declaration order (a value's index is `v as usize`).
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::Io,
        ErrorKind::EmptyFile,
        ErrorKind::NotWarc,
        ErrorKind::GarbageBetweenMembers,
        ErrorKind::CorruptMember,
        ErrorKind::TruncatedMember,
        ErrorKind::NotARecord,
        ErrorKind::HeaderTooLong,
        ErrorKind::TruncatedHeader,
        ErrorKind::BadHeaderLine,
        ErrorKind::BadContentLength,
        ErrorKind::TruncatedRecord,
        ErrorKind::ContentLengthMismatch,
        ErrorKind::MissingTargetUri,
        ErrorKind::NotHttp,
        ErrorKind::HttpHeadTooLong,
        ErrorKind::GaveUp,
    ];

    /// Every value's name, in declaration order.
    pub const LABELS: &'static [&'static str] = &[
        "io",
        "empty_file",
        "not_warc",
        "garbage_between_members",
        "corrupt_member",
        "truncated_member",
        "not_a_record",
        "header_too_long",
        "truncated_header",
        "bad_header_line",
        "bad_content_length",
        "truncated_record",
        "content_length_mismatch",
        "missing_target_uri",
        "not_http",
        "http_head_too_long",
        "gave_up",
    ];

    /// The stable name (the value of the `errors` table's column).
    pub fn as_str(self) -> &'static str {
        Self::LABELS[self as usize]
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

    /// An I/O error from the operating system, with its position.
    pub fn io(stage: Stage, file: &str, offset: Option<u64>, err: io::Error) -> Error {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` and `LABELS` are written by hand: each value sits at its own
    /// index, with a label, and the matches below stop compiling when a
    /// variant is added without a place in them.
    #[test]
    fn every_value_is_listed_once_at_its_index_with_its_label() {
        let _ = |s: Stage| match s {
            Stage::Open | Stage::Gzip | Stage::Warc | Stage::Http => (),
        };
        let _ = |k: ErrorKind| match k {
            ErrorKind::Io
            | ErrorKind::EmptyFile
            | ErrorKind::NotWarc
            | ErrorKind::GarbageBetweenMembers
            | ErrorKind::CorruptMember
            | ErrorKind::TruncatedMember
            | ErrorKind::NotARecord
            | ErrorKind::HeaderTooLong
            | ErrorKind::TruncatedHeader
            | ErrorKind::BadHeaderLine
            | ErrorKind::BadContentLength
            | ErrorKind::TruncatedRecord
            | ErrorKind::ContentLengthMismatch
            | ErrorKind::MissingTargetUri
            | ErrorKind::NotHttp
            | ErrorKind::HttpHeadTooLong
            | ErrorKind::GaveUp => (),
        };
        assert_eq!(Stage::ALL.len(), 4);
        assert_eq!(ErrorKind::ALL.len(), 17);
        assert_eq!(Stage::LABELS.len(), Stage::ALL.len());
        assert_eq!(ErrorKind::LABELS.len(), ErrorKind::ALL.len());
        for (i, s) in Stage::ALL.iter().enumerate() {
            assert_eq!(*s as usize, i, "{s:?}");
        }
        for (i, k) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i, "{k:?}");
        }
        let mut labels: Vec<&str> = ErrorKind::LABELS.to_vec();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), ErrorKind::LABELS.len(), "a label twice");
        assert_eq!(ErrorKind::NotHttp.as_str(), "not_http");
        assert_eq!(Stage::Http.as_str(), "http");
    }
}
