//! The output directory's names and part files.

use super::*;
use crate::shard::Shard;

#[test]
fn clean_up_matches_exact_names_only() {
    let stem = part_stem("n/a.warc.gz");
    assert!(is_part_of(&stem, &format!("{stem}-00.parquet")));
    assert!(is_part_of(&stem, &format!("{stem}-117.parquet")));
    assert!(is_part_of(
        &stem,
        &format!("{stem}-shard-00003-of-00100-01.parquet")
    ));
    // Another input's stem that starts with this one's.
    let other = part_stem(&format!("n/{stem}-x.warc.gz"));
    assert!(other.starts_with(&stem));
    assert!(!is_part_of(&stem, &format!("{other}-00.parquet")));
    for name in [
        format!("{stem}-0.parquet"),
        format!("{stem}-00.parquet.bak"),
        format!("{stem}-shard-1-of-2.parquet"),
        format!("{stem}-shard-x-of-00002-00.parquet"),
        format!("{stem}00.parquet"),
    ] {
        assert!(!is_part_of(&stem, &name), "{name}");
    }
    // Which shard wrote a body part file, whatever its stem says.
    let shard = Shard::parse("3/100").unwrap();
    let tricky = part_stem("n/x-shard-00001-of-00002.warc.gz");
    for (shard, stem, said) in [
        (Some(shard), &stem, Some("shard-00003-of-00100")),
        (None, &stem, None),
        (None, &tricky, None),
        (Some(shard), &tricky, Some("shard-00003-of-00100")),
    ] {
        let name = body_part_name(stem, shard, 1, -5);
        assert_eq!(body_part_shard(&name), Some(said), "{name}");
    }
    assert_eq!(body_part_shard(&format!("{stem}-00.parquet")), None);
    let part = format!("{stem}-00.parquet");
    assert!(is_temp_of(&format!(".{part}.123-0a1b2c3d.tmp"), &part));
    assert!(!is_temp_of(&format!(".{part}.123-0a1b2c3d.tmp.x"), &part));
    assert!(!is_temp_of(&format!(".{part}.x-0a1b2c3d.tmp"), &part));
    assert!(!is_temp_of(&format!("{part}.123-0a1b2c3d.tmp"), &part));
    let temp = temp_path(Path::new(&part));
    assert!(is_temp_of(&temp.to_string_lossy(), &part), "{temp:?}");
}

