//! `s3://bucket/key` inputs: one signed GET with a range is all an input
//! asks of S3 (the set-up and the signing are [`crate::s3`]'s, shared with
//! the data sets written to S3), so that the retries, resumption and
//! request budget are the same for S3 and HTTPS.

use tokio::sync::OnceCell;
use url::Url;

use super::{Request, Session, Store};
use crate::s3::Setup;
use crate::source::remote::transfer::FetchError;
use crate::source::remote::{Options, S3Options};

/// `s3://` URLs: signed requests, and answers that say why they fail.
pub(super) struct S3;

impl Store for S3 {
    /// A user name or password: credentials come from the AWS chains,
    /// never from a URL.
    fn userinfo_refused(&self, url: &Url) -> Option<&'static str> {
        (!url.username().is_empty() || url.password().is_some()).then_some(
            "an s3:// URL holds no user name or password: credentials come from the AWS chain \
             (environment, profiles, roles)",
        )
    }

    /// `s3://BUCKET/KEY`, without a query or fragment.
    fn shape_refused(&self, url: &Url) -> Option<&'static str> {
        if url.host_str().is_none_or(str::is_empty) || url.path().trim_start_matches('/').is_empty()
        {
            return Some("an s3:// URL names a bucket and a key: s3://BUCKET/KEY");
        }
        (url.query().is_some() || url.fragment().is_some())
            .then_some("an s3:// URL is s3://BUCKET/KEY, with no '?' or '#' part")
    }

    fn signed(&self) -> bool {
        true
    }

    fn redirect_refused(&self, answer: &FetchError, location: &str) -> String {
        format!(
            "the S3 endpoint answered {answer} with a redirect to {location}: a signed request \
             is not sent anywhere else (give --s3-endpoint or --s3-region of the bucket's own \
             endpoint)"
        )
    }

    /// S3's 403 says why (`AccessDenied`...): credentials.
    fn bare_403_is_throttling(&self) -> bool {
        false
    }

    fn session(&self, options: &Options) -> Box<dyn Session> {
        Box::new(Run {
            options: options.s3.clone(),
            setup: OnceCell::new(),
        })
    }
}

/// S3 in a run: its set-up, made at the first `s3://` request (and its
/// failure, said again at each next one).
struct Run {
    options: S3Options,
    setup: OnceCell<Result<Setup, String>>,
}

impl Session for Run {
    fn request<'a>(&'a self, url: &'a Url) -> Request<'a> {
        Box::pin(async move {
            let setup = self
                .setup
                .get_or_init(|| Setup::new(&self.options))
                .await
                .as_ref()
                .map_err(Clone::clone)?;
            let url = setup.object_url(url)?;
            let signature = setup.sign("GET", &url, &[], None).await?;
            Ok((url, signature))
        })
    }
}
