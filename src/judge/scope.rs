//! A URL -> the robots.txt that governs it: its scope, the scheme, host
//! and port (RFC 9309, section 2.3: `http://h/`, `https://h/` and
//! `https://h:8443/` are three files), named as the data set names a
//! capture's (`url_protocol`, `url_host_name`, `url_port`: the host in
//! lower case, internationalized names in punycode, the default port
//! folded), by the very parse ingest uses ([`UrlFacts`]).
//!
//! A corpus repeats its hosts: the scope of `scheme://authority` is
//! computed once and looked up for every URL that starts so
//! ([`authority_prefix`]), where the prefix alone decides it; the judge
//! keeps each URL's scope number from its first pass for the second.

use std::collections::HashMap;

use ahash::RandomState;

use crate::http::UrlFacts;

/// A robots.txt scope: what the data set's captures are keyed by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    /// `http` or `https`.
    pub scheme: String,
    /// The host as the data set stores it.
    pub host: String,
    /// The port, the scheme's default when none is written.
    pub port: u16,
    /// The host's registered domain by the public suffix list (none for
    /// an IP address or a public suffix), as the data set stores it.
    pub registered_domain: Option<String>,
}

impl Scope {
    /// The scope of `url` (trimmed, as ingest trims a target URI), or why
    /// it has none: not a URL, not `http(s)`, or no host.
    pub fn of(url: &str) -> Result<Scope, NotAUrl> {
        let (_, facts) = UrlFacts::parse(url).map_err(|_| NotAUrl)?;
        if !matches!(facts.url_protocol.as_str(), "http" | "https") {
            return Err(NotAUrl);
        }
        match (facts.url_host_name, facts.url_port) {
            (Some(host), Some(port)) if !host.is_empty() => Ok(Scope {
                scheme: facts.url_protocol,
                host,
                port,
                registered_domain: facts.url_host_registered_domain,
            }),
            _ => Err(NotAUrl),
        }
    }
}

/// A value that names no robots.txt: it does not parse as a URL, its
/// scheme is not `http` or `https`, or it has no host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAUrl;

/// `scheme://authority` of `url` when that prefix alone decides its scope:
/// an ASCII scheme, `://`, then an authority of characters that mean the
/// same wherever they stand, ended by `/`, `?`, `#` or the end. Anything
/// else (a backslash, whitespace, a missing `//`) is left to the full
/// parse, which the WHATWG rules make depend on more of the URL.
pub fn authority_prefix(url: &str) -> Option<&str> {
    let b = url.as_bytes();
    let colon = b.iter().position(|&c| c == b':')?;
    let scheme_ok = colon > 0
        && b[0].is_ascii_alphabetic()
        && b[..colon]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
    if !scheme_ok || !url[colon..].starts_with("://") {
        return None;
    }
    let start = colon + 3;
    let end = b[start..]
        .iter()
        .position(|&c| matches!(c, b'/' | b'?' | b'#'))
        .map_or(b.len(), |p| start + p);
    let authority = &b[start..end];
    let plain = |c: &u8| c.is_ascii_alphanumeric() || b".-_~:@[]%!$&'()*+,;=".contains(c);
    (!authority.is_empty() && authority.iter().all(plain)).then(|| &url[..end])
}

/// The scopes of a corpus, each numbered once, and the scope of each
/// authority prefix met (`None`: not a URL).
#[derive(Debug, Default)]
pub struct Scopes {
    /// Every scope met, in the order met; its index is its number.
    pub list: Vec<Scope>,
    numbers: HashMap<Scope, u32, RandomState>,
    prefixes: HashMap<Box<str>, Option<u32>, RandomState>,
}

impl Scopes {
    /// The number of `url`'s scope as [`Scopes::add`] gives it, when that
    /// needs no change: its authority prefix was met before (`None`: not
    /// met, or the URL has no such prefix).
    pub fn get(&self, url: &str) -> Option<Option<u32>> {
        self.prefixes.get(authority_prefix(url)?).copied()
    }

