//! robostats: Google-exact robots.txt parsing and matching, and the
//! analysis of Common Crawl's robots.txt WARC files.
#![deny(missing_docs)]

pub mod batch;
pub mod classify;
pub mod robots;
pub mod sink;
