//! A capture's parse and HTTP outcome -> what each crawler of interest may
//! fetch: the `named_verdicts` table (the crawlers a group names), and the
//! `agent_verdicts` view's rows ([`verdicts`]).

use crate::http::GoogleClass;
use crate::robots::{
    AgentRules, GroupMatch, PreferenceValue, RobotsTxt, RulesClass, SignalScope, UseLevel,
};
use crate::table::{columns, labels};

use super::Rows;
use super::agents::{Agent, AgentList};
use super::key::CaptureKey;

labels! {
    /// What an agent may fetch once the HTTP outcome is taken into account.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

/// What the rules say for one crawler: which groups applied, whether `/`
/// may be fetched, and the class of the rules.
pub type RulesVerdict = (GroupMatch, bool, RulesClass);

fn rules_verdict(rules: &AgentRules<'_, '_>) -> RulesVerdict {
    let (class, root) = rules.class_and_root();
    (rules.group_match(), root, class)
}

/// The rules verdict of a crawler that ignores the `*` group and that no
/// group names: nothing restricts it.
pub const UNRESTRICTED: RulesVerdict = (GroupMatch::None, true, RulesClass::AllowAll);

/// The rules verdict of `agent` on a parse whose unnamed crawler's verdict
/// is `unnamed`: its own groups' when a group names it; else, for a
/// crawler that ignores the `*` group, nothing restricts it; else `*`'s.
pub fn agent_rules(robots: &RobotsTxt<'_>, agent: &Agent, unnamed: RulesVerdict) -> RulesVerdict {
    if let Some(rules) = robots.named_agent(&agent.token) {
        rules_verdict(&rules)
    } else if agent.ignores_global_group {
        UNRESTRICTED
    } else {
        unnamed
    }
}

impl Verdict {
    /// The verdict of a capture of class `google_class` for a crawler
    /// whose rules (2xx captures only) say `rules`.
    pub fn of(google_class: GoogleClass, rules: Option<RulesVerdict>) -> Verdict {
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
    }
}

/// The rules verdict of `*`, the crawler no group names.
pub fn global_rules(robots: &RobotsTxt<'_>) -> RulesVerdict {
    rules_verdict(&robots.unnamed_agent())
}

/// Every agent's verdict, in the list's order, then `*`'s (the last): the
/// rows of the `agent_verdicts` view for one capture. The rules of agents
/// that no group names are those of `*`, so they are evaluated once.
/// Ingest stores only what the `*` verdict does not give
/// (`named_verdicts`); this is the reference the view is tested
/// against.
pub fn verdicts(
    google_class: GoogleClass,
    robots: Option<&RobotsTxt<'_>>,
    agents: &AgentList,
) -> Vec<Verdict> {
    let unnamed = robots.map(|r| rules_verdict(&r.unnamed_agent()));
    let mut out = Vec::with_capacity(agents.agents.len() + 1);
    for agent in &agents.agents {
        let rules = robots.map(|r| agent_rules(r, agent, unnamed.expect("parsed")));
        out.push(Verdict::of(google_class, rules));
    }
    out.push(Verdict::of(google_class, unnamed));
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
    /// One crawler's AI-use preferences at `/` (docs/robots-txt.md, "AI-use
    /// preferences"): null where the body was not parsed or the crawler may
    /// not fetch `/` (preferences apply only where crawling is allowed);
    /// otherwise y, n or unknown (nothing said).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct PreferenceColumns {
        /// Content-Usage train-ai at /: the crawler's groups in AIPREF's grouping,
        /// the rules with the longest matching path, n winning over y among them
        pub usage_train_ai: Option<PreferenceValue>,
        /// Content-Usage search at /, chosen the same way
        pub usage_search: Option<PreferenceValue>,
        /// line of the Content-Usage rule that applies at / (the first, when
        /// several paths are equally long); null when none does
        pub usage_line: Option<u32>,
        /// Content-Signal search: the lines of the crawler's groups (Google's
        /// grouping), else those before the first user-agent line; n wins
        pub signal_search: Option<PreferenceValue>,
        /// Content-Signal ai-train, chosen the same way
        pub signal_ai_train: Option<PreferenceValue>,
        /// Content-Signal ai-input, chosen the same way
        pub signal_ai_input: Option<PreferenceValue>,
        /// Content-Signal use (Cloudflare, 2026): immediate, reference or full (the
        /// most restrictive given), else unknown
        pub signal_use: Option<UseLevel>,
        /// first line of the Content-Signal lines that apply; null when none does
        pub signal_line: Option<u32>,
        /// where the Content-Signal lines that apply stand: group (the crawler's
        /// groups) or file (before the first user-agent line); null when none
        /// does
        pub signal_scope: Option<SignalScope>,
    }
}

