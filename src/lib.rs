//! robostats: Google-exact robots.txt parsing and matching, and the
//! analysis of Common Crawl's robots.txt WARC files.
//!
//! The reading half of the pipeline is [`warc`] (file -> gzip member -> WARC
//! record, with the offsets that join with Common Crawl's index) and
//! [`http`] (record -> HTTP response -> outcome classes and URL facts).
//! Every problem with the input is an [`Error`] that says where it happened;
//! reading goes on after it.
//!
//! With the `tables` feature (default), `pipeline` runs the whole ingest
//! (records -> `classify` -> `batch` rows -> `sink` Parquet files, with the
//! `manifest` that makes re-runs resume), and `compact` merges a finished
//! data set's part files. [`shard`] says which inputs one process of a batch
//! job takes.
#![deny(missing_docs)]

#[cfg(feature = "tables")]
pub mod batch;
#[cfg(feature = "tables")]
pub mod classify;
#[cfg(feature = "tables")]
pub mod compact;
pub mod error;
pub mod http;
pub mod robots;
pub mod shard;
#[cfg(feature = "tables")]
pub mod sink;
pub mod warc;

pub use error::Error;
#[cfg(feature = "tables")]
pub mod manifest;
#[cfg(feature = "tables")]
pub mod pipeline;
