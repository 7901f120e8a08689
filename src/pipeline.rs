//! Files x threads -> the whole pipeline, with accounting.
//!
//! ```text
//! reader threads (one file each)        rayon workers (all cores)
//! file -> gzip member -> WARC record -> [chunk of responses] -> classify: rows
//!                                          -> batch: Arrow builders (one lane per worker)
//!                                          -> dataset: Parquet part files
//! ```
//!
//! A run is three steps: [`plan`] (which inputs to do, from the manifest),
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

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use crate::batch::Batches;
use crate::classify::{self, ErrorRow, Fate, Rows, Table, VerdictTally, agents::AgentList};
use crate::dataset::manifest::{self, EndLine, InputLine, Line, PartEntry, RunLine, RunOptions};
use crate::dataset::{
    Dataset, FinishedPart, InputEntry, InputStatus, PartFile, PartSummary, part_name, part_stem,
};
use crate::error::{Error, ErrorKind, Stage};
use crate::remote;
use crate::shard::Shard;
use crate::warc::{Record, RecordType, WarcReader};

pub use crate::dataset::{Counts, OutputError};

pub use crate::input::Input;

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
}

impl FileReport {
    /// The input's manifest line.
    fn line(&self, dataset: &Dataset) -> Line {
        Line::Input(InputLine {
            input: self.input.clone(),
            id: Some(self.id.clone()),
            status: if self.failed {
                InputStatus::Failed
            } else {
                InputStatus::Done
            },
            counts: self.counts,
            parts: self
                .parts
                .iter()
                .map(|p| PartEntry {
                    table: p.table.name().to_owned(),
                    path: dataset.relative(&p.path),
                    rows: p.rows,
                })
                .collect(),
            reason: self.reason.clone(),
            ended_ms: Some(manifest::unix_now_ms()),
        })
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
pub fn run(config: &Config, progress: &dyn Progress) -> Result<Summary, OutputError> {
    let started = Instant::now();
    let config = &Config {
        threads: config.threads.max(1),
        ..config.clone()
    };
    // One writer per manifest, and none beside a compaction: taken before
    // anything is written or the manifests are read, held to the end.
    let (dataset, lock) =
        Dataset::create_locked(&config.out, config.allow_other_files, &config.run_name())?;
    let plan = plan(config, &dataset)?;
    progress.planned(&plan, lock.honoured());
    let client = match &config.remote {
        Some(client) => Some(Arc::clone(client)),
        None if plan.todo.iter().any(|i| i.is_remote()) => Some(Arc::new(
            remote::Client::new(remote::Options::default()).map_err(OutputError::Client)?,
        )),
        None => None,
    };
    progress.start(plan.todo.len() as u64, plan.bytes);
    let mut manifest = dataset.manifest(&config.run_name())?;
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
    let manifest = Mutex::new(manifest);
    let reports = execute(
        config,
        &dataset,
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
    drop(lock);
    Ok(summary)
}

/// Which inputs a run does.
#[derive(Debug)]
pub struct Plan<'c> {
    /// The inputs to read, in order, each once.
    pub todo: Vec<&'c Input>,
    /// Inputs an earlier run finished.
    pub skipped: u64,
    /// Inputs an earlier run failed (in `todo` again).
    pub retried: u64,
    /// Inputs done before and done again now (in `todo` again), with why:
    /// asked for (`--redo`), or a part file of theirs is missing.
    pub redone: Vec<(&'c Input, String)>,
    /// The size of the inputs to read, where known.
    pub bytes: u64,
}

/// Decides which inputs to read, from what the manifests of `dataset` say
/// of them. A directory whose finished inputs were made with other options
/// is refused: a data set is made one way. So is an input listed under the
/// name of another file that is done: the tables could not tell their
/// rows apart.
///
/// A done input is done again when `config.redo` names it, or when one of
/// its part files is missing (deleted by hand): its remaining part files
/// are deleted first, as for any unfinished input. One whose rows were
/// compacted together with other inputs' cannot be, and is refused.
pub fn plan<'c>(config: &'c Config, dataset: &Dataset) -> Result<Plan<'c>, OutputError> {
    let finished = dataset.read_inputs()?;
    let merges = manifest::read_merges(dataset.dir())?;
    decide(config, &finished, &merges, &|path| {
        dataset.dir().join(path).is_file()
    })
}

/// [`plan`]'s decision, from what the manifests say (`finished`, by
/// identity; `merges`, where compactions moved part files) and whether a
/// part file (relative to the output directory) `exists`.
pub fn decide<'c>(
    config: &'c Config,
    finished: &HashMap<String, InputEntry>,
    merges: &HashMap<PathBuf, PathBuf>,
    exists: &dyn Fn(&std::path::Path) -> bool,
) -> Result<Plan<'c>, OutputError> {
    let options = config.run_options();
    let done = |e: &InputEntry| e.line.status == InputStatus::Done;
    for entry in finished.values().filter(|e| done(e)) {
        let differences = match &entry.options {
            Some(then) => then.differences(&options),
            None => vec![
                "a manifest file has no run line: nothing says how its inputs were made".to_owned(),
            ],
        };
        if !differences.is_empty() {
            return Err(OutputError::OtherOptions {
                dir: config.out.clone(),
                differences,
            });
        }
    }
    let done_by_name: HashMap<&str, &InputEntry> = finished
        .values()
        .filter(|e| done(e))
        .map(|e| (e.line.input.as_str(), e))
        .collect();
    let mut seen = HashSet::new();
    let mut plan = Plan {
        todo: Vec::new(),
        skipped: 0,
        retried: 0,
        redone: Vec::new(),
        bytes: 0,
    };
    for input in &config.inputs {
        if !seen.insert(input.id.as_str()) {
            continue;
        }
        // Lines written before identities were recorded know an input by
        // its name; so do lines of a paths file's line read through
        // another mirror (`--prefix`), whose identity is the line.
        let entry = finished.get(&input.id).or_else(|| {
            finished
                .get(&input.name)
                .filter(|e| e.line.id.is_none())
                .or_else(|| done_by_name.get(input.name.as_str()).copied())
                .filter(|e| e.line.id.is_none() || input.prefixed)
        });
        match entry {
            Some(e) if done(e) => {
                let asked = config
                    .redo
                    .iter()
                    .any(|r| *r == input.name || *r == input.id);
                let why = if asked {
                    Some("--redo names it".to_owned())
                } else {
                    missing_part(&e.line.parts, merges, exists)
                        .map(|p| format!("its part file {} is missing", p.display()))
                };
                match why {
                    None => plan.skipped += 1,
                    Some(why) => {
                        if let Some(merged) = e.line.parts.iter().find_map(|p| merges.get(&p.path))
                        {
                            return Err(OutputError::CannotRedo {
                                name: input.name.clone(),
                                why: format!("{why}; its rows are in {}", merged.display()),
                            });
                        }
                        plan.redone.push((input, why));
                        plan.todo.push(input);
                    }
                }
            }
            Some(_) => {
                plan.retried += 1;
                plan.todo.push(input);
            }
            None => {
                if let Some(other) = done_by_name.get(input.name.as_str()) {
                    return Err(OutputError::OtherInput {
                        dir: config.out.clone(),
                        name: input.name.clone(),
                        then: other.line.id.clone().unwrap_or_default(),
                        now: input.id.clone(),
                    });
                }
                plan.todo.push(input);
            }
        }
    }
    if let Some(unknown) = config
        .redo
        .iter()
        .find(|r| !config.inputs.iter().any(|i| i.name == **r || i.id == **r))
    {
        return Err(OutputError::NotAnInput {
            name: unknown.clone(),
        });
    }
    plan.bytes = plan.todo.iter().filter_map(|i| i.size()).sum();
    Ok(plan)
}

