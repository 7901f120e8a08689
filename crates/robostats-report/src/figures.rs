//! The report's figures: each drawn from the results of queries in
//! `queries/`, with the rows it shows and its definition.

use serde_json::Value;

use super::engine::{Results, Table};
use super::queries::Query;
use super::svg::{self, Histogram, Row, Series, colour};

/// One figure: its charts, the query rows behind them, and what it means.
#[derive(Debug)]
pub struct Figure {
    /// A short name, for the file `--figures` writes (`NN-id.svg`).
    pub id: &'static str,
    /// The heading.
    pub title: String,
    /// The charts, as standalone SVG, each with a caption.
    pub charts: Vec<(String, String)>,
    /// What is counted, over which denominator (plain text paragraphs).
    pub definition: Vec<String>,
    /// The numbers: rows of queries, as the queries return them.
    pub tables: Vec<Shown>,
}

/// Rows of one query, some of its columns: what a figure shows.
#[derive(Debug)]
pub struct Shown {
    /// The query, whose file is `queries/<stem>.sql`.
    pub query: Query,
    /// Which of its rows these are.
    pub caption: String,
    /// Columns shown, as the query names them.
    pub columns: Vec<String>,
    /// The rows' values in those columns.
    pub rows: Vec<Vec<Value>>,
}

