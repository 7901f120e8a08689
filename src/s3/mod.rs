//! S3: where an object is, and how a request for it is signed, for both
//! halves of a run (inputs read from `s3://`, data sets written to it).
//!
//! Credentials and region come from the standard AWS chains, through
//! `aws-config`, the SDK's own loader: environment variables, the shared
//! profile files (`AWS_PROFILE`, SSO, `credential_process`), web
//! identity, and container or instance roles, exactly as the AWS command
//! line finds them. Requests are signed with `aws-sigv4` (SigV4 in an
//! `Authorization` header, so that no credential is ever part of a URL
//! that could be printed). The full `aws-sdk-s3` client is not used
//! (BENCHMARKS.md, "Object storage output: the crate"): a GET, PUT,
//! DELETE and a listing are all robostats asks of S3.
//!
//! Credentials never leave this module but as signature headers and as
//! the DuckDB secret of a reader of a data set ([`DuckdbSecret`], handed
//! to that DuckDB alone): no error, message or table holds them.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use aws_config::BehaviorVersion;
use aws_credential_types::Credentials;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, percent_encode};
use url::Url;

use crate::terminal::shown;

/// How S3 is reached: for `s3://` inputs and data sets alike.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct S3Options {
    /// The endpoint (an S3-compatible store); else `AWS_ENDPOINT_URL_S3`,
    /// `AWS_ENDPOINT_URL` or the profile's, else AWS.
    pub endpoint: Option<String>,
    /// The region; else the AWS chain's, else `us-east-1`.
    pub region: Option<String>,
    /// Unsigned requests, for public buckets that allow them.
    pub anonymous: bool,
}

/// The region Common Crawl's bucket is in, used when no chain says one.
pub const DEFAULT_REGION: &str = "us-east-1";

/// How S3 objects are reached and requests signed.
pub struct Setup {
    /// A custom endpoint (S3-compatible stores): path-style URLs.
    endpoint: Option<Url>,
    region: String,
    /// `None`: anonymous (unsigned) requests.
    credentials: Option<SharedCredentialsProvider>,
    /// The credentials last resolved, reused until close to expiry.
    cached: Mutex<Option<Credentials>>,
    /// It reaches a data set (`--out s3://`, report, connect), not inputs:
    /// what to do without credentials differs.
    data_set: bool,
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field(
                "endpoint",
                &self.endpoint.as_ref().map(|e| shown(e.as_str())),
            )
            .field("region", &self.region)
            .field("signed", &self.credentials.is_some())
            .finish()
    }
}

/// An S3 endpoint given as text: an `http://` or `https://` URL with a
/// host, or why not.
fn endpoint_url(text: &str) -> Result<Url, String> {
    let refused = |why: &str| {
        format!(
            "the S3 endpoint '{}' is not an http:// or https:// URL with a host ({why}; as \
             http://127.0.0.1:9000 or https://s3.example.com): nothing is sent",
            shown(text)
        )
    };
    let url = Url::parse(text).map_err(|why| refused(&why.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refused(&format!("its scheme is '{}'", url.scheme())));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(refused("no host"));
    }
    Ok(url)
}

impl Setup {
    /// Resolves region, endpoint and the credential chain.
    pub async fn new(options: &S3Options) -> Result<Setup, String> {
        let mut loader = aws_config::defaults(BehaviorVersion::latest()).http_client(
            aws_smithy_http_client::Builder::new()
                .tls_provider(Provider::Rustls(CryptoMode::Ring))
                .build_https(),
        );
        if let Some(region) = &options.region {
            loader = loader.region(aws_config::Region::new(region.clone()));
        }
        if options.anonymous {
            loader = loader.no_credentials();
        }
        let config = loader.load().await;
        // The environment's endpoints are read here, not only through the
        // SDK's configuration, which drops one it cannot parse without a
        // word (and the requests would go to AWS instead).
        let endpoint = [
            options.endpoint.clone(),
            std::env::var("AWS_ENDPOINT_URL_S3").ok(),
            std::env::var("AWS_ENDPOINT_URL").ok(),
            config.endpoint_url().map(str::to_owned),
        ]
        .into_iter()
        .flatten()
        .find(|e| !e.is_empty());
        let endpoint = match endpoint {
            Some(e) => Some(endpoint_url(&e)?),
            None => None,
        };
        if endpoint
            .as_ref()
            .is_some_and(|e| !e.username().is_empty() || e.password().is_some())
        {
            return Err(format!(
                "the S3 endpoint '{}' holds a user name or password: give credentials the AWS \
                 way (environment, profile, role), not in the endpoint",
                shown(endpoint.as_ref().map_or("", Url::as_str))
            ));
        }
        Ok(Setup {
            endpoint,
            region: config
                .region()
                .map_or_else(|| DEFAULT_REGION.to_owned(), |r| r.to_string()),
            credentials: if options.anonymous {
                None
            } else {
                config.credentials_provider()
            },
            cached: Mutex::new(None),
            data_set: false,
        })
    }

