//! Batch jobs: shards writing into one directory, `--shard auto`, and runs
//! killed with SIGKILL at several points and re-run. Whatever happens, the
//! tables end up with exactly the rows of one uninterrupted run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use parquet::file::reader::{FileReader, SerializedFileReader};
use robostats::classify::Table;

use crate::ingest::{rows, temp_out};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"
);
const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/cc-main-2024-22-whirlwind.warc.gz"
);

/// A directory of inputs and a paths file listing them by relative name,
/// so that `warc_filename` is the same whichever directory a run writes.
pub struct Inputs {
    pub dir: PathBuf,
    pub paths: PathBuf,
    pub names: Vec<String>,
}

impl Inputs {
    /// `n` inputs: copies of the synthetic sample, and one real file.
    pub fn new(tag: &str, n: usize) -> Inputs {
        let dir = temp_out(&format!("{tag}-inputs"));
        fs::create_dir_all(&dir).unwrap();
        let mut names = Vec::new();
        for i in 0..n {
            let name = format!("crawl/segment-{i:02}.warc.gz");
            fs::create_dir_all(dir.join("crawl")).unwrap();
            let from = if i == n / 2 { REAL } else { SAMPLE };
            fs::copy(from, dir.join(&name)).unwrap();
            names.push(name);
        }
        let paths = dir.join("robotstxt.paths");
        fs::write(&paths, names.join("\n") + "\n").unwrap();
        Inputs { dir, paths, names }
    }

    /// Inputs copied from `sources` (paths under the repository), in
    /// order.
    pub fn with(tag: &str, sources: &[&str]) -> Inputs {
        let dir = temp_out(&format!("{tag}-inputs"));
        fs::create_dir_all(dir.join("crawl")).unwrap();
        let mut names = Vec::new();
        for (i, from) in sources.iter().enumerate() {
            let name = format!("crawl/segment-{i:02}.warc.gz");
            fs::copy(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(from),
                dir.join(&name),
            )
            .unwrap();
            names.push(name);
        }
        let paths = dir.join("robotstxt.paths");
        fs::write(&paths, names.join("\n") + "\n").unwrap();
        Inputs { dir, paths, names }
    }

    /// `robostats ingest --paths ... --prefix ... --out OUT` plus `args`,
    /// with no scheduler's variables in its environment.
    pub fn command(&self, out: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(crate::robostats());
        c.arg("ingest")
            .arg("--paths")
            .arg(&self.paths)
            .arg("--prefix")
            .arg(&self.dir)
            .arg("--out")
            .arg(out)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "SLURM_ARRAY_TASK_ID",
            "SLURM_ARRAY_TASK_MIN",
            "SLURM_ARRAY_TASK_MAX",
            "SLURM_ARRAY_TASK_STEP",
            "SLURM_ARRAY_TASK_COUNT",
            "AWS_BATCH_JOB_ARRAY_INDEX",
            "AWS_BATCH_JOB_ARRAY_SIZE",
            "JOB_COMPLETION_INDEX",
        ] {
            c.env_remove(var);
        }
        c
    }

    pub fn run(&self, out: &Path, args: &[&str]) -> Output {
        self.command(out, args).output().unwrap()
    }
}