impl PreferenceColumns {
    /// The preferences of the crawler obeying `rules` at `/`.
    pub fn at_root(rules: &AgentRules<'_, '_>) -> PreferenceColumns {
        PreferenceColumns::of(rules.preferences_path(b"/"))
    }

    /// The columns of the preferences that apply at a path
    /// ([`AgentRules::preferences`]); all null where the crawler may not
    /// fetch it (`None`).
    pub fn of(
        preferences: Option<crate::robots::preference::Preferences<'_, '_>>,
    ) -> PreferenceColumns {
        let Some(p) = preferences else {
            return PreferenceColumns::default();
        };
        PreferenceColumns {
            usage_train_ai: Some(p.usage("train-ai")),
            usage_search: Some(p.usage("search")),
            usage_line: p.usage_line(),
            signal_search: Some(p.signal("search")),
            signal_ai_train: Some(p.signal("ai-train")),
            signal_ai_input: Some(p.signal("ai-input")),
            signal_use: Some(p.signal_use()),
            signal_line: p.signal_line(),
            signal_scope: p.signal_scope,
        }
    }
}

columns! {
    /// `resolved_preferences`: the AI-use preferences at / of each 2xx
    /// capture that has a Content-Signal or Content-Usage line, for `*` and
    /// for each crawler of interest whose preferences may differ from
    /// `*`'s (a group names it, or it ignores the `*` group). The
    /// `agent_verdicts` view gives every crawler's, for every capture.
    #[derive(Clone, Debug, PartialEq)]
    pub struct ResolvedPreferenceRow<'a> {
        /// The capture.
        pub at: CaptureKey<'a>,
        /// the crawler (agents.token), or * for a crawler no group names
        pub agent: &'a str as dict,
        /// Its preferences.
        pub preferences: PreferenceColumns,
    }
}

columns! {
    /// `named_verdicts`: one row per 2xx capture and crawler of interest
    /// that a group of the capture names. Every other crawler gets the `*`
    /// verdict of its capture (`captures.global_*`), or nothing restricts
    /// it when it ignores the `*` group (`agents.ignores_global_group`).
    #[derive(Clone, Debug, PartialEq)]
    pub struct NamedVerdictRow<'a> {
        /// The capture.
        pub at: CaptureKey<'a>,
        /// the crawler (agents.token) a group names
        pub agent: &'a str as dict,
        /// from the groups naming it: / may be fetched
        pub root_allowed: bool,
        /// from the groups naming it: disallow_all (no path may be fetched),
        /// allow_all (every path may), allow_part
        pub rules_class: RulesClass,
    }
}

/// What a parsed capture says of the crawlers whose verdict or
/// preferences may differ from `*`'s, as [`push_agent_rows`] found it:
/// what `verdict_counts` needs besides the `*` verdict, so that nothing is
/// evaluated twice.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judged {
    /// The file has a Content-Signal or Content-Usage line.
    pub with_preferences: bool,
    /// The preferences of `*` (with preference lines only).
    pub star: PreferenceColumns,
    /// Per crawler (its index in the list, in order) that a group names
    /// or that has preferences of its own: its rules verdict when a group
    /// names it, and its preferences (with preference lines only).
    pub agents: Vec<(usize, Option<RulesVerdict>, PreferenceColumns)>,
}