    /// This setup, for a data set on S3 rather than inputs (its messages
    /// say what a data set needs).
    pub fn for_data_set(self) -> Setup {
        Setup {
            data_set: true,
            ..self
        }
    }

    /// The HTTP URL of `s3://bucket/key`: virtual-hosted on AWS,
    /// path-style on a custom endpoint (and for bucket names with dots,
    /// which TLS certificates of virtual hosts do not cover).
    pub fn object_url(&self, s3: &Url) -> Result<Url, String> {
        let bucket = s3.host_str().unwrap_or_default();
        if bucket.is_empty() {
            return Err("an s3:// URL names its bucket: s3://BUCKET/KEY".to_owned());
        }
        let key: Vec<String> = s3
            .path()
            .trim_start_matches('/')
            .split('/')
            .map(|segment| {
                let bytes: Vec<u8> = percent_decode_str(segment).collect();
                percent_encode(&bytes, S3_KEY).to_string()
            })
            .collect();
        let key = key.join("/");
        let text = match &self.endpoint {
            Some(endpoint) => format!("{}/{bucket}/{key}", endpoint.as_str().trim_end_matches('/')),
            None if bucket.contains('.') => {
                format!("https://s3.{}.amazonaws.com/{bucket}/{key}", self.region)
            }
            None => format!("https://{bucket}.s3.{}.amazonaws.com/{key}", self.region),
        };
        Url::parse(&text).map_err(|e| format!("no URL for the object: {e}"))
    }

    /// The headers that sign a request `method` of `url` with `headers`
    /// (signed too) and a body whose SHA-256 is `payload_sha256` (hex;
    /// `None`: a request without a body, sent `UNSIGNED-PAYLOAD`). None
    /// when anonymous.
    pub async fn sign(
        &self,
        method: &str,
        url: &Url,
        headers: &[(&str, &str)],
        payload_sha256: Option<&str>,
    ) -> Result<Vec<(String, String)>, String> {
        let Some(provider) = &self.credentials else {
            return Ok(Vec::new());
        };
        let credentials = self.credentials(provider).await?;
        let identity = credentials.into();
        let mut settings = aws_sigv4::http_request::SigningSettings::default();
        settings.payload_checksum_kind = aws_sigv4::http_request::PayloadChecksumKind::XAmzSha256;
        // S3 signs the path as sent: encoded once, not normalised.
        settings.percent_encoding_mode = aws_sigv4::http_request::PercentEncodingMode::Single;
        settings.uri_path_normalization_mode =
            aws_sigv4::http_request::UriPathNormalizationMode::Disabled;
        let params = aws_sigv4::sign::v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("s3")
            .time(SystemTime::now())
            .settings(settings)
            .build()
            .map_err(|e| format!("cannot sign the request: {e}"))?
            .into();
        let body = match payload_sha256 {
            Some(hex) => aws_sigv4::http_request::SignableBody::Precomputed(hex.to_owned()),
            None => aws_sigv4::http_request::SignableBody::UnsignedPayload,
        };
        let request = aws_sigv4::http_request::SignableRequest::new(
            method,
            url.as_str(),
            headers.iter().copied(),
            body,
        )
        .map_err(|e| format!("cannot sign the request: {e}"))?;
        let (instructions, _) = aws_sigv4::http_request::sign(request, &params)
            .map_err(|e| format!("cannot sign the request: {e}"))?
            .into_parts();
        Ok(instructions
            .headers()
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect())
    }

