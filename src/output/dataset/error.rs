//! Output errors: what could not be done, to which file, and why.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use parquet::errors::ParquetError;

/// An operation on the output directory.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Creating a directory.
    CreateDir,
    /// Listing a directory.
    ListDir,
    /// Syncing a directory (making renames in it durable).
    SyncDir,
    /// Creating a part file under its temporary name.
    CreatePart,
    /// Writing rows to a part file.
    WritePart,
    /// Writing a part file's footer and syncing it.
    FinishPart,
    /// Giving a finished part file its final name.
    PublishPart,
    /// Reading a part file (compact).
    ReadPart,
    /// Deleting a file an interrupted run left.
    RemoveLeftover,
    /// Linking or copying a file into a staging directory (compact).
    StageFile,
    /// Swapping a table's directory for its compacted copy.
    SwapDir,
    /// Deleting a directory.
    RemoveDir,
    /// Reading the manifest.
    ReadManifest,
    /// Appending to the manifest.
    WriteManifest,
    /// Taking a lock on the output directory.
    Lock,
}

impl Op {
    /// The operation in words, as in "cannot {op} {path}".
    pub fn as_str(self) -> &'static str {
        match self {
            Op::CreateDir => "create the directory",
            Op::ListDir => "list the directory",
            Op::SyncDir => "sync the directory",
            Op::CreatePart => "create the part file",
            Op::WritePart => "write to the part file",
            Op::FinishPart => "finish the part file",
            Op::PublishPart => "rename the finished part file to",
            Op::ReadPart => "read the part file",
            Op::RemoveLeftover => "remove the leftover file",
            Op::StageFile => "stage the file",
            Op::SwapDir => "swap in the compacted directory",
            Op::RemoveDir => "remove the directory",
            Op::ReadManifest => "read the manifest",
            Op::WriteManifest => "write the manifest",
            Op::Lock => "lock",
        }
    }
}

/// A failure of the output half: the run stops, and says where.
#[non_exhaustive]
#[derive(Debug)]
pub enum OutputError {
    /// An operation on a file or directory failed.
    Io {
        /// What was being done.
        op: Op,
        /// To which file or directory.
        path: PathBuf,
        /// Why it failed.
        source: io::Error,
    },
    /// Parquet could not encode or decode a part file.
    Parquet {
        /// What was being done.
        op: Op,
        /// To which file.
        path: PathBuf,
        /// Why it failed.
        source: ParquetError,
    },
    /// The directory holds files that are not an output's, and it is not
    /// one.
    OtherFiles {
        /// The directory.
        dir: PathBuf,
        /// Some of its entries.
        examples: Vec<String>,
    },
    /// The directory's name reads as a URL (`s3://bucket/`): data sets
    /// are local directories.
    NotLocal {
        /// The name given.
        dir: PathBuf,
        /// Its scheme.
        scheme: String,
    },
    /// The directory does not exist.
    Missing {
        /// The directory.
        dir: PathBuf,
    },
    /// The directory is an output of an earlier version, whose tables
    /// differ (a dense `agent_verdicts` table, no `verdict_counts` table):
    /// rows of both would not make one data set.
    OlderFormat {
        /// The directory.
        dir: PathBuf,
        /// How its tables differ, in words.
        missing: &'static str,
    },
    /// The directory is not an output of `ingest` (it has no manifest).
    NotADataset {
        /// The directory.
        dir: PathBuf,
    },
    /// A table's directory is missing: an earlier version wrote fewer
    /// tables, or the first ingest into the directory has only begun.
    NoTable {
        /// The directory.
        dir: PathBuf,
        /// The table.
        table: &'static str,
    },
    /// A part file is still being written, or an interrupted run left it.
    Unfinished {
        /// The file.
        path: PathBuf,
    },
    /// Two part files of one table have different columns.
    OtherSchema {
        /// The file that differs.
        path: PathBuf,
        /// The file it was compared with.
        first: PathBuf,
    },
    /// Another process holds a lock this one needs.
    Locked {
        /// The lock file.
        path: PathBuf,
        /// Who holds it, as it wrote into the file.
        holder: String,
        /// What wanted it (`ingest (run)`, `compact`).
        wanted_by: String,
    },
    /// A directory or file of the output directory is a symbolic link (or
    /// not a regular file or directory): robostats writes only inside the
    /// output directory.
    Linked {
        /// The link.
        path: PathBuf,
    },
    /// The worker threads could not be started.
    Threads(String),
    /// A data set on S3 could not be written, read or claimed (the key,
    /// the status and S3's code, in words; never a credential).
    Store(String),
    /// A merged file does not hold the rows of its sources.
    RowsLost {
        /// The merged file.
        path: PathBuf,
        /// Rows written.
        written: u64,
        /// Rows read.
        read: u64,
    },
}

