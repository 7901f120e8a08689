//! A target URL -> the facts Common Crawl's columnar index keeps about it.

use url::{Host, Url};

/// URL facts, named after Common Crawl's index columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlFacts {
    /// `url_protocol`: the scheme, lower case (`http`, `https`).
    pub url_protocol: String,
    /// `url_host_name`: the host, lower case, internationalized names in
    /// their ASCII (punycode) form; IPv6 addresses in brackets.
    pub url_host_name: Option<String>,
    /// `url_host_registered_domain`: the host's registrable domain by the
    /// public suffix list (`None` for IP addresses and public suffixes).
    pub url_host_registered_domain: Option<String>,
    /// `url_port`: the explicit port, or the scheme's default.
    pub url_port: Option<u16>,
    /// `url_path`: the path, percent-encoded as in the URL.
    pub url_path: String,
    /// `url_query`: the query without `?`, if any.
    pub url_query: Option<String>,
}

impl UrlFacts {
    /// Parses a URL (WHATWG rules, as browsers do).
    pub fn parse(url: &str) -> Result<(Url, UrlFacts), url::ParseError> {
        let parsed = Url::parse(url.trim())?;
        let facts = UrlFacts::of(&parsed);
        Ok((parsed, facts))
    }

    /// The facts of a parsed URL.
    pub fn of(url: &Url) -> UrlFacts {
        UrlFacts {
            url_protocol: url.scheme().to_owned(),
            url_host_name: url.host_str().map(str::to_owned),
            url_host_registered_domain: host_registered_domain(url),
            url_port: url.port_or_known_default(),
            url_path: url.path().to_owned(),
            url_query: url.query().map(str::to_owned),
        }
    }
}

/// The registrable domain of a URL's host: `None` for an IP address
/// (whose last labels are no domain: `10.0.3.4` is not under `3.4`), a
/// public suffix or no host.
pub fn host_registered_domain(url: &Url) -> Option<String> {
    match url.host() {
        Some(Host::Domain(d)) => registered_domain(d),
        _ => None,
    }
}

/// The registrable domain of a lower-case ASCII host name (not an IP
/// address: see [`host_registered_domain`]).
pub fn registered_domain(host: &str) -> Option<String> {
    let host = host.strip_suffix('.').unwrap_or(host);
    let domain = robostats_psl::domain(host.as_bytes())?;
    std::str::from_utf8(domain).ok().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idna_case_port_and_registered_domain() {
        let (_, f) = UrlFacts::parse("HTTPS://WWW.Bücher.co.uk:8443/robots.txt?x=1").unwrap();
        assert_eq!(f.url_protocol, "https");
        assert_eq!(f.url_host_name.as_deref(), Some("www.xn--bcher-kva.co.uk"));
        assert_eq!(
            f.url_host_registered_domain.as_deref(),
            Some("xn--bcher-kva.co.uk")
        );
        assert_eq!(f.url_port, Some(8443));
        assert_eq!(f.url_path, "/robots.txt");
        assert_eq!(f.url_query.as_deref(), Some("x=1"));
        let (_, f) = UrlFacts::parse("http://[2001:db8::1]/robots.txt").unwrap();
        assert_eq!(f.url_port, Some(80));
        assert_eq!(f.url_host_registered_domain, None);
    }
}