    /// The number of `url`'s scope, `None` when it names none; a new scope
    /// is numbered.
    pub fn add(&mut self, url: &str) -> Option<u32> {
        match authority_prefix(url) {
            Some(prefix) => {
                if let Some(&n) = self.prefixes.get(prefix) {
                    return n;
                }
                let n = Scope::of(prefix).ok().map(|s| self.number(s));
                self.prefixes.insert(prefix.into(), n);
                n
            }
            None => Scope::of(url).ok().map(|s| self.number(s)),
        }
    }

    fn number(&mut self, scope: Scope) -> u32 {
        // (u32::MAX stands for no scope in the judge's first pass.)
        let next = u32::try_from(self.list.len())
            .ok()
            .filter(|&n| n != u32::MAX)
            .expect("fewer than 2^32 - 1 scopes");
        *self.numbers.entry(scope.clone()).or_insert_with(|| {
            self.list.push(scope);
            next
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(url: &str) -> Option<(String, String, u16)> {
        Scope::of(url).ok().map(|s| (s.scheme, s.host, s.port))
    }

    #[test]
    fn three_files_of_one_host() {
        let s = |a: &str, b: &str, c| Some((a.to_owned(), b.to_owned(), c));
        assert_eq!(scope("http://Example.COM/a"), s("http", "example.com", 80));
        assert_eq!(
            scope("https://example.com/a"),
            s("https", "example.com", 443)
        );
        assert_eq!(
            scope("https://example.com:443/"),
            s("https", "example.com", 443)
        );
        assert_eq!(
            scope("https://example.com:8443/"),
            s("https", "example.com", 8443)
        );
        assert_eq!(
            scope("HTTPS://bücher.de/x"),
            s("https", "xn--bcher-kva.de", 443)
        );
        for bad in [
            "",
            "not a url",
            "ftp://example.com/",
            "mailto:a@b.c",
            "http://",
            "/path",
        ] {
            assert_eq!(scope(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_prefix_decides_as_the_whole_url_does() {
        let urls = [
            "http://example.com",
            "http://example.com/",
            "http://EXAMPLE.com:80/a?b#c",
            "https://user:pw@example.com:8443/x",
            "http://[::1]:8080/x",
            "http://ex%41mple.com/x",
            "http:///example.com/x",
            "http:\\\\example.com\\x",
            " http://example.com/x",
            "http://exa\tmple.com/x",
            "http://example.com?q",
            "http://example.com#f",
            "hTTp://example.com./",
            "http://xn--bcher-kva.de/",
            "http://a b.com/",
            "http://example.com:99999/",
        ];
        let mut scopes = Scopes::default();
        for url in urls {
            let fast = scopes.add(url).map(|n| scopes.list[n as usize].clone());
            assert_eq!(fast, Scope::of(url).ok(), "{url}");
            assert_eq!(scopes.add(url), scopes.add(url), "{url}");
            if let Some(known) = scopes.get(url) {
                assert_eq!(known, scopes.add(url), "{url}");
            }
        }
    }

    proptest::proptest! {
        /// The authority prefix's scope is the whole URL's, whatever the
        /// URL (made of the characters that change how one parses).
        #[test]
        fn the_prefix_cache_never_changes_a_scope(
            url in "(https?|HTTP|ftp|x)?(:|://|:/|:\\\\)?[a-zA-Z0-9.:@\\[\\]%_~ \t\\\\/?#-]{0,24}",
        ) {
            let mut scopes = Scopes::default();
            let first = scopes.add(&url).map(|n| scopes.list[n as usize].clone());
            proptest::prop_assert_eq!(first, Scope::of(&url).ok());
            let again = scopes.add(&url).map(|n| scopes.list[n as usize].clone());
            proptest::prop_assert_eq!(again, Scope::of(&url).ok());
        }
    }
}
