//! A remote input as this client reaches it: its URL and its store (see
//! [`store`](super::store)), whose quirks the transfer asks about.

use url::Url;

use super::Shared;
use super::store::{self, Headers, Store};
use super::transfer::FetchError;
use crate::source::scheme::Scheme;
use crate::source::secrets::RemoteUrl;

/// A remote input as this client reaches it.
pub(crate) struct Target {
    url: RemoteUrl,
    scheme: Scheme,
    store: &'static dyn Store,
}

impl Target {
    pub(super) fn parse(url: &RemoteUrl) -> Result<Target, FetchError> {
        match Scheme::of_url(url.url()) {
            Some(scheme) => Ok(Target {
                url: url.clone(),
                scheme,
                store: store::of(scheme),
            }),
            None => Err(FetchError::Setup(format!(
                "robostats reads {} URLs, not {}://",
                Scheme::listed(),
                url.url().scheme()
            ))),
        }
    }

    /// Its requests are signed: see [`Store::signed`].
    pub(crate) fn signed(&self) -> bool {
        self.store.signed()
    }

    /// Why a redirect answered to its signed request is not followed: see
    /// [`Store::redirect_refused`].
    pub(crate) fn redirect_refused(&self, answer: &FetchError, location: &str) -> String {
        self.store.redirect_refused(answer, location)
    }

    /// Whether a 403 without an error code is retried as a rate limit:
    /// see [`Store::bare_403_is_throttling`].
    pub(crate) fn bare_403_is_throttling(&self) -> bool {
        self.store.bare_403_is_throttling()
    }

    /// The URL as given (`s3://...` for S3), for messages: without its
    /// secrets.
    pub(super) fn name(&self) -> &str {
        self.url.shown()
    }

    /// The URL to send a GET to, and the headers that sign it.
    pub(super) async fn request(&self, shared: &Shared) -> Result<(Url, Headers), String> {
        shared
            .sessions
            .get(self.scheme)
            .request(self.url.url())
            .await
    }
}
