//! The manifest: which inputs are finished, with their counts and part
//! files, so that a re-run skips them and every number of a run can be
//! checked.
//!
//! One JSON object a line, appended and synced as each input finishes
//! (`_manifest/<name>.jsonl` under the output directory; the leading `_`
//! keeps the directory out of DuckDB globs and pyarrow datasets). Appending
//! survives a kill at any moment: a torn last line is ignored when read.
//! The lines are a [`Line`]: `run` (tool version, agent-list version,
//! shard, options), `input` (an input's status, counts and part files),
//! `end` (the run's summary), and in `compact.jsonl`, `compact` (which part
//! files were merged into which).

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{At, Op, OutputError};

/// The manifest directory's name (the leading `_` keeps it out of DuckDB
/// globs and pyarrow datasets).
pub const DIR_NAME: &str = "_manifest";

/// The manifest directory under an output directory.
pub fn dir(out: &Path) -> PathBuf {
    out.join(DIR_NAME)
}

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
    /// A table was compacted.
    Compact(CompactLine),
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
}

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

/// What the manifests say of one input.
#[derive(Clone, Debug, PartialEq)]
pub struct InputEntry {
    /// Its line: the `done` one if there is one, else the last.
    pub line: InputLine,
    /// The options of the run that wrote the line (`None` if its run line
    /// is missing).
    pub options: Option<RunOptions>,
}

/// Every input line of every manifest file under `out`, by the input's
/// identity (by its name in lines without one): an input's latest line
/// (by `ended_ms`); among lines written before times were recorded, its
/// `done` line if it has one, else its last line.
pub fn read_inputs(out: &Path) -> Result<HashMap<String, InputEntry>, OutputError> {
    let mut entries: HashMap<String, InputEntry> = HashMap::new();
    for_each_line(out, |line, options| {
        let Line::Input(input) = line else {
            return;
        };
        let key = input.id.clone().unwrap_or_else(|| input.input.clone());
        if let Some(earlier) = entries.get(&key) {
            let newer = match (earlier.line.ended_ms, input.ended_ms) {
                (Some(then), Some(now)) => now >= then,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                // Done is final among lines of before: a `failed` line in
                // another manifest file (another shard, an earlier run) is
                // older than it.
                (None, None) => {
                    input.status == InputStatus::Done || earlier.line.status != InputStatus::Done
                }
            };
            if !newer {
                return;
            }
        }
        entries.insert(
            key,
            InputEntry {
                line: input,
                options: options.cloned(),
            },
        );
    })?;
    Ok(entries)
}

/// Where compactions moved part files: each merged file's path (relative
/// to the output directory) to the file it was merged into.
pub fn read_merges(out: &Path) -> Result<HashMap<PathBuf, PathBuf>, OutputError> {
    let mut moved = HashMap::new();
    for_each_line(out, |line, _| {
        if let Line::Compact(compact) = line {
            for merged in compact.merged {
                for from in merged.from {
                    if from != merged.path {
                        moved.insert(from, merged.path.clone());
                    }
                }
            }
        }
    })?;
    Ok(moved)
}

/// Calls `each` with every line of every manifest file under `out` (in the
/// files' name order), and the options of the run line before it. A torn
/// last line (a kill mid-write) does not parse, and is skipped. A manifest
/// file that is a symbolic link is refused.
fn for_each_line(
    out: &Path,
    mut each: impl FnMut(Line, Option<&RunOptions>),
) -> Result<(), OutputError> {
    let dir = dir(out);
    if let Ok(meta) = fs::symlink_metadata(&dir)
        && !meta.is_dir()
    {
        return Err(OutputError::Linked { path: dir });
    }
    let Ok(read) = fs::read_dir(&dir) else {
        return Ok(());
    };
    let mut files = Vec::new();
    for entry in read {
        let entry = entry.at(Op::ListDir, &dir)?;
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "jsonl") {
            if !entry.file_type().is_ok_and(|t| t.is_file()) {
                return Err(OutputError::Linked { path });
            }
            files.push(path);
        }
    }
    files.sort();
    for path in files {
        let mut options = None;
        let file = super::open_options_no_follow()
            .read(true)
            .open(&path)
            .at(Op::ReadManifest, &path)?;
        for line in BufReader::new(file).lines() {
            let line = line.at(Op::ReadManifest, &path)?;
            match serde_json::from_str::<Line>(&line) {
                Ok(Line::Run(run)) => {
                    options = Some(run.options.clone());
                    each(Line::Run(run), options.as_ref());
                }
                Ok(line) => each(line, options.as_ref()),
                Err(_) => {}
            }
        }
    }
    Ok(())
}

