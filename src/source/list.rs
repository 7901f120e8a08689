//! The inputs of a run: the command line's files, directories and globs,
//! and the lines of a paths file (local or a URL), each identity once.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::ListError;
use super::input::{Input, Location};
use super::remote;
use super::scheme;
use super::secrets::Secrets;
use super::urls;

/// What to list: the command line's inputs and options.
#[derive(Clone, Debug, Default)]
pub struct Sources<'a> {
    /// Files, directories and globs, as given.
    pub args: &'a [String],
    /// A file listing inputs, one a line (gzip or plain text): a path or
    /// a URL.
    pub paths: Option<&'a str>,
    /// Prepended to the relative lines of `paths`: a directory or a URL.
    pub prefix: Option<&'a str>,
    /// Reads a URL (a paths file given as one); without it, URLs cannot
    /// be listed from.
    pub client: Option<&'a remote::Client>,
    /// Whether URLs holding secrets are read, and which parameters hold
    /// one.
    pub secrets: Secrets,
}

/// The inputs of a run.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// Each identity once, in the order listed.
    pub inputs: Vec<Input>,
    /// Inputs listed again under another (or the same) spelling: each with
    /// the name of the input kept in its place. They are not read twice.
    pub repeated: Vec<(Input, String)>,
}

/// Lists the inputs `sources` stand for, each identity once.
pub fn list(sources: &Sources<'_>) -> Result<Listing, ListError> {
    let mut all = Vec::new();
    for arg in sources.args {
        expand(arg, &sources.secrets, &mut all)?;
    }
    if let Some(paths) = sources.paths {
        for line in &read_lines(paths, sources.client, &sources.secrets)? {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            all.push(listed(line, sources.prefix, &sources.secrets)?);
        }
    }
    if all.is_empty() {
        // Arguments always list something or fail: only a paths file can
        // list nothing.
        return Err(match sources.paths {
            Some(paths) => ListError::EmptyPaths(sources.secrets.redacted(paths)),
            None => ListError::Nothing,
        });
    }
    let mut listing = Listing::default();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for input in all {
        if let Some(&kept) = by_id.get(&input.id) {
            urls::differ_in_secrets(&listing.inputs[kept], &input)?;
            let name = listing.inputs[kept].name.clone();
            listing.repeated.push((input, name));
            continue;
        }
        if let Some(&other) = by_name.get(&input.name) {
            return Err(ListError::SameName {
                name: input.name,
                first: listing.inputs[other].location.to_string(),
                second: input.location.to_string(),
            });
        }
        by_id.insert(input.id.clone(), listing.inputs.len());
        by_name.insert(input.name.clone(), listing.inputs.len());
        listing.inputs.push(input);
    }
    Ok(listing)
}

/// The input a line of a paths file stands for: with `prefix` (a
/// directory or a URL) before it when it is relative, named by the line.
fn listed(line: &str, prefix: Option<&str>, secrets: &Secrets) -> Result<Input, ListError> {
    if scheme::is_url(line) {
        return urls::url_input(line, secrets);
    }
    match prefix {
        Some(prefix) if scheme::is_url(prefix) => urls::prefixed_input(prefix, line, secrets),
        Some(prefix) if Path::new(line).is_relative() => Ok(Input::prefixed(
            Location::File(Path::new(prefix).join(line)),
            line,
        )),
        _ => Ok(Input::file(line, line)),
    }
}

/// The inputs one command-line argument stands for.
fn expand(arg: &str, secrets: &Secrets, out: &mut Vec<Input>) -> Result<(), ListError> {
    if arg == "-" {
        return Err(ListError::Stdin);
    }
    if scheme::is_url(arg) {
        out.push(urls::url_input(arg, secrets)?);
        return Ok(());
    }
    let path = Path::new(arg);
    if arg.contains(['*', '?', '[']) && !path.exists() {
        let matches = glob::glob(arg).map_err(|e| ListError::BadPattern {
            pattern: arg.to_owned(),
            why: e.msg.to_owned(),
        })?;
        let before = out.len();
        for found in matches {
            let found = found.map_err(|e| ListError::Read {
                path: e.path().to_path_buf(),
                source: e.into(),
            })?;
            if found.is_dir() {
                walk(&found, out)?;
            } else {
                out.push(Input::path(&found));
            }
        }
        if out.len() == before {
            return Err(ListError::NoMatch(arg.to_owned()));
        }
    } else if path.is_dir() {
        walk(path, out)?;
    } else {
        // A file, or what is not there: a missing file is an input that
        // fails (with its errors row), like one that cannot be read.
        out.push(Input::file(path, arg));
    }
    Ok(())
}

