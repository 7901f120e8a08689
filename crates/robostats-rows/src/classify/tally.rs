//! Every capture's verdict for every crawler of interest, counted at
//! ingest: the `verdict_counts` table, which the `agent_verdict_counts`
//! view sums.
//!
//! `agent_verdicts` (a view) has a row per capture and crawler; a study's
//! figures count those rows (per crawler and verdict). Expanding every
//! capture x crawler at query time costs seconds per million captures, so
//! ingest counts them instead, per input: one row per crawl, HTTP outcome,
//! distinct verdict and preferences, and number of captures, with the
//! crawlers that share it. The counts are those of the view by
//! construction: each crawler's row is made from what
//! [`push_agent_rows`](super::verdict::push_agent_rows) found (the
//! `named_verdicts` and `resolved_preferences` rows) and the `*` verdict,
//! the same decision the view makes from those tables (a test compares
//! the two on the samples).
//!
//! Most captures name no crawler and have no preference lines: every
//! crawler's row then follows from the capture's HTTP outcome and `*`
//! verdict, so such a capture is counted once, by those, and expanded per
//! crawler when the rows are made ([`VerdictTally::rows`]).

use std::collections::HashMap;

use ahash::RandomState;

use crate::http::GoogleClass;
use crate::robots::{PreferenceValue, UseLevel};
use crate::table::columns;

use super::agents::{Agent, AgentList, GLOBAL_AGENT};
use super::verdict::{Judged, PreferenceColumns, RulesVerdict, UNRESTRICTED, Verdict};

columns! {
    /// `verdict_counts`: `agent_verdicts` counted per input, written by
    /// ingest. One row per input, crawl, HTTP outcome, distinct verdict of a
    /// crawler and number of captures, with the crawlers (`*` included) it
    /// counts for: most crawlers share most verdicts, and one row says so
    /// for all of them. Summed over the inputs, per crawler, it is the
    /// `agent_verdict_counts` view; an input's rows are in its part files,
    /// like every other table's.
    #[derive(Clone, Debug, PartialEq)]
    pub struct VerdictTallyRow<'a> {
        /// the WARC file (the input) whose captures are counted
        pub warc_filename: &'a str as dict,
        /// the captures' crawl (captures.crawl)
        pub crawl: Option<&'a str> as dict,
        /// the captures' HTTP outcome by Google's rules (captures.google_class)
        pub google_class: GoogleClass,
        /// the captures' bodies were parsed as robots.txt (captures.robots_parsed)
        pub robots_parsed: bool,
        /// the crawlers (agents.token, in the list's order; * is a crawler no
        /// group names) for each of which the row counts
        pub agents: Vec<String>,
        /// What they may fetch.
        pub verdict: Verdict,
        /// What the file prefers they do with what they fetch.
        pub preferences: PreferenceColumns,
        /// the input's captures with these values, for each crawler of agents
        pub captures: u64,
    }
}

/// A crawler's row of `agent_verdicts`, less the capture and the crawler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Pair {
    google_class: GoogleClass,
    robots_parsed: bool,
    verdict: Verdict,
    preferences: PreferenceColumns,
}

/// What decides every crawler's row of a capture that names no crawler
/// and has no preference lines: its HTTP outcome and its `*` rules
/// verdict (None when the body was not parsed).
type Plain = (GoogleClass, Option<RulesVerdict>);

/// The tallies' maps: keys of a few small fields (classes, verdicts,
/// preference values), hashed per capture; `std`'s SipHash cost about 2,000
/// instructions a key (1 % of an ingest), ahash (randomly seeded, as
/// `std`'s is) a fraction of it.
type Map<K, V> = HashMap<K, V, RandomState>;

/// The counts of one crawl.
#[derive(Debug, Default)]
struct CrawlTally {
    /// Captures that name no crawler and have no preference lines.
    plain: Map<Plain, u64>,
    /// The distinct rows of the other captures, numbered.
    ids: Map<Pair, usize>,
    pairs: Vec<Pair>,
    /// Per row number, per crawler (the list's order, then `*`): captures.
    counts: Vec<u64>,
}

