//! `robostats query`: one ready query of `queries/` (compiled in) over one
//! or more data sets, run in DuckDB as `report` runs its queries, its rows
//! printed (a table, CSV or JSON lines) or written by DuckDB into a file
//! (CSV, JSON lines or Parquet, with the columns' own types).

use crate::cli::ExitCode;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use robostats_report::engine::{Export, ExportFormat, Settings, Table};
use robostats_report::queries::{FILES, file};
use serde_json::Value;

use super::ranks::RankArgs;
use super::report::{data_sets, engine};
use crate::replace::temp_name;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The ready query: a file's stem of queries/ (`definitions`,
    /// `ai_crawler_blocking`...); `robostats query --list` names them all.
    #[arg(value_name = "QUERY", required_unless_present = "list")]
    name: Option<String>,
    /// Output directories of `ingest`, or its `s3://BUCKET/PREFIX/` data
    /// sets, read as one (as `robostats report` reads them).
    #[arg(value_name = "OUT|S3-URL", required_unless_present = "list")]
    outs: Vec<PathBuf>,
    /// List the ready queries, each with the first line of its comment.
    #[arg(long, conflicts_with_all = ["name", "outs"])]
    list: bool,
    /// How the rows are given: `table` (aligned text), `csv` (a header
    /// line first), `json` (an object a line) or `parquet` (with -o) [default:
    /// the output file's extension, else table on a terminal and csv
    /// elsewhere].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the rows into FILE (replaced if it exists; DuckDB writes it,
    /// with the columns' own types) instead of printing them.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// The Python that runs DuckDB (as for `robostats report`).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Seconds the query may take; then it is stopped.
    #[arg(long, value_name = "SECS", default_value_t = robostats_report::engine::DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
    /// When the query's Python fails, also print its traceback.
    #[arg(short, long)]
    verbose: bool,
    /// A rank list, which `by_rank` reads (and `host_ranks` in a query of
    /// one's own): without one, every host is unranked.
    #[command(flatten)]
    ranks: RankArgs,
}

/// How the rows are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Table,
    Csv,
    Json,
    Parquet,
}

impl Format {
    /// The format DuckDB writes a file in.
    fn export(self) -> Option<ExportFormat> {
        match self {
            Format::Table => None,
            Format::Csv => Some(ExportFormat::Csv),
            Format::Json => Some(ExportFormat::Json),
            Format::Parquet => Some(ExportFormat::Parquet),
        }
    }

    /// The format a file's extension names.
    fn of_file(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(Format::Csv),
            "json" | "jsonl" | "ndjson" => Some(Format::Json),
            "parquet" => Some(Format::Parquet),
            _ => None,
        }
    }
}