/// The first of a done input's part files that is gone: neither where the
/// input's line says nor in a compacted file it was merged into (`merges`,
/// followed from compaction to compaction).
fn missing_part(
    parts: &[PartEntry],
    merges: &HashMap<PathBuf, PathBuf>,
    exists: &dyn Fn(&std::path::Path) -> bool,
) -> Option<PathBuf> {
    parts.iter().find_map(|part| {
        let mut path = &part.path;
        // Each compaction merges a file at most once: the chain ends.
        for _ in 0..=merges.len() {
            if exists(path) {
                return None;
            }
            match merges.get(path) {
                Some(next) => path = next,
                None => break,
            }
        }
        Some(part.path.clone())
    })
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
    todo: &[&Input],
    client: Option<&remote::Client>,
    manifest: &Mutex<manifest::Manifest>,
    progress: &dyn Progress,
) -> Result<Vec<FileReport>, OutputError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .thread_name(|i| format!("robostats-worker-{i}"))
        .build()
        .map_err(|e| OutputError::Threads(e.to_string()))?;
    let prefetch = client.map(|client| {
        let urls = todo
            .iter()
            .enumerate()
            .filter_map(|(key, input)| match &input.location {
                crate::input::Location::Url(url) => Some((key, url.clone())),
                crate::input::Location::File(_) => None,
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
    };
    let next = AtomicUsize::new(0);
    // Every thread of the pool reads files (one at a time, the next not
    // taken) and processes chunks; `threads` is the whole CPU budget. After
    // the first output failure no input starts, and the inputs being read
    // stop (collecting into a `Result` keeps that failure).
    let one = |key: usize, input: &Input| -> Result<Option<FileReport>, OutputError> {
        shared.unstarted.fetch_sub(1, Ordering::Relaxed);
        let done = ingest_input(&shared, key, input).and_then(|report| {
            if let Some(report) = &report {
                manifest
                    .lock()
                    .expect("no thread panicked holding the manifest")
                    .append(&report.line(dataset))?;
            }
            Ok(report)
        });
        if let Err(e) = done {
            shared.fail();
            // The input is not done: whatever of it was published goes
            // now (or, should that fail too, with the next run).
            let _ = dataset.remove_leftovers(&part_stem(&input.name));
            return Err(e);
        }
        if let Ok(Some(report)) = &done {
            progress.file_done(report);
        }
        done
    };
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
                    let Some(input) = todo.get(key) else {
                        break;
                    };
                    reports.extend(one(key, input)?);
                }
                Ok(reports)
            })
            .collect::<Result<_, OutputError>>()
    })?;
    Ok(reports.into_iter().flatten().collect())
}

