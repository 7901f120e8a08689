//! A robots.txt parse -> one row per line that says something: the
//! `body_user_agents`, `body_rules`, `body_sitemaps`, `body_directives`
//! and `body_preference_statements` tables, and the body's `bodies` row.
//!
//! A line's row depends on the body alone, so these tables are keyed by
//! the body ([`BodyKey`]) and a body's rows are written once, whichever
//! captures served it; `queries/tables.sql` joins them to every capture of
//! the body as the views `user_agents`, `rules`, `sitemaps`, `directives`
//! and `preference_statements`. What depends on the capture (is a sitemap
//! on the robots.txt's host?) is computed there.

use std::borrow::Cow;

use crate::http::host_registered_domain;
use crate::robots::{ParseStatus, PreferenceDirective, PreferenceValue, RobotsTxt, RuleKind};
use crate::table::columns;
use url::Url;

use super::Rows;
use super::key::{BodyKey, BodyRow};
use super::typo::typo_of;

/// Descriptions of the columns several line tables share.
macro_rules! doc {
    (line) => {
        "line number, from 1"
    };
    (group) => {
        "index of the line's group in the file, from 0"
    };
    (group_or_null) => {
        "index of the line's group in the file, from 0; null for a line before \
         the first user-agent line"
    };
    (key) => {
        "the key as written (Google accepts case-insensitive prefixes and typos)"
    };
    (value) => {
        "the value as written (comment and surrounding whitespace removed)"
    };
    (is_typo $examples:literal) => {
        concat!(
            "the key is one of Google's accepted typos (",
            $examples,
            ")"
        )
    };
}

columns! {
    /// `body_user_agents`: one row per user-agent line of a body.
    #[derive(Clone, Debug, PartialEq)]
    pub struct UserAgentRow<'a> {
        /// The body.
        pub at: BodyKey<'a>,
        #[doc = doc!(group)]
        pub group: usize,
        /// index of the line's group under AIPREF's grouping, from 0 (a
        /// Content-Usage line is a rule there, so a user-agent line after it
        /// starts a new group); equal to group in a file without Content-Usage
        /// lines (see preference_statements.aipref_group)
        pub aipref_group: usize,
        #[doc = doc!(line)]
        pub line: u32,
        #[doc = doc!(key)]
        pub key: Cow<'a, str>,
        #[doc = doc!(value)]
        pub value: Cow<'a, str>,
        /// what Google's matcher compares with a crawler's name: the value's longest
        /// [A-Za-z_-] prefix, empty for *
        pub product_token: Cow<'a, str>,
        /// the value is * (alone or followed by whitespace)
        pub is_global: bool,
        #[doc = doc!(is_typo "useragent, user agent")]
        pub is_typo: bool,
    }
}

columns! {
    /// `body_rules`: one row per allow or disallow line of a body.
    #[derive(Clone, Debug, PartialEq)]
    pub struct RuleRow<'a> {
        /// The body.
        pub at: BodyKey<'a>,
        #[doc = doc!(group_or_null)]
        /// (Google ignores such rules)
        pub group: Option<usize>,
        #[doc = doc!(line)]
        pub line: u32,
        /// allow or disallow
        pub kind: RuleKind,
        #[doc = doc!(key)]
        pub key: Cow<'a, str>,
        #[doc = doc!(value)]
        pub value: Cow<'a, str>,
        /// the value as Google matches it (bytes >= 0x80 %-escaped, the hex of
        /// %-escapes upper-cased) where that differs from value, else null: the
        /// view body_rules gives every rule's pattern, coalesce(escaped_pattern,
        /// value), and what follows from it
        pub escaped_pattern: Option<Cow<'a, str>>,
        #[doc = doc!(is_typo "dissallow, ...")]
        pub is_typo: bool,
        /// the rule's group names *
        pub in_global_group: bool,
    }
}

