//! The data sets as the report's DuckDB reads them: through symbolic
//! links of plain names, so that no character of a directory's name is
//! read as a pattern.
//!
//! DuckDB reads every path it is given as a glob pattern, in a list or
//! alone, a file's path too (DuckDB 2.0 and 1.5): `*`, `?` and `[...]`
//! match other names (`d[12]` reads `d1` and `d2`, `d?` and `d*` their
//! siblings), and a pattern is split at backslashes as well as slashes,
//! so a directory whose path holds a backslash is not found by
//! `DIR/captures/*.parquet` and cannot be escaped (`[*]` escapes a `*`,
//! but `[\]` matches nothing). `{`, `}`, `,` and `]` alone are plain. So
//! the report reads `data-set-0/captures/*.parquet`, ... from a private
//! directory of links to the data sets: the globs of `queries/tables.sql`,
//! and no name of the user's in them. A data set on S3 is read by its
//! URL (`s3://bucket/prefix`, whose characters `S3Location` limits to
//! plain ones).

use std::io;
use std::path::{Path, PathBuf};

use crate::out::Out;

/// A private directory of links to the data sets, removed when dropped.
#[derive(Debug)]
pub struct Links {
    /// The directory (`None` where there are no symbolic links: the
    /// data sets are then read by their own paths).
    dir: Option<PathBuf>,
    /// What DuckDB reads for each data set, from `dir`.
    outs: Vec<String>,
    /// Each data set as the user named it.
    names: Vec<String>,
    /// The links made in `dir`.
    made: Vec<String>,
}

impl Links {
    /// Links to the directories of `outs`, in a new directory of the
    /// system's temporary directory that only the user can enter.
    #[cfg(unix)]
    pub fn new(outs: &[Out]) -> io::Result<Links> {
        use std::os::unix::fs::DirBuilderExt;
        let temp = std::env::temp_dir();
        let mut attempt = 0;
        let dir = loop {
            let dir = temp.join(format!(
                "robostats-report-{}-{:08x}",
                std::process::id(),
                fastrand::u32(..)
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))),
            }
        };
        let mut links = Links {
            dir: Some(dir),
            outs: Vec::new(),
            names: outs.iter().map(Out::name).collect(),
            made: Vec::new(),
        };
        for (i, out) in outs.iter().enumerate() {
            let out = match out {
                Out::Dir(dir) => dir,
                Out::S3 { url, .. } => {
                    links.outs.push(url.clone());
                    continue;
                }
            };
            let name = format!("data-set-{i}");
            let target = std::fs::canonicalize(out)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out.display())))?;
            std::os::unix::fs::symlink(&target, links.path(&name))?;
            links.made.push(name.clone());
            links.outs.push(name);
        }
        Ok(links)
    }

    /// The data sets by their own paths (no symbolic links here).
    #[cfg(not(unix))]
    pub fn new(outs: &[Out]) -> io::Result<Links> {
        let names: Vec<String> = outs.iter().map(Out::name).collect();
        Ok(Links {
            dir: None,
            outs: names.clone(),
            names,
            made: Vec::new(),
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.as_deref().unwrap_or(Path::new(".")).join(name)
    }

    /// The directory DuckDB reads [`Links::outs`] from.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Each data set as DuckDB reads it, from [`Links::dir`]: a plain
    /// relative name.
    pub fn outs(&self) -> &[String] {
        &self.outs
    }

    /// Each data set as the user named it.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Drop for Links {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            for name in &self.made {
                let _ = std::fs::remove_file(dir.join(name));
            }
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_reach_the_data_sets_and_go_when_dropped() {
        let root = std::env::temp_dir().join(format!("robostats-links-{}", std::process::id()));
        let odd = root.join("a*?[b]{c} \\'d");
        std::fs::create_dir_all(odd.join("captures")).unwrap();
        let s3 = Out::S3 {
            url: "s3://b/p".to_owned(),
            secret: crate::out::Secret(Vec::new()),
        };
        let links = Links::new(&[Out::Dir(odd.clone()), s3, Out::Dir(root.clone())]).unwrap();
        let dir = links.dir().unwrap().to_owned();
        assert_eq!(links.outs(), ["data-set-0", "s3://b/p", "data-set-2"]);
        assert_eq!(
            links.names(),
            [
                odd.display().to_string(),
                "s3://b/p".to_owned(),
                root.display().to_string()
            ]
        );
        assert!(dir.join("data-set-0/captures").is_dir());
        assert!(
            dir.join("data-set-2")
                .join(odd.file_name().unwrap())
                .is_dir()
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        drop(links);
        assert!(!dir.exists());
        assert!(odd.join("captures").is_dir());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