/// Whether a file name is a WARC file's, in any case (`.WARC.GZ` too).
fn is_warc(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with(".warc.gz") || name.ends_with(".warc")
}

/// The WARC files under `dir`, recursively, in a stable order.
fn walk(dir: &Path, out: &mut Vec<Input>) -> Result<(), ListError> {
    let before = out.len();
    let hidden =
        |e: &walkdir::DirEntry| e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
    let entries = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !hidden(e));
    for entry in entries {
        let entry = entry.map_err(|e| ListError::Read {
            path: e.path().unwrap_or(dir).to_path_buf(),
            source: e.into(),
        })?;
        if entry.file_type().is_file() && is_warc(&entry.file_name().to_string_lossy()) {
            out.push(Input::path(entry.path()));
        }
    }
    if out.len() == before {
        return Err(ListError::EmptyDir(dir.to_path_buf()));
    }
    Ok(())
}

/// The most lines a paths file may have: 2,000,000, twenty crawls'
/// `robotstxt.paths.gz` of about 100,000 lines (each listed input costs
/// some hundreds of bytes of memory until the run ends).
pub const MAX_PATHS_LINES: usize = 2_000_000;
/// The most text a paths file may hold, decompressed: 512 MiB (the
/// lines of [`MAX_PATHS_LINES`] at 256 bytes each; Common Crawl's are
/// about 110).
pub const MAX_PATHS_BYTES: u64 = 512 << 20;
/// The longest line of a paths file: 64 KiB (a URL is a few hundred bytes).
pub const MAX_PATHS_LINE: usize = 64 << 10;
/// The most text a gzipped paths file may hold per compressed byte, once
/// past 16 MiB: 100 (lists of paths compress about 10 to 1; a gzip bomb
/// about 1,000 to 1).
pub const MAX_PATHS_RATIO: u64 = 100;

/// Opens a paths file: a local file, or a URL through `client`.
fn open_paths(
    paths: &str,
    client: Option<&remote::Client>,
    secrets: &Secrets,
) -> Result<Box<dyn Read>, ListError> {
    if !scheme::is_url(paths) {
        let file = std::fs::File::open(paths).map_err(|source| ListError::Read {
            path: PathBuf::from(paths),
            source,
        })?;
        return Ok(Box::new(file));
    }
    let url = urls::parse_url(paths, secrets)?;
    let fetch = |source| ListError::Fetch {
        url: url.shown().to_owned(),
        source,
    };
    let Some(client) = client else {
        return Err(fetch(remote::FetchError::Setup(
            "no network client was given".to_owned(),
        )));
    };
    Ok(Box::new(client.open(&url).map_err(fetch)?))
}

