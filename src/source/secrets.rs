//! Secrets in URLs: a user name or password, or a query parameter that
//! may carry a credential.
//!
//! An input's URL becomes its name (its `warc_filename` in every row),
//! its identity in the manifest, and part of messages, so a secret in it
//! would be written everywhere. Services name their credentials in many
//! ways (`access_token`, `private_token`, `jwt`, `Authorization`,
//! `q-signature`, `api-key`...), so no list of secret names is complete:
//! every query parameter with a value is taken for a secret, but those
//! known to hold none ([`SAFE_PARAMETERS`], and the names a user gives as
//! safe). A URL holding one is refused unless the user says to read it
//! ([`Secrets::allow`]); then the secret is sent to the URL's server, and
//! [`REDACTED`] stands for its value in everything else (a user name and
//! password are left out): the name, the identity, every message. The
//! [`RemoteUrl`] of such an input keeps both forms, and shows only the
//! redacted one.
//!
//! The identity of an input read from a URL with secrets is its URL in
//! normal form with each secret replaced by [`REDACTED`]: it holds no
//! secret, and two URLs that differ only in a secret's value (a token
//! renewed, a URL signed again) are one input, so that a re-run skips what
//! an earlier one did with the old secret. A parameter that names the
//! object instead (`?file=a.warc.gz`) must be given as safe, or two
//! objects would be one input: one run refuses such URLs (they differ
//! only in a secret's value), and says so.

use std::fmt;

use url::Url;

use super::scheme;

/// What stands for a secret's value wherever it would be shown or written.
pub const REDACTED: &str = "REDACTED";

/// The query parameters that carry a secret, in lower case (compared in
/// any case): OAuth 2.0 bearer tokens (RFC 6750, section 2.3) and other
/// tokens, API keys, passwords, Azure's shared access signatures (`sig`),
/// Google Cloud Storage's V2 signed URLs (`GoogleAccessId`, `Signature`)
/// and S3's (`AWSAccessKeyId`, `Signature`).
pub const SECRET_PARAMETERS: [&str; 13] = [
    "access_token",
    "refresh_token",
    "id_token",
    "token",
    "api_key",
    "apikey",
    "key",
    "client_secret",
    "password",
    "sig",
    "signature",
    "awsaccesskeyid",
    "googleaccessid",
];

/// Every parameter whose name starts so carries a secret too: S3's
/// presigned URLs (`X-Amz-Signature`, `X-Amz-Credential`,
/// `X-Amz-Security-Token`...) and Google Cloud Storage's V4 signed URLs
/// (`X-Goog-Signature`, `X-Goog-Credential`...).
pub const SECRET_PREFIXES: [&str; 2] = ["x-amz-", "x-goog-"];

/// The query parameters known to carry no secret, in lower case (compared
/// in any case): an object's version or generation (S3's `versionId`,
/// Google Cloud Storage's `generation` and `alt`), a part or a page of a
/// listing, and a download switch (`download`, `dl`, `raw`). Every other
/// parameter with a value is taken for a secret unless a user names it
/// as safe.
pub const SAFE_PARAMETERS: [&str; 12] = [
    "alt",
    "dl",
    "download",
    "format",
    "generation",
    "limit",
    "offset",
    "page",
    "part",
    "partnumber",
    "raw",
    "versionid",
];

/// How URLs holding secrets are treated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Secrets {
    /// Read them (the secret sent to the URL's server only, and redacted
    /// everywhere else); `false`: refuse them.
    pub allow: bool,
    /// More query parameters that carry a secret, even where [`safe`]
    /// names them: names compared in any case; a name ending in `*` stands
    /// for every name starting so.
    ///
    /// [`safe`]: Secrets::safe
    pub parameters: Vec<String>,
    /// Query parameters that carry no secret, besides
    /// [`SAFE_PARAMETERS`] (never one of [`SECRET_PARAMETERS`] or
    /// [`SECRET_PREFIXES`]: see [`Secrets::check`]); the same syntax.
    pub safe: Vec<String>,
}

/// Whether the parameter `name` (lower case) is one of `names` (any case;
/// `NAME*` for every name starting so).
fn listed(names: &[String], name: &str) -> bool {
    names.iter().any(|given| {
        let given = given.to_lowercase();
        match given.strip_suffix('*') {
            Some(start) => name.starts_with(start),
            None => name == given,
        }
    })
}

/// Whether `name` (lower case) is one of the parameters robostats knows to
/// carry a secret.
fn known_secret(name: &str) -> bool {
    SECRET_PARAMETERS.contains(&name) || SECRET_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// A URL with the secrets it holds found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Found {
    /// It has a user name or password.
    pub(super) userinfo: bool,
    /// The names of the parameters holding a secret, as written.
    pub(super) parameters: Vec<String>,
}