    /// The URL of a listing of the bucket `bucket` (the query is added by
    /// the caller): the bucket's own URL, as [`Setup::object_url`] makes
    /// an object's.
    pub fn bucket_url(&self, bucket: &str) -> Result<Url, String> {
        let text = match &self.endpoint {
            Some(endpoint) => format!("{}/{bucket}", endpoint.as_str().trim_end_matches('/')),
            None if bucket.contains('.') => {
                format!("https://s3.{}.amazonaws.com/{bucket}", self.region)
            }
            None => format!("https://{bucket}.s3.{}.amazonaws.com/", self.region),
        };
        Url::parse(&text).map_err(|e| format!("no URL for the bucket: {e}"))
    }

    /// The endpoint requests go to, to name it in a message: a custom
    /// one's URL (without any user name or password), else the region's.
    pub fn endpoint_shown(&self) -> String {
        match &self.endpoint {
            Some(e) => shown(e.as_str()),
            None => format!("S3 in {}", self.region),
        }
    }

    /// The parameters of a DuckDB S3 secret (httpfs' `CREATE SECRET
    /// (TYPE s3, ...)`) that reaches `bucket` as these requests do: the
    /// region, the credentials resolved now (DuckDB does not renew them),
    /// and a custom endpoint's host, URL style and TLS. Handed only to the
    /// DuckDB that reads a data set there (`robostats report`,
    /// `robostats_cc.connect`), never printed: its `Debug` names the keys
    /// only.
    pub async fn duckdb_secret(&self, bucket: &str) -> Result<DuckdbSecret, String> {
        let mut params = vec![("REGION", self.region.clone())];
        if let Some(provider) = &self.credentials {
            let credentials = self.credentials(provider).await?;
            params.push(("KEY_ID", credentials.access_key_id().to_owned()));
            params.push(("SECRET", credentials.secret_access_key().to_owned()));
            if let Some(token) = credentials.session_token() {
                params.push(("SESSION_TOKEN", token.to_owned()));
            }
        }
        match &self.endpoint {
            Some(endpoint) => {
                let host = endpoint.host_str().unwrap_or_default();
                let mut at = match endpoint.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host.to_owned(),
                };
                at.push_str(endpoint.path().trim_end_matches('/'));
                params.push(("ENDPOINT", at));
                params.push(("URL_STYLE", "path".to_owned()));
                let tls = endpoint.scheme() == "https";
                params.push(("USE_SSL", tls.to_string()));
            }
            None if bucket.contains('.') => params.push(("URL_STYLE", "path".to_owned())),
            None => {}
        }
        Ok(DuckdbSecret(params))
    }

    /// Credentials valid for at least five more minutes.
    async fn credentials(
        &self,
        provider: &SharedCredentialsProvider,
    ) -> Result<Credentials, String> {
        let fresh = |c: &Credentials| {
            c.expiry().is_none_or(|at| {
                at.duration_since(SystemTime::now())
                    .is_ok_and(|left| left > Duration::from_secs(300))
            })
        };
        if let Some(c) = self.cached.lock().expect("credentials lock").as_ref()
            && fresh(c)
        {
            return Ok(c.clone());
        }
        // The chain's own error is not repeated: a `credential_process`
        // failure carries the process's output, which may hold a secret.
        let data_set = self.data_set;
        let credentials = provider.provide_credentials().await.map_err(|_| {
            let what = if data_set {
                "a data set on S3 is written and read with the credentials of an identity that \
                 may list the bucket and get, put and delete under the prefix \
                 (docs/object-storage.md): give them the AWS way (AWS_ACCESS_KEY_ID and \
                 AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a role), or write a local --out"
            } else {
                "give credentials the AWS way, --s3-anonymous for a public bucket that allows \
                 unsigned requests, or read over HTTPS (Common Crawl: --prefix \
                 https://data.commoncrawl.org/)"
            };
            format!(
                "no AWS credentials found (environment, profile, SSO, web identity, container \
                 or instance role): {what}"
            )
        })?;
        *self.cached.lock().expect("credentials lock") = Some(credentials.clone());
        Ok(credentials)
    }
}

