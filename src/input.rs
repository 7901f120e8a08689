//! What an input is, and the list of inputs a run is given.
//!
//! An input has three names:
//!
//! - its **path**: where it is read (with `--prefix`, the prefixed path);
//! - its **name**: the path as listed (on the command line, or the line of
//!   a paths file), which is its `warc_filename` in every table, so that
//!   the tables join with Common Crawl's index;
//! - its **identity**: the file itself, whatever the spelling. For a local
//!   file this is its resolved absolute path (symbolic links followed,
//!   `.` and `..` removed; for a file that does not exist, the absolute
//!   path with `.` and `..` removed). A run reads each identity once, and
//!   a re-run skips the identities an earlier run finished.
//!
//! [`list`] expands what a user gives: a directory stands for the
//! `.warc.gz` and `.warc` files under it (recursively; hidden files and
//! directories skipped; in the order of their paths, each directory's
//! entries sorted by name), a quoted glob for the files it matches, and a
//! paths file for its lines.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Where to read it.
    pub path: PathBuf,
    /// Its `warc_filename` in every table: the path as listed.
    pub name: String,
    /// What identifies it: see the [module documentation](self).
    pub id: String,
}

impl Input {
    /// A local file read from `path` and named `name` in the tables.
    pub fn file(path: impl Into<PathBuf>, name: impl Into<String>) -> Input {
        let path = path.into();
        Input {
            id: identity(&path),
            path,
            name: name.into(),
        }
    }

    /// A local file named by its path as given.
    pub fn path(path: impl AsRef<Path>) -> Input {
        let path = path.as_ref();
        Input::file(path, path.to_string_lossy().into_owned())
    }
}

/// The identity of the local file `path`: its resolved absolute path, or
/// where it cannot be resolved (it does not exist), its absolute path with
/// `.` and `..` removed.
pub fn identity(path: &Path) -> String {
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let mut out = PathBuf::new();
        for part in absolute.components() {
            match part {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    });
    resolved.to_string_lossy().into_owned()
}

/// What to list: the command line's inputs and options.
#[derive(Clone, Debug, Default)]
pub struct Sources<'a> {
    /// Files, directories and globs, as given.
    pub args: &'a [String],
    /// A file listing inputs, one a line (gzip or plain text).
    pub paths: Option<&'a Path>,
    /// Prepended to the relative lines of `paths`.
    pub prefix: Option<&'a Path>,
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

/// Why the inputs could not be listed.
#[derive(Debug)]
pub enum ListError {
    /// Nothing to read was given.
    Nothing,
    /// `-` was given: `ingest` reads files.
    Stdin,
    /// A glob pattern that does not parse.
    BadPattern {
        /// The pattern.
        pattern: String,
        /// Why.
        why: String,
    },
    /// A glob that matches no file.
    NoMatch(String),
    /// A directory without any WARC file under it.
    EmptyDir(PathBuf),
    /// A directory or paths file that cannot be read.
    Read {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A paths file that is neither gzip nor UTF-8 text.
    NotText(PathBuf),
    /// Two different files with one name: their rows could not be told
    /// apart.
    SameName {
        /// The name.
        name: String,
        /// The first file's path.
        first: PathBuf,
        /// The second file's path.
        second: PathBuf,
    },
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListError::Nothing => {
                f.write_str("no inputs: give WARC files or directories, or --paths FILE")
            }
            ListError::Stdin => f.write_str(
                "ingest reads WARC files, not standard input ('-'): save the stream to a \
                 file and give its path",
            ),
            ListError::BadPattern { pattern, why } => write!(f, "bad pattern '{pattern}': {why}"),
            ListError::NoMatch(pattern) => write!(f, "no file matches '{pattern}'"),
            ListError::EmptyDir(dir) => write!(
                f,
                "no .warc.gz or .warc file under the directory '{}'",
                dir.display()
            ),
            ListError::Read { path, .. } => write!(f, "cannot read '{}'", path.display()),
            ListError::NotText(path) => write!(
                f,
                "'{}' is not a paths file (neither gzip nor UTF-8 text)",
                path.display()
            ),
            ListError::SameName {
                name,
                first,
                second,
            } => write!(
                f,
                "two files are listed as '{name}' ('{}' and '{}'): their rows could not be \
                 told apart (the name is their warc_filename); ingest them into separate \
                 output directories",
                first.display(),
                second.display()
            ),
        }
    }
}

impl std::error::Error for ListError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ListError::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Lists the inputs `sources` stand for, each identity once.
pub fn list(sources: &Sources<'_>) -> Result<Listing, ListError> {
    let mut all = Vec::new();
    for arg in sources.args {
        expand(arg, &mut all)?;
    }
    if let Some(paths) = sources.paths {
        for line in read_lines(paths)?.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let path = match sources.prefix {
                Some(prefix) if Path::new(line).is_relative() => prefix.join(line),
                _ => PathBuf::from(line),
            };
            all.push(Input::file(path, line));
        }
    }
    if all.is_empty() {
        return Err(ListError::Nothing);
    }
    let mut listing = Listing::default();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for input in all {
        if let Some(&kept) = by_id.get(&input.id) {
            let name = listing.inputs[kept].name.clone();
            listing.repeated.push((input, name));
            continue;
        }
        if let Some(&other) = by_name.get(&input.name) {
            return Err(ListError::SameName {
                name: input.name,
                first: listing.inputs[other].path.clone(),
                second: input.path,
            });
        }
        by_id.insert(input.id.clone(), listing.inputs.len());
        by_name.insert(input.name.clone(), listing.inputs.len());
        listing.inputs.push(input);
    }
    Ok(listing)
}

/// The inputs one command-line argument stands for.
fn expand(arg: &str, out: &mut Vec<Input>) -> Result<(), ListError> {
    if arg == "-" {
        return Err(ListError::Stdin);
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

/// Whether a file name is a WARC file's.
fn is_warc(name: &str) -> bool {
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

/// A paths file's text (gzip or plain).
fn read_lines(path: &Path) -> Result<String, ListError> {
    let read = |source| ListError::Read {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::read(path).map_err(read)?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .map_err(read)?;
        Ok(text)
    } else {
        String::from_utf8(bytes).map_err(|_| ListError::NotText(path.to_path_buf()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let err = list(&Sources {
            args: &["x.warc.gz".to_owned()],
            paths: Some(&d.0.join("paths")),
            prefix: Some(&d.0.join("m")),
        })
        .unwrap_err();
        assert!(matches!(err, ListError::SameName { .. }), "{err}");
        assert!(err.to_string().contains("'x.warc.gz'"), "{err}");
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
