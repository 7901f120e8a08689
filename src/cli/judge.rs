//! `robostats judge`: the flags become a [`judge::Config`] in one place
//! ([`Args::resolve`]); the library runs it while a bar shows how far it
//! is, and a summary says how it ended.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};

use super::report::{data_sets, engine};
use crate::classify::crawler::Policy;
use crate::cli::ExitCode;
use crate::judge::{self, AI_TRAINING, AsOf, Columns, Format, Missing, Outcome, Progress};
use crate::terminal::escaped;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The data set: an output directory of `ingest`, or its
    /// `s3://BUCKET/PREFIX/` (repeatable: several read as one).
    #[arg(long = "data-set", required = true, value_name = "OUT|S3-URL")]
    data_sets: Vec<PathBuf>,
    /// The URLs: a Parquet, CSV or TSV (with a header), JSON lines or text
    /// file (one URL a line); a directory or a glob of them; or one
    /// s3:// or https:// object.
    #[arg(long, value_name = "URLS")]
    urls: String,
    /// How the URL files are written [default: from their names; text when
    /// none says].
    #[arg(long, value_enum, value_name = "FORMAT")]
    urls_format: Option<Format>,
    /// The column holding the URLs.
    #[arg(long, value_name = "NAME", default_value = "url")]
    url_column: String,
    /// The URLs' columns copied beside the verdicts, comma-separated (''
    /// for none) [default: every column].
    #[arg(long, value_name = "COLS", value_delimiter = ',')]
    keep: Option<Vec<String>>,
    /// The Parquet file to write (replaced if it exists); with --shard, the
    /// directory of the parts.
    #[arg(short = 'o', long = "output", value_name = "FILE|DIR")]
    output: PathBuf,
    /// A crawler to judge for, by its product token (GPTBot), or * for one
    /// no group names; repeatable.
    #[arg(long = "agent", value_name = "TOKEN")]
    agents: Vec<String>,
    /// Judge for the AI-training crawlers the published corpus filters
    /// check (docs/judge.md), and add the column opted_out.
    #[arg(long)]
    ai_training: bool,
    /// Which capture decides: latest (the newest in the data set), a
    /// crawl's name (CC-MAIN-2025-05), or a timestamp (2025-01-31, or
    /// 2025-01-31T12:00:00Z: the newest fetched at or before it).
    #[arg(long, value_name = "WHEN", default_value = "latest")]
    as_of: String,
    /// What a URL gets where the data set has no capture of its robots.txt
    /// (or only a redirect to one it did not capture).
    #[arg(long, value_enum, default_value = "unknown")]
    missing: Missing,
    /// Add each agent's deciding line and rule (columns AGENT_line and
    /// AGENT_rule).
    #[arg(long)]
    explain: bool,
    /// Whose answer a verdict is: google (AdsBot-Google and Google's other
    /// special-case crawlers ignore the * group, as the tables judge them)
    /// or library (Google's C++ library).
    #[arg(long, value_name = "POLICY", default_value = "google", value_parser = Policy::parse)]
    policy: Policy,
    /// Take only shard I of N of the URL files (or auto, in a Slurm, AWS
    /// Batch or Kubernetes array job), writing its part into --output.
    #[arg(long, value_name = "I/N|auto")]
    shard: Option<String>,
    /// The number of shards, for --shard auto where the scheduler does not
    /// say it.
    #[arg(long, value_name = "N", requires = "shard")]
    shard_count: Option<u64>,
    /// The Python that runs DuckDB (as for `robostats report`).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// Seconds DuckDB may take for each of its steps.
    #[arg(long, value_name = "SECS", default_value_t = robostats_report::engine::DEFAULT_TIMEOUT.as_secs())]
    timeout: u64,
    /// Also draw the share of the URLs each crawler may not fetch as an
    /// SVG file (replaced if it exists).
    #[arg(long, value_name = "FILE.svg")]
    figure: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(short, long)]
    quiet: bool,
    /// Print each stage's time; when DuckDB's Python fails, also its
    /// traceback.
    #[arg(short, long)]
    verbose: bool,
}

impl Args {
    /// The run the flags describe.
    fn resolve(&self) -> anyhow::Result<judge::Config> {
        let mut agents: Vec<String> = Vec::new();
        if self.ai_training {
            agents.extend(AI_TRAINING.iter().map(|&a| a.to_owned()));
        }
        for agent in &self.agents {
            if agents.iter().any(|a| a.eq_ignore_ascii_case(agent)) {
                if !self.ai_training {
                    bail!("--agent {agent} is named twice");
                }
                continue;
            }
            agents.push(agent.clone());
        }
        let training = agents
            .iter()
            .map(|a| self.ai_training && AI_TRAINING.iter().any(|t| t.eq_ignore_ascii_case(a)))
            .collect();
        Ok(judge::Config {
            outs: data_sets(&self.data_sets)?,
            engine: engine(self.python.as_deref(), self.timeout, self.verbose)?,
            urls: self.urls.clone(),
            format: self.urls_format,
            columns: Columns {
                url: self.url_column.clone(),
                // (`--keep ''`: no column kept.)
                keep: self
                    .keep
                    .as_ref()
                    .map(|cols| cols.iter().filter(|c| !c.is_empty()).cloned().collect()),
            },
            output: self.output.clone(),
            agents,
            training,
            policy: self.policy,
            as_of: AsOf::parse(&self.as_of)?,
            missing: self.missing,
            explain: self.explain,
            shard: super::shard_flags(self.shard.as_deref(), self.shard_count)?,
        })
    }
}

