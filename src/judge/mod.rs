//! `robostats judge`: every URL of a corpus against its own robots.txt, as
//! Common Crawl fetched it. The data flows one way:
//!
//! ```text
//! corpus (--urls) --scope--> the scopes in use (scheme, host, port)
//!   --captures (DuckDB over the data set)--> each scope's deciding capture,
//!       its body's stored lines --rules--> the text Google parses alike
//!   --corpus again, a batch at a time--> verdicts per URL and agent
//!   --write--> one Parquet file, a row per URL in input order
//! ```
//!
//! Memory holds the scopes in use, their deciding captures and bodies, and
//! one batch of URLs: it grows with the hosts a corpus names, not with its
//! URLs. docs/judge.md gives the rules, with their sources.

mod captures;
mod corpus;
mod rules;
mod scope;
mod write;

use std::path::PathBuf;

use anyhow::bail;
use arrow_array::RecordBatch;
use rayon::prelude::*;
use robostats_report::engine::{Engine, Out, Settings};

pub use captures::{AsOf, Captures, Decision};
pub use corpus::{Columns, Format};
pub use rules::{BodyRules, BodyVerdict, LineKind, Rebuilt};
pub use scope::{NotAUrl, Scope, Scopes, authority_prefix};

use crate::classify::crawler::Policy;
use crate::robots::RobotsTxt;
use crate::shard::Shard;
use corpus::{Chunk, Corpus, Open, url_at};
use write::{Layout, Output};

robostats_robots::labels! {
    /// What decided a URL's verdicts (crawl_hosts' outcomes, and two more).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Outcome {
        /// A 2xx whose file has a rule: its rules decide.
        Rules = "rules",
        /// A 2xx whose non-empty file has no rule: everything is allowed.
        NoRules = "no_rules",
        /// A 2xx with an empty body: everything is allowed.
        Empty = "empty",
        /// A 4xx other than 429: no robots.txt, everything is allowed.
        NotFound = "4xx",
        /// A redirect loop, or more than five hops: everything is allowed.
        TooManyHops = "too_many_hops",
        /// A redirect whose target was not captured (or has no usable
        /// Location): unknown, as `--missing` says.
        Redirect = "redirect",
        /// A 5xx or 429: nothing is allowed.
        Unreachable = "5xx_429",
        /// No complete response: nothing is allowed.
        Failed = "failed",
        /// No capture of the URL's robots.txt at the as-of point: unknown,
        /// as `--missing` says.
        NoCapture = "no_capture",
        /// Not an http(s) URL with a host (or not UTF-8): no verdict.
        NotAUrl = "not_a_url",
    }
}

/// What a URL gets where the data set cannot tell (no capture of its
/// robots.txt, or a redirect to a target not captured).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Missing {
    /// No verdict (NULL).
    #[default]
    Unknown,
    /// Allowed: no robots.txt is known, so none restricts.
    Allow,
    /// Disallowed.
    Disallow,
}

/// The AI-training crawlers the published corpus filters check (Fan et
/// al., "Can performant LLMs be ethical?", 2025, and the Apertus models'
/// data: CCBot's versioned spellings are one product token). Their list
/// also names AI2Bot, which is no product token by Google's rules (the
/// digit ends one: `User-agent: AI2Bot` names `AI`), so Google's matcher
/// gives it the `*` group's answer: judge `*` for it.
pub const AI_TRAINING: &[&str] = &[
    "Applebot-Extended",
    "Bytespider",
    "CCBot",
    "ClaudeBot",
    "cohere-training-data-crawler",
    "Diffbot",
    "FacebookBot",
    "meta-externalagent",
    "Google-Extended",
    "GPTBot",
    "PanguBot",
];

/// The most agents one run judges.
pub const MAX_AGENTS: usize = 64;

