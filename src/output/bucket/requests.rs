//! The requests a data set on S3 is written with: PUT (plain,
//! create-only, or replacing a known version), GET, DELETE (of a known
//! version) and a listing, each signed ([`crate::s3`]), bounded in time
//! and retried where S3 asks for it.
//!
//! A retried conditional PUT may find its own first attempt stored (the
//! answer was lost, not the request): a 412 after a retry reads the object
//! back, and bytes equal to the request's are a success.

use std::time::Duration;

use sha2::{Digest, Sha256};
use url::Url;

use super::listing;
use crate::output::backend::{Backend, Cond, Done, Failure, Listed, Object};
use crate::s3::{S3Options, Setup};

/// Attempts of one request (S3's 500, 503 `SlowDown`, 409
/// `ConditionalRequestConflict`, a lost connection), with waits of 0.5,
/// 1, 2, 4 and 8 s between them.
const ATTEMPTS: u32 = 6;

/// A data set's prefix in a bucket, and the client that reaches it.
pub struct Bucket {
    /// `s3://bucket/prefix/`, as shown.
    url: String,
    bucket: String,
    /// The prefix, without a leading or trailing `/` (may be empty).
    prefix: String,
    setup: Setup,
    http: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    timeout: Duration,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bucket").field("url", &self.url).finish()
    }
}

