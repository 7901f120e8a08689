//! `robostats ingest`: WARC files to Parquet tables.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use robostats::classify::{self, agents::AgentList};
use robostats::input::Sources;
use robostats::pipeline::{self, Config, FileReport, Input, Progress};
use robostats::shard::Shard;

use super::plural;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// WARC files (`.warc.gz` or `.warc`), and directories, which stand for
    /// the WARC files under them (recursively, in path order, hidden ones
    /// skipped); quoted globs are expanded. A file listed twice, under any
    /// spelling, is read once.
    inputs: Vec<String>,
    /// A file listing inputs, one a line (gzip or plain), like Common
    /// Crawl's `robotstxt.paths.gz`.
    #[arg(long, value_name = "FILE")]
    paths: Option<PathBuf>,
    /// Prepended to the relative paths of `--paths` (a local directory).
    /// The paths as listed stay the `warc_filename` in the tables, as in
    /// Common Crawl's index.
    #[arg(long, value_name = "DIR", requires = "paths")]
    prefix: Option<PathBuf>,
    /// The output directory: one directory of Parquet files per table. It
    /// must be new, empty, or an earlier ingest's output (a re-run adds
    /// the inputs not done yet).
    #[arg(long, short = 'o', value_name = "DIR")]
    out: PathBuf,
    /// Write the tables into an --out directory that holds other files.
    #[arg(long)]
    allow_other_files: bool,
    /// Worker threads [default: all cores].
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    /// Replace the crawlers of interest by this list (one token a line, or
    /// `token<TAB>operator<TAB>category<TAB>purpose`).
    #[arg(long, value_name = "FILE")]
    agents: Option<PathBuf>,
    /// Add this list's crawlers to the crawlers of interest.
    #[arg(long, value_name = "FILE")]
    add_agents: Vec<PathBuf>,
    /// Parse whole bodies for rules. By default content past 500 KiB is
    /// ignored, as Google's crawler does.
    #[arg(long)]
    no_size_limit: bool,
    /// Take only shard I of N of the inputs (those at 0-based positions p,
    /// in the listed order, with p % N == I), or `auto`: the index and
    /// count of a Slurm array task, AWS Batch array child or Kubernetes
    /// indexed job (with --shard-count).
    #[arg(long, value_name = "I/N|auto")]
    shard: Option<String>,
    /// The number of shards, for --shard auto where the scheduler does not
    /// say it (Kubernetes indexed jobs: the Job's completions).
    #[arg(long, value_name = "N", requires = "shard")]
    shard_count: Option<u64>,
    /// No progress bar, even on a terminal.
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn inputs(args: &Args) -> anyhow::Result<Vec<Input>> {
    let listing = robostats::input::list(&Sources {
        args: &args.inputs,
        paths: args.paths.as_deref(),
        prefix: args.prefix.as_deref(),
    })?;
    if !args.quiet {
        for (input, kept) in &listing.repeated {
            if input.name == *kept {
                eprintln!("robostats: '{kept}' is listed twice: it is read once");
            } else {
                eprintln!(
                    "robostats: '{}' is the file '{kept}' listed again: it is read once, as \
                     '{kept}'",
                    input.name
                );
            }
        }
    }
    Ok(listing.inputs)
}

fn agent_list(args: &Args) -> anyhow::Result<AgentList> {
    let read = |p: &PathBuf| {
        std::fs::read_to_string(p).with_context(|| format!("cannot read '{}'", p.display()))
    };
    let mut list = match &args.agents {
        Some(path) => {
            AgentList::parse(&read(path)?).with_context(|| format!("in '{}'", path.display()))?
        }
        None => AgentList::default_list(),
    };
    for path in &args.add_agents {
        list.extend(&read(path)?)
            .with_context(|| format!("in '{}'", path.display()))?;
    }
    Ok(list)
}

/// A progress bar on a terminal: bytes read, files, records, speed, ETA.
struct Bar {
    bar: ProgressBar,
    files: AtomicU64,
    total_files: AtomicU64,
    records: AtomicU64,
    failed: Mutex<Vec<FileReport>>,
}

impl Bar {
    fn message(&self) {
        self.bar.set_message(format!(
            "files {}/{}  records {}",
            self.files.load(Ordering::Relaxed),
            self.total_files.load(Ordering::Relaxed),
            self.records.load(Ordering::Relaxed)
        ));
    }
}