/// What `judge` does, every option checked.
pub struct Config {
    /// The data sets, read as one.
    pub outs: Vec<Out>,
    /// DuckDB, which reads them.
    pub engine: Engine,
    /// `--urls`.
    pub urls: String,
    /// `--urls-format`.
    pub format: Option<Format>,
    /// The URL column and the columns kept.
    pub columns: Columns,
    /// The output file; with a shard, the directory of the parts.
    pub output: PathBuf,
    /// The agents, one column each.
    pub agents: Vec<String>,
    /// Whether each agent counts for `opted_out` (which exists when any does).
    pub training: Vec<bool>,
    /// Whose answer a verdict is.
    pub policy: Policy,
    /// Which capture decides.
    pub as_of: AsOf,
    /// What no capture gives.
    pub missing: Missing,
    /// Add each agent's deciding line and rule.
    pub explain: bool,
    /// This process's share of the URL files.
    pub shard: Option<Shard>,
}

/// How far a run is, for a progress display.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// A stage starts.
    Stage(&'a str),
    /// The URLs to judge, when known.
    Total(Option<u64>),
    /// More URLs were judged.
    Judged(u64),
}

/// How a run ended.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The file written.
    pub output: PathBuf,
    /// URLs read.
    pub urls: u64,
    /// URLs per outcome, in [`Outcome::ALL`]'s order.
    pub outcomes: Vec<u64>,
    /// URLs with a verdict (every agent has one, or none has): the
    /// denominator of the shares below.
    pub judged: u64,
    /// Per agent: URLs allowed.
    pub allowed: Vec<(String, u64)>,
    /// URLs opted out (with the AI-training crawlers).
    pub opted_out: Option<u64>,
    /// Scopes in use, and of those with a deciding capture.
    pub scopes: (usize, usize),
    /// Distinct bodies judged from.
    pub bodies: usize,
}

impl Summary {
    /// A run's summary before any URL is judged.
    fn new(
        config: &Config,
        output: &std::path::Path,
        layout: &Layout,
        scopes: &Scopes,
        captures: &Captures,
    ) -> Summary {
        Summary {
            output: output.to_owned(),
            outcomes: vec![0; Outcome::ALL.len()],
            allowed: config.agents.iter().map(|a| (a.clone(), 0)).collect(),
            opted_out: layout.opted_out.then_some(0),
            scopes: (
                scopes.list.len(),
                captures.decisions.iter().filter(|d| d.is_some()).count(),
            ),
            bodies: captures.bodies.len(),
            urls: 0,
            judged: 0,
        }
    }
}

/// One URL's verdicts.
#[derive(Clone, Debug, Default)]
pub struct Judged {
    /// The URL's scope (none: not a URL).
    pub scope: Option<u32>,
    /// What decided.
    pub outcome: Option<Outcome>,
    /// Whether the verdicts are known (else NULL).
    pub known: bool,
    /// The verdicts and preferences.
    pub verdict: BodyVerdict,
    /// Any AI-training agent disallowed, or the file says no to AI training.
    pub opted_out: Option<bool>,
}

impl Judged {
    /// Agent `i`'s verdict.
    pub fn allowed(&self, i: usize) -> Option<bool> {
        self.known.then_some(self.verdict.allowed >> i & 1 == 1)
    }

    /// What decided (not a URL where nothing did).
    pub fn outcome(&self) -> Outcome {
        self.outcome.unwrap_or(Outcome::NotAUrl)
    }
}