impl CrawlTally {
    /// The number of `pair`, made on first sight (with `crawlers` counts).
    fn id(&mut self, pair: Pair, crawlers: usize) -> usize {
        *self.ids.entry(pair).or_insert_with(|| {
            self.pairs.push(pair);
            self.counts.resize(self.counts.len() + crawlers, 0);
            self.pairs.len() - 1
        })
    }
}

/// The counts of the captures of one input (or part of it: tallies
/// [`merge`](VerdictTally::merge)).
#[derive(Debug, Default)]
pub struct VerdictTally {
    /// Per crawl, in the order first seen (an input has one, mostly).
    crawls: Vec<(Option<String>, CrawlTally)>,
    /// Crawlers counted: the list's, then `*`.
    crawlers: usize,
}

/// The preferences of a crawler for which the file states none: unknown
/// where it may fetch `/`, null elsewhere (and where nothing was parsed).
fn unstated(root_allowed: Option<bool>) -> PreferenceColumns {
    if root_allowed != Some(true) {
        return PreferenceColumns::default();
    }
    let unknown = Some(PreferenceValue::Unknown);
    PreferenceColumns {
        usage_train_ai: unknown,
        usage_search: unknown,
        usage_line: None,
        signal_search: unknown,
        signal_ai_train: unknown,
        signal_ai_input: unknown,
        signal_use: Some(UseLevel::Unknown),
        signal_line: None,
        signal_scope: None,
    }
}

/// A crawler's row on a capture of class `google_class` whose rules say
/// `rules` (None: the body was not parsed), with `stated` its preferences
/// when the file has preference lines.
fn pair(
    google_class: GoogleClass,
    rules: Option<RulesVerdict>,
    stated: Option<PreferenceColumns>,
) -> Pair {
    Pair {
        google_class,
        robots_parsed: rules.is_some(),
        verdict: Verdict::of(google_class, rules),
        preferences: stated.unwrap_or_else(|| unstated(rules.map(|r| r.1))),
    }
}

/// The crawlers counted, in order: the list's, then `*` (None).
fn everyone(agents: &AgentList) -> impl Iterator<Item = Option<&Agent>> {
    agents.agents.iter().map(Some).chain([None])
}

/// The rules verdict of `agent` (None for `*`) on a capture no group of
/// which names it, whose `*` verdict is `unnamed`: nothing restricts a
/// crawler that ignores the `*` group; any other obeys `*`'s.
fn unnamed_rules(agent: Option<&Agent>, unnamed: RulesVerdict) -> RulesVerdict {
    match agent {
        Some(a) if a.ignores_global_group => UNRESTRICTED,
        _ => unnamed,
    }
}

impl VerdictTally {
    /// An empty tally.
    pub fn new() -> VerdictTally {
        VerdictTally::default()
    }

    fn crawl(&mut self, crawl: Option<&str>) -> &mut CrawlTally {
        let at = match self.crawls.iter().position(|(c, _)| c.as_deref() == crawl) {
            Some(at) => at,
            None => {
                self.crawls
                    .push((crawl.map(str::to_owned), CrawlTally::default()));
                self.crawls.len() - 1
            }
        };
        &mut self.crawls[at].1
    }

