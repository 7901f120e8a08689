//! Where a data set lives, parsed once where a user names it (`--out`,
//! `compact`, `report`, `query`, `judge --data-set`, the Python package's
//! `connect`): a local directory (or one on a file system every node
//! shares), or a prefix of an S3 bucket. Only [`Location::parse`] tells
//! the two apart. A path that reads as the URL of another store (`gs://`,
//! `hf://`, `https://`, or `s3:bucket`) stays a directory here and is
//! refused where the directory is opened (`refuse_url`), rather than made
//! into a local directory named after its scheme.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::bucket::S3Location;
use super::dataset::{Dataset, OutputError, S3Out, url_scheme};

/// Where a data set is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A directory.
    Dir(PathBuf),
    /// `s3://bucket/prefix/`.
    S3(S3Location),
}

impl Location {
    /// The data set a user names: `s3://bucket/prefix/` (any case of the
    /// scheme), else a directory.
    pub fn parse(text: &OsStr) -> Result<Location, String> {
        let path = Path::new(text);
        match (url_scheme(path), text.to_str()) {
            (Some(scheme), Some(url))
                if scheme.eq_ignore_ascii_case("s3") && url[2..].starts_with("://") =>
            {
                let url = format!("s3{}", &url[scheme.len()..]);
                S3Location::parse(&url).map(Location::S3)
            }
            _ => Ok(Location::Dir(path.to_path_buf())),
        }
    }

    /// The data set as messages name it: the directory, or its URL.
    pub fn name(&self) -> String {
        match self {
            Location::Dir(dir) => dir.display().to_string(),
            Location::S3(s3) => s3.url(),
        }
    }

    /// Opens the data set for reading, as `report`, `query`, `judge` and
    /// the Python package read it: a directory checked to hold a data set;
    /// on S3, reached as ingest reaches it (the AWS chains), its manifest
    /// and captures listed, and DuckDB's secret that reads it there.
    pub fn open_read(&self) -> Result<robostats_report::engine::Out, OutputError> {
        use robostats_report::engine::{Out, Secret};
        match self {
            Location::Dir(dir) => {
                Dataset::open_read(dir)?;
                Ok(Out::Dir(dir.clone()))
            }
            Location::S3(s3) => {
                let read = S3Out::from_environment(s3.clone()).open_read()?;
                Ok(Out::S3 {
                    url: read.url,
                    secret: Secret(read.secret.into_pairs()),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_a_directory_or_an_s3_prefix() {
        let parse = |t: &str| Location::parse(OsStr::new(t));
        let s3 = |t: &str| match parse(t).unwrap() {
            Location::S3(s3) => s3.url(),
            other => panic!("{t}: {other:?}"),
        };
        assert_eq!(s3("s3://results/cc/2025/"), "s3://results/cc/2025/");
        assert_eq!(s3("S3://results/cc"), "s3://results/cc/");
        assert!(parse("s3://Results/").unwrap_err().contains("bucket name"));
        for dir in [
            "out",
            "./s3://results",
            "/data/s3:x",
            "gs://bucket/x",
            "s3:results",
            "",
        ] {
            assert_eq!(
                parse(dir).unwrap(),
                Location::Dir(PathBuf::from(dir)),
                "{dir}"
            );
            assert_eq!(parse(dir).unwrap().name(), dir);
        }
        assert_eq!(
            Location::S3(S3Location::parse("s3://a-b/").unwrap()).name(),
            "s3://a-b/"
        );
    }
}
