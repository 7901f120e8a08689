//! The capture key, first in every table but `agents` and
//! `verdict_counts`: its own module, so that the modules making rows
//! (`capture`, `lines`, `verdict`) import it without importing one
//! another.

use crate::table::columns;

columns! {
    /// The capture key: `(warc_filename, warc_record_offset)` names one
    /// record of one input, first in every table, so that the tables join
    /// on it and any row leads back to its record with one seek.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct CaptureKey<'a> {
        /// the WARC file, as named on the command line or in the paths file
        /// (for Common Crawl's paths files: the path Common Crawl's index gives)
        pub warc_filename: &'a str as dict,
        /// byte offset of the record in the file: for gzip files the offset of
        /// its gzip member (Common Crawl's warc_record_offset), for plain WARC
        /// the offset of the record
        pub warc_record_offset: u64,
    }
}

columns! {
    /// The body key: `(body_digest, writer)` starts every table stored
    /// once per distinct body (`bodies` and the `body_*` line tables).
    /// A body's lines are the same whichever capture served it, so they are
    /// written once, by the first writer that meets it; `captures.body_digest`
    /// leads to them.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct BodyKey<'a> {
        /// the body's digest (BLAKE3 of the bytes parsed, as
        /// captures.body_digest)
        pub body_digest: &'a str as dict,
        /// the part file set that wrote the body's rows (a random number per
        /// input and lane): a body written twice, by two shards or two inputs
        /// read at once, has two writers, and the views keep the smallest
        pub writer: i64,
    }
}

columns! {
    /// `bodies`: one row per distinct body a writer stored, published after
    /// the body's line rows, so a row here means they are complete.
    #[derive(Clone, Debug, PartialEq)]
    pub struct BodyRow<'a> {
        /// The body and its writer.
        pub at: BodyKey<'a>,
        /// bytes parsed (after the size limit)
        pub bytes: u64,
    }
}