impl OutputError {
    /// An I/O failure of `op` on `path`.
    pub fn io(op: Op, path: impl AsRef<Path>, source: io::Error) -> OutputError {
        OutputError::Io {
            op,
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A Parquet failure of `op` on `path`. A Parquet error that wraps an
    /// I/O error (a full disk under the encoder) is reported as that I/O
    /// error.
    pub fn parquet(op: Op, path: impl AsRef<Path>, source: ParquetError) -> OutputError {
        let path = path.as_ref().to_path_buf();
        match source {
            ParquetError::External(e) => match e.downcast::<io::Error>() {
                Ok(io) => OutputError::Io {
                    op,
                    path,
                    source: *io,
                },
                Err(e) => OutputError::Parquet {
                    op,
                    path,
                    source: ParquetError::External(e),
                },
            },
            source => OutputError::Parquet { op, path, source },
        }
    }

    /// The file or directory the error is about (none for threads that
    /// could not start).
    pub fn path(&self) -> Option<&Path> {
        match self {
            OutputError::Io { path, .. }
            | OutputError::Parquet { path, .. }
            | OutputError::Unfinished { path }
            | OutputError::Locked { path, .. }
            | OutputError::Linked { path }
            | OutputError::OtherSchema { path, .. }
            | OutputError::RowsLost { path, .. } => Some(path),
            OutputError::NotADataset { dir }
            | OutputError::OtherFiles { dir, .. }
            | OutputError::Missing { dir }
            | OutputError::NotLocal { dir, .. }
            | OutputError::NoTable { dir, .. }
            | OutputError::OlderFormat { dir, .. } => Some(dir),
            OutputError::Threads(_) | OutputError::Store(_) => None,
        }
    }

    /// The operation that failed, for I/O and Parquet failures.
    pub fn op(&self) -> Option<Op> {
        match self {
            OutputError::Io { op, .. } | OutputError::Parquet { op, .. } => Some(*op),
            _ => None,
        }
    }
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The cause is the error's source: `{:#}` in anyhow (or any
            // walk of the chain) prints it after this.
            OutputError::Io { op, path, .. } | OutputError::Parquet { op, path, .. } => {
                write!(f, "cannot {} {}", op.as_str(), path.display())
            }
            OutputError::OtherFiles { dir, examples } => write!(
                f,
                "{} holds files that robostats did not write ({}{}) and is not an ingest \
                 output: give a new or empty --out directory, or --allow-other-files to \
                 write the tables beside them",
                dir.display(),
                examples.join(", "),
                if examples.len() >= 3 { ", ..." } else { "" }
            ),
            OutputError::Missing { dir } => write!(f, "{} does not exist", dir.display()),
            OutputError::NotLocal { dir, scheme } => not_local(f, dir, scheme),
            OutputError::OlderFormat { dir, missing } => write!(
                f,
                "{} was made by an earlier version of robostats ({missing}): write to a new \
                 --out directory, or ingest its inputs again there",
                dir.display()
            ),
            OutputError::NotADataset { dir } => write!(
                f,
                "{} is not an ingest output directory (it has no _manifest)",
                dir.display()
            ),
            OutputError::NoTable { dir, table } => write!(
                f,
                "{} has no {table}/: it was made by an earlier version of robostats, which \
                 wrote fewer tables (ingest its inputs again into a new --out directory), or \
                 its first ingest has only begun",
                dir.display()
            ),
            OutputError::Unfinished { path } => write!(
                f,
                "{} is being written, or was left by an interrupted ingest: let the \
                 ingest finish (run it again) before compacting",
                path.display()
            ),
            OutputError::OtherSchema { path, first } => write!(
                f,
                "{} has another schema than {} (written by another version?): not merged",
                path.display(),
                first.display()
            ),
            OutputError::Locked {
                path,
                holder,
                wanted_by,
            } => write!(
                f,
                "{wanted_by} cannot run now: the lock {} is held by {holder}. One ingest per \
                 manifest (shard) at a time, and compact alone, or rows would be lost or \
                 doubled: wait for it to end (or stop it), then run again",
                path.display()
            ),
            OutputError::Linked { path } => write!(
                f,
                "{} is a symbolic link or not a plain file or directory: robostats writes \
                 only inside the output directory, and will not follow it. Remove it (or \
                 write to another --out directory)",
                path.display()
            ),
            OutputError::Threads(why) => write!(f, "cannot start worker threads: {why}"),
            OutputError::Store(why) => f.write_str(why),
            OutputError::RowsLost {
                path,
                written,
                read,
            } => write!(
                f,
                "{written} rows written to {}, {read} read: not swapped in",
                path.display()
            ),
        }
    }
}

