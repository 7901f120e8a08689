//! Figure 2: which crawlers the hosts of the latest crawl shut out, named
//! or by `*`, above what is the same for every crawler (hosts without a
//! robots.txt, unreachable, behind an unresolved redirect).

use super::common::{CITED, category_name, full_share, latest, ranked_agents};
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::svg::{self, Breakdown, Row, Series, colour};

/// The full blocks' segments: who decided, and how they are drawn.
const DECIDED: [(&str, &str, &str); 2] = [
    ("named", "named (a group names it)", colour::VERMILLION),
    ("wildcard", "by * (no group names it)", colour::BLUE),
];

/// The states of a host that are the same for every crawler (a host's
/// fact, not its rules'), as `policy_trends` names them.
const HOST_FACTS: [(&str, &str, &str); 3] = [
    ("no_robots", "no robots.txt", colour::SKY),
    ("redirect", "unresolved redirect", colour::PURPLE),
    ("unreachable", "unreachable", colour::DARK),
];

/// The rest of the hosts: a 2xx robots.txt, whose rules decide.
const RULES: (&str, &str) = ("a robots.txt's rules decide", "#D9D9D9");

/// The crawlers drawn, in the report's order: the AI crawlers, those the
/// docs cite, and `*`, the crawler no group names.
fn drawn(t: &Table, crawl: &str) -> Vec<(String, String)> {
    ranked_agents(t, crawl)
        .into_iter()
        .filter(|a| a.1 == "ai" || a.0 == "*" || CITED.contains(&a.0.as_str()))
        .map(|a| (a.0, a.1))
        .collect()
}

/// `crawl`'s row of `agent` in `state` (and decided by `by`, if given).
fn row<'a>(
    t: &'a Table,
    crawl: &str,
    agent: &str,
    state: &str,
    by: Option<&str>,
) -> Option<&'a Vec<Value>> {
    t.rows.iter().find(|r| {
        t.text(r, "crawl") == crawl
            && t.text(r, "agent") == agent
            && t.text(r, "state") == state
            && by.is_none_or(|b| t.text(r, "decided_by") == b)
    })
}

/// A bar per crawler drawn (a heading at each category): its full blocks'
/// shares of the hosts, named and by `*`; and the share written after it,
/// the state's share (`state_share`).
fn shape(t: &Table, crawl: &str) -> (Vec<Row>, Vec<f64>) {
    let mut rows = Vec::new();
    let mut totals = Vec::new();
    let mut last_category = String::new();
    for (agent, category) in drawn(t, crawl) {
        let values = DECIDED
            .iter()
            .map(|(by, _, _)| {
                row(t, crawl, &agent, "full", Some(by)).map_or(0.0, |r| t.num(r, "share"))
            })
            .collect();
        totals.push(full_share(t, crawl, &agent).unwrap_or(0.0));
        let group = (category != last_category).then(|| category_name(&category));
        last_category = category;
        rows.push(Row {
            label: agent,
            values,
            group,
        });
    }
    (rows, totals)
}

/// The hosts' facts (read from `*`'s rows: they are every crawler's), each
/// state's share of the hosts, after the share whose rules decide.
fn baseline(t: &Table, crawl: &str) -> Vec<(Series, f64)> {
    let facts: Vec<(Series, f64)> = HOST_FACTS
        .iter()
        .map(|(state, name, c)| {
            let share = row(t, crawl, "*", state, None).map_or(0.0, |r| t.num(r, "state_share"));
            (Series::new(*name, *c), share)
        })
        .collect();
    let rest = 1.0 - facts.iter().map(|f| f.1).sum::<f64>();
    let mut parts = vec![(Series::new(RULES.0, RULES.1), rest.max(0.0))];
    parts.extend(facts);
    parts
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTrends);
    let crawl = latest(t).unwrap_or_default();
    let (rows, totals) = shape(t, &crawl);
    let whole = baseline(t, &crawl);
    let series: Vec<Series> = DECIDED.iter().map(|s| Series::new(s.1, s.2)).collect();
    let chart = svg::breakdown(
        "Hosts that disallow the crawler every path",
        &Breakdown {
            whole_title: "Every host, the same for every crawler",
            whole: &whole,
            bars_title: "Hosts that disallow the crawler every path",
            series: &series,
            rows: &rows,
            totals: &totals,
        },
    );
    Figure {
        id: "restriction",
        title: format!("Which crawlers the hosts shut out, {crawl}"),
        charts: vec![(String::new(), chart)],
        definition: vec![
            format!(
                "Shares of the hosts of {crawl} (every host with a robots.txt capture in the \
                 crawl), each judged by its deciding capture (see figure 1). Above, what is the \
                 same for every crawler: no robots.txt, a 4xx other than 429 or a redirect loop \
                 (Google then crawls everything); unresolved redirect; unreachable, a 5xx, 429 or \
                 failed fetch (Google then crawls nothing); the rest serve a 2xx robots.txt whose \
                 rules decide. Below, the hosts whose rules disallow the crawler every path \
                 (state full), the number after each bar: named, a group names the crawler \
                 (Google's matching: the longest product token that matches); by *, no group \
                 names it and the * group decided."
            ),
            "The AI crawlers, those the docs cite, and * (a crawler no group names); \
             within a category, by the share of full blocks. Crawlers that ignore the * group \
             (such as AdsBot-Google) and files without a * group count as none unless a group \
             names them. policy_trends.sql also gives every crawler's partial blocks and open \
             hosts."
                .to_owned(),
        ],
        tables: vec![table(t, &crawl)],
    }
}

/// The rows drawn, in the figure's order: the hosts' facts, then each
/// crawler's full blocks.
fn table(t: &Table, crawl: &str) -> Shown {
    let facts = HOST_FACTS
        .iter()
        .filter_map(|(state, _, _)| row(t, crawl, "*", state, None));
    let full = drawn(t, crawl).into_iter().flat_map(|(agent, _)| {
        DECIDED
            .iter()
            .filter_map(move |(by, _, _)| row(t, crawl, &agent, "full", Some(by)))
    });
    Shown::in_order(
        Query::PolicyTrends,
        t,
        &[
            "agent",
            "state",
            "decided_by",
            "hosts",
            "share",
            "state_share",
        ],
        format!("the rows of {crawl} drawn, in the figure's order"),
        facts.chain(full).collect::<Vec<_>>(),
    )
}
