//! Figure 7: what the files name (user-agents, directives Google does not
//! use, misspelt keys, sitemap hosts), a list of bars each.

use super::common::{NAMES, report_crawl};
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

/// The first `NAMES` rows of `t`: (label, value). A user-agent is named
/// as files write it where Google's token is only part of the name
/// (`MJ12bot` is the token `mj`: `mj (MJ12bot)`).
fn top(t: &Table, label: &str, value: &str) -> Vec<(String, f64)> {
    t.rows
        .iter()
        .take(NAMES)
        .map(|r| {
            let name = t.text(r, label);
            let shown = match t.columns.iter().any(|c| c == "example_value") {
                true => named(name, t.text(r, "example_value")),
                false => name.to_owned(),
            };
            (shown, t.num(r, value))
        })
        .collect()
}

/// A product token beside a spelling of it: the spelling where it is the
/// token (in another case: `GPTBot` for `gptbot`), else both.
fn named(token: &str, example: &str) -> String {
    let example = example.trim();
    if example.is_empty() {
        token.to_owned()
    } else if example.eq_ignore_ascii_case(token) {
        example.to_owned()
    } else {
        format!("{token} ({example})")
    }
}

pub(super) fn figure(results: &Results) -> Figure {
    let crawl = report_crawl(results.get(Query::TopUserAgents));
    Figure {
        id: "names",
        title: format!("What the files name, {crawl}"),
        charts: LISTS
            .iter()
            .map(|l| {
                let bars = top(results.get(l.query), l.label, l.value);
                let svg = svg::bars(l.title, &bars, l.colour, l.shares);
                (l.caption.to_owned(), svg)
            })
            .collect(),
        definition: vec![format!(
            "Over the captures of {crawl} whose body was parsed as robots.txt. \
             User-agents: product tokens, lower case, by captures naming them (refetches \
             included). Directives: keys Google does not use (crawl-delay, host, \
             content-signal, ...), by captures. Typos: \
             keys Google accepts as a misspelling (disallaw, site-map) or does not, by lines. \
             Sitemaps: hosts of sitemap URLs, by the Sitemap lines naming one (refetches \
             included; robots_hosts: the robots.txt hosts listing one)."
        )],
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
    fn a_token_is_shown_with_the_name_it_cuts() {
        assert_eq!(named("mj", "MJ12bot"), "mj (MJ12bot)");
        assert_eq!(named("gptbot", "GPTBot"), "GPTBot");
        assert_eq!(named("*", "*"), "*");
    }

    #[test]
    fn each_list_draws_the_rows_its_query_keeps() {
        for list in &LISTS {
            assert_eq!(list.query.limit(), Some(NAMES as u64), "{:?}", list.query);
        }
    }
}
