//! The corpus: the URLs to judge, with the columns kept beside them, read
//! in their order, as many times as the judge needs (twice: once for the
//! scopes in use, once to judge), a batch at a time.
//!
//! `--urls` names a file, a directory (its files, in name order) or a glob
//! of them, local, or one `s3://` or `https://` object (downloaded first
//! into the run's private directory, as ingest reads its inputs). Parquet
//! and plain text (one URL a line) are read here; CSV, TSV and JSON lines
//! are read by DuckDB (its readers: a header, types, quoting), which writes
//! them as one Parquet file in the private directory first.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BinaryArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use robostats_report::engine::{Engine, Export, ExportFormat, Out, PATTERN_CHARS, Settings};

use super::captures::sql_path;
use crate::shard::Shard;
use crate::source::{Location, Secrets, Sources, remote};

/// Rows per batch.
const BATCH_ROWS: usize = 8192;

/// The longest line of a text file of URLs: 1 MiB (browsers and servers
/// stop far earlier; a longer line is a file that is no list of URLs, and
/// would be held whole in memory).
const MAX_LINE: usize = 1 << 20;

robostats_robots::labels! {
    /// How a URL file is written.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
    pub enum Format {
        /// Parquet.
        Parquet = "parquet",
        /// Comma-separated, a header line first.
        Csv = "csv",
        /// Tab-separated, a header line first.
        Tsv = "tsv",
        /// JSON, one object a line.
        Jsonl = "jsonl",
        /// One URL a line.
        Text = "text",
    }
}

impl Format {
    /// The format a file's name says (`.parquet`, `.csv`, `.tsv`, `.jsonl`,
    /// `.ndjson`, `.json`, each optionally `.gz` or `.zst`); text otherwise.
    pub fn of_name(name: &str) -> Format {
        let name = name.to_ascii_lowercase();
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".zst"))
            .unwrap_or(&name);
        match name.rsplit_once('.').map(|(_, ext)| ext) {
            Some("parquet" | "pq") => Format::Parquet,
            Some("csv") => Format::Csv,
            Some("tsv" | "tab") => Format::Tsv,
            Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
            _ => Format::Text,
        }
    }
}

/// Which column holds the URLs, and which are kept.
#[derive(Clone, Debug)]
pub struct Columns {
    /// The URL column's name.
    pub url: String,
    /// The columns copied beside the verdicts; `None`: every column.
    pub keep: Option<Vec<String>>,
}

/// The URL files of a run (this shard's), local, in order.
#[derive(Debug)]
pub struct Corpus {
    /// The files to read (downloaded or converted ones in the private
    /// directory), each with its name as the user gave it.
    files: Vec<(PathBuf, String)>,
    /// How they are read here: Parquet or text.
    format: Format,
    columns: Columns,
}

/// A batch of the corpus: the columns kept, and the URLs.
#[derive(Debug)]
pub struct Chunk {
    /// The kept columns (the output's first columns).
    pub kept: RecordBatch,
    /// The URLs: text, or bytes (a URL that is not UTF-8 is not one).
    pub urls: ArrayRef,
}

/// What opening the corpus needs besides its name.
pub struct Open<'a> {
    /// `--urls`.
    pub spec: &'a str,
    /// `--urls-format`, else from the file names.
    pub format: Option<Format>,
    /// The columns.
    pub columns: Columns,
    /// This process's share of the files.
    pub shard: Option<Shard>,
    /// The run's private directory.
    pub work: &'a Path,
    /// DuckDB, for CSV, TSV and JSON lines, over the data sets `outs`.
    pub engine: &'a Engine,
    /// The data sets (DuckDB's views are made over them).
    pub outs: &'a [Out],
}