/// The run's summary.
fn summarise(plan: &Plan<'_>, reports: &[FileReport], started: Instant) -> Summary {
    let mut summary = Summary {
        files_skipped: plan.skipped,
        files_retried: plan.retried,
        ..Summary::default()
    };
    for r in reports {
        if r.failed {
            summary.files_failed += 1;
        } else {
            summary.files_done += 1;
        }
        summary.counts.add(&r.counts);
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

/// Errors in a row after which a reader is given up on (by default). The
/// reader resumes after every error and moves forward, so only a reader
/// bug (or an input that fails every read) gets here.
pub const GIVE_UP_AFTER_ERRORS: u64 = 1_000_000;

/// One input, start to end: its leftovers deleted, read to the end into the
/// lanes, its part files published. `None` when the run stopped while it
/// was read (another input's output failed): nothing of it is left.
fn ingest_input(
    shared: &Shared<'_>,
    key: usize,
    input: &Input,
) -> Result<Option<FileReport>, OutputError> {
    let stem = part_stem(&input.name);
    shared.dataset.remove_leftovers(&stem)?;
    let lanes = Lanes::new(shared.config.threads, &stem, shared.config.shard);
    let read = read_input(shared, key, input, &lanes);
    if read.stopped {
        return lanes.give_up().map_or(Ok(None), Err);
    }
    let report = |counts, parts| FileReport {
        input: input.name.clone(),
        id: input.id.clone(),
        location: input.location.to_string(),
        failed: read.failure.is_some(),
        reason: read.failure.clone(),
        counts,
        parts,
    };
    if read.failure.is_some() {
        // Nothing of a failed input is published: the tables hold only
        // done inputs' rows. What was read is counted; no row was written.
        if let Some(e) = lanes.give_up() {
            return Err(e);
        }
        let counts = Counts {
            records: read.counts.records,
            bytes: read.counts.bytes,
            ..Counts::default()
        };
        return Ok(Some(report(counts, Vec::new())));
    }
    let (parts, mut counts) = lanes.close(shared.dataset, &input.name, &shared.config.agents)?;
    // The renames are durable before the manifest calls the input done.
    shared.dataset.sync_tables()?;
    counts.add(&read.counts);
    Ok(Some(report(counts, parts)))
}

/// What reading an input found.
struct ReadEnd {
    /// Records, responses and bytes read.
    counts: Counts,
    /// Why the input could not be read, or not to the end: its first
    /// problem, in words.
    failure: Option<String>,
    /// Reading stopped because the run is stopping.
    stopped: bool,
}

/// Reads an input to the end, dispatching its records chunk by chunk to
/// the lanes. Every record becomes a row somewhere: a capture, or an
/// `errors` row.
fn read_input(shared: &Shared<'_>, key: usize, input: &Input, lanes: &Lanes) -> ReadEnd {
    let bytes_read = AtomicU64::new(0);
    let mut end = ReadEnd {
        counts: Counts::default(),
        failure: None,
        stopped: false,
    };
    let file = match crate::input::open(input, key, shared.prefetch) {
        Ok(opened) => {
            if let Some(size) = opened.size {
                shared.progress.sized(size);
            }
            opened.reader
        }
        Err(e) => {
            lanes.push_error(0, &e);
            end.failure = Some(describe(&e));
            return end;
        }
    };
    let counting = CountingReader {
        inner: file,
        count: &bytes_read,
    };
    let mut reader = WarcReader::new(counting, &input.name);
    let mut filler = ChunkFiller::new(
        shared.config.chunk_records,
        shared.config.give_up_after_errors,
    );
    rayon::in_place_scope(|scope| {
        loop {
            if shared.output_failed.load(Ordering::Relaxed) {
                end.stopped = true;
                break;
            }
            let before = bytes_read.load(Ordering::Relaxed);
            let (chunk, state) = filler.fill(&mut reader);
            end.counts.records += chunk.records_read;
            end.counts.responses += chunk.responses.len() as u64;
            shared.progress.advance(
                chunk.records_read,
                bytes_read.load(Ordering::Relaxed) - before,
            );
            if !chunk.is_empty() {
                dispatch(shared, input, lanes, scope, chunk);
            }
            match state {
                Filled::More => {}
                Filled::End => break,
                Filled::GaveUp(e) => {
                    lanes.push_error(0, &e);
                    end.failure = Some(describe(&e));
                    break;
                }
            }
        }
    });
    end.counts.bytes = bytes_read.load(Ordering::Relaxed);
    if end.failure.is_none() {
        end.failure = filler.cut_short.take();
    }
    if end.counts.records == 0 && end.failure.is_none() {
        end.failure = Some(
            filler
                .first_error
                .take()
                .unwrap_or_else(|| "no WARC record in it".to_owned()),
        );
    }
    end
}

/// The work of one chunk: its responses and the reader's errors before
/// them.
struct Chunk {
    responses: Vec<Record>,
    errors: Vec<Error>,
    crawl: Option<String>,
    /// Records read, of every type.
    records_read: u64,
}

impl Chunk {
    fn is_empty(&self) -> bool {
        self.responses.is_empty() && self.errors.is_empty()
    }
}

/// How filling a chunk ended.
enum Filled {
    /// The chunk is full; the input goes on.
    More,
    /// The input is read to its end.
    End,
    /// The reader kept failing: the rest of the input is not read, for
    /// the reason given.
    GaveUp(Error),
}

/// An input's problem in words, for a message: what, and the kind and
/// offset of its `errors` row.
fn describe(e: &Error) -> String {
    match e.offset() {
        Some(offset) => format!("{} ({} at offset {offset})", e.message(), e.kind().as_str()),
        None => format!("{} ({})", e.message(), e.kind().as_str()),
    }
}

/// Reads that fail with one I/O error after which an input is given up
/// on: an error the operating system repeats (a directory, a device gone)
/// is one `errors` row, not one per attempt.
pub const IO_ATTEMPTS: u32 = 3;

/// Cuts an input's records into chunks.
struct ChunkFiller {
    /// The record being read into (kept when it is not a response).
    spare: Record,
    errors_in_a_row: u64,
    give_up_after: u64,
    chunk_records: usize,
    /// An I/O error not yet a row (the next read may repeat it), and how
    /// many reads in a row failed with it.
    held: Option<(Error, u32)>,
    /// The first problem, in words.
    first_error: Option<String>,
    /// The input ends inside a gzip member, a record or its header: it
    /// is cut short (an interrupted download), and fails.
    cut_short: Option<String>,
}

impl ChunkFiller {
    fn new(chunk_records: usize, give_up_after: u64) -> ChunkFiller {
        ChunkFiller {
            spare: Record::new(),
            errors_in_a_row: 0,
            give_up_after,
            chunk_records,
            held: None,
            first_error: None,
            cut_short: None,
        }
    }

    /// The held I/O error becomes a row (a read did something else).
    fn release_held(&mut self, chunk: &mut Chunk) {
        chunk.errors.extend(self.held.take().map(|(held, _)| held));
    }

    /// Keeps an I/O error back, or gives up when it repeats `IO_ATTEMPTS`
    /// times; another error is a row.
    fn error(&mut self, chunk: &mut Chunk, e: Error) -> Option<Error> {
        if self.first_error.is_none() {
            self.first_error = Some(describe(&e));
        }
        let cut = matches!(
            e.kind(),
            ErrorKind::TruncatedMember | ErrorKind::TruncatedRecord | ErrorKind::TruncatedHeader
        );
        if cut && self.cut_short.is_none() {
            self.cut_short = Some(format!(
                "the input is cut short (an interrupted download or copy?): {}",
                describe(&e)
            ));
        }
        if e.kind() != ErrorKind::Io {
            self.release_held(chunk);
            chunk.errors.push(e);
            return None;
        }
        match &mut self.held {
            Some((held, n)) if held.message() == e.message() && held.stage() == e.stage() => {
                *n += 1;
                if *n >= IO_ATTEMPTS {
                    let attempts = *n;
                    self.held = None;
                    return Some(Error::new(
                        e.stage(),
                        ErrorKind::Io,
                        e.file(),
                        e.offset(),
                        format!(
                            "{} ({attempts} reads in a row failed with this error, so the \
                             rest of the input is not read)",
                            e.message()
                        ),
                    ));
                }
            }
            _ => {
                self.release_held(chunk);
                self.held = Some((e, 1));
            }
        }
        None
    }

    fn fill<R: std::io::Read>(&mut self, reader: &mut WarcReader<R>) -> (Chunk, Filled) {
        let mut chunk = Chunk {
            responses: Vec::with_capacity(self.chunk_records),
            errors: Vec::new(),
            crawl: None,
            records_read: 0,
        };
        let mut state = Filled::More;
        // Errors fill a chunk too, so that an input that fails read after
        // read is handed on in bounded pieces.
        while chunk.responses.len() + chunk.errors.len() < self.chunk_records {
            let read = reader.read_record(&mut self.spare);
            if read.is_ok() {
                self.release_held(&mut chunk);
            }
            match read {
                Ok(true) => {
                    self.errors_in_a_row = 0;
                    // A record read whole after it: what was cut is in the
                    // middle (a broken member), not the input's end.
                    self.cut_short = None;
                    chunk.records_read += 1;
                    if self.spare.record_type() == RecordType::Response {
                        chunk.responses.push(std::mem::take(&mut self.spare));
                    }
                }
                Ok(false) => {
                    state = Filled::End;
                    break;
                }
                Err(e) => {
                    if let Some(last) = self.error(&mut chunk, e) {
                        state = Filled::GaveUp(last);
                        break;
                    }
                    self.errors_in_a_row += 1;
                    if self.errors_in_a_row >= self.give_up_after {
                        self.release_held(&mut chunk);
                        state = Filled::GaveUp(Error::new(
                            Stage::Warc,
                            ErrorKind::GaveUp,
                            reader.file_name(),
                            None,
                            format!(
                                "gave up after {} errors in a row without a record; the rest \
                                 of the input is not read",
                                self.errors_in_a_row
                            ),
                        ));
                        break;
                    }
                }
            }
        }
        chunk.crawl = reader.crawl().map(str::to_owned);
        (chunk, state)
    }
}

/// Has a chunk processed: by an idle worker when every input has a thread
/// and the budget allows, else by the reader itself.
fn dispatch<'s>(
    shared: &'s Shared<'s>,
    input: &'s Input,
    lanes: &'s Lanes,
    scope: &rayon::Scope<'s>,
    chunk: Chunk,
) {
    let work = move |chunk: Chunk| {
        let index = rayon::current_thread_index().unwrap_or(0) % lanes.len();
        let mut lane = lanes.lock(index);
        lane.process(shared, input, chunk);
        lane.flush(shared.dataset, shared.config.batch_rows);
        if lane.failure.is_some() {
            shared.fail();
        }
    };
    let idle_threads = shared.unstarted.load(Ordering::Relaxed) == 0;
    if idle_threads && shared.budget.try_acquire() {
        scope.spawn(move |_| {
            work(chunk);
            shared.budget.release();
        });
    } else {
        work(chunk);
    }
}

/// The lanes of one input: one per worker thread.
struct Lanes {
    lanes: Vec<Mutex<Lane>>,
}

impl Lanes {
    fn new(threads: usize, stem: &str, shard: Option<Shard>) -> Lanes {
        Lanes {
            lanes: (0..threads)
                .map(|index| Mutex::new(Lane::new(part_name(stem, shard, index))))
                .collect(),
        }
    }

    fn len(&self) -> usize {
        self.lanes.len()
    }

    fn lock(&self, index: usize) -> std::sync::MutexGuard<'_, Lane> {
        self.lanes[index]
            .lock()
            .expect("no thread panicked holding a lane")
    }

    /// An error outside any response (the file, the reader).
    fn push_error(&self, index: usize, e: &Error) {
        let mut lane = self.lock(index);
        lane.batches.push(&ErrorRow::of(e));
        lane.counts.errors += 1;
    }

    /// Drops everything the lanes hold (their part files delete
    /// themselves); returns the first failure of a lane, if any.
    fn give_up(self) -> Option<OutputError> {
        self.lanes
            .into_iter()
            .find_map(|lane| lane.into_inner().ok()?.failure)
    }

    /// Encodes what the lanes still hold, then finishes every part file
    /// and only then publishes them all: a reader sees all of an input's
    /// part files or none. On failure, the part files not yet published
    /// delete themselves when dropped; the caller deletes the published
    /// ones (the input's leftovers).
    ///
    /// The lanes' verdict counts are added up and written by the first
    /// lane, so that an input's `verdict_counts` rows do not depend on how
    /// its records were shared out.
    fn close(
        self,
        dataset: &Dataset,
        file: &str,
        agents: &AgentList,
    ) -> Result<(Vec<PartSummary>, Counts), OutputError> {
        let mut lanes: Vec<Lane> = self
            .lanes
            .into_iter()
            .map(|lane| {
                lane.into_inner()
                    .expect("no thread panicked holding a lane")
            })
            .collect();
        let mut tally = VerdictTally::new();
        for lane in &mut lanes {
            tally.merge(std::mem::take(&mut lane.tally));
        }
        if let Some(first) = lanes.first_mut() {
            for row in tally.rows(file, agents) {
                first.batches.push(&row);
            }
        }
        let mut counts = Counts::default();
        let mut open = Vec::new();
        for mut lane in lanes {
            lane.flush(dataset, 1);
            if let Some(e) = lane.failure {
                return Err(e);
            }
            counts.add(&lane.counts);
            open.extend(lane.writers.into_iter().flatten());
        }
        let finished: Vec<FinishedPart> = open
            .into_iter()
            .map(PartFile::finish)
            .collect::<Result<_, _>>()?;
        let mut parts: Vec<PartSummary> = finished
            .into_iter()
            .map(FinishedPart::publish)
            .collect::<Result<_, _>>()?;
        parts.sort_by(|a, b| a.path.cmp(&b.path));
        Ok((parts, counts))
    }
}

