//! Lines -> groups, user-agents, rules, sitemaps and other directives.
//!
//! Google's matcher re-parses the body for every agent, keeping four flags
//! (`seen_global_agent_`, `seen_specific_agent_`, `seen_separator_`,
//! `ever_seen_specific_agent_`). Those flags only ever depend on *where
//! groups start*, which does not depend on the agent: a user-agent line
//! starts a new group exactly when an allow or disallow line came after the
//! previous user-agent line. So one parse records the groups, and any
//! number of agents are then evaluated against them
//! ([`RobotsTxt::agent`]) with the same verdicts as Google's re-parse.
//! Rules before the first user-agent line belong to no group and are
//! ignored, as Google ignores them; sitemap and unknown lines never end a
//! group (Google's 2021 fix).

use std::borrow::Cow;
use std::ops::Range;

use super::lex::{Key, Line, Lines, is_global_agent, product_token};
use super::pattern::escape_pattern;
use super::preference::{PreferenceDirective, Statement};

/// Google's crawler reads at most 500 KiB of a robots.txt; content after it
/// is ignored. This is crawler policy, not library behaviour:
/// [`RobotsTxt::parse`] has no limit, [`RobotsTxt::parse_with_limit`]
/// applies one.
pub const GOOGLE_MAX_BYTES: usize = 500 * 1024;

/// The unknown keys that Google's reporting parser recognises as used by
/// other crawlers (`kUnsupportedTags`, its tag `Unused`), matched on the
/// lower-cased key.
pub const KNOWN_ELSEWHERE: [&str; 12] = [
    "clean-param",
    "content-signal",
    "content-usage",
    "crawl-delay",
    "domain",
    "host",
    "noarchive",
    "nofollow",
    "noindex",
    "request-rate",
    "revisit-after",
    "visit-time",
];

/// The name in [`KNOWN_ELSEWHERE`] that `key` is, ignoring ASCII case.
pub fn known_elsewhere(key: &[u8]) -> Option<&'static str> {
    KNOWN_ELSEWHERE
        .iter()
        .find(|k| k.as_bytes().eq_ignore_ascii_case(key))
        .copied()
}

labels! {
    /// Allow or disallow.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum RuleKind {
        /// An `allow` line.
        Allow = "allow",
        /// A `disallow` line.
        Disallow = "disallow",
    }
}

/// A group: consecutive user-agent lines and the rules that follow them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Indices into [`RobotsTxt::user_agents`].
    pub user_agents: Range<usize>,
    /// Indices into [`RobotsTxt::rules`].
    pub rules: Range<usize>,
    /// Some user-agent line of the group is `*` (Google's global group).
    pub global: bool,
}

/// A user-agent line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserAgent<'a> {
    /// Line number.
    pub line: u32,
    /// Index of its group in [`RobotsTxt::groups`].
    pub group: usize,
    /// The key as written (`User-agent`, `useragent`, ...).
    pub key: &'a [u8],
    /// The value as written (whitespace-stripped).
    pub value: &'a [u8],
    /// The product token Google compares with the caller's agent: the
    /// longest prefix of `[A-Za-z_-]` (empty for the global `*`).
    pub product: &'a [u8],
    /// `*` alone or followed by whitespace: the global group.
    pub global: bool,
    /// The key was an accepted typo (`useragent`, `user agent`).
    pub typo: bool,
}

/// An allow or disallow line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule<'a> {
    /// Line number.
    pub line: u32,
    /// Its group, or `None` before the first user-agent line (ignored).
    pub group: Option<usize>,
    /// Allow or disallow.
    pub kind: RuleKind,
    /// The key as written (`Disallow`, `dissallow`, ...).
    pub key: &'a [u8],
    /// The value as written.
    pub value: &'a [u8],
    /// The value %-escaped as Google matches it; its length is the rule's
    /// priority.
    pub pattern: Cow<'a, [u8]>,
    /// The key was an accepted typo.
    pub typo: bool,
    /// For an allow whose last segment starts with `index.htm`: the length
    /// of the directory prefix Google also allows (`/d/index.html` allows
    /// `/d/$` too).
    pub(crate) index_dir_len: Option<usize>,
}