impl Corpus {
    /// Lists, fetches and converts the corpus `open` names.
    pub fn open(open: &Open<'_>) -> anyhow::Result<Corpus> {
        let mut files = list(open.spec, open.work)?;
        let format = match open.format {
            Some(f) => f,
            None => one_format(&files)?,
        };
        if let Some(shard) = open.shard {
            files = shard.select(files);
        }
        let files = match format {
            Format::Parquet | Format::Text => files,
            _ if files.is_empty() => files,
            _ => vec![convert(open, &files, format)?],
        };
        let format = if format == Format::Text {
            Format::Text
        } else {
            Format::Parquet
        };
        Ok(Corpus {
            files,
            format,
            columns: open.columns.clone(),
        })
    }

    /// The rows of the corpus, when its files say (Parquet's footers).
    pub fn rows(&self) -> Option<u64> {
        if self.format == Format::Text {
            return None;
        }
        let mut rows = 0;
        for (path, _) in &self.files {
            let f = File::open(path).ok()?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(f).ok()?;
            rows += u64::try_from(builder.metadata().file_metadata().num_rows()).ok()?;
        }
        Some(rows)
    }

    /// The kept columns, as the first file has them; a text file's, the
    /// URLs (kept unless `--keep` leaves them out), also for no file at all
    /// (a shard given none).
    pub fn kept_schema(&self) -> anyhow::Result<SchemaRef> {
        let first = self.files.first();
        if let (Some((path, name)), Format::Parquet) = (first, self.format) {
            let file = File::open(path).with_context(|| format!("cannot read {name}"))?;
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                .with_context(|| format!("cannot read {name} as Parquet"))?;
            let (_, keep) = self.projection(reader.schema(), name)?;
            return Ok(Arc::new(reader.schema().project(&keep)?));
        }
        let name = first.map_or("--urls", |(_, n)| n.as_str());
        let field = Field::new(&self.columns.url, DataType::Utf8, true);
        let fields = if self.text_keeps_url(name)? {
            vec![field]
        } else {
            Vec::new()
        };
        Ok(Arc::new(Schema::new(fields)))
    }

