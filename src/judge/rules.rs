//! A body's stored lines -> the text Google's parser reads as the original
//! body, and the verdicts of one URL against it.
//!
//! A data set keeps no body, but it keeps every line Google's matcher and
//! the AI-use preferences read: user-agent lines (`body_user_agents`),
//! allow and disallow lines (`body_rules`) and Content-Signal and
//! Content-Usage lines (`body_preference_statements`), each with its line
//! number. Google's grouping depends on those lines alone, in their order
//! (a sitemap, an unknown key or a comment never ends a run of user-agent
//! lines), so writing each at its own line number, and nothing else,
//! gives a text that parses to the same groups, rules and preferences, on
//! the same line numbers, as the original body (docs/judge.md says why
//! this, and not the bodies, and how it was checked).
//!
//! - a user-agent line is written as `*` when global, as its product token
//!   (what Google compares) otherwise, or as `0` when it has none;
//! - an allow or disallow line as its pattern (already %-escaped, which
//!   escaping leaves as it is); the rules before any user-agent line,
//!   which Google ignores, are not stored as rules of a group;
//! - a preference line as its path and dictionary as written.

use crate::classify::agents::policy_rules;
use crate::classify::crawler::Policy;
use crate::robots::{AgentRules, IndexedRules, MAX_LINE_BYTES, PreferenceValue, RobotsTxt};

robostats_robots::labels! {
    /// What a stored line is.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum LineKind {
        /// `user-agent`.
        UserAgent = "user-agent",
        /// `allow`.
        Allow = "allow",
        /// `disallow`.
        Disallow = "disallow",
        /// `content-signal`.
        ContentSignal = "content-signal",
        /// `content-usage`.
        ContentUsage = "content-usage",
    }
}

/// Builds a body's text from its stored lines, in line order.
#[derive(Debug, Default)]
pub struct Rebuilt {
    text: Vec<u8>,
    next_line: u32,
}

impl Rebuilt {
    /// A new, empty text.
    pub fn new() -> Rebuilt {
        Rebuilt {
            text: Vec::new(),
            next_line: 1,
        }
    }

    /// Writes `value` as a `kind` line numbered `line` (blank lines before
    /// it keep the numbering). Lines come in increasing order; a second
    /// line of one number (not stored by ingest) is dropped.
    pub fn push(&mut self, line: u32, kind: LineKind, value: &str) {
        if line < self.next_line {
            return;
        }
        let blank = (line - self.next_line) as usize;
        self.text.resize(self.text.len() + blank, b'\n');
        let start = self.text.len();
        self.text.extend_from_slice(kind.as_str().as_bytes());
        self.text.extend_from_slice(b": ");
        // A value never holds a line end; were one stored, it would not
        // start a line of its own.
        self.text.extend(
            value
                .bytes()
                .map(|b| if b == b'\n' || b == b'\r' { b' ' } else { b }),
        );
        if self.text.len() - start > MAX_LINE_BYTES {
            // Google keeps 16,663 bytes of a line, and a stored pattern is
            // %-escaped (a byte of 0x80 or more is 3 bytes): written back as
            // it stands, a long rule would be cut a second time. The
            // original line's form fits: its raw bytes, the shortest key.
            self.text.truncate(start);
            self.push_compact(kind, value);
        }
        self.text.push(b'\n');
        self.next_line = line + 1;
    }

    /// A line as short as its original was: no space after the colon, the
    /// shortest key Google reads as its kind, and in a rule the escapes of
    /// bytes of 0x80 or more turned back into those bytes (which the parse
    /// escapes again, to the same pattern).
    fn push_compact(&mut self, kind: LineKind, value: &str) {
        let key: &[u8] = match kind {
            LineKind::Disallow => b"disalow",
            other => other.as_str().as_bytes(),
        };
        self.text.extend_from_slice(key);
        self.text.push(b':');
        let bytes = value.as_bytes();
        let rule = matches!(kind, LineKind::Allow | LineKind::Disallow);
        let mut i = 0;
        while i < bytes.len() {
            let escaped = (rule && bytes[i] == b'%' && i + 2 < bytes.len())
                .then(|| std::str::from_utf8(&bytes[i + 1..i + 3]).ok())
                .flatten()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .filter(|&b| b >= 0x80);
            match escaped {
                Some(b) => {
                    self.text.push(b);
                    i += 3;
                }
                None => {
                    let b = bytes[i];
                    self.text
                        .push(if b == b'\n' || b == b'\r' { b' ' } else { b });
                    i += 1;
                }
            }
        }
    }