impl Rule<'_> {
    /// Google's priority for a match: the escaped pattern's byte length,
    /// `*` and `$` included.
    pub fn priority(&self) -> usize {
        self.pattern.len()
    }

    /// The pattern has a `*`.
    pub fn has_wildcard(&self) -> bool {
        self.pattern.contains(&b'*')
    }

    /// The pattern ends with the `$` anchor.
    pub fn has_end_anchor(&self) -> bool {
        self.pattern.last() == Some(&b'$')
    }

    /// An empty pattern: it matches everything with priority 0, i.e. it
    /// changes no verdict.
    pub fn is_empty(&self) -> bool {
        self.pattern.is_empty()
    }
}

/// A sitemap line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sitemap<'a> {
    /// Line number.
    pub line: u32,
    /// The key as written (`Sitemap`, `site-map`, ...).
    pub key: &'a [u8],
    /// The URL as written.
    pub url: &'a [u8],
    /// The key was an accepted typo (`site-map`).
    pub typo: bool,
}

/// A line with a key Google does not use (crawl-delay, host, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive<'a> {
    /// Line number.
    pub line: u32,
    /// The group it stands in, if any (some crawlers read crawl-delay per
    /// group).
    pub group: Option<usize>,
    /// The key as written.
    pub key: &'a [u8],
    /// The value as written.
    pub value: &'a [u8],
    /// Its name in [`KNOWN_ELSEWHERE`], if other crawlers use it.
    pub known: Option<&'static str>,
}

/// Per-file counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bytes parsed.
    pub bytes: usize,
    /// Bytes past the parse limit, not parsed.
    pub bytes_ignored: usize,
    /// The body starts with a UTF-8 BOM (or a prefix of one).
    pub bom: bool,
    /// Lines, counted as Google does (a final line after the last line
    /// end included).
    pub lines: u32,
    /// Lines with nothing but whitespace.
    pub empty_lines: u32,
    /// Lines that are only a comment.
    pub comment_lines: u32,
    /// Lines with a comment (comment-only lines included).
    pub lines_with_comment: u32,
    /// Lines with content but no directive (no separator, more than two
    /// tokens without a colon, empty key: HTML, prose, binary).
    pub invalid_lines: u32,
    /// user-agent lines.
    pub user_agents: u32,
    /// allow lines.
    pub allows: u32,
    /// disallow lines.
    pub disallows: u32,
    /// allow and disallow lines with an empty value.
    pub empty_rules: u32,
    /// allow and disallow lines before the first user-agent (ignored).
    pub rules_outside_group: u32,
    /// sitemap lines.
    pub sitemaps: u32,
    /// lines with a key Google does not use.
    pub unknown: u32,
    /// ... of which a key other crawlers use ([`KNOWN_ELSEWHERE`]).
    pub known_elsewhere: u32,
    /// Keys that are one of Google's accepted typos.
    pub typos: u32,
    /// Directives separated by whitespace instead of `:`.
    pub missing_colon: u32,
    /// Lines cut at [`super::MAX_LINE_BYTES`].
    pub too_long: u32,
    /// `Content-Signal` and `Content-Usage` lines.
    pub preference_lines: u32,
    /// `# BEGIN Cloudflare Managed content` lines.
    pub cloudflare_blocks: u32,
}

/// A parsed robots.txt: parse once, then ask for any number of agents and
/// URLs.
///
/// ```
/// use robostats_robots::RobotsTxt;
/// let robots = RobotsTxt::parse(b"User-agent: *\nDisallow: /private\n");
/// let gptbot = robots.agent("GPTBot");
/// assert!(gptbot.allowed("https://example.com/"));
/// assert!(!gptbot.allowed("https://example.com/private/x"));
/// ```
#[derive(Clone, Debug)]
pub struct RobotsTxt<'a> {
    body: &'a [u8],
    pub(crate) groups: Vec<Group>,
    pub(crate) user_agents: Vec<UserAgent<'a>>,
    pub(crate) rules: Vec<Rule<'a>>,
    sitemaps: Vec<Sitemap<'a>>,
    directives: Vec<Directive<'a>>,
    preferences: Vec<Statement<'a>>,
    /// AIPREF's grouping, only when there are preference lines: the group
    /// of each user-agent line, and which groups name `*`.
    pub(crate) aipref_groups: AiprefGroups,
    stats: Stats,
}

/// The groups of AIPREF's grouping, where a `Content-Usage` line ends a
/// run of user-agent lines as an allow or disallow line does.
#[derive(Clone, Debug, Default)]
pub(crate) struct AiprefGroups {
    /// The group of each user-agent line (by index).
    pub(crate) of_user_agent: Vec<usize>,
    /// Per group: some user-agent line of it is `*`.
    pub(crate) global: Vec<bool>,
}

