//! Record -> HTTP response -> outcome classes and URL facts.
//!
//! [`Response::parse`] reads the HTTP head of a `response` record (status,
//! headers with duplicates, bounded body); [`Capture::new`] turns record and
//! response into one plain row: Google's and Common Crawl's outcome classes,
//! the redirect target and its kind, content facts and [`UrlFacts`].

mod outcome;
mod response;
mod target;

pub use outcome::{
    Bom, Capture, CcClass, GOOGLE_SIZE_LIMIT, GoogleClass, RedirectKind, looks_like_html,
    parse_warc_date,
};
pub use response::Response;
pub use target::{UrlFacts, registered_domain};