    /// The text.
    pub fn finish(self) -> Vec<u8> {
        self.text
    }
}

/// What one URL gets from one body: each agent's verdict and deciding
/// rule, and the preferences at the URL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BodyVerdict {
    /// Bit `i`: agent `i` may fetch the URL.
    pub allowed: u64,
    /// Per agent, when asked: the deciding rule's line and text
    /// (`disallow: /private/`), `None` when no rule matched.
    pub rules: Vec<Option<(u32, String)>>,
    /// Content-Usage `train-ai` at the URL for a crawler no group names.
    pub usage_train_ai: Option<PreferenceValue>,
    /// Content-Signal `ai-train` that applies to a crawler no group names.
    pub signal_ai_train: Option<PreferenceValue>,
    /// Bit `i`: the lines that apply to agent `i` at the URL say no to AI
    /// training (Content-Usage `train-ai=n` or Content-Signal `ai-train=no`).
    pub says_no: u64,
}

/// The agents' rules in one body, found once.
#[derive(Debug)]
pub struct BodyRules<'r, 'a> {
    robots: &'r RobotsTxt<'a>,
    /// The distinct rules of the agents by the policy (most agents of a
    /// file obey its `*` group alike: each set is matched once per URL),
    /// indexed, each with the agents (bits) that obey it.
    agents: Vec<(IndexedRules<'r, 'a>, u64)>,
    /// Which of `agents` each agent obeys.
    of_agent: Vec<usize>,
    /// Where each agent's preferences are read (its policy's groups).
    preferences: Vec<AgentRules<'r, 'a>>,
    /// A crawler no group names.
    anyone: AgentRules<'r, 'a>,
}

impl<'r, 'a> BodyRules<'r, 'a> {
    /// The rules of `agents` (product tokens, or `*`) in `robots`, by
    /// `policy`.
    pub fn new(robots: &'r RobotsTxt<'a>, agents: &[String], policy: Policy) -> Self {
        let rules: Vec<AgentRules<'r, 'a>> =
            agents.iter().map(|a| policy.rules(robots, a)).collect();
        assert!(agents.len() <= 64, "at most 64 agents (bits of a u64)");
        let preferences = agents
            .iter()
            .zip(&rules)
            .map(|(a, r)| match policy {
                Policy::Google => policy_rules(robots, a).unwrap_or_else(|| r.clone()),
                Policy::Library => r.clone(),
            })
            .collect();
        let mut distinct: Vec<(AgentRules<'r, 'a>, u64)> = Vec::new();
        let mut of_agent = Vec::with_capacity(rules.len());
        for (i, r) in rules.into_iter().enumerate() {
            let same = distinct
                .iter()
                .position(|(d, _)| d.groups() == r.groups() && d.group_match() == r.group_match());
            let at = same.unwrap_or_else(|| {
                distinct.push((r, 0));
                distinct.len() - 1
            });
            distinct[at].1 |= 1 << i;
            of_agent.push(at);
        }
        BodyRules {
            robots,
            agents: distinct.into_iter().map(|(r, a)| (r.index(), a)).collect(),
            of_agent,
            preferences,
            anyone: robots.unnamed_agent(),
        }
    }

