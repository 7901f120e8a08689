//! Figure 4: what changed between crawls, each host's state for a crawler
//! against its state in the next crawl.

use super::common::TOP;
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::svg::{self, Row, Series, colour};

const STATES: [&str; 6] = [
    "full",
    "partial",
    "none",
    "no_robots",
    "unreachable",
    "redirect",
];

/// The pairs of consecutive crawls the query compares, sorted.
fn pairs(t: &Table) -> Vec<(String, String)> {
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
}

/// Whether row `r` compares `from` with `to`.
fn in_pair(t: &Table, r: &[Value], from: &str, to: &str) -> bool {
    t.text(r, "from_crawl") == from && t.text(r, "to_crawl") == to
}

/// Newly blocked and unblocked hosts per crawler, from `from` to `to`:
/// (crawler, newly blocked, unblocked), the most changes first.
fn changes(t: &Table, from: &str, to: &str) -> Vec<(String, f64, f64)> {
    let mut changes: Vec<(String, f64, f64)> = Vec::new();
    for r in t.rows.iter().filter(|r| in_pair(t, r, from, to)) {
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
    changes
}

/// The crawlers drawn: the `TOP` with the most changes, and `*`.
fn shown(changes: &[(String, f64, f64)]) -> Vec<String> {
    let mut shown: Vec<String> = changes.iter().take(TOP).map(|c| c.0.clone()).collect();
    if !shown.iter().any(|a| a == "*") {
        shown.push("*".to_owned());
    }
    shown
}

/// A bar per crawler drawn: its newly blocked and unblocked hosts.
fn change_rows(shown: &[String], changes: &[(String, f64, f64)]) -> Vec<Row> {
    shown
        .iter()
        .filter_map(|a| changes.iter().find(|c| &c.0 == a))
        .map(|c| Row {
            label: c.0.clone(),
            values: vec![c.1, c.2],
            group: None,
        })
        .collect()
}

/// The states, as the matrix's rows and columns: `absent` last.
fn labels() -> Vec<String> {
    STATES
        .iter()
        .map(|s| (*s).to_owned())
        .chain(std::iter::once("absent".to_owned()))
        .collect()
}

/// The hosts of `agent` from each state (a row of `labels`) in `from` to
/// each state (a column) in `to`.
fn cells(t: &Table, (from, to): (&str, &str), agent: &str, labels: &[String]) -> Vec<Vec<f64>> {
    labels
        .iter()
        .map(|f| {
            labels
                .iter()
                .map(|s| {
                    t.rows
                        .iter()
                        .filter(|r| {
                            in_pair(t, r, from, to)
                                && t.text(r, "agent") == agent
                                && state_or_absent(t.text(r, "from_state")) == f
                                && state_or_absent(t.text(r, "to_state")) == s
                        })
                        .map(|r| t.num(r, "hosts"))
                        .sum()
                })
                .collect()
        })
        .collect()
}

fn state_or_absent(state: &str) -> &str {
    if state.is_empty() { "absent" } else { state }
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::PolicyTransitions);
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
    let Some((from, to)) = pairs(t).last().cloned() else {
        one_crawl(&mut figure);
        return figure;
    };
    let changes = changes(t, &from, &to);
    let shown = shown(&changes);
    figure.charts.push((
        format!("Hosts newly blocking and unblocking each crawler, {from} to {to}"),
        svg::stacked_bars(
            "Newly blocked and unblocked hosts",
            &change_rows(&shown, &changes),
            &[
                Series::new("newly blocked", colour::VERMILLION),
                Series::new("unblocked", colour::GREEN),
            ],
            false,
        ),
    ));
    matrices(&mut figure, t, (&from, &to), &shown);
    figure.tables = tables(results, t, &shown);
    figure
}

/// With one crawl: a note in place of the charts.
fn one_crawl(figure: &mut Figure) {
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
}

/// A matrix of transitions for the first two crawlers drawn and `*`, each
/// once.
fn matrices(figure: &mut Figure, t: &Table, (from, to): (&str, &str), shown: &[String]) {
    let labels = labels();
    for agent in shown.iter().take(2).chain(std::iter::once(&"*".to_owned())) {
        if figure
            .charts
            .iter()
            .any(|c| c.0.ends_with(&format!(": {agent}")))
        {
            continue;
        }
        let cells = cells(t, (from, to), agent, &labels);
        figure.charts.push((
            format!("Transitions {from} to {to}: {agent}"),
            svg::matrix(&format!("Transitions of {agent}"), &labels, &labels, &cells),
        ));
    }
}

/// The transitions of the crawlers drawn, and every pair's body changes.
fn tables(results: &Results, t: &Table, shown: &[String]) -> Vec<Shown> {
    let b = results.get(Query::BodyChanges);
    vec![
        Shown::of(
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
        ),
        Shown::of(
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
        ),
    ]
}
