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
//! and a final `$`) and that path extended by one byte. A path any rule can
//! treat differently from `/` and `/x` is among them, except for contrived
//! rule sets: an allow that beats a disallow only on paths longer than the
//! disallow's witness plus one byte, or the directory `/d/` that Google's
//! `index.htm` rule allows for `Allow: /d/index.htm` where a disallow beats
//! that allow on its own path.
//!
//! The witnesses are about twice as many as the rules, so deciding each
//! one against every rule would be quadratic (a generated file of 16,000
//! disallows and `Disallow: /` took 6 s). Each witness is decided from
//! what is already known instead (see [`Sides::allowed`]): usually the
//! rules of one kind are enough.

use super::agent::{AgentRules, best_priority};
use super::parse::{Rule, RuleKind};
use super::pattern::matches;

labels! {
    /// What an agent may fetch, from the rules alone.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
        self.class_and_root().0
    }

    /// [`class`](Self::class) and [`root_allowed`](Self::root_allowed)
    /// together, `/` decided once for both (it is the first witness).
    pub fn class_and_root(&self) -> (RulesClass, bool) {
        let root = self.root_allowed();
        (self.class_given_root(root), root)
    }

    /// The class, `/`'s verdict being `root`.
    fn class_given_root(&self, root: bool) -> RulesClass {
        let mut allowed_any = false;
        let mut disallowed_any = false;
        let mut see = |allowed: bool| {
            allowed_any |= allowed;
            disallowed_any |= !allowed;
            allowed_any && disallowed_any
        };
        if see(root) || see(self.decide_path(b"/x").allowed) {
            return RulesClass::AllowPart;
        }
        let sides = Sides::of(self);
        // Disallows first: in most files the first one already shows a
        // disallowed path, and `/` an allowed one.
        let mut buf = Vec::with_capacity(64);
        for rule in sides.disallows.iter().chain(&sides.allows) {
            if rule.is_empty() || !witness(&rule.pattern, &mut buf) {
                continue;
            }
            if see(sides.allowed(&buf, rule)) {
                return RulesClass::AllowPart;
            }
            buf.push(b'x');
            if see(sides.allowed(&buf, rule)) {
                return RulesClass::AllowPart;
            }
        }
        if !disallowed_any {
            RulesClass::AllowAll
        } else {
            RulesClass::DisallowAll
        }
    }
}

/// An agent's rules split by kind, with the priority of the longest rule
/// of each kind that matches every path.
struct Sides<'x, 'a> {
    allows: Vec<&'x Rule<'a>>,
    disallows: Vec<&'x Rule<'a>>,
    any_path_allow: isize,
    any_path_disallow: isize,
}

impl<'x, 'a> Sides<'x, 'a> {
    fn of(rules: &AgentRules<'x, 'a>) -> Sides<'x, 'a> {
        let n = rules.rules().count();
        let mut sides = Sides {
            allows: Vec::with_capacity(n),
            disallows: Vec::with_capacity(n),
            any_path_allow: -1,
            any_path_disallow: -1,
        };
        for (_, rule) in rules.rules() {
            let any_path = matches_any_path(&rule.pattern).then_some(rule.priority() as isize);
            match rule.kind {
                RuleKind::Allow => {
                    sides.allows.push(rule);
                    sides.any_path_allow = sides.any_path_allow.max(any_path.unwrap_or(-1));
                }
                RuleKind::Disallow => {
                    sides.disallows.push(rule);
                    sides.any_path_disallow = sides.any_path_disallow.max(any_path.unwrap_or(-1));
                }
            }
        }
        sides
    }

    /// Whether a witness path of `rule` is allowed: `decide_path`'s answer,
    /// found from lower bounds where they suffice. Google disallows when
    /// the longest matching disallow `d` is longer than the longest
    /// matching allow `a` and than 0. The rule itself, if it matches, and
    /// the rules that match every path bound `d` or `a` from below: a known
    /// `d > 0` needs only `a` to be computed (disallowed if `d > a`), and
    /// otherwise `d` is computed and compared with the known part of `a`.
    /// So a file of 16,000 disallows with `Disallow: /` and no allow takes
    /// 32,000 matches, not 500 million.
    fn allowed(&self, path: &[u8], rule: &Rule<'_>) -> bool {
        let own = if matches(path, &rule.pattern) {
            rule.priority() as isize
        } else {
            -1
        };
        let (mut allow_at_least, mut disallow_at_least) =
            (self.any_path_allow, self.any_path_disallow);
        match rule.kind {
            RuleKind::Allow => allow_at_least = allow_at_least.max(own),
            RuleKind::Disallow => disallow_at_least = disallow_at_least.max(own),
        }
        if disallow_at_least > 0 {
            let a = best_priority(&self.allows, path).max(0);
            if disallow_at_least > a {
                return false;
            }
            return best_priority(&self.disallows, path) <= a;
        }
        let d = best_priority(&self.disallows, path);
        if d <= allow_at_least.max(0) {
            return true;
        }
        d <= best_priority(&self.allows, path).max(0)
    }
}

/// Whether a (%-escaped) pattern matches every path: `/` or `*` and then
/// only `*` (a final `$` is no limit after a `*`).
fn matches_any_path(pattern: &[u8]) -> bool {
    let body = match pattern.strip_suffix(b"$") {
        Some(body) if body.ends_with(b"*") => body,
        Some(_) => return false,
        None => pattern,
    };
    match body.split_first() {
        Some((b'/' | b'*', rest)) => rest.iter().all(|&b| b == b'*'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RobotsTxt;

    fn class(body: &str) -> RulesClass {
        RobotsTxt::parse(body.as_bytes()).agent("FooBot").class()
    }

    #[test]
    fn patterns_that_match_every_path() {
        for any in ["/", "*", "/*", "/**", "*$", "/*$", "**"] {
            assert!(matches_any_path(any.as_bytes()), "{any}");
        }
        for not_any in ["", "$", "/$", "/a", "/*a", "a*", "*a", "/*/"] {
            assert!(!matches_any_path(not_any.as_bytes()), "{not_any}");
        }
    }

    #[test]
    fn an_allow_beaten_by_a_longer_disallow_allows_nothing() {
        // The allow's own path `/a` is disallowed by `/a*` (3 bytes against
        // 2): no witness is allowed.
        assert_eq!(
            class("user-agent: *\ndisallow: /\nallow: /a\ndisallow: /a*\n"),
            RulesClass::DisallowAll
        );
        // The same with no disallow that matches every path.
        assert_eq!(
            class("user-agent: *\ndisallow: /$\ndisallow: /x\nallow: /a\ndisallow: /a*\n"),
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
