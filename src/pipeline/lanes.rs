//! The lanes of an input: one per worker, each with its own builders and
//! part files, so workers never wait for each other.
//!
//! A lane writes two kinds of part files: the input's (named after it,
//! deleted with it when it is done again) and those of the tables stored
//! once per body (`bodies`, `body_rules`, ...), named after the input and
//! a random *writer*, which outlive it. A body's rows are written by the
//! first lane of the run that meets it ([`Bodies`]), unless they are
//! stored already.

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::Mutex;

use crate::classify::{self, ErrorRow, Fate, Row, Rows, Table, VerdictTally, agents::AgentList};
use crate::output::batch::Batches;
use crate::output::dataset::bodies::cache::StoredBodies;
use crate::output::dataset::bodies::{Digest, digest_key};
use crate::output::dataset::{
    Dataset, FinishedPart, PartFile, PartSummary, body_part_name, part_name, sync_dir,
};
use crate::shard::Shard;
use crate::warc::{Error, Record};

use crate::output::dataset::{Counts, OutputError};
use crate::source::Input;

use super::Shared;

/// The work of one chunk: its responses and the reader's errors before
/// them.
pub(super) struct Chunk {
    pub(super) responses: Vec<Record>,
    pub(super) errors: Vec<Error>,
    pub(super) crawl: Option<String>,
    /// Records read, of every type.
    pub(super) records_read: u64,
}

impl Chunk {
    pub(super) fn is_empty(&self) -> bool {
        self.responses.is_empty() && self.errors.is_empty()
    }
}

/// The bodies of one input: those known to be stored before it (the
/// run's [`StoredBodies`]: only bodies whose rows are published, durable
/// and recorded, so that an input meeting a body stored by another input
/// can leave its rows out and still be done, whatever becomes of that
/// other input), and those its lanes write. Two inputs read at the same
/// time may both write a body they both meet: the views and `compact` keep
/// one writer's rows (docs/ingest.md).
pub(super) struct Bodies<'a> {
    stored: &'a StoredBodies,
    /// Written by a lane of this input (published with its part files).
    claimed: Mutex<HashSet<Digest>>,
}

impl Bodies<'_> {
    /// Whether the rows of `digest` are this lane's to write: neither
    /// stored nor written by another lane of the input.
    fn claim(&self, digest: &str) -> bool {
        // (Always 64 hex digits; anything else is keyed by its own digest,
        // so that it is still claimed once.)
        let key = digest_key(digest)
            .or_else(|| digest_key(&classify::copies::body_digest(digest.as_bytes())))
            .unwrap_or_default();
        !self.stored.contains(&key)
            && self
                .claimed
                .lock()
                .expect("no thread panicked holding the claims")
                .insert(key)
    }
}

/// A lane's rows, with the lane's writer for the bodies it claims.
struct LaneRows<'a> {
    batches: &'a mut Batches,
    bodies: &'a Bodies<'a>,
    writer: i64,
    bodies_only: bool,
}

impl Rows for LaneRows<'_> {
    fn push<R: Row>(&mut self, row: &R) {
        if !self.bodies_only || R::TABLE.per_body() {
            self.batches.push(row);
        }
    }

    fn body_writer(&mut self, digest: &str) -> Option<i64> {
        self.bodies.claim(digest).then_some(self.writer)
    }
}

/// The lanes of one input: one per worker thread.
pub(super) struct Lanes<'a> {
    lanes: Vec<Mutex<Lane>>,
    bodies: Bodies<'a>,
    /// Only the tables stored once per body are written (an input read
    /// again for its bodies).
    bodies_only: bool,
}

/// What the lanes of an input published.
pub(super) struct Closed {
    /// The input's own part files.
    pub(super) parts: Vec<PartSummary>,
    /// The part files of the tables stored once per body.
    pub(super) body_parts: Vec<PartSummary>,
    /// The bodies written: stored once the manifest records them.
    pub(super) claimed: HashSet<Digest>,
    /// The rows counted.
    pub(super) counts: Counts,
}

