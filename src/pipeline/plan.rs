//! The plan of a run: which inputs to do, skip, retry or redo, from the
//! manifest of earlier runs and the part files on disk.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::output::dataset::bodies::check::{Owed, Store};
use crate::output::dataset::manifest::{Merges, OwedInput, PartEntry};
use crate::output::dataset::{Dataset, InputEntry, InputStatus};

use crate::source::Input;

use super::Config;
use super::error::{PlanError, RunError};

/// An input a run reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task<'c> {
    /// The input.
    pub input: &'c Input,
    /// It is done: it is read again for its bodies only, its own rows
    /// staying as they are.
    pub bodies_only: bool,
    /// The repairs whose bodies it writes again (their ids): it is read
    /// with them not stored.
    pub repairs: Vec<String>,
}

impl<'c> Task<'c> {
    fn full(input: &'c Input) -> Task<'c> {
        Task {
            input,
            bodies_only: false,
            repairs: Vec::new(),
        }
    }
}

/// Which inputs a run does.
#[derive(Debug)]
pub struct Plan<'c> {
    /// The inputs to read, in order, each once (a done input owing bodies
    /// is read for them, after the others).
    pub todo: Vec<Task<'c>>,
    /// Inputs an earlier run finished.
    pub skipped: u64,
    /// Inputs an earlier run failed (in `todo` again).
    pub retried: u64,
    /// Inputs done before and done again now (in `todo` again), with why:
    /// asked for (`--redo`), or a part file of theirs is missing.
    pub redone: Vec<(&'c Input, String)>,
    /// Bodies whose files are gone, owed by inputs this run does not read
    /// (not among its inputs, or another shard's): what it cannot repair.
    pub lost: Vec<(OwedInput, Owed)>,
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
///
/// An input that owes bodies (`store`: their files were found gone) is
/// read for them: as it is done anyway when it is to do, else for its
/// bodies only; one that is not among the run's inputs is listed as
/// [`Plan::lost`].
pub fn plan<'c>(
    config: &'c Config,
    dataset: &Dataset,
    store: &Store,
) -> Result<Plan<'c>, RunError> {
    let finished = dataset.read_inputs()?;
    let merges = Merges::read(dataset.dir())?;
    let exists = |path: &Path| dataset.is_part(path);
    let mut plan = decide(config, &finished, &merges, &exists)?;
    owe(config, &mut plan, &store.owed);
    plan.bytes = plan.todo.iter().filter_map(|t| t.input.size()).sum();
    Ok(plan)
}

/// Adds to `plan` the reading of the inputs that owe bodies.
fn owe<'c>(config: &'c Config, plan: &mut Plan<'c>, owed: &BTreeMap<OwedInput, Owed>) {
    for (who, what) in owed {
        let matches = |input: &Input| match &who.id {
            Some(id) => input.id == *id,
            None => input.name == who.input,
        };
        if let Some(task) = plan.todo.iter_mut().find(|t| matches(t.input)) {
            task.repairs.extend(what.repairs.iter().cloned());
        } else if let Some(input) = config.inputs.iter().find(|i| matches(i)) {
            plan.todo.push(Task {
                input,
                bodies_only: true,
                repairs: what.repairs.clone(),
            });
        } else {
            plan.lost.push((who.clone(), what.clone()));
        }
    }
}

/// [`plan`]'s decision, from what the manifests say (`finished`, by
/// identity; `merges`, where compactions moved part files) and whether a
/// part file (relative to the output directory) `exists`.
pub fn decide<'c>(
    config: &'c Config,
    finished: &HashMap<String, InputEntry>,
    merges: &Merges,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<Plan<'c>, PlanError> {
    let done = |e: &InputEntry| e.line.status == InputStatus::Done;
    same_options(config, finished.values().filter(|e| done(e)))?;
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
        lost: Vec::new(),
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
            Some(e) if done(e) => match redo_reason(config, input, e, merges, exists)? {
                None => plan.skipped += 1,
                Some(why) => {
                    plan.redone.push((input, why));
                    plan.todo.push(Task::full(input));
                }
            },
            Some(_) => {
                plan.retried += 1;
                plan.todo.push(Task::full(input));
            }
            None => {
                if let Some(other) = done_by_name.get(input.name.as_str()) {
                    return Err(PlanError::OtherInput {
                        dir: config.out.clone(),
                        name: input.name.clone(),
                        then: other.line.id.clone().unwrap_or_default(),
                        now: input.id.clone(),
                    });
                }
                plan.todo.push(Task::full(input));
            }
        }
    }
    if let Some(unknown) = config
        .redo
        .iter()
        .find(|r| !config.inputs.iter().any(|i| i.name == **r || i.id == **r))
    {
        return Err(PlanError::NotAnInput {
            name: unknown.clone(),
        });
    }
    plan.bytes = plan.todo.iter().filter_map(|t| t.input.size()).sum();
    Ok(plan)
}

/// Refuses a run whose options differ from those the done inputs were
/// made with: their rows and the new ones would not make one data set.
fn same_options<'e>(
    config: &Config,
    done: impl Iterator<Item = &'e InputEntry>,
) -> Result<(), PlanError> {
    let options = config.run_options();
    for entry in done {
        let differences = match &entry.options {
            Some(then) => then.differences(&options),
            None => vec![
                "a manifest file has no run line: nothing says how its inputs were made".to_owned(),
            ],
        };
        if !differences.is_empty() {
            return Err(PlanError::OtherOptions {
                dir: config.out.clone(),
                differences,
            });
        }
    }
    Ok(())
}

