//! Faults around the body store and `compact`, tried as a hostile user
//! would: compact and ingest killed at every step (SIGKILL at each rename,
//! link, unlink and sync they make, by strace's fault injection), compact
//! killed at each rename where directories cannot be exchanged in one
//! step (renameat2's exchange refused, as on NFS), or compact unable to
//! delete (EBUSY, as NFS answers for a file held open).
//! Whatever happens, the tables read as a clean run's, or a run says
//! plainly what to do. (Body files deleted or forged, and files planted
//! among them: `forgery.rs`.)
//!
//! `compact` runs here without its crawl tables (`--no-crawl-tables`):
//! they are written by a DuckDB process of its own, whose calls strace
//! would count and kill among compact's; a failure writing them is a
//! warning after the rows are compacted (tests/python/test_crawl_tables.py).
//!
//! The strace tests need strace (Debian's `strace`; `scripts/test.sh`
//! installs it); `ROBOSTATS_NO_STRACE=1` skips them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use robostats::classify::Table;

use crate::compact::{compact, compact_command};
use crate::ingest::{rows, temp_out};
use crate::resume::{Inputs, ok};

const PREFERENCES: &str = "samples/preferences/CC-MAIN-20251108044800-20251108074800-00010.warc.gz";

/// Small inputs with rows in every table stored once per body; the first
/// two are one file under two names (their bodies are the same).
pub(crate) const SMALL: [&str; 4] = [
    PREFERENCES,
    PREFERENCES,
    "samples/cc-main-2024-22-whirlwind.warc.gz",
    "samples/cc-main-2020-34-resiliparse-warcfile.warc.gz",
];

pub(crate) fn robostats() -> PathBuf {
    crate::robostats()
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every table's rows as the views read them (see [`rows`]).
pub(crate) fn tables(out: &Path) -> Vec<Vec<String>> {
    Table::ALL.iter().map(|&t| rows(out, t)).collect()
}

pub(crate) fn assert_rows(expected: &[Vec<String>], out: &Path, when: &str) {
    for (table, (want, got)) in Table::ALL.iter().zip(expected.iter().zip(tables(out))) {
        assert_eq!(
            want.len(),
            got.len(),
            "{when}: {}: row counts differ",
            table.name()
        );
        assert!(*want == got, "{when}: {}: rows differ", table.name());
    }
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Hidden directories a compaction leaves behind it.
fn staging_left(out: &Path) -> Vec<String> {
    fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".compact-"))
        .collect()
}

/// A data set of two shards that each stored the bodies they share (as
/// shards running at once do): every table has files to merge, and the
/// tables stored once per body have copies to leave out.
pub(crate) fn two_shards(inputs: &Inputs, out: &Path) {
    ok(&inputs.run(out, &["-j2", "--shard", "0/2"]));
    // The second shard does not see what the first recorded.
    let manifest = out.join("_manifest/shard-00000-of-00002.jsonl");
    let hidden = out.join("_manifest/shard-0.hidden");
    fs::rename(&manifest, &hidden).unwrap();
    ok(&inputs.run(out, &["-j2", "--shard", "1/2"]));
    fs::rename(&hidden, &manifest).unwrap();
}

/// strace, unless `ROBOSTATS_NO_STRACE` is set; a test that needs it and
/// cannot run it fails, saying how to get it.
pub(crate) fn strace() -> Option<&'static str> {
    if std::env::var_os("ROBOSTATS_NO_STRACE").is_some() {
        eprintln!("skipped: ROBOSTATS_NO_STRACE is set");
        return None;
    }
    let works = Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        works,
        "strace does not run here: install it (Debian: apt install strace; scripts/test.sh \
         does as root), or set ROBOSTATS_NO_STRACE=1 to skip these tests"
    );
    Some("strace")
}

/// The calls whose every occurrence a compaction is killed at: what
/// publishes, swaps, links, deletes and syncs.
const CALLS: [&str; 6] = [
    "rename",
    "renameat2",
    "linkat",
    "unlinkat",
    "fsync",
    "fdatasync",
];