columns! {
    /// `body_sitemaps`: one row per sitemap line of a body.
    #[derive(Clone, Debug, PartialEq)]
    pub struct SitemapRow<'a> {
        /// The body.
        pub at: BodyKey<'a>,
        #[doc = doc!(line)]
        pub line: u32,
        #[doc = doc!(key)]
        pub key: Cow<'a, str>,
        /// the sitemap URL as written
        pub url: Cow<'a, str>,
        /// an absolute http(s) URL
        pub is_valid: bool,
        /// the sitemap's host, lower case, punycode
        pub url_host_name: Option<String>,
        /// the sitemap host's registrable domain by the public suffix list
        /// (compared with the capture's in the view sitemaps)
        pub url_host_registered_domain: Option<String>,
        #[doc = doc!(is_typo "site-map")]
        pub is_typo: bool,
    }
}

columns! {
    /// `body_directives`: one row per line of a body with a key Google does
    /// not use.
    #[derive(Clone, Debug, PartialEq)]
    pub struct DirectiveRow<'a> {
        /// The body.
        pub at: BodyKey<'a>,
        #[doc = doc!(line)]
        pub line: u32,
        #[doc = doc!(group_or_null)]
        pub group: Option<usize>,
        /// the key as written
        pub key: Cow<'a, str>,
        /// the key in lower case
        pub name: Cow<'a, str> as dict,
        #[doc = doc!(value)]
        pub value: Cow<'a, str>,
        /// the key is one other crawlers use (Google's list: clean-param,
        /// content-signal, content-usage, crawl-delay, domain, host, noarchive,
        /// nofollow, noindex, request-rate, revisit-after, visit-time)
        pub known_elsewhere: Option<&'static str> as dict,
        /// the directive the key seems a misspelling of (edit distance 1 or 2 from
        /// user-agent, allow, disallow, sitemap, crawl-delay, content-signal,
        /// content-usage)
        pub typo_of: Option<&'static str> as dict,
    }
}

columns! {
    /// `body_preference_statements`: one row per member of the dictionary of a
    /// Content-Signal or Content-Usage line (one row with a null label when
    /// the dictionary is empty or does not parse).
    #[derive(Clone, Debug, PartialEq)]
    pub struct PreferenceStatementRow<'a> {
        /// The body.
        pub at: BodyKey<'a>,
        #[doc = doc!(line)]
        pub line: u32,
        /// content-signal (Cloudflare) or content-usage (IETF AIPREF)
        pub directive: PreferenceDirective,
        /// the key as written
        pub key: Cow<'a, str> as dict,
        /// the line's group under Google's grouping (where an unknown line never
        /// ends a run of user-agent lines), from 0 as user_agents.group; null
        /// before the first user-agent line
        pub google_group: Option<usize>,
        /// the line's group under AIPREF's grouping (a Content-Usage line is a
        /// rule: a user-agent line after it starts a new group), from 0; null
        /// before the first user-agent line
        pub aipref_group: Option<usize>,
        /// the line is between # BEGIN Cloudflare Managed content and # END
        /// Cloudflare Managed Content
        pub in_cloudflare_block: bool,
        /// Content-Usage only: the path as written (the value's first word when
        /// it starts with /); null when the rule has none (it applies to every
        /// path)
        pub path: Option<Cow<'a, str>>,
        /// the dictionary as written (the value without its path)
        pub dictionary: Cow<'a, str>,
        /// the member's label (dictionary key) as written: current, older-draft
        /// and unknown labels alike; null when the dictionary is empty or does
        /// not parse
        pub label: Option<&'a str> as dict,
        /// the member's value as written after =, parameters included; null for
        /// a bare label (the boolean true) or no member
        pub value: Option<&'a str> as dict,
        /// y or n (Content-Usage: the tokens y, n; Content-Signal: yes, no), else
        /// unknown (another token, a string, a boolean, a dictionary that does
        /// not parse)
        pub preference: PreferenceValue,
        /// a later member of the line has the same label: the last one wins
        pub is_overridden: bool,
        /// ok, empty (no member) or unparseable (not an RFC 9651 dictionary:
        /// every preference of the line is unknown)
        pub status: ParseStatus,
        /// why the dictionary does not parse (the sfv parser's message)
        pub parse_error: Option<&'a str>,
    }
}

