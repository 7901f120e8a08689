//! Private working directories under the temporary directory: where a
//! run on S3 stages its part files, and where `compact` copies a data set
//! on S3 to merge it.
//!
//! ```text
//! $TMPDIR/robostats-<kind>-<32 random hex digits>/    mode 0700, made by mkdir (never taken over)
//!                                          owner.json  who made it (output::process::Identity)
//!                                          work/       what the run writes (Scratch::path)
//! ```
//!
//! A predictable name under a directory every user shares would let
//! another user read what is staged (a whole data set, during a
//! compaction), or create the directory first and so block the run, or
//! plant links in it. So each directory has a new random name, is created
//! by this process alone (`mkdir` fails on a name that exists) with mode
//! 0700, and is checked to be a directory of this user that no one else
//! may enter before anything is written into it. It is removed when its
//! value is dropped, the run failed or not. A run killed before that
//! leaves its directory behind; the next run of the same kind on this host
//! removes the directories of this user whose maker is gone
//! ([`Identity::gone`]), never those of a live run.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::process::Identity;

/// Why a scratch directory could not be made: the path, and the error.
pub type ScratchError = (PathBuf, io::Error);

/// The file in a scratch directory that says who made it.
const OWNER: &str = "owner.json";

/// A private directory, removed (with what it holds) when dropped.
#[derive(Debug)]
pub struct Scratch {
    /// `robostats-<kind>-<random>`.
    dir: PathBuf,
    /// Its `work/`.
    work: PathBuf,
}

impl Scratch {
    /// Makes a new private directory `robostats-<kind>-<random>` under the
    /// temporary directory, after removing those of the same kind that
    /// killed runs of this user left.
    pub fn new(kind: &str) -> Result<Scratch, ScratchError> {
        Scratch::new_in(&std::env::temp_dir(), kind)
    }

    /// [`Scratch::new`] under `parent`.
    pub fn new_in(parent: &Path, kind: &str) -> Result<Scratch, ScratchError> {
        let mut attempts = 0;
        let path = loop {
            let random = random_hex().map_err(|e| (parent.to_path_buf(), e))?;
            let path = parent.join(format!("robostats-{kind}-{random}"));
            match create_private(&path) {
                Ok(()) => break path,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 8 => {
                    attempts += 1;
                }
                Err(e) => return Err((path, e)),
            }
        };
        let scratch = Scratch {
            work: path.join("work"),
            dir: path,
        };
        let uid = scratch.check()?;
        let owner = scratch.dir.join(OWNER);
        let text = serde_json::to_vec(&Identity::own()).expect("an identity serializes");
        // (create_new: never through a link planted under the name.)
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&owner)
            .and_then(|mut f| f.write_all(&text))
            .map_err(|e| (owner.clone(), e))?;
        fs::create_dir(&scratch.work).map_err(|e| (scratch.work.clone(), e))?;
        sweep(parent, kind, uid, &scratch.dir);
        Ok(scratch)
    }

    /// The directory to work in (its `work/`, beside the file that says
    /// who made it).
    pub fn path(&self) -> &Path {
        &self.work
    }

    /// That the directory is a directory (not a link) of this process's
    /// user, which no other user may read, write or enter; its owner's uid.
    fn check(&self) -> Result<u32, ScratchError> {
        let meta = fs::symlink_metadata(&self.dir).map_err(|e| (self.dir.clone(), e))?;
        let (uid, mode) = owner_and_mode(&meta);
        if !meta.is_dir() || mode & 0o077 != 0 {
            let why = format!("not a private directory of this user (mode {mode:o}): not used");
            return Err((self.dir.clone(), io::Error::other(why)));
        }
        Ok(uid)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Creates `path` with mode 0700, failing if anything is there.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

/// 32 random hex digits, from the operating system's generator.
pub fn random_hex() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| io::Error::other(format!("no random numbers from the system: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(unix)]
fn owner_and_mode(meta: &fs::Metadata) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    (meta.uid(), meta.mode() & 0o7777)
}

#[cfg(not(unix))]
fn owner_and_mode(_meta: &fs::Metadata) -> (u32, u32) {
    (0, 0o700)
}

/// Removes the directories `robostats-<kind>-*` under `parent` that the
/// user `uid` owns and whose maker is gone (other users' and live runs'
/// are left alone, as is one whose maker cannot be told), but `own`.
fn sweep(parent: &Path, kind: &str, uid: u32, own: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let start = format!("robostats-{kind}-");
    for entry in entries.flatten() {
        let path = entry.path();
        let named = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(&start));
        if !named || path == own {
            continue;
        }
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir() || owner_and_mode(&meta).0 != uid {
            continue;
        }
        let maker = fs::read(path.join(OWNER))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Option<Identity>>(&bytes).ok())
            .flatten();
        if maker.is_some_and(|m| m.gone() == Some(true)) {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn parent(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("robostats-scratch-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_scratch_directory_is_private_new_and_removed_when_dropped() {
        let parent = parent("new");
        let a = Scratch::new_in(&parent, "stage").unwrap();
        let b = Scratch::new_in(&parent, "stage").unwrap();
        assert_ne!(a.path(), b.path());
        let dir = a.path().parent().unwrap().to_path_buf();
        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            name.starts_with("robostats-stage-") && name.len() == 16 + 32,
            "{name}"
        );
        assert!(dir.join(OWNER).is_file() && a.path().is_dir());
        fs::write(a.path().join("part.parquet"), b"x").unwrap();
        drop(a);
        assert!(!dir.exists());
        drop(b);
        fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn only_the_directories_of_gone_makers_are_swept() {
        let parent = parent("sweep");
        let own = Identity::own();
        let gone = Identity {
            started: own.as_ref().map_or(0, |o| o.started + 1),
            ..own.clone().unwrap_or_default()
        };
        let plant = |name: &str, maker: Option<&Identity>| {
            let dir = parent.join(name);
            fs::create_dir(&dir).unwrap();
            if let Some(maker) = maker {
                fs::write(dir.join(OWNER), serde_json::to_vec(&Some(maker)).unwrap()).unwrap();
            }
            dir
        };
        let dead = plant("robostats-stage-dead", Some(&gone));
        let live = own.as_ref().map(|o| plant("robostats-stage-live", Some(o)));
        let unsigned = plant("robostats-stage-unsigned", None);
        let other_kind = plant("robostats-compact-dead", Some(&gone));
        let kept = Scratch::new_in(&parent, "stage").unwrap();
        if own.is_some() {
            assert!(!dead.exists());
        }
        assert!(live.is_none_or(|l| l.exists()));
        assert!(unsigned.exists() && other_kind.exists() && kept.path().exists());
        drop(kept);
        fs::remove_dir_all(&parent).unwrap();
    }
}
