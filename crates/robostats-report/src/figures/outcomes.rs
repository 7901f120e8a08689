//! Figure 1: the HTTP outcomes of the robots.txt fetches, per crawl.

use super::common::{crawl_label, crawls};
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, Row, Series, colour};

const OUTCOMES: [(&str, &str, &str); 7] = [
    ("rules", "2xx with rules", colour::BLUE),
    ("no_rules", "2xx without rules", colour::SKY),
    ("empty", "2xx empty", colour::YELLOW),
    ("redirect", "3xx unresolved", colour::PURPLE),
    ("4xx", "4xx", colour::GREEN),
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
             unresolved: the target has no capture in the crawl, there is no Location, or the \
             chain loops or passes 5 hops; failed: no complete response."
                .to_owned(),
        ],
        tables: vec![Shown::of(
            Query::OutcomesPerCrawl,
            t,
            &["crawl", "outcome", "hosts", "share"],
            "every row",
            usize::MAX,
            |_| true,
        )],
    }
}
