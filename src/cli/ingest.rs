//! `robostats ingest`: WARC files to Parquet tables.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use robostats::classify::{self, agents::AgentList};
use robostats::input::Sources;
use robostats::pipeline::{self, Config, FileReport, Input, Progress};
use robostats::remote;
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
    /// Crawl's `robotstxt.paths.gz`: a local file or a URL.
    #[arg(long, value_name = "FILE|URL")]
    paths: Option<String>,
    /// Prepended to the relative paths of `--paths`: a local directory, or
    /// a URL (`https://data.commoncrawl.org/`, `s3://commoncrawl/`). The
    /// paths as listed stay the `warc_filename` in the tables, as in
    /// Common Crawl's index.
    #[arg(long, value_name = "DIR|URL", requires = "paths")]
    prefix: Option<String>,
    /// The output directory: one directory of Parquet files per table. It
    /// must be new, empty, or an earlier ingest's output (a re-run adds
    /// the inputs not done yet).
    #[arg(long, short = 'o', value_name = "DIR")]
    out: PathBuf,
    /// Write the tables into an --out directory that holds other files.
    #[arg(long)]
    allow_other_files: bool,
    /// Worker threads, at most 4 per core [default: all cores].
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
    /// Do this input again although it is done, replacing its rows (its
    /// name as listed, the `warc_filename` of its rows; repeatable). The
    /// input must be among the inputs of the run.
    #[arg(long, value_name = "NAME")]
    redo: Vec<String>,
    /// No progress bar, even on a terminal.
    #[arg(long, short = 'q')]
    quiet: bool,
    #[command(flatten)]
    network: Network,
}

/// Inputs given as URLs (`https://`, `http://`, `s3://`): the defaults
/// follow Common Crawl's guidance (see docs/remote.md).
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Reading URLs")]
struct Network {
    /// Requests per second, all downloads and retries together (0: no
    /// cap). A server that says to slow down halves it for a while.
    #[arg(long, value_name = "R", default_value_t = 2.0)]
    max_requests_per_second: f64,
    /// Transfers at a time.
    #[arg(long, value_name = "N", default_value_t = 2)]
    max_downloads: usize,
    /// Retries of one request (503, 429, 5xx, a CDN's 403, timeouts,
    /// resets, a body cut short); an input still failing is retried by
    /// the next run.
    #[arg(long, value_name = "N", default_value_t = 10)]
    retries: u32,
    /// Resumptions of one transfer: a request that brought bytes starts a
    /// new count of retries at most this often (a 3 MB file cut every
    /// 150 KB still arrives; a server cutting every answer short is not
    /// asked for ever).
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_resumes: u32,
    /// Seconds before the first retry, doubled at each next one (with
    /// jitter); a Retry-After that asks for more is honoured.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    retry_wait: f64,
    /// The longest wait between two retries, seconds.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    retry_wait_max: f64,
    /// The longest Retry-After honoured, seconds: a server asking for an
    /// hour does not pause every download for an hour at each retry.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    retry_after_max: f64,
    /// Seconds to wait for a connection, an answer, or the next bytes of
    /// a body; also the window of --min-rate.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// The slowest body accepted, KiB a second over each --timeout
    /// window; slower is a stall, retried and resumed (0: no minimum). At
    /// 10 KiB/s a 3 MB robotstxt file takes 5 minutes; a body sent at
    /// 1 byte a second ends after a minute, not never.
    #[arg(long, value_name = "KIB", default_value_t = 10.0)]
    min_rate: f64,
    /// Stop the run after this many inputs in a row failed the same way
    /// (the network down, a wrong prefix or credentials): the inputs not
    /// read yet fail at once, the summary says why, and the exit status
    /// is 3 (0: never stop).
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_failures_in_a_row: u32,
    /// The S3 endpoint, for S3-compatible stores [default:
    /// AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's, else AWS].
    #[arg(long, value_name = "URL")]
    s3_endpoint: Option<String>,
    /// The S3 region [default: the AWS chain's, else us-east-1].
    #[arg(long, value_name = "REGION")]
    s3_region: Option<String>,
    /// Unsigned S3 requests, for public buckets that allow them (Common
    /// Crawl's does not: it needs any AWS credentials, or HTTPS).
    #[arg(long)]
    s3_anonymous: bool,
}

