//! What several figures read the same way: the crawls of a query's rows,
//! and the crawlers in the report's order of categories.

use super::Table;

/// At most this many crawlers per line chart or list of changes.
pub(super) const TOP: usize = 8;

/// At most this many rows per list of names (the queries' `first` in
/// `queries.rs`).
pub(super) const NAMES: usize = 12;

/// The crawlers the README and the docs talk about: every figure that
/// picks some crawlers draws these too.
pub(super) const CITED: [&str; 4] = ["GPTBot", "ClaudeBot", "CCBot", "Google-Extended"];

/// Crawls in the order of a query's `crawl` column, without repeats.
pub(super) fn crawls(table: &Table) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for row in &table.rows {
        let crawl = table.text(row, "crawl").to_owned();
        if !out.contains(&crawl) {
            out.push(crawl);
        }
    }
    out
}

/// A crawl's name, or what a capture without one is shown as.
pub(super) fn crawl_label(crawl: &str) -> String {
    if crawl.is_empty() {
        "(no crawl)".to_owned()
    } else {
        crawl.to_owned()
    }
}

/// The latest crawl of a query's result (its last `crawl`).
pub(super) fn latest(t: &Table) -> Option<String> {
    crawls(t).pop()
}

/// The crawl of the figures whose query the report reads for one crawl
/// only (`latest` in `queries.rs`): the latest crawl with a robots.txt
/// capture, as its rows (of that crawl alone) say.
pub(super) fn report_crawl(t: &Table) -> String {
    crawl_label(&latest(t).unwrap_or_default())
}

/// The report's order of crawler categories: AI crawlers first.
const CATEGORIES: [(&str, &str); 6] = [
    ("ai", "AI crawlers"),
    ("archive", "archives and data sets"),
    ("search", "search engines"),
    ("ads", "advertising"),
    ("seo", "SEO tools"),
    ("global", "* (a crawler no group names)"),
];

/// Agents of the latest crawl's `policy_trends` rows, by category (AI
/// first), then by their share of full blocks, descending.
pub(super) fn ranked_agents(t: &Table, crawl: &str) -> Vec<(String, String, f64)> {
    let mut agents: Vec<(String, String, f64)> = Vec::new();
    for r in t.rows.iter().filter(|r| t.text(r, "crawl") == crawl) {
        let agent = t.text(r, "agent");
        if !agents.iter().any(|a| a.0 == agent) {
            let full = full_share(t, crawl, agent).unwrap_or(0.0);
            let category = t.text(r, "agent_category").to_owned();
            agents.push((agent.to_owned(), category, full));
        }
    }
    agents.sort_by(|a, b| {
        category_rank(&a.1)
            .cmp(&category_rank(&b.1))
            .then(b.2.total_cmp(&a.2))
            .then(a.0.cmp(&b.0))
    });
    agents
}

/// The share of `crawl`'s hosts that disallow `agent` every path, named
/// or by * (`policy_trends`' `state_share` of its `full` rows): 0 when
/// none does, none when the crawl has no row of the crawler.
pub(super) fn full_share(t: &Table, crawl: &str, agent: &str) -> Option<f64> {
    let mut rows = t
        .rows
        .iter()
        .filter(|r| t.text(r, "crawl") == crawl && t.text(r, "agent") == agent)
        .peekable();
    rows.peek()?;
    Some(
        rows.find(|r| t.text(r, "state") == "full")
            .map_or(0.0, |r| t.num(r, "state_share")),
    )
}

/// A category's place in the report's order (AI first; unknown last).
pub(super) fn category_rank(category: &str) -> usize {
    CATEGORIES
        .iter()
        .position(|k| k.0 == category)
        .unwrap_or(CATEGORIES.len())
}

/// A category's name as the figures write it (its key when unknown).
pub(super) fn category_name(category: &str) -> String {
    CATEGORIES
        .iter()
        .find(|c| c.0 == category)
        .map_or(category, |c| c.1)
        .to_owned()
}
