//! Figure 11, drawn only with a rank list (`--ranks`): who blocks, by
//! popularity. For each cited crawler, the hosts with a robots.txt that
//! disallow it every path, per band of the list's ranks (`by_rank.sql`),
//! named or by `*`.
//!
//! A bar is a row of the query: its share (the query's), split into the
//! parts of its denominator that its named and wildcard counts are. The
//! bands are drawn in rank order, the unranked hosts last; a band without
//! a host of the denominator is left out. The query's cumulative cuts
//! (ranks 1 to 10,000, ...) hold the bands' hosts again and are not drawn.

use super::common::{CITED, latest};
use super::{Figure, Query, Results, Shown, Table, Value};
use crate::Ranks;
use crate::svg::{self, Row, Series, colour};

/// The question drawn: the rules disallow the crawler every path.
const QUESTION: &str = "full_block";

/// Its definition drawn: of the hosts whose deciding capture is a parsed
/// 2xx ("of sites with a robots.txt", Liu et al.).
const DEFINITION: &str = "hosts_2xx";

/// A bar's segments: the query's column, its name and its colour.
const DECIDED: [(&str, &str, &str); 2] = [
    ("named", "named (a group names it)", colour::VERMILLION),
    ("wildcard", "by * (no group names it)", colour::BLUE),
];

/// A row's band: its first and last rank; the last none past the last
/// bound (the open band), both none for the unranked hosts.
type Band = (Option<i64>, Option<i64>);

fn band(t: &Table, r: &[Value]) -> Band {
    (
        r[t.col("band_first")].as_i64(),
        r[t.col("band_last")].as_i64(),
    )
}

/// A band as the charts write it: `1–1,000`, `1,000,001+`, `unranked`.
fn label(band: Band) -> String {
    match band {
        (Some(first), Some(last)) => {
            format!("{}–{}", svg::count(first as f64), svg::count(last as f64))
        }
        (Some(first), None) => format!("{}+", svg::count(first as f64)),
        (None, _) => "unranked".to_owned(),
    }
}

/// `crawl`'s rows of the question and definition drawn, about `agent`.
fn rows_of<'a>(t: &'a Table, crawl: &str, agent: &str) -> Vec<&'a Vec<Value>> {
    t.rows
        .iter()
        .filter(|r| {
            t.text(r, "crawl") == crawl
                && t.text(r, "question") == QUESTION
                && t.text(r, "definition") == DEFINITION
                && t.text(r, "agent") == agent
        })
        .collect()
}

/// Whether `band` is a cumulative cut (the top k), not a band: from rank
/// 1, and past the first band's last rank (`first_bound`: by_rank.sql's
/// `rank_bounds()[1]`).
fn is_cut(band: Band, first_bound: i64) -> bool {
    band.0 == Some(1) && band.1.is_some_and(|last| last > first_bound)
}

/// The first band's last rank: the first of `--rank-bands`, else 1,000
/// (strata.sql's default).
fn first_bound(ranks: &Ranks) -> i64 {
    ranks
        .bands
        .as_ref()
        .and_then(|b| i64::try_from(*b.first()?).ok())
        .unwrap_or(1000)
}

/// The rows `agent`'s chart draws: the disjoint bands holding a host of
/// the denominator, in rank order, then the unranked hosts.
fn drawn<'a>(t: &'a Table, crawl: &str, agent: &str, first: i64) -> Vec<&'a Vec<Value>> {
    let rows = rows_of(t, crawl, agent);
    let mut bands: Vec<&Vec<Value>> = rows
        .into_iter()
        .filter(|r| {
            let b = band(t, r);
            !is_cut(b, first) && (b.0.is_none() || t.num(r, "denominator") > 0.0)
        })
        .collect();
    // Ranked by their first rank, the unranked last.
    bands.sort_by_key(|r| {
        let b = band(t, r);
        (b.0.is_none(), b.0, b.1.is_none(), b.1)
    });
    bands
}

/// Whether any host of `crawl` is on the rank list: a ranked band of any
/// question and definition with a denominator.
fn ranks_any(t: &Table, crawl: &str) -> bool {
    t.rows.iter().any(|r| {
        t.text(r, "crawl") == crawl && band(t, r).0.is_some() && t.num(r, "denominator") > 0.0
    })
}

