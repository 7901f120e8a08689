//! A parsed body -> what tells its copies apart: the digest of its bytes,
//! the digest of its ruleset, and the platform default it is.
//!
//! The defaults are the files of `data/templates/` (each one's source and
//! the versions it covers are in `data/templates/index.tsv`, and in
//! robostats' `docs/templates.md`; `ID+VARIANT.txt` is another text of
//! template `ID`). A template matches by its ruleset (see
//! [`RobotsTxt::write_ruleset`]), so a default whose comments, blank
//! lines, line ends, key spelling or sitemap host differ is still the
//! default, and one with a rule added is not. Inside a template's text,
//! `{PATH}` stands for an install path (empty, or `/` and more, without
//! whitespace) and `{ID}` for a number (a shop's id). Cloudflare's managed
//! block matches by its shape instead ([`Match::Block`]).

use std::sync::OnceLock;

use crate::robots::{Key, Line, RobotsTxt, cloudflare_marker};
use xxhash_rust::xxh3::xxh3_128;

/// Hex digits of a [`body_digest`].
pub const BODY_DIGEST_HEX: usize = 64;

/// The digests and template of one parsed body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copies {
    /// Of the parsed bytes: see [`body_digest`].
    pub body_digest: String,
    /// Of the canonical ruleset text: see [`ruleset_digest`].
    pub ruleset_digest: String,
    /// The platform default the body is, or starts with.
    pub template: Option<&'static Template>,
}

impl Copies {
    /// The digests and template of `robots`, a parsed body.
    pub fn of(robots: &RobotsTxt<'_>) -> Copies {
        let mut ruleset = Vec::with_capacity(robots.body().len() / 2);
        let lines = robots.write_ruleset(&mut ruleset);
        Copies {
            body_digest: body_digest(robots.body()),
            ruleset_digest: ruleset_digest(&ruleset),
            template: Template::of(robots, &ruleset, lines),
        }
    }
}

/// The BLAKE3 hash of a body's bytes as 64 lower-case hex digits, what
/// `b3sum` prints: the key a body's stored lines are found by, so it must
/// be one no one can forge. A body is written by strangers, and two bodies
/// with one 128-bit XXH3 hash are made in microseconds: with such a key,
/// one host's capture would be read with another host's lines
/// (docs/templates.md). BLAKE3 is cryptographic and, of those, the fastest
/// on short inputs (BENCHMARKS.md, "Unforgeable body keys").
pub fn body_digest(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The 128-bit XXH3 hash of a canonical ruleset text as 32 lower-case hex
/// digits, the canonical (big-endian) form `xxh128sum` prints. It groups
/// rulesets for counting and keys no stored data; non-cryptographic, and
/// chosen for speed (BENCHMARKS.md, "Copies" and "Unforgeable body keys").
pub fn ruleset_digest(bytes: &[u8]) -> String {
    format!("{:032x}", xxh3_128(bytes))
}

/// How a template's text must match a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// The body's ruleset is the template's.
    Exact,
    /// The body starts with Cloudflare's managed block, whatever its
    /// crawlers and signal: before any line with a key, a `# BEGIN
    /// Cloudflare Managed content` line (as the `cloudflare_blocks` count
    /// reads it, [`cloudflare_marker`]); then, up to `# END Cloudflare
    /// Managed Content`, a `User-agent: *` line first, and no line with a
    /// key other than `User-agent`, `Allow: /`, `Disallow: /` and
    /// `Content-Signal`. The site's own lines may follow the end line.
    Block,
    /// The body is empty or only whitespace.
    Blank,
}

/// A platform default robots.txt.
#[derive(Debug, PartialEq, Eq)]
pub struct Template {
    /// Its name: the platform, then what sets the version apart
    /// (`wordpress-5.5`).
    pub id: &'static str,
    /// The platform (`wordpress`).
    pub platform: &'static str,
    /// The versions or settings that serve it.
    pub versions: &'static str,
    /// How it matches.
    pub matching: Match,
    /// A line the body must also hold, when the ruleset alone is not
    /// distinctive (a comment the platform writes).
    pub marker: Option<&'static str>,
    /// Where its text comes from.
    pub source: &'static str,
    /// Its ruleset's lines, with the `{PATH}` and `{ID}` placeholders.
    lines: Vec<TemplateLine>,
}