impl Network {
    fn options(&self) -> anyhow::Result<remote::Options> {
        // A day, at most: longer is a mistake, and would overflow clocks.
        let seconds = |name: &str, value: f64| {
            if value.is_finite() && (0.0..=86_400.0).contains(&value) {
                Ok(Duration::from_secs_f64(value))
            } else {
                bail!("--{name} takes a number of seconds, from 0 to 86400")
            }
        };
        let rate = self.max_requests_per_second;
        if !(rate.is_finite() && (rate == 0.0 || rate >= 0.001)) {
            bail!("--max-requests-per-second takes 0 (no cap), or a number from 0.001 up");
        }
        if self.max_downloads == 0 {
            bail!("--max-downloads must be at least 1");
        }
        let timeout = seconds("timeout", self.timeout)?;
        if timeout.is_zero() {
            bail!("--timeout must be more than 0 seconds");
        }
        let min_rate = self.min_rate;
        if !(min_rate.is_finite() && (0.0..=1e9).contains(&min_rate)) {
            bail!("--min-rate takes KiB a second, from 0 (no minimum) up");
        }
        Ok(remote::Options {
            max_requests_per_second: self.max_requests_per_second,
            max_downloads: self.max_downloads,
            retries: self.retries,
            max_resumes: self.max_resumes,
            retry_wait: seconds("retry-wait", self.retry_wait)?,
            retry_wait_max: seconds("retry-wait-max", self.retry_wait_max)?,
            retry_after_max: seconds("retry-after-max", self.retry_after_max)?,
            timeout,
            min_rate: min_rate * 1024.0,
            max_failures_in_a_row: self.max_failures_in_a_row,
            log_retries: false,
            s3: remote::S3Options {
                endpoint: self.s3_endpoint.clone(),
                region: self.s3_region.clone(),
                anonymous: self.s3_anonymous,
            },
        })
    }
}

/// The network client, made when `needed` (something is read over the
/// network).
fn make_client(
    options: &remote::Options,
    needed: bool,
) -> anyhow::Result<Option<Arc<remote::Client>>> {
    if !needed {
        return Ok(None);
    }
    let client = remote::Client::new(options.clone())?;
    Ok(Some(Arc::new(client)))
}

