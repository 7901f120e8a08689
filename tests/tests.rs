//! The integration tests, in one binary so the dependencies link once.

mod cli;
mod crates;
mod faults;
mod ingest;
mod new_user;
mod resume;
mod safety;
mod terminal;
mod warc_broken;
mod warc_paths;
mod warc_real;
mod warc_sample;
mod warc_util;
mod write_failures;