impl Progress for Bar {
    fn start(&self, files: u64, bytes: u64) {
        self.total_files.store(files, Ordering::Relaxed);
        self.bar.set_length(bytes);
        self.message();
    }

    fn advance(&self, records: u64, bytes: u64) {
        self.records.fetch_add(records, Ordering::Relaxed);
        self.bar.inc(bytes);
        self.message();
    }

    fn file_done(&self, report: &FileReport) {
        self.files.fetch_add(1, Ordering::Relaxed);
        if report.failed {
            self.failed.lock().unwrap().push(report.clone());
        }
        self.message();
    }
}

/// Without a terminal: one line per input that could not be read.
struct Plain {
    failed: Mutex<Vec<FileReport>>,
}

impl Progress for Plain {
    fn file_done(&self, report: &FileReport) {
        if report.failed {
            self.failed.lock().unwrap().push(report.clone());
        }
    }
}

fn shard(args: &Args) -> anyhow::Result<Option<Shard>> {
    let shard = match args.shard.as_deref() {
        None => return Ok(None),
        Some("auto") => Shard::from_env(|name| std::env::var(name).ok(), args.shard_count)?,
        Some(text) => {
            if args.shard_count.is_some() {
                bail!("--shard-count goes with --shard auto; --shard I/N says the count");
            }
            Shard::parse(text)?
        }
    };
    Ok(Some(shard))
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let shard = shard(args)?;
    let mut inputs = inputs(args)?;
    if let Some(shard) = shard {
        let all = inputs.len();
        inputs = shard.select(inputs);
        if !args.quiet {
            eprintln!("robostats: shard {shard}: {} of {all} inputs", inputs.len());
        }
    }
    let mut config = Config::new(inputs, args.out.clone());
    config.allow_other_files = args.allow_other_files;
    config.shard = shard;
    if let Some(n) = args.threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        config.threads = n;
    }
    config.agents = agent_list(args)?;
    config.classify = classify::Options {
        size_limit: if args.no_size_limit {
            usize::MAX
        } else {
            robostats::robots::GOOGLE_MAX_BYTES
        },
    };
    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    let (summary, failed) = if show_bar {
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {binary_bytes}/{binary_total_bytes} \
                 {binary_bytes_per_sec} ETA {eta}  {msg}",
            )
            .expect("valid template"),
        );
        let progress = Bar {
            bar,
            files: AtomicU64::new(0),
            total_files: AtomicU64::new(0),
            records: AtomicU64::new(0),
            failed: Mutex::new(Vec::new()),
        };
        let summary = pipeline::run(&config, &progress)?;
        progress.bar.finish_and_clear();
        (summary, progress.failed.into_inner().unwrap())
    } else {
        let progress = Plain {
            failed: Mutex::new(Vec::new()),
        };
        let summary = pipeline::run(&config, &progress)?;
        (summary, progress.failed.into_inner().unwrap())
    };
    let mut failed = failed;
    let position: std::collections::HashMap<&str, usize> = config
        .inputs
        .iter()
        .enumerate()
        .map(|(i, input)| (input.id.as_str(), i))
        .collect();
    failed.sort_by_key(|r| position.get(r.id.as_str()).copied());
    for report in &failed {
        let opened = report.path.to_string_lossy();
        let place = if opened == report.input {
            format!("'{}'", report.input)
        } else {
            format!("'{}' (opened as '{opened}')", report.input)
        };
        eprintln!(
            "robostats: could not read {place}: {}",
            report.reason.as_deref().unwrap_or("unknown reason")
        );
    }
    if !failed.is_empty() {
        eprintln!(
            "robostats: the errors table has a row for each problem; a re-run tries the \
             failed inputs again"
        );
    }
    let s = &summary;
    let c = &s.counts;
    let mib = c.bytes as f64 / (1024.0 * 1024.0);
    println!(
        "ingest: {} done, {} failed, {} skipped (done earlier), {} retried (failed \
         earlier); {} records read, \
         {} responses -> {} captures + {} in errors only; {} errors rows; \
         {:.1} MiB in {:.1} s ({:.1} MiB/s, {:.0} records/s) -> {}",
        plural(s.files_done, "file", "files"),
        s.files_failed,
        s.files_skipped,
        s.files_retried,
        c.records,
        c.responses,
        c.captures,
        c.lost,
        c.errors,
        mib,
        s.seconds,
        mib / s.seconds.max(1e-9),
        c.records as f64 / s.seconds.max(1e-9),
        args.out.display()
    );
    Ok(if s.files_failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