impl<'a> Lanes<'a> {
    pub(super) fn new(
        threads: usize,
        stem: &str,
        shard: Option<Shard>,
        stored: &'a StoredBodies,
        bodies_only: bool,
    ) -> Lanes<'a> {
        // A writer number unique to this lane of this attempt at the input
        // (random keys, the time and the process).
        let random = std::collections::hash_map::RandomState::new();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Lanes {
            lanes: (0..threads)
                .map(|index| {
                    let writer = random.hash_one((stem, index, nanos, std::process::id())) as i64;
                    let mut lane = Lane::new(
                        part_name(stem, shard, index),
                        body_part_name(stem, shard, index, writer),
                        writer,
                    );
                    lane.bodies_only = bodies_only;
                    Mutex::new(lane)
                })
                .collect(),
            bodies: Bodies {
                stored,
                claimed: Mutex::new(HashSet::new()),
            },
            bodies_only,
        }
    }

    /// The bodies of the input, which its lanes claim.
    pub(super) fn bodies(&self) -> &Bodies<'a> {
        &self.bodies
    }

    pub(super) fn len(&self) -> usize {
        self.lanes.len()
    }

    pub(super) fn lock(&self, index: usize) -> std::sync::MutexGuard<'_, Lane> {
        self.lanes[index]
            .lock()
            .expect("no thread panicked holding a lane")
    }

    /// An error outside any response (the file, the reader).
    pub(super) fn push_error(&self, index: usize, e: &Error) {
        let mut lane = self.lock(index);
        lane.batches.push(&ErrorRow::of(e));
        lane.counts.errors += 1;
    }

    /// Drops everything the lanes hold (their part files delete
    /// themselves); returns the first failure of a lane, if any.
    pub(super) fn give_up(self) -> Option<OutputError> {
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
    /// The body tables' part files are published first, `bodies` last of
    /// them (a `bodies` row says the body's line rows are complete), then
    /// the input's; they are not the input's (returned apart) and stay
    /// should the input be done again. The bodies written are returned, to
    /// be stored for the rest of the run once the manifest records them.
    ///
    /// The lanes' verdict counts are added up and written by the first
    /// lane, so that an input's `verdict_counts` rows do not depend on how
    /// its records were shared out.
    pub(super) fn close(
        self,
        dataset: &Dataset,
        file: &str,
        agents: &AgentList,
    ) -> Result<Closed, OutputError> {
        let Lanes {
            lanes,
            bodies,
            bodies_only,
        } = self;
        let mut lanes: Vec<Lane> = lanes
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
        if let Some(first) = lanes.first_mut().filter(|_| !bodies_only) {
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
        // Body line tables, then `bodies`, then the input's tables; each
        // of the first two groups durable before the next is published, so
        // that not even a power loss leaves a `bodies` row without its
        // line rows, nor a body stored without its rows.
        let group = |t: Table| match t {
            Table::Bodies => 1,
            t if t.per_body() => 0,
            _ => 2,
        };
        let mut groups: [Vec<FinishedPart>; 3] = Default::default();
        for part in finished {
            groups[group(part.table())].push(part);
        }
        let mut parts = Vec::new();
        for (index, group) in groups.into_iter().enumerate() {
            let mut dirs = HashSet::new();
            for part in group {
                dirs.insert(part.table());
                parts.push(part.publish()?);
            }
            if index < 2 {
                for table in dirs {
                    sync_dir(&dataset.table_dir(table))?;
                }
            }
        }
        // The body tables' part files are no input's.
        let (mut body_parts, mut parts): (Vec<PartSummary>, Vec<PartSummary>) =
            parts.into_iter().partition(|p| p.table.per_body());
        parts.sort_by(|a, b| a.path.cmp(&b.path));
        body_parts.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Closed {
            parts,
            body_parts,
            claimed: bodies.claimed.into_inner().expect("no thread panicked"),
            counts,
        })
    }
}

/// One worker's rows and part files for one input.
pub(super) struct Lane {
    /// Its part files' name (one per table directory).
    pub(super) part: String,
    /// Its part files' name in the tables stored once per body.
    pub(super) body_part: String,
    /// The writer number in its body rows.
    pub(super) writer: i64,
    pub(super) batches: Batches,
    /// Every crawler's verdict on its captures, counted.
    pub(super) tally: VerdictTally,
    pub(super) writers: Vec<Option<PartFile>>,
    /// The rows it counted: captures, lost responses, errors.
    pub(super) counts: Counts,
    pub(super) failure: Option<OutputError>,
    /// Only the rows of the tables stored once per body are written.
    pub(super) bodies_only: bool,
}

impl Lane {
    pub(super) fn new(part: String, body_part: String, writer: i64) -> Lane {
        Lane {
            part,
            body_part,
            writer,
            batches: Batches::new(),
            tally: VerdictTally::new(),
            writers: Table::ALL.iter().map(|_| None).collect(),
            counts: Counts::default(),
            failure: None,
            bodies_only: false,
        }
    }

    /// The rows of a chunk's errors and responses.
    pub(super) fn process(
        &mut self,
        shared: &Shared<'_>,
        bodies: &Bodies<'_>,
        input: &Input,
        chunk: Chunk,
    ) {
        for e in &chunk.errors {
            self.batches.push(&ErrorRow::of(e));
            self.counts.errors += 1;
        }
        let config = shared.config;
        let mut rows = LaneRows {
            batches: &mut self.batches,
            bodies,
            writer: self.writer,
            bodies_only: self.bodies_only,
        };
        for record in &chunk.responses {
            let fate = classify::response(
                &input.name,
                chunk.crawl.as_deref(),
                record,
                &config.classify,
                &config.agents,
                &mut rows,
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
    pub(super) fn flush(&mut self, dataset: &Dataset, min_rows: usize) {
        let batches = self.batches.take(min_rows);
        if self.failure.is_some() {
            return;
        }
        for (table, batch) in batches {
            if self.bodies_only && !table.per_body() {
                continue;
            }
            let slot = &mut self.writers[table as usize];
            if slot.is_none() {
                let name = if table.per_body() {
                    &self.body_part
                } else {
                    &self.part
                };
                match dataset.create_part(table, name, batch.schema()) {
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
