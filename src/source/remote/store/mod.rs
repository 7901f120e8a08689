//! The stores remote inputs are read from, one module each: what a
//! store's URLs may be, how a request for one is made (signed or not),
//! and how its answers are read. A [`Store`]'s defaults are plain
//! HTTP's: a store says only where it differs, and keeps what a run needs
//! of it (a client, credentials) in its own [`Session`].
//!
//! A new store is its module here, its variant of [`Scheme`] (its name in
//! URLs) and its arm in [`of`]: see CONTRIBUTING.md, "A new input source".

mod http;
mod s3;

use std::future::Future;
use std::pin::Pin;

use url::Url;

use super::Options;
use super::transfer::FetchError;
use crate::source::scheme::Scheme;

/// The store of each scheme: the one place a scheme meets its module.
pub(super) fn of(scheme: Scheme) -> &'static dyn Store {
    match scheme {
        Scheme::Http | Scheme::Https => &http::Http,
        Scheme::S3 => &s3::S3,
    }
}

/// The headers that sign a request, name and value.
pub(super) type Headers = Vec<(String, String)>;

/// The making of a request: the URL to send a GET to and the headers that
/// sign it, or why there is none (the store could not be set up, say).
/// Boxed, so that a [`Session`] is a trait object.
pub(super) type Request<'a> =
    Pin<Box<dyn Future<Output = Result<(Url, Headers), String>> + Send + 'a>>;

/// A store: what its URLs may be and how its answers are read. Each
/// method's default is what plain HTTP does.
pub(super) trait Store: Sync {
    /// Why `url`, as given, is refused, if it is: a user name or password
    /// the store takes no credentials from (checked when the inputs are
    /// listed, before the URL's secrets are looked at).
    fn userinfo_refused(&self, url: &Url) -> Option<&'static str> {
        let _ = url;
        None
    }

    /// Why `url` does not have the shape the store reads, if it does not
    /// (checked on an input's URL, after a `--prefix` is joined to it).
    fn shape_refused(&self, url: &Url) -> Option<&'static str> {
        let _ = url;
        None
    }

    /// Its requests are signed: they are sent by the client that follows
    /// no redirect (the signature, the session token and the request's
    /// path would go elsewhere), and a redirect is an error that says so
    /// ([`Store::redirect_refused`]).
    fn signed(&self) -> bool {
        false
    }

    /// Why the redirect answered to a signed request (`answer`, to
    /// `location` as shown) is not followed, and what to do instead.
    fn redirect_refused(&self, answer: &FetchError, location: &str) -> String {
        format!(
            "the store answered {answer} with a redirect to {location}: a signed request is \
             not sent anywhere else"
        )
    }

    /// A 403 without an error code may be a CDN's rate limit (CloudFront
    /// answers one with an HTML page), to be retried; a store that says
    /// why in its answer (S3's `AccessDenied`...) means credentials, which
    /// asking again will not change.
    fn bare_403_is_throttling(&self) -> bool {
        true
    }

    /// What a run keeps of the store, made with the run's client: nothing
    /// is sent or resolved yet (a set-up waits for the first request).
    fn session(&self, options: &Options) -> Box<dyn Session> {
        let _ = options;
        Box::new(Plain)
    }
}

/// A store as a run reaches it, with what it keeps between requests.
pub(super) trait Session: Send + Sync {
    /// The request for `url`, a URL of the store's scheme.
    fn request<'a>(&'a self, url: &'a Url) -> Request<'a>;
}

/// Plain HTTP's session: the URL itself, unsigned.
struct Plain;

impl Session for Plain {
    fn request<'a>(&'a self, url: &'a Url) -> Request<'a> {
        Box::pin(std::future::ready(Ok((url.clone(), Vec::new()))))
    }
}

/// The session of each scheme in a run.
pub(super) struct Sessions(Vec<(Scheme, Box<dyn Session>)>);

impl Sessions {
    /// A session for every scheme of [`Scheme::ALL`].
    pub(super) fn new(options: &Options) -> Sessions {
        Sessions(
            Scheme::ALL
                .iter()
                .map(|&scheme| (scheme, of(scheme).session(options)))
                .collect(),
        )
    }

    /// The session of `scheme`.
    pub(super) fn get(&self, scheme: Scheme) -> &dyn Session {
        self.0
            .iter()
            .find(|(s, _)| *s == scheme)
            .map(|(_, session)| session.as_ref())
            .expect("a session for every scheme")
    }
}

/// Why `url`, as given, is refused by its store, if it is (checked when
/// the inputs are listed, before its secrets are looked at).
pub(crate) fn userinfo_refused(url: &Url) -> Option<&'static str> {
    of(Scheme::of_url(url)?).userinfo_refused(url)
}

/// Why `url` does not have the shape its store reads, if it does not
/// (checked on an input's URL, after a `--prefix` is joined to it).
pub(crate) fn shape_refused(url: &Url) -> Option<&'static str> {
    of(Scheme::of_url(url)?).shape_refused(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_has_a_store_and_a_session() {
        let sessions = Sessions::new(&Options::default());
        for &scheme in Scheme::ALL {
            let _ = (of(scheme), sessions.get(scheme));
        }
        // Plain HTTP's defaults, and S3's own answers.
        let http = of(Scheme::Https);
        assert!(!http.signed() && http.bare_403_is_throttling());
        let s3 = of(Scheme::S3);
        assert!(s3.signed() && !s3.bare_403_is_throttling());
        let url = |text| Url::parse(text).unwrap();
        assert_eq!(shape_refused(&url("https://h/?q#f")), None);
        assert_eq!(userinfo_refused(&url("https://u:p@h/")), None);
        assert!(shape_refused(&url("s3://b/k?q")).is_some());
        assert!(userinfo_refused(&url("s3://u@b/k")).is_some());
        assert_eq!(shape_refused(&url("ftp://h/k?q")), None);
    }

    #[test]
    fn plain_http_requests_the_url_itself_unsigned() {
        let sessions = Sessions::new(&Options::default());
        let url = Url::parse("https://data.commoncrawl.org/a?b").unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let request = runtime.block_on(sessions.get(Scheme::Https).request(&url));
        assert_eq!(request, Ok((url, Vec::new())));
    }
}
