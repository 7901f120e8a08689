//! Where a data set's files are: in its directory, or, for a data set on
//! S3, in its bucket (listed once when the run starts) with the
//! directory as the staging area files are written in before they are
//! uploaded. Everything that asks whether a part file is there, lists a
//! table or deletes a file asks here.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::s3::S3Files;
use super::{At, CRAWL_TABLES, Dataset, Op, OutputError, lock, manifest};
use crate::classify::Table;
use crate::output::bucket::{Bucket, S3Location};
use crate::output::scratch::Scratch;
use crate::s3::{DuckdbSecret, S3Options};

/// Where a run writes a data set on S3.
#[derive(Clone, Debug, PartialEq)]
pub struct S3Out {
    /// The data set.
    pub location: S3Location,
    /// How S3 is reached (as for inputs).
    pub options: S3Options,
    /// How long to wait for a connection or an answer.
    pub timeout: Duration,
}

/// How long a command without a `--timeout` flag (`compact`, `report`,
/// `robostats_cc.connect`) waits for a connection or an answer of S3.
pub const STORE_TIMEOUT: Duration = Duration::from_secs(60);

impl S3Out {
    /// The data set at `location`, reached as the environment says (the
    /// AWS chains, `AWS_ENDPOINT_URL`), each wait bounded by
    /// [`STORE_TIMEOUT`]: for the commands that take no S3 flags.
    pub fn from_environment(location: S3Location) -> S3Out {
        S3Out {
            location,
            options: S3Options::default(),
            timeout: STORE_TIMEOUT,
        }
    }

    /// Opens the data set for reading only (`robostats report`,
    /// `robostats_cc.connect`): nothing is written and no claim taken; a
    /// listing of its manifest and of its captures' part files (the first
    /// page of each) says it is a data set the views can read.
    pub fn open_read(&self) -> Result<S3Read, OutputError> {
        let location = &self.location;
        let bucket = Bucket::new(
            &location.bucket,
            &location.prefix,
            &self.options,
            self.timeout,
        )
        .map_err(OutputError::Store)?;
        let url = location.url();
        if bucket
            .list_first(&format!("{}/", manifest::DIR_NAME))
            .map_err(OutputError::Store)?
            .is_empty()
        {
            return Err(OutputError::NotADataset { dir: url.into() });
        }
        let captures = bucket
            .list_first(&format!("{}/", Table::Captures.name()))
            .map_err(OutputError::Store)?;
        if !captures.iter().any(|l| l.key.ends_with(".parquet")) {
            return Err(OutputError::Store(format!(
                "{url} has a manifest but no captures/*.parquet yet: its first ingest has not \
                 finished a part file"
            )));
        }
        super::checks::refuse_older_rules_in(&bucket, Path::new(&url))?;
        Ok(S3Read {
            url: url.trim_end_matches('/').to_owned(),
            secret: bucket.duckdb_secret().map_err(OutputError::Store)?,
        })
    }
}

/// The DuckDB secret that reaches the bucket of `url`, a file or glob on
/// S3 that DuckDB reads beside a data set (a rank list), reached as the
/// environment says: the secret's scope (`s3://bucket/`) and its
/// parameters. Nothing is listed or checked: DuckDB's read says what is
/// missing.
pub fn file_secret(url: &str) -> Result<(String, DuckdbSecret), OutputError> {
    let bucket = url
        .strip_prefix("s3://")
        .map(|rest| rest.split('/').next().unwrap_or_default())
        .ok_or_else(|| OutputError::Store(format!("'{url}' is not an s3:// URL")))?;
    let location = S3Location::parse(&format!("s3://{bucket}/")).map_err(OutputError::Store)?;
    let options = S3Options::default();
    let bucket =
        Bucket::new(&location.bucket, "", &options, STORE_TIMEOUT).map_err(OutputError::Store)?;
    let secret = bucket.duckdb_secret().map_err(OutputError::Store)?;
    Ok((location.url(), secret))
}

/// A data set on S3 opened for reading only: where DuckDB reads it, and
/// the secret that reaches it there.
#[derive(Debug)]
pub struct S3Read {
    /// `s3://bucket/prefix`, without a trailing `/` (tables.sql appends
    /// `/<table>/*.parquet`).
    pub url: String,
    /// DuckDB's S3 secret for it (credentials: shown to no one).
    pub secret: DuckdbSecret,
}

impl Dataset {
    /// [`Dataset::create_locked`] for a data set on S3: the claim on the
    /// manifest `name` is taken (see [`super::s3`]), the data
    /// set listed and its manifests read into a new private staging
    /// directory (removed when the data set is dropped: see
    /// [`Scratch`]), and only then is anything written.
    pub fn create_s3(
        out: &S3Out,
        allow_other_files: bool,
        name: &str,
    ) -> Result<(Dataset, lock::Held), OutputError> {
        let holder = format!("ingest ({name})");
        let s3 = S3Files::open(&out.location, &out.options, out.timeout, name, &holder)?;
        if !allow_other_files {
            let others = s3.other_objects();
            if !others.is_empty() {
                return Err(OutputError::OtherFiles {
                    dir: PathBuf::from(out.location.url()),
                    examples: others,
                });
            }
        }
        super::checks::refuse_older_rules_in(s3.bucket(), Path::new(&out.location.url()))?;
        s3.begin_generations()?;
        let stage =
            Scratch::new("stage").map_err(|(path, e)| OutputError::io(Op::CreateDir, &path, e))?;
        let dataset = Dataset {
            dir: stage.path().to_path_buf(),
            s3: Some(Arc::new(s3)),
            _stage: Some(Arc::new(stage)),
        };
        let held = dataset.lock_ingest(name)?;
        if let Some(s3) = &dataset.s3 {
            s3.download_manifests(&manifest::dir(&dataset.dir))?;
        }
        dataset.init_tables()?;
        Ok((dataset, held))
    }

