//! The data set's side: for each scope a corpus uses, the capture that
//! decides (the newest robots.txt capture of the scope at the as-of point,
//! its redirects followed), and the stored lines of the bodies those
//! captures hold. DuckDB computes both over the data set's committed state,
//! as `report` reads it (the views of `queries/`), and writes them as Parquet
//! into the run's private directory, where this module reads them back.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, TimestampMicrosecondType, UInt8Type};
use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rayon::prelude::*;
use robostats_report::engine::{Engine, Export, ExportFormat, Out, literal_pattern};

use super::Outcome;
use super::rules::{LineKind, Rebuilt};
use super::scope::Scope;

/// Where in time the deciding capture is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsOf {
    /// The newest capture in the data set.
    Latest,
    /// The newest of one crawl's captures.
    Crawl(String),
    /// The newest capture fetched at or before this second (Unix time).
    Time(i64),
}

impl AsOf {
    /// `latest`, a timestamp (`2025-01-31T12:00:00Z`, or a date: its last
    /// second, UTC) or a crawl's name.
    pub fn parse(text: &str) -> anyhow::Result<AsOf> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("latest") {
            return Ok(AsOf::Latest);
        }
        let looks_like_time = text.len() >= 10
            && text.as_bytes()[..4].iter().all(u8::is_ascii_digit)
            && text.as_bytes()[4] == b'-';
        if looks_like_time {
            let full = if text.len() == 10 {
                format!("{text}T23:59:59Z")
            } else {
                text.to_owned()
            };
            return robostats_warc::parse_warc_date(&full)
                .map(AsOf::Time)
                .with_context(|| {
                    format!(
                        "--as-of {text}: not a timestamp (YYYY-MM-DD, or \
                         YYYY-MM-DDThh:mm:ssZ, UTC)"
                    )
                });
        }
        if text.is_empty() || text.contains(['\'', '\\']) || text.chars().any(char::is_control) {
            bail!("--as-of takes latest, a crawl's name (CC-MAIN-2025-05) or a timestamp");
        }
        Ok(AsOf::Crawl(text.to_owned()))
    }

    /// The condition on `captures` it stands for.
    fn sql(&self) -> String {
        match self {
            AsOf::Latest => "true".to_owned(),
            AsOf::Crawl(crawl) => format!("crawl = {}", sql_text(crawl)),
            AsOf::Time(seconds) => format!("fetch_time <= to_timestamp({seconds})"),
        }
    }
}

/// A SQL string literal.
pub fn sql_text(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A path as a SQL string literal that DuckDB's file readers take for
/// itself alone ([`literal_pattern`]).
pub fn sql_path(path: &Path) -> String {
    sql_text(&literal_pattern(&path.to_string_lossy()))
}

/// The capture that decides for one scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Its URL (after the redirects followed).
    pub robots_url: String,
    /// Its crawl.
    pub crawl: Option<String>,
    /// When it was fetched, microseconds since the Unix epoch.
    pub fetch_time: Option<i64>,
    /// What it says.
    pub outcome: Outcome,
    /// Its body's index in [`Captures::bodies`] (a 2xx only).
    pub body: Option<u32>,
}

/// The deciding captures of a corpus's scopes, and their bodies' texts.
#[derive(Debug, Default)]
pub struct Captures {
    /// By scope number; `None`: no capture of the scope.
    pub decisions: Vec<Option<Decision>>,
    /// Each body's text, rebuilt from its stored lines.
    pub bodies: Vec<Vec<u8>>,
}

