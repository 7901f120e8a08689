//! A directory as a [`Backend`]: create-if-absent is a `link(2)` of a
//! written temporary file (which fails if the name exists), and
//! replace- or delete-if-unchanged compare the version and then rename or
//! unlink under an exclusive lock (`flock(2)` on `.robostats-backend.lock`,
//! taken by every write of this backend but a creation).
//!
//! Every file is reached from the directory's own descriptor, one
//! component at a time, never through a symbolic link (`O_NOFOLLOW`): a
//! link planted anywhere under it is refused, and a key cannot name
//! anything outside it (`..`, an absolute path and empty components are
//! refused). Names starting with `.` (temporary files, the lock) are not
//! listed, nor is anything but regular files and directories.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rustix::fs::{AtFlags, Dir, FileType, FlockOperation, Mode, OFlags, Stat};
use rustix::io::Errno;

use super::{Backend, Cond, Done, Failure, Listed, Object};

/// The lock every conditional write and deletion holds.
const LOCK: &str = ".robostats-backend.lock";

/// How long a write waits for the lock (held only for a compare and a
/// rename) before it fails.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// Temporary files of this process, numbered.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// A directory holding a data set's files.
#[derive(Debug)]
pub struct DirBackend {
    root: OwnedFd,
    dir: PathBuf,
}

impl DirBackend {
    /// The directory `dir`, which must exist.
    pub fn open(dir: &Path) -> Result<DirBackend, Failure> {
        let root = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(DirBackend {
            root,
            dir: dir.to_path_buf(),
        })
    }

    /// The directory holding `key` (made where `create`), and the file's
    /// name in it.
    fn parent<'k>(
        &self,
        key: &'k str,
        create: bool,
    ) -> Result<Option<(OwnedFd, &'k str)>, Failure> {
        let parts: Vec<&str> = key.split('/').collect();
        let bad = |p: &&str| p.is_empty() || *p == "." || *p == ".." || p.contains(['\\', '\0']);
        if parts.iter().any(bad) {
            return Err(format!("{}: not a key of a data set", self.shown(key)));
        }
        let (name, dirs) = parts.split_last().expect("split gives one part at least");
        let failed = |e: Errno| format!("{}: {e}", self.shown(key));
        let mut at = open_dir(&self.root, ".").map_err(failed)?;
        for part in dirs {
            at = match open_dir(&at, part) {
                Ok(next) => next,
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&at, *part, Mode::from(0o755)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(failed(e)),
                    }
                    open_dir(&at, part).map_err(failed)?
                }
                Err(Errno::NOENT) => return Ok(None),
                Err(e) => return Err(failed(e)),
            };
        }
        Ok(Some((at, name)))
    }

    /// The file `name` under `at`, opened, and its status, if it is a
    /// regular file (not a link, a FIFO, a directory: an error).
    fn open_file(
        &self,
        at: &OwnedFd,
        name: &str,
        key: &str,
    ) -> Result<Option<(OwnedFd, Stat)>, Failure> {
        let failed = |e: Errno| format!("{}: {e}", self.shown(key));
        let fd = match open_entry(at, name) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(failed(e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(failed)?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(format!("{}: not a regular file", self.shown(key)));
        }
        Ok(Some((fd, stat)))
    }

    /// The file `name` under `at` and its version.
    fn read(&self, at: &OwnedFd, name: &str, key: &str) -> Result<Option<Object>, Failure> {
        let Some((fd, stat)) = self.open_file(at, name, key)? else {
            return Ok(None);
        };
        let (etag, age) = version(&stat);
        let mut bytes = Vec::new();
        File::from(fd)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{}: {e}", self.shown(key)))?;
        Ok(Some(Object { bytes, etag, age }))
    }

    /// Whether the file `name` under `at` is there in the version
    /// `wanted` (read: its status alone, not its bytes).
    fn is_version(
        &self,
        at: &OwnedFd,
        name: &str,
        key: &str,
        wanted: &str,
    ) -> Result<bool, Failure> {
        let found = self.open_file(at, name, key)?;
        Ok(found.is_some_and(|(_, stat)| version(&stat).0 == wanted))
    }

    /// Writes `bytes` to a new temporary file in `at`, synced; its name
    /// and version.
    fn temporary(
        &self,
        at: &OwnedFd,
        bytes: &[u8],
        key: &str,
    ) -> Result<(String, String), Failure> {
        let name = format!(
            ".put-{}-{}",
            std::process::id(),
            TEMPORARY.fetch_add(1, Ordering::Relaxed)
        );
        let fd = rustix::fs::openat(
            at,
            name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from(0o644),
        )
        .map_err(|e| format!("{}: {e}", self.shown(key)))?;
        let mut file = File::from(fd);
        let written = file.write_all(bytes).and_then(|()| file.sync_all());
        let stat = written.and_then(|()| rustix::fs::fstat(&file).map_err(std::io::Error::from));
        match stat {
            Ok(stat) => Ok((name, version(&stat).0)),
            Err(e) => {
                let _ = rustix::fs::unlinkat(at, name.as_str(), AtFlags::empty());
                Err(format!("{}: {e}", self.shown(key)))
            }
        }
    }

    /// Holds the backend's lock while `f` runs, waiting for it at most
    /// [`LOCK_WAIT`].
    fn locked<T>(&self, key: &str, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
        let fd = rustix::fs::openat(
            &self.root,
            LOCK,
            OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::from(0o644),
        )
        .map_err(|e| format!("{}: {e}", self.dir.join(LOCK).display()))?;
        let started = Instant::now();
        loop {
            match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => break,
                Err(Errno::WOULDBLOCK) if started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => {
                    return Err(format!(
                        "{}: the lock of {}: {e}",
                        self.shown(key),
                        self.dir.display()
                    ));
                }
            }
        }
        let done = f();
        // Let go explicitly, not by the close alone: a child that another
        // thread forked meanwhile holds a copy of the descriptor until its
        // exec (or its end), and would hold the lock as long.
        let _ = rustix::fs::flock(&fd, FlockOperation::Unlock);
        done
    }
}

