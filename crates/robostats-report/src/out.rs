//! The data sets the report reads, as DuckDB is to reach them: a
//! directory, or a prefix on S3 with the secret that reaches it. The
//! engine runs the queries over them; `links` names the directories.

use std::fmt;
use std::path::PathBuf;

/// A data set the report reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Out {
    /// An output directory of `robostats ingest`.
    Dir(PathBuf),
    /// A data set on S3, read through DuckDB's httpfs extension.
    S3 {
        /// `s3://bucket/prefix`, without a trailing `/`.
        url: String,
        /// DuckDB's S3 secret for it.
        secret: Secret,
    },
}

impl Out {
    /// The data set as the user named it.
    pub fn name(&self) -> String {
        match self {
            Out::Dir(dir) => dir.display().to_string(),
            Out::S3 { url, .. } => url.clone(),
        }
    }
}

/// The parameters of a DuckDB S3 secret (`CREATE SECRET (TYPE s3, ...)`)
/// by name: credentials, handed to the bridge on its standard input and
/// to nothing else (`Debug` names the parameters only).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub Vec<(String, String)>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

/// The characters DuckDB's file readers take for a pattern in a path.
pub const PATTERN_CHARS: [char; 3] = ['*', '?', '['];

/// `path` as a DuckDB file pattern that matches only itself: `[*]`,
/// `[?]`, `[[]`. The bridge's `glob_text` does the same in Python.
///
/// ```
/// use robostats_report::engine::literal_pattern;
/// assert_eq!(literal_pattern("/a[1]/b*?c.csv"), "/a[[]1]/b[*][?]c.csv");
/// ```
pub fn literal_pattern(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if PATTERN_CHARS.contains(&c) {
            out.extend(['[', c, ']']);
        } else {
            out.push(c);
        }
    }
    out
}
