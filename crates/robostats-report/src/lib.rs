//! `robostats report`: a data set's figures, from the queries of
//! `queries/`, as one self-contained HTML page (and each chart as SVG).
//!
//! ```text
//! OUT/<table>/*.parquet --engine (DuckDB: the views, then queries/*.sql)--> query results
//!   --figures--> charts (svg) + the rows they show + definitions --html--> one page
//! ```
//!
//! Every number it shows comes from a query's result, as a user running
//! that query gets it. The figures only shape those rows for drawing,
//! and each figure's file says how: they order and cut rows to the few a
//! chart can show, lay a query's rows out as the bins of a histogram
//! (`figures/sizes.rs`: line counts past 60 added into one bin; the
//! power-of-two size bins of the query on a log axis, empty ones
//! between), and pick each bar's value out of a query's rows. Sums and
//! shares over a query's rows are the query's own columns (a crawler's
//! share of hosts in a state, whoever decided, is `policy_trends`'
//! `state_share`); the page shows the rows used. (One bar is split:
//! `figures/popularity.rs` draws a row's share, the query's, as the parts
//! of its denominator that its named and wildcard counts are.)
//!
//! Given a rank list ([`Ranks`], `--ranks`), the report also runs the
//! queries that read one (`by_rank.sql`), with the list in DuckDB's
//! variables, and draws one more figure; without one, neither.
//!
//! This crate is the `robostats` command's printer: it reads the tables
//! that ingest wrote (through DuckDB) and depends on no part of the ingest
//! but the tables' names and views (`robostats-rows`). Whether a
//! directory is a data set is the output library's to say: the command
//! opens each with `Dataset::open_read` (`robostats::output::dataset`)
//! before [`Report::build`].
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod engine;
pub mod figures;
pub mod html;
mod links;
mod out;
mod process;
mod python;
pub mod queries;
pub mod rests_on;
pub mod svg;
mod text;

use engine::{Engine, EngineError, Out, Secret, Settings, Table};
use figures::Figure;
use queries::Query;

/// A report on one or more data sets read as one.
#[derive(Debug)]
pub struct Report {
    /// The data sets, as named.
    pub outs: Vec<String>,
    /// `queries/data_set.sql`: the data set per crawl.
    pub data_set: Table,
    /// What the figures rest on: failed inputs, an empty data set, thin
    /// crawls, crawls of web pages only.
    pub rests_on: rests_on::RestsOn,
    /// The figures, in order.
    pub figures: Vec<Figure>,
    /// DuckDB's version.
    pub duckdb: String,
    /// Seconds to create the views and `crawl_hosts`' rows, then each
    /// query's (slowest first).
    pub timings: (f64, Vec<(String, f64)>),
}

/// A rank list of hosts or registered domains (`--ranks`): Tranco's CSV,
/// a CSV or Parquet file of ranks and names, or Common Crawl's Host Index
/// (`queries/strata.sql` says how each is read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks {
    /// The list as the user named it, for the page.
    pub named: String,
    /// The list as DuckDB reads it: a file, a glob or an `s3://` URL (a
    /// local one by its absolute path: the queries run in a directory of
    /// their own).
    pub list: String,
    /// The column of ranks (or of scores, in a Host Index), when not the
    /// list's default.
    pub column: Option<String>,
    /// The bands' last ranks, increasing, when not the default.
    pub bands: Option<Vec<u64>>,
    /// The S3 secret that reads a list on S3, with its scope
    /// (`s3://bucket/`).
    pub secret: Option<(String, Secret)>,
}

impl Ranks {
    /// What a run that reads the list sets: the variables
    /// `robostats_ranks` and (when given) `robostats_rank_column` and
    /// `robostats_rank_bands`, and
    /// the list's S3 secret.
    pub fn settings(&self) -> Settings {
        let mut variables = vec![("robostats_ranks".to_owned(), self.list.clone())];
        if let Some(column) = &self.column {
            variables.push(("robostats_rank_column".to_owned(), column.clone()));
        }
        if let Some(bands) = &self.bands {
            let text: Vec<String> = bands.iter().map(u64::to_string).collect();
            variables.push(("robostats_rank_bands".to_owned(), text.join(",")));
        }
        Settings {
            variables,
            secrets: self.secret.iter().cloned().collect(),
        }
    }
}

impl Report {
    /// Runs the report's queries over `outs` (their tables read as one
    /// data set), with `ranks` those that read a rank list too, and draws
    /// the figures.
    pub fn build(
        engine: &Engine,
        outs: &[Out],
        ranks: Option<&Ranks>,
    ) -> Result<Report, EngineError> {
        let settings = ranks.map(Ranks::settings).unwrap_or_default();
        let queries = Query::of_report(ranks.is_some());
        let results = engine.run(outs, &queries, &settings)?;
        Ok(Report {
            outs: outs.iter().map(Out::name).collect(),
            data_set: results.get(Query::DataSet).clone(),
            rests_on: rests_on::RestsOn::of(&results),
            figures: figures::all(&results, ranks),
            duckdb: results.duckdb.clone(),
            timings: (
                results.prepare_seconds,
                results
                    .timings()
                    .into_iter()
                    .map(|(n, s)| (n.to_owned(), s))
                    .collect(),
            ),
        })
    }

    /// The page.
    pub fn html(&self) -> String {
        html::page(self)
    }

    /// Each chart as a standalone SVG file: `NN-id.svg`, or `NN-id-K.svg`
    /// for a figure of several charts; each under its figure's heading and
    /// its caption, which a chart taken out of the page would lose.
    pub fn svg_files(&self) -> Vec<(String, String)> {
        let mut files = Vec::new();
        for (i, f) in self.figures.iter().enumerate() {
            for (k, (caption, svg)) in f.charts.iter().enumerate() {
                let name = if f.charts.len() == 1 {
                    format!("{:02}-{}.svg", i + 1, f.id)
                } else {
                    format!("{:02}-{}-{}.svg", i + 1, f.id, k + 1)
                };
                let heading = format!("{}. {}", i + 1, f.title);
                files.push((
                    name,
                    format!(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
                        svg::titled(svg, &heading, caption)
                    ),
                ));
            }
        }
        files
    }
}