/// The directory `name` under `at`, not through a link.
fn open_dir(at: &OwnedFd, name: &str) -> Result<OwnedFd, Errno> {
    rustix::fs::openat(
        at,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// The entry `name` under `at`, opened to read, not through a link and
/// never waiting on a FIFO.
fn open_entry(at: &OwnedFd, name: &str) -> Result<OwnedFd, Errno> {
    rustix::fs::openat(
        at,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// A file's version (inode, modification time in nanoseconds and size:
/// every write of this backend makes a new inode) and its age in seconds.
fn version(stat: &Stat) -> (String, u64) {
    let modified = stat.st_mtime as i128 * 1_000_000_000 + stat.st_mtime_nsec as i128;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let age = now.saturating_sub(stat.st_mtime).max(0) as u64;
    (
        format!("{:x}-{:x}-{:x}", stat.st_ino, modified, stat.st_size),
        age,
    )
}

impl Backend for DirBackend {
    fn put(&self, key: &str, bytes: &[u8], cond: Cond<'_>) -> Result<Done, Failure> {
        let (at, name) = self.parent(key, true)?.expect("made");
        let (temporary, etag) = self.temporary(&at, bytes, key)?;
        let shown = |e: Errno| format!("{}: {e}", self.shown(key));
        let done = match cond {
            Cond::Create => {
                match rustix::fs::linkat(&at, temporary.as_str(), &at, name, AtFlags::empty()) {
                    Ok(()) => Ok(Done::Yes(etag)),
                    Err(Errno::EXIST) => Ok(Done::Refused),
                    Err(e) => Err(shown(e)),
                }
            }
            Cond::None | Cond::Match(_) => self.locked(key, || {
                if let Cond::Match(wanted) = cond
                    && !self.is_version(&at, name, key, wanted)?
                {
                    return Ok(Done::Refused);
                }
                rustix::fs::renameat(&at, temporary.as_str(), &at, name).map_err(shown)?;
                Ok(Done::Yes(etag))
            }),
        };
        // Gone after a rename; after a link, or a refusal, deleted here.
        let _ = rustix::fs::unlinkat(&at, temporary.as_str(), AtFlags::empty());
        let _ = rustix::fs::fsync(&at);
        done
    }

    fn get(&self, key: &str) -> Result<Option<Object>, Failure> {
        match self.parent(key, false)? {
            Some((at, name)) => self.read(&at, name, key),
            None => Ok(None),
        }
    }

    fn delete(&self, key: &str, cond: Cond<'_>) -> Result<Done, Failure> {
        let Some((at, name)) = self.parent(key, false)? else {
            return Ok(Done::Yes(String::new()));
        };
        self.locked(key, || {
            let found = self.open_file(&at, name, key)?;
            if let Cond::Match(wanted) = cond
                && found
                    .as_ref()
                    .is_none_or(|(_, stat)| version(stat).0 != wanted)
            {
                return Ok(Done::Refused);
            }
            if found.is_some() {
                match rustix::fs::unlinkat(&at, name, AtFlags::empty()) {
                    Ok(()) | Err(Errno::NOENT) => {}
                    Err(e) => return Err(format!("{}: {e}", self.shown(key))),
                }
            }
            Ok(Done::Yes(String::new()))
        })
    }

    fn listing(&self) -> Result<BTreeMap<String, Listed>, Failure> {
        let mut found = BTreeMap::new();
        let root = open_dir(&self.root, ".").map_err(|e| format!("{}: {e}", self.dir.display()))?;
        self.list_into(root, "", &mut found)?;
        Ok(found)
    }

    fn shown(&self, key: &str) -> String {
        self.dir.join(key).display().to_string()
    }
}

impl DirBackend {
    /// Lists the regular files under `at` (whose key starts `prefix`)
    /// into `found`.
    fn list_into(
        &self,
        at: OwnedFd,
        prefix: &str,
        found: &mut BTreeMap<String, Listed>,
    ) -> Result<(), Failure> {
        let failed = |e: Errno| format!("{}: {e}", self.shown(prefix));
        let entries = Dir::read_from(&at).map_err(failed)?;
        for entry in entries {
            let entry = entry.map_err(failed)?;
            let Some(name) = listed_name(entry.file_name()) else {
                continue;
            };
            let key = format!("{prefix}{name}");
            match open_entry(&at, name) {
                Ok(fd) => {
                    let stat = rustix::fs::fstat(&fd).map_err(failed)?;
                    match FileType::from_raw_mode(stat.st_mode) {
                        FileType::Directory => self.list_into(fd, &format!("{key}/"), found)?,
                        FileType::RegularFile => {
                            let (etag, _) = version(&stat);
                            let size = stat.st_size as u64;
                            found.insert(key.clone(), Listed { key, etag, size });
                        }
                        _ => {}
                    }
                }
                // a link (ELOOP), or gone since: not listed
                Err(Errno::LOOP | Errno::NOENT) => {}
                Err(e) => return Err(failed(e)),
            }
        }
        Ok(())
    }
}

/// A directory entry's name as a key's component: not `.`, `..`, nor
/// hidden (temporary files, the lock), and UTF-8.
fn listed_name(name: &CStr) -> Option<&str> {
    let name = name.to_str().ok()?;
    (!name.starts_with('.')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::scratch::Scratch;
    use std::sync::Arc;

    fn backend() -> (Scratch, DirBackend) {
        let dir = Scratch::new("backend").unwrap();
        let backend = DirBackend::open(dir.path()).unwrap();
        (dir, backend)
    }

    #[test]
    fn a_directory_keeps_the_contract() {
        let (_dir, backend) = backend();
        crate::output::backend::check_contract(&backend);
    }

    #[test]
    fn of_writers_racing_on_one_key_one_wins() {
        let (_dir, backend) = backend();
        crate::output::backend::check_races(Arc::new(backend));
    }

    #[test]
    fn keys_stay_inside_and_links_are_not_followed() {
        let (dir, backend) = backend();
        for bad in ["../x", "/etc/passwd", "a//b", "./a", "a/../b", ""] {
            assert!(backend.put(bad, b"x", Cond::None).is_err(), "{bad}");
            assert!(backend.get(bad).is_err(), "{bad}");
        }
        let elsewhere = Scratch::new("elsewhere").unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("captures")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join("f"), dir.path().join("f")).unwrap();
        assert!(backend.put("captures/p.parquet", b"x", Cond::None).is_err());
        assert!(backend.put("f", b"x", Cond::Match("v")).is_err() || backend.get("f").is_err());
        assert!(backend.get("f").is_err());
        assert!(backend.delete("f", Cond::None).is_err());
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
        // links, temporary files and the lock are not listed
        backend
            .put("_manifest/run.jsonl", b"{}", Cond::None)
            .unwrap();
        let keys: Vec<String> = backend.listing().unwrap().into_keys().collect();
        assert_eq!(keys, ["_manifest/run.jsonl"]);
    }
}
