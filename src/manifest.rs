//! The run manifest: which inputs are finished, with their counts, so that
//! a re-run skips them and every number of a run can be checked.
//!
//! One JSON object a line, appended and synced as each input finishes
//! (`_manifest/<name>.jsonl` under the output directory; the leading `_`
//! keeps the directory out of DuckDB globs and pyarrow datasets). Appending
//! survives a kill at any moment: a torn last line is ignored when read.
//! Line types: `run` (tool version, agent-list version, shard, options), `input`
//! (an input's status, counts and part files), `end` (the run's summary),
//! and in `compact.jsonl`, `compact` (which part files were merged into
//! which).

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The manifest directory under an output directory.
pub fn dir(out: &Path) -> PathBuf {
    out.join("_manifest")
}

/// An input's line in a manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct InputEntry {
    /// The input's `warc_filename`.
    pub input: String,
    /// `done` or `failed`.
    pub status: String,
    /// The options the run that wrote it had (see [`Manifest::create`]).
    pub options: Value,
    /// The whole line.
    pub line: Value,
}

/// Every input line of every manifest file under `out`: an input's `done`
/// line if it has one, else its last line.
pub fn read_inputs(out: &Path) -> io::Result<HashMap<String, InputEntry>> {
    let mut entries = HashMap::new();
    let dir = dir(out);
    let Ok(read) = fs::read_dir(&dir) else {
        return Ok(entries);
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for path in files {
        let mut options = Value::Null;
        for line in BufReader::new(File::open(&path)?).lines() {
            let line = line?;
            // A torn last line (a kill mid-write) is not JSON: skip it.
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            match v["type"].as_str() {
                Some("run") => options = v["options"].clone(),
                Some("input") => {
                    let (Some(input), Some(status)) = (v["input"].as_str(), v["status"].as_str())
                    else {
                        continue;
                    };
                    // Done is final: an input done is never redone, so a
                    // `failed` line in another manifest file (another
                    // shard, an earlier run) is older than it.
                    if status != "done"
                        && entries
                            .get(input)
                            .is_some_and(|e: &InputEntry| e.status == "done")
                    {
                        continue;
                    }
                    entries.insert(
                        input.to_owned(),
                        InputEntry {
                            input: input.to_owned(),
                            status: status.to_owned(),
                            options: options.clone(),
                            line: v.clone(),
                        },
                    );
                }
                _ => {}
            }
        }
    }
    Ok(entries)
}

/// A manifest file being appended to.
pub struct Manifest {
    path: PathBuf,
    file: File,
}

impl Manifest {
    /// Opens (appending) `_manifest/<name>.jsonl` and writes the run line;
    /// `shard` is the run's shard (`I/N`), if it is one.
    pub fn create(
        out: &Path,
        name: &str,
        shard: Option<String>,
        agents_version: &str,
        options: Value,
    ) -> io::Result<Manifest> {
        let mut m = Manifest::open(out, name)?;
        m.append(&json!({
            "type": "run",
            "tool": "robostats",
            "version": env!("CARGO_PKG_VERSION"),
            "agents_version": agents_version,
            "shard": shard,
            "options": options,
            "started_unix": unix_now(),
        }))?;
        Ok(m)
    }

    /// Opens (appending) `_manifest/<name>.jsonl`.
    pub fn open(out: &Path, name: &str) -> io::Result<Manifest> {
        let dir = dir(out);
        fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{name}.jsonl"));
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(Manifest { path, file })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line and syncs it to disk.
    pub fn append(&mut self, line: &Value) -> io::Result<()> {
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        self.file.write_all(text.as_bytes())?;
        self.file.sync_data()
    }
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

    #[test]
    fn torn_lines_are_ignored_and_the_last_entry_wins() {
        let out = std::env::temp_dir().join(format!("robostats-manifest-{}", std::process::id()));
        let _ = fs::remove_dir_all(&out);
        let mut m = Manifest::create(&out, "run", None, "sha256:x", json!({"a": 1})).unwrap();
        m.append(&json!({"type": "input", "input": "f1", "status": "failed"}))
            .unwrap();
        m.append(&json!({"type": "input", "input": "f1", "status": "done"}))
            .unwrap();
        m.append(&json!({"type": "input", "input": "f2", "status": "done"}))
            .unwrap();
        let mut f = OpenOptions::new().append(true).open(m.path()).unwrap();
        f.write_all(b"{\"type\": \"input\", \"input\": \"f3\", \"sta")
            .unwrap();
        // Another manifest (another shard) that failed f2 before it was done.
        let mut other = Manifest::create(
            &out,
            "shard-00001-of-00002",
            None,
            "sha256:x",
            json!({"a": 1}),
        )
        .unwrap();
        other
            .append(&json!({"type": "input", "input": "f2", "status": "failed"}))
            .unwrap();
        let entries = read_inputs(&out).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries["f1"].status, "done");
        assert_eq!(entries["f2"].status, "done");
        assert_eq!(entries["f1"].options, json!({"a": 1}));
        fs::remove_dir_all(&out).unwrap();
    }
}
