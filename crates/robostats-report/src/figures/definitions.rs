//! Figure 10: which number to cite, every definition of the published
//! studies computed from the same data set, side by side (docs/crawls.md,
//! "Which number do I cite").

use super::common::{CITED, latest};
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::svg::{self, Row, colour};

/// The crawler the charts draw: the one the README asks about.
const DRAWN: &str = CITED[0];

/// The questions, each a chart: its key and the chart's caption (`{}` the
/// crawler drawn).
const QUESTIONS: [(&str, &str); 3] = [
    ("full_block", "{} disallowed every path"),
    ("has_robots_txt", "Has a robots.txt"),
    (
        "no_ai_training",
        "{} may fetch /, yet is told no AI training",
    ),
];

/// `crawl`'s rows of `question` about `agent` (none: the rows about no
/// one crawler), in the query's order of definitions.
fn rows_of<'a>(
    t: &'a Table,
    crawl: &str,
    question: &str,
    agent: Option<&str>,
) -> impl Iterator<Item = &'a Vec<Value>> {
    let (crawl, question) = (crawl.to_owned(), question.to_owned());
    let agent = agent.map(str::to_owned);
    t.rows.iter().filter(move |r| {
        t.text(r, "crawl") == crawl
            && t.text(r, "question") == question
            && match &agent {
                Some(a) => t.text(r, "agent") == a,
                None => r[t.col("agent")].is_null(),
            }
    })
}

/// The rows a question's chart draws: the drawn crawler's, then those
/// about no one crawler.
fn drawn<'a>(t: &'a Table, crawl: &str, question: &str) -> Vec<&'a Vec<Value>> {
    rows_of(t, crawl, question, Some(DRAWN))
        .chain(rows_of(t, crawl, question, None))
        .collect()
}

/// A definition of `definitions.sql` in words, for a bar's label (the
/// table beside the chart keeps the query's names).
fn label(definition: &str) -> &str {
    match definition {
        "captures" => "parsed captures",
        "captures_effective" => "captures, after the HTTP outcome",
        "captures_named" => "captures naming it",
        "captures_valid" => "captures of a valid robots.txt",
        "captures_may_fetch" => "captures letting it fetch /",
        "hosts" => "hosts",
        "hosts_2xx" => "hosts with a 2xx",
        "hosts_2xx_404" => "hosts with a 2xx or 404",
        "hosts_200" => "hosts with a 200",
        "hosts_with_rules" => "hosts with a rule",
        "hosts_2xx_any_ai" => "hosts with a 2xx, any AI crawler",
        "cc_hosts" => "hosts, by Common Crawl's precedence",
        "cc_hosts_robots_txt" => "hosts, Common Crawl: a robots.txt",
        "cc_hosts_with_rules" => "hosts, Common Crawl: with rules",
        "fan_domains" => "registered domains",
        other => other,
    }
}

/// A bar per row: its definition, its share, under a heading naming the
/// study whose definition it is (once for consecutive rows of a study);
/// and the text after each bar, its share as a citation gives it (to a
/// tenth of a percent) and the numerator of the denominator.
fn shape(t: &Table, rows: &[&Vec<Value>]) -> (Vec<Row>, Vec<String>) {
    let mut last = String::new();
    let mut bars = Vec::new();
    let mut texts = Vec::new();
    for r in rows {
        let study = t.text(r, "study").to_owned();
        let group = (study != last).then(|| study.clone());
        last = study;
        let share = r[t.col("share")].as_f64();
        bars.push(Row {
            label: label(t.text(r, "definition")).to_owned(),
            values: vec![share.unwrap_or(0.0)],
            group,
        });
        let of = format!(
            "{} of {}",
            svg::count(t.num(r, "numerator")),
            svg::count(t.num(r, "denominator"))
        );
        texts.push(match share {
            Some(s) => format!("{:.1} % ({of})", s * 100.0),
            None => format!("n/a ({of})"),
        });
    }
    (bars, texts)
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::Definitions);
    let crawl = latest(t).unwrap_or_default();
    let charts = QUESTIONS
        .iter()
        .map(|(question, caption)| {
            let caption = caption.replace("{}", DRAWN);
            let (rows, texts) = shape(t, &drawn(t, &crawl, question));
            let svg = svg::grouped_bars(&caption, &rows, colour::BLUE, &texts);
            (caption, svg)
        })
        .collect();
    Figure {
        id: "definitions",
        title: format!("Which number to cite: every definition, {crawl}"),
        charts,
        definition: vec![
            format!(
                "Each bar is one definition's share, numerator of denominator, computed from this \
                 data set for {crawl} (definitions.sql): per capture (every refetch counted) or \
                 per host, of every host or only of those serving a robots.txt, a host judged by \
                 its deciding capture or by its best URL in Common Crawl's precedence. Above \
                 each, whose definition it is (robostats: none of the studies'); the studies' own \
                 figures are of other populations, so they say which definition to compare \
                 with, not what this data set should give. The rows about no one crawler \
                 (hosts_2xx_any_ai, fan_domains, and every has_robots_txt row) follow {DRAWN}'s."
            ),
            format!(
                "Which to cite, and which definition each figure of this report uses: \
                 docs/crawls.md, \"Which number do I cite\". The table also gives the rows of \
                 {}, and each numerator split into named (a group naming the crawler decided) \
                 and wildcard (the * group did).",
                CITED[1..].join(", ")
            ),
        ],
        tables: vec![table(t, &crawl)],
    }
}

/// The rows drawn, in the figure's order, each question's followed by the
/// other cited crawlers' rows.
fn table(t: &Table, crawl: &str) -> Shown {
    let mut rows = Vec::new();
    for (question, _) in QUESTIONS {
        rows.extend(drawn(t, crawl, question));
        for agent in &CITED[1..] {
            rows.extend(rows_of(t, crawl, question, Some(agent)));
        }
    }
    Shown::in_order(
        Query::Definitions,
        t,
        &[
            "question",
            "agent",
            "definition",
            "numerator",
            "denominator",
            "share",
            "named",
            "wildcard",
            "study",
        ],
        format!(
            "the rows of {crawl} about {}, in the figure's order",
            CITED.join(", ")
        ),
        rows,
    )
}
