//! Groups -> the verdict for one agent: Google's `RobotsMatcher`
//! (`HandleUserAgent`, `HandleAllow`, `HandleDisallow`, `disallow()`).

use super::parse::{RobotsTxt, Rule, RuleKind};
use super::pattern::{PathRef, matches, matches_parts, path_params_query};
use super::preference::{PreferenceDirective, Preferences, SignalScope, Statement, longest_match};

labels! {
    /// Which kind of group decided for an agent.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum GroupMatch {
        /// At least one group names the agent: only those groups count, the
        /// `*` group is ignored entirely.
        Specific = "specific",
        /// No group names the agent; the `*` groups apply.
        Global = "global",
        /// Neither: everything is allowed.
        None = "none",
    }
}

/// A verdict and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The URL may be fetched.
    pub allowed: bool,
    /// Which groups were consulted.
    pub group: GroupMatch,
    /// Index in [`RobotsTxt::rules`] of the deciding rule: the longest
    /// matching disallow when it wins, else the longest matching allow (or
    /// an empty disallow), else none. Among equally long matches, the first
    /// in the file, as Google reports it.
    pub rule: Option<usize>,
    /// The deciding allow matched only through Google's `index.htm` rule
    /// (`Allow: /d/index.html` allows `/d/`).
    pub via_index_htm: bool,
}

/// The rules of one agent, found once, checked against any number of URLs
/// without allocating.
#[derive(Clone, Debug)]
pub struct AgentRules<'r, 'a> {
    robots: &'r RobotsTxt<'a>,
    /// Indices of the groups that apply.
    groups: Vec<usize>,
    group: GroupMatch,
    /// The groups that apply in AIPREF's grouping (only filled when the
    /// file has preference lines).
    aipref_groups: Vec<usize>,
}

#[derive(Clone, Copy)]
struct Best {
    priority: isize,
    rule: Option<usize>,
    via_index_htm: bool,
}

impl Best {
    const NONE: Best = Best {
        priority: -1,
        rule: None,
        via_index_htm: false,
    };

    /// The rule `rule` of `priority`, if it beats this one: a longer
    /// match, or an equal one on an earlier line (Google reports the first
    /// of equally long matches; the rules may come in any order).
    fn offer(&mut self, priority: isize, rule: usize, via_index_htm: bool) {
        if priority > self.priority
            || (priority == self.priority && self.rule.is_some_and(|r| rule < r))
        {
            *self = Best {
                priority,
                rule: Some(rule),
                via_index_htm,
            };
        }
    }

    /// Google's `disallow()` on the best allow and the best disallow: only
    /// a match longer than every allow, and longer than an empty pattern,
    /// disallows; a tie goes to allow. A specific group that matches
    /// nothing allows (the `*` group was already left out in `agent`).
    fn decision(allow: Best, disallow: Best, group: GroupMatch) -> Decision {
        let disallowed = disallow.priority > allow.priority.max(0);
        let decider = if disallow.priority > allow.priority {
            disallow
        } else {
            allow
        };
        Decision {
            allowed: !disallowed,
            group,
            rule: decider.rule,
            via_index_htm: decider.via_index_htm,
        }
    }
}