/// A bar per row: its label, its share split into the named and wildcard
/// parts of its denominator; and the text after it, the query's share and
/// its numerator of its denominator.
fn shape(t: &Table, rows: &[&Vec<Value>]) -> (Vec<Row>, Vec<String>) {
    let mut bars = Vec::new();
    let mut texts = Vec::new();
    for r in rows {
        let denominator = t.num(r, "denominator");
        let values = DECIDED
            .iter()
            .map(|(column, _, _)| {
                if denominator > 0.0 {
                    t.num(r, column) / denominator
                } else {
                    0.0
                }
            })
            .collect();
        bars.push(Row {
            label: label(band(t, r)),
            values,
            group: None,
        });
        let of = format!(
            "{} of {}",
            svg::count(t.num(r, "numerator")),
            svg::count(denominator)
        );
        texts.push(match r[t.col("share")].as_f64() {
            Some(share) => format!("{} ({of})", svg::percent(share)),
            None => format!("n/a ({of})"),
        });
    }
    (bars, texts)
}

/// The figure, when the report was given a rank list (and so ran
/// `by_rank.sql`).
pub(super) fn figure(results: &Results, ranks: Option<&Ranks>) -> Option<Figure> {
    let ranks = ranks?;
    let t = results.table(Query::ByRank)?;
    let crawl = latest(t).unwrap_or_default();
    let unranked_only = !ranks_any(t, &crawl);
    let series: Vec<Series> = DECIDED.iter().map(|d| Series::new(d.1, d.2)).collect();
    let shaped: Vec<_> = CITED
        .iter()
        .map(|agent| {
            (
                agent,
                shape(t, &drawn(t, &crawl, agent, first_bound(ranks))),
            )
        })
        .collect();
    // One scale for every crawler's chart, side by side.
    let largest = shaped
        .iter()
        .flat_map(|(_, (bars, _))| bars.iter().map(|r| r.values.iter().sum::<f64>()))
        .fold(0.0, f64::max);
    let charts = shaped
        .into_iter()
        .map(|(agent, (bars, texts))| {
            let mut caption =
                format!("{agent} disallowed every path, of the hosts with a robots.txt");
            if unranked_only {
                caption.push_str(": the rank list ranks no host of the data set");
            }
            let svg = svg::share_bars(&caption, &series, &bars, &texts, largest);
            (caption, svg)
        })
        .collect();
    Some(Figure {
        id: "popularity",
        title: format!("Who blocks, by popularity, {crawl}"),
        charts,
        definition: definition(ranks, &crawl, unranked_only),
        tables: vec![table(t, &crawl, first_bound(ranks))],
    })
}

/// What the figure counts, over which hosts, by which list.
fn definition(ranks: &Ranks, crawl: &str, unranked_only: bool) -> Vec<String> {
    let column = ranks
        .column
        .as_ref()
        .map_or_else(String::new, |c| format!(" (its column {c})"));
    let mut out = vec![
        format!(
            "Of the hosts of {crawl} whose deciding capture is a parsed 2xx robots.txt \
             (definitions.sql's hosts_2xx: \"of sites with a robots.txt\", Liu et al.), per band \
             of popularity: the share that disallow the crawler every path, named (a group \
             names it) or by * (no group names it and the * group decided); after each bar, the \
             share, numerator of denominator (by_rank.sql). The bands are of the ranks of \
             {}{column}: a host takes its own rank, else its registered domain's; unranked, \
             neither is on the list. A band without such a host is left out.",
            ranks.named
        ),
        "The top bands hold few hosts of a sample, and their shares rest on them. \
         by_rank.sql also gives, per band, every question and definition of definitions.sql, \
         and the cumulative cuts (ranks 1 to 10,000, 1 to 100,000, ...), which are not drawn."
            .to_owned(),
    ];
    if unranked_only {
        out.push(format!(
            "No host of {crawl} is on the rank list, by its own name or its registered domain's: \
             every host is unranked. Does the list name hosts or registered domains of this \
             data set?"
        ));
    }
    out
}

