//! `ingest` end to end: the samples into Parquet, read back.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampMicrosecondType};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use robostats::classify::Table;
use robostats::pipeline::{self, Config, Input, NoProgress};

pub fn samples() -> Vec<Input> {
    let mut inputs: Vec<Input> = fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .map(|path| {
            let name = format!("samples/{}", path.file_name().unwrap().to_string_lossy());
            Input::file(path, name)
        })
        .collect();
    inputs.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(inputs.len(), 3);
    inputs
}

pub fn temp_out(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("robostats-ingest-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Every row of a table, as text, sorted. A table stored once per body
/// is read as the views read it: each body's rows of its smallest writer
/// in `bodies`, without the writer (which differs from run to run).
pub fn rows(out: &Path, table: Table) -> Vec<String> {
    if !table.per_body() {
        return raw_rows(out, table);
    }
    let mut chosen: BTreeMap<String, i64> = BTreeMap::new();
    for row in raw_rows(out, Table::Bodies) {
        let mut cells = row.split('\t');
        let digest = cells.next().unwrap().to_owned();
        let writer: i64 = cells.next().unwrap().parse().unwrap();
        let w = chosen.entry(digest).or_insert(writer);
        *w = (*w).min(writer);
    }
    let mut rows: Vec<String> = raw_rows(out, table)
        .into_iter()
        .filter_map(|row| {
            let mut cells: Vec<&str> = row.split('\t').collect();
            let writer: i64 = cells[1].parse().unwrap();
            (chosen.get(cells[0]) == Some(&writer)).then(|| {
                cells.remove(1);
                cells.join("\t")
            })
        })
        .collect();
    rows.sort();
    rows
}

/// Every row of a table's part files, as text, sorted.
pub fn raw_rows(out: &Path, table: Table) -> Vec<String> {
    let mut rows = Vec::new();
    let Ok(dir) = fs::read_dir(out.join(table.name())) else {
        return rows;
    };
    for entry in dir {
        let path = entry.unwrap().path();
        // What a `*.parquet` glob reads: not the hidden temporary files.
        let name = path.file_name().unwrap().to_string_lossy();
        if name.starts_with('.') || !name.ends_with(".parquet") {
            continue;
        }
        let reader = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            for i in 0..batch.num_rows() {
                let cells: Vec<String> = batch.columns().iter().map(|c| cell(c, i)).collect();
                rows.push(cells.join("\t"));
            }
        }
    }
    rows.sort();
    rows
}

/// A cell as text: NULL for a null, a timestamp as its integer
/// microseconds (formatting a named time zone needs a time-zone database),
/// a dictionary's label, a list as `[a, b]`. (The tables' column kinds,
/// `output::batch`; what the tests compare, not a format of record.)
fn cell(column: &dyn Array, i: usize) -> String {
    if column.is_null(i) {
        return "NULL".to_owned();
    }
    match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().value(i).to_owned(),
        DataType::Dictionary(..) => {
            let dict = column.as_dictionary::<Int32Type>();
            cell(dict.values().as_ref(), dict.keys().value(i) as usize)
        }
        DataType::Int64 => column.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::Int32 => column.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Float64 => column.as_primitive::<Float64Type>().value(i).to_string(),
        DataType::Boolean => column.as_boolean().value(i).to_string(),
        DataType::Timestamp(TimeUnit::Microsecond, _) => column
            .as_primitive::<TimestampMicrosecondType>()
            .value(i)
            .to_string(),
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(i);
            let cells: Vec<String> = (0..items.len()).map(|j| cell(items.as_ref(), j)).collect();
            format!("[{}]", cells.join(", "))
        }
        other => panic!("no cell format for a {other} column"),
    }
}

fn config(out: &Path, threads: usize, chunk: usize) -> Config {
    let mut config = Config::new(samples(), out.to_path_buf());
    config.threads = threads;
    config.chunk_records = chunk;
    config.batch_rows = 100;
    config
}

#[test]
fn one_thread_and_many_give_the_same_rows() {
    let one = temp_out("one");
    let many = temp_out("many");
    let s1 = pipeline::run(&config(&one, 1, 256), &NoProgress).unwrap();
    // Small chunks: the big sample is cut into dozens of chunks that three
    // workers share, so its rows land in several lanes.
    let s3 = pipeline::run(&config(&many, 3, 16), &NoProgress).unwrap();
    assert_eq!(s1.counts, s3.counts);
    let lanes = fs::read_dir(many.join("captures")).unwrap().count();
    assert!(
        lanes > 3,
        "the big sample was spread over lanes: {lanes} part files"
    );
    for &table in Table::ALL {
        let (a, b) = (rows(&one, table), rows(&many, table));
        assert_eq!(a.len(), b.len(), "{}", table.name());
        assert!(a == b, "{}: rows differ", table.name());
    }
    fs::remove_dir_all(&one).unwrap();
    fs::remove_dir_all(&many).unwrap();
}

