//! S3 as a place to write: the requests ([`Bucket`]: PUT, GET, DELETE,
//! listings, each on a condition where it needs one), a run's claim on a
//! name ([`Lease`]) and `s3://bucket/prefix/` ([`S3Location`]). What a
//! data set keeps there, and how, is `output::dataset`'s
//! (`dataset/s3.rs`); this module knows nothing of tables.

pub mod lease;
mod listing;
mod location;
mod requests;

pub use lease::{Lease, LeaseError};
pub use location::S3Location;
pub use requests::Bucket;

/// A setting tests shorten (`ROBOSTATS_S3_LEASE_SECONDS`,
/// `ROBOSTATS_S3_SEGMENT_BYTES`): the variable `name` as a whole number of
/// at least `least`, else `default`.
pub fn test_setting(name: &str, least: u64, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&n| n >= least)
        .unwrap_or(default)
}