/// Runs `robostats judge` with no display: its summary.
pub fn summary(args: &Args) -> anyhow::Result<judge::Summary> {
    judge::run(&args.resolve()?, &|_| {})
}

/// Runs `robostats judge`.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let config = args.resolve()?;
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template(
                "{elapsed_precise} {spinner} {msg} {human_pos} URLs {per_sec}",
            )
            .expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    // With --verbose, each stage's time.
    let started = std::cell::Cell::new(std::time::Instant::now());
    let show = |p: Progress<'_>| {
        if let (true, Progress::Stage(stage)) = (args.verbose, p) {
            eprintln!(
                "robostats: {:.2} s, then: {stage}",
                started
                    .replace(std::time::Instant::now())
                    .elapsed()
                    .as_secs_f64()
            );
        }
        let Some(bar) = &bar else { return };
        match p {
            Progress::Stage(stage) => bar.set_message(stage.to_owned()),
            Progress::Total(Some(n)) => {
                bar.set_length(n);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:30}] {human_pos}/{human_len} URLs {per_sec} ETA {eta}",
                    )
                    .expect("valid template"),
                );
            }
            Progress::Total(None) => {}
            Progress::Judged(n) => bar.inc(n),
        }
    };
    let summary = judge::run(&config, &show);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = summary?;
    if let Some(figure) = &args.figure {
        write_figure(figure, &summary, &args.as_of)?;
    }
    if !args.quiet {
        print_summary(&summary);
    }
    Ok(ExitCode::SUCCESS)
}

/// The figure: per crawler, the share of the URLs with a verdict that it
/// may not fetch (and, with the AI-training crawlers, opted out), the
/// shares of the summary line.
fn write_figure(path: &std::path::Path, s: &judge::Summary, as_of: &str) -> anyhow::Result<()> {
    use robostats_report::svg;
    let share = |n: u64| {
        if s.judged == 0 {
            0.0
        } else {
            n as f64 / s.judged as f64
        }
    };
    let mut rows: Vec<(String, f64)> = s
        .allowed
        .iter()
        .map(|(agent, allowed)| (agent.clone(), share(s.judged - allowed)))
        .collect();
    if let Some(n) = s.opted_out {
        rows.push((
            "opted out (any, or a no to AI training)".to_owned(),
            share(n),
        ));
    }
    let chart = svg::bars(
        "URLs a crawler may not fetch",
        &rows,
        svg::colour::VERMILLION,
        true,
    );
    let caption = format!(
        "shares of the {} URLs with a verdict (of {}), each against its own robots.txt as of {as_of}",
        s.judged, s.urls
    );
    let svg = svg::titled(&chart, "Who may not fetch the corpus", &caption);
    crate::replace::write_replacing(path, svg.as_bytes())
}

/// The run's summary, on standard error.
fn print_summary(s: &judge::Summary) {
    let count = |o: Outcome| s.outcomes[o as usize];
    let share = |n: u64| {
        if s.judged == 0 {
            "-".to_owned()
        } else {
            format!("{:.1} %", 100.0 * n as f64 / s.judged as f64)
        }
    };
    eprintln!(
        "robostats: judged {} URLs into {} ({} scopes, {} with a capture; {} URLs with no \
         capture of their robots.txt, {} not URLs)",
        s.urls,
        escaped(&s.output.display().to_string()),
        s.scopes.0,
        s.scopes.1,
        count(Outcome::NoCapture),
        count(Outcome::NotAUrl),
    );
    let outcomes: Vec<String> = Outcome::ALL
        .iter()
        .filter(|&&o| count(o) > 0)
        .map(|&o| format!("{} {}", o.as_str(), count(o)))
        .collect();
    eprintln!("robostats: outcomes: {}", outcomes.join(", "));
    let allowed: Vec<String> = s
        .allowed
        .iter()
        .map(|(agent, a)| format!("{agent} {}", share(*a)))
        .collect();
    eprintln!(
        "robostats: allowed, of the {} URLs with a verdict: {}",
        s.judged,
        allowed.join(", ")
    );
    if let Some(n) = s.opted_out {
        eprintln!(
            "robostats: opted out of AI training: {n} URLs ({} of those with a verdict)",
            share(n)
        );
    }
}
