//! One writer per manifest: advisory locks in the output directory.
//!
//! ```text
//! OUT/_manifest/dataset.lock   shared by every ingest, exclusive for compact
//! OUT/_manifest/<name>.lock    exclusive, per manifest name (run, shard-00003-of-00100)
//! ```
//!
//! An `ingest` holds the data set's lock shared and its manifest name's
//! lock exclusively for the whole run: shards of one job run side by side,
//! two runs of the same shard (a requeued task beside its first attempt)
//! do not, and `compact`, which takes the data set's lock exclusively,
//! runs only when no ingest does (and no ingest starts while it runs).
//! The locks are `flock(2)` locks, released by the kernel when the process
//! ends however it ends, so a killed run leaves none behind.
//!
//! The holder writes who it is into the lock file (process, host, since
//! when, what), so that a refusal can name it. Anyone who can write into
//! the output directory can write that text too: it is shown with its
//! control characters and bidirectional overrides escaped (see
//! [`crate::terminal`]), so that it cannot act on the terminal. Where the file system does
//! not honour `flock` (NFS mounted with `nolock`, some FUSE file systems),
//! the lock is taken but protects nothing: [`Held::honoured`] says whether
//! a second lock on the same file was refused, as it must be.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::error::{At, Op, OutputError};
use super::{manifest, open_options_no_follow};

/// The data set's lock file name (in `_manifest/`).
const DATASET_LOCK: &str = "dataset.lock";

/// Locks held for as long as the value lives.
#[derive(Debug)]
pub struct Held {
    files: Vec<File>,
    honoured: bool,
}

impl Drop for Held {
    /// Lets the locks go explicitly rather than by closing the files: a
    /// child that another thread of this process forks holds a copy of
    /// each file until its `exec`, and a lock let go only by our close
    /// would stay held by that copy, refusing this process's next run.
    fn drop(&mut self) {
        for file in &self.files {
            let _ = file.unlock();
        }
    }
}

impl Held {
    /// Whether the file system refused a second lock on a held lock file,
    /// as it must: `false` means the locks protect nothing here (see the
    /// [module documentation](self)).
    pub fn honoured(&self) -> bool {
        self.honoured
    }
}

/// Who holds a lock, or wants to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder<'a> {
    /// An ingest writing the manifest `name`.
    Ingest(&'a str),
    /// A compaction.
    Compact,
}

/// Takes the locks `holder` needs in the output directory `out`, or says
/// who holds them.
pub fn acquire(out: &Path, holder: Holder<'_>) -> Result<Held, OutputError> {
    let dir = manifest::dir(out);
    super::create_dir_no_follow(&dir)?;
    let dataset_path = dir.join(DATASET_LOCK);
    let dataset = open(&dataset_path)?;
    // Each lock in `held` as soon as it is taken: on any failure after,
    // its drop lets them go (explicitly, as always).
    let mut held = Held {
        files: Vec::new(),
        honoured: false,
    };
    match holder {
        Holder::Ingest(name) => {
            try_lock(&dataset, &dataset_path, false, holder)?;
            held.files.push(dataset);
            let own_path = dir.join(format!("{name}.lock"));
            let own = open(&own_path)?;
            try_lock(&own, &own_path, true, holder)?;
            held.files.push(own);
            held.honoured = honoured(&own_path)?;
            sign(&held.files[1], &own_path, holder)?;
            Ok(held)
        }
        Holder::Compact => {
            if let Err(mut e) = try_lock(&dataset, &dataset_path, true, holder) {
                // Ingests hold the data set's lock shared and do not sign
                // it (what it says is an earlier compaction's): a shared
                // lock that can be had means that they are the holders,
                // each named by its own manifest's lock.
                if let OutputError::Locked { holder, .. } = &mut e
                    && dataset.try_lock_shared().is_ok()
                {
                    let _ = dataset.unlock();
                    *holder = ingests_holding(&dir);
                }
                return Err(e);
            }
            held.files.push(dataset);
            held.honoured = honoured(&dataset_path)?;
            sign(&held.files[0], &dataset_path, holder)?;
            Ok(held)
        }
    }
}

