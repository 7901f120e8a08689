//! A URL listed as an input: checked for secrets and shape, joined to a
//! `--prefix`, named and identified (see [`secrets`](super::secrets) for
//! what holds a secret, and how it is kept out of names and identities).

use url::Url;

use super::error::ListError;
use super::input::{Input, Location};
use super::remote;
use super::secrets::{Found, RemoteUrl, Secrets};

/// A URL as given, parsed, with its secrets checked against `secrets`
/// (not its shape: see [`parse_url`]).
fn checked(text: &str, secrets: &Secrets) -> Result<RemoteUrl, ListError> {
    // Text that does not parse is shown without what may be a password
    // (`scheme://user:secret@...`) or a secret (a query).
    let url = Url::parse(text).map_err(|e| ListError::BadUrl {
        text: remote::shown(text),
        why: e.to_string(),
    })?;
    if let Some(why) = remote::userinfo_refused(&url) {
        return Err(ListError::BadUrl {
            text: remote::shown(text),
            why: why.to_owned(),
        });
    }
    if let Some((shown, found)) = secrets.redact(&url)
        && !secrets.allow
    {
        return Err(ListError::Secret {
            url: shown.into(),
            what: found.words(),
        });
    }
    Ok(RemoteUrl::new(url, secrets))
}

/// A URL as given, in its normal form: refused when it holds a secret
/// and `secrets` does not allow it, or is an `s3://` URL of another
/// shape than `s3://BUCKET/KEY`.
pub(super) fn parse_url(text: &str, secrets: &Secrets) -> Result<RemoteUrl, ListError> {
    let url = checked(text, secrets)?;
    match remote::shape_refused(url.url()) {
        Some(why) => Err(ListError::BadUrl {
            text: url.shown().to_owned(),
            why: why.to_owned(),
        }),
        None => Ok(url),
    }
}

/// The input the URL `text` stands for: named as given, or where it holds
/// secrets, as shown (redacted); identified by its form shown.
pub(super) fn url_input(text: &str, secrets: &Secrets) -> Result<Input, ListError> {
    let url = parse_url(text, secrets)?;
    let name = if url.holds_secrets() {
        url.shown().to_owned()
    } else {
        text.to_owned()
    };
    Ok(Input::url(url, name))
}

/// The input a paths file's relative `line` stands for under the URL
/// `prefix`: read at the two joined by one slash, with the prefix's query
/// (a token for the whole list, say) after the line's own; named and
/// identified by the line (its own secrets redacted), whatever the prefix.
pub(super) fn prefixed_input(
    prefix: &str,
    line: &str,
    secrets: &Secrets,
) -> Result<Input, ListError> {
    let base = checked(prefix, secrets)?;
    let mut stem = base.url().clone();
    stem.set_query(None);
    stem.set_fragment(None);
    let joined = format!(
        "{}/{}",
        stem.as_str().trim_end_matches('/'),
        line.trim_start_matches('/')
    );
    let own = checked(&joined, secrets)?;
    let name = line_name(line, own.url(), secrets);
    let mut url = own.url().clone();
    if let Some(query) = base.url().query() {
        let query = match url.query() {
            Some(own) if !own.is_empty() => format!("{own}&{query}"),
            _ => query.to_owned(),
        };
        url.set_query(Some(&query));
    }
    if url.fragment().is_none() {
        url.set_fragment(base.url().fragment());
    }
    if let Some(why) = remote::shape_refused(&url) {
        return Err(ListError::BadUrl {
            text: RemoteUrl::new(url, secrets).shown().to_owned(),
            why: why.to_owned(),
        });
    }
    Ok(Input::prefixed(
        Location::Url(RemoteUrl::new(url, secrets)),
        &name,
    ))
}

/// A relative line's name: the line, or where its own query or fragment
/// (parsed as `url`'s) holds secrets, its path and them redacted.
fn line_name(line: &str, url: &Url, secrets: &Secrets) -> String {
    let mut found = Found::default();
    let query = url
        .query()
        .map(|q| (q, secrets.redact_pairs(q, &mut found)));
    let fragment = url
        .fragment()
        .map(|f| (f, secrets.redact_pairs(f, &mut found)));
    if found.parameters.is_empty() {
        return line.to_owned();
    }
    let mut name = line.split(['?', '#']).next().unwrap_or("").to_owned();
    if let Some((query, redacted)) = query {
        name.push('?');
        name.push_str(redacted.as_deref().unwrap_or(query));
    }
    if let Some((fragment, redacted)) = fragment {
        name.push('#');
        name.push_str(redacted.as_deref().unwrap_or(fragment));
    }
    name
}