    /// Counts one capture of `crawl`, of HTTP class `google_class`, for
    /// every crawler of `agents` and `*`. `parsed`: for a parsed body, the
    /// rules verdict of `*` and what [`push_agent_rows`](super::verdict::push_agent_rows)
    /// found of the other crawlers (nothing is evaluated again here).
    pub fn add(
        &mut self,
        crawl: Option<&str>,
        google_class: GoogleClass,
        parsed: Option<(RulesVerdict, &Judged)>,
        agents: &AgentList,
    ) {
        let crawlers = agents.agents.len() + 1;
        self.crawlers = crawlers;
        let tally = self.crawl(crawl);
        let (unnamed, judged) = match parsed {
            None => {
                *tally.plain.entry((google_class, None)).or_default() += 1;
                return;
            }
            Some((unnamed, judged)) if judged.agents.is_empty() && !judged.with_preferences => {
                *tally
                    .plain
                    .entry((google_class, Some(unnamed)))
                    .or_default() += 1;
                return;
            }
            Some(parsed) => parsed,
        };
        let star = judged.with_preferences.then_some(judged.star);
        let default = tally.id(pair(google_class, Some(unnamed), star), crawlers);
        // (a crawler that ignores the * group has a row of its own in
        // `judged` when the file has preference lines)
        let mut ignoring = None;
        let mut own = judged.agents.iter().peekable();
        for (i, agent) in everyone(agents).enumerate() {
            let id = match own.next_if(|(at, _, _)| *at == i) {
                Some((_, verdict, preferences)) => {
                    let rules = verdict.unwrap_or_else(|| unnamed_rules(agent, unnamed));
                    let stated = judged.with_preferences.then_some(*preferences);
                    tally.id(pair(google_class, Some(rules), stated), crawlers)
                }
                None if agent.is_some_and(|a| a.ignores_global_group) => *ignoring
                    .get_or_insert_with(|| {
                        tally.id(pair(google_class, Some(UNRESTRICTED), None), crawlers)
                    }),
                None => default,
            };
            tally.counts[id * crawlers + i] += 1;
        }
    }

    /// Adds another tally's counts to this one's.
    pub fn merge(&mut self, other: VerdictTally) {
        let crawlers = other.crawlers;
        if crawlers == 0 {
            return;
        }
        self.crawlers = crawlers;
        for (crawl, counts) in other.crawls {
            let tally = self.crawl(crawl.as_deref());
            for (key, n) in counts.plain {
                *tally.plain.entry(key).or_default() += n;
            }
            for (from, pair) in counts.pairs.into_iter().enumerate() {
                let to = tally.id(pair, crawlers);
                for i in 0..crawlers {
                    tally.counts[to * crawlers + i] += counts.counts[from * crawlers + i];
                }
            }
        }
    }