    /// The batches of every file, in order; each file's columns checked
    /// against the first's. With `urls_only`, a Parquet file's URL column
    /// alone is read (the kept columns are left empty: a corpus's other
    /// columns may be whole documents).
    pub fn chunks(&self, urls_only: bool) -> impl Iterator<Item = anyhow::Result<Chunk>> + '_ {
        let mut schema: Option<SchemaRef> = None;
        self.files.iter().flat_map(move |(path, name)| {
            let batches: Box<dyn Iterator<Item = anyhow::Result<Chunk>>> =
                match self.file_chunks(path, name, &mut schema, urls_only) {
                    Ok(iter) => iter,
                    Err(e) => Box::new(std::iter::once(Err(e))),
                };
            batches
        })
    }

    /// One file's batches.
    fn file_chunks<'c>(
        &'c self,
        path: &Path,
        name: &str,
        first: &mut Option<SchemaRef>,
        urls_only: bool,
    ) -> anyhow::Result<Box<dyn Iterator<Item = anyhow::Result<Chunk>> + 'c>> {
        let open = || File::open(path).with_context(|| format!("cannot read {name}"));
        if self.format == Format::Text {
            let lower = path.to_string_lossy().to_ascii_lowercase();
            let file = open()?;
            let reader: Box<dyn Read + Send> = if lower.ends_with(".gz") {
                Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file)))
            } else if lower.ends_with(".zst") {
                bail!("{name}: a zstd-compressed text file; decompress it, or write it as CSV");
            } else {
                Box::new(file)
            };
            let lines = TextBatches {
                reader: BufReader::with_capacity(1 << 20, reader),
                line: 0,
                name: name.to_owned(),
                column: self.columns.url.clone(),
                keep_url: self.text_keeps_url(name)?,
                done: false,
            };
            return Ok(Box::new(lines));
        }
        let reader = ParquetRecordBatchReaderBuilder::try_new(open()?)
            .with_context(|| format!("cannot read {name} as Parquet"))?;
        let schema = reader.schema().clone();
        let (url, keep) = self.projection(&schema, name)?;
        let kept_schema = Arc::new(schema.project(&keep)?);
        match first {
            Some(f) if !same_columns(f, &kept_schema) => bail!(
                "{name}: its columns ({}) differ from the first file's ({})",
                names(&kept_schema),
                names(f)
            ),
            Some(_) => {}
            None => *first = Some(kept_schema),
        }
        // Only the columns used are read; a batch holds them in the file's
        // order.
        let mut read: Vec<usize> = if urls_only { Vec::new() } else { keep.clone() };
        read.push(url);
        read.sort_unstable();
        read.dedup();
        let at = |i: usize| read.binary_search(&i).expect("read");
        let (url, keep): (usize, Vec<usize>) = if urls_only {
            (at(url), Vec::new())
        } else {
            (at(url), keep.iter().map(|&k| at(k)).collect())
        };
        let mask = ProjectionMask::roots(reader.parquet_schema(), read.iter().copied());
        let reader: ParquetRecordBatchReader = reader
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()?;
        let name = name.to_owned();
        Ok(Box::new(reader.map(move |batch| {
            let batch = batch.with_context(|| format!("cannot read {name}"))?;
            Ok(Chunk {
                urls: batch.column(url).clone(),
                kept: batch.project(&keep)?,
            })
        })))
    }

    /// Whether a text file's one column, the URLs, is kept; a `--keep`
    /// naming another is refused.
    fn text_keeps_url(&self, name: &str) -> anyhow::Result<bool> {
        let Some(keep) = &self.columns.keep else {
            return Ok(true);
        };
        if let Some(other) = keep.iter().find(|c| **c != self.columns.url) {
            bail!(
                "{name} has no column {other} (its columns: {}); --keep names the columns to copy",
                self.columns.url
            );
        }
        Ok(!keep.is_empty())
    }

    /// The URL column's index and the kept columns' in `schema`.
    fn projection(&self, schema: &Schema, name: &str) -> anyhow::Result<(usize, Vec<usize>)> {
        let find = |column: &str, hint: &str| {
            schema.index_of(column).map_err(|_| {
                anyhow::anyhow!(
                    "{name} has no column {column} (its columns: {}); {hint}",
                    names(schema)
                )
            })
        };
        let url = find(&self.columns.url, "name the URL column with --url-column")?;
        if !is_text(schema.field(url).data_type()) {
            bail!(
                "{name}: column {} is {}, not text (a dictionary-encoded column: store it as \
                 plain text)",
                self.columns.url,
                schema.field(url).data_type()
            );
        }
        let keep = match &self.columns.keep {
            None => (0..schema.fields().len()).collect(),
            Some(cols) => cols
                .iter()
                .map(|c| find(c, "--keep names the columns to copy"))
                .collect::<Result<_, _>>()?,
        };
        Ok((url, keep))
    }
}

/// Whether two files' kept columns are the same: names and types, in
/// order (nullability and metadata may differ from file to file).
fn same_columns(a: &Schema, b: &Schema) -> bool {
    a.fields().len() == b.fields().len()
        && a.fields()
            .iter()
            .zip(b.fields())
            .all(|(x, y)| x.name() == y.name() && x.data_type() == y.data_type())
}

/// The column names of `schema`, for messages.
fn names(schema: &Schema) -> String {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    names.join(", ")
}

