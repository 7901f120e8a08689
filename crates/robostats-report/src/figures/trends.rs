//! Figure 3: full blocks over crawls, a line per crawler.

use super::common::{TOP, crawl_label, crawls, full_share, ranked_agents};
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, Series, colour};

/// The crawlers drawn: the AI and archive crawlers most often blocked in
/// `crawl`, then `*`.
fn agents(t: &Table, crawl: &str) -> Vec<String> {
    let mut agents: Vec<String> = ranked_agents(t, crawl)
        .into_iter()
        .filter(|a| a.1 == "ai" || a.1 == "archive")
        .take(TOP - 1)
        .map(|a| a.0)
        .collect();
    agents.push("*".to_owned());
    agents
}

/// A line per crawler: its share of full blocks in each crawl of `xs`
/// (none where the crawl has no row of it).
fn shape(t: &Table, xs: &[String], agents: &[String]) -> Vec<(Series, Vec<Option<f64>>)> {
    agents
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            let values = xs.iter().map(|x| full_share(t, x, agent)).collect();
            let c = if agent == "*" {
                "#000000"
            } else {
                colour::SERIES[i % 8]
            };
            (Series::new(agent.clone(), c), values)
        })
        .collect()
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTrends);
    let xs = crawls(t);
    let crawl = xs.last().cloned().unwrap_or_default();
    let agents = agents(t, &crawl);
    let series = shape(t, &xs, &agents);
    let note = if xs.len() < 2 {
        "The data set holds one crawl: a trend needs two or more (ingest several crawls into \
         one output directory, or name several directories)."
            .to_owned()
    } else {
        format!("{} crawls, ordered by crawl id.", xs.len())
    };
    Figure {
        id: "trends",
        title: "Full blocks over crawls".to_owned(),
        charts: vec![(
            String::new(),
            svg::lines(
                "Share of hosts that disallow the crawler every path",
                &xs.iter().map(|x| crawl_label(x)).collect::<Vec<_>>(),
                &series,
            ),
        )],
        definition: vec![
            "Per crawl, the share of its hosts whose deciding robots.txt disallows the crawler \
             every path (state full, by a named group or by *; see figure 2), for the AI and \
             archive crawlers most often blocked in the latest crawl, and * (black: every \
             crawler no group names). Each crawl's denominator is its own hosts: hosts that \
             appear or vanish between crawls move the line too (figure 4 separates them)."
                .to_owned(),
            note,
        ],
        tables: vec![Shown::of(
            Query::PolicyTrends,
            t,
            &["crawl", "agent", "state", "decided_by", "hosts", "share"],
            "state full, the crawlers drawn",
            usize::MAX,
            |r| t.text(r, "state") == "full" && agents.iter().any(|a| a == t.text(r, "agent")),
        )],
    }
}
