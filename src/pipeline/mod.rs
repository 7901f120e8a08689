//! Files x threads -> the whole pipeline, with accounting.
//!
//! ```text
//! reader threads (one file each)        rayon workers (all cores)
//! file -> gzip member -> WARC record -> [chunk of responses] -> classify: rows
//!                                          -> output::batch: Arrow builders (one lane per worker)
//!                                          -> output::dataset: Parquet part files
//! ```
//!
//! A run is three steps: [`plan()`] (which inputs to do, from the manifest),
//! execute (every input, in parallel), and summarise (the counts, and the
//! manifest's last line). Each input is read by one thread, since
//! decompression is sequential; everything after it is not, so the reader
//! fills chunks of records and dispatches them to any rayon worker. With
//! many files, up to `threads` files are read at once; with one big file,
//! every worker still has chunks to process. A bounded number of chunks is
//! in flight at any time, so memory does not grow with the input.
//!
//! Each worker writes the rows of an input into its own *lane*: its own
//! builders and part files, so workers never wait for each other. The part
//! files of an input become visible only when the whole input is done
//! (finished under temporary names, then renamed): a re-run can then tell a
//! finished input (in the manifest) from one to redo, whose leftovers it
//! deletes first.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use crate::classify::{self, agents::AgentList};
use crate::output::dataset::bodies::{self, cache::StoredBodies, check::Store};
use crate::output::dataset::manifest::{
    self, BodiesLine, EndLine, InputLine, Line, PartEntry, RunLine, RunOptions,
};
use crate::output::dataset::{Dataset, InputStatus, PartSummary, part_stem};
use crate::shard::Shard;
use crate::source::remote;

pub use crate::output::dataset::{Counts, OutputError};
pub use error::{PlanError, RunError};

pub use crate::source::Input;

mod error;
mod lanes;
mod plan;
mod read;

pub use plan::{Plan, Task, decide, plan};
use read::ingest_input;
pub use read::{GIVE_UP_AFTER_ERRORS, IO_ATTEMPTS};

/// What `ingest` does.
#[derive(Clone, Debug)]
pub struct Config {
    /// The inputs, in order.
    pub inputs: Vec<Input>,
    /// The output directory.
    pub out: PathBuf,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// The crawlers of interest.
    pub agents: AgentList,
    /// How captures are analysed.
    pub classify: classify::Options,
    /// Responses per chunk handed to a worker.
    pub chunk_records: usize,
    /// Rows buffered per table and lane before they are encoded.
    pub batch_rows: usize,
    /// The shard of a batch job this process is (already applied to
    /// `inputs`): it names the manifest file and the part files, so that
    /// many shards write into one output directory without clashing.
    pub shard: Option<Shard>,
    /// Errors in a row after which an input's reader is given up on (see
    /// [`GIVE_UP_AFTER_ERRORS`]).
    pub give_up_after_errors: u64,
    /// Write into an output directory that holds other files than an
    /// output's (refused by default).
    pub allow_other_files: bool,
    /// The network client for inputs given as URLs (one with the default
    /// options is made when there are such inputs and none is given).
    pub remote: Option<Arc<remote::Client>>,
    /// Inputs to do again although they are done (by name or identity):
    /// their rows are replaced.
    pub redo: Vec<String>,
    /// Bytes of memory for the digests of the bodies known to be stored
    /// (see [`bodies::cache`]): a body not among them is stored again.
    pub bodies_memory: usize,
    /// The data set is on S3 (`out` is then only its `s3://` URL, as
    /// messages name it; its files are staged in a private directory of
    /// the run's before they are uploaded).
    pub out_s3: Option<crate::output::dataset::S3Out>,
}

