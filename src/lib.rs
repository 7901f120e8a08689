//! robostats: Google-exact robots.txt parsing and matching, and the
//! analysis of Common Crawl's robots.txt WARC files into Parquet tables.
//!
//! The data flows one way, and the crates and modules are its stages:
//!
//! ```text
//! source --(robostats-warc)--> WARC record --(robostats-rows: http)--> HTTP response
//!   --(robostats-robots)--> parse, verdicts --(robostats-rows: classify)--> rows
//!   --output::batch--> Arrow --output::sink--> Parquet --output::dataset--> --out
//! ```
//!
//! * The reading half is three crates of its own, which build no Arrow,
//!   Parquet, tokio or HTTP client: [`warc`] (file -> gzip member ->
//!   record, with the offsets that join with Common Crawl's index),
//!   [`robots`] (body -> groups and rules -> Google's verdict), and the
//!   rows crate's [`http`] (record -> HTTP response -> outcome classes and
//!   content facts) and [`classify`] (response -> the rows of every table;
//!   each table is declared once, as the struct of its row: [`table`]).
//!   Every problem with the input is an [`Error`] that says where it
//!   happened; reading goes on after it.
//! * This crate: [`source`] (local files and URLs: listing and opening;
//!   `source::remote` streams URLs over HTTP(S) and S3, politely and
//!   resumably), [`output`] (rows -> Arrow -> Parquet part files under the
//!   output directory, the manifest that makes re-runs resume, and
//!   `compact`), [`pipeline`] (files x threads -> all of the above, with
//!   accounting), [`shard`] (which inputs one process of a batch job
//!   takes) and [`terminal`] (text from files and servers, escaped for a
//!   terminal).
//! * Downstream of the Parquet tables, the `robostats-report` crate runs
//!   the queries of `queries/` over a data set (in DuckDB) and draws their
//!   figures: `robostats report`.
//! * [`cli`] is the `robostats` command (flags, and the commands that
//!   print), one program for the Rust binary and the Python package.
//!
//! Reading a WARC file and judging its robots.txt bodies:
//!
//! ```
//! use robostats::classify::{Capture, parse_robots};
//! use robostats::http::{GoogleClass, Response};
//! use robostats::warc::{Record, WarcReader};
//!
//! let warc = b"WARC/1.0\r\nWARC-Type: response\r\n\
//!     WARC-Target-URI: https://example.com/robots.txt\r\n\
//!     Content-Length: 65\r\n\r\n\
//!     HTTP/1.1 200 OK\r\n\r\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: *\n\r\n\r\n";
//! let mut reader = WarcReader::new(&warc[..], "example.warc");
//! let mut record = Record::new();
//! while reader.read_record(&mut record)? {
//!     let response = Response::parse(&record, "example.warc");
//!     let capture = Capture::new("example.warc", reader.crawl(), &record, response.as_ref())?;
//!     assert_eq!(capture.google_class, GoogleClass::ConditionalAllow);
//!     let body = response.as_ref().map_or(&[][..], |r| r.body(&record));
//!     let robots = parse_robots(&capture, body, &Default::default()).expect("a 2xx is parsed");
//!     assert!(!robots.allowed("GPTBot", "https://example.com/"));
//!     assert!(robots.allowed("Googlebot", "https://example.com/"));
//! }
//! # Ok::<(), robostats::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The robots.txt engine: the `robostats-robots` crate (parsing, matching,
/// rule classes and AI-use preferences, exactly as Google reads a file).
pub use robostats_robots as robots;
pub mod cli;
pub mod judge;
pub mod output;
pub mod pipeline;
pub mod replace;
pub mod s3;
pub mod shard;
pub mod source;
pub mod terminal;
/// The WARC reader: the `robostats-warc` crate (file -> gzip member ->
/// record, with member offsets and errors that say where).
pub use robostats_warc as warc;

/// What a capture says, as rows: the `robostats-rows` crate's modules.
pub use robostats_rows::{classify, http, table};
pub use warc::Error;

/// The examples of `docs/library.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryGuide;
