//! A run that cannot write (a full disk, a read-only directory) stops with
//! a message naming the file, leaves no half-written part file where a
//! reader would see it, and once the cause is gone a re-run ends with the
//! rows of an uninterrupted run. Tested for real on a small tmpfs, which
//! needs root; elsewhere the tests say they are skipped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use parquet::file::reader::SerializedFileReader;
use robostats::classify::Table;

use crate::ingest::temp_out;
use crate::resume::{Inputs, assert_same_rows, manifest_lines, ok, part_files};

/// A tmpfs of a given size, unmounted when dropped.
struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    /// Mounts one, or says why not (not root, no mount command, a
    /// container that forbids it).
    fn mount(tag: &str, size: &str) -> Option<Tmpfs> {
        let dir = temp_out(&format!("tmpfs-{tag}"));
        fs::create_dir_all(&dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output();
        match mounted {
            Ok(o) if o.status.success() => Some(Tmpfs { dir }),
            Ok(o) => {
                eprintln!(
                    "skipped: cannot mount a tmpfs (needs root): {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                );
                let _ = fs::remove_dir(&dir);
                None
            }
            Err(e) => {
                eprintln!("skipped: no mount command: {e}");
                let _ = fs::remove_dir(&dir);
                None
            }
        }
    }

    fn remount(&self, options: &str) {
        let o = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).output();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The run failed (exit status 2) for `cause`, naming a file under `place`.
fn fails_naming(o: &Output, cause: &str, place: &Path) {
    let message = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{message}");
    assert!(message.contains(cause), "{message}");
    assert!(message.contains(&place.display().to_string()), "{message}");
}

/// A re-run into `out` completes, with the rows of one uninterrupted run.
fn rerun_gives_the_rows_of_one_run(inputs: &Inputs, out: &Path, tag: &str) {
    ok(&inputs.run(out, &["-j2"]));
    let whole = temp_out(&format!("{tag}-whole"));
    ok(&inputs.run(&whole, &["-j2"]));
    assert_same_rows(&whole, out);
    fs::remove_dir_all(&whole).unwrap();
}

/// Whatever a reader sees is whole: no temporary file is left, every
/// visible part file is a complete Parquet file, and each belongs to an
/// input the manifest records as done (or is a table's `~empty.parquet`, or
/// the data set's crawler list).
fn assert_no_partial_part_file(out: &Path) {
    let (visible, hidden) = part_files(out);
    assert!(hidden.is_empty(), "left behind: {hidden:?}");
    let done: Vec<PathBuf> = manifest_lines(out)
        .iter()
        .filter(|v| v["type"] == "input" && v["status"] == "done")
        .flat_map(|v| v["parts"].as_array().unwrap().clone())
        .map(|p| out.join(p["path"].as_str().unwrap()))
        .collect();
    for path in visible {
        SerializedFileReader::new(fs::File::open(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: not a whole Parquet file: {e}", path.display()));
        let empty = path.file_name().unwrap() == "~empty.parquet";
        let list = path.parent().unwrap().ends_with("agents");
        // A body's rows are no input's: published whole, they stay.
        let body = Table::ALL
            .iter()
            .any(|t| t.per_body() && path.parent().unwrap().ends_with(t.name()));
        assert!(
            empty || list || body || done.contains(&path),
            "{}: of no done input",
            path.display()
        );
    }
}

#[test]
fn a_full_disk_stops_the_run_and_a_rerun_completes() {
    // The four inputs make about 2 MB of tables (bodies stored once):
    // room for half.
    let Some(disk) = Tmpfs::mount("full", "1m") else {
        return;
    };
    let inputs = Inputs::new("full", 4);
    let out = disk.dir.join("out");
    // The message names the file it could not write, under the disk.
    let o = inputs.run(&out, &["-j2"]);
    fails_naming(&o, "No space left on device", &disk.dir);
    assert_no_partial_part_file(&out);

    disk.remount("size=64m");
    rerun_gives_the_rows_of_one_run(&inputs, &out, "full");
}

#[test]
fn a_read_only_directory_stops_the_run_and_a_rerun_completes() {
    let Some(disk) = Tmpfs::mount("ro", "64m") else {
        return;
    };
    let inputs = Inputs::new("ro", 3);
    let out = disk.dir.join("out");
    ok(&inputs.run(&out, &["-j2", "--shard", "0/3"]));
    disk.remount("ro");
    fails_naming(&inputs.run(&out, &["-j2"]), "Read-only file system", &out);
    assert_no_partial_part_file(&out);

    disk.remount("rw");
    rerun_gives_the_rows_of_one_run(&inputs, &out, "ro");
}