impl<'a> RobotsTxt<'a> {
    /// The rules that apply to `agent`, compared with each group's product
    /// tokens as Google does: ASCII case-insensitive and whole-string, the
    /// caller's agent not cut (`FooBot/1.0` never matches; use a product
    /// token such as `FooBot`).
    pub fn agent<'r>(&'r self, agent: &str) -> AgentRules<'r, 'a> {
        self.named_agent(agent)
            .unwrap_or_else(|| self.unnamed_agent())
    }

    /// The rules of the groups that name `agent` (Google's comparison, as
    /// in [`RobotsTxt::agent`]), or `None` when no group names it: the
    /// name is looked for once.
    pub fn named_agent<'r>(&'r self, agent: &str) -> Option<AgentRules<'r, 'a>> {
        let agent = agent.as_bytes();
        let groups: Vec<usize> = (0..self.groups.len())
            .filter(|&g| {
                self.user_agents[self.groups[g].user_agents.clone()]
                    .iter()
                    .any(|ua| !ua.global && ua.product.eq_ignore_ascii_case(agent))
            })
            .collect();
        if groups.is_empty() {
            return None;
        }
        let aipref_groups =
            self.aipref_groups_of(|ua| !ua.global && ua.product.eq_ignore_ascii_case(agent));
        Some(AgentRules {
            robots: self,
            groups,
            group: GroupMatch::Specific,
            aipref_groups,
        })
    }

    /// The groups of AIPREF's grouping with a user-agent line for which
    /// `names` holds, in file order (none when the file has no preference
    /// lines).
    fn aipref_groups_of(&self, names: impl Fn(&super::parse::UserAgent<'_>) -> bool) -> Vec<usize> {
        if self.preferences().is_empty() {
            return Vec::new();
        }
        let mut out: Vec<usize> = self
            .user_agents
            .iter()
            .zip(&self.aipref_groups.of_user_agent)
            .filter(|(ua, _)| names(ua))
            .map(|(_, &g)| g)
            .collect();
        out.dedup();
        out
    }

    /// The rules of a crawler that obeys no group: it ignores the `*`
    /// group and no group names it (everything is allowed; only
    /// preferences written for the whole file apply).
    pub fn ungrouped_agent<'r>(&'r self) -> AgentRules<'r, 'a> {
        AgentRules {
            robots: self,
            groups: Vec::new(),
            group: GroupMatch::None,
            aipref_groups: Vec::new(),
        }
    }

    /// The rules of a crawler that no group names: the `*` groups (or
    /// nothing). Every agent whose [`AgentRules::group_match`] is not
    /// [`GroupMatch::Specific`] obeys exactly these.
    pub fn unnamed_agent<'r>(&'r self) -> AgentRules<'r, 'a> {
        let groups: Vec<usize> = (0..self.groups.len())
            .filter(|&g| self.groups[g].global)
            .collect();
        let group = if groups.is_empty() {
            GroupMatch::None
        } else {
            GroupMatch::Global
        };
        AgentRules {
            robots: self,
            groups,
            group,
            aipref_groups: self.aipref_groups_of(|ua| ua.global),
        }
    }

    /// Whether some group names `agent` (Google's comparison, as in
    /// [`RobotsTxt::agent`]), without building its rules.
    pub fn names_agent(&self, agent: &str) -> bool {
        self.user_agents
            .iter()
            .any(|ua| !ua.global && ua.product.eq_ignore_ascii_case(agent.as_bytes()))
    }

    /// Google's `OneAgentAllowedByRobots` on this parse. To check many
    /// URLs, keep the [`AgentRules`] of [`RobotsTxt::agent`] instead.
    pub fn allowed(&self, agent: &str, url: &str) -> bool {
        self.agent(agent).allowed(url)
    }
}

impl<'r, 'a> AgentRules<'r, 'a> {
    /// Indices in [`RobotsTxt::groups`] of the groups that apply to this
    /// agent (in Google's grouping), in file order.
    pub fn groups(&self) -> &[usize] {
        &self.groups
    }

    /// Which kind of group applies to this agent.
    pub fn group_match(&self) -> GroupMatch {
        self.group
    }

    /// The file these rules are of.
    pub(crate) fn robots(&self) -> &'r RobotsTxt<'a> {
        self.robots
    }

    /// The rules that apply, in file order.
    pub fn rules(&self) -> impl Iterator<Item = (usize, &'r Rule<'a>)> + '_ {
        let robots = self.robots;
        self.groups.iter().flat_map(move |&g| {
            let range = robots.groups[g].rules.clone();
            range.clone().zip(&robots.rules[range])
        })
    }

    /// Whether the agent may fetch `url` (an absolute URL, or a path).
    /// The URL is used as given: Google does not normalise it, so pass it
    /// %-encoded.
    pub fn allowed(&self, url: &str) -> bool {
        self.decide(url).allowed
    }

    /// The verdict for `url`, and which rule decided it.
    pub fn decide(&self, url: &str) -> Decision {
        let path = path_params_query(url.as_bytes());
        if !path.needs_slash {
            return self.decide_path(path.rest);
        }
        // Rare (`http://host?query`): Google prepends a slash. Stay off the
        // heap for any realistic length.
        let mut buf = [0u8; 2048];
        if path.rest.len() < buf.len() {
            buf[0] = b'/';
            buf[1..=path.rest.len()].copy_from_slice(path.rest);
            self.decide_path(&buf[..=path.rest.len()])
        } else {
            self.decide_path(&PathRef::to_bytes(path))
        }
    }

    /// The AI-use preferences that apply to the agent at `url` (an absolute
    /// URL, or a path), or `None` where it may not fetch it: AIPREF
    /// implies no preference for a path that cannot be crawled. See
    /// [`super::preference`] for how the lines are chosen.
    ///
    /// ```
    /// use robostats_robots::{PreferenceValue, RobotsTxt};
    /// let robots = RobotsTxt::parse(
    ///     b"User-Agent: *\nAllow: /\nDisallow: /never/\n\
    ///       Content-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n",
    /// );
    /// let bot = robots.agent("GPTBot");
    /// let at = |path| bot.preferences(path).map(|p| p.usage("train-ai"));
    /// assert_eq!(at("/test"), Some(PreferenceValue::No));
    /// assert_eq!(at("/never/test"), None);
    /// assert_eq!(at("/ai-ok/test"), Some(PreferenceValue::Yes));
    /// ```
    pub fn preferences(&self, url: &str) -> Option<Preferences<'r, 'a>> {
        let path = path_params_query(url.as_bytes()).to_bytes();
        self.preferences_path(&path)
    }

    /// [`AgentRules::preferences`] for a path as Google's
    /// `GetPathParamsQuery` returns it (starting with `/`).
    pub fn preferences_path(&self, path: &[u8]) -> Option<Preferences<'r, 'a>> {
        self.decide_path(path)
            .allowed
            .then(|| self.stated_preferences(path))
    }

    /// The preference lines the file writes for the agent at `path`,
    /// whether or not the agent may fetch it.
    pub fn stated_preferences(&self, path: &[u8]) -> Preferences<'r, 'a> {
        let all: &'r [Statement<'a>] = self.robots.preferences();
        let of = |d: PreferenceDirective| all.iter().filter(move |s| s.directive == d);
        let usage = longest_match(
            of(PreferenceDirective::ContentUsage).filter(|s| {
                s.aipref_group
                    .is_some_and(|g| self.aipref_groups.binary_search(&g).is_ok())
            }),
            path,
        );
        let signal: Vec<&'r Statement<'a>> = of(PreferenceDirective::ContentSignal)
            .filter(|s| {
                s.google_group
                    .is_some_and(|g| self.groups.binary_search(&g).is_ok())
            })
            .collect();
        let (signal, signal_scope) = if !signal.is_empty() {
            (signal, Some(SignalScope::Group))
        } else {
            let file: Vec<_> = of(PreferenceDirective::ContentSignal)
                .filter(|s| s.google_group.is_none())
                .collect();
            let scope = (!file.is_empty()).then_some(SignalScope::File);
            (file, scope)
        };
        Preferences {
            usage,
            signal,
            signal_scope,
        }
    }

    /// The verdict for a path as Google's `GetPathParamsQuery` returns it
    /// (starting with `/`).
    pub fn decide_path(&self, path: &[u8]) -> Decision {
        decide_among(self.rules(), path, self.group)
    }
}