impl Bucket {
    /// The data set `s3://bucket/prefix/`, reached with `options` (as the
    /// inputs are). Resolves the credentials now.
    pub fn new(
        bucket: &str,
        prefix: &str,
        options: &S3Options,
        timeout: Duration,
    ) -> Result<Bucket, Failure> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("robostats-store")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the network thread: {e}"))?;
        let setup = runtime.block_on(Setup::new(options))?.for_data_set();
        let http = reqwest::Client::builder()
            .user_agent(concat!("robostats/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(timeout)
            .read_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot make the HTTP client: {e}"))?;
        let prefix = prefix.trim_matches('/').to_owned();
        let url = if prefix.is_empty() {
            format!("s3://{bucket}/")
        } else {
            format!("s3://{bucket}/{prefix}/")
        };
        Ok(Bucket {
            url,
            bucket: bucket.to_owned(),
            prefix,
            setup,
            http,
            runtime,
            timeout,
        })
    }

    /// `s3://bucket/prefix/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Where requests go, to name it in a message.
    pub fn endpoint_shown(&self) -> String {
        self.setup.endpoint_shown()
    }

    /// The full key of `key` (relative to the prefix).
    fn full_key(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}/{key}", self.prefix)
        }
    }

    fn object_url(&self, key: &str) -> Result<Url, Failure> {
        let s3 = Url::parse(&format!("s3://{}/{}", self.bucket, self.full_key(key)))
            .map_err(|e| format!("no URL for {}: {e}", self.shown(key)))?;
        self.setup.object_url(&s3)
    }

    /// Every object whose key (relative to the prefix) starts with
    /// `under`, in key order.
    pub fn list(&self, under: &str) -> Result<Vec<Listed>, Failure> {
        let mut found = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self.page(under, token.as_deref())?;
            found.extend(page.items);
            match page.next {
                Some(next) if Some(&next) != token.as_ref() => token = Some(next),
                _ => break,
            }
        }
        Ok(found)
    }

    /// The first objects (up to S3's page, 1,000) whose key starts with
    /// `under`: one request, to learn whether there are any.
    pub fn list_first(&self, under: &str) -> Result<Vec<Listed>, Failure> {
        Ok(self.page(under, None)?.items)
    }

    /// One page of the listing of `under`, from `token` on; its keys
    /// relative to the prefix.
    fn page(&self, under: &str, token: Option<&str>) -> Result<listing::Page, Failure> {
        let mut url = self.setup.bucket_url(&self.bucket)?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("list-type", "2");
            if let Some(t) = token {
                query.append_pair("continuation-token", t);
            }
            query.append_pair("prefix", &self.full_key(under));
        }
        let url = Url::parse(&url.as_str().replace('+', "%20"))
            .map_err(|e| format!("no URL for the listing: {e}"))?;
        let ((status, _, body), _) = self.ask("LIST", under, &url, &[], None)?;
        if !status.is_success() {
            return Err(self.refusal("list", under, status, &body));
        }
        let mut page = listing::parse(&body)
            .map_err(|e| format!("S3's listing of {} does not read: {e}", self.shown(under)))?;
        page.items = page
            .items
            .into_iter()
            .filter_map(|item| {
                Some(Listed {
                    key: self.relative(&item.key)?,
                    ..item
                })
            })
            .collect();
        Ok(page)
    }

    /// The parameters of the DuckDB secret that reads this data set
    /// ([`crate::s3::Setup::duckdb_secret`]).
    pub fn duckdb_secret(&self) -> Result<crate::s3::DuckdbSecret, Failure> {
        self.runtime
            .block_on(self.setup.duckdb_secret(&self.bucket))
    }

    /// `key` relative to the prefix, if it is under it.
    fn relative(&self, key: &str) -> Option<String> {
        if self.prefix.is_empty() {
            return Some(key.to_owned());
        }
        key.strip_prefix(&self.prefix)?
            .strip_prefix('/')
            .map(str::to_owned)
    }

    /// Sends one request, with its signature; the answer's status, headers
    /// and body, or why there is none.
    fn send(
        &self,
        method: &str,
        url: &Url,
        headers: &[(&str, &str)],
        body: Option<(&str, &[u8])>,
    ) -> Result<Answer, Unsent> {
        // The whole exchange is bounded: the timeout, plus a second per
        // 256 KiB sent.
        let bound =
            self.timeout + Duration::from_secs(body.map_or(0, |(_, b)| b.len() as u64 / 262_144));
        self.runtime.block_on(async {
            // No credentials: not worth another try.
            let signature = self
                .setup
                .sign(method, url, headers, body.map(|(sha, _)| sha))
                .await
                .map_err(Unsent::Fatal)?;
            let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
            let mut request = self.http.request(method, url.clone());
            for (name, value) in headers.iter().filter(|(n, _)| *n != "content-length") {
                request = request.header(*name, *value);
            }
            for (name, value) in &signature {
                request = request.header(name, value);
            }
            if let Some((_, bytes)) = body {
                request = request.body(bytes.to_vec());
            }
            let exchange = async {
                let answer = request.send().await.map_err(|e| describe(&e))?;
                let status = answer.status();
                let head = answer.headers().clone();
                let bytes = answer.bytes().await.map_err(|e| describe(&e))?;
                Ok::<_, String>((status, head, bytes.to_vec()))
            };
            tokio::time::timeout(bound, exchange)
                .await
                .map_err(|_| format!("no whole answer within {} s", bound.as_secs()))
                .and_then(|answer| answer)
                .map_err(Unsent::Lost)
        })
    }

    /// Sends a request until it has an answer S3 does not ask to retry, or
    /// [`ATTEMPTS`] times: that answer, and the attempts it took.
    fn ask(
        &self,
        what: &str,
        key: &str,
        url: &Url,
        headers: &[(&str, &str)],
        body: Option<(&str, &[u8])>,
    ) -> Result<(Answer, u32), Failure> {
        let method = if what == "LIST" { "GET" } else { what };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let answer = self.send(method, url, headers, body);
            if let Some(answer) = self.judge(what, key, answer, attempt)? {
                return Ok((answer, attempt));
            }
        }
    }

    /// What to do with an answer: take it, or retry (`None`, after a
    /// wait).
    fn judge(
        &self,
        what: &str,
        key: &str,
        answer: Result<Answer, Unsent>,
        attempt: u32,
    ) -> Result<Option<Answer>, Failure> {
        let retry = match &answer {
            Err(Unsent::Fatal(why)) => {
                return Err(format!("cannot {what} {}: {why}", self.shown(key)));
            }
            Err(Unsent::Lost(_)) => true,
            Ok((status, _, _)) => {
                matches!(status.as_u16(), 409 | 429 | 500 | 502 | 503 | 504)
            }
        };
        if !retry {
            return Ok(Some(answer.expect("checked")));
        }
        if attempt >= ATTEMPTS {
            return Err(match answer {
                Err(Unsent::Lost(why) | Unsent::Fatal(why)) => format!(
                    "{what} {} failed {ATTEMPTS} times ({}): {why}",
                    self.shown(key),
                    self.endpoint_shown()
                ),
                Ok((status, _, body)) => {
                    self.refusal(&format!("{what} ({ATTEMPTS} times)"), key, status, &body)
                }
            });
        }
        std::thread::sleep(Duration::from_millis(500 << (attempt - 1)));
        Ok(None)
    }

    /// A refusal by S3, in words: the key, the status and S3's code.
    fn refusal(&self, what: &str, key: &str, status: reqwest::StatusCode, body: &[u8]) -> Failure {
        let code = listing::error_code(body)
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        format!(
            "cannot {what} {}: {} answered {}{code}",
            self.shown(key),
            self.endpoint_shown(),
            status.as_u16()
        )
    }
}