/// The deciding capture of every scope: the latest capture of each URL at
/// the as-of point (as views.sql's latest_captures picks it), the newest
/// of a scope's `/robots.txt` URLs starting, its redirects followed as
/// follow_redirects follows them (the latest capture of each target, at
/// most 5 hops, no URL twice), and the capture reached classed as
/// crawl_hosts classes it.
const DECISIONS_SQL: &str = "
WITH RECURSIVE as_of AS MATERIALIZED (
    SELECT url, url_protocol, url_host_name, url_port, url_path, url_query, crawl, fetch_time,
           google_class, google_current_class, fetch_redirect, has_rules, payload_length,
           body_digest, warc_filename, warc_record_offset
    FROM captures WHERE {as_of}
),
latest AS MATERIALIZED (
    SELECT a.* FROM as_of a
    SEMI JOIN (SELECT max({has_time: fetch_time IS NOT NULL, fetch_time: fetch_time,
                           warc_filename: warc_filename, warc_record_offset: warc_record_offset}) AS k
               FROM as_of GROUP BY url) l
        ON a.warc_filename = l.k.warc_filename AND a.warc_record_offset = l.k.warc_record_offset
),
starts AS (
    SELECT s.scope, l.*
    FROM read_parquet({scopes}, hive_partitioning = false) s
    JOIN latest l ON l.url_protocol = s.scheme AND l.url_host_name = s.host AND l.url_port = s.port
    WHERE l.url_path = '/robots.txt' AND l.url_query IS NULL
    QUALIFY row_number() OVER (PARTITION BY s.scope ORDER BY l.fetch_time DESC NULLS LAST,
                               l.warc_filename DESC, l.warc_record_offset DESC) = 1
),
chain AS (
    SELECT scope, 0 AS hop, [url] AS urls, url, crawl, fetch_time, google_class,
           google_current_class, fetch_redirect, has_rules, payload_length, body_digest
    FROM starts
    UNION ALL
    SELECT c.scope, c.hop + 1, list_append(c.urls, t.url), t.url, t.crawl, t.fetch_time,
           t.google_class, t.google_current_class, t.fetch_redirect, t.has_rules,
           t.payload_length, t.body_digest
    FROM chain c JOIN latest t ON t.url = c.fetch_redirect
    WHERE c.google_class = 'redirect' AND c.hop < 5 AND NOT list_contains(c.urls, t.url)
)
SELECT *, CASE WHEN body_digest IS NOT NULL
                 THEN (dense_rank() OVER (ORDER BY body_digest NULLS LAST) - 1)::INTEGER END AS body
FROM (
SELECT scope::BIGINT AS scope, url AS robots_url, crawl, fetch_time,
       CASE
           WHEN google_class = 'conditional_allow' THEN
               CASE WHEN has_rules THEN 'rules' WHEN payload_length > 0 THEN 'no_rules' ELSE 'empty' END
           WHEN google_class = 'redirect' THEN
               CASE WHEN fetch_redirect IS NOT NULL AND (hop >= 5 OR list_contains(urls, fetch_redirect))
                    THEN 'too_many_hops' ELSE 'redirect' END
           WHEN google_class = 'failed' THEN 'failed'
           WHEN google_current_class = 'full_allow' THEN '4xx'
           ELSE '5xx_429'
       END AS outcome,
       CASE WHEN google_class = 'conditional_allow' THEN body_digest END AS body_digest
FROM chain
QUALIFY row_number() OVER (PARTITION BY scope ORDER BY hop DESC) = 1
)
";

/// The stored lines of the deciding bodies (numbered as the decisions
/// number them), each as [`Rebuilt`] writes it: kind 0 to 4 in
/// [`LineKind::ALL`]'s order. In no order: sorting millions of lines costs
/// DuckDB more than grouping them costs here.
///
/// Of a file without preference lines, only the rules of the groups that
/// name a judged crawler (`{agents}`, lower case) or `*` are read: the
/// others decide for no one judged (most of a file's rules, often), and
/// without them a group's user-agent lines join the next group's, which
/// adds only crawlers not judged to it. A file with preference lines is
/// read whole: there a Content-Signal line between the user-agent lines
/// joined would change whose it is.
const LINES_SQL: &str = "
WITH used AS (SELECT DISTINCT body_digest, body FROM read_parquet({decisions}, hive_partitioning = false) WHERE body IS NOT NULL),
whole AS (SELECT DISTINCT body_digest FROM body_preference_statements SEMI JOIN used USING (body_digest)),
groups AS (
    SELECT body_digest, \"group\"
    FROM body_user_agents SEMI JOIN used USING (body_digest)
    GROUP BY ALL
    HAVING bool_or(is_global OR lower(product_token) IN ({agents}))
        OR body_digest IN (SELECT body_digest FROM whole)
)
SELECT u.body, t.line, 0::UTINYINT AS kind,
       CASE WHEN is_global THEN '*' WHEN product_token <> '' THEN product_token ELSE '0' END AS text
