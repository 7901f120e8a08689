//! Rows -> Parquet part files under the output directory.
//!
//! ```text
//! rows --batch--> Arrow record batches (one builder per table and lane)
//!      --sink---> Parquet bytes (settings per column, row groups of 512 KiB)
//!      --dataset--> part files under temporary names, renamed when their
//!                   input is done; the manifest that makes re-runs resume;
//!                   the lock that keeps two writers apart
//! a finished data set --compact--> fewer, larger part files
//! ```
//!
//! Every file this half writes stays inside the output directory and is
//! opened without following symbolic links.

pub mod backend;
pub mod batch;
pub mod bucket;
pub mod compact;
pub mod dataset;
pub mod kill_point;
pub mod location;
pub mod process;
pub mod scratch;
pub mod sink;
