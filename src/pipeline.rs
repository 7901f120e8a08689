//! Files x threads -> the whole pipeline, with accounting.
//!
//! ```text
//! reader threads (one file each)        rayon workers (all cores)
//! file -> gzip member -> WARC record -> [chunk of responses] -> HTTP -> Capture
//!                                          -> robots.txt parse -> verdicts
//!                                          -> Arrow builders (one lane per worker)
//!                                          -> Parquet part files
//! ```
//!
//! Decompression is sequential per file, so each file has one reader
//! thread; everything after it is not, so readers cut the records into
//! chunks that any rayon worker processes. With many files, up to
//! `threads` files are read at once; with one big file, every worker still
//! has chunks to process. A bounded number of chunks is in flight at any
//! time, so memory does not grow with the input.
//!
//! Each worker writes the rows of a file into its own *lane*: its own
//! builders and part files, so workers never wait for each other. Part
//! files are named after their input (`<stem>-<hash>-<lane>.parquet`) and
//! become visible only when the whole input is done: a re-run can then
//! tell a finished input (in the manifest) from one to redo, whose
//! leftovers it deletes first.

use std::collections::HashSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;
use std::time::Instant;

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::batch::{Batches, Table};
use crate::classify::{self, agents::AgentList};
use crate::error::{Error, ErrorKind, Stage};
use crate::http::{Capture, Response};
use crate::manifest::{self, Manifest};
use crate::shard::Shard;
use crate::sink::{PartSummary, PartWriter, temp_path};
use crate::warc::{Record, RecordType, WarcReader};

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Where to read it.
    pub path: PathBuf,
    /// Its `warc_filename` in every table (the path as given, or the
    /// paths file's line).
    pub name: String,
}

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
        }
    }

    /// The name of this run's manifest file: the shard's, or `run`.
    pub fn run_name(&self) -> String {
        self.shard.map_or_else(|| "run".to_owned(), |s| s.name())
    }

    fn options_json(&self) -> serde_json::Value {
        json!({
            "size_limit": if self.classify.size_limit == usize::MAX {
                None
            } else {
                Some(self.classify.size_limit)
            },
            "agents_version": self.agents.version,
        })
    }
}

/// What was read and written, for one input or a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// WARC records read, of every type.
    pub records: u64,
    /// `response` records read.
    pub responses: u64,
    /// Rows written to `captures`.
    pub captures: u64,
    /// Responses that could not become a capture (an `errors` row each):
    /// `responses = captures + lost`.
    pub lost: u64,
    /// Rows written to `errors`: the lost responses, responses captured as
    /// `failed` (the row says why), and problems outside any response.
    pub errors: u64,
    /// Compressed bytes read (a file's size when read to the end).
    pub bytes: u64,
}

impl Counts {
    /// Adds another input's counts.
    pub fn add(&mut self, other: &Counts) {
        self.records += other.records;
        self.responses += other.responses;
        self.captures += other.captures;
        self.lost += other.lost;
        self.errors += other.errors;
        self.bytes += other.bytes;
    }

    /// The counts as manifest fields.
    fn json(&self) -> serde_json::Map<String, serde_json::Value> {
        let v = json!({
            "records": self.records,
            "responses": self.responses,
            "captures": self.captures,
            "lost": self.lost,
            "errors": self.errors,
            "bytes": self.bytes,
        });
        v.as_object().cloned().unwrap_or_default()
    }
}

/// How one input ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// The input's name.
    pub input: String,
    /// The input could not be read at all (not opened, or not one record).
    pub failed: bool,
    /// What was read and written.
    pub counts: Counts,
    /// The part files written.
    pub parts: Vec<PartSummary>,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Inputs finished in this run.
    pub files_done: u64,
    /// Inputs that could not be read at all.
    pub files_failed: u64,
    /// Inputs skipped because an earlier run finished them.
    pub files_skipped: u64,
    /// Inputs of this run that an earlier run could not read (they are
    /// tried again; `files_done` or `files_failed` counts them too).
    pub files_retried: u64,
    /// What was read and written, all inputs of this run together.
    pub counts: Counts,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Progress callbacks, called from any thread.