    /// The `verdict_counts` rows of the input `file` (counted with
    /// `agents`), in a stable order (crawl as first seen, then values and
    /// count).
    pub fn rows<'a>(&'a self, file: &'a str, agents: &AgentList) -> Vec<VerdictTallyRow<'a>> {
        let listed: Vec<Option<&Agent>> = everyone(agents).collect();
        let crawlers = listed.len();
        let mut out = Vec::new();
        for (crawl, tally) in &self.crawls {
            let mut pairs: Map<(usize, Pair), u64> = Map::default();
            for (id, pair) in tally.pairs.iter().enumerate() {
                for i in 0..crawlers {
                    let n = tally.counts[id * crawlers + i];
                    if n > 0 {
                        *pairs.entry((i, *pair)).or_default() += n;
                    }
                }
            }
            for (&(google_class, unnamed), &n) in &tally.plain {
                for (i, agent) in listed.iter().enumerate() {
                    let rules = unnamed.map(|u| unnamed_rules(*agent, u));
                    *pairs
                        .entry((i, pair(google_class, rules, None)))
                        .or_default() += n;
                }
            }
            // The crawlers with the same values and count share a row.
            let mut shared: Map<(Pair, u64), Vec<usize>> = Map::default();
            for ((i, p), n) in pairs {
                shared.entry((p, n)).or_default().push(i);
            }
            let mut shared: Vec<_> = shared.into_iter().collect();
            for (_, crawlers) in &mut shared {
                crawlers.sort_unstable();
            }
            shared.sort_unstable();
            out.extend(shared.into_iter().map(|((p, captures), crawlers)| {
                let agents = crawlers
                    .iter()
                    .map(|&i| listed[i].map_or(GLOBAL_AGENT.0, |a| a.token.as_str()))
                    .map(str::to_owned)
                    .collect();
                VerdictTallyRow {
                    warc_filename: file,
                    crawl: crawl.as_deref(),
                    google_class: p.google_class,
                    robots_parsed: p.robots_parsed,
                    agents,
                    verdict: p.verdict,
                    preferences: p.preferences,
                    captures,
                }
            }));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::CaptureKey;
    use crate::classify::verdict::{global_rules, push_agent_rows, verdicts};
    use crate::robots::RobotsTxt;

    const AT: CaptureKey<'static> = CaptureKey {
        warc_filename: "f",
        warc_record_offset: 0,
    };

    /// A sink that keeps no row.
    struct Discard;

    impl crate::classify::Rows for Discard {
        fn push<R: crate::classify::Row>(&mut self, _: &R) {}
    }

    /// Counts a capture as ingest does.
    fn add(
        tally: &mut VerdictTally,
        crawl: Option<&str>,
        class: GoogleClass,
        robots: Option<&RobotsTxt<'_>>,
    ) {
        let agents = AgentList::default_list();
        match robots {
            Some(robots) => {
                let judged = push_agent_rows(AT, robots, &agents, &mut Discard);
                tally.add(crawl, class, Some((global_rules(robots), &judged)), &agents);
            }
            None => tally.add(crawl, class, None, &agents),
        }
    }

    /// The rows of one capture, as (crawler, verdict, preferences).
    fn rows_of(google_class: GoogleClass, body: Option<&[u8]>) -> Vec<(String, Verdict, Pair)> {
        let agents = AgentList::default_list();
        let robots = body.map(RobotsTxt::parse);
        let mut tally = VerdictTally::new();
        add(&mut tally, Some("CC-MAIN-X"), google_class, robots.as_ref());
        let rows = tally.rows("f", &agents);
        per_crawler(&rows)
            .into_iter()
            .map(|(agent, r)| {
                assert_eq!(r.captures, 1, "{agent}");
                let p = Pair {
                    google_class: r.google_class,
                    robots_parsed: r.robots_parsed,
                    verdict: r.verdict,
                    preferences: r.preferences,
                };
                (agent, r.verdict, p)
            })
            .collect()
    }

    /// The rows per crawler, as the view unnests them; every crawler once
    /// per crawl and values.
    fn per_crawler<'r>(rows: &'r [VerdictTallyRow<'r>]) -> Vec<(String, &'r VerdictTallyRow<'r>)> {
        let mut out: Vec<(String, &VerdictTallyRow<'_>)> = Vec::new();
        for row in rows {
            assert!(!row.agents.is_empty());
            out.extend(row.agents.iter().map(|a| (a.clone(), row)));
        }
        out
    }

    /// Every crawler's verdict is the one [`verdicts`] gives (the
    /// reference the views are tested against), plain capture or not.
    #[test]
    fn the_verdicts_are_the_references() {
        let agents = AgentList::default_list();
        let bodies: [&[u8]; 4] = [
            b"User-agent: *\nDisallow: /private\n",
            b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n",
            b"User-agent: GPTBot\nDisallow: /\n",
            b"",
        ];
        for body in bodies {
            let robots = RobotsTxt::parse(body);
            let want = verdicts(GoogleClass::ConditionalAllow, Some(&robots), &agents);
            let got = rows_of(GoogleClass::ConditionalAllow, Some(body));
            for (i, agent) in agents.agents.iter().enumerate() {
                let row = got.iter().find(|r| r.0 == agent.token).expect("a row");
                assert_eq!(row.1, want[i], "{}: {}", agent.token, body.escape_ascii());
            }
            let star = got.iter().find(|r| r.0 == "*").expect("a row");
            assert_eq!(star.1, want[agents.agents.len()]);
        }
        for class in [
            GoogleClass::FullAllow,
            GoogleClass::FullDisallow,
            GoogleClass::Redirect,
        ] {
            let want = verdicts(class, None, &agents);
            let got = rows_of(class, None);
            assert_eq!(got.len(), 46, "a row per crawler");
            for row in &got {
                assert_eq!(row.1, want[0], "the same verdict for every crawler");
                assert_eq!(row.2.preferences, PreferenceColumns::default());
            }
        }
    }

    #[test]
    fn preferences_are_stated_or_unknown_where_root_may_be_fetched() {
        // No preference lines: unknown where / may be fetched.
        let got = rows_of(
            GoogleClass::ConditionalAllow,
            Some(b"User-agent: GPTBot\nDisallow: /\n"),
        );
        let gpt = got.iter().find(|r| r.0 == "GPTBot").unwrap();
        assert_eq!(gpt.2.preferences, PreferenceColumns::default());
        let star = got.iter().find(|r| r.0 == "*").unwrap();
        assert_eq!(
            star.2.preferences.usage_train_ai,
            Some(PreferenceValue::Unknown)
        );
        assert_eq!(star.2.preferences.signal_use, Some(UseLevel::Unknown));
        assert_eq!(star.2.preferences.signal_line, None);
        // Preference lines: each crawler's own, from its groups.
        let body = b"User-agent: *\nContent-Usage: train-ai=n\nAllow: /\n\n\
                     User-agent: GPTBot\nContent-Usage: train-ai=y\nAllow: /\n";
        let got = rows_of(GoogleClass::ConditionalAllow, Some(body));
        let value = |agent: &str| {
            got.iter()
                .find(|r| r.0 == agent)
                .unwrap()
                .2
                .preferences
                .usage_train_ai
        };
        assert_eq!(value("GPTBot"), Some(PreferenceValue::Yes));
        assert_eq!(value("CCBot"), Some(PreferenceValue::No));
        assert_eq!(value("*"), Some(PreferenceValue::No));
        // AdsBot ignores the * group: its preferences are those outside
        // any group (none here).
        assert_eq!(value("AdsBot-Google"), Some(PreferenceValue::Unknown));
    }

    #[test]
    fn tallies_merge_and_count_per_crawl() {
        let agents = AgentList::default_list();
        let robots = RobotsTxt::parse(b"User-agent: *\nDisallow: /\n");
        let named = RobotsTxt::parse(b"User-agent: GPTBot\nDisallow: /\n");
        let class = GoogleClass::ConditionalAllow;
        let mut a = VerdictTally::new();
        add(&mut a, Some("A"), class, Some(&robots));
        add(&mut a, Some("B"), class, Some(&named));
        let mut b = VerdictTally::new();
        add(&mut b, Some("B"), class, Some(&named));
        add(&mut b, Some("A"), class, Some(&robots));
        add(&mut b, None, GoogleClass::FullAllow, None);
        a.merge(b);
        let gptbot: Vec<_> = per_crawler(&a.rows("f", &agents))
            .into_iter()
            .filter(|r| r.1.crawl == Some("B") && r.0 == "GPTBot")
            .map(|r| (r.1.verdict.rules_class, r.1.captures))
            .collect();
        assert_eq!(gptbot, [(Some(crate::robots::RulesClass::DisallowAll), 2)]);
        let rows = a.rows("f", &agents);
        let rows = per_crawler(&rows);
        let captures_of = |crawl: Option<&str>| -> u64 {
            rows.iter()
                .filter(|r| r.1.crawl == crawl)
                .map(|r| r.1.captures)
                .sum()
        };
        assert_eq!(captures_of(Some("A")), 2 * 46);
        assert_eq!(captures_of(Some("B")), 2 * 46);
        assert_eq!(captures_of(None), 46);
        // AdsBot ignores the * group: allowed where the others are not.
        let adsbot = rows
            .iter()
            .find(|r| r.1.crawl == Some("A") && r.0 == "AdsBot-Google")
            .unwrap();
        assert_eq!(
            adsbot.1.verdict.rules_class,
            Some(crate::robots::RulesClass::AllowAll)
        );
        assert_eq!(adsbot.1.captures, 2);
        // The 44 others share one row.
        let star = rows
            .iter()
            .find(|r| r.1.crawl == Some("A") && r.0 == "*")
            .unwrap();
        assert_eq!(star.1.agents.len(), 44);
    }
}
