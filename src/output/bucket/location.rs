//! `s3://bucket/prefix/`: a data set's place in a bucket.

/// A bucket and a prefix (no leading or trailing `/`; may be empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Location {
    /// The bucket.
    pub bucket: String,
    /// The prefix the data set's keys start with.
    pub prefix: String,
}

impl S3Location {
    /// Reads `s3://bucket/prefix/`, or says why it is not one. The bucket
    /// is named as S3 names buckets (lower-case letters, digits, `.` and
    /// `-`); the prefix is made of letters, digits and `-_.=/`, with no
    /// empty, `.` or `..` part, so that every key robostats writes is one
    /// it can name in a message and in DuckDB's globs as it is.
    pub fn parse(text: &str) -> Result<S3Location, String> {
        let Some(rest) = text.strip_prefix("s3://") else {
            return Err(format!("'{text}' is not an s3://bucket/prefix/ URL"));
        };
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
        if !bucket_ok {
            return Err(format!(
                "'{bucket}' is not a bucket name (3 to 63 lower-case letters, digits, '.' and \
                 '-'): give --out s3://BUCKET/PREFIX/"
            ));
        }
        let prefix = prefix.trim_end_matches('/');
        let part_ok = |p: &str| {
            !p.is_empty()
                && p != "."
                && p != ".."
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.=".contains(&b))
        };
        if !prefix.is_empty() && !prefix.split('/').all(part_ok) {
            return Err(format!(
                "the prefix '{prefix}' of an s3:// data set is made of letters, digits and \
                 '-_.=', in parts separated by single '/' (no '.' or '..' part)"
            ));
        }
        Ok(S3Location {
            bucket: bucket.to_owned(),
            prefix: prefix.to_owned(),
        })
    }

    /// A name for local directories of this data set (staging, compact's
    /// copy): the bucket and the prefix's parts joined by `~`, which
    /// neither may hold, so no two data sets share one.
    pub fn local_name(&self) -> String {
        format!("{}~{}", self.bucket, self.prefix.replace('/', "~"))
    }

    /// `s3://bucket/prefix/`.
    pub fn url(&self) -> String {
        if self.prefix.is_empty() {
            format!("s3://{}/", self.bucket)
        } else {
            format!("s3://{}/{}/", self.bucket, self.prefix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_prefixes_are_read_or_refused() {
        let ok = |t: &str| S3Location::parse(t).unwrap();
        assert_eq!(ok("s3://results/cc/2025/").prefix, "cc/2025");
        assert_eq!(ok("s3://results/cc").prefix, "cc");
        assert_eq!(ok("s3://results").prefix, "");
        assert_eq!(
            ok("s3://my.results/crawl=CC-MAIN-2025-05/").url(),
            "s3://my.results/crawl=CC-MAIN-2025-05/"
        );
        for bad in [
            "s3://Results/x",
            "s3://r/x//y",
            "s3://res/../x",
            "s3://res/x y",
            "s3://res/x?y",
            "s3://ab/x",
            "gs://res/x",
            "s3://res/x/%2e%2e",
        ] {
            assert!(S3Location::parse(bad).is_err(), "{bad}");
        }
    }
}