impl Shown {
    /// The rows of `table` that `keep` accepts (at most `limit`), in
    /// `columns`.
    fn of(
        query: Query,
        table: &Table,
        columns: &[&str],
        caption: impl Into<String>,
        limit: usize,
        keep: impl Fn(&[Value]) -> bool,
    ) -> Shown {
        let idx: Vec<usize> = columns.iter().map(|c| table.col(c)).collect();
        Shown {
            query,
            caption: caption.into(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: table
                .rows
                .iter()
                .filter(|r| keep(r))
                .take(limit)
                .map(|r| idx.iter().map(|i| r[*i].clone()).collect())
                .collect(),
        }
    }
}

/// Crawls in the order of a query's `crawl` column, without repeats.
fn crawls(table: &Table) -> Vec<String> {
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
fn crawl_label(crawl: &str) -> String {
    if crawl.is_empty() {
        "(no crawl)".to_owned()
    } else {
        crawl.to_owned()
    }
}

/// Every figure of the report, from the queries' results.
pub fn all(results: &Results) -> Vec<Figure> {
    vec![
        outcomes(results),
        restriction(results),
        trends(results),
        transitions(results),
        bias(results),
        sizes(results),
        names(results),
        preferences(results),
        copies(results),
    ]
}

const OUTCOMES: [(&str, &str, &str); 7] = [
    ("rules", "2xx with rules", colour::BLUE),
    ("no_rules", "2xx without rules", colour::SKY),
    ("empty", "2xx empty", colour::YELLOW),
    ("redirect", "3xx unresolved", colour::PURPLE),
    ("4xx", "4xx", colour::GREEN),
    ("5xx_429", "5xx or 429", colour::VERMILLION),
    ("failed", "failed", colour::DARK),
];

fn outcomes(results: &Results) -> Figure {
    let t = results.get(Query::OutcomesPerCrawl);
    let rows: Vec<Row> = crawls(t)
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
        .collect();
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

/// The report's order of crawler categories: AI crawlers first.
const CATEGORIES: [(&str, &str); 6] = [
    ("ai", "AI crawlers"),
    ("archive", "archives and data sets"),
    ("search", "search engines"),
    ("ads", "advertising"),
    ("seo", "SEO tools"),
    ("global", "* (a crawler no group names)"),
];

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

/// The latest crawl of a query's result (its last `crawl`).
fn latest(t: &Table) -> Option<String> {
    crawls(t).pop()
}

/// Agents of the latest crawl's `policy_trends` rows, by category (AI
/// first), then by their share of full blocks, descending.
fn ranked_agents(t: &Table, crawl: &str) -> Vec<(String, String, f64)> {
    let mut agents: Vec<(String, String, f64)> = Vec::new();
    for r in t.rows.iter().filter(|r| t.text(r, "crawl") == crawl) {
        let agent = t.text(r, "agent");
        let full = if t.text(r, "state") == "full" {
            t.num(r, "share")
        } else {
            0.0
        };
        match agents.iter_mut().find(|a| a.0 == agent) {
            Some(a) => a.2 += full,
            None => agents.push((
                agent.to_owned(),
                t.text(r, "agent_category").to_owned(),
                full,
            )),
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

/// A category's place in the report's order (AI first; unknown last).
fn category_rank(category: &str) -> usize {
    CATEGORIES
        .iter()
        .position(|k| k.0 == category)
        .unwrap_or(CATEGORIES.len())
}

fn category_name(category: &str) -> String {
    CATEGORIES
        .iter()
        .find(|c| c.0 == category)
        .map_or(category, |c| c.1)
        .to_owned()
}

fn restriction(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTrends);
    let crawl = latest(t).unwrap_or_default();
    let mut rows = Vec::new();
    let mut last_category = String::new();
    for (agent, category, _) in ranked_agents(t, &crawl) {
        let values = SEGMENTS
            .iter()
            .map(|(state, by, _, _)| {
                t.rows
                    .iter()
                    .filter(|r| {
                        t.text(r, "crawl") == crawl
                            && t.text(r, "agent") == agent
                            && t.text(r, "state") == *state
                            && by.is_none_or(|b| t.text(r, "decided_by") == b)
                    })
                    .map(|r| t.num(r, "share"))
                    .sum()
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

/// At most this many crawlers per line chart or list of changes.
const TOP: usize = 8;

fn trends(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTrends);
    let xs = crawls(t);
    let crawl = xs.last().cloned().unwrap_or_default();
    let mut agents: Vec<String> = ranked_agents(t, &crawl)
        .into_iter()
        .filter(|a| a.1 == "ai" || a.1 == "archive")
        .take(TOP - 1)
        .map(|a| a.0)
        .collect();
    agents.push("*".to_owned());
    let series: Vec<(Series, Vec<Option<f64>>)> = agents
        .iter()
        .enumerate()
        .map(|(i, agent)| {
            let values = xs
                .iter()
                .map(|x| {
                    let rows: Vec<&Vec<Value>> = t
                        .rows
                        .iter()
                        .filter(|r| t.text(r, "crawl") == x && t.text(r, "agent") == agent)
                        .collect();
                    (!rows.is_empty()).then(|| {
                        rows.iter()
                            .filter(|r| t.text(r, "state") == "full")
                            .map(|r| t.num(r, "share"))
                            .sum()
                    })
                })
                .collect();
            let c = if agent == "*" {
                "#000000"
            } else {
                colour::SERIES[i % 8]
            };
            (Series::new(agent.clone(), c), values)
        })
        .collect();
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

const STATES: [&str; 6] = [
    "full",
    "partial",
    "none",
    "no_robots",
    "unreachable",
    "redirect",
];

fn transitions(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTransitions);
    let pairs: Vec<(String, String)> = {
        let mut out: Vec<(String, String)> = Vec::new();
        for r in &t.rows {
            let p = (
                t.text(r, "from_crawl").to_owned(),
                t.text(r, "to_crawl").to_owned(),
            );
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out.sort();
        out
    };
    let mut figure = Figure {
        id: "transitions",
        title: "What changed between crawls".to_owned(),
        charts: Vec::new(),
        definition: vec![
            "Each host's state for a crawler in a crawl (see figure 2) against its state in \
             the next crawl present. A row is the earlier crawl's state, a column the later's; \
             absent: the host has no robots.txt capture in that crawl. Newly blocked: full in \
             the later crawl and not full (or absent) in the earlier; unblocked: the reverse. \
             The balanced panel is the hosts present in both (no absent row or column). \
             The charts compare the last two crawls; the table holds every pair of \
             consecutive crawls."
                .to_owned(),
        ],
        tables: Vec::new(),
    };
    let Some((from, to)) = pairs.last().cloned() else {
        figure.charts.push((
            String::new(),
            svg::note(
                "no transitions",
                "one crawl in the data set: no transitions to draw",
            ),
        ));
        figure
            .definition
            .push("The data set holds one crawl: transitions need two or more.".to_owned());
        return figure;
    };
    let in_pair = |r: &[Value]| t.text(r, "from_crawl") == from && t.text(r, "to_crawl") == to;
    // Newly blocked and unblocked hosts per crawler, for the last pair.
    let mut changes: Vec<(String, f64, f64)> = Vec::new();
    for r in t.rows.iter().filter(|r| in_pair(r)) {
        let (f, s) = (t.text(r, "from_state"), t.text(r, "to_state"));
        let hosts = t.num(r, "hosts");
        let newly = if s == "full" && f != "full" {
            hosts
        } else {
            0.0
        };
        let un = if f == "full" && s != "full" {
            hosts
        } else {
            0.0
        };
        let agent = t.text(r, "agent");
        match changes.iter_mut().find(|c| c.0 == agent) {
            Some(c) => {
                c.1 += newly;
                c.2 += un;
            }
            None => changes.push((agent.to_owned(), newly, un)),
        }
    }
    changes.sort_by(|a, b| (b.1 + b.2).total_cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0)));
    let mut shown: Vec<String> = changes.iter().take(TOP).map(|c| c.0.clone()).collect();
    if !shown.iter().any(|a| a == "*") {
        shown.push("*".to_owned());
    }
    let rows: Vec<Row> = shown
        .iter()
        .filter_map(|a| changes.iter().find(|c| &c.0 == a))
        .map(|c| Row {
            label: c.0.clone(),
            values: vec![c.1, c.2],
            group: None,
        })
        .collect();
    figure.charts.push((
        format!("Hosts newly blocking and unblocking each crawler, {from} to {to}"),
        svg::stacked_bars(
            "Newly blocked and unblocked hosts",
            &rows,
            &[
                Series::new("newly blocked", colour::VERMILLION),
                Series::new("unblocked", colour::GREEN),
            ],
            false,
        ),
    ));
    let labels: Vec<String> = STATES
        .iter()
        .map(|s| (*s).to_owned())
        .chain(std::iter::once("absent".to_owned()))
        .collect();
    for agent in shown.iter().take(2).chain(std::iter::once(&"*".to_owned())) {
        if figure
            .charts
            .iter()
            .any(|c| c.0.ends_with(&format!(": {agent}")))
        {
            continue;
        }
        let cells: Vec<Vec<f64>> = labels
            .iter()
            .map(|f| {
                labels
                    .iter()
                    .map(|s| {
                        t.rows
                            .iter()
                            .filter(|r| {
                                in_pair(r)
                                    && t.text(r, "agent") == agent
                                    && state_or_absent(t.text(r, "from_state")) == f
                                    && state_or_absent(t.text(r, "to_state")) == s
                            })
                            .map(|r| t.num(r, "hosts"))
                            .sum()
                    })
                    .collect()
            })
            .collect();
        figure.charts.push((
            format!("Transitions {from} to {to}: {agent}"),
            svg::matrix(&format!("Transitions of {agent}"), &labels, &labels, &cells),
        ));
    }
    figure.tables.push(Shown::of(
        Query::PolicyTransitions,
        t,
        &[
            "agent",
            "from_crawl",
            "to_crawl",
            "from_state",
            "to_state",
            "hosts",
            "body_changed",
        ],
        "the crawlers drawn",
        usize::MAX,
        |r| shown.iter().any(|a| a == t.text(r, "agent")),
    ));
    let b = results.get(Query::BodyChanges);
    figure.tables.push(Shown::of(
        Query::BodyChanges,
        b,
        &[
            "from_crawl",
            "to_crawl",
            "hosts_in_both",
            "both_2xx",
            "same_body",
            "changed_body",
            "changed_body_same_states",
            "changed_state",
        ],
        "every row: bodies that changed, and whether any crawler's state did",
        usize::MAX,
        |_| true,
    ));
    figure
}

fn state_or_absent(state: &str) -> &str {
    if state.is_empty() { "absent" } else { state }
}

fn bias(results: &Results) -> Figure {
    let t = results.get(Query::CrawlerBias);
    let crawl = latest(t).unwrap_or_default();
    let mut picked: Vec<&Vec<Value>> = t
        .rows
        .iter()
        .filter(|r| t.text(r, "crawl") == crawl && t.text(r, "agent") != "*")
        .collect();
    picked.sort_by(|a, b| {
        category_rank(t.text(a, "agent_category"))
            .cmp(&category_rank(t.text(b, "agent_category")))
            .then(t.num(b, "bias").total_cmp(&t.num(a, "bias")))
    });
    let mut last = String::new();
    let rows: Vec<Row> = picked
        .iter()
        .map(|r| {
            let category = t.text(r, "agent_category").to_owned();
            let group = (category != last).then(|| category_name(&category));
            last = category;
            let bias = r[t.col("bias")].as_f64().unwrap_or(f64::NAN);
            Row {
                label: t.text(r, "agent").to_owned(),
                values: vec![bias],
                group,
            }
        })
        .collect();
    Figure {
        id: "bias",
        title: format!("Which crawlers are singled out, {crawl}"),
        charts: vec![(
            String::new(),
            svg::dots(
                "Bias per crawler",
                &rows,
                "log2(full-block share of the crawler / that of *)",
            ),
        )],
        definition: vec![format!(
            "Over the hosts of {crawl} whose deciding capture is a 2xx robots.txt: the share \
                 that disallow the crawler every path (named or by *), divided by the share that \
                 disallow * every path, on a log2 scale: 0, blocked as often as every crawler; \
                 +1, twice as often; n/a where either share is 0 (Common Crawl's \
                 robotstxt-experiments poster; Dinzinger & Granitzer)."
        )],
        tables: vec![Shown::of(
            Query::CrawlerBias,
            t,
            &[
                "agent",
                "robots_hosts",
                "full",
                "full_share",
                "wildcard_full_share",
                "bias",
            ],
            format!("the rows of {crawl}"),
            usize::MAX,
            |r| t.text(r, "crawl") == crawl,
        )],
    }
}

/// The line counts the histogram shows one by one; the rest are one bin.
const MAX_LINES: i64 = 60;

fn sizes(results: &Results) -> Figure {
    let lc = results.get(Query::LineCounts);
    let mut bins: Vec<(String, f64)> = (0..=MAX_LINES).map(|n| (n.to_string(), 0.0)).collect();
    bins.push((format!(">{MAX_LINES}"), 0.0));
    // the template most captures of a line count are, and its share of them
    let mut made_by: Vec<Option<(String, f64)>> = vec![None; bins.len()];
    for r in &lc.rows {
        let lines = lc.num(r, "lines") as i64;
        let i = lines.clamp(0, MAX_LINES + 1) as usize;
        bins[i].1 += lc.num(r, "share");
        let template = lc.text(r, "template");
        if i as i64 == lines && !template.is_empty() {
            let part = lc.num(r, "template_captures") / lc.num(r, "captures");
            made_by[i] = Some((template.to_owned(), part));
        }
    }
    let mut peaks: Vec<usize> = (1..=MAX_LINES as usize).collect();
    peaks.sort_by(|a, b| bins[*b].1.total_cmp(&bins[*a].1));
    let marks: Vec<(usize, String)> = peaks
        .iter()
        .take(3)
        .filter(|i| bins[**i].1 > 0.0)
        .map(|&i| match &made_by[i] {
            Some((template, part)) if *part >= PEAK_TEMPLATE => (
                i,
                format!("{} lines: {template} {}", bins[i].0, svg::percent(*part)),
            ),
            _ => (i, format!("{} lines", bins[i].0)),
        })
        .collect();
    let lines_svg = svg::histogram(
        "Lines per robots.txt",
        &Histogram {
            bins: &bins,
            marks: &marks,
            tail: Some((MAX_LINES as usize + 1, colour::GREY)),
            shares: true,
            x_title: "lines (as Google counts them)",
        },
    );
    let sh = results.get(Query::SizeHistogram);
    // Every power of two up to the largest, empty bins included, so that
    // the x axis is a log scale.
    let largest = sh
        .rows
        .iter()
        .map(|r| sh.num(r, "lower_bytes"))
        .fold(0.0, f64::max);
    let mut size_bins: Vec<(String, f64)> = vec![("0".to_owned(), 0.0)];
    let mut lower = 1.0;
    while lower <= largest {
        size_bins.push((bytes(lower), 0.0));
        lower *= 2.0;
    }
    for r in &sh.rows {
        let lower = sh.num(r, "lower_bytes");
        let i = if lower < 1.0 {
            0
        } else {
            lower.log2().round() as usize + 1
        };
        if let Some(bin) = size_bins.get_mut(i) {
            bin.1 += sh.num(r, "share");
        }
    }
    // Google reads 512,000 bytes: the bin holding that size onwards is
    // the tail (it also holds bodies a little under the limit).
    let over: f64 = sh.rows.iter().map(|r| sh.num(r, "over_500kib")).sum();
    let tail =
        (over > 0.0).then(|| (512_000f64.log2().floor() as usize + 1).min(size_bins.len() - 1));
    let size_marks: Vec<(usize, String)> = tail
        .map(|i| (i, format!("{} over 500 KiB", svg::count(over))))
        .into_iter()
        .collect();
    let size_svg = svg::histogram(
        "Bytes per robots.txt",
        &Histogram {
            bins: &size_bins,
            marks: &size_marks,
            tail: tail.map(|t| (t, colour::VERMILLION)),
            shares: true,
            x_title: "bytes (bins from the size shown to twice it)",
        },
    );
    let tp = results.get(Query::Templates);
    let latest_crawl = latest(tp);
    Figure {
        id: "sizes",
        title: "Sizes and line counts".to_owned(),
        charts: vec![
            ("Lines".to_owned(), lines_svg),
            ("Bytes".to_owned(), size_svg),
        ],
        definition: vec![
            format!(
                "Share of the captures whose body was parsed as robots.txt (2xx), by lines (as \
                 Google counts them; {MAX_LINES}+ in the last bin) and by payload bytes on a log \
                 scale (bins 1-2, 2-4, ... bytes; 0 apart). The three most frequent line counts \
                 are labelled, with the platform default (template) most of their captures are \
                 when at least {} are: sharp peaks are platform defaults (Dinzinger & \
                 Granitzer's 18-line spike). Red: from the bin holding Google's 500 KiB limit \
                 (512,000 bytes), past which it does not read.",
                svg::percent(PEAK_TEMPLATE)
            ),
            "Templates: hosts whose robots.txt (their deciding capture, parsed) is a \
             platform's default file, or starts with Cloudflare's managed block; blank: no \
             known default (docs/templates.md)."
                .to_owned(),
        ],
        tables: vec![
            Shown::of(
                Query::LineCounts,
                lc,
                &["lines", "captures", "share"],
                format!("up to {MAX_LINES} lines (the last bin adds the rest)"),
                usize::MAX,
                |r| lc.num(r, "lines") <= MAX_LINES as f64,
            ),
            Shown::of(
                Query::SizeHistogram,
                sh,
                &[
                    "lower_bytes",
                    "upper_bytes",
                    "captures",
                    "share",
                    "over_500kib",
                ],
                "every row",
                usize::MAX,
                |_| true,
            ),
            Shown::of(
                Query::Templates,
                tp,
                &[
                    "platform",
                    "template",
                    "hosts",
                    "share",
                    "rulesets",
                    "example_host",
                ],
                match &latest_crawl {
                    Some(c) => format!("{}, every template found", crawl_label(c)),
                    None => "every template found".to_owned(),
                },
                usize::MAX,
                |r| {
                    latest_crawl
                        .as_deref()
                        .is_none_or(|c| tp.text(r, "crawl") == c)
                },
            ),
        ],
    }
}

/// A line-count peak is labelled with the template most of its captures
/// are when at least this share of them are.
const PEAK_TEMPLATE: f64 = 0.25;

/// Bytes as 0, 512, 1K, 64K, 1M.
fn bytes(n: f64) -> String {
    let n = n as u64;
    if n >= 1 << 20 {
        format!("{}M", n >> 20)
    } else if n >= 1 << 10 {
        format!("{}K", n >> 10)
    } else {
        n.to_string()
    }
}

/// At most this many rows per list of names (the queries' `first` in
/// `queries.rs`).
const NAMES: usize = 12;

fn names(results: &Results) -> Figure {
    let ua = results.get(Query::TopUserAgents);
    let nd = results.get(Query::NonstandardDirectives);
    let ty = results.get(Query::Typos);
    let sm = results.get(Query::SitemapHosts);
    let top = |t: &Table, label: &str, value: &str| -> Vec<(String, f64)> {
        t.rows
            .iter()
            .take(NAMES)
            .map(|r| (t.text(r, label).to_owned(), t.num(r, value)))
            .collect()
    };
    Figure {
        id: "names",
        title: "What the files name".to_owned(),
        charts: vec![
            (
                "User-agents named (share of robots.txt files)".to_owned(),
                svg::bars(
                    "User-agents",
                    &top(ua, "agent_token", "share_of_files"),
                    colour::BLUE,
                    true,
                ),
            ),
            (
                "Directives Google does not use (share of robots.txt files)".to_owned(),
                svg::bars(
                    "Directives",
                    &top(nd, "name", "share_of_files"),
                    colour::ORANGE,
                    true,
                ),
            ),
            (
                "Misspelt keys (lines)".to_owned(),
                svg::bars(
                    "Typos",
                    &top(ty, "spelling", "lines"),
                    colour::PURPLE,
                    false,
                ),
            ),
            (
                "Sitemap hosts (robots.txt hosts listing one)".to_owned(),
                svg::bars(
                    "Sitemap hosts",
                    &top(sm, "sitemap_host", "robots_hosts"),
                    colour::GREEN,
                    false,
                ),
            ),
        ],
        definition: vec![
            "Over every capture whose body was parsed as robots.txt, all crawls together. \
             User-agents: product tokens, lower case, by files naming them. Directives: keys \
             Google does not use (crawl-delay, host, content-signal, ...), by files. Typos: \
             keys Google accepts as a misspelling (disallaw, site-map) or does not, by lines. \
             Sitemaps: hosts of sitemap URLs, by the robots.txt hosts listing one."
                .to_owned(),
        ],
        tables: vec![
            Shown::of(
                Query::TopUserAgents,
                ua,
                &["agent_token", "files", "share_of_files"],
                "the first rows",
                NAMES,
                |_| true,
            ),
            Shown::of(
                Query::NonstandardDirectives,
                nd,
                &["name", "known_elsewhere", "files", "share_of_files"],
                "the first rows",
                NAMES,
                |_| true,
            ),
            Shown::of(
                Query::Typos,
                ty,
                &[
                    "accepted_by_google",
                    "directive",
                    "spelling",
                    "lines",
                    "files",
                ],
                "the first rows",
                NAMES,
                |_| true,
            ),
            Shown::of(
                Query::SitemapHosts,
                sm,
                &["sitemap_host", "sitemap_lines", "robots_hosts"],
                "the first rows",
                NAMES,
                |_| true,
            ),
        ],
    }
}

fn preferences(results: &Results) -> Figure {
    let ad = results.get(Query::PreferenceAdoption);
    let pc = results.get(Query::PreferenceContradictions);
    let adoption: Vec<(String, f64)> = ad
        .rows
        .iter()
        .map(|r| {
            (
                ad.text(r, "directive").to_owned(),
                ad.num(r, "share_of_files"),
            )
        })
        .collect();
    // The values written most, per directive (the query orders each
    // directive's rows by files).
    let pl = results.get(Query::PreferenceLabels);
    let mut kept_values: Vec<&Vec<Value>> = Vec::new();
    for directive in ["content-signal", "content-usage"] {
        kept_values.extend(
            pl.rows
                .iter()
                .filter(|r| pl.text(r, "directive") == directive)
                .take(NAMES / 2),
        );
    }
    let values: Vec<(String, f64)> = kept_values
        .iter()
        .map(|r| {
            let directive = match pl.text(r, "directive") {
                "content-signal" => "Content-Signal",
                "content-usage" => "Content-Usage",
                other => other,
            };
            let label = match pl.text(r, "label") {
                "" => format!("{directive} (unreadable)"),
                label => format!("{directive} {label}={}", pl.text(r, "value")),
            };
            (label, pl.num(r, "files"))
        })
        .collect();
    let ai = |r: &[Value]| pc.text(r, "agent_category") == "ai";
    let mut said: Vec<(String, f64)> = pc
        .rows
        .iter()
        .filter(|r| ai(r))
        .map(|r| {
            (
                pc.text(r, "agent").to_owned(),
                pc.num(r, "allowed_no_ai_training_share"),
            )
        })
        .collect();
    said.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    said.truncate(NAMES);
    let kept: Vec<String> = said.iter().map(|s| s.0.clone()).collect();
    Figure {
        id: "preferences",
        title: "AI-use preferences".to_owned(),
        charts: vec![
            (
                "Files with a Content-Signal or Content-Usage line".to_owned(),
                svg::bars("Adoption", &adoption, colour::BLUE, true),
            ),
            (
                "The values written most (files)".to_owned(),
                svg::bars("Values", &values, colour::ORANGE, false),
            ),
            (
                "Files that let the crawler fetch / yet say no to AI training (share of those \
                 that let it fetch /)"
                    .to_owned(),
                svg::bars("Allowed, yet no training", &said, colour::VERMILLION, true),
            ),
        ],
        definition: vec![
            "Over every capture whose body was parsed as robots.txt, all crawls together. \
             Adoption: files with a Content-Signal (Cloudflare) or Content-Usage (IETF AIPREF) \
             line, and with either. Allowed, yet no training: of the files whose rules let the \
             AI crawler fetch /, those whose preferences for it say no to AI training \
             (Content-Usage train-ai=n, or Content-Signal ai-train=no). Values: each label and \
             value as written, by files, whatever the directive's draft or vocabulary."
                .to_owned(),
        ],
        tables: vec![
            Shown::of(
                Query::PreferenceAdoption,
                ad,
                &[
                    "directive",
                    "lines",
                    "files",
                    "share_of_files",
                    "unparseable_lines",
                ],
                "every row",
                usize::MAX,
                |_| true,
            ),
            Shown::of(
                Query::PreferenceLabels,
                pl,
                &[
                    "directive",
                    "label",
                    "value",
                    "preference",
                    "status",
                    "files",
                ],
                "the values drawn",
                usize::MAX,
                |r| kept_values.iter().any(|k| std::ptr::eq(k.as_slice(), r)),
            ),
            Shown::of(
                Query::PreferenceContradictions,
                pc,
                &[
                    "agent",
                    "allowed",
                    "allowed_no_ai_training",
                    "allowed_no_ai_training_share",
                ],
                "the AI crawlers drawn",
                usize::MAX,
                |r| ai(r) && kept.iter().any(|k| k == pc.text(r, "agent")),
            ),
        ],
    }
}

/// The crawler figure 9 shows by template.
const COPIES_AGENT: &str = "GPTBot";

fn copies(results: &Results) -> Figure {
    let tp = results.get(Query::Templates);
    let crawl = latest(tp);
    let in_crawl =
        |t: &Table, r: &[Value]| crawl.as_deref().is_none_or(|c| t.text(r, "crawl") == c);
    let name = |t: &Table, r: &[Value]| match t.text(r, "template") {
        "" => "no default".to_owned(),
        template => template.to_owned(),
    };
    let defaults: Vec<(String, f64)> = tp
        .rows
        .iter()
        .filter(|r| in_crawl(tp, r) && !tp.text(r, "template").is_empty())
        .map(|r| (name(tp, r), tp.num(r, "share")))
        .collect();
    let ab = results.get(Query::TemplateAiBlocking);
    let blocked: Vec<(String, f64)> = ab
        .rows
        .iter()
        .filter(|r| in_crawl(ab, r) && ab.text(r, "agent") == COPIES_AGENT)
        .map(|r| (name(ab, r), ab.num(r, "blocked_share")))
        .collect();
    let db = results.get(Query::DuplicateBodies);
    let label = crawl.as_deref().map_or_else(String::new, crawl_label);
    let summary = db
        .rows
        .iter()
        .find(|r| in_crawl(db, r))
        .map(|r| {
            format!(
                "In {label}, {} robots.txt captures held {} distinct bodies; the {} hosts \
                 with one served {} distinct rulesets. {} of the hosts serve a ruleset at \
                 least one other host serves, {} one at least 10 others serve, and the 10 most \
                 common rulesets are {} of the hosts.",
                svg::count(db.num(r, "captures")),
                svg::count(db.num(r, "bodies")),
                svg::count(db.num(r, "hosts")),
                svg::count(db.num(r, "host_rulesets")),
                svg::percent(db.num(r, "shared_1_share")),
                svg::percent(db.num(r, "shared_10_share")),
                svg::percent(db.num(r, "top10_share")),
            )
        })
        .unwrap_or_default();
    Figure {
        id: "copies",
        title: format!("Copies and platform defaults, {label}"),
        charts: vec![
            (
                "Hosts per platform default".to_owned(),
                svg::bars(
                    "Share of hosts serving each default",
                    &defaults,
                    colour::BLUE,
                    true,
                ),
            ),
            (
                format!("{COPIES_AGENT} shut out, by default"),
                svg::bars(
                    &format!("Share of hosts disallowing {COPIES_AGENT} everything"),
                    &blocked,
                    colour::VERMILLION,
                    true,
                ),
            ),
        ],
        definition: vec![
            summary,
            format!(
                "A host's robots.txt is its deciding capture (figure 1), when it is a parsed 2xx \
                 body. A ruleset is what a file says to crawlers, without comments, blank lines, \
                 key spelling or sitemap hosts; a default is a platform's own file (WordPress, \
                 Yoast, Shopify, Wix, Squarespace, Blogger, Drupal, Joomla, Ghost, Cloudflare's \
                 managed block in front of a site's lines, the empty file), matched on its \
                 ruleset (docs/templates.md). Above: the share of hosts with a robots.txt \
                 serving each default (the others serve none). Below: the share of each \
                 default's hosts whose rules disallow {COPIES_AGENT} every path, next to the \
                 hosts that serve no default: whether a platform or a site's owner decided."
            ),
        ],
        tables: vec![
            Shown::of(
                Query::DuplicateBodies,
                db,
                &[
                    "crawl",
                    "captures",
                    "bodies",
                    "rulesets",
                    "hosts",
                    "host_rulesets",
                    "shared_1_share",
                    "shared_10_share",
                    "top10_share",
                ],
                "every crawl",
                usize::MAX,
                |_| true,
            ),
            Shown::of(
                Query::TemplateAiBlocking,
                ab,
                &["template", "hosts", "blocked", "blocked_share"],
                format!("{COPIES_AGENT}, {label}"),
                usize::MAX,
                |r| in_crawl(ab, r) && ab.text(r, "agent") == COPIES_AGENT,
            ),
        ],
    }
}