/// A manifest file being appended to.
pub struct Manifest {
    path: PathBuf,
    file: File,
}

impl Manifest {
    /// Opens (appending) `_manifest/<name>.jsonl` under `out`. A last
    /// line torn by a kill is ended first, so that it stays one bad line
    /// and the next line is whole.
    pub fn open(out: &Path, name: &str) -> Result<Manifest, OutputError> {
        let dir = dir(out);
        super::create_dir_no_follow(&dir)?;
        let path = dir.join(format!("{name}.jsonl"));
        let mut file = super::open_options_no_follow()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .at(Op::WriteManifest, &path)?;
        let torn = (|| -> std::io::Result<bool> {
            if file.metadata()?.len() == 0 {
                return Ok(false);
            }
            let mut last = [0u8];
            file.seek(SeekFrom::End(-1))?;
            file.read_exact(&mut last)?;
            Ok(last[0] != b'\n')
        })()
        .at(Op::ReadManifest, &path)?;
        if torn {
            file.write_all(b"\n").at(Op::WriteManifest, &path)?;
        }
        Ok(Manifest { path, file })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line and syncs it to disk.
    pub fn append(&mut self, line: &Line) -> Result<(), OutputError> {
        let mut text = serde_json::to_string(line).expect("manifest lines serialize");
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.sync_data())
            .at(Op::WriteManifest, &self.path)
    }
}

