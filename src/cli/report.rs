//! `robostats report`: the figures of one or more data sets as one HTML
//! page, and with `--figures`, each chart as an SVG file. The flags become
//! a [`ReportConfig`] in one place ([`Args::resolve`]); the report crate
//! (`robostats_report`) runs the queries and draws.

use crate::cli::ExitCode;
use crate::output::location::Location;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use robostats_report::engine::{Engine, Out};
use robostats_report::{Ranks, Report};

use super::ranks::RankArgs;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output directories of `ingest`, or its `s3://BUCKET/PREFIX/` data
    /// sets (read through DuckDB's httpfs extension, with the credentials
    /// ingest uses: docs/object-storage.md). Several are read as one data
    /// set: one per crawl, for example.
    #[arg(required = true, value_name = "OUT|S3-URL")]
    outs: Vec<PathBuf>,
    /// The HTML file to write (replaced if it exists).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
    /// Also write each chart as an SVG file into DIR (created if missing).
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    /// A rank list, for one more figure: who blocks, by popularity.
    #[command(flatten)]
    ranks: RankArgs,
    /// The Python that runs DuckDB [default: the first that has the
    /// duckdb package of $ROBOSTATS_PYTHON, $VIRTUAL_ENV/bin/python3, the
    /// checkout's target/python-venv (for a binary in that checkout's
    /// target/, when the user owns the venv), python3 on the PATH].
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Seconds the queries may take in all; then they are stopped and
    /// the report fails (a month's crawl takes about an hour).
    #[arg(long, value_name = "SECS", default_value_t = robostats_report::engine::DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
    /// Print nothing but errors.
    #[arg(short, long)]
    quiet: bool,
    /// When the queries' Python fails, also print its traceback.
    #[arg(short, long)]
    verbose: bool,
}

/// What `robostats report` does, every flag checked.
pub struct ReportConfig {
    /// The data sets, each checked and named once.
    outs: Vec<Out>,
    /// The HTML file.
    output: PathBuf,
    /// Where the SVG files go, if anywhere.
    figures: Option<PathBuf>,
    /// The rank list, if any: its query and figure are then added.
    ranks: Option<Ranks>,
    /// The Python that runs DuckDB, with the timeout and verbosity.
    engine: Engine,
    /// Print nothing but errors.
    quiet: bool,
}

impl Args {
    /// The report the flags ask for: the data sets checked (each opened
    /// as ingest and compact open it, for reading only; none named twice),
    /// the rank list ([`RankArgs::resolve`]), the timeout, and the Python
    /// found.
    pub fn resolve(&self) -> anyhow::Result<ReportConfig> {
        let outs = data_sets(&self.outs)?;
        let ranks = self.ranks.resolve()?;
        Ok(ReportConfig {
            outs,
            output: self.output.clone(),
            figures: self.figures.clone(),
            ranks,
            engine: engine(self.python.as_deref(), self.timeout, self.verbose)?,
            quiet: self.quiet,
        })
    }
}

/// The data sets `outs`, each opened for reading ([`open`]) and named once
/// (a directory by its canonical path, a data set on S3 by its URL).
pub(super) fn data_sets(outs: &[PathBuf]) -> anyhow::Result<Vec<Out>> {
    let (mut opened, mut seen) = (Vec::new(), Vec::new());
    for out in outs {
        let out = open(out)?;
        let place = match &out {
            Out::Dir(dir) => fs::canonicalize(dir)
                .with_context(|| format!("cannot resolve {}", dir.display()))?,
            Out::S3 { url, .. } => PathBuf::from(url),
        };
        if seen.contains(&place) {
            bail!("{} is named twice", out.name());
        }
        seen.push(place);
        opened.push(out);
    }
    Ok(opened)
}

/// The Python that runs DuckDB (`--python`, else the first found), its
/// queries allowed `timeout` seconds in all.
pub(super) fn engine(python: Option<&Path>, timeout: u64, verbose: bool) -> anyhow::Result<Engine> {
    if timeout == 0 {
        bail!("--timeout must be more than 0 seconds");
    }
    Ok(Engine::find(python)?
        .with_timeout(std::time::Duration::from_secs(timeout))
        .with_verbose(verbose))
}

/// The data set `out`, opened for reading as ingest and compact open it:
/// a directory, or a prefix of an S3 bucket (reached as ingest reaches
/// it, with the DuckDB secret that reads it there).
fn open(out: &Path) -> anyhow::Result<Out> {
    let location = Location::parse(out.as_os_str()).map_err(anyhow::Error::msg)?;
    Ok(location.open_read()?)
}

/// Runs `robostats report`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let config = args.resolve()?;
    let report = Report::build(&config.engine, &config.outs, config.ranks.as_ref())?;
    let written = write(&config, &report)?;
    // What the figures rest on, said on the terminal too (the page shows
    // it above them).
    for warning in &report.rests_on.warnings {
        eprintln!("robostats: warning: {warning}");
    }
    if !config.quiet {
        let (prepare, queries) = &report.timings;
        let slowest: Vec<String> = queries
            .iter()
            .take(3)
            .map(|(name, s)| format!("{name} {s:.1} s"))
            .collect();
        eprintln!(
            "report: {} figures from {} data set(s) in {:.1} s (DuckDB {} via {}; views and hosts \
             {prepare:.1} s, slowest queries: {}) -> {}",
            report.figures.len(),
            config.outs.len(),
            started.elapsed().as_secs_f64(),
            report.duckdb,
            config.engine.python().display(),
            slowest.join(", "),
            written.join(", ")
        );
    }
    // A page of empty figures is no report: exit status 1.
    Ok(if report.rests_on.empty {
        ExitCode(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes the page and the SVG files; returns what it wrote, in words.
fn write(config: &ReportConfig, report: &Report) -> anyhow::Result<Vec<String>> {
    crate::replace::write_replacing(&config.output, report.html().as_bytes())?;
    let mut written = vec![config.output.display().to_string()];
    if let Some(dir) = &config.figures {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for (name, svg) in report.svg_files() {
            crate::replace::write_replacing(&dir.join(name), svg.as_bytes())?;
        }
        // Joined, not formatted: `--figures figures/` is `figures/*.svg`.
        written.push(dir.join("*.svg").display().to_string());
    }
    Ok(written)
}
