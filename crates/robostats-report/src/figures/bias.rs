//! Figure 5: which crawlers are singled out, each crawler's full blocks
//! against those of `*`.

use super::common::{category_name, category_rank, latest};
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::svg::{self, Row};

/// A dot per crawler of `crawl` but `*` (in the report's order of
/// categories, then by bias, a heading at each category): its bias.
fn shape(t: &Table, crawl: &str) -> Vec<Row> {
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
    picked
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
        .collect()
}

pub(super) fn figure(results: &Results) -> Figure {
    let t = results.get(Query::CrawlerBias);
    let crawl = latest(t).unwrap_or_default();
    let rows = shape(t, &crawl);
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