/// An answer: its status, headers and body.
type Answer = (reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>);

/// Why a request has no answer.
#[derive(Debug)]
enum Unsent {
    /// Lost on the way, or not whole in time: tried again.
    Lost(String),
    /// It could not be made (no credentials): not tried again.
    Fatal(String),
}

/// S3 as a data set's backend: conditional writes and deletions are
/// `If-None-Match: *` and `If-Match: <ETag>`.
impl Backend for Bucket {
    fn put(&self, key: &str, bytes: &[u8], cond: Cond<'_>) -> Result<Done, Failure> {
        let url = self.object_url(key)?;
        let sha = hex(&Sha256::digest(bytes));
        let mut headers: Vec<(&str, &str)> = Vec::new();
        match cond {
            Cond::None => {}
            Cond::Create => headers.push(("if-none-match", "*")),
            Cond::Match(etag) => headers.push(("if-match", etag)),
        }
        let length = bytes.len().to_string();
        headers.push(("content-length", &length));
        let ((status, head, body), attempts) =
            self.ask("PUT", key, &url, &headers, Some((&sha, bytes)))?;
        match status.as_u16() {
            _ if status.is_success() => Ok(Done::Yes(etag_of(&head))),
            412 => {
                // A retry may find its own first attempt stored.
                if attempts > 1
                    && let Some(object) = self.get(key)?
                    && object.bytes == bytes
                {
                    return Ok(Done::Yes(object.etag));
                }
                Ok(Done::Refused)
            }
            // If-Match on an object that is gone: not that version either
            // (S3 answers 404 NoSuchKey, not 412).
            404 if matches!(cond, Cond::Match(_)) => Ok(Done::Refused),
            _ => Err(self.refusal("write", key, status, &body)),
        }
    }

    fn get(&self, key: &str) -> Result<Option<Object>, Failure> {
        let url = self.object_url(key)?;
        let ((status, head, body), _) = self.ask("GET", key, &url, &[], None)?;
        if status.as_u16() == 404 {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(self.refusal("read", key, status, &body));
        }
        let time = |name| {
            head.get(name)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| httpdate::parse_http_date(v).ok())
        };
        let age = match (time("date"), time("last-modified")) {
            (Some(now), Some(then)) => now.duration_since(then).map_or(0, |d| d.as_secs()),
            _ => 0,
        };
        Ok(Some(Object {
            bytes: body,
            etag: etag_of(&head),
            age,
        }))
    }

    fn delete(&self, key: &str, cond: Cond<'_>) -> Result<Done, Failure> {
        let url = self.object_url(key)?;
        let mut headers: Vec<(&str, &str)> = Vec::new();
        if let Cond::Match(etag) = cond {
            headers.push(("if-match", etag));
        }
        let ((status, _, body), attempts) = self.ask("DELETE", key, &url, &headers, None)?;
        match status.as_u16() {
            _ if status.is_success() => Ok(Done::Yes(String::new())),
            404 => Ok(Done::Yes(String::new())),
            // A retry finds its own first attempt done.
            412 if attempts > 1 && self.get(key)?.is_none() => Ok(Done::Yes(String::new())),
            412 => Ok(Done::Refused),
            _ => Err(self.refusal("delete", key, status, &body)),
        }
    }

    fn listing(&self) -> Result<std::collections::BTreeMap<String, Listed>, Failure> {
        Ok(self
            .list("")?
            .into_iter()
            .map(|l| (l.key.clone(), l))
            .collect())
    }

    fn shown(&self, key: &str) -> String {
        format!("{}{key}", self.url)
    }
}

/// An answer's ETag, as sent back in `If-Match` (quotes kept).
fn etag_of(head: &reqwest::header::HeaderMap) -> String {
    head.get("etag")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A transport error in words, without the URL (it could be printed with
/// a signed query elsewhere; here it names nothing secret, but the key is
/// said by the caller).
fn describe(e: &reqwest::Error) -> String {
    let mut text = if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "cannot connect".to_owned()
    } else {
        "the connection failed".to_owned()
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
