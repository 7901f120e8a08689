//! The check of the body store, made when a run or a compaction starts:
//! every writer the manifest records (`bodies` lines) still has its files,
//! or is retired and its bodies owed again.
//!
//! ```text
//! bodies lines --(compact lines: where files were merged)--> each writer's files now
//!   all there            -> intact: its bodies are stored (the run's cache reads them)
//!   one gone (by hand)   -> retired: a `repair` line, then its `bodies` file deleted,
//!                           so no view reads its lines; its input owes its bodies
//! repair lines - bodies lines that pay them -> what is owed, by input
//! ```
//!
//! A writer's `bodies` file is the only thing the views read its lines
//! through, and it is published last: deleting it (and any file holding
//! its rows, with the writers merged there) makes its other files rows
//! nobody reads, which `compact` drops. Its bodies are written again by
//! the next attempt at the input that wrote them, made with them not
//! stored: a run reads a done input again for its bodies only
//! (`pipeline::plan`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use crate::classify::Table;
use crate::output::dataset::manifest::{
    self, BodiesLine, Line, Manifest, Merges, OwedInput, Owing, PartEntry, RepairLine,
};
use crate::output::dataset::{Dataset, OutputError, is_finished_part, short_hash};

/// What the check found, after it retired what had to be.
#[derive(Debug, Default)]
pub struct Store {
    /// The `bodies` files whose writers' files are all there (absolute):
    /// the stored bodies.
    pub intact: Vec<PathBuf>,
    /// The `bodies` files no record names (absolute): published by a run
    /// killed before it recorded them. No run left a body out for them.
    pub unrecorded: Vec<PathBuf>,
    /// What this check retired (the line it wrote), if anything.
    pub retired: Option<RepairLine>,
    /// The inputs that owe bodies, with the repairs they owe them to and
    /// the number of bodies those listed.
    pub owed: BTreeMap<OwedInput, Owed>,
}

/// What one input owes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Owed {
    /// The repairs (ids) its next attempt pays.
    pub repairs: Vec<String>,
    /// Bodies the retired writers listed.
    pub bodies: u64,
    /// A file found missing, to say why.
    pub missing: Option<PathBuf>,
}

/// One writer as recorded: its `bodies` file and its line files.
struct Writer<'a> {
    input: OwedInput,
    bodies: &'a PartEntry,
    lines: Vec<&'a PartEntry>,
}

/// The manifest's record of the store.
#[derive(Default)]
struct Records {
    bodies: Vec<BodiesLine>,
    repairs: Vec<RepairLine>,
}

impl Records {
    fn read(out: &Path) -> Result<Records, OutputError> {
        let mut records = Records::default();
        manifest::for_each_line(out, |line, _| match line {
            Line::Bodies(b) => records.bodies.push(b),
            Line::Repair(r) => records.repairs.push(r),
            _ => {}
        })?;
        Ok(records)
    }

    /// Every writer: the parts of a `bodies` line with one file name (one
    /// lane's), whose `bodies` table's file is among them.
    fn writers(&self) -> Vec<Writer<'_>> {
        let mut writers = Vec::new();
        for line in &self.bodies {
            let input = OwedInput {
                input: line.input.clone(),
                id: line.id.clone(),
            };
            let mut by_name: BTreeMap<&std::ffi::OsStr, Vec<&PartEntry>> = BTreeMap::new();
            for part in &line.parts {
                by_name
                    .entry(part.path.file_name().unwrap_or_default())
                    .or_default()
                    .push(part);
            }
            for parts in by_name.into_values() {
                let (bodies, lines): (Vec<&PartEntry>, Vec<&PartEntry>) = parts
                    .into_iter()
                    .partition(|p| p.table == Table::Bodies.name());
                if let Some(&bodies) = bodies.first() {
                    writers.push(Writer {
                        input: input.clone(),
                        bodies,
                        lines,
                    });
                }
            }
        }
        writers
    }

    /// What each input owes: the repairs no `bodies` line of it pays.
    fn owed(&self) -> BTreeMap<OwedInput, Owed> {
        let paid: HashSet<(&str, &str)> = self
            .bodies
            .iter()
            .flat_map(|b| {
                let key = b.id.as_deref().unwrap_or(&b.input);
                b.repairs.iter().map(move |r| (key, r.as_str()))
            })
            .collect();
        let mut owed: BTreeMap<OwedInput, Owed> = BTreeMap::new();
        for repair in &self.repairs {
            for Owing { input, bodies } in &repair.inputs {
                if paid.contains(&(input.key(), repair.id.as_str())) {
                    continue;
                }
                let entry = owed.entry(input.clone()).or_default();
                entry.repairs.push(repair.id.clone());
                entry.bodies += bodies;
                if entry.missing.is_none() {
                    entry.missing = repair.missing.first().cloned();
                }
            }
        }
        owed
    }
}