/// The parameters of a DuckDB S3 secret, by name (`KEY_ID`, `SECRET`,
/// `REGION`, ...): see [`Setup::duckdb_secret`].
#[derive(Clone, PartialEq, Eq)]
pub struct DuckdbSecret(pub Vec<(&'static str, String)>);

impl DuckdbSecret {
    /// The parameters as (name, value) pairs of strings, for a reader
    /// outside this crate.
    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.0.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }
}

impl std::fmt::Debug for DuckdbSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

/// What S3 percent-encodes in a key's path segment, as it signs it: every
/// byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`).
const S3_KEY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

#[cfg(test)]
mod tests {
    use super::*;

    fn s3(endpoint: Option<&str>) -> Setup {
        Setup {
            endpoint: endpoint.map(|e| Url::parse(e).unwrap()),
            region: "us-east-1".to_owned(),
            credentials: None,
            cached: Mutex::new(None),
            data_set: false,
        }
    }

    #[test]
    fn an_endpoint_is_an_http_url_with_a_host_or_refused() {
        for good in [
            "http://127.0.0.1:9000",
            "https://s3.example.com/",
            "HTTP://minio:9000",
        ] {
            assert!(endpoint_url(good).is_ok(), "{good}");
        }
        // Without a scheme the SDK drops it, and requests would go to AWS.
        for bad in [
            "localhost:9000",
            "s3.example.com",
            "minio:9000/x",
            "ftp://h",
            "file:///x",
            "http://",
        ] {
            let message = endpoint_url(bad).unwrap_err();
            assert!(message.contains("S3 endpoint"), "{bad}: {message}");
        }
    }

    #[test]
    fn objects_are_virtual_hosted_on_aws_and_path_style_elsewhere() {
        let url = Url::parse("s3://commoncrawl/crawl-data/CC-MAIN-2025-05/a b+c.warc.gz").unwrap();
        assert_eq!(
            s3(None).object_url(&url).unwrap().as_str(),
            "https://commoncrawl.s3.us-east-1.amazonaws.com/crawl-data/CC-MAIN-2025-05/a%20b%2Bc.warc.gz"
        );
        assert_eq!(
            s3(Some("http://127.0.0.1:9000/"))
                .object_url(&url)
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9000/commoncrawl/crawl-data/CC-MAIN-2025-05/a%20b%2Bc.warc.gz"
        );
        let dotted = Url::parse("s3://my.bucket/k").unwrap();
        assert_eq!(
            s3(None).object_url(&dotted).unwrap().as_str(),
            "https://s3.us-east-1.amazonaws.com/my.bucket/k"
        );
        assert!(
            s3(None)
                .object_url(&Url::parse("s3:///k").unwrap())
                .is_err()
        );
    }

    #[test]
    fn keys_are_encoded_once_whatever_their_spelling() {
        let url = |key: &str| {
            let s3_url = Url::parse(&format!("s3://b/{key}")).unwrap();
            s3(Some("http://127.0.0.1:9000"))
                .object_url(&s3_url)
                .unwrap()
                .to_string()
        };
        assert_eq!(url("é~x"), "http://127.0.0.1:9000/b/%C3%A9~x");
        assert_eq!(url("a%20b%2"), "http://127.0.0.1:9000/b/a%20b%252");
    }

    #[test]
    fn duckdb_reaches_the_bucket_as_the_requests_do() {
        let secret = |endpoint: Option<&str>, bucket: &str| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let setup = s3(endpoint);
            runtime.block_on(setup.duckdb_secret(bucket)).unwrap().0
        };
        let params = |pairs: &[(&'static str, &str)]| {
            pairs
                .iter()
                .map(|&(k, v)| (k, v.to_owned()))
                .collect::<Vec<_>>()
        };
        assert_eq!(secret(None, "b"), params(&[("REGION", "us-east-1")]));
        assert_eq!(
            secret(None, "my.bucket"),
            params(&[("REGION", "us-east-1"), ("URL_STYLE", "path")])
        );
        assert_eq!(
            secret(Some("http://127.0.0.1:9000/"), "b"),
            params(&[
                ("REGION", "us-east-1"),
                ("ENDPOINT", "127.0.0.1:9000"),
                ("URL_STYLE", "path"),
                ("USE_SSL", "false")
            ])
        );
        assert_eq!(
            secret(Some("https://minio.example/s3"), "b")[1..],
            params(&[
                ("ENDPOINT", "minio.example/s3"),
                ("URL_STYLE", "path"),
                ("USE_SSL", "true")
            ])
        );
        let shown = format!("{:?}", DuckdbSecret(vec![("SECRET", "s3cr3t".to_owned())]));
        assert_eq!(shown, "[\"SECRET\"]");
    }
}