/// A body's lines as text for the tables' text columns, invalid UTF-8
/// replaced. The body is checked as UTF-8 once (nearly every body is
/// valid); a line's bytes inside it are then its text at once (lines end
/// at ASCII bytes, which no UTF-8 sequence holds, so each is on character
/// boundaries; `str::get` checks it). Checking each line's bytes alone
/// took 3.7 % of ingest's instructions with `from_utf8_lossy`, 3.9 % with
/// `from_utf8` (BENCHMARKS.md).
struct Text<'a> {
    body: &'a [u8],
    text: Option<&'a str>,
}

impl<'a> Text<'a> {
    fn new(body: &'a [u8]) -> Text<'a> {
        Text {
            body,
            text: std::str::from_utf8(body).ok(),
        }
    }

    /// `b` as text: its place in the valid body, else checked alone.
    fn of<'x>(&self, b: &'x [u8]) -> Cow<'x, str>
    where
        'a: 'x,
    {
        let start = (b.as_ptr() as usize).wrapping_sub(self.body.as_ptr() as usize);
        let inside = start <= self.body.len() && b.len() <= self.body.len() - start;
        if let Some(text) = self.text.filter(|_| inside)
            && let Some(line) = text.get(start..start + b.len())
        {
            return Cow::Borrowed(line);
        }
        lossy(b)
    }
}

/// `b` as text, invalid UTF-8 replaced.
fn lossy(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// The rows of a body: its `bodies` row, then one per line.
pub fn push_lines(at: BodyKey<'_>, robots: &RobotsTxt<'_>, out: &mut impl Rows) {
    out.push(&BodyRow {
        at,
        bytes: robots.body().len() as u64,
    });
    let text = Text::new(robots.body());
    let lossy = |b| text.of(b);
    for (i, ua) in robots.user_agents().iter().enumerate() {
        out.push(&UserAgentRow {
            at,
            group: ua.group,
            aipref_group: robots.aipref_group_of_user_agent(i),
            line: ua.line,
            key: lossy(ua.key),
            value: lossy(ua.value),
            product_token: lossy(ua.product),
            is_global: ua.global,
            is_typo: ua.typo,
        });
    }
    for rule in robots.rules() {
        out.push(&RuleRow {
            at,
            group: rule.group,
            line: rule.line,
            kind: rule.kind,
            key: lossy(rule.key),
            value: lossy(rule.value),
            // (equal bytes: no byte >= 0x80, so the value is the same text)
            escaped_pattern: (*rule.pattern != *rule.value).then(|| lossy(&rule.pattern)),
            is_typo: rule.typo,
            in_global_group: rule.group.is_some_and(|g| robots.groups()[g].global),
        });
    }
    for sitemap in robots.sitemaps() {
        out.push(&sitemap_row(
            at,
            sitemap.line,
            sitemap.key,
            sitemap.url,
            sitemap.typo,
        ));
    }
    push_directives(at, robots, out);
    push_preference_statements(at, robots, out);
}

/// The `directives` rows of a file: every line whose key Google does not
/// use (Content-Signal and Content-Usage lines included).
fn push_directives(at: BodyKey<'_>, robots: &RobotsTxt<'_>, out: &mut impl Rows) {
    for d in robots.directives() {
        let key = lossy(d.key);
        let name = if key.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(key.to_ascii_lowercase())
        } else {
            key.clone()
        };
        out.push(&DirectiveRow {
            at,
            line: d.line,
            group: d.group,
            key,
            name,
            value: lossy(d.value),
            known_elsewhere: d.known,
            typo_of: d.known.is_none().then(|| typo_of(d.key)).flatten(),
        });
    }
}