FROM body_user_agents t JOIN used u USING (body_digest)
UNION ALL
SELECT u.body, t.line, CASE kind WHEN 'allow' THEN 1 ELSE 2 END::UTINYINT, pattern
FROM body_rules t JOIN used u USING (body_digest) SEMI JOIN groups g USING (body_digest, \"group\")
UNION ALL
SELECT DISTINCT u.body, t.line, CASE directive WHEN 'content-signal' THEN 3 ELSE 4 END::UTINYINT,
       CASE WHEN path IS NULL THEN dictionary ELSE path || ' ' || dictionary END
FROM body_preference_statements t JOIN used u USING (body_digest)
";

/// The deciding captures of `scopes` in the data sets `outs` at `as_of`,
/// and the lines of their bodies that can decide for `agents`, computed by
/// `engine` with its files in `work` (a private directory).
pub fn load(
    engine: &Engine,
    outs: &[Out],
    scopes: &[Scope],
    agents: &[String],
    as_of: &AsOf,
    work: &Path,
    progress: &dyn Fn(super::Progress<'_>),
) -> anyhow::Result<Captures> {
    let scopes_file = work.join("scopes.parquet");
    write_scopes(&scopes_file, scopes)?;
    let decisions_file = work.join("decisions.parquet");
    let decisions_sql = DECISIONS_SQL
        .replace("{as_of}", &as_of.sql())
        .replace("{scopes}", &sql_path(&scopes_file));
    let lines_file = work.join("lines.parquet");
    // ('' stands for no agent: `IN ()` is not SQL.)
    let names: Vec<String> = agents
        .iter()
        .map(|a| sql_text(&a.to_ascii_lowercase()))
        .chain(std::iter::once("''".to_owned()))
        .collect();
    let lines_sql = LINES_SQL
        .replace("{decisions}", &sql_path(&decisions_file))
        .replace("{agents}", &names.join(", "));
    let parquet = |path: &Path| Export {
        path: path.to_owned(),
        format: ExportFormat::ParquetLz4,
    };
    let (to_decisions, to_lines) = (parquet(&decisions_file), parquet(&lines_file));
    engine.run_exports(
        outs,
        &[
            ("judge_decisions", &decisions_sql, &to_decisions),
            ("judge_lines", &lines_sql, &to_lines),
        ],
    )?;
    progress(super::Progress::Stage("reading the deciding files' lines"));
    let (decisions, bodies) = read_decisions(&decisions_file, scopes.len())?;
    let bodies = read_bodies(&lines_file, bodies)?;
    Ok(Captures { decisions, bodies })
}

/// Writes the scopes, numbered by position, for the decisions' join.
fn write_scopes(file: &Path, scopes: &[Scope]) -> anyhow::Result<()> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("scope", DataType::Int64, false),
        Field::new("scheme", DataType::Utf8, false),
        Field::new("host", DataType::Utf8, false),
        Field::new("port", DataType::Int32, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..scopes.len() as i64)),
        Arc::new(StringArray::from_iter_values(
            scopes.iter().map(|s| &s.scheme),
        )),
        Arc::new(StringArray::from_iter_values(
            scopes.iter().map(|s| &s.host),
        )),
        Arc::new(Int32Array::from_iter_values(
            scopes.iter().map(|s| i32::from(s.port)),
        )),
    ];
    let out = File::create(file).with_context(|| format!("cannot write {}", file.display()))?;
    let mut writer = ArrowWriter::try_new(out, schema.clone(), None)?;
    writer.write(&RecordBatch::try_new(schema, columns)?)?;
    writer.close()?;
    Ok(())
}

/// The batches of a Parquet file DuckDB wrote.
fn batches(file: &Path) -> anyhow::Result<impl Iterator<Item = anyhow::Result<RecordBatch>>> {
    let f = File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(f)?
        .with_batch_size(8192)
        .build()?;
    Ok(reader.map(|b| b.map_err(anyhow::Error::from)))
}

/// A column of `batch` by name.
fn column<'b>(batch: &'b RecordBatch, name: &str) -> anyhow::Result<&'b ArrayRef> {
    batch
        .column_by_name(name)
        .with_context(|| format!("DuckDB's answer has no column {name}"))
}

/// One stored line: its number, kind and where its text is.
#[derive(Clone, Copy)]
struct Stored {
    line: u32,
    kind: u8,
    text: (usize, usize),
}