/// Whether URLs can be read from a column of `t`.
fn is_text(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// The URL in row `i` of `urls`: `None` for a null, `Err` for bytes that
/// are not UTF-8.
pub fn url_at(urls: &dyn Array, i: usize) -> Option<Result<&str, ()>> {
    if urls.is_null(i) {
        return None;
    }
    let bytes: &[u8] = match urls.data_type() {
        DataType::Utf8 => return Some(Ok(urls.as_string::<i32>().value(i))),
        DataType::LargeUtf8 => return Some(Ok(urls.as_string::<i64>().value(i))),
        DataType::Utf8View => return Some(Ok(urls.as_string_view().value(i))),
        DataType::Binary => urls.as_binary::<i32>().value(i),
        DataType::LargeBinary => urls.as_binary::<i64>().value(i),
        DataType::BinaryView => urls.as_binary_view().value(i),
        _ => return None,
    };
    Some(std::str::from_utf8(bytes).map_err(|_| ()))
}

/// A text file's lines, a batch at a time: the column `url` (as text; a
/// line that is not UTF-8 with U+FFFD in its place) and the URLs (bytes
/// where a line is not UTF-8).
struct TextBatches {
    reader: BufReader<Box<dyn Read + Send>>,
    /// Lines read.
    line: u64,
    name: String,
    column: String,
    /// Whether the URL column is kept (the only column a text file has).
    keep_url: bool,
    done: bool,
}

impl Iterator for TextBatches {
    type Item = anyhow::Result<Chunk>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut lines: Vec<Vec<u8>> = Vec::with_capacity(BATCH_ROWS);
        while lines.len() < BATCH_ROWS {
            let mut line = Vec::new();
            self.line += 1;
            let limit = MAX_LINE as u64 + 1;
            match (&mut self.reader).take(limit).read_until(b'\n', &mut line) {
                Ok(0) => {
                    self.done = true;
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(
                        anyhow::Error::new(e).context(format!("cannot read {}", self.name))
                    ));
                }
            }
            if self.line == 1 && line.starts_with(b"\xEF\xBB\xBF") {
                // A UTF-8 byte order mark, not part of the first URL.
                line.drain(..3);
            }
            if line.last() == Some(&b'\n') {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
            } else if line.len() > MAX_LINE {
                self.done = true;
                return Some(Err(anyhow::anyhow!(
                    "{} line {}: longer than {} MiB, which no URL is: is it a list of URLs, one a line?",
                    self.name,
                    self.line,
                    MAX_LINE >> 20
                )));
            }
            lines.push(line);
        }
        if lines.is_empty() {
            return None;
        }
        Some(self.chunk(&lines))
    }
}

impl TextBatches {
    fn chunk(&self, lines: &[Vec<u8>]) -> anyhow::Result<Chunk> {
        let text: StringArray = lines
            .iter()
            .map(|l| Some(String::from_utf8_lossy(l)))
            .collect();
        let text: ArrayRef = Arc::new(text);
        let urls: ArrayRef = if lines.iter().all(|l| std::str::from_utf8(l).is_ok()) {
            text.clone()
        } else {
            Arc::new(BinaryArray::from_iter_values(lines.iter()))
        };
        let schema = Schema::new(vec![Field::new(&self.column, DataType::Utf8, true)]);
        let kept = RecordBatch::try_new(Arc::new(schema), vec![text])?;
        Ok(Chunk {
            kept: if self.keep_url {
                kept
            } else {
                kept.project(&[])?
            },
            urls,
        })
    }
}

/// The files `spec` names, local (a URL's object downloaded into `work`),
/// each with its name as given.
fn list(spec: &str, work: &Path) -> anyhow::Result<Vec<(PathBuf, String)>> {
    if crate::source::scheme::is_url(spec) {
        return Ok(vec![(download(spec, work)?, spec.to_owned())]);
    }
    let path = Path::new(spec);
    let mut found: Vec<PathBuf> = if path.is_dir() {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(path).with_context(|| format!("cannot read {spec}"))? {
            let entry = entry.with_context(|| format!("cannot read {spec}"))?;
            let hidden = entry.file_name().to_string_lossy().starts_with(['.', '_']);
            if !hidden && entry.path().is_file() {
                files.push(entry.path());
            }
        }
        if files.is_empty() {
            bail!("--urls {spec}: the directory holds no file");
        }
        files
    } else if spec.contains(PATTERN_CHARS) && !path.exists() {
        let matches = glob::glob(spec).with_context(|| format!("--urls {spec}: not a pattern"))?;
        let files: Vec<PathBuf> = matches
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .collect();
        if files.is_empty() {
            bail!("--urls {spec}: no file matches");
        }
        files
    } else if path.is_file() {
        vec![path.to_owned()]
    } else {
        bail!("--urls {spec}: no such file or directory");
    };
    found.sort();
    // Absolute: DuckDB runs in a directory of its own.
    found
        .into_iter()
        .map(|p| {
            let name = p.display().to_string();
            let path = std::path::absolute(&p).with_context(|| format!("cannot resolve {name}"))?;
            Ok((path, name))
        })
        .collect()
}