    /// The data set's place on S3, if it is there.
    pub fn s3(&self) -> Option<&S3Files> {
        self.s3.as_deref()
    }

    /// Whether the finished file `name` of `table` is there.
    pub(super) fn has_file(&self, table: Table, name: &str) -> bool {
        self.is_part(&Path::new(table.name()).join(name))
    }

    /// Whether the file `rel` (relative to the data set) is there: a
    /// regular file (never a link), or an object listed.
    pub fn is_part(&self, rel: &Path) -> bool {
        match &self.s3 {
            Some(s3) => rel.to_str().is_some_and(|key| s3.exists(key)),
            None => fs::symlink_metadata(self.dir.join(rel)).is_ok_and(|m| m.file_type().is_file()),
        }
    }

    /// Deletes the file `rel` (relative to the data set) if it is a
    /// regular file (never a link, nor what it points to), or the object
    /// listed; gone already is fine.
    pub fn remove_part(&self, rel: &Path) -> Result<(), OutputError> {
        if let Some(s3) = &self.s3
            && let Some(key) = rel.to_str()
        {
            s3.remove(key)?;
        }
        let path = self.dir.join(rel);
        if !fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
            return Ok(());
        }
        match fs::remove_file(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other.at(Op::RemoveLeftover, &path),
        }
    }

    /// Empties the crawl tables (`compact::crawls`) before an ingest
    /// replaces done inputs' rows (`--redo`), which may change captures
    /// without changing their keys: each table's files give way to one
    /// file of the same columns and no row, so that the views compute
    /// every crawl until the next `compact`, and a session that read the
    /// views before still finds the table (a zero-row file is there before
    /// the old files go: never more rows than before). Links and other
    /// entries are neither read nor deleted.
    pub fn empty_crawl_tables(&self) -> Result<(), OutputError> {
        for dir in CRAWL_TABLES {
            let names: Vec<String> = self
                .files_in(dir)?
                .into_iter()
                .filter(|n| super::is_finished_part(n))
                .collect();
            let Some(first) = names.first() else {
                continue;
            };
            let key = format!("{dir}/{first}");
            let bytes = match &self.s3 {
                Some(s3) => s3.read(&key)?,
                None => std::fs::read(self.dir.join(&key)).at(Op::ReadPart, self.dir.join(&key))?,
            };
            let empty = zero_rows_like(bytes, &self.dir.join(&key))?;
            let token = super::short_hash(
                format!("{:?}-{}", std::time::SystemTime::now(), std::process::id()).as_bytes(),
            );
            let name = format!("emptied-{token}.parquet");
            let path = self.dir.join(dir).join(&name);
            // As a part file is written: a new file under its temporary
            // name, not through a link, synced, then renamed.
            super::create_dir_no_follow(&self.dir.join(dir))?;
            let temp = super::temp_path(&path);
            super::open_options_no_follow()
                .write(true)
                .create_new(true)
                .open(&temp)
                .and_then(|mut file| {
                    std::io::Write::write_all(&mut file, &empty)?;
                    file.sync_all()
                })
                .at(Op::WritePart, &temp)?;
            fs::rename(&temp, &path).at(Op::PublishPart, &path)?;
            if let Some(s3) = &self.s3 {
                s3.upload(&format!("{dir}/{name}"), &path)?;
            }
            for old in &names {
                self.remove_part(&Path::new(dir).join(old))?;
            }
        }
        Ok(())
    }

    /// The names of the regular files (objects) of a table.
    pub fn part_names(&self, table: Table) -> Result<Vec<String>, OutputError> {
        self.files_in(table.name())
    }

    /// The names of the regular files (objects) directly in the data set's
    /// directory `dir`, sorted (none where it is not a directory: a link
    /// is not followed).
    fn files_in(&self, dir: &str) -> Result<Vec<String>, OutputError> {
        if let Some(s3) = &self.s3 {
            return Ok(s3.names_in(dir));
        }
        let dir = self.dir.join(dir);
        let mut names = Vec::new();
        if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            return Ok(names);
        }
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(names);
        };
        for entry in entries {
            let entry = entry.at(Op::ListDir, &dir)?;
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }
}

/// A Parquet file of the columns of the Parquet file `bytes` (`path`
/// names it in an error) and no row.
fn zero_rows_like(bytes: Vec<u8>, path: &Path) -> Result<Vec<u8>, OutputError> {
    use parquet::arrow::ArrowWriter;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let unreadable = |e: parquet::errors::ParquetError| {
        OutputError::io(Op::ReadPart, path, std::io::Error::other(e))
    };
    let schema = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
        .map_err(unreadable)?
        .schema()
        .clone();
    let writer = ArrowWriter::try_new(Vec::new(), schema, None).map_err(unreadable)?;
    writer.into_inner().map_err(unreadable)
}
