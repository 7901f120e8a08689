//! A capture's parse and HTTP outcome -> what each crawler of interest may
//! fetch: the `agent_verdicts` table.

use crate::http::GoogleClass;
use crate::robots::{AgentRules, GroupMatch, RobotsTxt, RulesClass};
use crate::table::{columns, labels};

use super::Rows;
use super::agents::AgentList;
use super::capture::{Capture, CaptureKey};

labels! {
    /// What an agent may fetch once the HTTP outcome is taken into account.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum EffectiveClass {
        /// Nothing (5xx, a failed fetch, or rules that disallow everything).
        DisallowAll = "disallow_all",
        /// Everything (4xx, or rules that allow everything).
        AllowAll = "allow_all",
        /// Part of the site, by the rules.
        AllowPart = "allow_part",
        /// A redirect: the outcome is that of the target, in another capture.
        UnresolvedRedirect = "unresolved_redirect",
    }
}

columns! {
    /// One agent's verdict on one capture: the columns of `agent_verdicts`
    /// that say what it may fetch.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Verdict {
        /// from the rules (2xx): specific (a group names the agent; * is then
        /// ignored), global (only * groups apply), none
        pub group_match: Option<GroupMatch>,
        /// from the rules: / may be fetched
        pub root_allowed: Option<bool>,
        /// from the rules: disallow_all (no path may be fetched), allow_all (every
        /// path may), allow_part
        pub rules_class: Option<RulesClass>,
        /// after the HTTP outcome (google_class): 2xx the rules class; 4xx allow_all;
        /// 5xx and failed disallow_all; 3xx unresolved_redirect
        pub effective_class: EffectiveClass,
        /// after the HTTP outcome: / may be fetched (null for 3xx)
        pub effective_root_allowed: Option<bool>,
    }
}

fn rules_verdict(rules: &AgentRules<'_, '_>) -> (GroupMatch, bool, RulesClass) {
    (rules.group_match(), rules.root_allowed(), rules.class())
}

/// Every agent's verdict, in the list's order, then `*`'s (the last). The
/// rules of agents that no group names are those of `*`, so they are
/// evaluated once.
pub fn verdicts(
    google_class: GoogleClass,
    robots: Option<&RobotsTxt<'_>>,
    agents: &AgentList,
) -> Vec<Verdict> {
    let unnamed = robots.map(|r| rules_verdict(&r.unnamed_agent()));
    let make = |rules: Option<(GroupMatch, bool, RulesClass)>| {
        let (effective_class, effective_root_allowed) = match google_class {
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
            group_match: rules.map(|r| r.0),
            root_allowed: rules.map(|r| r.1),
            rules_class: rules.map(|r| r.2),
            effective_class,
            effective_root_allowed,
        }
    };
    let mut out = Vec::with_capacity(agents.agents.len() + 1);
    for agent in &agents.agents {
        let rules = match robots {
            Some(r) if r.names_agent(&agent.token) => Some(rules_verdict(&r.agent(&agent.token))),
            _ => unnamed,
        };
        out.push(make(rules));
    }
    out.push(make(unnamed));
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

columns! {
    /// `agent_verdicts`: one row per capture and crawler of interest, `*`
    /// included.
    #[derive(Clone, Debug, PartialEq)]
    pub struct VerdictRow<'a> {
        /// The capture.
        pub at: CaptureKey<'a>,
        /// the crawler (embedded list or --agents); * is a crawler no group names
        pub agent: &'a str as dict,
        /// search, ads, seo, archive, ai (from the list); global for *
        pub agent_category: &'a str as dict,
        /// What it may fetch.
        pub verdict: Verdict,
        /// who runs the crawler (from the list)
        pub agent_operator: &'a str as dict,
    }
}

/// One verdict row per agent of the list, then `*`'s.
pub fn push_verdicts(
    capture: &Capture<'_>,
    verdicts: &[Verdict],
    agents: &AgentList,
    out: &mut impl Rows,
) {
    let named = agents
        .agents
        .iter()
        .map(|a| (a.token.as_str(), a.category.as_str(), a.operator.as_str()));
    for ((agent, category, operator), verdict) in named.chain([("*", "global", "")]).zip(verdicts) {
        out.push(&VerdictRow {
            at: capture.at,
            agent,
            agent_category: category,
            verdict: *verdict,
            agent_operator: operator,
        });
    }
}