impl Config {
    /// A configuration with the defaults.
    pub fn new(inputs: Vec<Input>, out: PathBuf) -> Config {
        Config {
            inputs,
            out,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            agents: AgentList::default_list(),
            classify: classify::Options::default(),
            chunk_records: 256,
            batch_rows: 4096,
            shard: None,
            give_up_after_errors: GIVE_UP_AFTER_ERRORS,
            allow_other_files: false,
            remote: None,
            redo: Vec::new(),
            bodies_memory: bodies::cache::DEFAULT_BYTES,
            out_s3: None,
        }
    }

    /// Where the data set is, as shown: its directory, or its
    /// `s3://bucket/prefix/`.
    pub fn out_shown(&self) -> String {
        match &self.out_s3 {
            Some(s3) => s3.location.url(),
            None => self.out.display().to_string(),
        }
    }

    /// The name of this run's manifest file: the shard's, or `run`.
    pub fn run_name(&self) -> String {
        self.shard.map_or_else(|| "run".to_owned(), |s| s.name())
    }

    /// The options that decide the rows (a re-run must have the same).
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            size_limit: (self.classify.size_limit != usize::MAX)
                .then_some(self.classify.size_limit),
            agents_version: self.agents.version.clone(),
            agents: self.agents.agents.iter().map(|a| a.token.clone()).collect(),
            body_store: Some(manifest::BODY_STORE.to_owned()),
        }
    }
}

/// How one input ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// The input's name.
    pub input: String,
    /// The input's identity.
    pub id: String,
    /// Where it was read: a path or a URL.
    pub location: String,
    /// The input could not be read, or not to the end.
    pub failed: bool,
    /// Why it failed: the first problem it had.
    pub reason: Option<String>,
    /// What was read and written.
    pub counts: Counts,
    /// The part files written.
    pub parts: Vec<PartSummary>,
    /// The part files of the tables stored once per body written (no
    /// input's: other inputs' captures may lead to them).
    pub body_parts: Vec<PartSummary>,
    /// It was done already, and read again for its bodies only.
    pub bodies_only: bool,
    /// The repairs whose bodies it wrote again.
    pub repairs: Vec<String>,
}

