//! `robostats ingest`'s flags, and what they make: the run's [`Config`]
//! and network client, built and checked in one place ([`Args::resolve`]).
//! Nothing past this file sees a flag.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::classify::{self, agents::AgentList};
use crate::output::dataset::S3Out;
use crate::output::location::Location;
use crate::pipeline::Config;
use crate::shard::Shard;
use crate::source::{Input, Secrets, Sources, remote};
use crate::terminal::escaped;
use anyhow::{Context, bail};

use crate::cli::plural;

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
    /// the inputs not done yet). Or `s3://BUCKET/PREFIX/`: the same data
    /// set on S3 (or a store honouring S3's conditional writes; see
    /// docs/object-storage.md), for array jobs with no shared file system.
    #[arg(long, short = 'o', value_name = "DIR|S3-URL")]
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
    /// Memory for the digests of the bodies known to be stored, in MiB
    /// (16: 524,288 bodies). A body not among them is stored again, which
    /// the views never read and compact removes: more memory, a smaller
    /// data set before compact.
    #[arg(long, value_name = "MIB", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    bodies_memory: u64,
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
    /// Read URLs that hold a secret (a user name or password, or a query
    /// parameter with a value: every one but those known to hold none,
    /// such as versionId or page, and those named by --url-safe-param),
    /// which are refused without it: the secret is sent to the URL's
    /// server alone, and REDACTED stands for it in the tables, the
    /// manifest and every message.
    #[arg(long)]
    allow_url_secrets: bool,
    /// A query parameter that holds a secret, even where it is known or
    /// named as safe (any case; NAME* for every name starting so;
    /// repeatable).
    #[arg(long, value_name = "NAME")]
    url_secret_param: Vec<String>,
    /// A query parameter that holds no secret (it names the object, say):
    /// kept as it is in names and messages, and part of what identifies
    /// an input (any case; NAME* for every name starting so; repeatable;
    /// never one robostats knows to carry a secret).
    #[arg(long, value_name = "NAME")]
    url_safe_param: Vec<String>,
}

impl Network {
    /// How URLs holding secrets are treated.
    fn secrets(&self) -> anyhow::Result<Secrets> {
        let secrets = Secrets {
            allow: self.allow_url_secrets,
            parameters: self.url_secret_param.clone(),
            safe: self.url_safe_param.clone(),
        };
        if let Err(why) = secrets.check() {
            bail!("--url-secret-param and --url-safe-param take a parameter's name: {why}");
        }
        Ok(secrets)
    }

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

fn inputs(
    args: &Args,
    secrets: &Secrets,
    client: Option<&remote::Client>,
) -> anyhow::Result<Vec<Input>> {
    let listing = crate::source::list(&Sources {
        args: &args.inputs,
        paths: args.paths.as_deref(),
        prefix: args.prefix.as_deref(),
        client,
        secrets: secrets.clone(),
    })?;
    if !args.quiet {
        for (input, kept) in &listing.repeated {
            // Names may be a paths file's lines, from anywhere.
            let (name, kept) = (escaped(&input.name), escaped(kept));
            if name == kept {
                eprintln!("robostats: '{kept}' is listed twice: it is read once");
            } else {
                eprintln!(
                    "robostats: '{name}' is the file '{kept}' listed again: it is read once, as \
                     '{kept}'"
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

/// A run, as the flags ask for it.
pub struct Ingest {
    /// What the library runs.
    pub config: Config,
    /// The network client, when an input (or the paths file) is a URL.
    pub client: Option<Arc<remote::Client>>,
    /// A progress bar (on a terminal, without --quiet).
    pub show_bar: bool,
}

impl Args {
    /// The run the flags ask for: every flag checked, the inputs listed
    /// (and sharded), the client made when something is read over the
    /// network.
    pub fn resolve(&self) -> anyhow::Result<Ingest> {
        let out_s3 = self.out_s3()?;
        if out_s3.is_none() && self.out.exists() && !self.out.is_dir() {
            bail!(
                "--out '{}' is a file: the output is a directory of tables; give the path of a \
                 new or empty directory, or of an earlier ingest's output",
                self.out.display()
            );
        }
        let shard = shard(self)?;
        let mut options = self.network.options()?;
        let secrets = self.network.secrets()?;
        let show_bar = !self.quiet && std::io::stderr().is_terminal();
        // Without a bar, each retry is a line: a run waiting on the network
        // says so.
        options.log_retries = !self.quiet && !show_bar;
        // A paths file given as a URL is read with the run's client; a local
        // one may list URLs, found once it is read.
        let mut client = make_client(
            &options,
            self.paths
                .as_deref()
                .is_some_and(crate::source::scheme::is_url),
        )?;
        let mut inputs = inputs(self, &secrets, client.as_deref())?;
        if client.is_none() {
            client = make_client(&options, inputs.iter().any(Input::is_remote))?;
        }
        if let Some(shard) = shard {
            let all = inputs.len();
            inputs = shard.select(inputs);
            if !self.quiet {
                eprintln!("robostats: shard {shard}: {} of {all} inputs", inputs.len());
            }
        }
        let mut config = Config::new(inputs, self.out.clone());
        config.allow_other_files = self.allow_other_files;
        config.shard = shard;
        config.remote = client.clone();
        if let Some(mut out) = out_s3 {
            out.options = options.s3.clone();
            out.timeout = options.timeout;
            // (Named in messages; its files are staged in a private
            // directory of the run's.)
            config.out = PathBuf::from(out.location.url());
            config.out_s3 = Some(out);
        }
        // An input holding secrets is known by its name with them
        // redacted: so is a --redo given with them.
        config.redo = self.redo.iter().map(|r| secrets.redacted(r)).collect();
        config.bodies_memory = (self.bodies_memory as usize) << 20;
        if let Some(n) = self.threads {
            if n == 0 {
                bail!("--threads must be at least 1");
            }
            config.threads = threads(n);
        }
        config.agents = agent_list(self)?;
        config.classify = classify::Options {
            size_limit: if self.no_size_limit {
                usize::MAX
            } else {
                crate::robots::GOOGLE_MAX_BYTES
            },
        };
        Ok(Ingest {
            config,
            client,
            show_bar,
        })
    }
}

impl Args {
    /// Where the data set goes when `--out` is `s3://bucket/prefix/`.
    fn out_s3(&self) -> anyhow::Result<Option<S3Out>> {
        let Location::S3(location) =
            Location::parse(self.out.as_os_str()).map_err(anyhow::Error::msg)?
        else {
            return Ok(None);
        };
        Ok(Some(S3Out {
            location,
            options: remote::S3Options::default(),
            timeout: std::time::Duration::from_secs(60),
        }))
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
    crate::cli::shard_flags(args.shard.as_deref(), args.shard_count)
}