/// One worker's rows and part files for one input.
struct Lane {
    /// Its part files' name (one per table directory).
    part: String,
    batches: Batches,
    /// Every crawler's verdict on its captures, counted.
    tally: VerdictTally,
    writers: Vec<Option<PartFile>>,
    /// The rows it counted: captures, lost responses, errors.
    counts: Counts,
    failure: Option<OutputError>,
}

impl Lane {
    fn new(part: String) -> Lane {
        Lane {
            part,
            batches: Batches::new(),
            tally: VerdictTally::new(),
            writers: Table::ALL.iter().map(|_| None).collect(),
            counts: Counts::default(),
            failure: None,
        }
    }

    /// The rows of a chunk's errors and responses.
    fn process(&mut self, shared: &Shared<'_>, input: &Input, chunk: Chunk) {
        for e in &chunk.errors {
            self.batches.push(&ErrorRow::of(e));
            self.counts.errors += 1;
        }
        let config = shared.config;
        for record in &chunk.responses {
            let fate = classify::response(
                &input.name,
                chunk.crawl.as_deref(),
                record,
                &config.classify,
                &config.agents,
                &mut self.batches,
                &mut self.tally,
            );
            match fate {
                Fate::Captured => self.counts.captures += 1,
                Fate::CapturedWithError => {
                    self.counts.captures += 1;
                    self.counts.errors += 1;
                }
                Fate::Lost => {
                    self.counts.lost += 1;
                    self.counts.errors += 1;
                }
            }
        }
    }

