//! Why a run's inputs could not be listed.

use std::fmt;
use std::path::PathBuf;

use super::{remote, secrets};

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
    /// A paths file that lists no input (only blank and `#` lines).
    EmptyPaths(String),
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
    /// A paths file given as a URL that cannot be read.
    Fetch {
        /// The URL.
        url: String,
        /// Why.
        source: remote::FetchError,
    },
    /// A URL that is not one robostats reads.
    BadUrl {
        /// As given.
        text: String,
        /// Why.
        why: String,
    },
    /// A URL holding a secret, which is not to be read.
    Secret {
        /// The URL, its secrets redacted.
        url: String,
        /// What holds a secret, in words.
        what: String,
    },
    /// One URL listed twice, with different secrets.
    SecretsDiffer {
        /// Its name, its secrets redacted.
        name: String,
    },
    /// A paths file that is neither gzip nor UTF-8 text.
    NotText(PathBuf),
    /// Two different files with one name: their rows could not be told
    /// apart.
    SameName {
        /// The name.
        name: String,
        /// The first file's location.
        first: String,
        /// The second file's location.
        second: String,
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
            ListError::EmptyPaths(paths) => write!(
                f,
                "no inputs: the paths file '{paths}' lists none (only blank lines and \
                 comments); it lists one WARC file or URL a line"
            ),
            ListError::NoMatch(pattern) => write!(f, "no file matches '{pattern}'"),
            ListError::EmptyDir(dir) => write!(
                f,
                "no .warc.gz or .warc file under the directory '{}'",
                dir.display()
            ),
            ListError::Read { path, .. } => write!(f, "cannot read '{}'", path.display()),
            ListError::Fetch { url, .. } => write!(f, "cannot read '{url}'"),
            ListError::BadUrl { text, why } => write!(f, "'{text}' is not a URL to read: {why}"),
            ListError::Secret { url, what } => write!(
                f,
                "'{url}' holds a secret ({what}), which would be written into the tables, the \
                 manifest and the messages: to read it all the same, give --allow-url-secrets \
                 (the secret then goes to its server alone, and {} stands for it everywhere \
                 else); a query parameter that holds no secret (one naming the object) is given \
                 with --url-safe-param NAME; S3 objects are read as s3://BUCKET/KEY, with \
                 credentials",
                secrets::REDACTED
            ),
            ListError::SecretsDiffer { name } => write!(
                f,
                "'{name}' is listed twice with different secrets: a secret is no part of what \
                 identifies an input, so they are one input; list it once (if a parameter \
                 taken for a secret names the object instead, these URLs cannot be read)"
            ),
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
                "two files are listed as '{name}' ('{first}' and '{second}'): their rows could not be \
                 told apart (the name is their warc_filename); ingest them into separate \
                 output directories"
            ),
        }
    }
}

impl std::error::Error for ListError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ListError::Read { source, .. } => Some(source),
            ListError::Fetch { source, .. } => Some(source),
            _ => None,
        }
    }
}
