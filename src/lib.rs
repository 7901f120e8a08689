//! robostats: Google-exact robots.txt parsing and matching, and the
//! analysis of Common Crawl's robots.txt WARC files into Parquet tables.
//!
//! The data flows one way, each stage in its own module:
//!
//! ```text
//! file --warc--> WARC record --http--> HTTP response --robots--> parse, verdicts
//!      --classify--> rows (one struct per table) --batch--> Arrow batches
//!      --sink--> Parquet bytes --dataset--> part files and manifest under --out
//! ```
//!
//! * The reading half: [`warc`] (file -> gzip member -> record, with the
//!   offsets that join with Common Crawl's index), [`http`] (record -> HTTP
//!   response -> outcome classes and content facts) and [`robots`] (body ->
//!   groups and rules -> Google's verdict; the `robostats-robots` crate,
//!   which depends on nothing of the rest). Every problem with the input is
//!   an [`Error`] that says where it happened; reading goes on after it.
//! * [`classify`] turns a response into the rows of every table; each
//!   table is declared once, as the struct of its row ([`table`]).
//! * With the `tables` feature (default): `input` (local files and URLs:
//!   listing and opening), `remote` (URLs streamed over HTTP(S) and S3,
//!   politely and resumably), `batch` (rows -> Arrow), `sink`
//!   (Arrow -> Parquet), `dataset` (the output directory: part files,
//!   atomic renames, the manifest that makes re-runs resume), `pipeline`
//!   (files x threads -> all of the above, with accounting) and `compact`
//!   (fewer, larger part files for a finished data set). [`shard`] says
//!   which inputs one process of a batch job takes.
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
// The one exception, libdeflate's FFI, is allowed in `warc::inflate`.
#![deny(unsafe_code)]

#[cfg(feature = "tables")]
pub mod batch;
pub mod classify;
#[cfg(feature = "tables")]
pub mod compact;
#[cfg(feature = "tables")]
pub mod dataset;
pub mod error;
pub mod http;
#[cfg(feature = "tables")]
pub mod input;
#[cfg(feature = "tables")]
pub mod pipeline;
#[cfg(feature = "tables")]
pub mod remote;
/// The robots.txt engine: the `robostats-robots` crate (parsing, matching,
/// rule classes and AI-use preferences, exactly as Google reads a file).
pub use robostats_robots as robots;
pub mod shard;
#[cfg(feature = "tables")]
pub mod sink;
pub mod table;
pub mod warc;

pub use error::Error;

/// The examples of `docs/library.md`, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryGuide;