/// A paths file's lines (gzip or plain), local or a URL: streamed line by
/// line, within the caps above.
fn read_lines(
    paths: &str,
    client: Option<&remote::Client>,
    secrets: &Secrets,
) -> Result<Vec<String>, ListError> {
    // A URL is named without its secrets.
    let shown = secrets.redacted(paths);
    let path = Path::new(&shown);
    let read = |source| ListError::Read {
        path: path.to_path_buf(),
        source,
    };
    let source = open_paths(paths, client, secrets)?;
    let failed = |e: std::io::Error| match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<remote::FetchError>())
    {
        Some(source) if scheme::is_url(paths) => ListError::Fetch {
            url: shown.clone(),
            source: source.clone(),
        },
        _ => read(e),
    };
    let compressed = Arc::new(AtomicU64::new(0));
    let mut input = std::io::BufReader::new(Counted(source, Arc::clone(&compressed)));
    let gzip = input.fill_buf().map_err(failed)?.starts_with(&[0x1f, 0x8b]);
    let text: Box<dyn BufRead> = if gzip {
        Box::new(std::io::BufReader::new(
            flate2::bufread::MultiGzDecoder::new(input),
        ))
    } else {
        Box::new(input)
    };
    let too_large = |why: String| read(std::io::Error::new(std::io::ErrorKind::InvalidData, why));
    let mut lines = Vec::new();
    let mut total = 0u64;
    // One line, read at most MAX_PATHS_LINE + 1 bytes at a time.
    let mut text = text.take(0);
    let mut line = Vec::new();
    loop {
        line.clear();
        text.set_limit(MAX_PATHS_LINE as u64 + 1);
        let n = text.read_until(b'\n', &mut line).map_err(failed)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if line.len() > MAX_PATHS_LINE && !line.ends_with(b"\n") {
            return Err(too_large(format!(
                "line {} is longer than {} KiB: this is not a list of paths",
                lines.len() + 1,
                MAX_PATHS_LINE >> 10
            )));
        }
        if lines.len() >= MAX_PATHS_LINES {
            return Err(too_large(format!(
                "it has more than {MAX_PATHS_LINES} lines: split it, and run once for each part"
            )));
        }
        if total > MAX_PATHS_BYTES {
            return Err(too_large(format!(
                "it holds more than {} MiB of text: split it, and run once for each part",
                MAX_PATHS_BYTES >> 20
            )));
        }
        let packed = compressed.load(Ordering::Relaxed).max(1);
        if gzip && total > 16 << 20 && total / packed > MAX_PATHS_RATIO {
            return Err(too_large(format!(
                "its gzip expands more than {MAX_PATHS_RATIO} times ({} MiB from {} KiB so \
                 far): this is not a list of paths",
                total >> 20,
                packed >> 10
            )));
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            return Err(ListError::NotText(path.to_path_buf()));
        };
        lines.push(text.trim_end_matches(['\n', '\r']).to_owned());
    }
    Ok(lines)
}