/// Checks the body store of `dataset`: writers whose files are gone are
/// retired (a `repair` line appended to `log`, then their `bodies` files
/// deleted); returns what is stored and what is owed.
pub fn check(dataset: &Dataset, log: &mut Manifest) -> Result<Store, OutputError> {
    let out = dataset.dir();
    let records = Records::read(out)?;
    let merges = Merges::read(out)?;
    let exists = |rel: &Path| dataset.is_part(rel);
    let retired_before: HashSet<&Path> = records
        .repairs
        .iter()
        .flat_map(|r| r.retired.iter().map(PathBuf::as_path))
        .collect();

    // Where each writer's files are now, and which are gone.
    let writers = records.writers();
    let mut located: Vec<Option<PathBuf>> = Vec::with_capacity(writers.len());
    let mut missing: Vec<Option<PathBuf>> = Vec::with_capacity(writers.len());
    for w in &writers {
        let bodies = merges.locate(&w.bodies.path, &exists);
        let gone = if bodies.is_none() {
            Some(w.bodies.path.clone())
        } else {
            w.lines
                .iter()
                .find(|l| merges.locate(&l.path, &exists).is_none())
                .map(|l| l.path.clone())
        };
        located.push(bodies);
        missing.push(gone);
    }
    // The `bodies` files to delete: of writers with a file gone, and of
    // writers retired before (a run killed before it deleted them).
    let mut doomed: BTreeSet<&Path> = BTreeSet::new();
    for (i, w) in writers.iter().enumerate() {
        let retired = retired_before.contains(w.bodies.path.as_path());
        if (retired || missing[i].is_some())
            && let Some(file) = &located[i]
        {
            doomed.insert(file);
        }
    }
    // Retired now: every writer not retired before with a file gone, or
    // whose rows are in a file to delete.
    let mut retiring: Vec<usize> = Vec::new();
    let mut intact: BTreeSet<&Path> = BTreeSet::new();
    for (i, w) in writers.iter().enumerate() {
        if retired_before.contains(w.bodies.path.as_path()) {
            continue;
        }
        let in_doomed = located[i].as_deref().is_some_and(|f| doomed.contains(f));
        if missing[i].is_some() || in_doomed {
            retiring.push(i);
        } else if let Some(file) = &located[i] {
            intact.insert(file);
        }
    }
    let retired = (!retiring.is_empty()).then(|| repair_line(&writers, &retiring, &missing));
    if let Some(line) = &retired {
        // Recorded first: should the run be killed before the files go,
        // the next one finds the writers retired and deletes them.
        log.append(&Line::Repair(line.clone()))?;
    }
    for file in &doomed {
        dataset.remove_part(file)?;
    }
    let mut store = Store {
        intact: intact.iter().map(|f| out.join(f)).collect(),
        unrecorded: unrecorded(dataset, &located)?,
        retired,
        owed: BTreeMap::new(),
    };
    if let Some(line) = &store.retired {
        let mut records = records;
        records.repairs.push(line.clone());
        store.owed = records.owed();
    } else {
        store.owed = records.owed();
    }
    Ok(store)
}

/// The line retiring `retiring` (indices into `writers`).
fn repair_line(
    writers: &[Writer<'_>],
    retiring: &[usize],
    missing: &[Option<PathBuf>],
) -> RepairLine {
    let mut inputs: BTreeMap<OwedInput, u64> = BTreeMap::new();
    for &i in retiring {
        *inputs.entry(writers[i].input.clone()).or_default() += writers[i].bodies.rows;
    }
    let gone: BTreeSet<PathBuf> = retiring
        .iter()
        .filter_map(|&i| missing[i].clone())
        .collect();
    let unix_ms = manifest::unix_now_ms();
    let retired: Vec<PathBuf> = retiring
        .iter()
        .map(|&i| writers[i].bodies.path.clone())
        .collect();
    let id = short_hash(format!("{unix_ms}-{}-{retired:?}", std::process::id()).as_bytes());
    RepairLine {
        id,
        bodies: retiring.iter().map(|&i| writers[i].bodies.rows).sum(),
        retired,
        missing: gone.into_iter().take(5).collect(),
        inputs: inputs
            .into_iter()
            .map(|(input, bodies)| Owing { input, bodies })
            .collect(),
        unix_ms,
    }
}

/// The `bodies` files no writer's record leads to.
fn unrecorded(dataset: &Dataset, located: &[Option<PathBuf>]) -> Result<Vec<PathBuf>, OutputError> {
    let recorded: HashSet<&Path> = located.iter().flatten().map(PathBuf::as_path).collect();
    let dir = dataset.table_dir(Table::Bodies);
    let mut found = Vec::new();
    for name in dataset.part_names(Table::Bodies)? {
        if !is_finished_part(&name) {
            continue;
        }
        let path = dir.join(name);
        if !recorded.contains(dataset.relative(&path).as_path()) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Deletes the unrecorded `bodies` files `files` and the line files of
/// the same name (their writer's): only under `compact`'s exclusive lock,
/// where no run is between publishing and recording them.
pub fn remove_unrecorded(dataset: &Dataset, files: &[PathBuf]) -> Result<usize, OutputError> {
    for file in files {
        // The `bodies` file first: from then on no view reads the others.
        dataset.remove_part(&dataset.relative(file))?;
        let name = file.file_name().unwrap_or_default();
        for &table in Table::ALL
            .iter()
            .filter(|t| t.per_body() && **t != Table::Bodies)
        {
            dataset.remove_part(&Path::new(table.name()).join(name))?;
        }
    }
    Ok(files.len())
}
