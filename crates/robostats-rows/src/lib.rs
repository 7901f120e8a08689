//! Record -> rows: what one robots.txt capture in a WARC file says, as the
//! rows of robostats' tables. Pure functions, no I/O, no Arrow: the caller
//! chooses where rows go (robostats turns them into Parquet files).
//!
//! ```text
//! WARC record --http--> HTTP response, outcome classes, content facts
//!             --classify--> captures row, then for a 2xx robots.txt
//!                           (parsed by the robostats-robots engine) the rows of
//!                           user_agents, rules, sitemaps, directives,
//!                           preference_statements, named_verdicts,
//!                           resolved_preferences, and the verdict counts
//! Error ------classify--> errors row
//! ```
//!
//! * [`http`]: the HTTP response inside a `response` record, and what its
//!   status, headers and body are (Google's and Common Crawl's outcome
//!   classes, redirects, byte order marks, cache lifetimes).
//! * [`classify`]: a response and its parse -> the rows of every table;
//!   each table is declared once, as the struct of its row.
//! * [`table`]: how a row type declares its columns (names, types,
//!   descriptions), so the schema, the Arrow builders, the documentation
//!   and the DuckDB views are derived from one place.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod classify;
pub mod http;
pub mod table;

/// The robots.txt engine (the `robostats-robots` crate).
pub use robostats_robots as robots;
/// The WARC reader (the `robostats-warc` crate).
pub use robostats_warc as warc;
pub use robostats_warc::Error;
/// The URL type of [`http::UrlFacts::parse`] and [`http::redirect`].
pub use url;

/// The README's example, run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