impl Found {
    fn any(&self) -> bool {
        self.userinfo || !self.parameters.is_empty()
    }

    /// What holds a secret, in words.
    pub(super) fn words(&self) -> String {
        let mut parts = Vec::new();
        if self.userinfo {
            parts.push("a user name or password".to_owned());
        }
        if !self.parameters.is_empty() {
            let names: Vec<String> = self.parameters.iter().map(|n| format!("'{n}'")).collect();
            let noun = if names.len() == 1 {
                "the parameter"
            } else {
                "the parameters"
            };
            parts.push(format!("{noun} {}", names.join(", ")));
        }
        parts.join(" and ")
    }
}

impl Secrets {
    /// Refuses a parameter given as safe that robostats knows to carry a
    /// secret (its name in words), or an empty name.
    pub fn check(&self) -> Result<(), String> {
        for given in self.parameters.iter().chain(&self.safe) {
            if given.trim_end_matches('*').is_empty() {
                return Err(format!(
                    "'{given}' is not a parameter's name (NAME, or NAME* for every name starting so)"
                ));
            }
        }
        match self.safe.iter().find(|given| {
            let name = given.to_lowercase();
            let start = name.trim_end_matches('*');
            known_secret(start)
                || (name.ends_with('*')
                    && (SECRET_PARAMETERS.iter().any(|s| s.starts_with(start))
                        || SECRET_PREFIXES.iter().any(|p| p.starts_with(start))))
        }) {
            Some(given) => Err(format!(
                "'{given}' names a parameter that carries a secret: it cannot be given as safe"
            )),
            None => Ok(()),
        }
    }

    /// Whether the parameter `name` (decoded) carries a secret: one
    /// robostats knows, one the user named, or any other that is not known
    /// or named as safe.
    pub fn is_secret(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        known_secret(&name)
            || listed(&self.parameters, &name)
            || !(SAFE_PARAMETERS.contains(&name.as_str()) || listed(&self.safe, &name))
    }

    /// `url` with each secret replaced by [`REDACTED`], and what held
    /// one; `None` when it holds none.
    pub(super) fn redact(&self, url: &Url) -> Option<(Url, Found)> {
        let mut found = Found::default();
        let mut shown = url.clone();
        if !url.username().is_empty() || url.password().is_some() {
            found.userinfo = true;
            let _ = shown.set_password(None);
            let _ = shown.set_username("");
        }
        if let Some(query) = url.query().and_then(|q| self.redact_pairs(q, &mut found)) {
            shown.set_query(Some(&query));
        }
        if let Some(fragment) = url
            .fragment()
            .and_then(|f| self.redact_pairs(f, &mut found))
        {
            shown.set_fragment(Some(&fragment));
        }
        found.any().then_some((shown, found))
    }

    /// `pairs` (a query, or a fragment: `name=value` pieces between `&`
    /// or `;`, which some servers also take as a separator) with each
    /// secret's value replaced; `None` when none is there. A parameter
    /// without a value holds no secret.
    pub(super) fn redact_pairs(&self, pairs: &str, found: &mut Found) -> Option<String> {
        let mut out = String::with_capacity(pairs.len());
        let mut changed = false;
        for piece in pairs.split_inclusive(['&', ';']) {
            let body = piece.trim_end_matches(['&', ';']);
            let separator = &piece[body.len()..];
            let secret = body.split_once('=').and_then(|(name, value)| {
                let decoded = url::form_urlencoded::parse(name.as_bytes()).next()?.0;
                (!value.is_empty() && self.is_secret(&decoded)).then_some(name)
            });
            match secret {
                Some(name) => {
                    out.push_str(name);
                    out.push('=');
                    out.push_str(REDACTED);
                    out.push_str(separator);
                    if !found.parameters.iter().any(|n| n == name) {
                        found.parameters.push(name.to_owned());
                    }
                    changed = true;
                }
                None => out.push_str(piece),
            }
        }
        changed.then_some(out)
    }

    /// `text` as it may be shown and written: a URL holding secrets in
    /// normal form with each one replaced by [`REDACTED`] (and no user
    /// name or password); any other text as it is.
    pub fn redacted(&self, text: &str) -> String {
        if scheme::is_url(text)
            && let Ok(url) = Url::parse(text)
            && let Some((shown, _)) = self.redact(&url)
        {
            return shown.into();
        }
        text.to_owned()
    }
}

/// A URL to read, and the form it is shown in: itself, or where it holds
/// secrets, itself with each one replaced by [`REDACTED`] (and without
/// its user name and password). It displays
/// (and debugs) as the form shown; only [`RemoteUrl::url`] holds the
/// secrets, for the requests.
#[derive(Clone, PartialEq, Eq)]
pub struct RemoteUrl {
    url: Url,
    /// The redacted form, where it holds secrets.
    shown: Option<Url>,
}

