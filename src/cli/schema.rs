//! `robostats schema`: the tables and their columns, as text, as the
//! Markdown of `docs/tables.md`, or as the DuckDB views of
//! `queries/views.sql`. All three come from the tables' row types.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use robostats::classify::{Table, View};
use robostats::table::Column;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print Markdown tables (the column reference in docs/tables.md).
    #[arg(long, conflicts_with = "views")]
    markdown: bool,
    /// Print a DuckDB view per table over an output directory (the first
    /// part of queries/views.sql).
    #[arg(long)]
    views: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let mut out = BufWriter::new(io::stdout().lock());
    if args.views {
        views(&mut out)?;
    } else {
        columns(&mut out, args.markdown)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn columns(out: &mut impl Write, markdown: bool) -> io::Result<()> {
    let tables = Table::ALL.iter().map(|t| (t.name(), "", t.columns()));
    let views = View::ALL.iter().map(|v| (v.name(), " (view)", v.columns()));
    for (name, what, columns) in tables.chain(views) {
        if markdown {
            writeln!(out, "#### `{name}`{what}\n")?;
            writeln!(out, "| column | type | description |")?;
            writeln!(out, "|---|---|---|")?;
        } else {
            writeln!(out, "{name}{what}")?;
        }
        for c in columns {
            let null = if c.nullable { "" } else { " NOT NULL" };
            if markdown {
                writeln!(
                    out,
                    "| `{}` | {}{} | {} |",
                    c.name,
                    c.kind.sql_name(),
                    null,
                    c.description()
                )?;
            } else {
                writeln!(
                    out,
                    "  {:<28} {:<26} {}",
                    c.name,
                    format!("{}{}", c.kind.sql_name(), null),
                    c.description()
                )?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// One view per table over `OUT/<table>/*.parquet`, `OUT` being the DuckDB
/// variable `robostats_out` (default `out`), then the views derived from
/// them.
fn views(out: &mut impl Write) -> io::Result<()> {
    for &table in Table::ALL {
        writeln!(out, "CREATE OR REPLACE VIEW {} AS", table.name())?;
        writeln!(
            out,
            "    SELECT * FROM read_parquet(coalesce(getvariable('robostats_out'), 'out') || '/{}/*.parquet');\n",
            table.name()
        )?;
    }
    for &view in View::ALL {
        writeln!(
            out,
            "-- Derived ({}): {}",
            view.name(),
            names(view.columns())
        )?;
        writeln!(out, "CREATE OR REPLACE VIEW {} AS", view.name())?;
        writeln!(out, "{};\n", view.sql())?;
    }
    Ok(())
}

fn names(columns: &[Column]) -> String {
    columns
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}
