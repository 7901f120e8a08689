//! The URL schemes robostats reads inputs from: the one list, and the
//! syntax that tells a URL from a path. Each scheme is read by a store,
//! a module of `remote/store/`, and the one `match` from a scheme to its
//! store is there too (`remote` leans on this list, so this list cannot
//! lean on it): a new store is a variant here, in [`Scheme::ALL`] with
//! its [`Scheme::name`], and its module and arm there (CONTRIBUTING.md,
//! "A new input source").

use url::Url;

/// A scheme of input URLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `http://`.
    Http,
    /// `https://`.
    Https,
    /// `s3://BUCKET/KEY` (Amazon S3 and stores that speak its API).
    S3,
}

impl Scheme {
    /// Every scheme, in the order messages list them.
    pub const ALL: &'static [Scheme] = &[Scheme::Http, Scheme::Https, Scheme::S3];

    /// The scheme's name, as in a URL before `://`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
            Scheme::S3 => "s3",
        }
    }

    /// The scheme `text` starts with (`name://`, in any case, with
    /// something after it), if it is one of these.
    pub fn of(text: &str) -> Option<Scheme> {
        // Called for every line of a paths file (up to 2,000,000): no
        // allocation, bytes compared in place.
        let text = text.as_bytes();
        Scheme::ALL.iter().copied().find(|scheme| {
            let name = scheme.name().as_bytes();
            text.len() > name.len() + 3
                && text[..name.len()].eq_ignore_ascii_case(name)
                && &text[name.len()..name.len() + 3] == b"://"
        })
    }

    /// The scheme of a parsed URL (which the url crate lower-cases).
    pub fn of_url(url: &Url) -> Option<Scheme> {
        Scheme::ALL
            .iter()
            .copied()
            .find(|scheme| scheme.name() == url.scheme())
    }

    /// The schemes in words, for messages: `http://, https:// and s3://`.
    pub fn listed() -> String {
        let names: Vec<String> = Scheme::ALL
            .iter()
            .map(|s| format!("{}://", s.name()))
            .collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// Whether `text` names a remote input (a URL of a scheme robostats
/// reads), rather than a local path.
pub fn is_url(text: &str) -> bool {
    Scheme::of(text).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths() {
        assert!(is_url("https://data.commoncrawl.org/x"));
        assert!(is_url("S3://commoncrawl/x"));
        assert!(is_url("http://127.0.0.1:8000/"));
        assert!(!is_url("s3://"));
        assert!(!is_url("data/https://x"));
        assert!(!is_url("samples/a.warc.gz"));
        assert!(!is_url("résumés.warc.gz"));
        assert!(!is_url("é"));
        assert_eq!(Scheme::listed(), "http://, https:// and s3://");
        let url = Url::parse("HTTPS://example.com/").unwrap();
        assert_eq!(Scheme::of_url(&url), Some(Scheme::Https));
        assert_eq!(Scheme::of_url(&Url::parse("ftp://x/").unwrap()), None);
    }
}