/// A line of a template's ruleset.
#[derive(Debug, PartialEq, Eq)]
enum TemplateLine {
    /// This exact line.
    Literal(Vec<u8>),
    /// `head`, then what `slot` stands for, then `tail`.
    Placeholder {
        head: Vec<u8>,
        slot: Slot,
        tail: Vec<u8>,
    },
}

/// What a placeholder stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// `{PATH}`: an install path, empty or `/` and more, no whitespace.
    Path,
    /// `{ID}`: a number.
    Id,
}

impl Slot {
    fn fits(self, s: &[u8]) -> bool {
        match self {
            Slot::Path => s.is_empty() || (s[0] == b'/' && !s.iter().any(u8::is_ascii_whitespace)),
            Slot::Id => !s.is_empty() && s.iter().all(u8::is_ascii_digit),
        }
    }
}

impl TemplateLine {
    /// The line of a template's ruleset, with at most one placeholder.
    fn new(line: &[u8]) -> TemplateLine {
        for (name, slot) in [(&b"{PATH}"[..], Slot::Path), (b"{ID}", Slot::Id)] {
            if let Some(at) = find(line, name) {
                return TemplateLine::Placeholder {
                    head: line[..at].to_vec(),
                    slot,
                    tail: line[at + name.len()..].to_vec(),
                };
            }
        }
        TemplateLine::Literal(line.to_vec())
    }

    /// Whether a body's ruleset line is this line.
    fn matches(&self, line: &[u8]) -> bool {
        match self {
            TemplateLine::Literal(l) => l == line,
            TemplateLine::Placeholder { head, slot, tail } => {
                line.len() >= head.len() + tail.len()
                    && line.starts_with(head)
                    && line.ends_with(tail)
                    && slot.fits(&line[head.len()..line.len() - tail.len()])
            }
        }
    }
}

/// Every template's text, by id (the ids of `data/templates/index.tsv`).
macro_rules! texts {
    ($($id:literal),+ $(,)?) => {
        &[$(($id, include_bytes!(concat!("../../data/templates/", $id, ".txt")))),+]
    };
}

/// The other texts of a template (`ID+VARIANT.txt`), by file name without
/// `.txt`: the ones its platform serves besides the text of `ID.txt`.
#[cfg(test)]
const VARIANTS: &[(&str, &[u8])] = texts![
    "cloudflare-managed+served-2025",
    "cloudflare-managed+served-2026",
    "cloudflare-policy+served-2026",
];

const TEXTS: &[(&str, &[u8])] = texts![
    "cloudflare-managed",
    "cloudflare-policy",
    "wordpress-5.5",
    "wordpress-5.5-plain",
    "wordpress-4.4",
    "wordpress-4.0",
    "wordpress-3.3",
    "yoast-19.8",
    "shopify",
    "wix-2026",
    "squarespace",
    "blogger",
    "drupal-8.8",
    "drupal-8.0",
    "joomla-4",
    "joomla-3",
    "ghost-5",
    "ghost-5.0",
    "ghost-4",
    "ghost-3",
    "empty",
];

const INDEX: &str = include_str!("../../data/templates/index.tsv");

