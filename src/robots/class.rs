//! An agent's rules -> one word: may it fetch everything, nothing, or
//! part of the site?
//!
//! The studies this tool serves classify an agent's ruleset as
//! `disallow-all`, `allow-all` or `allow-part`, mostly by its syntax (Common
//! Crawl's robotstxt-experiments: exactly `Disallow: /` is disallow-all;
//! `Allow: /`, `*`, `/*`, an empty allow or an empty disallow are
//! allow-all). robostats decides by Google's verdicts instead, so that
//! `Disallow: /` plus `Disallow: /cgi-bin` is still disallow-all and
//! `Allow: /` plus `Disallow: /` (a tie, won by allow) is allow-all. Paths
//! are infinite, so the verdict is taken on witness paths: `/`, `/x`, and
//! for every rule the shortest path it matches (its pattern without `*`
//! and `$`) and that path extended by one byte. A path any rule can treat
//! differently from `/` and `/x` is among them, except for contrived
//! rule sets (an allow that beats a disallow only on paths longer than the
//! disallow's witness plus one byte).

use super::agent::{AgentRules, best_priority};
use super::parse::{Rule, RuleKind};
use super::pattern::matches;

crate::table::labels! {
    /// What an agent may fetch, from the rules alone.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum RulesClass {
        /// No path may be fetched.
        DisallowAll = "disallow_all",
        /// Every path may be fetched (no rules, only empty rules, or
        /// disallows that allows always beat).
        AllowAll = "allow_all",
        /// Some paths may be fetched, some not.
        AllowPart = "allow_part",
    }
}

/// The shortest path a pattern matches, if it can match any path (paths
/// start with `/`; a pattern starting with anything but `/` or `*` never
/// matches).
fn witness(pattern: &[u8], buf: &mut Vec<u8>) -> bool {
    buf.clear();
    match pattern.first() {
        Some(b'/') => {}
        Some(b'*') => buf.push(b'/'),
        _ => return false,
    }
    let body = match pattern.split_last() {
        Some((b'$', rest)) => rest,
        _ => pattern,
    };
    buf.extend(body.iter().filter(|&&b| b != b'*'));
    true
}

impl AgentRules<'_, '_> {
    /// Whether `/` may be fetched.
    pub fn root_allowed(&self) -> bool {
        self.decide_path(b"/").allowed
    }

    /// Google's verdicts on witness paths, summed up (see the module
    /// documentation).
    pub fn class(&self) -> RulesClass {
        let mut allowed_any = false;
        let mut disallowed_any = false;
        let mut see = |allowed: bool| {
            allowed_any |= allowed;
            disallowed_any |= !allowed;
            allowed_any && disallowed_any
        };
        for path in [&b"/"[..], b"/x"] {
            if see(self.decide_path(path).allowed) {
                return RulesClass::AllowPart;
            }
        }
        let (mut allows, mut disallows) = (Vec::new(), Vec::new());
        for (_, rule) in self.rules() {
            match rule.kind {
                RuleKind::Allow => allows.push(rule),
                RuleKind::Disallow => disallows.push(rule),
            }
        }
        // Disallows first: in most files the first one already shows a
        // disallowed path, and `/` an allowed one.
        let mut buf = Vec::new();
        for rule in disallows.iter().chain(&allows) {
            if rule.is_empty() || !witness(&rule.pattern, &mut buf) {
                continue;
            }
            if see(self.witness_allowed(&buf, rule, &allows, &disallows)) {
                return RulesClass::AllowPart;
            }
            buf.push(b'x');
            if see(self.witness_allowed(&buf, rule, &allows, &disallows)) {
                return RulesClass::AllowPart;
            }
        }
        if !disallowed_any {
            RulesClass::AllowAll
        } else {
            RulesClass::DisallowAll
        }
    }

