//! Response and parse -> what the tables say about one capture: the
//! robots.txt parse (for 2xx responses) and each agent's verdict. Pure
//! functions, safe to call from any worker thread.

pub mod agents;
pub mod typo;

use crate::http::{Capture, GoogleClass};
use crate::robots::{AgentRules, GOOGLE_MAX_BYTES, GroupMatch, RobotsTxt, RulesClass};
use agents::AgentList;

/// How captures are analysed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes of a body that are parsed for rules: [`GOOGLE_MAX_BYTES`] by
    /// default (Google's crawler policy), `usize::MAX` for the whole body.
    pub size_limit: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            size_limit: GOOGLE_MAX_BYTES,
        }
    }
}

/// The robots.txt parse of a capture: only 2xx responses have rules (for
/// every other status Google ignores the body).
pub fn parse_robots<'a>(
    capture: &Capture,
    body: &'a [u8],
    opts: &Options,
) -> Option<RobotsTxt<'a>> {
    (capture.google_class == GoogleClass::ConditionalAllow)
        .then(|| RobotsTxt::parse_with_limit(body, opts.size_limit))
}

/// What an agent may fetch once the HTTP outcome is taken into account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EffectiveClass {
    /// Nothing (5xx, a failed fetch, or rules that disallow everything).
    DisallowAll,
    /// Everything (4xx, or rules that allow everything).
    AllowAll,
    /// Part of the site, by the rules.
    AllowPart,
    /// A redirect: the outcome is that of the target, in another capture.
    UnresolvedRedirect,
}

impl EffectiveClass {
    /// Every value, in declaration order (a value's index is `v as usize`).
    pub const ALL: [EffectiveClass; 4] = [
        EffectiveClass::DisallowAll,
        EffectiveClass::AllowAll,
        EffectiveClass::AllowPart,
        EffectiveClass::UnresolvedRedirect,
    ];

    /// `disallow_all`, `allow_all`, `allow_part` or `unresolved_redirect`.
    pub fn as_str(self) -> &'static str {
        match self {
            EffectiveClass::DisallowAll => "disallow_all",
            EffectiveClass::AllowAll => "allow_all",
            EffectiveClass::AllowPart => "allow_part",
            EffectiveClass::UnresolvedRedirect => "unresolved_redirect",
        }
    }
}

/// One agent's verdict on one capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Index of the agent in the [`AgentList`], or `None` for `*`, the
    /// crawler no group names.
    pub agent: Option<usize>,
    /// From the rules (2xx only): which groups applied.
    pub group: Option<GroupMatch>,
    /// From the rules: whether `/` may be fetched.
    pub root_allowed: Option<bool>,
    /// From the rules: the class.
    pub class: Option<RulesClass>,
    /// After the HTTP outcome (Google's table): the class.
    pub effective: EffectiveClass,
    /// After the HTTP outcome: whether `/` may be fetched (unknown for a
    /// redirect).
    pub effective_root_allowed: Option<bool>,
}

fn rules_verdict(rules: &AgentRules<'_, '_>) -> (GroupMatch, bool, RulesClass) {
    (rules.group_match(), rules.root_allowed(), rules.class())
}

/// Every agent's verdict, then `*`'s. The rules of agents that no group
/// names are those of `*`, so they are evaluated once.
pub fn verdicts(
    capture: &Capture,
    robots: Option<&RobotsTxt<'_>>,
    agents: &AgentList,
) -> Vec<Verdict> {
    let unnamed = robots.map(|r| rules_verdict(&r.unnamed_agent()));
    let make = |agent: Option<usize>, rules: Option<(GroupMatch, bool, RulesClass)>| {
        let (effective, effective_root_allowed) = match capture.google_class {
            GoogleClass::ConditionalAllow => {
                let (_, root, class) = rules.expect("2xx captures are parsed");
                let effective = match class {
                    RulesClass::DisallowAll => EffectiveClass::DisallowAll,
                    RulesClass::AllowAll => EffectiveClass::AllowAll,
                    RulesClass::AllowPart => EffectiveClass::AllowPart,
                };
                (effective, Some(root))
            }
            GoogleClass::Redirect => (EffectiveClass::UnresolvedRedirect, None),
            GoogleClass::FullAllow => (EffectiveClass::AllowAll, Some(true)),
            _ => (EffectiveClass::DisallowAll, Some(false)),
        };
        Verdict {
            agent,
            group: rules.map(|r| r.0),
            root_allowed: rules.map(|r| r.1),
            class: rules.map(|r| r.2),
            effective,
            effective_root_allowed,
        }
    };
    let mut out = Vec::with_capacity(agents.agents.len() + 1);
    for (i, agent) in agents.agents.iter().enumerate() {
        let rules = match robots {
            Some(r) if r.names_agent(&agent.token) => Some(rules_verdict(&r.agent(&agent.token))),
            _ => unnamed,
        };
        out.push(make(Some(i), rules));
    }
    out.push(make(None, unnamed));
    out
}

/// The crawl-delay a crawler no group names would read: the first
/// `crawl-delay` line of a `*` group whose value is a non-negative number.
pub fn crawl_delay(robots: &RobotsTxt<'_>) -> Option<f64> {
    robots
        .directives()
        .iter()
        .filter(|d| d.known == Some("crawl-delay"))
        .filter(|d| d.group.is_some_and(|g| robots.groups()[g].global))
        .find_map(|d| {
            std::str::from_utf8(d.value)
                .ok()?
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
        })
}
