//! `robostats schema`: the tables and their columns.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use robostats::batch::Table;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print Markdown tables (as in the README).
    #[arg(long)]
    markdown: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let mut out = BufWriter::new(io::stdout().lock());
    for table in Table::ALL {
        if args.markdown {
            writeln!(out, "#### `{}`\n", table.name())?;
            writeln!(out, "| column | type | description |")?;
            writeln!(out, "|---|---|---|")?;
        } else {
            writeln!(out, "{}", table.name())?;
        }
        for c in table.columns() {
            let null = if c.nullable { "" } else { " NOT NULL" };
            if args.markdown {
                writeln!(
                    out,
                    "| `{}` | {}{} | {} |",
                    c.name,
                    c.kind.sql_name(),
                    null,
                    c.description
                )?;
            } else {
                writeln!(
                    out,
                    "  {:<28} {:<26} {}",
                    c.name,
                    format!("{}{}", c.kind.sql_name(), null),
                    c.description
                )?;
            }
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