/// The one format of `files`, from their names.
fn one_format(files: &[(PathBuf, String)]) -> anyhow::Result<Format> {
    // The local file's name: a download's is its URL path's last part,
    // without the query (`urls.parquet?X-Amz-Signature=...`).
    let of = |p: &Path| Format::of_name(&p.file_name().unwrap_or_default().to_string_lossy());
    let mut formats = files.iter().map(|(p, n)| (of(p), n));
    let Some((first, first_name)) = formats.next() else {
        return Ok(Format::Text);
    };
    if let Some((other, name)) = formats.find(|(f, _)| *f != first) {
        bail!(
            "--urls mixes formats ({first_name}: {}, {name}: {}); name one kind of file, or \
             say which with --urls-format",
            first.as_str(),
            other.as_str()
        );
    }
    Ok(first)
}

/// Downloads the object `url` into `work`, as ingest reads a URL (its
/// credentials, retries and secret checks).
fn download(url: &str, work: &Path) -> anyhow::Result<PathBuf> {
    let listing = crate::source::list(&Sources {
        args: &[url.to_owned()],
        secrets: Secrets::default(),
        ..Sources::default()
    })?;
    let Some(Location::Url(remote_url)) = listing.inputs.first().map(|i| i.location.clone()) else {
        bail!("--urls {url}: not a URL robostats reads");
    };
    let client = remote::Client::new(remote::Options::default())?;
    let mut download = client
        .open(&remote_url)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", remote_url.shown()))?;
    let base = remote_url
        .url()
        .path_segments()
        .and_then(|mut s| s.next_back())
        .filter(|s| !s.is_empty())
        .unwrap_or("urls");
    let safe: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = work.join(format!("download-{safe}"));
    let mut out =
        File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    std::io::copy(&mut (&mut download as &mut dyn Read), &mut out)
        .with_context(|| format!("cannot read {}", remote_url.shown()))?;
    Ok(path)
}

/// Has DuckDB read `files` (CSV, TSV or JSON lines) and write them, in
/// order, as one Parquet file in the private directory.
fn convert(
    open: &Open<'_>,
    files: &[(PathBuf, String)],
    format: Format,
) -> anyhow::Result<(PathBuf, String)> {
    let list: Vec<String> = files.iter().map(|(p, _)| sql_path(p)).collect();
    let list = format!("[{}]", list.join(", "));
    let sql = match format {
        // No Hive partitioning: a directory `dump=CC-MAIN-2024-10/` of the
        // path is not a column of the corpus.
        Format::Csv => {
            format!("SELECT * FROM read_csv({list}, header = true, hive_partitioning = false)")
        }
        Format::Tsv => format!(
            "SELECT * FROM read_csv({list}, header = true, delim = '\t', hive_partitioning = false)"
        ),
        _ => format!(
            "SELECT * FROM read_json({list}, format = 'newline_delimited', hive_partitioning = false)"
        ),
    };
    let path = open.work.join("corpus.parquet");
    let export = Export {
        path: path.clone(),
        format: ExportFormat::Parquet,
    };
    let shown: Vec<&str> = files.iter().map(|(_, n)| n.as_str()).collect();
    open.engine
        .run_one(
            open.outs,
            "judge_corpus",
            &sql,
            Some(&export),
            &Settings::default(),
        )
        .with_context(|| format!("cannot read {} as {}", shown.join(", "), format.as_str()))?;
    Ok((path, shown.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name() {
        for (name, f) in [
            ("a.parquet", Format::Parquet),
            ("a.CSV", Format::Csv),
            ("a.csv.gz", Format::Csv),
            ("a.tsv", Format::Tsv),
            ("a.jsonl.zst", Format::Jsonl),
            ("a.txt", Format::Text),
            ("urls", Format::Text),
        ] {
            assert_eq!(Format::of_name(name), f, "{name}");
        }
    }
}