    /// Whether a witness path of `rule` is allowed: `decide_path`'s answer,
    /// found faster. A disallow of priority `p` that matches the path makes
    /// it disallowed unless an allow reaches `p`, whatever other disallows
    /// match; an allow of priority `p` makes it allowed unless a disallow
    /// passes `p`. So only the rules of the other kind are checked, and a
    /// file of 16,000 disallows and no allow takes 32,000 matches, not
    /// 500 million (a generated file like that took 6 s).
    fn witness_allowed(
        &self,
        path: &[u8],
        rule: &Rule<'_>,
        allows: &[&Rule<'_>],
        disallows: &[&Rule<'_>],
    ) -> bool {
        if matches(path, &rule.pattern) {
            let p = rule.priority() as isize;
            match rule.kind {
                RuleKind::Disallow if best_priority(allows, path) < p => return false,
                RuleKind::Allow if best_priority(disallows, path) <= p => return true,
                _ => {}
            }
        }
        self.decide_path(path).allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::RobotsTxt;

    fn class(body: &str) -> RulesClass {
        RobotsTxt::parse(body.as_bytes()).agent("FooBot").class()
    }

    #[test]
    fn an_allow_beaten_by_a_longer_disallow_allows_nothing() {
        // The allow's own path `/a` is disallowed by `/a*` (3 bytes against
        // 2): no witness is allowed.
        assert_eq!(
            class("user-agent: *\ndisallow: /\nallow: /a\ndisallow: /a*\n"),
            RulesClass::DisallowAll
        );
        // A tie goes to allow.
        assert_eq!(
            class("user-agent: *\ndisallow: /\nallow: /ab\ndisallow: /a*\n"),
            RulesClass::AllowPart
        );
    }

    #[test]
    fn common_crawl_definitions_agree() {
        assert_eq!(
            class("user-agent: *\ndisallow: /\n"),
            RulesClass::DisallowAll
        );
        for allow_all in [
            "",
            "user-agent: *\nallow: /\n",
            "user-agent: *\nallow: *\n",
            "user-agent: *\nallow: /*\n",
            "user-agent: *\nallow:\n",
            "user-agent: *\ndisallow:\n",
        ] {
            assert_eq!(class(allow_all), RulesClass::AllowAll, "{allow_all:?}");
        }
        assert_eq!(
            class("user-agent: *\ndisallow: /private\n"),
            RulesClass::AllowPart
        );
    }

    #[test]
    fn google_semantics_beyond_syntax() {
        // Allow wins the tie everywhere.
        assert_eq!(
            class("user-agent: *\nallow: /\ndisallow: /\n"),
            RulesClass::AllowAll
        );
        // More disallows are still everything.
        let all = "user-agent: *\ndisallow: /\ndisallow: /cgi-bin\ndisallow: *\n";
        assert_eq!(class(all), RulesClass::DisallowAll);
        // An allow that never wins, and one that can never match.
        let never = "user-agent: *\ndisallow: /*\nallow: /\nallow: foo\n";
        assert_eq!(class(never), RulesClass::DisallowAll);
        // Only the home page.
        let home = "user-agent: *\ndisallow: /\nallow: /$\n";
        assert_eq!(class(home), RulesClass::AllowPart);
        // Only the home page is disallowed.
        assert_eq!(
            class("user-agent: *\ndisallow: /$\n"),
            RulesClass::AllowPart
        );
        // A disallow that can never match.
        assert_eq!(
            class("user-agent: *\ndisallow: private\n"),
            RulesClass::AllowAll
        );
        // An allow longer than the disallow, so /ab is disallowed.
        let longer = "user-agent: *\nallow: /a$\ndisallow: /a\n";
        assert_eq!(class(longer), RulesClass::AllowPart);
    }

    #[test]
    fn the_specific_group_decides() {
        let body = "user-agent: *\ndisallow: /\n\nuser-agent: FooBot\ndisallow:\n";
        assert_eq!(class(body), RulesClass::AllowAll);
        let r = RobotsTxt::parse(body.as_bytes());
        assert_eq!(r.unnamed_agent().class(), RulesClass::DisallowAll);
        assert!(!r.unnamed_agent().root_allowed());
    }
}