impl RemoteUrl {
    /// `url`, its secrets found as `secrets` says.
    pub fn new(url: Url, secrets: &Secrets) -> RemoteUrl {
        let shown = secrets.redact(&url).map(|(shown, _)| shown);
        RemoteUrl { url, shown }
    }

    /// The URL itself, secrets included: for the requests alone.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The form shown and written: without its secrets.
    pub fn shown(&self) -> &str {
        self.shown.as_ref().unwrap_or(&self.url).as_str()
    }

    /// Whether it holds secrets (and is shown redacted).
    pub fn holds_secrets(&self) -> bool {
        self.shown.is_some()
    }
}

impl fmt::Display for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.shown())
    }
}

impl fmt::Debug for RemoteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RemoteUrl").field(&self.shown()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowing(parameters: &[&str], safe: &[&str]) -> Secrets {
        Secrets {
            allow: true,
            parameters: parameters.iter().map(|p| (*p).to_owned()).collect(),
            safe: safe.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    #[test]
    fn every_parameter_is_a_secret_but_those_known_or_named_safe() {
        let s = allowing(&["X-My-Token", "Vendor-*", "page"], &["sv", "Build-*"]);
        for name in [
            "access_token",
            "ACCESS_TOKEN",
            "Token",
            "api_key",
            "key",
            "sig",
            "Signature",
            "X-Amz-Signature",
            "X-Goog-Signature",
            "GoogleAccessId",
            "x-my-token",
            "vendor-sig",
            // Named by no list: taken for secrets (the review's names).
            "private_token",
            "auth_token",
            "Authorization",
            "q-signature",
            "api-key",
            "jwt",
            "se",
            "keyword",
            // Safe by default, but named a secret.
            "page",
        ] {
            assert!(s.is_secret(name), "{name}");
        }
        for name in [
            "versionId",
            "PartNumber",
            "part",
            "alt",
            "sv",
            "build-id",
            "BUILD-x",
        ] {
            assert!(!s.is_secret(name), "{name}");
        }
        assert!(!Secrets::default().is_secret("page"));
        assert!(Secrets::default().is_secret("x-my"));
    }

    #[test]
    fn a_known_secret_cannot_be_given_as_safe() {
        for bad in ["token", "X-Amz-Signature", "x-amz-*", "x*", "acc*", "SIG"] {
            let message = allowing(&[], &[bad]).check().unwrap_err();
            assert!(message.contains("carries a secret"), "{bad}: {message}");
        }
        for empty in ["", "*"] {
            assert!(allowing(&[empty], &[]).check().is_err());
            assert!(allowing(&[], &[empty]).check().is_err());
        }
        assert!(
            allowing(&["x-vendor-*"], &["file", "build-*", "v"])
                .check()
                .is_ok()
        );
    }

    #[test]
    fn only_secrets_values_are_replaced() {
        let s = allowing(&["session"], &["shard"]);
        let url = |text: &str| Url::parse(text).unwrap();
        let (shown, found) = s
            .redact(&url(
                "https://h/a.warc.gz?page=2&access_token=s3cr3t;%74oken=t0k&key=&Session=x&shard=3&jwt=j#sig=f",
            ))
            .unwrap();
        assert_eq!(
            shown.as_str(),
            "https://h/a.warc.gz?page=2&access_token=REDACTED;%74oken=REDACTED&key=&Session=REDACTED&shard=3&jwt=REDACTED#sig=REDACTED"
        );
        assert_eq!(
            found.words(),
            "the parameters 'access_token', '%74oken', 'Session', 'jwt', 'sig'"
        );
        // A user name and password are left out, not replaced.
        let (shown, found) = s.redact(&url("https://u:p4ss@h/a?sig=1&sig=2")).unwrap();
        assert_eq!(shown.as_str(), "https://h/a?sig=REDACTED&sig=REDACTED");
        assert_eq!(
            found.words(),
            "a user name or password and the parameter 'sig'"
        );
        assert!(s.redact(&url("https://h/a.warc.gz?page=2&token")).is_none());
        assert_eq!(
            s.redacted("HTTPS://H/a?X-Amz-Signature=abc"),
            "https://h/a?X-Amz-Signature=REDACTED"
        );
        assert_eq!(
            s.redacted("https://h/a?private_token=abc&Authorization=Bearer%20x"),
            "https://h/a?private_token=REDACTED&Authorization=REDACTED"
        );
        assert_eq!(s.redacted("crawl/a.warc.gz"), "crawl/a.warc.gz");
    }
}