/// The ingests that hold their manifests' locks in `dir`, in words: the
/// first as its lock says, and how many others.
fn ingests_holding(dir: &Path) -> String {
    let mut holders = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == DATASET_LOCK || !name.ends_with(".lock") {
            continue;
        }
        // Held: it cannot be had (had, it is let go at once).
        let Ok(file) = open(&path) else { continue };
        match file.try_lock() {
            Err(TryLockError::WouldBlock) => holders.push(read_holder(&path)),
            Ok(()) => {
                let _ = file.unlock();
            }
            Err(TryLockError::Error(_)) => {}
        }
    }
    holders.sort();
    match holders.first() {
        None => "one or more ingests".to_owned(),
        Some(first) => ingests_named(first, holders.len() - 1),
    }
}

/// Ingests holding a data set, as a refusal names them (on disk and on
/// S3): the first as its claim says, and how many others.
pub(crate) fn ingests_named(first: &str, others: usize) -> String {
    match others {
        0 => first.to_owned(),
        n => format!("{first}, and {n} other ingest run(s)"),
    }
}

/// Opens (creating) a lock file, never through a symbolic link and never
/// waiting: a FIFO or a device planted under the lock's name is opened
/// without blocking, then refused, so that no one can stall a run (or
/// compact, which holds the data set exclusively) with one.
fn open(path: &Path) -> Result<File, OutputError> {
    let mut options = open_options_no_follow();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).at(Op::Lock, path)?;
    let regular = file.metadata().at(Op::Lock, path)?.file_type().is_file();
    if !regular {
        return Err(OutputError::Linked {
            path: path.to_path_buf(),
        });
    }
    Ok(file)
}

/// Takes `file`'s lock without waiting, or says who holds it.
fn try_lock(
    file: &File,
    path: &Path,
    exclusive: bool,
    wanted_by: Holder<'_>,
) -> Result<(), OutputError> {
    let taken = if exclusive {
        file.try_lock()
    } else {
        file.try_lock_shared()
    };
    match taken {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(OutputError::Locked {
            path: path.to_path_buf(),
            holder: read_holder(path),
            wanted_by: match wanted_by {
                Holder::Ingest(name) => format!("ingest ({name})"),
                Holder::Compact => "compact".to_owned(),
            },
        }),
        Err(TryLockError::Error(e)) => Err(OutputError::io(Op::Lock, path, e)),
    }
}

/// Whether a second, exclusive lock on `path` (held by this process
/// through another open file) is refused.
fn honoured(path: &Path) -> Result<bool, OutputError> {
    let second = open(path)?;
    Ok(matches!(second.try_lock(), Err(TryLockError::WouldBlock)))
}

/// Writes who holds the lock into its file.
fn sign(file: &File, path: &Path, holder: Holder<'_>) -> Result<(), OutputError> {
    let what = match holder {
        Holder::Ingest(name) => format!("robostats ingest ({name})"),
        Holder::Compact => "robostats compact".to_owned(),
    };
    let text = format!(
        "{what}, process {} on {}, since {} (Unix time)\n",
        std::process::id(),
        host_name(),
        manifest::unix_now()
    );
    let mut file = file;
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| file.write_all(text.as_bytes()))
        .at(Op::Lock, path)
}

/// What the holder of a lock wrote into it (its first 512 bytes), as it
/// may be shown: bytes that are not UTF-8 replaced, and every character
/// that could act on a terminal escaped.
fn read_holder(path: &Path) -> String {
    let mut bytes = Vec::new();
    if let Ok(file) = super::open_regular(path) {
        let _ = file.take(512).read_to_end(&mut bytes);
    }
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim();
    if text.is_empty() {
        // Not signed yet (it is being taken at this moment).
        "another robostats process".to_owned()
    } else {
        crate::terminal::escaped(text).into_owned()
    }
}