/// A reader counting the bytes read through it.
struct Counted<R>(R, Arc<AtomicU64>);

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::identity;

    struct Dir(PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("robostats-input-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn names(listing: &Listing) -> Vec<&str> {
        listing.inputs.iter().map(|i| i.name.as_str()).collect()
    }

    #[test]
    fn a_directory_stands_for_the_warc_files_under_it_in_path_order() {
        let d = temp_dir("walk");
        for f in [
            "b.warc.gz",
            "a/z.warc",
            "a/y.warc.gz",
            "a/notes.txt",
            ".hidden/x.warc.gz",
            "a/.partial.warc.gz",
            "c/d/e.warc.gz",
        ] {
            let path = d.0.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"").unwrap();
        }
        let root = d.0.to_string_lossy().into_owned();
        let listing = list(&Sources {
            args: std::slice::from_ref(&root),
            ..Sources::default()
        })
        .unwrap();
        let expected: Vec<String> = ["a/y.warc.gz", "a/z.warc", "b.warc.gz", "c/d/e.warc.gz"]
            .iter()
            .map(|f| d.0.join(f).to_string_lossy().into_owned())
            .collect();
        assert_eq!(names(&listing), expected);

        std::fs::create_dir_all(d.0.join("empty")).unwrap();
        let empty = d.0.join("empty").to_string_lossy().into_owned();
        let err = list(&Sources {
            args: &[empty],
            ..Sources::default()
        })
        .unwrap_err();
        assert!(matches!(err, ListError::EmptyDir(_)), "{err}");
    }

    #[test]
    fn one_file_under_two_spellings_is_one_input() {
        let d = temp_dir("spell");
        std::fs::create_dir_all(d.0.join("s")).unwrap();
        std::fs::write(d.0.join("s/w.warc.gz"), b"").unwrap();
        let a = d.0.join("s/w.warc.gz").to_string_lossy().into_owned();
        let b =
            d.0.join("s/./../s/w.warc.gz")
                .to_string_lossy()
                .into_owned();
        let listing = list(&Sources {
            args: &[a.clone(), b.clone(), a.clone()],
            ..Sources::default()
        })
        .unwrap();
        assert_eq!(names(&listing), [a.as_str()]);
        assert_eq!(listing.repeated.len(), 2);
        assert_eq!(listing.repeated[0].0.name, b);
        assert_eq!(listing.repeated[0].1, a);
        // A missing file still has an identity: its normalised path.
        assert_eq!(
            identity(&d.0.join("s/../gone.warc.gz")),
            d.0.join("gone.warc.gz").to_string_lossy()
        );
    }

    #[test]
    fn two_files_under_one_name_are_refused() {
        let d = temp_dir("clash");
        std::fs::create_dir_all(d.0.join("m")).unwrap();
        std::fs::write(d.0.join("paths"), "x.warc.gz\n").unwrap();
        let paths = d.0.join("paths").to_string_lossy().into_owned();
        let prefix = d.0.join("m").to_string_lossy().into_owned();
        let err = list(&Sources {
            args: &["x.warc.gz".to_owned()],
            paths: Some(&paths),
            prefix: Some(&prefix),
            ..Sources::default()
        })
        .unwrap_err();
        assert!(matches!(err, ListError::SameName { .. }), "{err}");
        assert!(err.to_string().contains("'x.warc.gz'"), "{err}");
    }

    #[test]
    fn paths_files_are_read_within_their_caps() {
        use std::io::Write;
        let d = temp_dir("caps");
        let gz = |name: &str, chunk: &[u8], times: usize| {
            let path = d.0.join(name);
            let mut z = flate2::write::GzEncoder::new(
                std::fs::File::create(&path).unwrap(),
                flate2::Compression::best(),
            );
            for _ in 0..times {
                z.write_all(chunk).unwrap();
            }
            z.finish().unwrap();
            path.to_string_lossy().into_owned()
        };
        let lines = gz("ok.gz", b"a.warc.gz\r\nb.warc.gz\n\n", 1);
        assert_eq!(
            read_lines(&lines, None, &Secrets::default()).unwrap(),
            ["a.warc.gz", "b.warc.gz", ""]
        );
        let why = |path: &str| match read_lines(path, None, &Secrets::default()) {
            Err(ListError::Read { source, .. }) => source.to_string(),
            other => panic!("{other:?}"),
        };
        let zeros = gz("zeros.gz", &[0; 1 << 16], 2);
        assert!(
            why(&zeros).contains("longer than 64 KiB"),
            "{}",
            why(&zeros)
        );
        let many = gz("many.gz", &b"\n".repeat(1 << 20), 3);
        assert!(
            why(&many).contains("more than 2000000 lines"),
            "{}",
            why(&many)
        );
        let bomb = gz("bomb.gz", &b"a.warc.gz\n".repeat(1 << 20), 2);
        assert!(
            why(&bomb).contains("expands more than 100 times"),
            "{}",
            why(&bomb)
        );
    }

    #[test]
    fn urls_are_inputs_named_as_listed() {
        let d = temp_dir("urls");
        std::fs::write(
            d.0.join("paths"),
            "crawl-data/a.warc.gz\n/crawl-data/b.warc.gz\nhttps://other.example/c.warc.gz\n",
        )
        .unwrap();
        let paths = d.0.join("paths").to_string_lossy().into_owned();
        for prefix in [
            "https://data.commoncrawl.org/",
            "https://data.commoncrawl.org",
        ] {
            let listing = list(&Sources {
                args: &["s3://commoncrawl/crawl-data/d.warc.gz".to_owned()],
                paths: Some(&paths),
                prefix: Some(prefix),
                ..Sources::default()
            })
            .unwrap();
            let located: Vec<(String, &str)> = listing
                .inputs
                .iter()
                .map(|i| (i.location.to_string(), i.name.as_str()))
                .collect();
            assert_eq!(
                located,
                [
                    (
                        "s3://commoncrawl/crawl-data/d.warc.gz".to_owned(),
                        "s3://commoncrawl/crawl-data/d.warc.gz"
                    ),
                    (
                        "https://data.commoncrawl.org/crawl-data/a.warc.gz".to_owned(),
                        "crawl-data/a.warc.gz"
                    ),
                    (
                        "https://data.commoncrawl.org/crawl-data/b.warc.gz".to_owned(),
                        "/crawl-data/b.warc.gz"
                    ),
                    (
                        "https://other.example/c.warc.gz".to_owned(),
                        "https://other.example/c.warc.gz"
                    ),
                ]
            );
            assert!(
                listing
                    .inputs
                    .iter()
                    .all(|i| i.is_remote() && i.size().is_none())
            );
        }
    }

    #[test]
    fn one_object_under_two_spellings_is_read_once() {
        let listing = list(&Sources {
            args: &[
                "https://data.commoncrawl.org/x/../a.warc.gz".to_owned(),
                "HTTPS://DATA.commoncrawl.org/a.warc.gz".to_owned(),
            ],
            ..Sources::default()
        })
        .unwrap();
        assert_eq!(listing.inputs.len(), 1);
        assert_eq!(
            listing.inputs[0].id,
            "https://data.commoncrawl.org/a.warc.gz"
        );
    }

    #[test]
    fn bad_urls_are_refused_without_their_secrets() {
        for bad in [
            "s3:///key.warc.gz",
            "s3://bucket/",
            "s3://bucket/key?versionId=3",
            "https://user:s3cr3t@example.com/a.warc.gz",
            "https://b.s3.amazonaws.com/a.warc.gz?X-Amz-Credential=AKIA&X-Amz-Signature=f00",
            "https://storage.googleapis.com/b/a.warc.gz?X-Goog-Credential=x&X-Goog-Signature=s3cr3t",
            "https://storage.googleapis.com/b/a.warc.gz?GoogleAccessId=x&Signature=s3cr3t",
            "https://a.blob.core.windows.net/c/a.warc.gz?sv=2022-11-02&se=2030-01-01&sig=s3cr3t",
            "https://user:s3cr3t@[::1/a.warc.gz",
            "http://user:s3cr3t@exa mple.org/a.warc.gz",
        ] {
            let err = list(&Sources {
                args: &[bad.to_owned()],
                ..Sources::default()
            })
            .unwrap_err();
            assert!(
                matches!(err, ListError::BadUrl { .. } | ListError::Secret { .. }),
                "{err}"
            );
            assert!(!err.to_string().contains("s3cr3t"), "{err}");
        }
    }

    #[test]
    fn a_paths_file_given_as_a_url_needs_a_client() {
        let err = list(&Sources {
            paths: Some("https://data.commoncrawl.org/paths.gz"),
            ..Sources::default()
        })
        .unwrap_err();
        assert!(matches!(err, ListError::Fetch { .. }), "{err}");
    }

    #[test]
    fn names_that_are_not_utf8_keep_every_byte() {
        use std::os::unix::ffi::OsStrExt;
        let a = Path::new(std::ffi::OsStr::from_bytes(b"/d/b\xff.warc.gz"));
        let b = Path::new(std::ffi::OsStr::from_bytes(b"/d/b\xfe.warc.gz"));
        assert_eq!(identity(a), "bytes:/d/b\\xff.warc.gz");
        assert_ne!(identity(a), identity(b));
        // A UTF-8 name that reads like an escape is another identity.
        assert_ne!(identity(a), identity(Path::new("/d/b\\xff.warc.gz")));
        assert_eq!(Input::path(a).name, "/d/b\\xff.warc.gz");
        assert_eq!(Input::path("/d/é.warc.gz").name, "/d/é.warc.gz");
    }

    #[test]
    fn a_prefixed_line_is_identified_by_the_line() {
        let http = listed(
            "crawl/a.warc.gz",
            Some("https://data.example.org/"),
            &Secrets::default(),
        )
        .unwrap();
        let s3 = listed("crawl/a.warc.gz", Some("s3://bucket/"), &Secrets::default()).unwrap();
        let local = listed("crawl/a.warc.gz", Some("/mirror"), &Secrets::default()).unwrap();
        assert_eq!(http.id, "crawl/a.warc.gz");
        assert_eq!(
            (s3.id.as_str(), local.id.as_str()),
            (http.id.as_str(), http.id.as_str())
        );
        assert!(http.prefixed && s3.prefixed && local.prefixed);
        assert_ne!(http.location, s3.location);
    }

    #[test]
    fn standard_input_is_refused() {
        let err = list(&Sources {
            args: &["-".to_owned()],
            ..Sources::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("standard input"), "{err}");
    }
}
