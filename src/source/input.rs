//! One input: where it is read, its names, its identity, and how it is
//! opened (a local file directly, a URL through the run's transfers).

use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::remote;
use super::secrets::RemoteUrl;

/// Where an input is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A local file.
    File(PathBuf),
    /// An `http://`, `https://` or `s3://` URL (shown without its
    /// secrets).
    Url(RemoteUrl),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Url(url) => write!(f, "{url}"),
        }
    }
}

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Where to read it.
    pub location: Location,
    /// Its `warc_filename` in every table: the path as listed.
    pub name: String,
    /// What identifies it: see the [module documentation](crate::source).
    pub id: String,
    /// It is a paths file's line read under `--prefix`: its identity is
    /// the line, whatever mirror serves it.
    pub prefixed: bool,
}

impl Input {
    /// A local file read from `path` and named `name` in the tables.
    pub fn file(path: impl Into<PathBuf>, name: impl Into<String>) -> Input {
        let path = path.into();
        Input {
            id: identity(&path),
            location: Location::File(path),
            name: name.into(),
            prefixed: false,
        }
    }

    /// A local file named by its path as given (bytes that are not UTF-8
    /// written `\xNN`, so that two such names stay two names).
    pub fn path(path: impl AsRef<Path>) -> Input {
        let path = path.as_ref();
        Input::file(path, lossless(path.as_os_str()))
    }

    /// A URL read and named `name` in the tables; identified by its form
    /// shown (its secrets, if any, redacted).
    pub fn url(url: RemoteUrl, name: impl Into<String>) -> Input {
        Input {
            id: url.shown().to_owned(),
            location: Location::Url(url),
            name: name.into(),
            prefixed: false,
        }
    }

    /// The input a paths file's `line` stands for under `--prefix`, read
    /// at `location`: identified by the line, so that the same line read
    /// through another mirror later is the same input.
    pub(super) fn prefixed(location: Location, line: &str) -> Input {
        Input {
            id: line.to_owned(),
            location,
            name: line.to_owned(),
            prefixed: true,
        }
    }

    /// The input's size, where it is known before it is opened (a local
    /// file's; a URL's is known once its transfer starts).
    pub fn size(&self) -> Option<u64> {
        match &self.location {
            Location::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
            Location::Url(_) => None,
        }
    }

    /// Whether it is read over the network.
    pub fn is_remote(&self) -> bool {
        matches!(self.location, Location::Url(_))
    }
}

/// The identity of the local file `path`: its resolved absolute path, or
/// where it cannot be resolved (it does not exist), its absolute path with
/// `.` and `..` removed.
///
/// Every byte of the path is kept: a path that is not UTF-8 is written
/// `bytes:` then its bytes, those that are not UTF-8 as `\xNN` (and `\` as
/// `\\`), so that two files never share an identity.
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
    match resolved.to_str() {
        Some(text) => text.to_owned(),
        None => {
            let bytes = resolved.as_os_str().as_encoded_bytes();
            let mut id = String::from("bytes:");
            for chunk in bytes.utf8_chunks() {
                id.push_str(&chunk.valid().replace('\\', "\\\\"));
                for b in chunk.invalid() {
                    id.push_str(&format!("\\x{b:02x}"));
                }
            }
            id
        }
    }
}

/// A name for display and for `warc_filename`: the text itself when it is
/// UTF-8, else its UTF-8 parts with every other byte written `\xNN`.
pub fn lossless(name: &std::ffi::OsStr) -> String {
    match name.to_str() {
        Some(text) => text.to_owned(),
        None => {
            let mut out = String::new();
            for chunk in name.as_encoded_bytes().utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out
        }
    }
}

/// An opened input: its bytes, and its size when known.
pub struct Opened {
    /// The bytes.
    pub reader: Box<dyn Read + Send>,
    /// The size, when known at opening (a URL's, from its answer).
    pub size: Option<u64>,
}

/// Opens the input `input`: a local file directly, a URL through the
/// run's transfers (`prefetch`, keyed by the input's position `key`). A
/// failure is an error of stage `open` that keeps the cause as its source.
pub fn open(
    input: &Input,
    key: usize,
    prefetch: Option<&remote::Prefetch>,
) -> Result<Opened, crate::warc::Error> {
    let open_error =
        |e: std::io::Error| crate::warc::Error::io(crate::warc::Stage::Open, &input.name, None, e);
    match &input.location {
        Location::File(path) => Ok(Opened {
            reader: Box::new(crate::warc::open(path, &input.name)?),
            size: None,
        }),
        Location::Url(_) => {
            let Some(prefetch) = prefetch else {
                return Err(open_error(std::io::Error::other(
                    "a URL is read through the run's network client, and there is none",
                )));
            };
            let stream = prefetch.open(key).map_err(|e| open_error(e.into_io()))?;
            Ok(Opened {
                size: stream.size(),
                reader: Box::new(stream),
            })
        }
    }
}
