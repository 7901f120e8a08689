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
