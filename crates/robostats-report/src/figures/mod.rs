//! The report's figures: each drawn from the results of queries in
//! `queries/`, with the rows it shows and its definition.
//!
//! A file per figure ([`all`] lists them in the page's order; the last,
//! `popularity`, is drawn only with a rank list). Each
//! shapes its queries' rows into the values of its charts (series, rows
//! of bars, histogram bins) apart from drawing them (the calls into
//! `svg`) and writing the text around them; `common` holds what several
//! figures read the same way (crawls, crawler categories).

mod bias;
mod common;
mod copies;
mod definitions;
mod names;
mod outcomes;
mod popularity;
mod preferences;
mod restriction;
mod sizes;
mod transitions;
mod trends;

use serde_json::Value;

use super::Ranks;
use super::engine::{Results, Table};
use super::queries::Query;

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
        let rows = table.rows.iter().filter(|r| keep(r)).take(limit);
        Shown::in_order(query, table, columns, caption, rows)
    }

    /// `rows` of `table` in their order (a figure's), in `columns`.
    fn in_order<'a>(
        query: Query,
        table: &Table,
        columns: &[&str],
        caption: impl Into<String>,
        rows: impl IntoIterator<Item = &'a Vec<Value>>,
    ) -> Shown {
        let idx: Vec<usize> = columns.iter().map(|c| table.col(c)).collect();
        Shown {
            query,
            caption: caption.into(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: rows
                .into_iter()
                .map(|r| idx.iter().map(|i| r[*i].clone()).collect())
                .collect(),
        }
    }
}

/// Every figure of the report, from the queries' results: the last, who
/// blocks by popularity, only with a rank list (`ranks`).
pub fn all(results: &Results, ranks: Option<&Ranks>) -> Vec<Figure> {
    let mut figures = vec![
        outcomes::figure(results),
        restriction::figure(results),
        trends::figure(results),
        transitions::figure(results),
        bias::figure(results),
        sizes::figure(results),
        names::figure(results),
        preferences::figure(results),
        copies::figure(results),
        definitions::figure(results),
    ];
    figures.extend(popularity::figure(results, ranks));
    figures
}
