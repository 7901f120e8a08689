//! Figure 1: the HTTP outcomes of the robots.txt fetches, per crawl.

use super::common::{crawl_label, crawls};
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, Row, Series, colour};

/// The outcomes in the query's order: those of one `base_state` (figure
/// 2's states) side by side.
const OUTCOMES: [(&str, &str, &str); 8] = [
    ("rules", "2xx with rules", colour::BLUE),
    ("no_rules", "2xx without rules", colour::SKY),
    ("empty", "2xx empty", colour::YELLOW),
    ("4xx", "4xx", colour::GREEN),
    // (a lighter green: the same base_state as 4xx)
    ("too_many_hops", "3xx loop or > 5 hops", "#7FCEB9"),
    ("redirect", "3xx unresolved", colour::PURPLE),
    ("5xx_429", "5xx or 429", colour::VERMILLION),
    ("failed", "failed", colour::DARK),
];

/// A bar per crawl: each outcome's share of its hosts.
fn shape(t: &Table) -> Vec<Row> {
    crawls(t)
        .into_iter()
        .map(|crawl| Row {
            values: OUTCOMES
                .iter()
                .map(|(o, _, _)| {
                    t.rows
                        .iter()
                        .filter(|r| t.text(r, "crawl") == crawl && t.text(r, "outcome") == *o)
                        .map(|r| t.num(r, "share"))
                        .sum()
                })
                .collect(),
            label: crawl_label(&crawl),
            group: None,
        })
        .collect()
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::OutcomesPerCrawl);
    let rows = shape(t);
    let series: Vec<Series> = OUTCOMES
        .iter()
        .map(|(_, n, c)| Series::new(*n, *c))
        .collect();
    Figure {
        id: "outcomes",
        title: "HTTP outcomes of the robots.txt fetches, per crawl".to_owned(),
        charts: vec![(
            String::new(),
            svg::stacked_bars(
                "Hosts by the outcome of their robots.txt fetch",
                &rows,
                &series,
                true,
            ),
        )],
        definition: vec![
            "Share of the crawl's hosts (every host with a robots.txt capture in the crawl) by \
             the outcome of its deciding capture: the host's latest robots.txt capture in the \
             crawl, a redirect followed to the latest capture of its target in the same crawl \
             (up to 5 hops). 2xx with rules: a group has a non-empty allow or disallow; 3xx \
             loop or > 5 hops: Google and Common Crawl give up and crawl everything; 3xx \
             unresolved: the target has no capture in the crawl, or there is no Location; \
             failed: no complete response."
                .to_owned(),
            "The same hosts and deciding captures as figure 2: 4xx and 3xx loops are its \
             \"no robots.txt\", 3xx unresolved its \"unresolved redirect\", 5xx, 429 and \
             failed its \"unreachable\" (the column base_state); the 2xx hosts are those \
             whose rules decide."
                .to_owned(),
        ],
        tables: vec![Shown::of(
            Query::OutcomesPerCrawl,
            t,
            &["crawl", "outcome", "base_state", "hosts", "share"],
            "every row",
            usize::MAX,
            |_| true,
        )],
    }
}
