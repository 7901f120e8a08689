//! One input, start to end: opened, read record by record into chunks,
//! the chunks dispatched to the lanes, its part files published.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::output::dataset::part_stem;
use crate::warc::{Error, ErrorKind, Stage};
use crate::warc::{Record, RecordType, WarcReader};

use std::collections::HashSet;

use crate::output::dataset::bodies::Digest;
use crate::output::dataset::{Counts, OutputError};
use crate::source::Input;

use super::lanes::{Chunk, Lanes};
use super::{FileReport, Shared, Task};

/// Errors in a row after which a reader is given up on (by default). The
/// reader resumes after every error and moves forward, so only a reader
/// bug (or an input that fails every read) gets here.
pub const GIVE_UP_AFTER_ERRORS: u64 = 1_000_000;

/// One input, start to end: its leftovers deleted, read to the end into the
/// lanes, its part files published; with the bodies it wrote, to be known
/// stored once the manifest records them. `None` when the run stopped
/// while it was read (another input's output failed): nothing of it is
/// left. An input read for its bodies only keeps its own part files.
pub(super) fn ingest_input(
    shared: &Shared<'_>,
    key: usize,
    task: &Task<'_>,
) -> Result<Option<(FileReport, HashSet<Digest>)>, OutputError> {
    let input = task.input;
    let stem = part_stem(&input.name);
    if task.bodies_only {
        shared.dataset.remove_temporaries(&stem)?;
    } else {
        shared.dataset.remove_leftovers(&stem)?;
    }
    let lanes = Lanes::new(
        shared.config.threads,
        &stem,
        shared.config.shard,
        &shared.stored_bodies,
        task.bodies_only,
    );
    let read = read_input(shared, key, input, &lanes);
    if read.stopped {
        return lanes.give_up().map_or(Ok(None), Err);
    }
    let report = |counts, parts, body_parts| FileReport {
        input: input.name.clone(),
        id: input.id.clone(),
        location: input.location.to_string(),
        failed: read.failure.is_some(),
        reason: read.failure.clone(),
        counts,
        parts,
        body_parts,
        bodies_only: task.bodies_only,
        repairs: task.repairs.clone(),
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
        return Ok(Some((
            report(counts, Vec::new(), Vec::new()),
            HashSet::new(),
        )));
    }
    let mut closed = lanes.close(shared.dataset, &input.name, &shared.config.agents)?;
    // The renames are durable before the manifest calls the input done.
    shared.dataset.sync_tables()?;
    closed.counts.add(&read.counts);
    Ok(Some((
        report(closed.counts, closed.parts, closed.body_parts),
        closed.claimed,
    )))
}

/// What reading an input found.
pub(super) struct ReadEnd {
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
pub(super) fn read_input(
    shared: &Shared<'_>,
    key: usize,
    input: &Input,
    lanes: &Lanes<'_>,
) -> ReadEnd {
    let bytes_read = AtomicU64::new(0);
    let mut end = ReadEnd {
        counts: Counts::default(),
        failure: None,
        stopped: false,
    };
    let file = match crate::source::open(input, key, shared.prefetch) {
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

/// How filling a chunk ended.
pub(super) enum Filled {
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
pub(super) fn describe(e: &Error) -> String {
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
pub(super) struct ChunkFiller {
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
    pub(super) fn new(chunk_records: usize, give_up_after: u64) -> ChunkFiller {
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
    pub(super) fn release_held(&mut self, chunk: &mut Chunk) {
        chunk.errors.extend(self.held.take().map(|(held, _)| held));
    }

    /// Keeps an I/O error back, or gives up when it repeats `IO_ATTEMPTS`
    /// times; another error is a row.
    pub(super) fn error(&mut self, chunk: &mut Chunk, e: Error) -> Option<Error> {
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

    pub(super) fn fill<R: std::io::Read>(&mut self, reader: &mut WarcReader<R>) -> (Chunk, Filled) {
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
pub(super) fn dispatch<'s>(
    shared: &'s Shared<'s>,
    input: &'s Input,
    lanes: &'s Lanes<'s>,
    scope: &rayon::Scope<'s>,
    chunk: Chunk,
) {
    let work = move |chunk: Chunk| {
        let index = rayon::current_thread_index().unwrap_or(0) % lanes.len();
        let mut lane = lanes.lock(index);
        lane.process(shared, lanes.bodies(), input, chunk);
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

/// Counts the bytes read from a file (for progress and the report).
pub(super) struct CountingReader<'a, R> {
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