/// The rows drawn, each cited crawler's in the figure's order.
fn table(t: &Table, crawl: &str, first: i64) -> Shown {
    let rows: Vec<&Vec<Value>> = CITED
        .iter()
        .flat_map(|agent| drawn(t, crawl, agent, first))
        .collect();
    Shown::in_order(
        Query::ByRank,
        t,
        &[
            "agent",
            "band_first",
            "band_last",
            "numerator",
            "denominator",
            "share",
            "named",
            "wildcard",
        ],
        format!(
            "the rows of {crawl} drawn ({QUESTION}, {DEFINITION}), each crawler's bands in the \
             figure's order"
        ),
        rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CRAWL: &str = "CC-MAIN-2025-47";

    /// A row of `by_rank.sql` about `agent`'s full blocks of the hosts
    /// with a 2xx, in `band`: (named, wildcard, denominator).
    fn row(crawl: &str, agent: &str, band: Band, counts: (i64, i64, i64)) -> Vec<Value> {
        let (named, wildcard, denominator) = counts;
        let share = (denominator > 0).then(|| (named + wildcard) as f64 / denominator as f64);
        vec![
            json!(crawl),
            json!(QUESTION),
            json!(agent),
            json!("ai"),
            json!(DEFINITION),
            json!(band.0),
            json!(band.1),
            json!(named + wildcard),
            json!(denominator),
            json!(share),
            json!(named),
            json!(wildcard),
            json!("Liu et al. 2025, of sites with a robots.txt"),
        ]
    }

    fn table(rows: Vec<Vec<Value>>) -> Table {
        Table {
            columns: [
                "crawl",
                "question",
                "agent",
                "agent_category",
                "definition",
                "band_first",
                "band_last",
                "numerator",
                "denominator",
                "share",
                "named",
                "wildcard",
                "study",
            ]
            .map(str::to_owned)
            .to_vec(),
            rows,
            ..Table::default()
        }
    }

    /// Every band, cut and the unranked hosts of each cited crawler, out
    /// of order, the cuts first; and an older crawl's rows.
    fn ranked() -> Table {
        let bands: [(Band, (i64, i64, i64)); 9] = [
            ((Some(1), Some(100_000)), (9, 9, 90)),
            ((None, None), (3, 7, 200)),
            ((Some(1_000_001), None), (1, 0, 10)),
            ((Some(1), Some(10_000)), (6, 4, 40)),
            ((Some(10_001), Some(100_000)), (3, 5, 50)),
            ((Some(1_001), Some(10_000)), (4, 2, 20)),
            ((Some(100_001), Some(1_000_000)), (0, 0, 0)),
            ((Some(1), Some(1_000_000)), (9, 9, 90)),
            ((Some(1), Some(1_000)), (2, 2, 20)),
        ];
        let mut rows = vec![row("CC-MAIN-2025-40", "GPTBot", (None, None), (1, 1, 2))];
        for agent in CITED {
            rows.extend(bands.iter().map(|(b, c)| row(CRAWL, agent, *b, *c)));
        }
        table(rows)
    }

    fn ranks() -> Ranks {
        Ranks {
            named: "tranco.csv".to_owned(),
            list: "/data/tranco.csv".to_owned(),
            column: None,
            bands: None,
            secret: None,
        }
    }

    fn results(t: Table) -> Results {
        Results::new("1.4.0".to_owned(), 0.0, vec![(Query::ByRank, t)])
    }

    #[test]
    fn bands_in_rank_order_then_the_unranked_and_no_cut() {
        let t = ranked();
        let labels: Vec<String> = drawn(&t, CRAWL, "GPTBot", 1000)
            .into_iter()
            .map(|r| label(band(&t, r)))
            .collect();
        // 100,001–1,000,000 holds no host with a 2xx: left out.
        assert_eq!(
            labels,
            [
                "1–1,000",
                "1,001–10,000",
                "10,001–100,000",
                "1,000,001+",
                "unranked"
            ]
        );
    }

    #[test]
    fn a_cut_is_told_by_the_first_bound_even_when_the_first_band_is_empty() {
        // No host in 1–1,000: the cut 1–10,000 is still a cut.
        let rows = vec![
            row(CRAWL, "GPTBot", (Some(1_001), Some(10_000)), (1, 1, 20)),
            row(CRAWL, "GPTBot", (Some(1), Some(10_000)), (1, 1, 20)),
            row(CRAWL, "GPTBot", (None, None), (2, 3, 50)),
        ];
        let t = table(rows);
        let labels = |first| -> Vec<String> {
            drawn(&t, CRAWL, "GPTBot", first)
                .into_iter()
                .map(|r| label(band(&t, r)))
                .collect()
        };
        assert_eq!(labels(1000), ["1,001–10,000", "unranked"]);
        // --rank-bands 10000,...: 1–10,000 is the first band.
        let ranks = Ranks {
            bands: Some(vec![10_000, 20_000]),
            ..ranks()
        };
        assert_eq!(first_bound(&ranks), 10_000);
        assert_eq!(first_bound(&self::ranks()), 1_000);
    }

    #[test]
    fn each_bar_is_its_share_named_and_by_star() {
        let t = ranked();
        let rows = drawn(&t, CRAWL, "ClaudeBot", 1000);
        let (bars, texts) = shape(&t, &rows);
        for ((bar, r), text) in bars.iter().zip(&rows).zip(&texts) {
            let (named, wildcard) = (t.num(r, "named"), t.num(r, "wildcard"));
            assert_eq!(named + wildcard, t.num(r, "numerator"));
            let share = t.num(r, "share");
            assert!(
                (bar.values[0] + bar.values[1] - share).abs() < 1e-12,
                "{bar:?}"
            );
            assert_eq!(bar.values[0], named / t.num(r, "denominator"));
            assert!(text.starts_with(&svg::percent(share)), "{text}");
        }
        assert_eq!(texts[0], "20 % (4 of 20)");
        assert_eq!(texts.last().unwrap(), "5.0 % (10 of 200)");
    }

    #[test]
    fn the_figure_draws_each_cited_crawler_and_shows_the_rows_drawn() {
        let figure = figure(&results(ranked()), Some(&ranks())).unwrap();
        assert_eq!(figure.id, "popularity");
        assert_eq!(figure.title, format!("Who blocks, by popularity, {CRAWL}"));
        assert_eq!(figure.charts.len(), CITED.len());
        for ((caption, chart), agent) in figure.charts.iter().zip(CITED) {
            assert!(caption.starts_with(agent) && !caption.contains("ranks no host"));
            assert!(chart.contains("<title>1–1,000: named (a group names it): 10 %</title>"));
            assert!(chart.contains("<title>unranked: by * (no group names it): 3.5 %</title>"));
            assert!(!chart.contains("100,001–1,000,000"), "{chart}");
        }
        assert!(figure.definition[0].contains("tranco.csv"));
        let shown = &figure.tables[0];
        assert_eq!(shown.query, Query::ByRank);
        assert_eq!(shown.rows.len(), 5 * CITED.len());
        // The first crawler's bands, then the next crawler's.
        let (agent, first) = (shown.columns.iter().position(|c| c == "agent").unwrap(), 1);
        assert_eq!(shown.rows[0][agent], json!("GPTBot"));
        assert_eq!(shown.rows[0][first], json!(1));
        assert_eq!(shown.rows[4][first], Value::Null);
        assert_eq!(shown.rows[5][agent], json!("ClaudeBot"));
    }

    #[test]
    fn a_list_that_ranks_no_host_draws_the_unranked_alone_and_says_so() {
        let rows = CITED
            .iter()
            .flat_map(|agent| {
                [
                    row(CRAWL, agent, (Some(1), Some(1_000)), (0, 0, 0)),
                    row(CRAWL, agent, (Some(1_001), Some(10_000)), (0, 0, 0)),
                    row(CRAWL, agent, (Some(1), Some(10_000)), (0, 0, 0)),
                    row(CRAWL, agent, (None, None), (2, 3, 50)),
                ]
            })
            .collect();
        let t = table(rows);
        let drawn: Vec<String> = drawn(&t, CRAWL, "CCBot", 1000)
            .into_iter()
            .map(|r| label(band(&t, r)))
            .collect();
        assert_eq!(drawn, ["unranked"]);
        let figure = figure(&results(t), Some(&ranks())).unwrap();
        for (caption, chart) in &figure.charts {
            assert!(caption.ends_with("the rank list ranks no host of the data set"));
            assert!(chart.contains("unranked") && !chart.contains("1–1,000"));
        }
        assert!(figure.definition.last().unwrap().contains("No host of"));
        assert_eq!(figure.tables[0].rows.len(), CITED.len());
    }

    #[test]
    fn no_figure_without_a_rank_list() {
        assert!(figure(&results(ranked()), None).is_none());
        let without = Results::new("1.4.0".to_owned(), 0.0, Vec::new());
        assert!(figure(&without, Some(&ranks())).is_none());
        assert!(without.table(Query::ByRank).is_none());
        assert!(without.timings().is_empty());
    }

    #[test]
    fn a_cut_is_from_rank_1_past_the_first_band() {
        assert!(is_cut((Some(1), Some(10_000)), 1_000));
        assert!(!is_cut((Some(1), Some(1_000)), 1_000));
        assert!(!is_cut((Some(1_001), Some(10_000)), 1_000));
        assert!(!is_cut((None, None), 1_000));
        assert_eq!(label((Some(100_001), Some(1_000_000))), "100,001–1,000,000");
    }
}