/// The rows a parsed capture gives per crawler of interest, each
/// crawler's groups looked for once: a `named_verdicts` row for each
/// crawler a group names; and, when the file has a Content-Signal or
/// Content-Usage line, a `resolved_preferences` row for each crawler whose
/// preferences may differ from `*`'s (a group names it, or it ignores the
/// `*` group), in the list's order, then one for `*`. Returns what it
/// found.
pub fn push_agent_rows(
    at: CaptureKey<'_>,
    robots: &RobotsTxt<'_>,
    agents: &AgentList,
    out: &mut impl Rows,
) -> Judged {
    let named = !robots.user_agents().iter().all(|ua| ua.global);
    let preferences = !robots.preferences().is_empty();
    let mut judged = Judged {
        with_preferences: preferences,
        ..Judged::default()
    };
    if !named && !preferences {
        return judged;
    }
    // Crawlers named by the same groups (one group listing ten AI
    // crawlers) have the same rules: their verdict is decided once.
    let mut decided: Vec<(Vec<usize>, RulesVerdict)> = Vec::new();
    for (i, agent) in agents.agents.iter().enumerate() {
        let rules = if named {
            robots.named_agent(&agent.token)
        } else {
            None
        };
        let verdict = rules.as_ref().map(|rules| {
            match decided.iter().find(|(groups, _)| groups == rules.groups()) {
                Some(&(_, verdict)) => verdict,
                None => {
                    let verdict = rules_verdict(rules);
                    decided.push((rules.groups().to_vec(), verdict));
                    verdict
                }
            }
        });
        if let Some((_, root_allowed, rules_class)) = verdict {
            out.push(&NamedVerdictRow {
                at,
                agent: &agent.token,
                root_allowed,
                rules_class,
            });
        }
        let mut own = PreferenceColumns::default();
        if preferences {
            let rules = match rules {
                Some(rules) => rules,
                None if agent.ignores_global_group => robots.ungrouped_agent(),
                None => continue,
            };
            own = PreferenceColumns::at_root(&rules);
            out.push(&ResolvedPreferenceRow {
                at,
                agent: &agent.token,
                preferences: own,
            });
        }
        if verdict.is_some() || preferences {
            judged.agents.push((i, verdict, own));
        }
    }
    if preferences {
        judged.star = PreferenceColumns::at_root(&robots.unnamed_agent());
        out.push(&ResolvedPreferenceRow {
            at,
            agent: "*",
            preferences: judged.star,
        });
    }
    judged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(body: &[u8]) -> Vec<(String, GroupMatch, RulesClass)> {
        let robots = RobotsTxt::parse(body);
        let agents = AgentList::default_list();
        let verdicts = verdicts(GoogleClass::ConditionalAllow, Some(&robots), &agents);
        let tokens = agents.agents.iter().map(|a| a.token.as_str()).chain(["*"]);
        tokens
            .zip(verdicts)
            .filter(|(t, _)| {
                [
                    "Googlebot",
                    "AdsBot-Google",
                    "Mediapartners-Google",
                    "GPTBot",
                    "*",
                ]
                .contains(t)
            })
            .map(|(t, v)| (t.to_owned(), v.group_match.unwrap(), v.rules_class.unwrap()))
            .collect()
    }

    fn expect(list: &[(&str, GroupMatch, RulesClass)]) -> Vec<(String, GroupMatch, RulesClass)> {
        list.iter()
            .map(|(t, g, c)| (t.to_string(), *g, *c))
            .collect()
    }

    /// The examples of Google's overview of its crawlers: the AdsBot
    /// crawlers ignore the `*` group and must be named explicitly.
    #[test]
    fn crawlers_that_ignore_the_star_group_google_guide_examples() {
        use GroupMatch::{Global, None, Specific};
        use RulesClass::{AllowAll, DisallowAll};
        // Example 1: block only Googlebot.
        assert_eq!(
            judged(b"User-agent: Googlebot\nDisallow: /\n"),
            expect(&[
                ("Googlebot", Specific, DisallowAll),
                ("AdsBot-Google", None, AllowAll),
                ("Mediapartners-Google", None, AllowAll),
                ("GPTBot", None, AllowAll),
                ("*", None, AllowAll),
            ])
        );
        // Example 2: block Googlebot and AdsBot.
        assert_eq!(
            judged(b"User-agent: Googlebot\nUser-agent: AdsBot-Google\nDisallow: /\n"),
            expect(&[
                ("Googlebot", Specific, DisallowAll),
                ("AdsBot-Google", Specific, DisallowAll),
                ("Mediapartners-Google", None, AllowAll),
                ("GPTBot", None, AllowAll),
                ("*", None, AllowAll),
            ])
        );
        // Example 3: block all crawlers except AdsBot.
        let body = b"User-agent: *\nDisallow: /\n";
        assert_eq!(
            judged(body),
            expect(&[
                ("Googlebot", Global, DisallowAll),
                ("AdsBot-Google", None, AllowAll),
                ("Mediapartners-Google", None, AllowAll),
                ("GPTBot", Global, DisallowAll),
                ("*", Global, DisallowAll),
            ])
        );
        // Google's matcher knows no such policy: it stays the library's
        // verdict (and `check`'s).
        assert!(!RobotsTxt::parse(body).allowed("AdsBot-Google", "https://a.example/"));
    }
}