impl Drop for Inputs {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

pub fn ok(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every table's rows, sorted.
fn tables(out: &Path) -> Vec<Vec<String>> {
    Table::ALL.iter().map(|&t| rows(out, t)).collect()
}

pub fn assert_same_rows(a: &Path, b: &Path) {
    for (table, (x, y)) in Table::ALL
        .iter()
        .zip(tables(a).iter().zip(tables(b).iter()))
    {
        assert_eq!(x.len(), y.len(), "{}: row counts differ", table.name());
        assert!(x == y, "{}: rows differ", table.name());
    }
}

/// Visible part files (what a `*.parquet` glob sees) and hidden ones.
pub fn part_files(out: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut visible, mut hidden) = (Vec::new(), Vec::new());
    for &table in Table::ALL {
        let Ok(dir) = fs::read_dir(out.join(table.name())) else {
            continue;
        };
        for e in dir {
            let path = e.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().starts_with('.') {
                hidden.push(path);
            } else {
                visible.push(path);
            }
        }
    }
    visible.sort();
    hidden.sort();
    (visible, hidden)
}

pub fn manifest_lines(out: &Path) -> Vec<serde_json::Value> {
    let mut lines = Vec::new();
    let Ok(dir) = fs::read_dir(out.join("_manifest")) else {
        return lines;
    };
    let mut files: Vec<_> = dir.map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files {
        for line in fs::read_to_string(f).unwrap_or_default().lines() {
            if let Ok(v) = serde_json::from_str(line) {
                lines.push(v);
            }
        }
    }
    lines
}

fn done_inputs(out: &Path) -> usize {
    manifest_lines(out)
        .iter()
        .filter(|v| v["type"] == "input" && v["status"] == "done")
        .count()
}

#[test]
fn shards_write_one_data_set_without_clashing() {
    let inputs = Inputs::new("shards", 7);
    let whole = temp_out("shards-whole");
    ok(&inputs.run(&whole, &["-j2"]));

    // Three shards at once into one directory.
    let out = temp_out("shards-3");
    let children: Vec<Child> = (0..3)
        .map(|i| {
            inputs
                .command(&out, &["-j1", "--shard", &format!("{i}/3")])
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        ok(&child.wait_with_output().unwrap());
    }
    assert_same_rows(&whole, &out);

    // Each input was done by exactly one shard, the one its position says;
    // part files carry the shard and the input.
    let lines = manifest_lines(&out);
    for (position, name) in inputs.names.iter().enumerate() {
        let entries: Vec<_> = lines
            .iter()
            .filter(|v| v["type"] == "input" && v["input"] == name.as_str())
            .collect();
        assert_eq!(entries.len(), 1, "{name}");
        let shard = format!("shard-{:05}-of-00003", position % 3);
        for part in entries[0]["parts"].as_array().unwrap() {
            let path = part["path"].as_str().unwrap();
            let stem = format!("segment-{position:02}-");
            assert!(path.contains(&shard) && path.contains(&stem), "{path}");
        }
        assert!(
            out.join("_manifest")
                .join(format!("{shard}.jsonl"))
                .exists()
        );
    }
    let (_, hidden) = part_files(&out);
    assert!(hidden.is_empty(), "{hidden:?}");

    // Re-running a finished job redoes nothing: no file changes.
    let listing = |out: &Path| {
        part_files(out)
            .0
            .iter()
            .map(|p| (p.clone(), fs::metadata(p).unwrap().modified().unwrap()))
            .collect::<Vec<_>>()
    };
    let before = listing(&out);
    for i in 0..3 {
        let stdout = ok(&inputs.run(&out, &["--shard", &format!("{i}/3")]));
        let skipped = if i == 0 { 3 } else { 2 };
        assert!(
            stdout.contains(&format!(
                "0 files done, 0 failed, {skipped} skipped (done earlier)"
            )),
            "{stdout}"
        );
    }
    let stdout = ok(&inputs.run(&out, &[]));
    assert!(
        stdout.contains("0 files done, 0 failed, 7 skipped"),
        "{stdout}"
    );
    assert_eq!(listing(&out), before);
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn shard_auto_reads_each_schedulers_variables() {
    let inputs = Inputs::new("auto", 6);
    let out = temp_out("auto");
    let shard_of = |vars: &[(&str, &str)], args: &[&str]| {
        let mut c = inputs.command(&out, args);
        c.args(["--shard", "auto"]).envs(vars.iter().copied());
        c.output().unwrap()
    };
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();

    // Slurm, --array=3-7:2 (IDs 3, 5, 7): ID 5 is shard 1 of 3.
    let o = shard_of(
        &[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ],
        &[],
    );
    ok(&o);
    assert!(
        stderr(&o).contains("shard 1/3: 2 of 6 inputs"),
        "{}",
        stderr(&o)
    );
    let mut took: Vec<String> = manifest_lines(&out)
        .iter()
        .filter(|v| v["type"] == "input")
        .map(|v| v["input"].as_str().unwrap().to_owned())
        .collect();
    took.sort();
    assert_eq!(took, [inputs.names[1].clone(), inputs.names[4].clone()]);
    assert!(out.join("_manifest/shard-00001-of-00003.jsonl").exists());

    // AWS Batch.
    let o = shard_of(
        &[
            ("AWS_BATCH_JOB_ARRAY_INDEX", "3"),
            ("AWS_BATCH_JOB_ARRAY_SIZE", "4"),
        ],
        &[],
    );
    ok(&o);
    assert!(
        stderr(&o).contains("shard 3/4: 1 of 6 inputs"),
        "{}",
        stderr(&o)
    );

    // Kubernetes: the count is not in the environment.
    let k8s = [("JOB_COMPLETION_INDEX", "0")];
    let o = shard_of(&k8s, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--shard-count"), "{}", stderr(&o));
    let o = shard_of(&k8s, &["--shard-count", "2"]);
    ok(&o);
    assert!(
        stderr(&o).contains("shard 0/2: 3 of 6 inputs"),
        "{}",
        stderr(&o)
    );

    // No scheduler: an error, not a guess.
    let o = shard_of(&[], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no scheduler"), "{}", stderr(&o));
    fs::remove_dir_all(&out).unwrap();
}

/// When to kill a run.
#[derive(Clone, Copy, Debug)]
enum KillPoint {
    /// Right after it starts.
    AtOnce,
    /// As soon as a part file is being written.
    FirstTempFile,
    /// As soon as a part file is visible (renamed, maybe before the
    /// manifest says its input is done).
    FirstVisiblePart,
    /// Once the manifest says `n` inputs are done.
    InputsDone(usize),
    /// After this long.
    After(Duration),
}

impl KillPoint {
    fn reached(&self, out: &Path, started: Instant) -> bool {
        match *self {
            KillPoint::AtOnce => true,
            KillPoint::FirstTempFile => !part_files(out).1.is_empty(),
            KillPoint::FirstVisiblePart => part_files(out)
                .0
                .iter()
                .any(|p| !p.ends_with("~empty.parquet")),
            KillPoint::InputsDone(n) => done_inputs(out) >= n,
            KillPoint::After(d) => started.elapsed() >= d,
        }
    }
}

/// Starts an ingest and kills it (SIGKILL) at `point`; true if it was
/// still running then.
fn run_and_kill(inputs: &Inputs, out: &Path, point: KillPoint) -> bool {
    let mut child = inputs.command(out, &["-j2"]).spawn().unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        if point.reached(out, started) {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            panic!("{point:?} was never reached");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // What a reader sees now is only finished files: each visible part
    // file has its footer.
    for path in part_files(out).0 {
        let file = fs::File::open(&path).unwrap();
        let reader = SerializedFileReader::new(file);
        assert!(
            reader.is_ok(),
            "{} is not a whole Parquet file",
            path.display()
        );
        let _ = reader.unwrap().metadata().num_row_groups();
    }
    true
}

#[test]
fn a_run_killed_at_any_point_resumes_to_the_same_rows() {
    let inputs = Inputs::new("kill", 5);
    let whole = temp_out("kill-whole");
    let started = Instant::now();
    ok(&inputs.run(&whole, &["-j2"]));
    let full = started.elapsed();

    let points = [
        KillPoint::AtOnce,
        KillPoint::FirstTempFile,
        KillPoint::FirstVisiblePart,
        KillPoint::InputsDone(1),
        KillPoint::InputsDone(3),
        KillPoint::After(full / 2),
    ];
    let mut killed = 0;
    for (i, point) in points.iter().enumerate() {
        let out = temp_out(&format!("kill-{i}"));
        killed += run_and_kill(&inputs, &out, *point) as usize;
        let stdout = ok(&inputs.run(&out, &["-j2"]));
        assert!(stdout.contains("0 failed"), "{point:?}: {stdout}");
        assert_same_rows(&whole, &out);
        let (_, hidden) = part_files(&out);
        assert!(hidden.is_empty(), "{point:?}: left {hidden:?}");
        assert_eq!(done_inputs(&out), 5, "{point:?}");
        fs::remove_dir_all(&out).unwrap();
    }
    assert!(
        killed >= 4,
        "only {killed} runs were killed before they ended"
    );

    // Killed again and again in one directory, then finished.
    let out = temp_out("kill-chain");
    for point in points {
        run_and_kill(&inputs, &out, point);
    }
    ok(&inputs.run(&out, &["-j2"]));
    assert_same_rows(&whole, &out);
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_failed_input_is_retried_and_reported() {
    let inputs = Inputs::new("retry", 3);
    let whole = temp_out("retry-whole");
    ok(&inputs.run(&whole, &[]));

    // One input is missing: the others are done, the run says so.
    let out = temp_out("retry");
    let moved = inputs.dir.join("moved.warc.gz");
    fs::rename(inputs.dir.join(&inputs.names[2]), &moved).unwrap();
    let o = inputs.run(&out, &[]);
    assert_eq!(o.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("2 files done, 1 failed"), "{stdout}");
    // Nothing of the failed input is in the tables.
    assert!(rows(&out, Table::Errors).is_empty());

    // Back in place: the next run retries it.
    fs::rename(&moved, inputs.dir.join(&inputs.names[2])).unwrap();
    let stdout = ok(&inputs.run(&out, &[]));
    assert!(
        stdout.contains("1 file done, 0 failed, 2 skipped (done earlier), 1 retried"),
        "{stdout}"
    );
    assert_same_rows(&whole, &out);
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&out).unwrap();
}