/// Runs `robostats query`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.list {
        return list();
    }
    let name = args.name.as_deref().unwrap_or_default();
    let (name, sql) = FILES
        .iter()
        .find(|(n, _)| *n == name)
        .copied()
        .with_context(|| {
            format!("there is no ready query '{name}': robostats query --list names them")
        })?;
    debug_assert_eq!(file(name), Some(sql));
    let format = match (args.format, &args.output) {
        (Some(format), _) => format,
        (None, Some(path)) => Format::of_file(path).with_context(|| {
            format!(
                "which format should {} be? Say --format csv, json or parquet",
                path.display()
            )
        })?,
        (None, None) if io::stdout().is_terminal() => Format::Table,
        (None, None) => Format::Csv,
    };
    let outs = data_sets(&args.outs)?;
    let settings = args
        .ranks
        .resolve()?
        .map(|r| r.settings())
        .unwrap_or_default();
    let engine = engine(args.python.as_deref(), args.timeout, args.verbose)?;
    match &args.output {
        Some(path) => {
            let format = format.export().context(
                "--format table is for a terminal: write csv, json or parquet to a file",
            )?;
            let written = export(&engine, &outs, (name, sql, &settings), path, format)?;
            eprintln!(
                "query: {name}: {written} rows -> {} ({})",
                path.display(),
                format.name()
            );
        }
        None => {
            if format == Format::Parquet {
                bail!("Parquet is written to a file: give -o FILE.parquet");
            }
            let table = engine.run_one(&outs, name, sql, None, &settings)?;
            let mut out = BufWriter::new(io::stdout().lock());
            print(&mut out, &table, format)?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--list`: every ready query and the first line of its comment.
fn list() -> anyhow::Result<ExitCode> {
    let mut out = BufWriter::new(io::stdout().lock());
    let width = FILES.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, sql) in FILES {
        let about = sql
            .lines()
            .find_map(|l| l.strip_prefix("--"))
            .map(str::trim)
            .unwrap_or_default();
        writeln!(out, "{name:<width$}  {about}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Has DuckDB write the rows of the query `(name, sql, settings)` into
/// `path` (a temporary file beside it, renamed over it at the end: whole or
/// not at all); the rows written.
fn export(
    engine: &robostats_report::engine::Engine,
    outs: &[robostats_report::engine::Out],
    (name, sql, settings): (&'static str, &str, &Settings),
    path: &Path,
    format: ExportFormat,
) -> anyhow::Result<u64> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = std::fs::canonicalize(&dir).with_context(|| {
        format!(
            "cannot write {}: no directory {}",
            path.display(),
            dir.display()
        )
    })?;
    let tmp = dir.join(temp_name(path)?);
    let export = Export {
        path: tmp.clone(),
        format,
    };
    let done = engine
        .run_one(outs, name, sql, Some(&export), settings)
        .map_err(anyhow::Error::from)
        .and_then(|table| {
            std::fs::rename(&tmp, path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(table.written.unwrap_or(0))
        });
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// Prints `table` in `format` (table, csv or json).
fn print(out: &mut impl Write, table: &Table, format: Format) -> io::Result<()> {
    match format {
        Format::Table => print_table(out, table),
        Format::Csv => {
            let header: Vec<String> = table.columns.iter().map(|c| csv_field(c)).collect();
            writeln!(out, "{}", header.join(","))?;
            for row in &table.rows {
                let fields: Vec<String> = row.iter().map(|v| csv_field(&text(v))).collect();
                writeln!(out, "{}", fields.join(","))?;
            }
            Ok(())
        }
        _ => {
            for row in &table.rows {
                let fields: Vec<String> = table
                    .columns
                    .iter()
                    .zip(row)
                    .map(|(c, v)| format!("{}:{v}", Value::String(c.clone())))
                    .collect();
                writeln!(out, "{{{}}}", fields.join(","))?;
            }
            Ok(())
        }
    }
}

/// Aligned columns, a header line and a rule; text escaped for a terminal
/// (the values are what strangers wrote into robots.txt files).
fn print_table(out: &mut impl Write, table: &Table) -> io::Result<()> {
    let cells: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| crate::terminal::escaped(&text(v)).into_owned())
                .collect()
        })
        .collect();
    let widths: Vec<usize> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain([c.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    writeln!(out, "{}", line(&table.columns))?;
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    writeln!(out, "{}", rule.join("  "))?;
    for row in &cells {
        writeln!(out, "{}", line(row))?;
    }
    writeln!(out, "({} rows)", table.rows.len())
}

/// A value as text: strings as they are, NULL as empty, the rest as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A CSV field (RFC 4180): quoted where it holds a comma, a quote or a
/// line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_print_as_a_table_csv_and_json_lines() {
        let table = Table {
            columns: vec!["agent".into(), "n".into(), "note".into()],
            rows: vec![
                vec![Value::from("GPTBot"), Value::from(3), Value::Null],
                vec![
                    Value::from("a,\"b\"\n"),
                    Value::from(0.5),
                    Value::from(true),
                ],
            ],
            ..Table::default()
        };
        let mut csv = Vec::new();
        print(&mut csv, &table, Format::Csv).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "agent,n,note\nGPTBot,3,\n\"a,\"\"b\"\"\n\",0.5,true\n"
        );
        let mut json = Vec::new();
        print(&mut json, &table, Format::Json).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(json)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[1]["agent"], "a,\"b\"\n");
        assert_eq!(lines[0]["note"], Value::Null);
        let mut text = Vec::new();
        print(&mut text, &table, Format::Table).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.starts_with("agent    n    note\n-------  ---  ----\n"),
            "{text}"
        );
        assert!(
            text.contains("a,\"b\"\\n") && text.ends_with("(2 rows)\n"),
            "{text}"
        );
    }
}