/// Refuses `again`, listed after `kept` with the same identity, when both
/// are URLs that differ (only in their secrets, then: the identity is the
/// URL with its secrets redacted). Different secrets for one input are a
/// mistake, and a parameter taken for a secret that names the object
/// (`?key=...`) would make two objects one input: nothing is read twice,
/// or left out, on a guess.
pub(super) fn differ_in_secrets(kept: &Input, again: &Input) -> Result<(), ListError> {
    match (&kept.location, &again.location) {
        (Location::Url(a), Location::Url(b)) if a.url() != b.url() => {
            Err(ListError::SecretsDiffer {
                name: kept.name.clone(),
            })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::list::{Sources, list};
    use super::super::secrets::REDACTED;
    use super::*;

    struct Dir(std::path::PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let dir = std::env::temp_dir()
                .join(format!("robostats-secrets-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Dir(dir)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// URLs with secrets read; `v` named safe.
    fn allowing(parameters: &[&str]) -> Secrets {
        Secrets {
            allow: true,
            parameters: parameters.iter().map(|p| (*p).to_owned()).collect(),
            safe: vec!["v".to_owned()],
        }
    }

    #[test]
    fn urls_with_secrets_are_refused_unless_allowed_and_never_shown() {
        let refuse = Secrets::default();
        for (text, what) in [
            (
                "https://h/a.warc.gz?access_token=s3cr3t",
                "the parameter 'access_token'",
            ),
            (
                "https://b.s3.amazonaws.com/a?X-Amz-Credential=AKIA&X-Amz-Signature=s3cr3t",
                "the parameters 'X-Amz-Credential', 'X-Amz-Signature'",
            ),
            ("https://u:s3cr3t@h/a.warc.gz", "a user name or password"),
            ("https://h/a.warc.gz?sig=s3cr3t", "the parameter 'sig'"),
            // Names no list knows: every parameter is a secret but the safe.
            (
                "https://h/a.warc.gz?page=2&private_token=s3cr3t",
                "the parameter 'private_token'",
            ),
            (
                "https://h/a.warc.gz?Authorization=s3cr3t&jwt=s3cr3t",
                "the parameters 'Authorization', 'jwt'",
            ),
        ] {
            let err = parse_url(text, &refuse).unwrap_err();
            let message = err.to_string();
            assert!(matches!(err, ListError::Secret { .. }), "{message}");
            assert!(message.contains(what), "{message}");
            assert!(message.contains("--allow-url-secrets"), "{message}");
            assert!(!message.contains("s3cr3t"), "{message}");
            let url = parse_url(text, &allowing(&[])).unwrap();
            assert!(url.holds_secrets());
            assert_eq!(url.url().as_str(), Url::parse(text).unwrap().as_str());
            for shown in [url.to_string(), format!("{url:?}"), url.shown().to_owned()] {
                // (A user name and password are left out.)
                assert!(
                    !shown.contains("s3cr3t") && (shown.contains(REDACTED) || !shown.contains('@')),
                    "{shown}"
                );
            }
        }
        // Parameters the user names safe or secret, and s3:// URLs' own rules.
        let safe = Secrets {
            allow: false,
            parameters: vec![],
            safe: vec!["auth".to_owned()],
        };
        let mine = Secrets {
            parameters: vec!["auth".to_owned()],
            ..safe.clone()
        };
        assert!(parse_url("https://h/a?auth=x", &mine).is_err());
        assert!(parse_url("https://h/a?auth=x", &refuse).is_err());
        assert!(parse_url("https://h/a?auth=x&page=2", &safe).is_ok());
        for bad in ["s3://u:s3cr3t@b/k", "s3://b/k?versionId=1", "s3://b/"] {
            let err = parse_url(bad, &allowing(&[])).unwrap_err();
            assert!(matches!(err, ListError::BadUrl { .. }), "{err}");
            assert!(!err.to_string().contains("s3cr3t"), "{err}");
        }
    }

    #[test]
    fn an_input_is_named_and_identified_without_its_secrets() {
        let s = allowing(&[]);
        let a = url_input("https://h/x/../a.warc.gz?token=one&v=1", &s).unwrap();
        let b = url_input("https://H/a.warc.gz?token=two&v=1", &s).unwrap();
        assert_eq!(a.name, "https://h/a.warc.gz?token=REDACTED&v=1");
        assert_eq!(
            (a.id.as_str(), b.id.as_str()),
            (a.name.as_str(), a.name.as_str())
        );
        assert_eq!(a.location.to_string(), a.name);
        assert!(matches!(
            differ_in_secrets(&a, &b),
            Err(ListError::SecretsDiffer { .. })
        ));
        assert!(differ_in_secrets(&a, &a.clone()).is_ok());
        // Another value of a parameter that is not a secret: another input.
        let c = url_input("https://h/a.warc.gz?token=one&v=2", &s).unwrap();
        assert_ne!(a.id, c.id);
        // Without secrets, the name is the URL as given.
        let plain = url_input("HTTPS://h/a.warc.gz", &s).unwrap();
        assert_eq!(
            (plain.name.as_str(), plain.id.as_str()),
            ("HTTPS://h/a.warc.gz", "https://h/a.warc.gz")
        );
    }

    #[test]
    fn a_prefix_with_a_token_reads_every_line_with_it() {
        let s = allowing(&[]);
        let input = prefixed_input(
            "https://h/data/?access_token=s3cr3t",
            "/crawl/a.warc.gz",
            &s,
        )
        .unwrap();
        assert_eq!(
            (input.name.as_str(), input.id.as_str()),
            ("/crawl/a.warc.gz", "/crawl/a.warc.gz")
        );
        assert!(input.prefixed);
        let Location::Url(url) = &input.location else {
            panic!("{input:?}")
        };
        assert_eq!(
            url.url().as_str(),
            "https://h/data/crawl/a.warc.gz?access_token=s3cr3t"
        );
        assert_eq!(
            url.shown(),
            "https://h/data/crawl/a.warc.gz?access_token=REDACTED"
        );
        assert!(!format!("{input:?}").contains("s3cr3t"));
        // A line with a query of its own, secrets in it redacted.
        let input = prefixed_input("https://h/?sig=one", "a.warc.gz?v=1&key=two#f", &s).unwrap();
        assert_eq!(input.name, "a.warc.gz?v=1&key=REDACTED#f");
        let Location::Url(url) = &input.location else {
            panic!("{input:?}")
        };
        assert_eq!(
            url.url().as_str(),
            "https://h/a.warc.gz?v=1&key=two&sig=one#f"
        );
        // Refused without leave, naming the prefix.
        let err =
            prefixed_input("https://h/?sig=one", "a.warc.gz", &Secrets::default()).unwrap_err();
        assert!(
            err.to_string().starts_with("'https://h/?sig=REDACTED'"),
            "{err}"
        );
        let err = prefixed_input("s3://b/?sig=s3cr3t", "a.warc.gz", &s).unwrap_err();
        assert!(
            matches!(err, ListError::BadUrl { .. }) && !err.to_string().contains("s3cr3t"),
            "{err}"
        );
        // Without a query, as before: the prefix and the line, one slash.
        let input = prefixed_input("s3://commoncrawl", "crawl/a.warc.gz", &s).unwrap();
        assert_eq!(
            input.location.to_string(),
            "s3://commoncrawl/crawl/a.warc.gz"
        );
    }

    #[test]
    fn urls_with_secrets_are_listed_without_them_when_allowed() {
        let d = Dir::new("secrets");
        std::fs::write(
            d.0.join("paths"),
            "https://h/b.warc.gz?sig=s3cr3t\nc.warc.gz?token=s3cr3t\n",
        )
        .unwrap();
        let paths = d.0.join("paths").to_string_lossy().into_owned();
        let mut sources = Sources {
            args: &["https://h/a.warc.gz?access_token=s3cr3t".to_owned()],
            paths: Some(&paths),
            prefix: Some("https://h/?key=s3cr3t"),
            ..Sources::default()
        };
        let err = list(&sources).unwrap_err();
        assert!(matches!(err, ListError::Secret { .. }), "{err}");
        sources.secrets.allow = true;
        let listing = list(&sources).unwrap();
        let named: Vec<(&str, &str)> = listing
            .inputs
            .iter()
            .map(|i| (i.name.as_str(), i.id.as_str()))
            .collect();
        assert_eq!(
            named,
            [
                (
                    "https://h/a.warc.gz?access_token=REDACTED",
                    "https://h/a.warc.gz?access_token=REDACTED"
                ),
                (
                    "https://h/b.warc.gz?sig=REDACTED",
                    "https://h/b.warc.gz?sig=REDACTED"
                ),
                ("c.warc.gz?token=REDACTED", "c.warc.gz?token=REDACTED"),
            ]
        );
        assert!(!format!("{listing:?}").contains("s3cr3t"));
        // One URL twice, with two tokens: refused, not read once on a guess.
        let args = [
            "https://h/a?token=1".to_owned(),
            "https://h/a?token=2".to_owned(),
        ];
        let err = list(&Sources {
            args: &args,
            secrets: sources.secrets.clone(),
            ..Sources::default()
        });
        assert!(
            matches!(err, Err(ListError::SecretsDiffer { .. })),
            "{err:?}"
        );
    }
}