/// The `preference_statements` rows of a file: one per member of each
/// Content-Signal and Content-Usage line (one for a line without members).
fn push_preference_statements(at: BodyKey<'_>, robots: &RobotsTxt<'_>, out: &mut impl Rows) {
    for p in robots.preferences() {
        let mut row = PreferenceStatementRow {
            at,
            line: p.line,
            directive: p.directive,
            key: lossy(p.key),
            google_group: p.google_group,
            aipref_group: p.aipref_group,
            in_cloudflare_block: p.in_cloudflare_block,
            path: p.path.map(lossy),
            dictionary: lossy(p.dictionary),
            label: None,
            value: None,
            preference: PreferenceValue::Unknown,
            is_overridden: false,
            status: p.status,
            parse_error: p.error.as_deref(),
        };
        if p.members.is_empty() {
            out.push(&row);
        }
        for m in &p.members {
            row.label = Some(m.label);
            row.value = m.value;
            row.preference = p.normalise(m);
            row.is_overridden = m.overridden;
            out.push(&row);
        }
    }
}

/// A sitemap line, its URL parsed.
fn sitemap_row<'a>(
    at: BodyKey<'a>,
    line: u32,
    key: &'a [u8],
    url: &'a [u8],
    typo: bool,
) -> SitemapRow<'a> {
    let text = lossy(url);
    // (Only the host is wanted: no `UrlFacts`, whose path and query are
    // copies, and one public suffix lookup.)
    let parsed = Url::parse(text.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
    SitemapRow {
        at,
        line,
        key: lossy(key),
        is_valid: parsed.is_some(),
        url_host_name: parsed
            .as_ref()
            .and_then(|u| u.host_str().map(str::to_owned)),
        url_host_registered_domain: parsed.as_ref().and_then(host_registered_domain),
        url: text,
        is_typo: typo,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sitemap_s_host_and_registered_domain() {
        let at = BodyKey {
            body_digest: "d",
            writer: 1,
        };
        let row = |url: &'static str| sitemap_row(at, 1, b"sitemap", url.as_bytes(), false);
        let r = row(" https://WWW.Example.co.uk/s.xml");
        assert!(r.is_valid);
        assert_eq!(r.url_host_name.as_deref(), Some("www.example.co.uk"));
        assert_eq!(
            r.url_host_registered_domain.as_deref(),
            Some("example.co.uk")
        );
        // an IP address is a valid host with no registrable domain (not "226.167")
        let r = row("http://12.94.226.167/sitemap.xml");
        assert!(r.is_valid);
        assert_eq!(r.url_host_name.as_deref(), Some("12.94.226.167"));
        assert_eq!(r.url_host_registered_domain, None);
        for bad in ["ftp://example.com/s.xml", "/sitemap.xml", "https://"] {
            let r = row(bad);
            assert!(!r.is_valid, "{bad}");
            assert_eq!(
                (r.url_host_name, r.url_host_registered_domain),
                (None, None)
            );
        }
    }

    #[test]
    fn a_line_is_its_place_in_a_valid_body_or_checked_alone() {
        let body = "user-agent: *\ndisallow: /ä\n".as_bytes();
        let text = Text::new(body);
        assert!(matches!(
            text.of(&body[15..25]),
            Cow::Borrowed("isallow: /")
        ));
        assert_eq!(text.of(&body[24..27]), "/ä");
        // not on a character boundary: checked alone, replaced
        assert_eq!(text.of(&body[24..26]), "/\u{fffd}");
        // bytes outside the body (an escaped pattern)
        let owned = b"/%C3%A4".to_vec();
        assert_eq!(text.of(&owned), "/%C3%A4");
        // an invalid body: each line checked alone
        let bad = b"user-agent: \xff\ndisallow: /x\n";
        let text = Text::new(bad);
        assert_eq!(text.of(&bad[..13]), "user-agent: \u{fffd}");
        assert_eq!(text.of(&bad[14..25]), "disallow: /");
        assert_eq!(text.of(&bad[..0]), "");
    }
}
