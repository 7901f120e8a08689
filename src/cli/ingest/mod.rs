//! `robostats ingest`: WARC files to Parquet tables. The flags become a
//! [`Config`](crate::pipeline::Config) in one place (`args`), the
//! library runs it while `progress` shows how far it is, and `report` says
//! how it ended.

mod args;
mod progress;
mod report;

use crate::cli::ExitCode;

pub use args::Args;

/// Runs `robostats ingest`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let ingest = args.resolve()?;
    let (summary, failed) = progress::run(&ingest)?;
    Ok(report::print(&ingest, &summary, failed))
}