/// The texts of `bodies` bodies, rebuilt from the lines DuckDB wrote: each
/// body's lines gathered, put in line order, written.
fn read_bodies(file: &Path, bodies: usize) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut lines: Vec<Vec<Stored>> = vec![Vec::new(); bodies];
    let mut texts: Vec<u8> = Vec::new();
    for batch in batches(file)? {
        let batch = batch?;
        let body = column(&batch, "body")?.as_primitive::<Int32Type>();
        let line = column(&batch, "line")?.as_primitive::<Int32Type>();
        let kind = column(&batch, "kind")?.as_primitive::<UInt8Type>();
        let text = column(&batch, "text")?.as_string::<i32>();
        for i in 0..batch.num_rows() {
            let b = usize::try_from(body.value(i)).ok().filter(|&b| b < bodies);
            let Some(b) = b else {
                bail!("DuckDB's answer names body {}", body.value(i));
            };
            let start = texts.len();
            texts.extend_from_slice(text.value(i).as_bytes());
            lines[b].push(Stored {
                line: u32::try_from(line.value(i)).unwrap_or(0),
                kind: kind.value(i),
                text: (start, texts.len()),
            });
        }
    }
    lines
        .into_par_iter()
        .map(|mut stored| {
            stored.sort_unstable_by_key(|s| s.line);
            let mut rebuilt = Rebuilt::new();
            for s in stored {
                let Some(&kind) = LineKind::ALL.get(usize::from(s.kind)) else {
                    bail!("DuckDB's answer has a line of kind {}", s.kind);
                };
                let text = String::from_utf8_lossy(&texts[s.text.0..s.text.1]);
                rebuilt.push(s.line, kind, &text);
            }
            Ok(rebuilt.finish())
        })
        .collect()
}

/// The decisions, by scope number, and how many bodies they number.
fn read_decisions(file: &Path, scopes: usize) -> anyhow::Result<(Vec<Option<Decision>>, usize)> {
    let mut out = vec![None; scopes];
    let mut bodies = 0;
    for batch in batches(file)? {
        let batch = batch?;
        let scope = column(&batch, "scope")?.as_primitive::<Int64Type>();
        let url = column(&batch, "robots_url")?.as_string::<i32>();
        let crawl = column(&batch, "crawl")?.as_string::<i32>();
        let time = column(&batch, "fetch_time")?.as_primitive::<TimestampMicrosecondType>();
        let outcome = column(&batch, "outcome")?.as_string::<i32>();
        let body = column(&batch, "body")?.as_primitive::<Int32Type>();
        for i in 0..batch.num_rows() {
            let n = usize::try_from(scope.value(i)).ok().filter(|&n| n < scopes);
            let Some(n) = n else {
                bail!("DuckDB's answer names scope {}", scope.value(i));
            };
            let Some(outcome) = Outcome::ALL.iter().find(|o| o.as_str() == outcome.value(i)) else {
                bail!("DuckDB's answer has outcome {}", outcome.value(i));
            };
            out[n] = Some(Decision {
                robots_url: url.value(i).to_owned(),
                crawl: crawl.is_valid(i).then(|| crawl.value(i).to_owned()),
                fetch_time: time.is_valid(i).then(|| time.value(i)),
                outcome: *outcome,
                // (A 2xx body without a stored line has no rule: an empty text.)
                body: body
                    .is_valid(i)
                    .then(|| u32::try_from(body.value(i)).ok())
                    .flatten(),
            });
            if let Some(b) = out[n].as_ref().and_then(|d| d.body) {
                bodies = bodies.max(b as usize + 1);
            }
        }
    }
    Ok((out, bodies))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_of_points() {
        assert_eq!(AsOf::parse("latest").unwrap(), AsOf::Latest);
        assert_eq!(
            AsOf::parse("CC-MAIN-2025-05").unwrap(),
            AsOf::Crawl("CC-MAIN-2025-05".into())
        );
        assert_eq!(AsOf::parse("1970-01-01").unwrap(), AsOf::Time(86_399));
        assert_eq!(
            AsOf::parse("1970-01-02T00:00:00Z").unwrap(),
            AsOf::Time(86_400)
        );
        assert!(AsOf::parse("2025-13-01").is_err());
        assert!(AsOf::parse("x'; DROP").is_err());
        assert!(AsOf::parse("").is_err());
        assert_eq!(AsOf::Crawl("a".into()).sql(), "crawl = 'a'");
    }
}
