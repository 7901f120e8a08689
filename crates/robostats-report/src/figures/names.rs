//! Figure 7: what the files name (user-agents, directives Google does not
//! use, misspelt keys, sitemap hosts), a list of bars each.

use super::common::NAMES;
use super::{Figure, Query, Results, Shown, Table};
use crate::svg::{self, colour};

/// One list of names: its query, the columns of its bars' labels and
/// values, how its chart is drawn, and the columns its table shows.
struct List {
    query: Query,
    label: &'static str,
    value: &'static str,
    caption: &'static str,
    title: &'static str,
    colour: &'static str,
    shares: bool,
    columns: &'static [&'static str],
}

/// The lists, in the figure's order.
const LISTS: [List; 4] = [
    List {
        query: Query::TopUserAgents,
        label: "agent_token",
        value: "share_of_captures",
        caption: "User-agents named (share of robots.txt captures)",
        title: "User-agents",
        colour: colour::BLUE,
        shares: true,
        columns: &["agent_token", "captures", "share_of_captures"],
    },
    List {
        query: Query::NonstandardDirectives,
        label: "name",
        value: "share_of_captures",
        caption: "Directives Google does not use (share of robots.txt captures)",
        title: "Directives",
        colour: colour::ORANGE,
        shares: true,
        columns: &["name", "known_elsewhere", "captures", "share_of_captures"],
    },
    List {
        query: Query::Typos,
        label: "spelling",
        value: "lines",
        caption: "Misspelt keys (lines)",
        title: "Typos",
        colour: colour::PURPLE,
        shares: false,
        columns: &[
            "accepted_by_google",
            "directive",
            "spelling",
            "lines",
            "captures",
        ],
    },
    List {
        query: Query::SitemapHosts,
        label: "sitemap_host",
        value: "sitemap_lines",
        caption: "Sitemap hosts (Sitemap lines naming one)",
        title: "Sitemap hosts",
        colour: colour::GREEN,
        shares: false,
        columns: &[
            "sitemap_host",
            "sitemap_lines",
            "distinct_sitemaps",
            "robots_hosts",
        ],
    },
];

/// The first `NAMES` rows of `t`: (label, value).
fn top(t: &Table, label: &str, value: &str) -> Vec<(String, f64)> {
    t.rows
        .iter()
        .take(NAMES)
        .map(|r| (t.text(r, label).to_owned(), t.num(r, value)))
        .collect()
}

pub(super) fn figure(results: &Results) -> Figure {
    Figure {
        id: "names",
        title: "What the files name".to_owned(),
        charts: LISTS
            .iter()
            .map(|l| {
                let bars = top(results.get(l.query), l.label, l.value);
                let svg = svg::bars(l.title, &bars, l.colour, l.shares);
                (l.caption.to_owned(), svg)
            })
            .collect(),
        definition: vec![
            "Over every capture whose body was parsed as robots.txt, all crawls together. \
             User-agents: product tokens, lower case, by captures naming them (refetches \
             included). Directives: keys Google does not use (crawl-delay, host, \
             content-signal, ...), by captures. Typos: \
             keys Google accepts as a misspelling (disallaw, site-map) or does not, by lines. \
             Sitemaps: hosts of sitemap URLs, by the Sitemap lines naming one (refetches \
             included; robots_hosts: the robots.txt hosts listing one)."
                .to_owned(),
        ],
        tables: LISTS
            .iter()
            .map(|l| {
                let t = results.get(l.query);
                Shown::of(l.query, t, l.columns, "the first rows", NAMES, |_| true)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_list_draws_the_rows_its_query_keeps() {
        for list in &LISTS {
            assert_eq!(list.query.limit(), Some(NAMES as u64), "{:?}", list.query);
        }
    }
}