    /// Encodes the tables holding `min_rows` rows or more. The first
    /// failure is kept; the lane writes nothing after it, and drops the
    /// rows it is given.
    fn flush(&mut self, dataset: &Dataset, min_rows: usize) {
        let batches = self.batches.take(min_rows);
        if self.failure.is_some() {
            return;
        }
        for (table, batch) in batches {
            let slot = &mut self.writers[table as usize];
            if slot.is_none() {
                match dataset.create_part(table, &self.part, batch.schema()) {
                    Ok(w) => *slot = Some(w),
                    Err(e) => {
                        self.failure = Some(e);
                        return;
                    }
                }
            }
            if let Err(e) = slot.as_mut().expect("created above").write(&batch) {
                self.failure = Some(e);
                return;
            }
        }
    }
}

/// Counts the bytes read from a file (for progress and the report).
struct CountingReader<'a, R> {
    inner: R,
    count: &'a AtomicU64,
}

impl<R: std::io::Read> std::io::Read for CountingReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_knows_inputs_by_identity_and_older_lines_by_name() {
        use crate::dataset::manifest::InputLine;
        let entry = |input: &str, id: Option<&str>| InputEntry {
            line: InputLine {
                input: input.to_owned(),
                id: id.map(str::to_owned),
                status: InputStatus::Done,
                counts: Counts::default(),
                parts: vec![],
                reason: None,
                ended_ms: None,
            },
            options: Some(Config::new(vec![], PathBuf::new()).run_options()),
        };
        let a = Input::file("/data/a.warc.gz", "a.warc.gz");
        let b = Input::file("/data/b.warc.gz", "b.warc.gz");
        let c = Input::file("/data/c.warc.gz", "c.warc.gz");
        let finished = HashMap::from([
            // Written before identities: known by name.
            ("a.warc.gz".to_owned(), entry("a.warc.gz", None)),
            // Done from another spelling of the same file.
            (b.id.clone(), entry("./b.warc.gz", Some(&b.id))),
        ]);
        let config = Config::new(vec![a, b.clone(), c.clone(), b], PathBuf::from("out"));
        let none = HashMap::new();
        let planned = decide(&config, &finished, &none, &|_| true).unwrap();
        assert_eq!(planned.skipped, 2);
        assert_eq!(planned.todo, [&c]);

