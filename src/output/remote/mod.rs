//! S3 as a place to write: the requests ([`Bucket`]: PUT, GET, DELETE,
//! listings, each on a condition where it needs one), a run's claim on a
//! name ([`Lease`]) and `s3://bucket/prefix/` ([`S3Location`]). What a
//! data set keeps there, and how, is `output::dataset`'s
//! (`dataset/remote.rs`); this module knows nothing of tables.

mod bucket;
pub mod lease;
mod listing;
mod location;

pub use bucket::{Bucket, Cond, Done};
pub use lease::{Lease, LeaseError};
pub use listing::Listed;
pub use location::S3Location;
