//! The lanes of an input: one per worker, each with its own builders and
//! part files, so workers never wait for each other.

use std::sync::Mutex;

use crate::classify::{self, ErrorRow, Fate, Rows, Table, VerdictTally, agents::AgentList};
use crate::output::batch::Batches;
use crate::output::dataset::{Dataset, FinishedPart, PartFile, PartSummary, part_name};
use crate::shard::Shard;
use crate::warc::Error;

use crate::output::dataset::{Counts, OutputError};
use crate::source::Input;

use super::Shared;
use super::read::Chunk;

/// The lanes of one input: one per worker thread.
pub(super) struct Lanes {
    lanes: Vec<Mutex<Lane>>,
}

impl Lanes {
    pub(super) fn new(threads: usize, stem: &str, shard: Option<Shard>) -> Lanes {
        Lanes {
            lanes: (0..threads)
                .map(|index| Mutex::new(Lane::new(part_name(stem, shard, index))))
                .collect(),
        }
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
    /// The lanes' verdict counts are added up and written by the first
    /// lane, so that an input's `verdict_counts` rows do not depend on how
    /// its records were shared out.
    pub(super) fn close(
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
pub(super) struct Lane {
    /// Its part files' name (one per table directory).
    pub(super) part: String,
    pub(super) batches: Batches,
    /// Every crawler's verdict on its captures, counted.
    pub(super) tally: VerdictTally,
    pub(super) writers: Vec<Option<PartFile>>,
    /// The rows it counted: captures, lost responses, errors.
    pub(super) counts: Counts,
    pub(super) failure: Option<OutputError>,
}

impl Lane {
    pub(super) fn new(part: String) -> Lane {
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
    pub(super) fn process(&mut self, shared: &Shared<'_>, input: &Input, chunk: Chunk) {
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
    pub(super) fn flush(&mut self, dataset: &Dataset, min_rows: usize) {
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
