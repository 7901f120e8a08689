//! `compact`: the part files of finished inputs merged, rows kept, and
//! what it must leave alone (files being written, links, the schema-only
//! file of older data sets). Its faults are in `faults.rs`.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use parquet::file::reader::{FileReader, SerializedFileReader};
use robostats::classify::Table;

use crate::ingest::temp_out;
use crate::resume::{Inputs, assert_same_rows, manifest_lines, ok};

/// The command `robostats compact OUT ARGS`, without its crawl tables:
/// they are written by a DuckDB process of their own (a second of CPU each
/// time, and calls strace would count among compact's), which the rows
/// these tests compare do not read; tests/python/test_crawl_tables.py
/// tests them.
pub fn compact_command(out: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(crate::robostats());
    command
        .arg("compact")
        .arg(out)
        .arg("--no-crawl-tables")
        .args(args);
    command
}

/// [`compact_command`], run.
pub fn compact(out: &Path, args: &[&str]) -> Output {
    compact_command(out, args).output().unwrap()
}

/// The part files of each table, `~empty.parquet` aside.
fn parts_per_table(out: &Path) -> Vec<Vec<String>> {
    Table::ALL
        .iter()
        .map(|t| {
            let mut names: Vec<String> = fs::read_dir(out.join(t.name()))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "~empty.parquet")
                .collect();
            names.sort();
            names
        })
        .collect()
}

#[test]
fn compact_merges_final_part_files_and_keeps_the_rows() {
    let inputs = Inputs::new("compact", 6);
    let whole = temp_out("compact-whole");
    ok(&inputs.run(&whole, &["-j1"]));

    // Three shards, one input missing: it fails, with no part file.
    let out = temp_out("compact");
    let moved = inputs.dir.join("moved.warc.gz");
    fs::rename(inputs.dir.join(&inputs.names[4]), &moved).unwrap();
    for i in 0..3 {
        inputs.run(&out, &["-j2", "--shard", &format!("{i}/3")]);
    }
    let before = parts_per_table(&out);
    assert!(before[0].len() >= 5, "{:?}", before[0]);

    // A staging directory of a killed compaction goes; a hidden part file
    // (an ingest writing, or killed) stops it.
    fs::create_dir_all(out.join(".compact-rules")).unwrap();
    fs::write(
        out.join(".compact-rules/compacted-x-00000.parquet"),
        b"junk",
    )
    .unwrap();
    let temp = out.join("captures/.segment-00-1234.parquet.99.tmp");
    fs::write(&temp, b"").unwrap();
    let o = compact(&out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("let the ingest finish"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    fs::remove_file(&temp).unwrap();

    let stdout = ok(&compact(&out, &[]));
    let line = stdout
        .lines()
        .find(|l| l.starts_with("captures: "))
        .unwrap();
    assert!(
        line.ends_with("part files -> 1 (2801 rows moved)"),
        "{stdout}"
    );
    assert!(!out.join(".compact-rules").exists());
    let after = parts_per_table(&out);
    for ((table, names), was) in Table::ALL.iter().zip(&after).zip(&before) {
        let compacted = names.iter().filter(|n| n.starts_with("compacted-")).count();
        // A table of one part file has nothing to merge (errors: no row in
        // any input; agents: the data set's one list; a per-body table
        // when one shard's run stored every body, which depends on timing).
        if was.len() < 2 {
            assert_eq!(names, was, "{}", table.name());
        } else {
            assert_eq!(compacted, 1, "{}: {names:?}", table.name());
            assert_eq!(names.len(), 1, "{}: {names:?}", table.name());
        }
    }
    // Every per-capture table had part files of several shards to merge.
    for table in [Table::Captures, Table::NamedVerdicts] {
        assert!(before[table as usize].len() >= 2, "{}", table.name());
    }
    // The failed input left no part file.
    let errors = &after[Table::Errors as usize];
    assert!(errors.is_empty(), "{errors:?}");
    let lines = manifest_lines(&out);
    assert!(lines.iter().any(|v| v["type"] == "compact"));

    // Nothing more to merge: nothing changes.
    let stdout = ok(&compact(&out, &[]));
    assert!(!stdout.contains("->  "), "{stdout}");
    assert_eq!(parts_per_table(&out), after);

    // The failed input is retried after compaction; compacting again
    // merges its part files with the earlier compacted ones.
    fs::rename(&moved, inputs.dir.join(&inputs.names[4])).unwrap();
    ok(&inputs.run(&out, &["-j2"]));
    assert_same_rows(&whole, &out);
    ok(&compact(&out, &["--target-size", "1G"]));
    assert_same_rows(&whole, &out);
    for (table, names) in Table::ALL.iter().zip(parts_per_table(&out)) {
        assert!(names.len() <= 1, "{}: {names:?}", table.name());
    }
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&out).unwrap();
}

/// A data set written while the schema-only file was `_empty.parquet`
/// (which DuckDB 2.0 lists first and takes the table's size from): compact
/// replaces it, and leaves a link planted under that name alone.
#[test]
fn compact_replaces_the_legacy_schema_only_file() {
    let inputs = Inputs::new("legacy-empty", 1);
    let out = temp_out("legacy-empty");
    ok(&inputs.run(&out, &["-j1"]));
    let captures = out.join(Table::Captures.name());
    fs::rename(
        captures.join("~empty.parquet"),
        captures.join("_empty.parquet"),
    )
    .unwrap();
    let outside = out.with_extension("outside");
    fs::write(&outside, b"not ours").unwrap();
    let rules = out.join(Table::Rules.name());
    std::os::unix::fs::symlink(&outside, rules.join("_empty.parquet")).unwrap();

    ok(&compact(&out, &[]));
    assert!(captures.join("~empty.parquet").is_file());
    assert!(!captures.join("_empty.parquet").exists());
    assert!(rules.join("_empty.parquet").is_symlink());
    assert_eq!(fs::read(&outside).unwrap(), b"not ours");
    // The table reads as before: the replacement holds the schema only.
    let reader =
        SerializedFileReader::new(fs::File::open(captures.join("~empty.parquet")).unwrap())
            .unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 0);
    fs::remove_file(&outside).unwrap();
    fs::remove_dir_all(&out).unwrap();
}