/// Why a done input is done again (`--redo` names it, or one of its part
/// files is missing), or `None`: skipped. An input whose rows `compact`
/// merged into other files cannot be done again.
fn redo_reason(
    config: &Config,
    input: &Input,
    entry: &InputEntry,
    merges: &Merges,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<Option<String>, PlanError> {
    let asked = config
        .redo
        .iter()
        .any(|r| *r == input.name || *r == input.id);
    let why = if asked {
        Some("--redo names it".to_owned())
    } else {
        missing_part(&entry.line.parts, merges, exists)
            .map(|p| format!("its part file {} is missing", p.display()))
    };
    // Rows in a compacted file (a part file merged into one that is
    // there) cannot be taken out of it.
    let compacted = entry
        .line
        .parts
        .iter()
        .find_map(|p| merges.locate(&p.path, exists).filter(|now| *now != p.path));
    if let Some(why) = &why
        && let Some(merged) = compacted
    {
        return Err(PlanError::CannotRedo {
            name: input.name.clone(),
            why: format!("{why}; its rows are in {}", merged.display()),
        });
    }
    Ok(why)
}

/// The first of a done input's part files that is gone: neither where the
/// input's line says nor in a compacted file it was merged into (`merges`,
/// followed from compaction to compaction).
pub(super) fn missing_part(
    parts: &[PartEntry],
    merges: &Merges,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    parts
        .iter()
        .find(|part| merges.locate(&part.path, exists).is_none())
        .map(|part| part.path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::dataset::Counts;

    #[test]
    fn a_plan_knows_inputs_by_identity_and_older_lines_by_name() {
        use crate::output::dataset::manifest::InputLine;
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
        let none = Merges::default();
        let planned = decide(&config, &finished, &none, &|_| true).unwrap();
        assert_eq!(planned.skipped, 2);
        assert_eq!(planned.todo, [Task::full(&c)]);

        // Another file under a done input's name is refused.
        let moved = Input::file("/elsewhere/a.warc.gz", "a.warc.gz");
        let finished = HashMap::from([(c.id.clone(), entry("a.warc.gz", Some(&c.id)))]);
        let config = Config::new(vec![moved], PathBuf::from("out"));
        assert!(matches!(
            decide(&config, &finished, &none, &|_| true),
            Err(PlanError::OtherInput { .. })
        ));
    }

    #[test]
    fn a_done_input_missing_a_part_file_is_done_again_unless_compacted() {
        use crate::output::dataset::manifest::InputLine;
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
        let no_merges = Merges::default();
        // Both there: skipped.
        let planned = decide(&config, &finished, &no_merges, &|_| true).unwrap();
        assert_eq!((planned.skipped, planned.todo.len()), (1, 0));
        // One deleted by hand: done again, saying why.
        let gone = |p: &std::path::Path| p != std::path::Path::new("rules/a-1-00.parquet");
        let planned = decide(&config, &finished, &no_merges, &gone).unwrap();
        assert_eq!(planned.todo, [Task::full(&a)]);
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
        let mut merges = Merges::default();
        merges.add(
            PathBuf::from("captures/a-1-00.parquet"),
            PathBuf::from("captures/compacted-x-00000.parquet"),
        );
        let only_compacted =
            |p: &std::path::Path| p.to_string_lossy().starts_with("captures/compacted-");
        assert!(matches!(
            decide(&config, &finished, &merges, &only_compacted),
            Err(PlanError::CannotRedo { .. })
        ));
        // Both parts merged and the compacted file there: skipped.
        let mut merges = Merges::default();
        for table in ["captures", "rules"] {
            merges.add(
                PathBuf::from(format!("{table}/a-1-00.parquet")),
                PathBuf::from(format!("{table}/compacted-x-00000.parquet")),
            );
        }
        let compacted = |p: &std::path::Path| p.to_string_lossy().contains("compacted-");
        let planned = decide(&config, &finished, &merges, &compacted).unwrap();
        assert_eq!(planned.skipped, 1);
        // A compaction killed before its swap recorded merges into files
        // that are not there: it moved nothing. The part files there:
        // skipped; one deleted by hand: done again, not refused.
        let not_compacted = |p: &std::path::Path| !p.to_string_lossy().contains("compacted-");
        let planned = decide(&config, &finished, &merges, &not_compacted).unwrap();
        assert_eq!(planned.skipped, 1);
        let one_left = |p: &std::path::Path| p == std::path::Path::new("captures/a-1-00.parquet");
        let planned = decide(&config, &finished, &merges, &one_left).unwrap();
        assert_eq!(planned.todo, [Task::full(&a)]);
        // Asked for by name: done again.
        let mut again = config.clone();
        again.redo = vec!["a.warc.gz".to_owned()];
        let planned = decide(&again, &finished, &no_merges, &|_| true).unwrap();
        assert_eq!(planned.redone[0].1, "--redo names it");
        // An unknown name is refused.
        again.redo = vec!["b.warc.gz".to_owned()];
        assert!(matches!(
            decide(&again, &finished, &no_merges, &|_| true),
            Err(PlanError::NotAnInput { .. })
        ));
    }
}
