//! The compaction of a local data set that is read by generation: one
//! compacted on S3 and then copied to disk (`dataset::generation`). Its
//! readers read only the compactions its newest generation names, so a
//! compaction here keeps to the chain as one on S3 does:
//!
//! ```text
//! the newest generation  -> the files it retired, and the compacted files of
//!                           compactions it does not name, deleted first (on
//!                           disk, what a compaction merged goes at once)
//! generation-N+1.json    -> written create-only (link(2)), naming this
//!                           compaction, before its first file is put in place
//! ```
//!
//! A data set without generations (one only ever written on disk) has
//! none written here: its readers read every file.

use std::fs;
use std::time::Duration;

use crate::output::backend::{Backend, Cond, DirBackend, Done};
use crate::output::dataset::manifest::DIR_NAME;
use crate::output::dataset::s3::{Generation, generation_key, newest_generation};
use crate::output::dataset::{Dataset, OutputError};

/// A local data set's generations, while it is compacted.
pub(super) struct Generations {
    backend: DirBackend,
    newest: Generation,
}

impl Generations {
    /// The data set's newest generation (its chain checked), if it has
    /// any, once the files it hides are deleted: nothing hidden is then
    /// merged, nor read by the compaction's checks.
    pub(super) fn open(dataset: &Dataset) -> Result<Option<Generations>, OutputError> {
        let manifest = dataset.dir().join(DIR_NAME);
        let any = fs::read_dir(&manifest).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("generation-"))
        });
        if !any {
            return Ok(None);
        }
        let backend = DirBackend::open(dataset.dir()).map_err(OutputError::Store)?;
        let listing = backend.listing().map_err(OutputError::Store)?;
        let Some(newest) = newest_generation(&backend, &listing)? else {
            return Ok(None);
        };
        for (key, listed) in listing.iter().filter(|(key, _)| newest.hides(key)) {
            let deleted = backend.delete(key, Cond::Match(&listed.etag));
            if deleted.map_err(OutputError::Store)? == Done::Refused {
                return Err(OutputError::Store(format!(
                    "{} changed while compact ran: nothing is compacted",
                    backend.shown(key)
                )));
            }
        }
        Ok(Some(Generations { backend, newest }))
    }

    /// Makes the compaction `id` read: a new generation naming it,
    /// unless the newest does.
    pub(super) fn name(&mut self, id: &str) -> Result<(), OutputError> {
        if self.newest.names(id) {
            return Ok(());
        }
        let compactions = self
            .newest
            .compactions
            .iter()
            .cloned()
            .chain([id.to_owned()]);
        let next = self
            .newest
            .next(compactions.collect(), Vec::new(), Duration::ZERO)?;
        if !next.put(&self.backend)? {
            return Err(OutputError::Store(format!(
                "{} exists: another compaction committed it meanwhile",
                self.backend.shown(&generation_key(next.generation))
            )));
        }
        self.newest = next;
        Ok(())
    }
}
