//! Figure 2: what each crawler may fetch in the latest crawl, hosts by
//! the crawler's state.

use super::common::{category_name, latest, ranked_agents};
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, Row, Series, colour};

/// The states of a crawler on a host, with the segments the restriction
/// figure draws (named and `*` apart for the rule-based states).
const SEGMENTS: [(&str, Option<&str>, &str, &str); 8] = [
    ("full", Some("named"), "full, named", colour::VERMILLION),
    ("full", Some("wildcard"), "full, by *", "#F2A97F"),
    ("partial", Some("named"), "partial, named", colour::ORANGE),
    ("partial", Some("wildcard"), "partial, by *", "#F5D38A"),
    ("none", None, "none (may fetch all)", colour::GREEN),
    (
        "no_robots",
        None,
        "no robots.txt (4xx, redirect loop)",
        colour::SKY,
    ),
    (
        "unreachable",
        None,
        "unreachable (5xx, 429, failed)",
        colour::GREY,
    ),
    ("redirect", None, "unresolved redirect", colour::PURPLE),
];

/// A bar per crawler of `crawl` (in the report's order, a heading at each
/// category): the share of hosts in each segment, a row's `share` (split by
/// who decided) or, for a whole state, its `state_share`.
fn shape(t: &Table, crawl: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut last_category = String::new();
    for (agent, category, _) in ranked_agents(t, crawl) {
        let values = SEGMENTS
            .iter()
            .map(|(state, by, _, _)| {
                let row = t.rows.iter().find(|r| {
                    t.text(r, "crawl") == crawl
                        && t.text(r, "agent") == agent
                        && t.text(r, "state") == *state
                        && by.is_none_or(|b| t.text(r, "decided_by") == b)
                });
                // A segment of a whole state: the state's share, whoever
                // decided.
                let column = if by.is_some() { "share" } else { "state_share" };
                row.map_or(0.0, |r| t.num(r, column))
            })
            .collect();
        let group = (category != last_category).then(|| category_name(&category));
        last_category = category;
        rows.push(Row {
            label: agent,
            values,
            group,
        });
    }
    rows
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTrends);
    let crawl = latest(t).unwrap_or_default();
    let rows = shape(t, &crawl);
    let series: Vec<Series> = SEGMENTS.iter().map(|s| Series::new(s.2, s.3)).collect();
    Figure {
        id: "restriction",
        title: format!("What each crawler may fetch, {crawl}"),
        charts: vec![(
            String::new(),
            svg::stacked_bars("Hosts by each crawler's state", &rows, &series, true),
        )],
        definition: vec![
            format!(
                "Share of the hosts of {crawl} (every host with a robots.txt capture in the \
                 crawl) by the crawler's state on the host, from the host's deciding capture \
                 (see figure 1): full, a 2xx robots.txt whose rules disallow the crawler every \
                 path; partial, some paths; none, no path; no robots.txt, a 4xx other than 429 \
                 (Google then crawls everything); unreachable, a 5xx, 429 or failed fetch \
                 (Google then crawls nothing); unresolved redirect."
            ),
            "Named: a group names the crawler (Google's matching: the longest product token \
             that matches). By *: no group names it, and the * group decided. Crawlers that \
             ignore the * group (such as AdsBot-Google) and files without a * group count as \
             none unless a group names them. AI crawlers first; within a category, by the \
             share of full blocks."
                .to_owned(),
        ],
        tables: vec![Shown::of(
            Query::PolicyTrends,
            t,
            &["agent", "state", "decided_by", "hosts", "share"],
            format!("the rows of {crawl}"),
            usize::MAX,
            |r| t.text(r, "crawl") == crawl,
        )],
    }
}
