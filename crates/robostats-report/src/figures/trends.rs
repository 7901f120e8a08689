//! Figure 3: full blocks over crawls, a line per crawler (with one crawl,
//! a bar per crawler).

use super::common::{CITED, TOP, crawl_label, crawls, full_share, ranked_agents};
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, Series, colour};

/// A crawler's full-block share in each crawl of `xs`.
fn line(t: &Table, xs: &[String], agent: &str) -> Vec<Option<f64>> {
    xs.iter().map(|x| full_share(t, x, agent)).collect()
}

/// The crawlers drawn, then those left out because their line is `*`'s
/// (no group naming them blocks them in any crawl): the crawlers the docs
/// cite, then the AI and archive crawlers most often blocked in the latest
/// crawl whose line is not `*`'s, at most `TOP` with `*`, last.
fn agents(t: &Table, xs: &[String]) -> (Vec<String>, Vec<String>) {
    let latest = xs.last().map_or("", String::as_str);
    let wildcard = line(t, xs, "*");
    let ranked: Vec<String> = ranked_agents(t, latest)
        .into_iter()
        .filter(|a| a.1 == "ai" || a.1 == "archive" || CITED.contains(&a.0.as_str()))
        .map(|a| a.0)
        .filter(|a| a != "*")
        .collect();
    let (mut drawn, mut same) = (Vec::new(), Vec::new());
    for agent in ranked.iter().filter(|a| CITED.contains(&a.as_str())) {
        drawn.push(agent.clone());
    }
    for agent in ranked.iter().filter(|a| !CITED.contains(&a.as_str())) {
        if line(t, xs, agent) == wildcard {
            same.push(agent.clone());
        } else if drawn.len() < TOP - 1 {
            drawn.push(agent.clone());
        }
    }
    drawn.push("*".to_owned());
    (drawn, same)
}

/// A line per crawler: its share of full blocks in each crawl of `xs`
/// (none where the crawl has no row of it); `*` in black.
fn shape(t: &Table, xs: &[String], agents: &[String]) -> Vec<(Series, Vec<Option<f64>>)> {
    agents
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            let c = if agent == "*" {
                "#000000"
            } else {
                colour::SERIES[i % 7]
            };
            (Series::new(agent.clone(), c), line(t, xs, agent))
        })
        .collect()
}

/// Crawls as the axis names them: without the `CC-MAIN-` all share.
fn short_names(xs: &[String]) -> Vec<String> {
    let prefix = "CC-MAIN-";
    let strip = xs
        .iter()
        .all(|x| x.starts_with(prefix) && x.len() > prefix.len());
    xs.iter()
        .map(|x| {
            if strip {
                x[prefix.len()..].to_owned()
            } else {
                crawl_label(x)
            }
        })
        .collect()
}

/// The chart: lines over two or more crawls; with one, a bar per crawler.
fn chart(t: &Table, xs: &[String], agents: &[String]) -> String {
    let label = "Share of hosts that disallow the crawler every path";
    if let [crawl] = xs {
        // By share, * last (as drawn last in the lines).
        let mut bars: Vec<(String, f64)> = agents
            .iter()
            .map(|a| (a.clone(), full_share(t, crawl, a).unwrap_or(0.0)))
            .collect();
        bars.sort_by(|a, b| (a.0 == "*").cmp(&(b.0 == "*")).then(b.1.total_cmp(&a.1)));
        svg::bars(label, &bars, colour::VERMILLION, true)
    } else {
        svg::lines(label, &short_names(xs), &shape(t, xs, agents))
    }
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTrends);
    let xs = crawls(t);
    let (agents, same) = agents(t, &xs);
    let mut note = if xs.len() < 2 {
        format!(
            "The data set holds one crawl ({}): its shares are drawn as bars; a trend needs \
             two or more crawls (ingest several crawls into one output directory, or name \
             several directories).",
            crawl_label(xs.first().map_or("", String::as_str))
        )
    } else {
        format!(
            "{} crawls, ordered by crawl id (CC-MAIN- left out of their names).",
            xs.len()
        )
    };
    if !same.is_empty() {
        note.push_str(&format!(
            " Blocked only by * in every crawl, so drawn as * is: {}.",
            same.join(", ")
        ));
    }
    Figure {
        id: "trends",
        title: "Full blocks over crawls".to_owned(),
        charts: vec![(String::new(), chart(t, &xs, &agents))],
        definition: vec![
            "Per crawl, the share of its hosts whose deciding robots.txt disallows the crawler \
             every path (state full, by a named group or by *; see figure 2), for the crawlers \
             the docs cite and the AI and archive crawlers most often blocked in the latest \
             crawl, and * (black: every crawler no group names). Each crawl's denominator is \
             its own hosts: hosts that appear or vanish between crawls move the line too \
             (figure 4 separates them)."
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