/// [`OutputError::NotLocal`]'s message.
fn not_local(f: &mut fmt::Formatter<'_>, dir: &Path, scheme: &str) -> fmt::Result {
    write!(
        f,
        "'{}' reads as a URL ({scheme}:): a robostats data set is a local directory, one \
         on a file system the nodes share, or (for ingest and report) s3://BUCKET/PREFIX/; \
         not other object storage (gs://, az://, hf://) or an HTTP address. Give a \
         directory (for a local directory of that name, write './{}')",
        dir.display(),
        dir.display()
    )
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OutputError::Io { source, .. } => Some(source),
            OutputError::Parquet { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Shorthand: `result.at(op, path)` turns an I/O error into an
/// [`OutputError`] naming the operation and the path.
pub trait At<T> {
    /// Names the operation and the path of a failure.
    fn at(self, op: Op, path: impl AsRef<Path>) -> Result<T, OutputError>;
}

impl<T> At<T> for Result<T, io::Error> {
    fn at(self, op: Op, path: impl AsRef<Path>) -> Result<T, OutputError> {
        self.map_err(|e| OutputError::io(op, path, e))
    }
}

impl<T> At<T> for Result<T, ParquetError> {
    fn at(self, op: Op, path: impl AsRef<Path>) -> Result<T, OutputError> {
        self.map_err(|e| OutputError::parquet(op, path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_operation_and_the_file() {
        let e = OutputError::io(
            Op::CreatePart,
            "out/captures/.x.parquet.1.tmp",
            io::Error::from_raw_os_error(28),
        );
        assert_eq!(
            e.to_string(),
            "cannot create the part file out/captures/.x.parquet.1.tmp"
        );
        let cause = std::error::Error::source(&e).unwrap().to_string();
        assert!(cause.contains("os error 28"), "{cause}");
        assert_eq!(e.path(), Some(Path::new("out/captures/.x.parquet.1.tmp")));
        let wrapped = ParquetError::External(Box::new(io::Error::from_raw_os_error(28)));
        let e = OutputError::parquet(Op::WritePart, "p", wrapped);
        assert!(matches!(e, OutputError::Io { .. }), "{e:?}");
    }
}