pub trait Progress: Sync {
    /// The run starts: `files` inputs to do, `bytes` in total.
    fn start(&self, _files: u64, _bytes: u64) {}
    /// `records` more records and `bytes` more compressed bytes were read.
    fn advance(&self, _records: u64, _bytes: u64) {}
    /// An input is finished.
    fn file_done(&self, _report: &FileReport) {}
}

/// No progress reporting.
pub struct NoProgress;

impl Progress for NoProgress {}

/// A failure of the run itself (not of an input): the output cannot be
/// written.
#[derive(Debug)]
pub struct RunError(pub String);

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

/// A [`RunError`] saying what could not be done, and why.
pub(crate) fn run_error(what: impl std::fmt::Display, e: impl std::fmt::Display) -> RunError {
    RunError(format!("{what}: {e}"))
}

/// The first 4 bytes of the SHA-256 of `bytes`, in hex: a short name that
/// tells things apart.
pub(crate) fn short_hash(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    hash[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// The part-file name stem of an input: its file name without WARC and
/// gzip extensions, and a hash of its whole name (two inputs with the same
/// file name in different directories must not clash). Every part file of
/// the input starts with it, whichever shard wrote it.
pub fn part_stem(input: &str) -> String {
    let base = input.rsplit(['/', '\\']).next().unwrap_or(input);
    let mut stem = base;
    for ext in [".gz", ".warc", ".arc"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}-{}", short_hash(input.as_bytes()))
}

/// A part file's name: the input's stem, the shard that wrote it, and the
/// worker lane: `<stem>-<hash>[-shard-00003-of-00100]-<lane>.parquet`.
pub fn part_name(stem: &str, shard: Option<Shard>, lane: usize) -> String {
    match shard {
        Some(shard) => format!("{stem}-{}-{lane:02}.parquet", shard.name()),
        None => format!("{stem}-{lane:02}.parquet"),
    }
}

/// Deletes the part files (finished or not) an unfinished input left.
fn remove_leftovers(out: &Path, stem: &str) -> Result<(), RunError> {
    let prefix = format!("{stem}-");
    for table in Table::ALL {
        let dir = out.join(table.name());
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let bare = name.strip_prefix('.').unwrap_or(&name);
            if bare.starts_with(&prefix) {
                fs::remove_file(entry.path())
                    .map_err(|e| run_error("cannot remove a leftover part file", e))?;
            }
        }
    }
    Ok(())
}

/// The name of the schema-only part file every table directory holds.
pub const EMPTY_PART: &str = "_empty.parquet";

/// Gives every table a directory and a schema-only part file, so that a
/// table no input has rows for still reads as an empty table (a glob that
/// matches no file is an error in DuckDB).
fn write_empty_tables(out: &Path) -> Result<(), RunError> {
    for table in Table::ALL {
        let path = out.join(table.name()).join(EMPTY_PART);
        if !path.exists() {
            let schema = crate::batch::schema_of(table.columns());
            let written =
                PartWriter::create(table.name(), path.clone(), schema).and_then(PartWriter::close);
            // Shards starting together all write it; one rename wins.
            if let Err(e) = written
                && !path.exists()
            {
                return Err(run_error("cannot write an empty table", e));
            }
        }
        // The temporary files of runs killed while writing it.
        let temp_prefix = format!(".{EMPTY_PART}.");
        for entry in fs::read_dir(out.join(table.name())).into_iter().flatten() {
            let Ok(entry) = entry else { continue };
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(&temp_prefix)
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
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

/// One worker's rows and part files for one input.
struct Lane {
    batches: Batches,
    writers: Vec<Option<PartWriter>>,
    captures: u64,
    lost: u64,
    errors: u64,
    failure: Option<RunError>,
}

impl Lane {
    fn new(file: &str, agents: &AgentList) -> Lane {
        Lane {
            batches: Batches::new(file, agents),
            writers: Table::ALL.iter().map(|_| None).collect(),
            captures: 0,
            lost: 0,
            errors: 0,
            failure: None,
        }
    }

    /// Encodes the tables holding `min_rows` rows or more.
    fn flush(
        &mut self,
        out: &Path,
        stem: &str,
        shard: Option<Shard>,
        lane: usize,
        min_rows: usize,
    ) {
        if self.failure.is_some() {
            return;
        }
        for (table, batch) in self.batches.take(min_rows) {
            let slot = &mut self.writers[table as usize];
            if slot.is_none() {
                let path = out.join(table.name()).join(part_name(stem, shard, lane));
                match PartWriter::create(table.name(), path, batch.schema()) {
                    Ok(w) => *slot = Some(w),
                    Err(e) => {
                        self.failure = Some(run_error("cannot create a part file", e));
                        return;
                    }
                }
            }
            if let Err(e) = slot.as_mut().unwrap().write(&batch) {
                self.failure = Some(run_error("cannot write a part file", e));
                return;
            }
        }
    }
}

/// The work of one chunk: its responses and the reader's errors before it.
struct Chunk {
    records: Vec<Record>,
    errors: Vec<Error>,
    crawl: Option<String>,
}

struct Shared<'a> {
    config: &'a Config,
    progress: &'a dyn Progress,
    budget: Budget,
    /// Inputs no thread has started yet. While there are some, every
    /// thread has a file of its own and a reader processes its own chunks
    /// (one lane per file, so memory does not grow with the number of
    /// threads squared); once all are started, chunks go to idle threads.
    unstarted: AtomicUsize,
}

fn process_chunk(shared: &Shared<'_>, input: &Input, lane: &mut Lane, chunk: Chunk) {
    let config = shared.config;
    for e in &chunk.errors {
        lane.batches.push_error(e);
        lane.errors += 1;
    }
    for record in &chunk.records {
        let response = Response::parse(record, &input.name);
        let capture = match Capture::new(
            &input.name,
            chunk.crawl.as_deref(),
            record,
            response.as_ref(),
        ) {
            Ok(c) => c,
            Err(e) => {
                lane.batches.push_error(&e);
                lane.errors += 1;
                lane.lost += 1;
                continue;
            }
        };
        if let Err(e) = &response {
            // The capture says `failed`; the errors table says why.
            lane.batches.push_error(e);
            lane.errors += 1;
        }
        let body = response.as_ref().map_or(&[][..], |r| r.body(record));
        let robots = classify::parse_robots(&capture, body, &config.classify);
        let verdicts = classify::verdicts(&capture, robots.as_ref(), &config.agents);
        lane.batches
            .push_capture(&capture, robots.as_ref(), &verdicts, &config.agents);
        lane.captures += 1;
    }
}

/// Reads one input to the end; every record becomes a row somewhere.
fn process_file(shared: &Shared<'_>, input: &Input, stem: &str) -> Result<FileReport, RunError> {
    let config = shared.config;
    let lanes: Vec<Mutex<Lane>> = (0..config.threads)
        .map(|_| Mutex::new(Lane::new(&input.name, &config.agents)))
        .collect();
    let mut report = FileReport {
        input: input.name.clone(),
        failed: false,
        counts: Counts::default(),
        parts: Vec::new(),
    };
    let bytes_read = AtomicU64::new(0);

    let reader = File::open(&input.path)
        .map(|f| {
            WarcReader::new(
                CountingReader {
                    inner: f,
                    count: &bytes_read,
                },
                &input.name,
            )
        })
        .map_err(|e| Error::new(Stage::Open, ErrorKind::Io, &input.name, None, e.to_string()));
    match reader {
        Err(e) => {
            report.failed = true;
            let mut lane = lanes[0].lock().unwrap();
            lane.batches.push_error(&e);
            lane.errors += 1;
        }
        Ok(mut reader) => {
            let mut errors_in_a_row = 0u64;
            rayon::in_place_scope(|scope| {
                let mut done = false;
                let mut spare = Record::new();
                while !done {
                    let mut chunk = Chunk {
                        records: Vec::with_capacity(config.chunk_records),
                        errors: Vec::new(),
                        crawl: None,
                    };
                    let mut records = 0;
                    let before = bytes_read.load(Ordering::Relaxed);
                    while chunk.records.len() < config.chunk_records {
                        match reader.read_record(&mut spare) {
                            Ok(true) => {
                                errors_in_a_row = 0;
                                records += 1;
                                if spare.record_type() == RecordType::Response {
                                    chunk.records.push(std::mem::take(&mut spare));
                                }
                            }
                            Ok(false) => {
                                done = true;
                                break;
                            }
                            Err(e) => {
                                chunk.errors.push(e);
                                // The reader resumes after every error; this
                                // only guards against a reader bug looping.
                                errors_in_a_row += 1;
                                if errors_in_a_row > 1_000_000 {
                                    done = true;
                                    break;
                                }
                            }
                        }
                    }
                    chunk.crawl = reader.crawl().map(str::to_owned);
                    report.counts.records += records;
                    report.counts.responses += chunk.records.len() as u64;
                    shared
                        .progress
                        .advance(records, bytes_read.load(Ordering::Relaxed) - before);
                    if chunk.records.is_empty() && chunk.errors.is_empty() {
                        continue;
                    }
                    let lanes = &lanes;
                    let work = move |chunk| {
                        let index = rayon::current_thread_index().unwrap_or(0) % lanes.len();
                        let mut lane = lanes[index].lock().unwrap();
                        process_chunk(shared, input, &mut lane, chunk);
                        lane.flush(&config.out, stem, config.shard, index, config.batch_rows);
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
            });
            report.failed = report.counts.records == 0;
        }
    }
    report.counts.bytes = bytes_read.load(Ordering::Relaxed);

    // Close every lane's files; rename them only once all are closed.
    let mut closed = Vec::new();
    let mut failure = None;
    for (index, lane) in lanes.into_iter().enumerate() {
        let mut lane = lane.into_inner().unwrap();
        lane.flush(&config.out, stem, config.shard, index, 1);
        report.counts.captures += lane.captures;
        report.counts.lost += lane.lost;
        report.counts.errors += lane.errors;
        failure = failure.or(lane.failure.take());
        for writer in lane.writers.into_iter().flatten() {
            if failure.is_some() {
                writer.abort();
            } else {
                closed.push(writer);
            }
        }
    }
    if let Some(f) = failure {
        return Err(f);
    }
    for writer in closed {
        report.parts.push(
            writer
                .close()
                .map_err(|e| run_error("cannot finish a part file", e))?,
        );
    }
    report.parts.sort_by(|a, b| a.path.cmp(&b.path));
    // The renames are durable before the manifest calls the input done.
    for table in Table::ALL {
        sync_dir(&config.out.join(table.name()))
            .map_err(|e| run_error("cannot sync a table directory", e))?;
    }
    Ok(report)
}

/// Makes the renames in a directory durable (a no-op where directories
/// cannot be opened as files).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    if cfg!(unix) && dir.exists() {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
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

/// Runs `ingest`: every input not finished by an earlier run into the
/// tables under `config.out`. Fails only when the output cannot be written;
/// inputs that cannot be read are counted and reported, not fatal.
pub fn run(config: &Config, progress: &dyn Progress) -> Result<Summary, RunError> {
    let started = Instant::now();
    let threads = config.threads.max(1);
    let config = &Config {
        threads,
        ..config.clone()
    };
    fs::create_dir_all(&config.out)
        .map_err(|e| run_error("cannot create the output directory", e))?;
    let finished =
        manifest::read_inputs(&config.out).map_err(|e| run_error("cannot read the manifest", e))?;
    let options = config.options_json();
    for entry in finished.values() {
        if entry.status == "done" && entry.options != options {
            return Err(RunError(format!(
                "{} holds results made with other options ({} instead of {}); \
                 write to another directory",
                config.out.display(),
                entry.options,
                options
            )));
        }
    }
    write_empty_tables(&config.out)?;
    let mut seen = HashSet::new();
    let mut todo = Vec::new();
    let mut summary = Summary::default();
    for input in &config.inputs {
        if !seen.insert(input.name.as_str()) {
            continue;
        }
        match finished.get(&input.name) {
            Some(e) if e.status == "done" => summary.files_skipped += 1,
            Some(_) => {
                summary.files_retried += 1;
                todo.push(input);
            }
            None => todo.push(input),
        }
    }
    let total_bytes = todo
        .iter()
        .map(|i| fs::metadata(&i.path).map_or(0, |m| m.len()))
        .sum();
    progress.start(todo.len() as u64, total_bytes);

    let manifest = Manifest::create(
        &config.out,
        &config.run_name(),
        config.shard.map(|s| s.to_string()),
        &config.agents.version,
        options,
    )
    .map_err(|e| run_error("cannot write the manifest", e))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("robostats-worker-{i}"))
        .build()
        .map_err(|e| run_error("cannot start worker threads", e))?;
    let shared = Shared {
        config,
        progress,
        budget: Budget {
            in_flight: AtomicUsize::new(0),
            limit: 2 * threads,
        },
        unstarted: AtomicUsize::new(todo.len()),
    };
    let results = Mutex::new((Vec::new(), None::<RunError>, manifest));
    // Every thread of the pool reads files (one file per task) and
    // processes chunks; `threads` is the whole CPU budget.
    pool.install(|| {
        todo.par_iter().with_max_len(1).for_each(|input| {
            shared.unstarted.fetch_sub(1, Ordering::Relaxed);
            if results.lock().unwrap().1.is_some() {
                return;
            }
            let stem = part_stem(&input.name);
            let result = remove_leftovers(&config.out, &stem)
                .and_then(|()| process_file(&shared, input, &stem));
            let mut results = results.lock().unwrap();
            match result {
                Ok(report) => {
                    let mut line = report.counts.json();
                    line.extend([
                        ("type".to_owned(), json!("input")),
                        ("input".to_owned(), json!(report.input)),
                        (
                            "status".to_owned(),
                            json!(if report.failed { "failed" } else { "done" }),
                        ),
                        (
                            "parts".to_owned(),
                            report
                                .parts
                                .iter()
                                .map(|p| {
                                    json!({
                                        "table": p.table,
                                        "path": p.path.strip_prefix(&config.out).unwrap_or(&p.path),
                                        "rows": p.rows,
                                    })
                                })
                                .collect(),
                        ),
                    ]);
                    let line = serde_json::Value::Object(line);
                    if let Err(e) = results.2.append(&line) {
                        results.1 = Some(run_error("cannot write the manifest", e));
                    }
                    progress.file_done(&report);
                    results.0.push(report);
                }
                Err(e) => {
                    results.1.get_or_insert(e);
                }
            }
        });
    });
    let (reports, failure, mut manifest) = results.into_inner().unwrap();
    if let Some(e) = failure {
        return Err(e);
    }
    for r in &reports {
        if r.failed {
            summary.files_failed += 1;
        } else {
            summary.files_done += 1;
        }
        summary.counts.add(&r.counts);
    }
    summary.seconds = started.elapsed().as_secs_f64();
    let mut end = summary.counts.json();
    end.extend([
        ("type".to_owned(), json!("end")),
        ("files_done".to_owned(), json!(summary.files_done)),
        ("files_failed".to_owned(), json!(summary.files_failed)),
        ("files_skipped".to_owned(), json!(summary.files_skipped)),
        ("files_retried".to_owned(), json!(summary.files_retried)),
        ("seconds".to_owned(), json!(summary.seconds)),
    ]);
    manifest
        .append(&serde_json::Value::Object(end))
        .map_err(|e| run_error("cannot write the manifest", e))?;
    // Temporary files of this run's inputs are all closed or removed.
    debug_assert!(
        reports
            .iter()
            .all(|r| r.parts.iter().all(|p| !temp_path(&p.path).exists()))
    );
    Ok(summary)
}