impl FileReport {
    /// The input's manifest lines: its body part files (where it wrote
    /// any, or wrote bodies a repair owed), then its end (not for an input
    /// read for its bodies only, which stays done).
    fn lines(&self, dataset: &Dataset) -> Vec<Line> {
        let entries = |parts: &[PartSummary]| -> Vec<PartEntry> {
            parts
                .iter()
                .map(|p| PartEntry {
                    table: p.table.name().to_owned(),
                    path: dataset.relative(&p.path),
                    rows: p.rows,
                })
                .collect()
        };
        let mut lines = Vec::new();
        let ended_ms = manifest::unix_now_ms();
        let wrote = !self.body_parts.is_empty() || !self.repairs.is_empty();
        if !self.failed && (wrote || self.bodies_only) {
            lines.push(Line::Bodies(BodiesLine {
                input: self.input.clone(),
                id: Some(self.id.clone()),
                parts: entries(&self.body_parts),
                repairs: self.repairs.clone(),
                bodies_only: self.bodies_only,
                ended_ms,
            }));
        }
        if !self.bodies_only {
            lines.push(Line::Input(InputLine {
                input: self.input.clone(),
                id: Some(self.id.clone()),
                status: if self.failed {
                    InputStatus::Failed
                } else {
                    InputStatus::Done
                },
                counts: self.counts,
                parts: entries(&self.parts),
                reason: self.reason.clone(),
                ended_ms: Some(ended_ms),
            }));
        }
        lines
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Inputs finished in this run.
    pub files_done: u64,
    /// Inputs that could not be read (or not to the end).
    pub files_failed: u64,
    /// Inputs skipped because an earlier run finished them.
    pub files_skipped: u64,
    /// Inputs of this run that an earlier run could not read (they are
    /// tried again; `files_done` or `files_failed` counts them too).
    pub files_retried: u64,
    /// Done inputs read again for their bodies only (their files were
    /// found gone).
    pub bodies_rewritten: u64,
    /// Done inputs that could not be read again for their bodies.
    pub bodies_failed: u64,
    /// Bodies whose files are gone, owed by inputs this run does not read.
    pub bodies_lost: u64,
    /// What was read and written, all inputs of this run together.
    pub counts: Counts,
    /// What the network did, when inputs were read over it.
    pub network: Option<remote::NetCounts>,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Progress callbacks, called from any thread.
pub trait Progress: Sync {
    /// The run starts: `files` inputs to do, `bytes` in total.
    fn start(&self, _files: u64, _bytes: u64) {}
    /// `records` more records and `bytes` more compressed bytes were read.
    fn advance(&self, _records: u64, _bytes: u64) {}
    /// An input whose size was not known at the start (a URL) is `bytes`
    /// long.
    fn sized(&self, _bytes: u64) {}
    /// An input is finished.
    fn file_done(&self, _report: &FileReport) {}
    /// The run's plan is made (before [`Progress::start`]); `locks_honoured`
    /// is false where the file system ignores the output directory's locks.
    fn planned(&self, _plan: &Plan<'_>, _locks_honoured: bool) {}
}

/// No progress reporting.
pub struct NoProgress;

impl Progress for NoProgress {}

/// Runs `ingest`: every input not finished by an earlier run into the
/// tables under `config.out`. Fails only when the output cannot be written;
/// inputs that cannot be read are counted and reported, not fatal.
///
/// Inputs given as URLs are read by `config.remote` (or a client with the
/// default options), whose network thread is a tokio runtime of its own:
/// call this from a plain thread, not from async code.
pub fn run(config: &Config, progress: &dyn Progress) -> Result<Summary, RunError> {
    let started = Instant::now();
    let config = &Config {
        threads: config.threads.max(1),
        ..config.clone()
    };
    // One writer per manifest, and none beside a compaction: taken before
    // anything is written or the manifests are read, held to the end.
    let (dataset, lock) = open(config)?;
    let mut manifest = dataset.manifest(&config.run_name())?;
    // The body store first: writers whose files are gone are retired, and
    // the inputs that wrote them owe their bodies.
    let store = bodies::check::check(&dataset, &mut manifest)?;
    // Body files this run's shard published and never recorded (its run
    // was killed in between): no run left a body out for them, and none of
    // this shard runs now but this one.
    let own = config.shard.map(|s| s.name());
    let dead: Vec<PathBuf> = store
        .unrecorded
        .iter()
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            crate::output::dataset::body_part_shard(&name) == Some(own.as_deref())
        })
        .cloned()
        .collect();
    bodies::check::remove_unrecorded(&dataset, &dead)?;
    let plan = plan(config, &dataset, &store)?;
    progress.planned(&plan, lock.honoured());
    let client = match &config.remote {
        Some(client) => Some(Arc::clone(client)),
        None if plan.todo.iter().any(|t| t.input.is_remote()) => Some(Arc::new(
            remote::Client::new(remote::Options::default()).map_err(RunError::Client)?,
        )),
        None => None,
    };
    progress.start(plan.todo.len() as u64, plan.bytes);
    manifest.append(&Line::Run(RunLine {
        tool: "robostats".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        agents_version: config.agents.version.clone(),
        shard: config.shard.map(|s| s.to_string()),
        options: config.run_options(),
        started_unix: manifest::unix_now(),
    }))?;
    dataset.write_agents(&config.agents)?;
    // A done input about to be done again is no longer done: should this
    // run be killed while its part files are replaced, the next run
    // redoes it rather than trusting the old line.
    for (input, why) in &plan.redone {
        manifest.append(&Line::Input(InputLine {
            input: input.name.clone(),
            id: Some(input.id.clone()),
            status: InputStatus::Failed,
            counts: Counts::default(),
            parts: Vec::new(),
            reason: Some(format!("being done again: {why}")),
            ended_ms: Some(manifest::unix_now_ms()),
        }))?;
    }
    if !plan.redone.is_empty() {
        dataset.empty_crawl_tables()?;
    }
    let manifest = Mutex::new(manifest);
    let reports = execute(
        config,
        &dataset,
        &store,
        &plan.todo,
        client.as_deref(),
        &manifest,
        progress,
    )?;
    let mut summary = summarise(&plan, &reports, started);
    summary.network = client.map(|c| c.counts());
    manifest
        .into_inner()
        .expect("no thread panicked holding the manifest")
        .append(&Line::End(EndLine {
            counts: summary.counts,
            files_done: summary.files_done,
            files_failed: summary.files_failed,
            files_skipped: summary.files_skipped,
            files_retried: summary.files_retried,
            seconds: summary.seconds,
        }))?;
    // (On S3, every file is uploaded and recorded: dropping the data set
    // removes its staging directory, as it does when a run fails.)
    drop(lock);
    drop(dataset);
    Ok(summary)
}

/// The data set a run writes, with its claim on the run's manifest: the
/// output directory's locks, or on S3 the manifest's lease (released when
/// the data set is dropped).
fn open(config: &Config) -> Result<(Dataset, crate::output::dataset::lock::Held), OutputError> {
    match &config.out_s3 {
        Some(s3) => Dataset::create_s3(s3, config.allow_other_files, &config.run_name()),
        None => Dataset::create_locked(&config.out, config.allow_other_files, &config.run_name()),
    }
}

/// Reads every input of the plan, in parallel, recording each in the
/// manifest as it ends. Stops at the first output failure (inputs already
/// being read finish or clean up; no new one starts). The reports come in
/// no particular order.
///
/// Inputs are taken in the plan's order (each thread takes the next one
/// not taken), so that the transfers of remote inputs, started in that
/// order ahead of the threads, arrive as they are needed.
fn execute(
    config: &Config,
    dataset: &Dataset,
    store: &Store,
    todo: &[Task<'_>],
    client: Option<&remote::Client>,
    manifest: &Mutex<manifest::Manifest>,
    progress: &dyn Progress,
) -> Result<Vec<FileReport>, RunError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .thread_name(|i| format!("robostats-worker-{i}"))
        .build()
        .map_err(|e| RunError::Threads(e.to_string()))?;
    // The transfers of the remote inputs start ahead of the threads, in
    // the order the threads take the inputs.
    let prefetch = client.map(|client| {
        let urls = todo
            .iter()
            .enumerate()
            .filter_map(|(key, task)| match &task.input.location {
                crate::source::Location::Url(url) => Some((key, url.clone())),
                crate::source::Location::File(_) => None,
            })
            .collect();
        client.prefetch(urls, config.threads)
    });
    let shared = Shared {
        config,
        dataset,
        progress,
        prefetch: prefetch.as_ref(),
        output_failed: AtomicBool::new(false),
        budget: Budget {
            in_flight: AtomicUsize::new(0),
            limit: 2 * config.threads,
        },
        unstarted: AtomicUsize::new(todo.len()),
        stored_bodies: StoredBodies::new(config.bodies_memory),
    };
    // On S3 the stored bodies are not read back (each `bodies` file would
    // be a download): a body an earlier run stored is stored again, and
    // the views read one writer of it.
    if dataset.s3().is_none() {
        bodies::stored(&store.intact, &shared.stored_bodies)?;
    }
    let next = AtomicUsize::new(0);
    // Every thread of the pool reads files (one at a time, the next not
    // taken) and processes chunks; `threads` is the whole CPU budget. After
    // the first output failure no input starts, and the inputs being read
    // stop (collecting into a `Result` keeps that failure).
    let reports: Vec<Vec<FileReport>> = pool.install(|| {
        (0..config.threads.min(todo.len()))
            .into_par_iter()
            .with_max_len(1)
            .map(|_| {
                let mut reports = Vec::new();
                loop {
                    if shared.output_failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let key = next.fetch_add(1, Ordering::Relaxed);
                    let Some(task) = todo.get(key) else {
                        break;
                    };
                    reports.extend(ingest_one(&shared, manifest, key, task)?);
                }
                Ok(reports)
            })
            .collect::<Result<_, OutputError>>()
    })?;
    Ok(reports.into_iter().flatten().collect())
}

/// One input of the run: ingested, written into the manifest, shown as
/// done. An output failure stops the run, and what of the input was
/// published goes.
fn ingest_one(
    shared: &Shared<'_>,
    manifest: &Mutex<manifest::Manifest>,
    key: usize,
    task: &Task<'_>,
) -> Result<Option<FileReport>, OutputError> {
    shared.unstarted.fetch_sub(1, Ordering::Relaxed);
    let done = ingest_input(shared, key, task).and_then(|ended| {
        let Some((report, claimed)) = ended else {
            return Ok(None);
        };
        let lines = report.lines(shared.dataset);
        if !lines.is_empty() {
            manifest
                .lock()
                .expect("no thread panicked holding the manifest")
                .append_all(&lines)?;
        }
        // Recorded and durable: other inputs may now leave them out.
        shared.stored_bodies.extend(&claimed);
        Ok(Some(report))
    });
    if let Err(e) = done {
        shared.fail();
        // The input is not done: whatever of it was published goes
        // now (or, should that fail too, with the next run). An input
        // read for its bodies only keeps its own part files.
        let stem = part_stem(&task.input.name);
        let _ = if task.bodies_only {
            shared.dataset.remove_temporaries(&stem)
        } else {
            shared.dataset.remove_leftovers(&stem)
        };
        return Err(e);
    }
    if let Ok(Some(report)) = &done {
        shared.progress.file_done(report);
    }
    done
}
/// The run's summary.
fn summarise(plan: &Plan<'_>, reports: &[FileReport], started: Instant) -> Summary {
    let mut summary = Summary {
        files_skipped: plan.skipped,
        files_retried: plan.retried,
        ..Summary::default()
    };
    summary.bodies_lost = plan.lost.iter().map(|(_, owed)| owed.bodies).sum();
    for r in reports {
        match (r.bodies_only, r.failed) {
            // Its rows were counted when it was done.
            (true, false) => summary.bodies_rewritten += 1,
            (true, true) => summary.bodies_failed += 1,
            (false, true) => summary.files_failed += 1,
            (false, false) => summary.files_done += 1,
        }
        if !r.bodies_only {
            summary.counts.add(&r.counts);
        }
    }
    summary.seconds = started.elapsed().as_secs_f64();
    summary
}

/// What every thread of a run shares.
struct Shared<'a> {
    config: &'a Config,
    dataset: &'a Dataset,
    progress: &'a dyn Progress,
    /// The transfers of the remote inputs.
    prefetch: Option<&'a remote::Prefetch>,
    /// The output could not be written: readers stop.
    output_failed: AtomicBool,
    budget: Budget,
    /// Inputs no thread has started yet. While there are some, every
    /// thread has a file of its own and a reader processes its own chunks
    /// (one lane per file, so memory does not grow with the number of
    /// threads squared); once all are started, chunks go to idle threads.
    unstarted: AtomicUsize,
    /// The bodies known to be stored (see [`bodies::cache`]).
    stored_bodies: StoredBodies,
}

impl Shared<'_> {
    /// Tells every reader that the run stops (a reader waiting for a
    /// transfer's bytes is told at once).
    fn fail(&self) {
        self.output_failed.store(true, Ordering::Relaxed);
        if let Some(prefetch) = self.prefetch {
            prefetch.cancel();
        }
    }
}

/// The chunks in flight (spawned, not yet processed). Past the limit, a
/// reader processes its chunk itself instead of spawning it: memory stays
/// bounded, and no worker thread ever blocks waiting for another.
struct Budget {
    in_flight: AtomicUsize,
    limit: usize,
}

impl Budget {
    fn try_acquire(&self) -> bool {
        self.in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            })
            .is_ok()
    }

    fn release(&self) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}
