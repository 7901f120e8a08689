//! A parsed file -> its ruleset: what it says to crawlers, with the
//! cosmetic and host-specific parts left out, as one canonical text.
//!
//! Two files with the same ruleset give every crawler the same answers
//! and preferences; files that differ only in comments, blank lines, line
//! ends, key spelling (Google's typos, case) or the host of their sitemap
//! URLs have the same ruleset. That makes platform defaults, which differ
//! from site to site only in those parts, one ruleset each.

use crate::lex::Key;
use crate::parse::RobotsTxt;

impl RobotsTxt<'_> {
    /// Appends the canonical text of the file's ruleset to `out`: one line
    /// `name: value\n` per line Google reads a key on, in file order.
    /// Returns the number of lines appended.
    ///
    /// - `name` is the key as Google reads it: `user-agent`, `allow`,
    ///   `disallow`, `sitemap` (whatever the case or accepted typo), and
    ///   any other key in ASCII lower case (`crawl-delay`,
    ///   `content-signal`, ...).
    /// - `value` is the value as Google reads it (trimmed, without its
    ///   comment, not %-escaped); a sitemap URL starting with `http://` or
    ///   `https://` loses its scheme and authority (`/sitemap.xml`).
    /// - Blank lines, comments, lines without a key and the bytes past
    ///   the parse limit are not part of it.
    ///
    /// ```
    /// use robostats_robots::RobotsTxt;
    /// let a = RobotsTxt::parse(b"User-agent: *\r\nDisallow: /wp-admin/ # core\r\n\r\nSitemap: https://a.example/wp-sitemap.xml\r\n");
    /// let b = RobotsTxt::parse(b"# WordPress\nuseragent: *\ndisallow: /wp-admin/\nSITEMAP: http://b.example/wp-sitemap.xml");
    /// let (mut x, mut y) = (Vec::new(), Vec::new());
    /// assert_eq!(a.write_ruleset(&mut x), 3);
    /// assert_eq!(b.write_ruleset(&mut y), 3);
    /// assert_eq!(x, y);
    /// assert_eq!(x, b"user-agent: *\ndisallow: /wp-admin/\nsitemap: /wp-sitemap.xml\n");
    /// ```
    pub fn write_ruleset(&self, out: &mut Vec<u8>) -> usize {
        // Every line with a key is in exactly one of the four lists, each
        // in file order: merge them by line number (no sort, nothing
        // allocated but `out`). Runs of rules, most of a file, are
        // written in one go.
        let (uas, rules, sitemaps, directives) = (
            self.user_agents(),
            self.rules(),
            self.sitemaps(),
            self.directives(),
        );
        let line = |l: Option<u32>| l.unwrap_or(u32::MAX);
        let (mut u, mut r, mut s, mut d) = (0, 0, 0, 0);
        loop {
            let lu = line(uas.get(u).map(|x| x.line));
            let ls = line(sitemaps.get(s).map(|x| x.line));
            let ld = line(directives.get(d).map(|x| x.line));
            let others = lu.min(ls).min(ld);
            while let Some(rule) = rules.get(r).filter(|x| x.line < others) {
                let name = match rule.kind {
                    crate::RuleKind::Allow => Key::Allow,
                    crate::RuleKind::Disallow => Key::Disallow,
                };
                push_line(out, name.as_str().as_bytes(), rule.value);
                r += 1;
            }
            if others == u32::MAX {
                return uas.len() + rules.len() + sitemaps.len() + directives.len();
            } else if others == lu {
                push_line(out, Key::UserAgent.as_str().as_bytes(), uas[u].value);
                u += 1;
            } else if others == ls {
                let url = without_origin(sitemaps[s].url);
                push_line(out, Key::Sitemap.as_str().as_bytes(), url);
                s += 1;
            } else {
                let start = out.len();
                out.extend_from_slice(directives[d].key);
                out[start..].make_ascii_lowercase();
                push_line(out, b"", directives[d].value);
                d += 1;
            }
        }
    }
}

/// Appends `name: value\n`.
fn push_line(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.reserve(name.len() + value.len() + 3);
    out.extend_from_slice(name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.push(b'\n');
}

/// A URL without its `http://` or `https://` scheme (any case) and its
/// authority (the longest run of RFC 3986 authority characters after
/// `//`); any other value as it is.
fn without_origin(url: &[u8]) -> &[u8] {
    let rest = [&b"http://"[..], b"https://"]
        .into_iter()
        .find(|s| url.len() >= s.len() && url[..s.len()].eq_ignore_ascii_case(s))
        .map(|s| &url[s.len()..]);
    let Some(rest) = rest else { return url };
    let authority = rest
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@%[]".contains(&b))
        .count();
    &rest[authority..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ruleset(body: &[u8]) -> String {
        let mut out = Vec::new();
        RobotsTxt::parse(body).write_ruleset(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn cosmetic_parts_are_left_out() {
        let plain = ruleset(b"User-agent: *\nDisallow: /a\nAllow: /a/b\nCrawl-delay: 5\n");
        for body in [
            &b"user-agent: *\r\ndisallow: /a\r\nallow: /a/b\r\ncrawl-delay: 5\r\n"[..],
            b"\xEF\xBB\xBF# top\n\nUser-Agent:*\n  Disallow:/a   # no\n\nAllow: /a/b\nCRAWL-DELAY: 5",
            b"Useragent: *\nDissallow: /a\nAllow /a/b\nCrawl-delay: 5\n<html>\n",
            b"User agent: *\rDisallow: /a\rAllow: /a/b\rcrawl-Delay: 5\r",
        ] {
            assert_eq!(ruleset(body), plain, "{:?}", String::from_utf8_lossy(body));
        }
        assert_eq!(
            plain,
            "user-agent: *\ndisallow: /a\nallow: /a/b\ncrawl-delay: 5\n"
        );
    }

    #[test]
    fn what_crawlers_read_is_kept() {
        let plain = ruleset(b"User-agent: *\nDisallow: /a\n");
        for body in [
            &b"User-agent: *\nDisallow: /A\n"[..],
            b"User-agent: *\nAllow: /a\n",
            b"User-agent: GPTBot\nDisallow: /a\n",
            b"Disallow: /a\nUser-agent: *\n",
            b"User-agent: *\nDisallow: /a\nContent-Signal: ai-train=no\n",
            b"User-agent: *\nDisallow: /a\nSitemap: /a.xml\n",
        ] {
            assert_ne!(ruleset(body), plain, "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn sitemaps_lose_their_origin() {
        assert_eq!(without_origin(b"https://a.example/s.xml"), b"/s.xml");
        assert_eq!(
            without_origin(b"HTTP://user@a.example:8080/s.xml?x=1"),
            b"/s.xml?x=1"
        );
        assert_eq!(without_origin(b"https://a.example"), b"");
        assert_eq!(without_origin(b"https://a.example{PATH}/s"), b"{PATH}/s");
        assert_eq!(without_origin(b"/s.xml"), b"/s.xml");
        assert_eq!(without_origin(b"ftp://a.example/s"), b"ftp://a.example/s");
        assert_eq!(without_origin(b"http"), b"http");
    }

    #[test]
    fn the_parse_limit_holds() {
        let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
        let cut = body.len();
        body.extend_from_slice(b"Disallow: /b\n");
        let mut out = Vec::new();
        RobotsTxt::parse_with_limit(&body, cut).write_ruleset(&mut out);
        assert_eq!(out, b"user-agent: *\ndisallow: /a\n");
    }
}
