//! The stores a remote input is read from, one arm each: how a URL of a
//! scheme ([`Scheme`]) is reached (its request, signed or not) and the
//! quirks of its answers. A new store is an arm here, its module beside
//! this one (S3's is [`s3`](super::s3)), and a variant of [`Scheme`].

use url::Url;

use super::transfer::FetchError;
use super::{Shared, s3};
use crate::source::scheme::Scheme;
use crate::source::secrets::RemoteUrl;

/// A remote input as this client reaches it.
pub(crate) enum Target {
    /// `http://` or `https://`: the URL itself.
    Http(RemoteUrl),
    /// `s3://bucket/key`.
    S3(RemoteUrl),
}

impl Target {
    pub(super) fn parse(url: &RemoteUrl) -> Result<Target, FetchError> {
        match Scheme::of_url(url.url()) {
            Some(Scheme::Http | Scheme::Https) => Ok(Target::Http(url.clone())),
            Some(Scheme::S3) => Ok(Target::S3(url.clone())),
            None => Err(FetchError::Setup(format!(
                "robostats reads {} URLs, not {}://",
                Scheme::listed(),
                url.url().scheme()
            ))),
        }
    }

    /// Its requests are signed: they are sent by the client that follows
    /// no redirect (the signature, the session token and the request's
    /// path would go elsewhere), and a redirect is an error that says so.
    pub(crate) fn signed(&self) -> bool {
        match self {
            Target::Http(_) => false,
            Target::S3(_) => true,
        }
    }

    /// A 403 without an error code may be a CDN's rate limit (CloudFront
    /// answers one with an HTML page), to be retried; a store that says
    /// why in its answer (S3's `AccessDenied`...) means credentials, which
    /// asking again will not change.
    pub(crate) fn bare_403_is_throttling(&self) -> bool {
        match self {
            Target::Http(_) => true,
            Target::S3(_) => false,
        }
    }

    /// The URL as given (`s3://...` for S3), for messages: without its
    /// secrets.
    pub(super) fn name(&self) -> &str {
        match self {
            Target::Http(url) | Target::S3(url) => url.shown(),
        }
    }

    /// The URL to send a GET to, and the headers that sign it.
    pub(super) async fn request(
        &self,
        shared: &Shared,
    ) -> Result<(Url, Vec<(String, String)>), String> {
        match self {
            Target::Http(url) => Ok((url.url().clone(), Vec::new())),
            Target::S3(s3_url) => {
                let s3 = shared
                    .s3
                    .get_or_init(|| s3::S3::new(&shared.options.s3))
                    .await
                    .as_ref()
                    .map_err(Clone::clone)?;
                let url = s3.object_url(s3_url.url())?;
                let signature = s3.sign(&url).await?;
                Ok((url, signature))
            }
        }
    }
}

/// Why `url`, as given, is refused by its store, if it is (checked when
/// the inputs are listed, before its secrets are looked at).
pub(crate) fn userinfo_refused(url: &Url) -> Option<&'static str> {
    match Scheme::of_url(url)? {
        Scheme::Http | Scheme::Https => None,
        Scheme::S3 => s3::userinfo_refused(url),
    }
}

/// Why `url` does not have the shape its store reads, if it does not
/// (checked on an input's URL, after a `--prefix` is joined to it).
pub(crate) fn shape_refused(url: &Url) -> Option<&'static str> {
    match Scheme::of_url(url)? {
        Scheme::Http | Scheme::Https => None,
        Scheme::S3 => s3::shape_refused(url),
    }
}
