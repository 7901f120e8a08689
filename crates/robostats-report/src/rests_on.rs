//! What the report rests on, said above the figures: inputs that failed
//! (in no figure), a data set with no capture, a crawl with few robots.txt
//! captures beside the others, and the crawls that hold only web pages
//! (no robots.txt capture: listed apart, never as a crawl of the figures).

use serde_json::Value;

use super::engine::{Results, Table};
use super::queries::Query;

/// A crawl whose robots.txt captures are fewer than this share of the
/// largest crawl's is said to be thin: its shares rest on few files.
pub const THIN_CRAWL: f64 = 0.1;

/// What the report says of its data before the figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestsOn {
    /// Warnings, each a sentence: failed inputs, no capture, thin crawls.
    pub warnings: Vec<String>,
    /// The data set holds no capture at all: every figure is empty.
    pub empty: bool,
    /// The crawls of the summary: those with a robots.txt capture (or the
    /// captures of no crawl), as `data_set` rows.
    pub crawls: Vec<Vec<Value>>,
    /// The captures of web pages only (crawls without a robots.txt
    /// capture): (crawl, captures), listed apart.
    pub pages: Vec<(String, u64)>,
}

impl RestsOn {
    /// From the results of `data_set` and `failed_inputs`.
    pub fn of(results: &Results) -> RestsOn {
        let mut out = RestsOn::default();
        let ds = results.get(Query::DataSet);
        out.sort_crawls(ds);
        out.failed(results.get(Query::FailedInputs));
        let captures: f64 = ds.rows.iter().map(|r| ds.num(r, "captures")).sum();
        if captures == 0.0 {
            out.empty = true;
            out.warnings.push(
                "The data set holds no capture: every figure below is empty. Did every input \
                 fail (queries/failed_inputs.sql), or were the inputs no WARC files of \
                 robots.txt fetches?"
                    .to_owned(),
            );
        }
        out.thin(ds);
        out
    }

    /// Splits `data_set`'s rows into crawls of robots.txt fetches and
    /// crawls of web pages only.
    fn sort_crawls(&mut self, ds: &Table) {
        for row in &ds.rows {
            let robots = ds.num(row, "robots_txt_captures");
            let crawl = ds.text(row, "crawl");
            if robots == 0.0 && !crawl.is_empty() {
                self.pages
                    .push((crawl.to_owned(), ds.num(row, "captures") as u64));
            } else {
                self.crawls.push(row.clone());
            }
        }
    }

    /// A warning naming the failed inputs (the first three).
    fn failed(&mut self, fi: &Table) {
        let n = fi.rows.len();
        if n == 0 {
            return;
        }
        let named: Vec<&str> = fi
            .rows
            .iter()
            .take(3)
            .map(|r| fi.text(r, "input"))
            .collect();
        let more = if n > 3 {
            format!(", and {} more", n - 3)
        } else {
            String::new()
        };
        let (noun, verb) = if n == 1 {
            ("input", "is")
        } else {
            ("inputs", "are")
        };
        self.warnings.push(format!(
            "{n} {noun} failed and {verb} in no figure: {}{more} (queries/failed_inputs.sql \
             says why; robostats ingest tries them again).",
            named.join(", ")
        ));
    }

    /// A warning for each crawl with few robots.txt captures beside the
    /// largest.
    fn thin(&mut self, ds: &Table) {
        let sizes: Vec<(&str, f64)> = ds
            .rows
            .iter()
            .map(|r| (ds.text(r, "crawl"), ds.num(r, "robots_txt_captures")))
            .filter(|(_, n)| *n > 0.0)
            .collect();
        let Some(&(largest, most)) = sizes.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
            return;
        };
        for &(crawl, n) in &sizes {
            if n < most * THIN_CRAWL {
                self.warnings.push(format!(
                    "{} has {n} robots.txt captures, against {most} in {}: its shares rest on few \
                     files.",
                    label(crawl),
                    label(largest)
                ));
            }
        }
    }
}

/// A crawl's name, or what captures without one are.
fn label(crawl: &str) -> &str {
    if crawl.is_empty() {
        "(no crawl)"
    } else {
        crawl
    }
}
