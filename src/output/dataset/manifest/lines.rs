//! The lines of a manifest, one JSON object each: what they say.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use super::body_lines::{BodiesLine, OwedInput, Owing, RepairLine};

/// One line of a manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    /// A run started.
    Run(RunLine),
    /// An input ended.
    Input(InputLine),
    /// A run ended.
    End(EndLine),
    /// A table was compacted: written before its directory is swapped,
    /// and true once the files it names are there.
    Compact(CompactLine),
    /// An attempt at an input published its body part files.
    Bodies(BodiesLine),
    /// Stored bodies were found damaged, and their writers retired.
    Repair(RepairLine),
}

/// A run's start: what made the rows that follow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunLine {
    /// `robostats`.
    pub tool: String,
    /// The tool's version.
    pub version: String,
    /// The agent list's version (`sha256:<hex>`).
    pub agents_version: String,
    /// The run's shard (`I/N`), if it is one.
    pub shard: Option<String>,
    /// The options that decide the rows: a run with other options may not
    /// add to the same directory.
    pub options: RunOptions,
    /// When it started, seconds since the Unix epoch.
    pub started_unix: u64,
}

/// The options that decide the rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOptions {
    /// Bytes of a body parsed for rules; `None`: the whole body.
    pub size_limit: Option<usize>,
    /// The agent list's version.
    pub agents_version: String,
    /// The agent list's tokens, to say how two lists differ (empty in
    /// manifests written before they were recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    /// How bodies are stored: [`BODY_STORE`]; `None` in manifests written
    /// before body digests were BLAKE3 and body files were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_store: Option<String>,
}

/// How this version stores bodies: keyed by their BLAKE3 digest, each
/// writer's files recorded in the manifest (`bodies` lines).
pub const BODY_STORE: &str = "blake3-recorded";

impl RunOptions {
    /// How `now` differs from `self` (then), in words, one sentence per
    /// option: empty when rows made with either are made the same way.
    pub fn differences(&self, now: &RunOptions) -> Vec<String> {
        let mut out = Vec::new();
        match (self.size_limit, now.size_limit) {
            (then, now) if then == now => {}
            (Some(limit), None) => out.push(format!(
                "--no-size-limit is given now but was not before (bodies were parsed up to \
                 {limit} bytes)"
            )),
            (None, Some(_)) => {
                out.push("--no-size-limit was given before but is not now".to_owned())
            }
            (Some(then), Some(now)) => out.push(format!(
                "bodies were parsed up to {then} bytes before, {now} bytes now"
            )),
            (None, None) => unreachable!("equal"),
        }
        if self.body_store != now.body_store {
            out.push(
                "the bodies were stored by an older robostats (keyed by XXH3-128 digests, \
                 unrecorded): ingest into a new directory"
                    .to_owned(),
            );
        }
        if self.agents_version != now.agents_version {
            out.push(agents_difference(&self.agents, &now.agents));
        }
        out
    }
}

/// How two crawler lists differ, in words.
fn agents_difference(then: &[String], now: &[String]) -> String {
    const HOW: &str = "(--agents, --add-agents)";
    if then.is_empty() {
        return format!("the crawlers of interest are another list than before {HOW}");
    }
    let missing = |from: &[String], other: &[String]| -> Vec<String> {
        from.iter()
            .filter(|a| !other.iter().any(|b| a.eq_ignore_ascii_case(b)))
            .cloned()
            .collect()
    };
    let listed = |names: &[String]| {
        let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
        let more = names.len().saturating_sub(shown.len());
        let crawlers = if names.len() == 1 {
            "crawler"
        } else {
            "crawlers"
        };
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("{} {crawlers} ({}{tail})", names.len(), shown.join(", "))
    };
    let added = missing(now, then);
    let removed = missing(then, now);
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("adds {}", listed(&added)));
    }
    if !removed.is_empty() {
        parts.push(format!("leaves out {}", listed(&removed)));
    }
    if parts.is_empty() {
        return format!(
            "the crawlers of interest are the same tokens as before, with another order, \
             operator, category or purpose {HOW}"
        );
    }
    format!(
        "the crawlers of interest differ: this run {} {HOW}",
        parts.join(" and ")
    )
}

/// How an input ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputStatus {
    /// Read to the end: its rows are final, and re-runs skip it.
    Done,
    /// It could not be read (or not to the end): re-runs try it again.
    Failed,
}

/// What was read and written, for one input or a whole run. (A field
/// missing from an older manifest reads as 0.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
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
}

/// An input's end.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputLine {
    /// The input's `warc_filename`.
    pub input: String,
    /// The input's identity (see [`crate::source`]); absent from manifests
    /// written before it was recorded, whose inputs are known by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Done or failed.
    pub status: InputStatus,
    /// What was read and written.
    #[serde(flatten)]
    pub counts: Counts,
    /// Its part files.
    pub parts: Vec<PartEntry>,
    /// Why it failed: its first problem, in words (failed inputs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it ended, milliseconds since the Unix epoch: of two lines of
    /// one input, the later one says what it is (absent from manifests
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<u64>,
}

/// A part file of an input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartEntry {
    /// Its table.
    pub table: String,
    /// Its path, relative to the output directory.
    pub path: PathBuf,
    /// Its rows.
    pub rows: u64,
}

/// A run's end: its summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndLine {
    /// What was read and written, all inputs of the run together.
    #[serde(flatten)]
    pub counts: Counts,
    /// Inputs finished.
    pub files_done: u64,
    /// Inputs that could not be read.
    pub files_failed: u64,
    /// Inputs skipped, finished by an earlier run.
    pub files_skipped: u64,
    /// Inputs tried again after an earlier run failed them.
    pub files_retried: u64,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// A table's compaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompactLine {
    /// The table.
    pub table: String,
    /// Each merged file.
    pub merged: Vec<Merged>,
    /// When, seconds since the Unix epoch.
    pub unix: u64,
    /// How long the compaction had taken, seconds.
    pub seconds: f64,
}

/// One file a compaction wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    /// Its path, relative to the output directory.
    pub path: PathBuf,
    /// Its rows.
    pub rows: u64,
    /// The files merged into it, relative to the output directory.
    pub from: Vec<PathBuf>,
}
