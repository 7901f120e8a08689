//! What an input is, the list of inputs a run is given, and how an input
//! is opened.
//!
//! An input is a local file or a URL (`http://`, `https://`, `s3://`:
//! read through [`remote`]). It has three names:
//!
//! - its **location**: where it is read (with `--prefix`, the prefixed
//!   path or URL);
//! - its **name**: the path as listed (on the command line, or the line of
//!   a paths file), which is its `warc_filename` in every table, so that
//!   the tables join with Common Crawl's index (a URL holding secrets is
//!   named by its identity instead, below);
//! - its **identity**: the file itself, whatever the spelling. For a local
//!   file this is its resolved absolute path (symbolic links followed,
//!   `.` and `..` removed; for a file that does not exist, the absolute
//!   path with `.` and `..` removed); for a URL, the URL in its normal
//!   form, each secret it holds replaced by `REDACTED` (see [`secrets`]).
//!   A run reads each identity once, and a re-run skips the identities
//!   an earlier run finished.
//!
//! [`list()`] expands what a user gives: a directory stands for the
//! `.warc.gz` and `.warc` files under it (recursively; hidden files and
//! directories skipped; in the order of their paths, each directory's
//! entries sorted by name), a quoted glob for the files it matches, and a
//! paths file (local, or a URL) for its lines.

mod error;
mod input;
mod list;
pub mod remote;
pub mod scheme;
pub mod secrets;
mod urls;

pub use error::ListError;
pub use input::{Input, Location, Opened, identity, lossless, open};
pub use list::{
    Listing, MAX_PATHS_BYTES, MAX_PATHS_LINE, MAX_PATHS_LINES, MAX_PATHS_RATIO, Sources, list,
};
pub use secrets::{RemoteUrl, Secrets};