/// The verdict for `path` of `rules` (numbered as in [`RobotsTxt::rules`],
/// in any order) of the groups that `group` found.
pub(crate) fn decide_among<'x, 'a: 'x>(
    rules: impl Iterator<Item = (usize, &'x Rule<'a>)>,
    path: &[u8],
    group: GroupMatch,
) -> Decision {
    let mut allow = Best::NONE;
    let mut disallow = Best::NONE;
    for (index, rule) in rules {
        let Some((priority, via_index_htm)) = rule_match(rule, path) else {
            continue;
        };
        match rule.kind {
            RuleKind::Disallow => disallow.offer(priority, index, false),
            RuleKind::Allow => allow.offer(priority, index, via_index_htm),
        }
    }
    Best::decision(allow, disallow, group)
}

/// Whether `rule` matches `path`, and with which priority: its pattern's
/// length, or for an allow that matches only by Google's `index.htm` retry
/// (`<dir>/$`), the directory's length plus one (the flag).
fn rule_match(rule: &Rule<'_>, path: &[u8]) -> Option<(isize, bool)> {
    if matches(path, &rule.pattern) {
        return Some((rule.priority() as isize, false));
    }
    let dir = rule
        .index_dir_len
        .filter(|_| rule.kind == RuleKind::Allow)?;
    matches_parts(path, &rule.pattern[..dir], true).then_some((dir as isize + 1, true))
}

/// The highest priority with which one of `rules` matches `path` (-1 for
/// none): one side of [`AgentRules::decide_path`].
pub(super) fn best_priority<'x>(rules: &[&Rule<'x>], path: &[u8]) -> isize {
    rules
        .iter()
        .filter_map(|rule| rule_match(rule, path))
        .map(|(priority, _)| priority)
        .max()
        .unwrap_or(-1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_both_global_and_specific_counts_as_specific() {
        let r = RobotsTxt::parse(b"user-agent: *\nuser-agent: FooBot\ndisallow: /x\n");
        let foo = r.agent("foobot");
        assert_eq!(foo.group_match(), GroupMatch::Specific);
        assert!(!foo.allowed("/x"));
        assert_eq!(r.agent("Bar").group_match(), GroupMatch::Global);
    }

    #[test]
    fn deciding_rule_is_first_of_equal_priority() {
        let r = RobotsTxt::parse(b"user-agent: *\ndisallow: /a\ndisallow: /a\nallow: /b*\n");
        let d = r.agent("x").decide("http://h/a");
        assert_eq!((d.allowed, d.rule), (false, Some(0)));
        let d = r.agent("x").decide("http://h/c");
        assert_eq!((d.allowed, d.rule), (true, None));
    }

    #[test]
    fn query_only_url_gets_a_slash() {
        let r = RobotsTxt::parse(b"user-agent: *\ndisallow: /?\n");
        assert!(!r.allowed("x", "http://h?q"));
        let long = format!("http://h?{}", "q".repeat(5000));
        assert!(!r.allowed("x", &long));
    }
}