impl Template {
    /// Every template, in the order they are tried (`index.tsv`'s).
    pub fn all() -> &'static [Template] {
        static ALL: OnceLock<Vec<Template>> = OnceLock::new();
        ALL.get_or_init(|| INDEX.lines().skip(1).map(Template::from_index).collect())
    }

    /// The template of an `index.tsv` line.
    fn from_index(line: &'static str) -> Template {
        let f: Vec<&'static str> = line.split('\t').collect();
        let text = TEXTS
            .iter()
            .find(|(id, _)| *id == f[0])
            .unwrap_or_else(|| panic!("data/templates/{}.txt is not in TEXTS", f[0]))
            .1;
        let mut ruleset = Vec::new();
        RobotsTxt::parse(text).write_ruleset(&mut ruleset);
        Template {
            id: f[0],
            platform: f[1],
            versions: f[2],
            matching: match f[3] {
                "exact" => Match::Exact,
                "block" => Match::Block,
                "blank" => Match::Blank,
                other => panic!("index.tsv: unknown match {other}"),
            },
            marker: Some(f[4]).filter(|m| !m.is_empty()),
            source: f[6],
            lines: ruleset
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(TemplateLine::new)
                .collect(),
        }
    }

    /// The first template a parsed body is, given its ruleset text and
    /// that text's number of lines (what [`RobotsTxt::write_ruleset`] writes
    /// and returns).
    pub fn of(robots: &RobotsTxt<'_>, ruleset: &[u8], lines: usize) -> Option<&'static Template> {
        Template::all()
            .iter()
            .find(|t| t.matches(robots, ruleset, lines))
    }

    fn matches(&self, robots: &RobotsTxt<'_>, ruleset: &[u8], lines: usize) -> bool {
        let body = robots.body();
        match self.matching {
            Match::Blank => return body.trim_ascii().is_empty(),
            Match::Block => return starts_with_managed_block(robots),
            Match::Exact if lines != self.lines.len() => return false,
            Match::Exact => {}
        }
        self.lines
            .iter()
            .zip(ruleset.split(|&b| b == b'\n'))
            .all(|(t, l)| t.matches(l))
            && self.marker.is_none_or(|m| contains(body, m.as_bytes()))
    }
}

/// Whether a parsed body starts with Cloudflare's managed block (see
/// [`Match::Block`]).
fn starts_with_managed_block(robots: &RobotsTxt<'_>) -> bool {
    if robots.stats().cloudflare_blocks == 0 {
        return false;
    }
    // None before the block's start line, then whether a line with a key
    // has been read inside it
    let mut inside: Option<bool> = None;
    for line in robots.lines() {
        if line.metadata.is_comment {
            match (cloudflare_marker(line.raw), inside) {
                (Some(true), None) => inside = Some(false),
                (Some(false), Some(keyed)) => return keyed,
                (Some(_), _) => return false,
                (None, _) => {}
            }
            continue;
        }
        if line.key.is_none() {
            continue;
        }
        match inside {
            Some(keyed) if managed_line(&line, keyed) => inside = Some(true),
            _ => return false,
        }
    }
    false
}