/// Milliseconds since the Unix epoch.
pub fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(size_limit: Option<usize>) -> Line {
        Line::Run(RunLine {
            tool: "robostats".into(),
            version: "0".into(),
            agents_version: "sha256:x".into(),
            shard: None,
            options: RunOptions {
                size_limit,
                agents_version: "sha256:x".into(),
                agents: vec![],
            },
            started_unix: 0,
        })
    }

    fn input(name: &str, status: InputStatus) -> Line {
        Line::Input(InputLine {
            input: name.into(),
            id: None,
            status,
            counts: Counts::default(),
            parts: vec![],
            reason: None,
            ended_ms: None,
        })
    }

    #[test]
    fn torn_lines_are_ignored_and_done_is_final() {
        let out = std::env::temp_dir().join(format!("robostats-manifest-{}", std::process::id()));
        let _ = fs::remove_dir_all(&out);
        let mut m = Manifest::open(&out, "run").unwrap();
        m.append(&run(Some(1))).unwrap();
        m.append(&input("f1", InputStatus::Failed)).unwrap();
        m.append(&input("f1", InputStatus::Done)).unwrap();
        m.append(&input("f2", InputStatus::Done)).unwrap();
        let mut f = fs::OpenOptions::new().append(true).open(m.path()).unwrap();
        f.write_all(b"{\"type\": \"input\", \"input\": \"f3\", \"sta")
            .unwrap();
        // Another manifest (another shard) that failed f2 before it was done.
        let mut other = Manifest::open(&out, "shard-00001-of-00002").unwrap();
        other.append(&run(Some(1))).unwrap();
        other.append(&input("f2", InputStatus::Failed)).unwrap();
        // The next run's first line is whole, not glued to the torn one.
        let mut next = Manifest::open(&out, "run").unwrap();
        next.append(&run(Some(1))).unwrap();
        next.append(&input("f4", InputStatus::Done)).unwrap();
        let entries = read_inputs(&out).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries["f4"].options.as_ref().unwrap().size_limit, Some(1));
        assert_eq!(entries["f1"].line.status, InputStatus::Done);
        assert_eq!(entries["f2"].line.status, InputStatus::Done);
        assert_eq!(entries["f1"].options.as_ref().unwrap().size_limit, Some(1));
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn the_latest_line_of_an_input_says_what_it_is() {
        let out = std::env::temp_dir().join(format!("robostats-latest-{}", std::process::id()));
        let _ = fs::remove_dir_all(&out);
        let at = |name: &str, status, ms| {
            let Line::Input(mut line) = input(name, status) else {
                unreachable!()
            };
            line.ended_ms = ms;
            Line::Input(line)
        };
        // Done in a shard's manifest, then done again (--redo) in run.jsonl,
        // which sorts first: the later line is the input's.
        let mut shard = Manifest::open(&out, "shard-00000-of-00001").unwrap();
        shard.append(&run(Some(1))).unwrap();
        shard
            .append(&at("f1", InputStatus::Done, Some(10)))
            .unwrap();
        shard
            .append(&at("f2", InputStatus::Done, Some(10)))
            .unwrap();
        shard.append(&at("f3", InputStatus::Failed, None)).unwrap();
        let mut again = Manifest::open(&out, "run").unwrap();
        again.append(&run(Some(1))).unwrap();
        again
            .append(&at("f1", InputStatus::Done, Some(20)))
            .unwrap();
        // A redo that failed: the input is to be done.
        again
            .append(&at("f2", InputStatus::Failed, Some(30)))
            .unwrap();
        // A line with a time is newer than one without.
        again.append(&at("f3", InputStatus::Done, Some(5))).unwrap();
        let entries = read_inputs(&out).unwrap();
        assert_eq!(entries["f1"].line.ended_ms, Some(20));
        assert_eq!(entries["f2"].line.status, InputStatus::Failed);
        assert_eq!(entries["f3"].line.status, InputStatus::Done);
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn lines_keep_the_manifest_format() {
        let line = serde_json::to_value(input("a.warc.gz", InputStatus::Done)).unwrap();
        assert_eq!(
            line,
            serde_json::json!({
                "type": "input", "input": "a.warc.gz", "status": "done", "parts": [],
                "records": 0, "responses": 0, "captures": 0, "lost": 0, "errors": 0, "bytes": 0,
            })
        );
        let tokens = |t: &[&str]| t.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let then = RunOptions {
            size_limit: Some(512_000),
            agents_version: "a".into(),
            agents: tokens(&["GPTBot", "CCBot"]),
        };
        let now = RunOptions {
            size_limit: None,
            agents_version: "b".into(),
            agents: tokens(&["gptbot", "CCBot", "FooBot", "BarBot"]),
        };
        assert_eq!(
            then.differences(&now),
            [
                "--no-size-limit is given now but was not before (bodies were parsed up to \
                 512000 bytes)",
                "the crawlers of interest differ: this run adds 2 crawlers (FooBot, BarBot) \
                 (--agents, --add-agents)",
            ]
        );
        assert_eq!(
            now.differences(&then)[1],
            "the crawlers of interest differ: this run leaves out 2 crawlers (FooBot, \
             BarBot) (--agents, --add-agents)"
        );
        assert!(then.differences(&then).is_empty());
    }

    #[test]
    fn manifests_of_earlier_versions_are_read() {
        // Lines as robostats wrote them before its manifest was typed (and
        // an input line from before the `lost` count).
        let out =
            std::env::temp_dir().join(format!("robostats-old-manifest-{}", std::process::id()));
        let _ = fs::remove_dir_all(&out);
        fs::create_dir_all(dir(&out)).unwrap();
        fs::write(
            dir(&out).join("run.jsonl"),
            concat!(
                r#"{"agents_version":"sha256:e4","options":{"agents_version":"sha256:e4","size_limit":512000},"shard":null,"started_unix":1795555000,"tool":"robostats","type":"run","version":"0.1.0"}"#, "\n",
                r#"{"bytes":18857,"captures":1,"errors":0,"input":"a.warc.gz","lost":0,"parts":[{"path":"captures/a-808503c5-00.parquet","rows":1,"table":"captures"}],"records":4,"responses":1,"status":"done","type":"input"}"#, "\n",
                r#"{"bytes":5,"captures":0,"errors":1,"input":"b.warc.gz","parts":[],"records":0,"responses":0,"status":"failed","type":"input"}"#, "\n",
                r#"{"bytes":18862,"captures":1,"errors":1,"files_done":1,"files_failed":1,"files_retried":0,"files_skipped":0,"lost":0,"records":4,"responses":1,"seconds":0.1,"type":"end"}"#, "\n",
            ),
        )
        .unwrap();
        fs::write(
            dir(&out).join("compact.jsonl"),
            concat!(
                r#"{"merged":[{"from":["rules/a-00.parquet","rules/b-00.parquet"],"path":"rules/compacted-1-00000.parquet","rows":9}],"seconds":0.5,"table":"rules","type":"compact","unix":1795555100}"#, "\n",
            ),
        )
        .unwrap();
        for file in ["run.jsonl", "compact.jsonl"] {
            for line in fs::read_to_string(dir(&out).join(file)).unwrap().lines() {
                serde_json::from_str::<Line>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            }
        }
        let entries = read_inputs(&out).unwrap();
        assert_eq!(entries["a.warc.gz"].line.status, InputStatus::Done);
        assert_eq!(entries["a.warc.gz"].line.parts[0].rows, 1);
        assert_eq!(
            entries["a.warc.gz"].options.as_ref().unwrap().size_limit,
            Some(512_000)
        );
        assert_eq!(entries["b.warc.gz"].line.counts.lost, 0);
        assert_eq!(entries["b.warc.gz"].line.status, InputStatus::Failed);
        fs::remove_dir_all(&out).unwrap();
    }
}
