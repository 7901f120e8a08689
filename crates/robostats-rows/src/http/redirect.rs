//! A 3xx response -> where it points, and what kind of move that is.

use url::Url;

use super::target::host_registered_domain;

crate::table::labels! {
    /// Where a redirect points, relative to the URL that was fetched. Checked in
    /// this order, the first that applies wins.
    #[non_exhaustive]
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum RedirectKind {
        /// No `Location` header (or an empty one).
        MissingLocation = "missing_location",
        /// A `Location` that cannot be resolved against the URL.
        InvalidLocation = "invalid_location",
        /// The target is the fetched URL itself.
        SameUrl = "same_url",
        /// The target's path is not `/robots.txt` (a home page, a login page,
        /// `/robots.txt/`...): whatever comes back is not a robots.txt.
        NotRobotsPath = "not_robots_path",
        /// Same host, `http` to `https` (same port, or the default one).
        HttpsUpgrade = "https_upgrade",
        /// Same host, `https` to `http` (same port, or the default one).
        HttpsDowngrade = "https_downgrade",
        /// The host gains a `www.` prefix (the scheme may change too).
        WwwAdded = "www_added",
        /// The host loses its `www.` prefix (the scheme may change too).
        WwwRemoved = "www_removed",
        /// Another host with the same registered domain (`shop.x.com` to
        /// `www.x.com`).
        SameSite = "same_site",
        /// A host with another registered domain.
        OtherHost = "other_host",
        /// Same host, another port (or another scheme change).
        Other = "other",
    }
}

impl RedirectKind {
    /// Classifies a redirect from `from` to the resolved `to`.
    pub fn of(from: &Url, to: &Url) -> RedirectKind {
        if from == to {
            return RedirectKind::SameUrl;
        }
        if to.path() != "/robots.txt" {
            return RedirectKind::NotRobotsPath;
        }
        let (fh, th) = (from.host_str().unwrap_or(""), to.host_str().unwrap_or(""));
        if fh == th {
            // A scheme change counts whether the port stays or becomes the
            // new scheme's default (`http://h:8080/` -> `https://h/`).
            let port_ok =
                to.port().is_none() || to.port_or_known_default() == from.port_or_known_default();
            return match (from.scheme(), to.scheme()) {
                ("http", "https") if port_ok => RedirectKind::HttpsUpgrade,
                ("https", "http") if port_ok => RedirectKind::HttpsDowngrade,
                _ => RedirectKind::Other,
            };
        }
        if th.strip_prefix("www.") == Some(fh) {
            return RedirectKind::WwwAdded;
        }
        if fh.strip_prefix("www.") == Some(th) {
            return RedirectKind::WwwRemoved;
        }
        match (host_registered_domain(from), host_registered_domain(to)) {
            (Some(a), Some(b)) if a == b => RedirectKind::SameSite,
            _ => RedirectKind::OtherHost,
        }
    }
}

/// A 3xx response's target and its kind: `location` (the `Location`
/// header, if any and not empty) resolved against the fetched URL (`None`
/// when that URL does not parse: then only an absolute location resolves).
pub fn resolve(from: Option<&Url>, location: Option<&str>) -> (Option<String>, RedirectKind) {
    let Some(location) = location else {
        return (None, RedirectKind::MissingLocation);
    };
    match from {
        Some(base) => match base.join(location) {
            Ok(to) => {
                let kind = RedirectKind::of(base, &to);
                (Some(to.to_string()), kind)
            }
            Err(_) => (None, RedirectKind::InvalidLocation),
        },
        None => match Url::parse(location) {
            Ok(to) => (Some(to.to_string()), RedirectKind::OtherHost),
            Err(_) => (None, RedirectKind::InvalidLocation),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_kinds() {
        let k =
            |a: &str, b: &str| RedirectKind::of(&Url::parse(a).unwrap(), &Url::parse(b).unwrap());
        assert_eq!(
            k("http://a.com/robots.txt", "https://a.com/robots.txt"),
            RedirectKind::HttpsUpgrade
        );
        assert_eq!(
            k("http://a.com/robots.txt", "https://www.a.com/robots.txt"),
            RedirectKind::WwwAdded
        );
        assert_eq!(
            k("https://www.a.com/robots.txt", "https://a.com/robots.txt"),
            RedirectKind::WwwRemoved
        );
        assert_eq!(
            k(
                "https://shop.a.com/robots.txt",
                "https://www.a.com/robots.txt"
            ),
            RedirectKind::SameSite
        );
        assert_eq!(
            k("https://a.com/robots.txt", "https://b.org/robots.txt"),
            RedirectKind::OtherHost
        );
        // IP addresses have no registrable domain: not the same site
        // because their last two numbers agree.
        assert_eq!(
            k("http://10.0.3.4/robots.txt", "http://10.9.3.4/robots.txt"),
            RedirectKind::OtherHost
        );
        assert_eq!(
            k("https://a.com/robots.txt", "https://a.com/"),
            RedirectKind::NotRobotsPath
        );
        assert_eq!(
            k("https://a.com/robots.txt", "https://a.com/robots.txt"),
            RedirectKind::SameUrl
        );
    }
}
