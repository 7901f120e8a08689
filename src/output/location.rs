//! Where a data set lives: a local directory (or one on a file system
//! every node shares). A path that reads as a URL of a store (`s3://`,
//! `gs://`, `hf://`, `https://`, or `s3:bucket`) is refused rather than
//! made into a local directory named after its scheme, which is what
//! `--out s3://bucket/prefix/` would otherwise do.

use std::path::Path;

/// The scheme `dir` reads as, when it reads as a URL: the text before
/// its first `:`, if that is a scheme name (a letter, then letters,
/// digits, `+`, `-` or `.`) of at least two characters (one is a Windows
/// drive, `C:`). `./s3:x` and `/data/s3:x` are paths.
pub fn url_scheme(dir: &Path) -> Option<&str> {
    let text = dir.to_str()?;
    let (scheme, _) = text.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (scheme.len() >= 2
        && first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_stores_are_told_from_paths() {
        for (text, scheme) in [
            ("s3://results/cc/", Some("s3")),
            ("S3://results", Some("S3")),
            ("s3:results", Some("s3")),
            ("gs://bucket/x", Some("gs")),
            ("az://container/x", Some("az")),
            ("hf://datasets/me/cc", Some("hf")),
            ("https://example.com/out", Some("https")),
            ("file:///tmp/out", Some("file")),
            ("out", None),
            ("./s3://results", None),
            ("/data/s3:x", None),
            ("C:\\out", None),
            ("data 2025:x", None),
            ("", None),
        ] {
            assert_eq!(url_scheme(Path::new(text)), scheme, "{text}");
        }
    }
}
