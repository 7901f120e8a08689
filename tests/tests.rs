//! The integration tests, in one binary so the dependencies link once.

mod check;
mod cli;
mod compact;
mod crates;
mod faults;
mod forgery;
mod ingest;
mod modules;
mod new_user;
mod resume;
mod safety;
mod sizes;
mod terminal;
mod warc_broken;
mod warc_paths;
mod warc_real;
mod warc_sample;
mod warc_util;
mod write_failures;

/// The robostats binary the tests run: this build's, or the one
/// `ROBOSTATS_BIN` names (the test command runs them against the release
/// build, which the Python tests use too).
pub fn robostats() -> std::path::PathBuf {
    std::env::var_os("ROBOSTATS_BIN").map_or_else(
        || env!("CARGO_BIN_EXE_robostats").into(),
        std::path::PathBuf::from,
    )
}