/// Whether a line with a key may be in Cloudflare's managed block,
/// `after_first` when it is not the block's first such line.
fn managed_line(line: &Line<'_>, after_first: bool) -> bool {
    match line.key {
        Some(Key::UserAgent) => after_first || line.value == b"*",
        Some(Key::Allow | Key::Disallow) => after_first && line.value == b"/",
        Some(Key::Unknown) => after_first && line.key_text.eq_ignore_ascii_case(b"content-signal"),
        Some(Key::Sitemap) | None => false,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    find(haystack, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(body: &[u8]) -> Option<&'static str> {
        Copies::of(&RobotsTxt::parse(body)).template.map(|t| t.id)
    }

    fn text(id: &str) -> &'static [u8] {
        TEXTS.iter().find(|(i, _)| *i == id).unwrap().1
    }

    /// A template's text with its placeholders filled in for one site.
    fn filled(id: &str, origin: &str, path: &str) -> Vec<u8> {
        String::from_utf8(text(id).to_vec())
            .unwrap()
            .replace("https://example.com", origin)
            .replace("{PATH}", path)
            .replace("{ID}", "5551234")
            .into_bytes()
    }

    #[test]
    fn every_text_is_in_the_index_and_every_template_is_itself() {
        let ids: Vec<_> = Template::all().iter().map(|t| t.id).collect();
        let mut texts: Vec<_> = TEXTS.iter().map(|(id, _)| *id).collect();
        texts.sort();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, texts);
        for t in Template::all() {
            assert_eq!(template(&filled(t.id, "https://a.example", "")), Some(t.id));
            assert!(!t.source.is_empty() && !t.versions.is_empty(), "{}", t.id);
        }
        for (name, text) in VARIANTS {
            let (id, variant) = name.split_once('+').unwrap();
            assert_eq!(template(text), Some(id), "{name}");
            let t = Template::all().iter().find(|t| t.id == id).unwrap();
            assert!(t.source.contains(variant) && t.versions.contains(variant));
        }
    }

    #[test]
    fn a_default_is_one_ruleset_whatever_its_site() {
        let digests: Vec<_> = [
            filled("wordpress-5.5", "https://a.example", ""),
            filled("wordpress-5.5", "http://www.b.example:8080", ""),
            crlf(filled("wordpress-5.5", "https://a.example", "")),
            b"# hi\nuseragent: *\ndisallow: /wp-admin/\n\n\nALLOW: /wp-admin/admin-ajax.php\nSitemap: https://c.example/wp-sitemap.xml".to_vec(),
        ]
        .iter()
        .map(|b| {
            let c = Copies::of(&RobotsTxt::parse(b));
            assert_eq!(c.template.map(|t| t.id), Some("wordpress-5.5"));
            c.ruleset_digest
        })
        .collect();
        assert!(digests.iter().all(|d| *d == digests[0]));
        // a sub-directory install is the same template, another ruleset
        let sub = Copies::of(&RobotsTxt::parse(&filled(
            "wordpress-5.5",
            "https://a.example",
            "/blog",
        )));
        assert_eq!(sub.template.map(|t| t.id), Some("wordpress-5.5"));
        assert_ne!(sub.ruleset_digest, digests[0]);
    }

    fn crlf(body: Vec<u8>) -> Vec<u8> {
        String::from_utf8(body)
            .unwrap()
            .replace('\n', "\r\n")
            .into_bytes()
    }

    #[test]
    fn near_defaults_are_not_defaults() {
        let mut more = filled("wordpress-5.5", "https://a.example", "");
        more.extend_from_slice(b"Disallow: /private/\n");
        assert_eq!(template(&more), None);
        // Yoast's rules without its block's comment are any allow-all file
        let yoast = String::from_utf8(filled("yoast-19.8", "https://a.example", ""))
            .unwrap()
            .replace("# START YOAST BLOCK\n", "");
        assert_eq!(template(yoast.as_bytes()), None);
        assert_eq!(template(b"User-agent: *\nDisallow: /wp-admin/x/\n"), None);
        assert_eq!(template(b"# only a comment\n"), None);
        assert_eq!(template(b"User-agent: *\nDisallow: abc/wp-admin/\n"), None);
    }

    #[test]
    fn cloudflare_starts_a_file_and_blank_is_empty() {
        let site = "\nUser-agent: *\nDisallow: /admin/\n\nSitemap: https://a.example/s.xml\n";
        for name in ["cloudflare-managed", "cloudflare-managed+served-2025"] {
            let text = cloudflare(name);
            assert_eq!(
                template((text.clone() + site).as_bytes()),
                Some("cloudflare-managed")
            );
            // the site's lines straight after the end line, as the
            // documentation shows them
            let tight = text.trim_end().to_string() + "\n" + site.trim_start();
            assert_eq!(template(tight.as_bytes()), Some("cloudflare-managed"));
        }
        for blank in [&b""[..], b"\n", b" \r\n\t"] {
            assert_eq!(template(blank), Some("empty"));
        }
    }

    /// A text of `data/templates/`, by its file name without `.txt`.
    fn cloudflare(name: &str) -> String {
        let text = TEXTS.iter().chain(VARIANTS).find(|(n, _)| *n == name);
        String::from_utf8(text.unwrap().1.to_vec()).unwrap()
    }

    #[test]
    fn cloudflare_blocks_are_the_template_whatever_cloudflare_writes_in_them() {
        let text = cloudflare("cloudflare-managed+served-2026");
        let signal = "Content-Signal: search=yes,ai-train=no,use=reference";
        let crawler = "User-agent: CloudflareBrowserRenderingCrawler\nDisallow: /\n\n";
        for body in [
            text.replace(
                signal,
                "Content-Signal: search=yes, ai-train=no, use=reference",
            ),
            text.replace(signal, "Content-Signal: search=yes,ai-input=no,ai-train=no"),
            text.replace(signal, "content-signal:search=no"),
            text.replace(crawler, ""),
            text.replace(crawler, "User-agent: PerplexityBot\nAllow: /\n\n"),
            // the `*` group alone: no crawler shut out
            text[..text.find("User-agent: Amazonbot").unwrap()].to_string()
                + "# END Cloudflare Managed Content\n",
            // no signal, no blank lines, CRLF, markers in other case
            text.replace(&(signal.to_string() + "\n"), ""),
            text.replace("\n\n", "\n"),
            text.replace('\n', "\r\n"),
            text.replace(
                "# BEGIN Cloudflare Managed content",
                "#BEGIN CLOUDFLARE MANAGED CONTENT  ",
            )
            .replace(
                "# END Cloudflare Managed Content",
                "  # end cloudflare managed content",
            ),
            // without the policy comment
            text[text.find("# BEGIN").unwrap()..].to_string(),
        ] {
            assert_eq!(
                template(body.as_bytes()),
                Some("cloudflare-managed"),
                "{body}"
            );
        }
        let policy = cloudflare("cloudflare-policy+served-2026");
        assert_eq!(
            template(policy.replace('\n', "\r\n").as_bytes()),
            Some("cloudflare-policy")
        );
    }

    #[test]
    fn a_file_that_only_looks_like_cloudflares_is_not_its_block() {
        let text = cloudflare("cloudflare-managed+served-2026");
        let block = &text[text.find("# BEGIN").unwrap()..];
        let begin = "# BEGIN Cloudflare Managed content\n";
        for body in [
            // Cloudflare's lines copied by hand, without the markers
            block.replace(begin, "").replace("# END Cloudflare Managed Content\n", ""),
            block.replace(begin, "# BEGIN Cloudflare content\n"),
            block.replace(begin, "# Copied: BEGIN Cloudflare Managed content\n"),
            // the site's own lines before the block, or inside it
            "User-agent: *\nDisallow: /admin/\n\n".to_string() + block,
            block.replace("Allow: /\n", "Allow: /\nDisallow: /admin/\n"),
            block.replace("Allow: /\n", "Allow: /\nCrawl-delay: 5\n"),
            block.replace("Allow: /\n", "Allow: /\nSitemap: https://a.example/s.xml\n"),
            block.replace("User-agent: *\n", "User-agent: Googlebot\n"),
            // no end line, an end line alone, two start lines
            block.replace("# END Cloudflare Managed Content\n", ""),
            "# END Cloudflare Managed Content\n".to_string() + block,
            begin.to_string() + block,
            // the markers around nothing
            begin.to_string() + "# END Cloudflare Managed Content\n",
            // a site that merely mentions Content-Signal
            "# Content-Signal: see Cloudflare\nUser-agent: *\nContent-Signal: ai-train=no\nAllow: /\n"
                .to_string(),
        ] {
            assert_eq!(template(body.as_bytes()), None, "{body}");
        }
    }

    #[test]
    fn body_digests_are_blake3_and_ruleset_digests_xxh128() {
        // BLAKE3's own test vectors, and what b3sum prints for a small file
        assert_eq!(
            body_digest(b""),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
        );
        assert_eq!(
            body_digest(b"abc"),
            "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"
        );
        assert_eq!(body_digest(b"").len(), BODY_DIGEST_HEX);
        // what xxh128sum prints for an empty file and a small one
        assert_eq!(ruleset_digest(b""), "99aa06d3014798d86001c324468d497f");
        assert_eq!(
            ruleset_digest(b"User-agent: *\nDisallow: /\n"),
            "3a4c3497453a3310282f20871288b111"
        );
        let c = Copies::of(&RobotsTxt::parse(b"User-agent: *\nDisallow: /\n"));
        assert_eq!(
            c.body_digest,
            "26a8b5fd8728242ade18ce31dbf199a9d0edc5706745f7dd50f393f398e17b36"
        );
        assert_eq!(
            c.ruleset_digest,
            ruleset_digest(b"user-agent: *\ndisallow: /\n")
        );
    }
}
