//! The output directory under concurrent runs, planted links, damaged
//! part files and inputs cut short: no row lost or doubled, nothing
//! written outside the output directory, and every refusal says what to do.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use robostats::classify::Table;
use robostats::output::dataset::{Dataset, lock};

use crate::ingest::{rows, temp_out};
use crate::resume::{Inputs, assert_same_rows, ok};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz"
);
const SMALL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/cc-main-2024-22-whirlwind.warc.gz"
);
const MEDIUM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/cc-main-2020-34-resiliparse-warcfile.warc.gz"
);

fn ingest(dir: &Path, args: &[&str]) -> Output {
    Command::new(crate::robostats())
        .current_dir(dir)
        .arg("ingest")
        .args(args)
        .args(["-q"])
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Captures per input, by name.
type PerInput = Vec<(String, u64)>;

/// The `captures` count of each input's latest manifest line, and the
/// rows the `captures` table holds per input.
fn captures_per_input(out: &Path) -> (PerInput, PerInput) {
    let entries = robostats::output::dataset::manifest::read_inputs(out).unwrap();
    let mut said: Vec<(String, u64)> = entries
        .values()
        .filter(|e| e.line.status == robostats::output::dataset::InputStatus::Done)
        .map(|e| (e.line.input.clone(), e.line.counts.captures))
        .collect();
    said.sort();
    let mut held: std::collections::BTreeMap<String, u64> = Default::default();
    for row in rows(out, Table::Captures) {
        *held
            .entry(row.split('\t').next().unwrap().to_owned())
            .or_default() += 1;
    }
    (said, held.into_iter().collect())
}

#[test]
fn two_runs_into_one_directory_never_lose_or_double_rows() {
    let work = temp_out("twice-inputs");
    fs::create_dir_all(&work).unwrap();
    let names = ["a.warc.gz", "b.warc.gz", "c.warc.gz"];
    for (name, from) in names.iter().zip([SMALL, MEDIUM, SMALL]) {
        fs::copy(from, work.join(name)).unwrap();
    }
    let whole = work.join("whole");
    ok(&ingest(
        &work,
        &["a.warc.gz", "b.warc.gz", "c.warc.gz", "--out", "whole"],
    ));
    let mut refused = 0;
    for trial in 0..20 {
        let name = format!("out-{trial}");
        let out = work.join(&name);
        // A requeued job beside its first attempt: the same inputs, in the
        // opposite order, at the same time.
        let spawn = |order: &[&str]| {
            Command::new(crate::robostats())
                .current_dir(&work)
                .arg("ingest")
                .args(order)
                .arg("--out")
                .arg(&out)
                .args(["-q", "-j2"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let first = spawn(&names);
        let second = spawn(&["c.warc.gz", "b.warc.gz", "a.warc.gz"]);
        for o in [first.wait_with_output(), second.wait_with_output()] {
            let o = o.unwrap();
            match o.status.code() {
                Some(0) => {}
                Some(2) => {
                    let e = stderr(&o);
                    // (Named once the holder has signed the lock file.)
                    assert!(
                        e.contains("ingest (run) cannot run now")
                            && e.contains("/_manifest/run.lock"),
                        "trial {trial}: {e}"
                    );
                    refused += 1;
                }
                other => panic!("trial {trial}: exit {other:?}: {}", stderr(&o)),
            }
        }
        // Whatever happened, a re-run finishes the job with exactly the
        // rows of one run, and every done input holds the rows it says.
        ok(&ingest(
            &work,
            &["a.warc.gz", "b.warc.gz", "c.warc.gz", "--out", &name],
        ));
        assert_same_rows(&whole, &out);
        let (said, held) = captures_per_input(&out);
        assert_eq!(said, held, "trial {trial}");
        fs::remove_dir_all(&out).unwrap();
    }
    // The two runs did meet (each trial started both at once).
    assert!(refused > 0, "no trial had the two runs overlap");
    fs::remove_dir_all(&work).unwrap();
}

/// A lock let go is free at once, even while a child that another thread
/// forked meanwhile has not yet reached its `exec`: the child holds a copy
/// of the lock's open file until then, and a lock let go only by closing
/// ours would stay held by it (the cause of a rare failure of two runs in
/// one test process).
#[test]
fn a_lock_let_go_is_free_while_a_forked_child_starts() {
    use std::os::unix::process::CommandExt;
    use std::time::Duration;
    let out = temp_out("forked-holder");
    fs::create_dir_all(&out).unwrap();
    let held = lock::acquire(&out, lock::Holder::Ingest("run")).unwrap();
    let child = std::thread::spawn(|| {
        let mut command = Command::new("true");
        // SAFETY: the closure only sleeps, which is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                std::thread::sleep(Duration::from_secs(2));
                Ok(())
            });
        }
        // `spawn` returns once the child has exec'd.
        command.status().unwrap()
    });
    // The child is forked and holds its copy of the lock file.
    let lock_file = out.join("_manifest/run.lock");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !child_holds(&lock_file) {
        assert!(std::time::Instant::now() < deadline, "no child forked");
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(held);
    let again = lock::acquire(&out, lock::Holder::Ingest("run"));
    assert!(again.is_ok(), "{again:?}");
    drop(again);
    let compact = lock::acquire(&out, lock::Holder::Compact);
    assert!(compact.is_ok(), "{compact:?}");
    assert!(child.join().unwrap().success());
    fs::remove_dir_all(&out).unwrap();
}

/// Whether a child of this process has `path` open (Linux's `/proc`).
fn child_holds(path: &Path) -> bool {
    let children = fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten();
    children
        .filter_map(|task| fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|pids| {
            pids.split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .filter_map(|pid| fs::read_dir(format!("/proc/{pid}/fd")).ok())
        .flat_map(|fds| fds.flatten())
        .any(|fd| fs::read_link(fd.path()).is_ok_and(|target| target == path))
}

#[test]
fn compact_and_ingest_exclude_each_other() {
    let inputs = Inputs::new("exclude", 2);
    let out = temp_out("exclude");
    ok(&inputs.run(&out, &["-j1"]));
    let dataset = Dataset::open(&out).unwrap();
    // An ingest holds its lock: compact is refused, naming it.
    let held = dataset.lock_ingest("shard-00001-of-00002").unwrap();
    let o = Command::new(crate::robostats())
        .arg("compact")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("compact cannot run now") && stderr(&o).contains("wait for it to end"),
        "{}",
        stderr(&o)
    );
    drop(held);
    // A compaction holds the data set: an ingest is refused, naming it.
    let held = dataset.lock_compact().unwrap();
    let o = inputs.run(&out, &["-j1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("robostats compact, process"),
        "{}",
        stderr(&o)
    );
    drop(held);
    ok(&inputs.run(&out, &["-j1"]));
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn clean_up_never_takes_another_inputs_files() {
    // `n/a.warc.gz`'s part files start with `a-<hash>-`; a done input
    // named `a-<that hash>-x.warc.gz` starts the same way.
    let work = temp_out("prefix-clash");
    fs::create_dir_all(work.join("n")).unwrap();
    let stem = robostats::output::dataset::part_stem("n/a.warc.gz");
    let other = format!("n/{stem}-x.warc.gz");
    fs::copy(SMALL, work.join(&other)).unwrap();
    fs::copy(MEDIUM, work.join("n/a.warc.gz")).unwrap();
    ok(&ingest(&work, &[&other, "--out", "out"]));
    let before = rows(&work.join("out"), Table::Captures).len();
    assert!(before > 0);
    ok(&ingest(&work, &["n/a.warc.gz", &other, "--out", "out"]));
    let (said, held) = captures_per_input(&work.join("out"));
    assert_eq!(said, held);
    assert_eq!(said.len(), 2, "{said:?}");
    fs::remove_dir_all(&work).unwrap();
}

#[test]
fn names_that_are_not_utf8_stay_two_inputs() {
    let work = temp_out("not-utf8");
    let dir = work.join("in");
    fs::create_dir_all(&dir).unwrap();
    for byte in [0xffu8, 0xfe] {
        let mut name = vec![b'b', byte];
        name.extend_from_slice(b".warc.gz");
        fs::copy(SMALL, dir.join(std::ffi::OsStr::from_bytes(&name))).unwrap();
    }
    let o = ingest(&work, &["in", "--out", "out"]);
    let stdout = ok(&o);
    assert!(stdout.starts_with("ingest: 2 files done"), "{stdout}");
    assert!(!stderr(&o).contains("listed twice"), "{}", stderr(&o));
    let (said, held) = captures_per_input(&work.join("out"));
    assert_eq!(said, held);
    let names: Vec<&str> = said.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["in/b\\xfe.warc.gz", "in/b\\xff.warc.gz"]);
    // A re-run knows both.
    let stdout = ok(&ingest(&work, &["in", "--out", "out"]));
    assert!(stdout.contains("2 skipped (done earlier)"), "{stdout}");
    fs::remove_dir_all(&work).unwrap();
}

#[test]
fn a_part_file_deleted_by_hand_makes_its_input_done_again() {
    let work = temp_out("deleted-part");
    fs::create_dir_all(&work).unwrap();
    fs::copy(MEDIUM, work.join("a.warc.gz")).unwrap();
    fs::copy(SMALL, work.join("b.warc.gz")).unwrap();
    ok(&ingest(
        &work,
        &["a.warc.gz", "b.warc.gz", "--out", "whole"],
    ));
    ok(&ingest(&work, &["a.warc.gz", "b.warc.gz", "--out", "out"]));
    let captures = work.join("out/captures");
    let victim = fs::read_dir(&captures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("a-"))
        .unwrap();
    fs::remove_file(&victim).unwrap();
    let o = ingest(&work, &["a.warc.gz", "b.warc.gz", "--out", "out"]);
    let stdout = ok(&o);
    assert!(
        stderr(&o).contains("'a.warc.gz' is done again: its part file captures/a-")
            && stderr(&o).contains("is missing"),
        "{}",
        stderr(&o)
    );
    assert!(stdout.starts_with("ingest: 1 file done"), "{stdout}");
    assert_same_rows(&work.join("whole"), &work.join("out"));
    // Then it is done: the next run skips both.
    let stdout = ok(&ingest(&work, &["a.warc.gz", "b.warc.gz", "--out", "out"]));
    assert!(stdout.contains("2 skipped"), "{stdout}");
    fs::remove_dir_all(&work).unwrap();
}

#[test]
fn an_input_cut_short_fails_and_is_done_once_whole() {
    let work = temp_out("cut-short");
    fs::create_dir_all(&work).unwrap();
    let whole_bytes = fs::read(SAMPLE).unwrap();
    // An interrupted download: the first 1,000,000 bytes.
    fs::write(work.join("x.warc.gz"), &whole_bytes[..1_000_000]).unwrap();
    let o = ingest(&work, &["x.warc.gz", "--out", "out"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("could not read 'x.warc.gz': the input is cut short")
            && stderr(&o).contains("truncated_member"),
        "{}",
        stderr(&o)
    );
    // Nothing of it is visible.
    for &table in Table::ALL.iter().filter(|t| t.per_input()) {
        assert!(
            rows(&work.join("out"), table).is_empty(),
            "{}",
            table.name()
        );
    }
    // The whole file copied over it: the next run does it.
    fs::write(work.join("x.warc.gz"), &whole_bytes).unwrap();
    let stdout = ok(&ingest(&work, &["x.warc.gz", "--out", "out"]));
    assert!(stdout.contains("1 file done, 0 failed, 0 skipped (done earlier), 1 retried"));
    ok(&ingest(&work, &["x.warc.gz", "--out", "whole"]));
    assert_same_rows(&work.join("whole"), &work.join("out"));
    // --redo does a done input again, with the same rows in the end.
    let o = ingest(&work, &["x.warc.gz", "--out", "out", "--redo", "x.warc.gz"]);
    let stdout = ok(&o);
    assert!(
        stderr(&o).contains("'x.warc.gz' is done again: --redo names it"),
        "{}",
        stderr(&o)
    );
    assert!(stdout.starts_with("ingest: 1 file done"), "{stdout}");
    assert_same_rows(&work.join("whole"), &work.join("out"));
    // Before its part files were replaced, the input was marked failed (a
    // run killed then redoes it), then done.
    let manifest = fs::read_to_string(work.join("out/_manifest/run.jsonl")).unwrap();
    let marked = manifest.find("being done again: --redo names it").unwrap();
    assert!(
        manifest[marked..].contains("\"status\":\"done\""),
        "{manifest}"
    );
    let stdout = ok(&ingest(&work, &["x.warc.gz", "--out", "out"]));
    assert!(stdout.contains("1 skipped"), "{stdout}");
    // --redo of a name not among the inputs is refused.
    let o = ingest(&work, &["x.warc.gz", "--out", "out", "--redo", "y.warc.gz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--redo 'y.warc.gz'"), "{}", stderr(&o));
    fs::remove_dir_all(&work).unwrap();
}

#[test]
fn a_broken_member_in_the_middle_is_an_error_row_and_the_input_done() {
    use crate::warc_broken::{gz, ok_record, three_members};
    let work = temp_out("broken-middle");
    fs::create_dir_all(&work).unwrap();
    let bad = gz(&ok_record(1));
    // Cut in the middle, records after it: done, with an errors row.
    fs::write(
        work.join("middle.warc.gz"),
        three_members(bad[..bad.len() / 2].to_vec()),
    )
    .unwrap();
    // Cut at the end: failed.
    let mut end = three_members(bad.clone());
    let last = gz(&ok_record(2));
    end.truncate(end.len() - last.len() / 2);
    fs::write(work.join("end.warc.gz"), &end).unwrap();
    let o = ingest(&work, &["middle.warc.gz", "end.warc.gz", "--out", "out"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("could not read 'end.warc.gz': the input is cut short"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("'middle.warc.gz'"), "{}", stderr(&o));
    let (said, held) = captures_per_input(&work.join("out"));
    assert_eq!(said, held);
    assert_eq!(said, [("middle.warc.gz".to_owned(), 2)]);
    let errors = rows(&work.join("out"), Table::Errors);
    assert!(
        !errors.is_empty() && errors.iter().all(|e| e.starts_with("middle.warc.gz\t")),
        "{errors:?}"
    );
    fs::remove_dir_all(&work).unwrap();
}

#[test]
fn links_planted_in_the_output_directory_are_refused() {
    let work = temp_out("planted");
    fs::create_dir_all(&work).unwrap();
    fs::copy(SMALL, work.join("a.warc.gz")).unwrap();
    fs::copy(MEDIUM, work.join("b.warc.gz")).unwrap();
    ok(&ingest(&work, &["a.warc.gz", "--out", "out"]));
    // Somebody else's files.
    let elsewhere = work.join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("list-0000000000000000.parquet"), b"theirs").unwrap();
    fs::write(elsewhere.join("notes.jsonl"), b"theirs\n").unwrap();
    let listing = |dir: &Path| {
        let mut names: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (p.display().to_string(), fs::read(&p).unwrap())
            })
            .collect();
        names.sort();
        names
    };
    let before = listing(&elsewhere);
    // Ingest and compact both refuse the data set (exit 2), writing
    // nothing elsewhere; ingest's message.
    let both_refuse = || {
        let o = ingest(&work, &["a.warc.gz", "b.warc.gz", "--out", "out"]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let c = Command::new(crate::robostats())
            .arg("compact")
            .arg(work.join("out"))
            .output()
            .unwrap();
        assert_eq!(c.status.code(), Some(2), "{}", stderr(&c));
        assert_eq!(listing(&elsewhere), before);
        stderr(&o)
    };

    // The agents table's directory a link to another directory.
    let agents = work.join("out/agents");
    fs::rename(&agents, work.join("agents-moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &agents).unwrap();
    let o = ingest(&work, &["a.warc.gz", "b.warc.gz", "--out", "out"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("out/agents is a symbolic link") && stderr(&o).contains("Remove it"),
        "{}",
        stderr(&o)
    );
    assert_eq!(listing(&elsewhere), before);
    fs::remove_file(&agents).unwrap();
    fs::rename(work.join("agents-moved"), &agents).unwrap();

    // A crawl table's directory (which compact writes and a --redo
    // empties) a link: ingest and compact refuse, nothing written there.
    let crawl_hosts = work.join("out/crawl_hosts");
    std::os::unix::fs::symlink(&elsewhere, &crawl_hosts).unwrap();
    let said = both_refuse();
    assert!(
        said.contains("out/crawl_hosts is a symbolic link"),
        "{said}"
    );
    fs::remove_file(&crawl_hosts).unwrap();

    // The manifest a link to another file.
    let manifest = work.join("out/_manifest/run.jsonl");
    fs::rename(&manifest, work.join("run.jsonl")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("notes.jsonl"), &manifest).unwrap();
    let said = both_refuse();
    assert!(said.contains("symbolic link"), "{said}");
    fs::remove_file(&manifest).unwrap();
    fs::rename(work.join("run.jsonl"), &manifest).unwrap();

    // A link among a table's files, named as a leftover part file of the
    // input about to be done: not deleted, not followed.
    let stem = robostats::output::dataset::part_stem("b.warc.gz");
    let planted = work.join(format!("out/captures/{stem}-00.parquet"));
    std::os::unix::fs::symlink(elsewhere.join("notes.jsonl"), &planted).unwrap();
    // A link among the stored bodies' files: not read when the run reads
    // which bodies are stored, not deleted.
    let planted_body = work.join("out/bodies/planted.parquet");
    std::os::unix::fs::symlink(elsewhere.join("notes.jsonl"), &planted_body).unwrap();
    // (One thread: b's captures are written by lane 00.)
    let o = ingest(&work, &["a.warc.gz", "b.warc.gz", "--out", "out", "-j1"]);
    // The rename of b's finished part file replaces the link itself.
    ok(&o);
    assert!(!fs::symlink_metadata(&planted).unwrap().is_symlink());
    assert!(fs::symlink_metadata(&planted_body).unwrap().is_symlink());
    assert_eq!(listing(&elsewhere), before);
    fs::remove_dir_all(&work).unwrap();
}

#[test]
fn a_mirror_switched_halfway_keeps_the_done_inputs() {
    let inputs = Inputs::new("mirror", 3);
    let out = temp_out("mirror");
    ok(&inputs.run(&out, &["-j1"]));
    // The same lines under another prefix (another mirror of the same
    // files): done, not refused.
    let mirror = temp_out("mirror-copy");
    fs::create_dir_all(&mirror).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(inputs.dir.join("crawl"))
        .arg(&mirror)
        .status()
        .unwrap();
    assert!(copied.success());
    let o = Command::new(crate::robostats())
        .arg("ingest")
        .arg("--paths")
        .arg(&inputs.paths)
        .arg("--prefix")
        .arg(&mirror)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = ok(&o);
    assert!(
        stdout.contains("0 files done, 0 failed, 3 skipped"),
        "{stdout}"
    );
    fs::remove_dir_all(&out).unwrap();
    fs::remove_dir_all(&mirror).unwrap();
}