/// Runs `judge`.
pub fn run(config: &Config, progress: &dyn Fn(Progress<'_>)) -> anyhow::Result<Summary> {
    check(config)?;
    let scratch = crate::output::scratch::Scratch::new("judge").map_err(|(p, e)| {
        anyhow::anyhow!("cannot make a private directory {}: {e}", p.display())
    })?;
    progress(Progress::Stage("reading the URLs"));
    let corpus = Corpus::open(&Open {
        spec: &config.urls,
        format: config.format,
        columns: config.columns.clone(),
        shard: config.shard,
        work: scratch.path(),
        engine: &config.engine,
        outs: &config.outs,
    })?;
    // Each URL's scope number, kept on disk (4 bytes a URL) for the second
    // pass: a URL's authority is parsed and hashed once.
    let numbers = scratch.path().join("scope-numbers.bin");
    let scopes = scopes_in_use(&corpus, &numbers)?;
    let kept_schema = corpus.kept_schema()?;
    progress(Progress::Stage(
        "finding each scope's capture in the data set",
    ));
    check_crawl(config)?;
    let captures = captures::load(
        &config.engine,
        &config.outs,
        &scopes.list,
        &config.agents,
        &config.as_of,
        scratch.path(),
        progress,
    )?;
    progress(Progress::Stage("parsing the deciding files"));
    progress(Progress::Total(corpus.rows()));
    write_judged(
        config,
        &corpus,
        &scopes,
        &captures,
        &kept_schema,
        &numbers,
        progress,
    )
}

/// Judges the corpus's URLs with the deciding captures, and writes them.
fn write_judged(
    config: &Config,
    corpus: &Corpus,
    scopes: &Scopes,
    captures: &Captures,
    kept_schema: &arrow_schema::Schema,
    numbers: &std::path::Path,
    progress: &dyn Fn(Progress<'_>),
) -> anyhow::Result<Summary> {
    let output = output_path(config)?;
    let layout = Layout {
        agents: config.agents.clone(),
        opted_out: config.training.iter().any(|&t| t),
        explain: config.explain,
    };
    let schema = layout.schema(kept_schema)?;
    let summary = Summary::new(config, &output, &layout, scopes, captures);
    let out = Output::create(&output, schema.clone())?;
    let parsed: Vec<RobotsTxt<'_>> = captures
        .bodies
        .par_iter()
        .map(|b| RobotsTxt::parse(b))
        .collect();
    let bodies: Vec<BodyRules<'_, '_>> = parsed
        .par_iter()
        .map(|r| BodyRules::new(r, &config.agents, config.policy))
        .collect();
    progress(Progress::Stage("judging"));
    let judge = Judge {
        config,
        all: u64::MAX >> (64 - config.agents.len()),
        training: config
            .training
            .iter()
            .enumerate()
            .filter(|(_, t)| **t)
            .fold(0, |m, (i, _)| m | 1 << i),
        captures,
        bodies: &bodies,
    };
    let write = |rows: &[Judged], kept: &RecordBatch| {
        layout.batch(&schema, kept, rows, &scopes.list, &captures.decisions)
    };
    let numbers = std::fs::File::open(numbers)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", numbers.display()))?;
    let numbers = std::io::BufReader::with_capacity(1 << 16, numbers);
    pipeline(&judge, corpus, numbers, out, summary, &write, progress)
}

/// Judges the corpus's batches on every core while a thread of its own
/// builds and writes the judged ones.
fn pipeline(
    judge: &Judge<'_, '_, '_>,
    corpus: &Corpus,
    mut numbers: impl std::io::Read,
    out: Output,
    mut summary: Summary,
    write: &(dyn Fn(&[Judged], &RecordBatch) -> anyhow::Result<RecordBatch> + Sync),
    progress: &dyn Fn(Progress<'_>),
) -> anyhow::Result<Summary> {
    std::thread::scope(|s| {
        // A batch, the error that ends the corpus, or (None) its end: the
        // writer finishes its file on that alone. A judging thread gone
        // any other way (a panic) leaves it unfinished, and so no file.
        type Next = Option<anyhow::Result<(Chunk, Vec<Judged>)>>;
        let (send, receive) = std::sync::mpsc::sync_channel::<Next>(2);
        let writer = s.spawn(|| -> anyhow::Result<Summary> {
            let mut out = out;
            for next in receive {
                let Some(next) = next else {
                    out.finish()?;
                    return Ok(summary);
                };
                let (chunk, rows) = next?;
                tally(&mut summary, &rows);
                out.write(&write(&rows, &chunk.kept)?)?;
            }
            anyhow::bail!("judging stopped before the end of the URLs")
        });
        let mut ended = true;
        for chunk in corpus.chunks(false) {
            let next = chunk.and_then(|chunk| {
                let mut bytes = vec![0u8; chunk.urls.len() * 4];
                numbers.read_exact(&mut bytes)?;
                let scopes: Vec<Option<u32>> = bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .map(|n| (n != NO_SCOPE).then_some(n))
                    .collect();
                let rows = judge.chunk(chunk.urls.as_ref(), &scopes);
                Ok((chunk, rows))
            });
            let (failed, n) = match &next {
                Ok((_, rows)) => (false, rows.len() as u64),
                Err(_) => (true, 0),
            };
            // A writer gone has failed: its error is the run's.
            if send.send(Some(next)).is_err() || failed {
                ended = false;
                break;
            }
            progress(Progress::Judged(n));
        }
        if ended {
            let _ = send.send(None);
        }
        drop(send);
        writer.join().expect("the writer does not panic")
    })
}

/// The scope number the first pass writes for a URL that has no scope.
const NO_SCOPE: u32 = u32::MAX;

/// The scopes of every URL of `corpus` (its URL column alone read); each
/// URL's scope number (or [`NO_SCOPE`]) written to `numbers`, 4 bytes
/// little-endian a URL, in order.
fn scopes_in_use(corpus: &Corpus, numbers: &std::path::Path) -> anyhow::Result<Scopes> {
    use std::io::Write;
    let mut scopes = Scopes::default();
    let file = std::fs::File::create(numbers)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", numbers.display()))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    for chunk in corpus.chunks(true) {
        let chunk = chunk?;
        let urls = chunk.urls.as_ref();
        // The scopes met before looked up on every core (most URLs of a
        // corpus name a host met already: the lookups are most of this
        // pass), then the others numbered in order, as one by one.
        let known: Vec<Option<Option<u32>>> = (0..urls.len())
            .into_par_iter()
            .map(|i| match url_at(urls, i) {
                Some(Ok(url)) => scopes.get(url),
                _ => Some(None),
            })
            .collect();
        for (i, known) in known.into_iter().enumerate() {
            let n = known.unwrap_or_else(|| match url_at(urls, i) {
                Some(Ok(url)) => scopes.add(url),
                _ => None,
            });
            out.write_all(&n.unwrap_or(NO_SCOPE).to_le_bytes())?;
        }
    }
    out.flush()?;
    Ok(scopes)
}

/// The agents are product tokens (or `*`), not too many.
fn check(config: &Config) -> anyhow::Result<()> {
    if config.agents.is_empty() {
        bail!("name the crawlers to judge for: --agent TOKEN (repeatable), or --ai-training");
    }
    if config.agents.len() > MAX_AGENTS {
        bail!(
            "at most {MAX_AGENTS} agents at once ({} given)",
            config.agents.len()
        );
    }
    for agent in &config.agents {
        config.policy.crawler(agent).map_err(anyhow::Error::msg)?;
        // (The library's policy takes any text: not this.)
        if agent.is_empty() || agent.chars().any(|c| c.is_whitespace() || c.is_control()) {
            bail!(
                "agent '{}' is not a crawler's name: a product token such as GPTBot",
                agent.escape_debug()
            );
        }
    }
    Ok(())
}

/// A crawl named by `--as-of` is one of the data set's.
fn check_crawl(config: &Config) -> anyhow::Result<()> {
    let AsOf::Crawl(crawl) = &config.as_of else {
        return Ok(());
    };
    let sql = format!(
        "SELECT count(*) FILTER (WHERE crawl = {}) AS n, \
         string_agg(DISTINCT crawl, ', ' ORDER BY crawl) AS crawls FROM captures",
        captures::sql_text(crawl)
    );
    let table = config.engine.run_one(
        &config.outs,
        "judge_crawls",
        &sql,
        None,
        &Settings::default(),
    )?;
    let row = table.rows.first().cloned().unwrap_or_default();
    if table.num(&row, "n") == 0.0 {
        bail!(
            "--as-of {crawl}: the data set has no capture of that crawl (its crawls: {})",
            table.text(&row, "crawls")
        );
    }
    Ok(())
}

/// The file to write: `--output`, or with a shard, its part in that
/// directory.
fn output_path(config: &Config) -> anyhow::Result<PathBuf> {
    let Some(shard) = config.shard else {
        return Ok(config.output.clone());
    };
    std::fs::create_dir_all(&config.output)
        .map_err(|e| anyhow::anyhow!("cannot make {}: {e}", config.output.display()))?;
    Ok(config
        .output
        .join(format!("judged-{}.parquet", shard.name())))
}

/// Counts a batch's rows into the summary.
fn tally(summary: &mut Summary, rows: &[Judged]) {
    summary.urls += rows.len() as u64;
    for r in rows {
        summary.outcomes[r.outcome() as usize] += 1;
        if !r.known {
            continue;
        }
        summary.judged += 1;
        for (i, (_, allowed)) in summary.allowed.iter_mut().enumerate() {
            *allowed += u64::from(r.allowed(i) == Some(true));
        }
        if let (Some(n), Some(true)) = (summary.opted_out.as_mut(), r.opted_out) {
            *n += 1;
        }
    }
}

/// What one URL is judged with.
struct Judge<'j, 'r, 'a> {
    config: &'j Config,
    /// Every agent (bits).
    all: u64,
    /// The agents `opted_out` counts (bits).
    training: u64,
    captures: &'j Captures,
    bodies: &'j [BodyRules<'r, 'a>],
}

impl Judge<'_, '_, '_> {
    /// The verdicts of a batch of URLs, judged in parallel, each with the
    /// number of its scope the first pass gave it.
    fn chunk(&self, urls: &dyn arrow_array::Array, scopes: &[Option<u32>]) -> Vec<Judged> {
        (0..urls.len())
            .into_par_iter()
            .map(|i| self.row(url_at(urls, i), scopes[i]))
            .collect()
    }

    /// The verdicts of one URL of scope `scope` (none: not a URL).
    fn row(&self, url: Option<Result<&str, ()>>, scope: Option<u32>) -> Judged {
        let (Some(Ok(url)), Some(scope)) = (url, scope) else {
            return Judged::default();
        };
        let all = self.all;
        let decision = self.captures.decisions[scope as usize].as_ref();
        let outcome = decision.map_or(Outcome::NoCapture, |d| d.outcome);
        let mut judged = Judged {
            scope: Some(scope),
            outcome: Some(outcome),
            known: true,
            ..Judged::default()
        };
        match outcome {
            Outcome::Rules | Outcome::NoRules | Outcome::Empty => {
                match decision.and_then(|d| d.body) {
                    Some(b) => {
                        judged.verdict =
                            self.bodies[b as usize].judge(url, self.config.explain, self.training)
                    }
                    None => judged.verdict.allowed = all,
                }
            }
            Outcome::NotFound | Outcome::TooManyHops => judged.verdict.allowed = all,
            Outcome::Unreachable | Outcome::Failed => {}
            Outcome::Redirect | Outcome::NoCapture | Outcome::NotAUrl => {
                match self.config.missing {
                    Missing::Unknown => judged.known = false,
                    Missing::Allow => judged.verdict.allowed = all,
                    Missing::Disallow => {}
                }
            }
        }
        let training = self.training;
        if judged.known && training != 0 {
            let disallowed = !judged.verdict.allowed & training != 0;
            judged.opted_out = Some(disallowed || judged.verdict.says_no & training != 0);
        }
        judged
    }
}
