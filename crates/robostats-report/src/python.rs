//! Which Pythons the report may run: only those the user chose.
//!
//! A Python found in a place anyone could write to would run anyone's
//! code as the user: a binary copied to `/tmp/x/bin/` must not run a
//! `/tmp/x/python-venv/bin/python3` that another local user created. The
//! places searched are the user's own choices (`--python`, the
//! environment, the `PATH`), and the virtual environment `scripts/test.sh`
//! makes in a checkout, only for that checkout's own binary and only when
//! the user owns it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The interpreters `Engine::find` tries, in order: `explicit` alone, or
/// `$ROBOSTATS_PYTHON`, the active virtual environment's
/// (`$VIRTUAL_ENV/bin/python3`), the checkout's ([`checkout_venv`]) and
/// `python3` on the `PATH`.
pub fn candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let exe = std::env::current_exe().ok();
    candidates_from(
        explicit,
        std::env::var_os("ROBOSTATS_PYTHON"),
        std::env::var_os("VIRTUAL_ENV"),
        exe.as_deref(),
    )
}

/// [`candidates`], given the environment's variables and the binary's
/// path.
fn candidates_from(
    explicit: Option<&Path>,
    robostats_python: Option<OsString>,
    virtual_env: Option<OsString>,
    exe: Option<&Path>,
) -> Vec<PathBuf> {
    if let Some(python) = explicit {
        return vec![python.to_owned()];
    }
    let mut found = Vec::new();
    if let Some(python) = robostats_python.filter(|p| !p.is_empty()) {
        found.push(PathBuf::from(python));
    }
    if let Some(venv) = virtual_env.filter(|p| !p.is_empty()) {
        found.push(Path::new(&venv).join("bin").join("python3"));
    }
    found.extend(exe.and_then(checkout_venv));
    found.push(PathBuf::from("python3"));
    found
}

/// The Python of the virtual environment `scripts/test.sh` makes in a
/// checkout, `<checkout>/target/python-venv/bin/python3`, when `exe` is
/// that checkout's binary (`<checkout>/target/<profile>/robostats`, a
/// `Cargo.toml` beside `target/`) and the user running robostats owns the
/// directories it is reached through (`target/`, `python-venv/`, `bin/`),
/// none of them writable by group or others, and the `python3` in it.
pub fn checkout_venv(exe: &Path) -> Option<PathBuf> {
    let target = exe.parent()?.parent()?;
    if target.file_name()? != "target" || !target.parent()?.join("Cargo.toml").is_file() {
        return None;
    }
    let venv = target.join("python-venv");
    let bin = venv.join("bin");
    let python = bin.join("python3");
    let trusted =
        [target, &venv, &bin].iter().all(|dir| users_own(dir, true)) && users_own(&python, false);
    trusted.then_some(python)
}

/// Whether `path` itself (not what a link points to) belongs to the user
/// running robostats; a directory, or with `dir` false a file that is not
/// a link, must also not be writable by group or others. (Only on Linux:
/// elsewhere no checkout's Python is run unnamed.)
#[cfg(target_os = "linux")]
fn users_own(path: &Path, dir: bool) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    let user = rustix::process::geteuid().as_raw();
    let link = meta.file_type().is_symlink();
    let kind = if dir {
        meta.is_dir()
    } else {
        link || meta.is_file()
    };
    kind && meta.uid() == user && (link || meta.mode() & 0o022 == 0)
}

#[cfg(not(target_os = "linux"))]
fn users_own(_path: &Path, _dir: bool) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    /// A checkout with its binary and its test virtual environment.
    fn checkout(root: &Path) -> PathBuf {
        let bin = root.join("target/python-venv/bin");
        fs::create_dir_all(&bin).unwrap();
        fs::create_dir_all(root.join("target/release")).unwrap();
        fs::write(root.join("Cargo.toml"), "").unwrap();
        fs::write(root.join("target/release/robostats"), "").unwrap();
        std::os::unix::fs::symlink("/usr/bin/python3", bin.join("python3")).unwrap();
        for dir in ["target", "target/python-venv", "target/python-venv/bin"] {
            fs::set_permissions(root.join(dir), fs::Permissions::from_mode(0o755)).unwrap();
        }
        root.join("target/release/robostats")
    }

    #[test]
    fn only_the_users_own_checkout_venv_is_run() {
        let root = std::env::temp_dir().join(format!("robostats-python-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let exe = checkout(&root.join("repo"));
        let venv = root.join("repo/target/python-venv/bin/python3");
        assert_eq!(checkout_venv(&exe), Some(venv.clone()));
        assert_eq!(
            candidates_from(None, None, None, Some(&exe)),
            vec![venv.clone(), PathBuf::from("python3")]
        );
        // A binary copied elsewhere: no `python-venv` beside its directory
        // is looked at, nor one in a `target` that is not a checkout's.
        let copied = root.join("shared/sub/robostats");
        fs::create_dir_all(root.join("shared/python-venv/bin")).unwrap();
        fs::create_dir_all(copied.parent().unwrap()).unwrap();
        fs::write(root.join("shared/python-venv/bin/python3"), "").unwrap();
        assert_eq!(checkout_venv(&copied), None);
        assert_eq!(
            candidates_from(None, None, None, Some(&copied)),
            vec![PathBuf::from("python3")]
        );
        let not_a_checkout = root.join("other/target/release/robostats");
        fs::create_dir_all(root.join("other/target/python-venv/bin")).unwrap();
        fs::create_dir_all(not_a_checkout.parent().unwrap()).unwrap();
        fs::write(root.join("other/target/python-venv/bin/python3"), "").unwrap();
        assert_eq!(checkout_venv(&not_a_checkout), None);
        // A directory on the way writable by others: not run.
        for dir in ["target", "target/python-venv", "target/python-venv/bin"] {
            let path = root.join("repo").join(dir);
            for mode in [0o775, 0o757, 0o777] {
                fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
                assert_eq!(checkout_venv(&exe), None, "{dir} {mode:o}");
            }
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert_eq!(checkout_venv(&exe), Some(venv.clone()));
        // Another user's directory on the way: not run (only root can make
        // one here).
        if rustix::process::geteuid().is_root() {
            let venv_dir = root.join("repo/target/python-venv");
            std::os::unix::fs::chown(&venv_dir, Some(65534), None).unwrap();
            assert_eq!(checkout_venv(&exe), None);
            std::os::unix::fs::chown(&venv_dir, Some(0), None).unwrap();
        }
        // A python3 that is a file writable by others: not run.
        let python = root.join("repo/target/python-venv/bin/python3");
        fs::remove_file(&python).unwrap();
        fs::write(&python, "").unwrap();
        fs::set_permissions(&python, fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(checkout_venv(&exe), None);
        fs::set_permissions(&python, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(checkout_venv(&exe), Some(venv));
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn the_users_choices_come_first_and_alone_with_python() {
        let exe = Path::new("/nonexistent/target/release/robostats");
        assert_eq!(
            candidates_from(
                None,
                Some("/a/python".into()),
                Some("/venv".into()),
                Some(exe)
            ),
            ["/a/python", "/venv/bin/python3", "python3"].map(PathBuf::from)
        );
        assert_eq!(
            candidates_from(None, Some("".into()), Some("".into()), Some(exe)),
            [PathBuf::from("python3")]
        );
        assert_eq!(
            candidates_from(
                Some(Path::new("/b/python")),
                Some("/a".into()),
                None,
                Some(exe)
            ),
            [PathBuf::from("/b/python")]
        );
    }
}