/// How `compact` swaps a table's directory for its new set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Swap {
    /// In one step (`renameat2(RENAME_EXCHANGE)`).
    Exchange,
    /// As where the system cannot exchange (NFS): the exchange refused
    /// with EINVAL (strace), the table renamed aside, the new set renamed
    /// in, the old set renamed to the staging name.
    TwoSteps,
}

impl Swap {
    /// What strace is told, beside the calls it kills at, to make it so.
    fn strace_args(self) -> &'static [&'static str] {
        match self {
            Swap::Exchange => &[],
            Swap::TwoSteps => &["-e", "inject=renameat2:error=EINVAL"],
        }
    }
}

/// How many times a thread of `compact -j1` makes each of `calls` on a
/// copy of `base`, at most (strace counts a call per thread).
fn count_calls(
    strace: &str,
    base: &Path,
    calls: &[&'static str],
    swap: Swap,
) -> Vec<(&'static str, usize)> {
    let out = temp_out(&format!("faults-count-{swap:?}"));
    copy_dir(base, &out);
    let counts = calls_per_thread(strace, calls, &compact_command(&out, &["-j1"]), swap);
    fs::remove_dir_all(&out).unwrap();
    counts
}

/// `command` killed (SIGKILL) at its `n`th `call`; whether it was.
fn killed_at(strace: &str, command: &Command, call: &str, n: usize, swap: Swap) -> bool {
    let status = Command::new(strace)
        .args(["-f", "-o", "/dev/null", "-e"])
        .arg(format!("trace={call},renameat2"))
        .arg("-e")
        .arg(format!("inject={call}:signal=KILL:when={n}"))
        .args(swap.strace_args())
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    !status.success()
}

/// `compact -j1 OUT` killed at the `n`th `call`; whether it was.
fn compact_killed_at(strace: &str, out: &Path, call: &str, n: usize, swap: Swap) -> bool {
    killed_at(strace, &compact_command(out, &["-j1"]), call, n, swap)
}

/// The small inputs under `tag`, a clean run of them (`-j1`) and its rows.
pub(crate) fn clean_run(tag: &str) -> (Inputs, PathBuf, Vec<Vec<String>>) {
    let inputs = Inputs::with(tag, &SMALL);
    let clean = temp_out(&format!("{tag}-clean"));
    ok(&inputs.run(&clean, &["-j1"]));
    let expected = tables(&clean);
    (inputs, clean, expected)
}

/// Runs `each` on every kill point, in two threads (the work is mostly
/// waiting for processes); returns how many of them killed their process.
fn at_every_point(points: &[(&str, usize)], each: impl Fn(&str, usize) -> bool + Sync) -> usize {
    let killed = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for half in points.chunks(points.len().div_ceil(2)) {
            let (each, killed) = (&each, &killed);
            scope.spawn(move || {
                for &(call, n) in half {
                    if each(call, n) {
                        killed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    killed.into_inner()
}

#[test]
fn compact_killed_at_every_step_loses_and_doubles_nothing() {
    compact_killed_at_every_step("faults-kill", &CALLS, Swap::Exchange);
}

/// Where directories cannot be exchanged in one step, a compaction killed
/// between its renames leaves a table missing for a moment (never
/// doubled), which the next ingest or compaction puts back.
#[test]
fn compact_killed_between_its_two_step_renames_loses_and_doubles_nothing() {
    compact_killed_at_every_step("faults-two-steps", &["rename"], Swap::TwoSteps);
}

/// `compact` of two shards' data set killed at every occurrence of each
/// of `calls`, swapping as `swap` says: what a reader sees then, and what
/// ingest and a second compact make of it, in both orders, are a clean
/// run's rows.
fn compact_killed_at_every_step(tag: &str, calls: &[&'static str], swap: Swap) {
    let Some(strace) = strace() else {
        return;
    };
    let (inputs, clean, expected) = clean_run(tag);
    let base = temp_out(&format!("{tag}-base"));
    two_shards(&inputs, &base);
    assert_rows(&expected, &base, "two shards");
    let counts = count_calls(strace, &base, calls, swap);
    eprintln!("compact ({swap:?}) killed at its calls: {counts:?}");
    assert!(
        counts.iter().all(|&(_, n)| n > 0),
        "{counts:?}: strace saw no call of one kind"
    );
    // Every occurrence of every call.
    let points: Vec<(&str, usize)> = counts
        .iter()
        .flat_map(|&(call, n)| (1..=n).map(move |i| (call, i)))
        .collect();
    let killed = at_every_point(&points, |call, n| {
        let when = format!("killed at {call} #{n}");
        let out = temp_out(&format!("{tag}-{call}-{n}"));
        copy_dir(&base, &out);
        let killed = compact_killed_at(strace, &out, call, n, swap);
        // What a reader sees now (in two steps, a table may be missing:
        // its rows are then where the next run finds them); then what
        // ingest and a second compact make of it, in both orders (odd
        // points: ingest first, even: compact first). The done inputs are
        // never done again: nothing doubles, and no later ingest refuses.
        if swap == Swap::Exchange || Table::ALL.iter().all(|t| out.join(t.name()).is_dir()) {
            assert_rows(&expected, &out, &when);
        }
        for step in if n % 2 == 1 {
            ["ingest", "compact"]
        } else {
            ["compact", "ingest"]
        } {
            if step == "ingest" {
                let stdout = ok(&inputs.run(&out, &["-j2"]));
                assert!(
                    stdout.contains("0 files done, 0 failed"),
                    "{when}: {stdout}"
                );
            } else {
                ok(&compact(&out, &[]));
            }
            assert_rows(&expected, &out, &format!("{when}, then {step}"));
        }
        assert_eq!(staging_left(&out), Vec::<String>::new(), "{when}");
        fs::remove_dir_all(&out).unwrap();
        killed
    });
    // (strace counts calls per thread: each point is some thread's call.)
    assert_eq!(
        killed,
        points.len(),
        "only {killed} of {} compactions were killed",
        points.len()
    );
    fs::remove_dir_all(&base).unwrap();
    fs::remove_dir_all(&clean).unwrap();
}

/// How many times a thread of `command` makes each of `calls`, at most.
fn calls_per_thread(
    strace: &str,
    calls: &[&'static str],
    command: &Command,
    swap: Swap,
) -> Vec<(&'static str, usize)> {
    // (a name of its own: the tests run at once)
    static TRACES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = TRACES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let trace = temp_out(&format!("faults-trace-{n}")).with_extension("strace");
    let o = Command::new(strace)
        .args(["-f", "-o"])
        .arg(&trace)
        .arg("-e")
        .arg(format!("trace={},renameat2", calls.join(",")))
        .args(swap.strace_args())
        .arg(command.get_program())
        .args(command.get_args())
        .output()
        .unwrap();
    ok(&o);
    let text = fs::read_to_string(&trace).unwrap();
    fs::remove_file(&trace).unwrap();
    let mut per_thread: std::collections::HashMap<(&str, &str), usize> = Default::default();
    for line in text.lines() {
        let Some((pid, call)) = line.split_once(' ') else {
            continue;
        };
        let call = call.trim_start();
        if let Some(&name) = calls.iter().find(|c| call.starts_with(&format!("{c}("))) {
            *per_thread.entry((pid, name)).or_default() += 1;
        }
    }
    calls
        .iter()
        .map(|&call| {
            let most = per_thread
                .iter()
                .filter(|((_, c), _)| *c == call)
                .map(|(_, n)| *n)
                .max()
                .unwrap_or(0);
            (call, most)
        })
        .collect()
}

#[test]
fn ingest_killed_at_every_step_resumes_to_the_same_rows() {
    let Some(strace) = strace() else {
        return;
    };
    let (inputs, clean, expected) = clean_run("faults-ingest");
    // Publishing (rename), the manifest's lines (fdatasync: the line is
    // written just before), what makes them durable (fsync), clean-up.
    let calls = ["rename", "fdatasync", "fsync", "unlinkat"];
    let probe = temp_out("faults-ingest-probe");
    let counts = calls_per_thread(
        strace,
        &calls,
        &inputs.command(&probe, &["-j1"]),
        Swap::Exchange,
    );
    fs::remove_dir_all(&probe).unwrap();
    let points: Vec<(&str, usize)> = counts
        .iter()
        .flat_map(|&(call, n)| {
            let step = if call == "fsync" { 3 } else { 1 };
            (1..=n).step_by(step).map(move |i| (call, i))
        })
        .collect();
    assert!(points.len() > 20, "{counts:?}");
    eprintln!("ingest killed at {} points: {counts:?}", points.len());
    let killed = at_every_point(&points, |call, n| {
        let when = format!("ingest killed at {call} #{n}");
        let out = temp_out(&format!("faults-ingest-{call}-{n}"));
        let killed = killed_at(
            strace,
            &inputs.command(&out, &["-j1"]),
            call,
            n,
            Swap::Exchange,
        );
        if n % 2 == 1 {
            // A killed ingest holds nothing: compact runs at once (its
            // lock died with it), merging only what is done.
            let o = compact(&out, &[]);
            assert_ne!(o.status.code(), Some(2), "{when}: {}", stderr(&o));
        }
        ok(&inputs.run(&out, &["-j1"]));
        assert_rows(&expected, &out, &when);
        let hidden = crate::resume::part_files(&out).1;
        assert!(hidden.is_empty(), "{when}: left {hidden:?}");
        fs::remove_dir_all(&out).unwrap();
        killed
    });
    assert_eq!(killed, points.len());
    fs::remove_dir_all(&clean).unwrap();
}

#[test]
fn compact_that_cannot_delete_warns_and_the_next_one_finishes() {
    let Some(strace) = strace() else {
        return;
    };
    let (inputs, clean, expected) = clean_run("faults-ebusy");
    let out = temp_out("faults-ebusy");
    two_shards(&inputs, &out);
    // Every deletion fails as on NFS when a reader holds the file open.
    let compact_busy = |args: &[&str]| {
        let compact = compact_command(&out, args);
        Command::new(strace)
            .args(["-f", "-o", "/dev/null", "-e", "trace=unlinkat"])
            .args(["-e", "inject=unlinkat:error=EBUSY"])
            .arg(compact.get_program())
            .args(compact.get_args())
            .output()
            .unwrap()
    };
    let o = compact_busy(&[]);
    ok(&o);
    assert!(
        stderr(&o).contains("warning: could not delete the old files of"),
        "{}",
        stderr(&o)
    );
    assert!(!staging_left(&out).is_empty());
    assert_rows(&expected, &out, "deletions failed");
    let stdout = ok(&inputs.run(&out, &["-j2"]));
    assert!(stdout.contains("0 files done, 0 failed"), "{stdout}");
    assert_rows(&expected, &out, "deletions failed, then ingest");
    // Still failing: the leftovers are renamed out of the way, and this
    // compaction's own go the same way.
    let o = compact_busy(&["--target-size", "1G"]);
    ok(&o);
    assert!(
        stderr(&o).contains("the next compact tries again"),
        "{}",
        stderr(&o)
    );
    assert_rows(&expected, &out, "deletions failed twice");
    // Deletions work again: nothing is left.
    ok(&compact(&out, &[]));
    assert_eq!(staging_left(&out), Vec::<String>::new());
    assert_rows(&expected, &out, "compacted");
    fs::remove_dir_all(&out).unwrap();
    fs::remove_dir_all(&clean).unwrap();
}