#[test]
fn a_part_file_appears_only_when_published() {
    let dir = std::env::temp_dir().join(format!("robostats-dataset-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let dataset = Dataset::create(&dir, false).unwrap();
    for &table in Table::ALL {
        assert!(dataset.table_dir(table).join(EMPTY_PART).exists());
    }
    let schema = schema_of(Table::Errors.columns());
    let name = part_name(&part_stem("a/b.warc.gz"), None, 1);
    assert!(
        name.starts_with("b-") && name.ends_with("-01.parquet"),
        "{name}"
    );
    let part = dataset
        .create_part(Table::Errors, &name, schema.clone())
        .unwrap();
    let path = dataset.table_dir(Table::Errors).join(&name);
    assert!(temp_path(&path).exists() && !path.exists());
    let finished = part.finish().unwrap();
    assert!(!path.exists());
    let summary = finished.publish().unwrap();
    assert!(path.exists() && !temp_path(&path).exists());
    assert_eq!(summary.rows, 0);

    // Dropped before it is finished, or finished and not published: no
    // file is left.
    let other = part_name(&part_stem("a/b.warc.gz"), None, 2);
    let other_path = dataset.table_dir(Table::Errors).join(&other);
    drop(
        dataset
            .create_part(Table::Errors, &other, schema.clone())
            .unwrap(),
    );
    assert!(!temp_path(&other_path).exists());
    let finished = dataset
        .create_part(Table::Errors, &other, schema)
        .unwrap()
        .finish();
    assert!(temp_path(&other_path).exists());
    drop(finished);
    assert!(!temp_path(&other_path).exists() && !other_path.exists());
    dataset.remove_leftovers(&part_stem("a/b.warc.gz")).unwrap();
    assert!(!path.exists());
    assert!(dataset.table_dir(Table::Errors).join(EMPTY_PART).exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_data_set_of_the_earlier_body_store_is_refused() {
    let dir = std::env::temp_dir().join(format!("robostats-older-store-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("_manifest")).unwrap();
    // A run line without `body_store` (XXH3-128 keys, files unrecorded),
    // then a done input.
    let run = r#"{"type":"run","tool":"robostats","version":"0.1.0","agents_version":"sha256:e4","shard":null,"options":{"size_limit":512000,"agents_version":"sha256:e4"},"started_unix":1795555000}"#;
    let done = r#"{"type":"input","input":"a.warc.gz","status":"done","parts":[],"records":1,"responses":1,"captures":1,"lost":0,"errors":0,"bytes":1}"#;
    fs::write(dir.join("_manifest/run.jsonl"), format!("{run}\n")).unwrap();
    // Only a run line: nothing was stored, nothing to refuse.
    assert!(Dataset::open(&dir).is_ok());
    fs::write(dir.join("_manifest/run.jsonl"), format!("{run}\n{done}\n")).unwrap();
    let refused = Dataset::open(&dir).unwrap_err();
    assert!(
        matches!(refused, OutputError::OlderFormat { .. }),
        "{refused}"
    );
    assert!(refused.to_string().contains("XXH3-128"), "{refused}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_data_set_whose_body_rules_stores_every_pattern_is_refused() {
    use arrow_schema::{DataType, Field, Schema};
    let dir = std::env::temp_dir().join(format!("robostats-older-rules-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let dataset = Dataset::create(&dir, false).unwrap();
    drop(dataset);
    fs::create_dir_all(dir.join("_manifest")).unwrap();
    assert!(Dataset::open(&dir).is_ok());
    // The schema-only file of a version that stored the pattern's columns.
    let older = Schema::new(vec![
        Field::new("body_digest", DataType::Utf8, false),
        Field::new("pattern", DataType::Utf8, false),
        Field::new("priority", DataType::Int32, false),
    ]);
    let empty = dir.join(Table::Rules.name()).join(EMPTY_PART);
    let file = fs::File::create(&empty).unwrap();
    parquet::arrow::ArrowWriter::try_new(file, std::sync::Arc::new(older), None)
        .unwrap()
        .close()
        .unwrap();
    let refused = || {
        for refused in [
            Dataset::open(&dir).unwrap_err(),
            Dataset::open_read(&dir).unwrap_err(),
        ] {
            assert!(
                matches!(refused, OutputError::OlderFormat { .. }),
                "{refused}"
            );
            assert!(refused.to_string().contains("body_rules"), "{refused}");
        }
    };
    refused();
    // Its schema-only file deleted: a part file tells the same.
    fs::rename(
        &empty,
        empty.with_file_name("a-1-00-00000000000000ff.parquet"),
    )
    .unwrap();
    refused();
    fs::remove_dir_all(&dir).unwrap();
}

/// Every entry under `dir`, with its kind and permissions.
#[cfg(unix)]
fn listing(dir: &Path) -> Vec<(PathBuf, bool, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        out.push((
            entry.path().to_path_buf(),
            meta.is_dir(),
            meta.permissions().mode(),
        ));
    }
    out
}

#[cfg(unix)]
#[test]
fn a_reader_opens_what_a_writer_would_and_changes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("robostats-open-read-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let said = |e: OutputError| e.to_string().replace(&dir.display().to_string(), "DIR");
    assert_eq!(
        said(Dataset::open_read(&dir).unwrap_err()),
        "DIR does not exist"
    );
    let dataset = Dataset::create(&dir, false).unwrap();
    // Tables without a manifest: not an ingest's output.
    let refused = Dataset::open_read(&dir).unwrap_err();
    assert!(
        matches!(refused, OutputError::NotADataset { .. }),
        "{refused}"
    );
    // A data set with an ingest and then a compaction holding its locks.
    let ingest = dataset.lock_ingest("run").unwrap();
    assert!(Dataset::open_read(&dir).is_ok());
    drop(ingest);
    let compact = dataset.lock_compact().unwrap();
    // A directory no one may write: opened all the same, nothing made,
    // taken or changed.
    let mut dirs: Vec<PathBuf> = listing(&dir)
        .into_iter()
        .filter(|e| e.1)
        .map(|e| e.0)
        .collect();
    dirs.reverse();
    for d in &dirs {
        fs::set_permissions(d, fs::Permissions::from_mode(0o555)).unwrap();
    }
    let before = listing(&dir);
    assert!(Dataset::open_read(&dir).is_ok());
    assert_eq!(listing(&dir), before);
    drop(compact);
    for d in dirs.iter().rev() {
        fs::set_permissions(d, fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A table missing: an earlier version's, or one being made.
    fs::remove_dir_all(dataset.table_dir(Table::VerdictCounts)).unwrap();
    assert_eq!(
        said(Dataset::open_read(&dir).unwrap_err()),
        "DIR has no verdict_counts/: it was made by an earlier version of robostats, which \
         wrote fewer tables (ingest its inputs again into a new --out directory), or its \
         first ingest has only begun"
    );
    // A writer's open does not look at the tables' directories.
    assert!(Dataset::open(&dir).is_ok());
    fs::remove_dir_all(&dir).unwrap();
}
