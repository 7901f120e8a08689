//! Record -> HTTP response -> outcome classes and content facts.
//!
//! [`Response::parse`] reads the HTTP head of a `response` record (status,
//! headers with duplicates, bounded body). The other modules classify what
//! it says: [`GoogleClass`] and [`CcClass`] (the outcome of the fetch),
//! [`redirect`] (where a 3xx points), [`content`] (byte order mark, HTML,
//! MIME type, cache lifetime) and [`UrlFacts`] (the URL as Common Crawl's
//! index splits it). `classify` puts them together into a capture row.

pub mod content;
mod outcome;
pub mod redirect;
mod response;
mod target;

pub use content::Bom;
pub use outcome::{CcClass, GoogleClass};
pub use redirect::RedirectKind;
pub use response::Response;
pub use target::{UrlFacts, host_registered_domain, registered_domain};