        // Another file under a done input's name is refused.
        let moved = Input::file("/elsewhere/a.warc.gz", "a.warc.gz");
        let finished = HashMap::from([(c.id.clone(), entry("a.warc.gz", Some(&c.id)))]);
        let config = Config::new(vec![moved], PathBuf::from("out"));
        assert!(matches!(
            decide(&config, &finished, &none, &|_| true),
            Err(OutputError::OtherInput { .. })
        ));
    }

    #[test]
    fn a_done_input_missing_a_part_file_is_done_again_unless_compacted() {
        use crate::dataset::manifest::InputLine;
        let part = |path: &str| PartEntry {
            table: "captures".to_owned(),
            path: PathBuf::from(path),
            rows: 1,
        };
        let a = Input::file("/data/a.warc.gz", "a.warc.gz");
        let entry = InputEntry {
            line: InputLine {
                input: "a.warc.gz".to_owned(),
                id: Some(a.id.clone()),
                status: InputStatus::Done,
                counts: Counts::default(),
                parts: vec![
                    part("captures/a-1-00.parquet"),
                    part("rules/a-1-00.parquet"),
                ],
                reason: None,
                ended_ms: Some(1),
            },
            options: Some(Config::new(vec![], PathBuf::new()).run_options()),
        };
        let finished = HashMap::from([(a.id.clone(), entry)]);
        let config = Config::new(vec![a.clone()], PathBuf::from("out"));
        let no_merges = HashMap::new();
        // Both there: skipped.
        let planned = decide(&config, &finished, &no_merges, &|_| true).unwrap();
        assert_eq!((planned.skipped, planned.todo.len()), (1, 0));
        // One deleted by hand: done again, saying why.
        let gone = |p: &std::path::Path| p != std::path::Path::new("rules/a-1-00.parquet");
        let planned = decide(&config, &finished, &no_merges, &gone).unwrap();
        assert_eq!(planned.todo, [&a]);
        assert!(
            planned.redone[0]
                .1
                .contains("rules/a-1-00.parquet is missing"),
            "{:?}",
            planned.redone
        );
        // Its captures merged into a compacted file that is there: only the
        // rules part is missing, and the rows in the compacted file cannot
        // be taken out: refused.
        let merges = HashMap::from([(
            PathBuf::from("captures/a-1-00.parquet"),
            PathBuf::from("captures/compacted-x-00000.parquet"),
        )]);
        let only_compacted = |p: &std::path::Path| p.starts_with("captures/compacted-");
        assert!(matches!(
            decide(&config, &finished, &merges, &only_compacted),
            Err(OutputError::CannotRedo { .. })
        ));
        // Both parts merged and the compacted file there: skipped.
        let merges = HashMap::from([
            (
                PathBuf::from("captures/a-1-00.parquet"),
                PathBuf::from("captures/compacted-x-00000.parquet"),
            ),
            (
                PathBuf::from("rules/a-1-00.parquet"),
                PathBuf::from("rules/compacted-x-00000.parquet"),
            ),
        ]);
        let compacted = |p: &std::path::Path| p.to_string_lossy().contains("compacted-");
        let planned = decide(&config, &finished, &merges, &compacted).unwrap();
        assert_eq!(planned.skipped, 1);
        // Asked for by name: done again.
        let mut again = config.clone();
        again.redo = vec!["a.warc.gz".to_owned()];
        let planned = decide(&again, &finished, &no_merges, &|_| true).unwrap();
        assert_eq!(planned.redone[0].1, "--redo names it");
        // An unknown name is refused.
        again.redo = vec!["b.warc.gz".to_owned()];
        assert!(matches!(
            decide(&again, &finished, &no_merges, &|_| true),
            Err(OutputError::NotAnInput { .. })
        ));
    }

    /// An input every read of which fails, with the same error or with
    /// another one each time.
    struct Failing {
        reads: u32,
        same: bool,
    }

    impl std::io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            self.reads += 1;
            if self.same {
                Err(std::io::Error::other("the device is gone"))
            } else {
                Err(std::io::Error::other(format!("glitch {}", self.reads)))
            }
        }
    }

    #[test]
    fn a_repeated_io_error_is_one_row_after_a_few_attempts() {
        let failing = Failing {
            reads: 0,
            same: true,
        };
        let mut reader = WarcReader::new(failing, "gone.warc.gz");
        let mut filler = ChunkFiller::new(4, 1000);
        let (chunk, state) = filler.fill(&mut reader);
        assert!(chunk.errors.is_empty());
        let Filled::GaveUp(e) = state else {
            panic!("not given up on");
        };
        assert_eq!(e.kind(), ErrorKind::Io);
        assert_eq!(
            e.message(),
            "the device is gone (3 reads in a row failed with this error, so the rest of the \
             input is not read)"
        );
        assert_eq!(
            filler.first_error.as_deref(),
            Some("the device is gone (io at offset 0)")
        );
    }

    #[test]
    fn a_reader_that_keeps_failing_is_given_up_on_and_says_so() {
        let failing = Failing {
            reads: 0,
            same: false,
        };
        let mut reader = WarcReader::new(failing, "gone.warc.gz");
        let mut filler = ChunkFiller::new(4, 10);
        // Errors fill chunks too (each I/O error is a row once the next
        // read fails otherwise): 4, 4, then the last two and the end.
        for _ in 0..2 {
            let (chunk, state) = filler.fill(&mut reader);
            assert_eq!(chunk.errors.len(), 4);
            assert!(matches!(state, Filled::More));
        }
        let (chunk, state) = filler.fill(&mut reader);
        assert_eq!(chunk.errors.len(), 2);
        assert_eq!(chunk.records_read, 0);
        let Filled::GaveUp(e) = state else {
            panic!("not given up on");
        };
        assert_eq!(
            (e.kind(), e.stage(), e.offset()),
            (ErrorKind::GaveUp, Stage::Warc, None)
        );
        assert_eq!(e.file(), "gone.warc.gz");
        assert!(
            e.message().contains("10 errors in a row"),
            "{}",
            e.message()
        );
    }
}