/// This host's name, as the kernel knows it.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "this host".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_ingest_per_name_and_compact_alone() {
        let out = std::env::temp_dir().join(format!("robostats-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let first = acquire(&out, Holder::Ingest("run")).unwrap();
        assert!(first.honoured());
        // Another shard: fine. The same name again: refused, naming the holder.
        let shard = acquire(&out, Holder::Ingest("shard-00001-of-00002")).unwrap();
        let again = acquire(&out, Holder::Ingest("run")).unwrap_err();
        let message = again.to_string();
        assert!(
            message.contains("robostats ingest (run), process")
                && message.contains(&std::process::id().to_string()),
            "{message}"
        );
        // compact waits for every ingest, and names them.
        let message = acquire(&out, Holder::Compact).unwrap_err().to_string();
        assert!(
            message.contains("is held by robostats ingest (run), process")
                && message.contains(", and 1 other ingest run(s)"),
            "{message}"
        );
        drop(first);
        let message = acquire(&out, Holder::Compact).unwrap_err().to_string();
        assert!(
            message.contains("is held by robostats ingest (shard-00001-of-00002), process")
                && !message.contains("other ingest"),
            "{message}"
        );
        drop(shard);
        let compact = acquire(&out, Holder::Compact).unwrap();
        let message = acquire(&out, Holder::Ingest("run"))
            .unwrap_err()
            .to_string();
        assert!(message.contains("robostats compact, process"), "{message}");
        drop(compact);
        acquire(&out, Holder::Ingest("run")).unwrap();
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_holder_is_shown_with_its_control_characters_escaped() {
        let out = std::env::temp_dir().join(format!("robostats-lock-esc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let held = acquire(&out, Holder::Ingest("run")).unwrap();
        // Anyone may write into the lock file: colours, a title, a carriage
        // return over the message, a C1 CSI, a right-to-left override.
        let mut text = "\x1b[31mevil\x1b]0;title\x07\rok\u{9b}2J\u{202e}txt.exe\n\u{7f}"
            .as_bytes()
            .to_vec();
        text.push(0xff);
        std::fs::write(manifest::dir(&out).join("run.lock"), text).unwrap();
        let message = acquire(&out, Holder::Ingest("run"))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(
                "held by \\x1b[31mevil\\x1b]0;title\\x07\\rok\\x9b2J\\u{202e}txt.exe\\n\\x7f\u{fffd}."
            ),
            "{message}"
        );
        assert!(!message.chars().any(|c| c.is_control()), "{message:?}");
        drop(held);
        std::fs::remove_dir_all(&out).unwrap();
    }

    /// A FIFO planted under a lock's name, held by someone, neither stalls
    /// the run (opening it, or reading the holder out of it) nor is taken
    /// as a lock: it is refused at once.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_planted_as_a_lock_is_refused_without_waiting() {
        use std::os::unix::fs::OpenOptionsExt;
        let out = std::env::temp_dir().join(format!("robostats-lock-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let dir = manifest::dir(&out);
        std::fs::create_dir_all(&dir).unwrap();
        // compact takes only the data set's lock; an ingest both.
        for (name, holders) in [
            (DATASET_LOCK, &[Holder::Ingest("run"), Holder::Compact][..]),
            ("run.lock", &[Holder::Ingest("run")][..]),
        ] {
            let fifo = dir.join(name);
            // (mknod, not the mkfifo command: a child forked now would
            // hold the other tests' locks until it runs mkfifo.)
            use rustix::fs::{CWD, FileType, Mode};
            rustix::fs::mknodat(CWD, &fifo, FileType::Fifo, Mode::from(0o600), 0).unwrap();
            // The planter holds the FIFO open and locked.
            let planter = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
                .unwrap();
            planter.lock().unwrap();
            for &holder in holders {
                let (tx, rx) = std::sync::mpsc::channel();
                let out = out.clone();
                std::thread::spawn(move || {
                    let _ = tx.send(acquire(&out, holder).map(|_| ()).map_err(|e| e.to_string()));
                });
                let answer = rx
                    .recv_timeout(std::time::Duration::from_secs(20))
                    .expect("acquire waited on a FIFO");
                let message = answer.expect_err("a FIFO was taken as a lock");
                assert!(message.contains("not a plain file"), "{message}");
            }
            drop(planter);
            std::fs::remove_file(&fifo).unwrap();
        }
        std::fs::remove_dir_all(&out).unwrap();
    }
}