impl<'a> RobotsTxt<'a> {
    /// Parses a whole body, exactly as Google's library does (no size
    /// limit).
    pub fn parse(body: &'a [u8]) -> RobotsTxt<'a> {
        RobotsTxt::parse_with_limit(body, usize::MAX)
    }

    /// Parses at most the first `max_bytes` bytes, as Google's crawler does
    /// with [`GOOGLE_MAX_BYTES`]; a line cut by the limit is parsed as it
    /// stands.
    pub fn parse_with_limit(body: &'a [u8], max_bytes: usize) -> RobotsTxt<'a> {
        let parsed = &body[..body.len().min(max_bytes)];
        let mut robots = RobotsTxt::empty(parsed, body.len() - parsed.len());
        // An allow or disallow line came after the last user-agent line:
        // the next user-agent line starts a new group.
        let mut rule_seen = true;
        let mut in_cloudflare_block = false;
        for line in Lines::new(parsed) {
            robots.count(&line);
            if line.metadata.is_comment {
                match cloudflare_marker(line.raw) {
                    Some(true) => {
                        robots.stats.cloudflare_blocks += 1;
                        in_cloudflare_block = true;
                    }
                    Some(false) => in_cloudflare_block = false,
                    None => {}
                }
            }
            let Some(key) = line.key else { continue };
            let group = robots.groups.len().checked_sub(1);
            match key {
                Key::UserAgent => {
                    if rule_seen {
                        robots.start_group();
                        rule_seen = false;
                    }
                    robots.push_user_agent(&line);
                }
                Key::Allow | Key::Disallow => {
                    robots.push_rule(&line, key, group);
                    rule_seen |= group.is_some();
                }
                Key::Sitemap => robots.sitemaps.push(Sitemap {
                    line: line.number,
                    key: line.key_text,
                    url: line.value,
                    typo: line.metadata.is_acceptable_typo,
                }),
                Key::Unknown => robots.push_unknown(&line, group, in_cloudflare_block),
            }
        }
        robots.stats.preference_lines = robots.preferences.len() as u32;
        if !robots.preferences.is_empty() {
            robots.group_as_aipref();
        }
        robots
    }

    /// Nothing parsed yet of `parsed`, the body up to the limit
    /// (`bytes_ignored` past it).
    fn empty(parsed: &'a [u8], bytes_ignored: usize) -> RobotsTxt<'a> {
        // Rules are most of a file's lines: room for one per line up front,
        // so that the vector is not regrown (and copied) as it fills (1 %
        // of ingest's instructions went to that, BENCHMARKS.md).
        let lines = memchr::memchr_iter(b'\n', parsed).count() + 1;
        RobotsTxt {
            body: parsed,
            groups: Vec::new(),
            user_agents: Vec::new(),
            rules: Vec::with_capacity(lines),
            sitemaps: Vec::new(),
            directives: Vec::new(),
            preferences: Vec::new(),
            aipref_groups: AiprefGroups::default(),
            stats: Stats {
                bytes: parsed.len(),
                bytes_ignored,
                bom: super::lex::bom_len(parsed) > 0,
                ..Stats::default()
            },
        }
    }

    /// A new group, starting at the next user-agent line and rule.
    #[inline]
    fn start_group(&mut self) {
        self.groups.push(Group {
            user_agents: self.user_agents.len()..self.user_agents.len(),
            rules: self.rules.len()..self.rules.len(),
            global: false,
        });
    }

    /// A user-agent line, in the last group (there is one: a user-agent
    /// line after no rule still starts the first).
    #[inline]
    fn push_user_agent(&mut self, line: &Line<'a>) {
        let index = self.groups.len() - 1;
        let global = is_global_agent(line.value);
        self.user_agents.push(UserAgent {
            line: line.number,
            group: index,
            key: line.key_text,
            value: line.value,
            product: if global {
                &[]
            } else {
                product_token(line.value)
            },
            global,
            typo: line.metadata.is_acceptable_typo,
        });
        let g = &mut self.groups[index];
        g.user_agents.end = self.user_agents.len();
        g.global |= global;
    }

    /// An allow or disallow line (`key`), in `group` if any.
    #[inline]
    fn push_rule(&mut self, line: &Line<'a>, key: Key, group: Option<usize>) {
        let kind = if key == Key::Allow {
            RuleKind::Allow
        } else {
            RuleKind::Disallow
        };
        let pattern = escape_pattern(line.value);
        let index_dir_len = match kind {
            RuleKind::Allow => index_dir_len(&pattern),
            RuleKind::Disallow => None,
        };
        self.rules.push(Rule {
            line: line.number,
            group,
            kind,
            key: line.key_text,
            value: line.value,
            pattern,
            typo: line.metadata.is_acceptable_typo,
            index_dir_len,
        });
        if let Some(g) = group {
            self.groups[g].rules.end = self.rules.len();
        }
    }

    /// A line with a key Google does not use, in `group` if any: a
    /// directive, and a preference line too when it is one.
    #[inline]
    fn push_unknown(&mut self, line: &Line<'a>, group: Option<usize>, in_cloudflare_block: bool) {
        let known = known_elsewhere(line.key_text);
        if let Some(directive) = known.and_then(|k| PreferenceDirective::of_key(k.as_bytes())) {
            let mut s = Statement::new(line.number, directive, line.key_text, line.value);
            s.google_group = group;
            s.in_cloudflare_block = in_cloudflare_block;
            self.preferences.push(s);
        }
        self.directives.push(Directive {
            line: line.number,
            group,
            key: line.key_text,
            value: line.value,
            known,
        });
    }

    /// AIPREF's grouping: Google's, except that a `Content-Usage` line
    /// (a rule in AIPREF's grammar) also makes the next user-agent line
    /// start a new group. Walks the user-agent, rule and preference lines
    /// in line order; only for files with preference lines.
    fn group_as_aipref(&mut self) {
        enum Event {
            UserAgent(usize),
            Rule,
            Preference(usize),
        }
        let mut events: Vec<(u32, Event)> =
            Vec::with_capacity(self.user_agents.len() + self.rules.len() + self.preferences.len());
        events.extend(
            self.user_agents
                .iter()
                .enumerate()
                .map(|(i, u)| (u.line, Event::UserAgent(i))),
        );
        events.extend(self.rules.iter().map(|r| (r.line, Event::Rule)));
        events.extend(
            self.preferences
                .iter()
                .enumerate()
                .map(|(i, p)| (p.line, Event::Preference(i))),
        );
        events.sort_by_key(|(line, _)| *line);
        let groups = &mut self.aipref_groups;
        groups.of_user_agent = vec![0; self.user_agents.len()];
        let mut rule_seen = true;
        for (_, event) in events {
            let current = groups.global.len().checked_sub(1);
            match event {
                Event::UserAgent(i) => {
                    if rule_seen {
                        groups.global.push(false);
                        rule_seen = false;
                    }
                    let g = groups.global.len() - 1;
                    groups.of_user_agent[i] = g;
                    groups.global[g] |= self.user_agents[i].global;
                }
                Event::Rule => rule_seen |= current.is_some(),
                Event::Preference(i) => {
                    let p = &mut self.preferences[i];
                    p.aipref_group = current;
                    if p.directive == PreferenceDirective::ContentUsage {
                        rule_seen |= current.is_some();
                    }
                }
            }
        }
    }

    fn count(&mut self, line: &Line<'_>) {
        let s = &mut self.stats;
        let m = &line.metadata;
        s.lines = line.number;
        s.empty_lines += u32::from(m.is_empty);
        s.comment_lines += u32::from(m.is_comment);
        s.lines_with_comment += u32::from(m.has_comment);
        s.typos += u32::from(m.is_acceptable_typo);
        s.missing_colon += u32::from(m.is_missing_colon_separator);
        s.too_long += u32::from(m.is_line_too_long);
        let Some(key) = line.key else {
            s.invalid_lines += u32::from(!m.is_empty && !m.is_comment);
            return;
        };
        match key {
            Key::UserAgent => s.user_agents += 1,
            Key::Allow | Key::Disallow => {
                if key == Key::Allow {
                    s.allows += 1;
                } else {
                    s.disallows += 1;
                }
                s.empty_rules += u32::from(line.value.is_empty());
                s.rules_outside_group += u32::from(self.groups.is_empty());
            }
            Key::Sitemap => s.sitemaps += 1,
            Key::Unknown => {
                s.unknown += 1;
                s.known_elsewhere += u32::from(known_elsewhere(line.key_text).is_some());
            }
        }
    }

    /// The bytes that were parsed (the body, cut at the limit if any).
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Every line of the parsed bytes, with Google's flags, walked again
    /// from the body (nothing is stored per line, nothing allocated).
    pub fn lines(&self) -> Lines<'a> {
        Lines::new(self.body)
    }

    /// The groups, in file order.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// Every user-agent line, in file order.
    pub fn user_agents(&self) -> &[UserAgent<'a>] {
        &self.user_agents
    }

    /// Every allow and disallow line, in file order, the ones outside any
    /// group included.
    pub fn rules(&self) -> &[Rule<'a>] {
        &self.rules
    }

    /// Every sitemap line, in file order.
    pub fn sitemaps(&self) -> &[Sitemap<'a>] {
        &self.sitemaps
    }

    /// Every line with a key Google does not use, in file order.
    pub fn directives(&self) -> &[Directive<'a>] {
        &self.directives
    }

    /// The group of the `i`-th user-agent line under AIPREF's grouping,
    /// where a `Content-Usage` line ends a run of user-agent lines (its
    /// group under Google's grouping in a file without preference lines).
    pub fn aipref_group_of_user_agent(&self, i: usize) -> usize {
        self.aipref_groups
            .of_user_agent
            .get(i)
            .copied()
            .unwrap_or(self.user_agents[i].group)
    }

    /// Every `Content-Signal` and `Content-Usage` line, in file order
    /// (each is also in [`RobotsTxt::directives`]).
    pub fn preferences(&self) -> &[Statement<'a>] {
        &self.preferences
    }

    /// Per-file counts.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
}

/// Whether a comment line marks the start (`Some(true)`) or the end
/// (`Some(false)`) of a Cloudflare-managed block: `# BEGIN Cloudflare
/// Managed content` and `# END Cloudflare Managed Content`, in any case,
/// with any whitespace before and after the words. What the
/// `cloudflare_blocks` count and the `cloudflare-managed` template read.
pub fn cloudflare_marker(raw: &[u8]) -> Option<bool> {
    const BEGIN: &[u8] = b"begin cloudflare managed content";
    const END: &[u8] = b"end cloudflare managed content";
    let text = raw.trim_ascii_start().strip_prefix(b"#")?.trim_ascii();
    if text.len() == BEGIN.len() && text.eq_ignore_ascii_case(BEGIN) {
        Some(true)
    } else if text.len() == END.len() && text.eq_ignore_ascii_case(END) {
        Some(false)
    } else {
        None
    }
}

/// Google's `index.htm` rule: an allow pattern whose last `/`-segment
/// starts with `index.htm` also allows its directory, as `<dir>/$`.
fn index_dir_len(pattern: &[u8]) -> Option<usize> {
    let slash = memchr::memrchr(b'/', pattern)?;
    pattern[slash..]
        .starts_with(b"/index.htm")
        .then_some(slash + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_end_only_at_a_user_agent_after_a_rule() {
        let r = RobotsTxt::parse(
            b"allow: /orphan\nuser-agent: a\nsitemap: /s\nuser-agent: b\nfoo: bar\n\
              disallow: /\nuser-agent: c\nallow: /x\n",
        );
        assert_eq!(r.groups().len(), 2);
        assert_eq!(r.groups()[0].user_agents, 0..2);
        assert_eq!(r.groups()[0].rules, 1..2);
        assert_eq!(r.rules()[0].group, None);
        assert_eq!(r.stats().rules_outside_group, 1);
        assert_eq!(r.directives()[0].group, Some(0));
    }

    #[test]
    fn limit_cuts_the_body() {
        let r = RobotsTxt::parse_with_limit(b"user-agent: *\ndisallow: /abc\n", 26);
        assert_eq!(r.rules()[0].pattern.as_ref(), b"/a");
        assert_eq!(r.stats().bytes_ignored, 3);
    }

    #[test]
    fn index_htm_directory() {
        assert_eq!(index_dir_len(b"/d/index.html"), Some(3));
        assert_eq!(index_dir_len(b"/index.htm"), Some(1));
        assert_eq!(index_dir_len(b"/d/xindex.html"), None);
    }

    #[test]
    fn known_elsewhere_is_exact_and_case_insensitive() {
        assert_eq!(known_elsewhere(b"Crawl-Delay"), Some("crawl-delay"));
        assert_eq!(known_elsewhere(b"crawl-delays"), None);
    }
}