#[test]
fn every_response_is_a_capture_or_an_error_and_counts_agree() {
    let out = temp_out("counts");
    let summary = pipeline::run(&config(&out, 2, 64), &NoProgress).unwrap();
    // warcio counts 700 + 16 + 1 response records in the samples.
    assert_eq!(summary.counts.responses, 717);
    assert_eq!(summary.counts.captures, 717);
    assert_eq!(summary.counts.errors, 0);
    assert_eq!((summary.files_done, summary.files_failed), (3, 0));
    assert_eq!(rows(&out, Table::Captures).len(), 717);
    // The crawlers of interest, `*` included, once; a verdict row only
    // where a group names the crawler.
    let agents = robostats::classify::agents::AgentList::default_list()
        .agents
        .len()
        + 1;
    assert_eq!(rows(&out, Table::Agents).len(), agents);
    assert!(!rows(&out, Table::NamedVerdicts).is_empty());

    // The manifest's part files hold exactly the tables' rows.
    let entries = robostats::output::dataset::manifest::read_inputs(&out).unwrap();
    assert_eq!(entries.len(), 3);
    let mut from_manifest: BTreeMap<String, u64> = BTreeMap::new();
    for e in entries.values() {
        for part in &e.line.parts {
            *from_manifest.entry(part.table.clone()).or_default() += part.rows;
        }
    }
    for &table in Table::ALL.iter().filter(|t| t.per_input()) {
        let n = rows(&out, table).len() as u64;
        assert_eq!(
            from_manifest.get(table.name()).copied().unwrap_or(0),
            n,
            "{}",
            table.name()
        );
    }
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn outputs_are_atomic_and_a_rerun_skips_finished_inputs() {
    let out = temp_out("rerun");
    pipeline::run(&config(&out, 2, 64), &NoProgress).unwrap();
    let listing = |out: &Path| {
        let mut files = Vec::new();
        for &table in Table::ALL {
            if let Ok(dir) = fs::read_dir(out.join(table.name())) {
                for e in dir {
                    let name = e.unwrap().file_name().to_string_lossy().into_owned();
                    assert!(
                        name.ends_with(".parquet") && !name.starts_with('.'),
                        "{name}"
                    );
                    files.push(format!("{}/{name}", table.name()));
                }
            }
        }
        files.sort();
        files
    };
    let before = listing(&out);
    let again = pipeline::run(&config(&out, 2, 64), &NoProgress).unwrap();
    assert_eq!(
        (again.files_skipped, again.files_done, again.counts.captures),
        (3, 0, 0)
    );
    assert_eq!(listing(&out), before);

    // Other options into the same directory would mix results: refused.
    let mut other = config(&out, 2, 64);
    other.classify.size_limit = usize::MAX;
    let err = pipeline::run(&other, &NoProgress).unwrap_err();
    assert!(err.to_string().contains("other options"), "{err}");
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn an_unreadable_input_fails_alone() {
    let out = temp_out("unreadable");
    let mut config = config(&out, 2, 64);
    config
        .inputs
        .push(Input::file("/no/such/file.warc.gz", "missing.warc.gz"));
    let summary = pipeline::run(&config, &NoProgress).unwrap();
    assert_eq!((summary.files_done, summary.files_failed), (3, 1));
    assert!(rows(&out, Table::Errors).is_empty());
    let entries = robostats::output::dataset::manifest::read_inputs(&out).unwrap();
    let reason = entries[&config.inputs[3].id].line.reason.clone().unwrap();
    assert!(reason.contains("No such file or directory"), "{reason}");
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn cli_ingest_summary_and_exit_status() {
    let out = temp_out("cli");
    let bin = crate::robostats();
    let root = env!("CARGO_MANIFEST_DIR");
    let o = Command::new(&bin)
        .current_dir(root)
        .args(["ingest", "samples/*.warc.gz", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("3 files done, 0 failed, 0 skipped (done earlier), 0 retried (failed earlier); 1455 records read, 717 responses -> 717 captures + 0 in errors only; 0 errors rows"),
        "{stdout}"
    );
    // A missing input: the others are done, the exit status says one failed.
    let o = Command::new(&bin)
        .current_dir(root)
        .args(["ingest", "samples/robots.txt.missing.warc.gz", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("could not read"));
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_directory_given_to_the_library_fails_and_the_manifest_says_why() {
    // (The command line expands a directory into its WARC files; the
    // library reads what it is given, and a directory is not a WARC file.)
    let out = temp_out("dir-input");
    let dir = temp_out("dir-input-input");
    fs::create_dir_all(&dir).unwrap();
    let mut config = config(&out, 2, 64);
    config.inputs = vec![Input::file(dir.clone(), "a-directory")];
    let summary = pipeline::run(&config, &NoProgress).unwrap();
    assert_eq!((summary.files_done, summary.files_failed), (0, 1));
    // A failed input has no row in any table: the manifest says why.
    assert!(rows(&out, Table::Errors).is_empty());
    assert_eq!(summary.counts.errors, 0);
    let entries = robostats::output::dataset::manifest::read_inputs(&out).unwrap();
    let entry = &entries[&config.inputs[0].id];
    assert_eq!(
        entry.line.status,
        robostats::output::dataset::InputStatus::Failed
    );
    assert_eq!(entry.line.input, "a-directory");
    assert!(entry.line.parts.is_empty());
    let reason = entry.line.reason.as_deref().unwrap();
    assert!(
        reason.contains("it is a directory") && reason.contains("(io)"),
        "{reason}"
    );
    fs::remove_dir_all(&out).unwrap();
    fs::remove_dir_all(&dir).unwrap();
}