    /// The verdicts for `url` (used as given: Google does not normalise
    /// it); with `explain`, the deciding rules too; `says_no` for the
    /// agents of the mask `training` only.
    pub fn judge(&self, url: &str, explain: bool, training: u64) -> BodyVerdict {
        let mut out = BodyVerdict::default();
        let path = crate::robots::path_params_query(url.as_bytes()).to_bytes();
        let mut deciding = Vec::new();
        for (rules, agents) in &self.agents {
            let decision = rules.decide_path(&path);
            if decision.allowed {
                out.allowed |= agents;
            }
            if explain {
                deciding.push(decision.rule.map(|r| {
                    let rule = &self.robots.rules()[r];
                    let pattern = String::from_utf8_lossy(&rule.pattern);
                    (rule.line, format!("{}: {pattern}", rule.kind.as_str()))
                }));
            }
        }
        if explain {
            out.rules = self.of_agent.iter().map(|&d| deciding[d].clone()).collect();
        }
        if self.robots.preferences().is_empty() {
            return out;
        }
        for (i, scope) in self.preferences.iter().enumerate() {
            if training >> i & 1 == 0 {
                continue;
            }
            let p = scope.stated_preferences(&path);
            if p.usage("train-ai") == PreferenceValue::No
                || p.signal("ai-train") == PreferenceValue::No
            {
                out.says_no |= 1 << i;
            }
        }
        let p = self.anyone.stated_preferences(&path);
        out.usage_train_ai = p.usage_line().map(|_| p.usage("train-ai"));
        out.signal_ai_train = p.signal_line().map(|_| p.signal("ai-train"));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_numbers() {
        let mut text = Rebuilt::new();
        text.push(2, LineKind::UserAgent, "GPTBot");
        text.push(3, LineKind::Disallow, "/a");
        text.push(3, LineKind::Allow, "/dropped");
        text.push(6, LineKind::ContentUsage, "/x train-ai=n");
        let text = text.finish();
        assert_eq!(
            text,
            b"\nuser-agent: GPTBot\ndisallow: /a\n\n\ncontent-usage: /x train-ai=n\n"
        );
        let robots = RobotsTxt::parse(&text);
        assert_eq!(robots.rules()[0].line, 3);
        assert_eq!(robots.preferences()[0].line, 6);
    }

    #[test]
    fn a_long_escaped_rule_is_not_cut_a_second_time() {
        // 16,657 bytes of line: within Google's 16,663; escaped, the pattern
        // alone is 18,003 bytes.
        let body = format!(
            "User-agent: *\nDisallow:/{}$\n",
            "中".repeat(2000) + &"a".repeat(10_643)
        );
        let original = RobotsTxt::parse(body.as_bytes());
        let pattern = String::from_utf8(original.rules()[0].pattern.to_vec()).unwrap();
        assert!(pattern.ends_with('$') && pattern.len() > MAX_LINE_BYTES);
        let mut text = Rebuilt::new();
        text.push(1, LineKind::UserAgent, "*");
        text.push(2, LineKind::Disallow, &pattern);
        let rebuilt = text.finish();
        let again = RobotsTxt::parse(&rebuilt);
        assert_eq!(again.rules()[0].pattern, original.rules()[0].pattern);
        assert_eq!(again.rules()[0].kind, original.rules()[0].kind);
    }

    #[test]
    fn verdicts_and_preferences() {
        let body = b"User-agent: *\nDisallow: /private/\nContent-Usage: train-ai=n\n\
                     User-agent: GPTBot\nDisallow: /\n";
        let robots = RobotsTxt::parse(body);
        let agents = [
            "GPTBot".to_owned(),
            "AdsBot-Google".to_owned(),
            "*".to_owned(),
        ];
        let rules = BodyRules::new(&robots, &agents, Policy::Google);
        let v = rules.judge("https://example.com/private/x", true, u64::MAX);
        // GPTBot: disallowed; AdsBot ignores *: allowed; *: disallowed.
        assert_eq!(v.allowed, 0b010);
        assert_eq!(v.rules[0], Some((5, "disallow: /".to_owned())));
        assert_eq!(v.rules[1], None);
        assert_eq!(v.usage_train_ai, Some(PreferenceValue::No));
        assert_eq!(v.signal_ai_train, None);
        // The * group's train-ai=n is * 's, not GPTBot's (its own group).
        assert_eq!(v.says_no, 0b100);
        let library = BodyRules::new(&robots, &agents, Policy::Library);
        assert_eq!(library.judge("/private/x", false, 0).allowed, 0);
        assert_eq!(rules.judge("/private/x", false, 0b011).says_no, 0);
    }

    /// The lines a data set stores of `body` (what ingest writes into the
    /// body tables) that judge reads back for `agents` (captures.rs's
    /// LINES_SQL: of a file without preference lines, the rules of the
    /// groups naming one of them or `*`), rebuilt.
    fn rebuilt(body: &[u8], agents: &[String]) -> Vec<u8> {
        let robots = RobotsTxt::parse(body);
        let whole = !robots.preferences().is_empty();
        let relevant = |g: usize| {
            whole
                || robots.user_agents().iter().any(|ua| {
                    ua.group == g
                        && (ua.global
                            || agents
                                .iter()
                                .any(|a| a.as_bytes().eq_ignore_ascii_case(ua.product)))
                })
        };
        let mut lines: Vec<(u32, LineKind, String)> = Vec::new();
        for ua in robots.user_agents() {
            let text = if ua.global {
                "*".to_owned()
            } else if ua.product.is_empty() {
                "0".to_owned()
            } else {
                String::from_utf8_lossy(ua.product).into_owned()
            };
            lines.push((ua.line, LineKind::UserAgent, text));
        }
        for rule in robots
            .rules()
            .iter()
            .filter(|r| r.group.is_some_and(relevant))
        {
            let kind = match rule.kind {
                crate::robots::RuleKind::Allow => LineKind::Allow,
                crate::robots::RuleKind::Disallow => LineKind::Disallow,
            };
            lines.push((
                rule.line,
                kind,
                String::from_utf8_lossy(&rule.pattern).into_owned(),
            ));
        }
        for p in robots.preferences() {
            let dictionary = String::from_utf8_lossy(p.dictionary);
            let (kind, text) = match (p.directive, p.path) {
                (crate::robots::PreferenceDirective::ContentSignal, _) => {
                    (LineKind::ContentSignal, dictionary.into_owned())
                }
                (_, Some(path)) => {
                    let path = String::from_utf8_lossy(path);
                    (LineKind::ContentUsage, format!("{path} {dictionary}"))
                }
                (_, None) => (LineKind::ContentUsage, dictionary.into_owned()),
            };
            lines.push((p.line, kind, text));
        }
        lines.sort_by_key(|l| l.0);
        let mut text = Rebuilt::new();
        for (line, kind, value) in &lines {
            text.push(*line, *kind, value);
        }
        text.finish()
    }

    proptest::proptest! {
        /// A body and the text rebuilt from its stored lines give every
        /// crawler the same verdict, deciding line and preferences at
        /// every path: files made of the lines that change Google's
        /// grouping or not (unknown keys, sitemaps, comments, blank lines,
        /// typos, a missing colon, preference lines, rules before any
        /// user-agent), in any order.
        #[test]
        fn the_rebuilt_text_judges_as_the_body(
            lines in proptest::collection::vec(proptest::sample::select(vec![
                "User-agent: *", "User-agent: GPTBot", "user-agent: gptbot/1.0", "User-agent: AdsBot-Google",
                "useragent: CCBot", "User agent: Googlebot", "User-agent: 123bot", "User-agent: *bot",
                "Disallow: /", "Disallow: /private/", "Allow: /private/ok", "Disallow: /*.pdf$",
                "Allow: /index.html", "Disallow:", "Dissallow: /typo", "disallow /nocolon", "Allow: /$",
                "Disallow: /caf\u{e9}", "Disallow: /%7euser", "Sitemap: https://x.test/s.xml", "foo: bar",
                "# a comment", "", "Crawl-delay: 5", "Content-Signal: ai-train=no, search=yes",
                "Content-Usage: train-ai=n", "Content-Usage: /open/ train-ai=y", "content-usage: /x",
                "Content-Signal: ai-train=yes", "User-agent: Googlebot", "User-agent: AhrefsBot",
                "Disallow: /seo/",
            ]), 0..16),
            ending in proptest::sample::select(vec!["\n", "\r\n", "\r"]),
        ) {
            let body = lines.join(ending);
            let agents: Vec<String> = ["GPTBot", "AdsBot-Google", "CCBot", "bot", "*"]
                .iter().map(|s| (*s).to_owned()).collect();
            let rebuilt = rebuilt(body.as_bytes(), &agents);
            let (a, b) = (RobotsTxt::parse(body.as_bytes()), RobotsTxt::parse(&rebuilt));
            let (ra, rb) = (BodyRules::new(&a, &agents, Policy::Google), BodyRules::new(&b, &agents, Policy::Google));
            for path in ["/", "/private/x", "/private/ok", "/a.pdf", "/a.pdf?x", "/index.html", "/typo",
                         "/nocolon", "/caf%C3%A9", "/%7Euser", "/open/1", "/x", "http://h/?q"] {
                proptest::prop_assert_eq!(ra.judge(path, true, u64::MAX), rb.judge(path, true, u64::MAX), "{}", path);
            }
        }
    }
}