fn inputs(args: &Args, client: Option<&remote::Client>) -> anyhow::Result<Vec<Input>> {
    let listing = robostats::input::list(&Sources {
        args: &args.inputs,
        paths: args.paths.as_deref(),
        prefix: args.prefix.as_deref(),
        client,
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

/// A progress bar on a terminal: bytes read, files, records, speed, ETA,
/// and for URLs the bytes downloaded, their rate, requests and retries.
struct Bar {
    bar: ProgressBar,
    files: AtomicU64,
    total_files: AtomicU64,
    records: AtomicU64,
    failed: Mutex<Vec<FileReport>>,
    client: Option<Arc<remote::Client>>,
}

impl Bar {
    fn message(&self) {
        let mut text = format!(
            "files {}/{}  records {}",
            self.files.load(Ordering::Relaxed),
            self.total_files.load(Ordering::Relaxed),
            self.records.load(Ordering::Relaxed)
        );
        if let Some(client) = &self.client {
            let net = client.counts();
            let mib = net.bytes as f64 / (1024.0 * 1024.0);
            let rate = mib / self.bar.elapsed().as_secs_f64().max(1e-3);
            text.push_str(&format!(
                "  net {mib:.1} MiB {rate:.1} MiB/s, {} req, {} retries",
                net.requests, net.retries
            ));
        }
        self.bar.set_message(text);
    }
}

/// What the plan says before the run starts: the inputs done again and
/// why, and a warning where the output directory's locks protect nothing.
fn plan_notices(plan: &pipeline::Plan<'_>, locks_honoured: bool) {
    for (input, why) in &plan.redone {
        eprintln!("robostats: '{}' is done again: {why}", input.name);
    }
    if !locks_honoured {
        eprintln!(
            "robostats: warning: the file system of the output directory ignores locks \
             (NFS without lock support?): two runs of one shard, or compact beside an ingest, \
             would not be stopped. Run one process per shard (see docs/concurrency.md)"
        );
    }
}

impl Progress for Bar {
    fn planned(&self, plan: &pipeline::Plan<'_>, locks_honoured: bool) {
        self.bar.suspend(|| plan_notices(plan, locks_honoured));
    }

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

    fn sized(&self, bytes: u64) {
        self.bar.inc_length(bytes);
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
    fn planned(&self, plan: &pipeline::Plan<'_>, locks_honoured: bool) {
        plan_notices(plan, locks_honoured);
    }

    fn file_done(&self, report: &FileReport) {
        if report.failed {
            self.failed.lock().unwrap().push(report.clone());
        }
    }
}

/// Worker threads per core, at most: more only costs memory and start-up.
const THREADS_PER_CORE: usize = 4;

/// `--threads N`, capped at [`THREADS_PER_CORE`] times the cores, with a
/// warning saying the number used.
fn threads(n: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let cap = (THREADS_PER_CORE * cores).max(1);
    if n <= cap {
        return n;
    }
    eprintln!(
        "robostats: --threads {n} is more than {THREADS_PER_CORE} per core ({}): using {cap}",
        plural(cores as u64, "core", "cores")
    );
    cap
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
    if args.out.exists() && !args.out.is_dir() {
        bail!(
            "--out '{}' is a file: the output is a directory of tables; give the path of a \
             new or empty directory, or of an earlier ingest's output",
            args.out.display()
        );
    }
    let shard = shard(args)?;
    let mut options = args.network.options()?;
    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    // Without a bar, each retry is a line: a run waiting on the network
    // says so.
    options.log_retries = !args.quiet && !show_bar;
    // A paths file given as a URL is read with the run's client; a local
    // one may list URLs, found once it is read.
    let mut client = make_client(&options, args.paths.as_deref().is_some_and(remote::is_url))?;
    let mut inputs = inputs(args, client.as_deref())?;
    if client.is_none() {
        client = make_client(&options, inputs.iter().any(Input::is_remote))?;
    }
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
    config.remote = client.clone();
    config.redo = args.redo.clone();
    if let Some(n) = args.threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        config.threads = threads(n);
    }
    config.agents = agent_list(args)?;
    config.classify = classify::Options {
        size_limit: if args.no_size_limit {
            usize::MAX
        } else {
            robostats::robots::GOOGLE_MAX_BYTES
        },
    };
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
            client: client.clone(),
        };
        // The bar, its clock and its counters move while the network
        // stalls.
        progress.bar.enable_steady_tick(Duration::from_millis(500));
        let done = std::sync::atomic::AtomicBool::new(false);
        let summary = std::thread::scope(|scope| {
            scope.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(500));
                    progress.message();
                }
            });
            // Set when the run returns or unwinds: a panic must not leave
            // the ticker (and so the scope) waiting for ever.
            struct Stop<'a>(&'a std::sync::atomic::AtomicBool);
            impl Drop for Stop<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _stop = Stop(&done);
            pipeline::run(&config, &progress)
        })?;
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
    // Inputs the stopped run did not read: one line for all of them.
    let stopped = client.as_ref().and_then(|c| c.stopped());
    let not_read = |r: &FileReport| {
        r.reason
            .as_deref()
            .is_some_and(|why| why.contains(remote::STOPPED))
    };
    let unread = failed.iter().filter(|r| not_read(r)).count();
    failed.retain(|r| !not_read(r));
    for report in &failed {
        let opened = &report.location;
        let place = if *opened == report.input {
            format!("'{}'", report.input)
        } else {
            format!("'{}' (opened as '{opened}')", report.input)
        };
        eprintln!(
            "robostats: could not read {place}: {}",
            report.reason.as_deref().unwrap_or("unknown reason")
        );
    }
    if let Some(why) = &stopped {
        eprintln!(
            "robostats: stopped: {why}; {} not read (recorded as failed): check the \
             network, the prefix or the credentials, then run again",
            plural(unread as u64, "input", "inputs")
        );
    }
    if !failed.is_empty() || unread > 0 {
        eprintln!(
            "robostats: nothing of a failed input is in the tables (the manifest says why); \
             a re-run tries the failed inputs again"
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
    if let Some(net) = &s.network {
        println!(
            "network: {}, {}, {}, {:.1} MiB",
            plural(net.requests, "request", "requests"),
            plural(net.retries, "retry", "retries"),
            plural(net.resumes, "resumed transfer", "resumed transfers"),
            net.bytes as f64 / (1024.0 * 1024.0)
        );
    }
    if let Some(why) = &stopped {
        println!("stopped: {why}");
    }
    Ok(if stopped.is_some() {
        ExitCode::from(3)
    } else if s.files_failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
