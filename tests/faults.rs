//! Faults around the body store and `compact`, tried as a hostile user
//! would: compact killed at every step (SIGKILL at each rename, link,
//! unlink and sync it makes, by strace's fault injection) or unable to
//! delete (EBUSY, as NFS answers for a file held open), body files deleted
//! by hand, two bodies forged to share an XXH3-128 digest, and a FIFO and
//! a link planted among the part files. Whatever happens, the tables read
//! as a clean run's, or a run says plainly what to do.
//!
//! The strace tests need strace (Debian's `strace`; `scripts/test.sh`
//! installs it); `ROBOSTATS_NO_STRACE=1` skips them.

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use robostats::classify::Table;

use crate::ingest::{rows, temp_out};
use crate::resume::{Inputs, compact, ok};

const PREFERENCES: &str = "samples/preferences/CC-MAIN-20251108044800-20251108074800-00010.warc.gz";

/// Small inputs with rows in every table stored once per body; the first
/// two are one file under two names (their bodies are the same).
const SMALL: [&str; 4] = [
    PREFERENCES,
    PREFERENCES,
    "samples/cc-main-2024-22-whirlwind.warc.gz",
    "samples/cc-main-2020-34-resiliparse-warcfile.warc.gz",
];

fn robostats() -> PathBuf {
    crate::robostats()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every table's rows as the views read them (see [`rows`]).
fn tables(out: &Path) -> Vec<Vec<String>> {
    Table::ALL.iter().map(|&t| rows(out, t)).collect()
}

fn assert_rows(expected: &[Vec<String>], out: &Path, when: &str) {
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

fn copy_dir(from: &Path, to: &Path) {
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
fn two_shards(inputs: &Inputs, out: &Path) {
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
fn strace() -> Option<&'static str> {
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

/// How many times a thread of `compact -j1` makes each of [`CALLS`] on a
/// copy of `base`, at most (strace counts a call per thread).
fn count_calls(strace: &str, base: &Path) -> Vec<(&'static str, usize)> {
    let out = temp_out("faults-count");
    copy_dir(base, &out);
    let mut compact = Command::new(robostats());
    compact.args(["compact", "-j1"]).arg(&out);
    let counts = calls_per_thread(strace, &CALLS, &compact);
    fs::remove_dir_all(&out).unwrap();
    counts
}

/// `command` killed (SIGKILL) at its `n`th `call`; whether it was.
fn killed_at(strace: &str, command: &Command, call: &str, n: usize) -> bool {
    let status = Command::new(strace)
        .args(["-f", "-o", "/dev/null", "-e"])
        .arg(format!("trace={call}"))
        .arg("-e")
        .arg(format!("inject={call}:signal=KILL:when={n}"))
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    !status.success()
}

/// `compact -j1 OUT` killed at the `n`th `call`; whether it was.
fn compact_killed_at(strace: &str, out: &Path, call: &str, n: usize) -> bool {
    let mut compact = Command::new(robostats());
    compact.args(["compact", "-j1"]).arg(out);
    killed_at(strace, &compact, call, n)
}

/// The small inputs under `tag`, a clean run of them (`-j1`) and its rows.
fn clean_run(tag: &str) -> (Inputs, PathBuf, Vec<Vec<String>>) {
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
    let Some(strace) = strace() else {
        return;
    };
    let (inputs, clean, expected) = clean_run("faults-kill");
    let base = temp_out("faults-kill-base");
    two_shards(&inputs, &base);
    assert_rows(&expected, &base, "two shards");
    let counts = count_calls(strace, &base);
    eprintln!("compact killed at its calls: {counts:?}");
    assert!(
        counts.iter().all(|&(_, n)| n > 0),
        "{counts:?}: strace saw no call of one kind"
    );
    // Every occurrence of every call but two: of the deletions of a
    // table's old files (one directory's files in a row), every fourth,
    // and of the syncs (a file's, then its directory's), every second.
    let points: Vec<(&str, usize)> = counts
        .iter()
        .flat_map(|&(call, n)| {
            let step = match call {
                "unlinkat" => 4,
                "fsync" => 2,
                _ => 1,
            };
            (1..=n).step_by(step).map(move |i| (call, i))
        })
        .collect();
    let killed = at_every_point(&points, |call, n| {
        let when = format!("killed at {call} #{n}");
        let out = temp_out(&format!("faults-kill-{call}-{n}"));
        copy_dir(&base, &out);
        let killed = compact_killed_at(strace, &out, call, n);
        // What a reader sees now; what ingest makes of it (the done inputs
        // are not done again: nothing doubles); what a second compact
        // makes of it.
        assert_rows(&expected, &out, &when);
        let stdout = ok(&inputs.run(&out, &["-j2"]));
        assert!(
            stdout.contains("0 files done, 0 failed"),
            "{when}: {stdout}"
        );
        assert_rows(&expected, &out, &format!("{when}, then ingest"));
        ok(&compact(&out, &[]));
        assert_rows(&expected, &out, &format!("{when}, then compact"));
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
) -> Vec<(&'static str, usize)> {
    let trace = temp_out("faults-trace").with_extension("strace");
    let o = Command::new(strace)
        .args(["-f", "-o"])
        .arg(&trace)
        .arg("-e")
        .arg(format!("trace={}", calls.join(",")))
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
    let counts = calls_per_thread(strace, &calls, &inputs.command(&probe, &["-j1"]));
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
        let killed = killed_at(strace, &inputs.command(&out, &["-j1"]), call, n);
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
        Command::new(strace)
            .args(["-f", "-o", "/dev/null", "-e", "trace=unlinkat"])
            .args(["-e", "inject=unlinkat:error=EBUSY"])
            .arg(robostats())
            .arg("compact")
            .args(args)
            .arg(&out)
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

/// The first finished part file of `table` (not the schema-only one).
fn first_part(out: &Path, table: Table) -> PathBuf {
    let mut names: Vec<PathBuf> = fs::read_dir(out.join(table.name()))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with("~empty.parquet"))
        .collect();
    names.sort();
    names.into_iter().next().expect("a part file")
}

#[test]
fn a_body_file_deleted_by_hand_is_written_again() {
    let (inputs, clean, expected) = clean_run("faults-bodies");
    let compacted = temp_out("faults-bodies-compacted");
    copy_dir(&clean, &compacted);
    ok(&compact(&compacted, &[]));
    for &table in Table::ALL.iter().filter(|t| t.per_body()) {
        for base in [&clean, &compacted] {
            let when = format!("{} deleted from {}", table.name(), base.display());
            let out = temp_out("faults-bodies");
            copy_dir(base, &out);
            fs::remove_file(first_part(&out, table)).unwrap();
            let o = inputs.run(&out, &["-j1"]);
            let stdout = ok(&o);
            assert!(
                stderr(&o).contains("written again") && stdout.contains("read again"),
                "{when}: {}{stdout}",
                stderr(&o)
            );
            assert!(
                stdout.contains("0 files done, 0 failed, 4 skipped"),
                "{when}: {stdout}"
            );
            assert_rows(&expected, &out, &when);
            // Repaired: the next run has nothing to do.
            let stdout = ok(&inputs.run(&out, &["-j1"]));
            assert!(!stdout.contains("bodies:"), "{when}: {stdout}");
            // And compact leaves the retired writer's lines out.
            ok(&compact(&out, &[]));
            assert_rows(&expected, &out, &format!("{when}, then compact"));
            fs::remove_dir_all(&out).unwrap();
        }
    }
    fs::remove_dir_all(&compacted).unwrap();
    fs::remove_dir_all(&clean).unwrap();
}

#[test]
fn bodies_lost_with_their_inputs_elsewhere_are_named() {
    let inputs = Inputs::with("faults-lost", &SMALL);
    let out = temp_out("faults-lost");
    ok(&inputs.run(&out, &["-j1"]));
    let expected = tables(&out);
    // The bodies of the first input go; a run reads only the last one.
    let stem = robostats::output::dataset::part_stem("crawl/segment-00.warc.gz");
    for entry in fs::read_dir(out.join("bodies")).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&stem)
        {
            fs::remove_file(path).unwrap();
        }
    }
    let last = inputs.dir.join("last.paths");
    fs::write(&last, "crawl/segment-03.warc.gz\n").unwrap();
    let run_last = || {
        Command::new(robostats())
            .args(["ingest", "-j1", "--paths"])
            .arg(&last)
            .arg("--prefix")
            .arg(&inputs.dir)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = run_last();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("are lost")
            && stderr(&o).contains("'crawl/segment-00.warc.gz' wrote them")
            && stderr(&o).contains("run ingest again with it among the inputs"),
        "{}",
        stderr(&o)
    );
    // Said again until they are written.
    assert_eq!(run_last().status.code(), Some(1));
    let o = inputs.run(&out, &["-j1"]);
    let stdout = ok(&o);
    assert!(stdout.contains("1 done input read again"), "{stdout}");
    assert_rows(&expected, &out, "written again");
    let o = run_last();
    ok(&o);
    assert!(!stderr(&o).contains("lost"), "{}", stderr(&o));
    fs::remove_dir_all(&out).unwrap();
}

/// A WARC response record, gzipped on its own.
fn response(url: &str, body: &[u8]) -> Vec<u8> {
    let mut block = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n".to_vec();
    block.extend_from_slice(body);
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{}>\r\n\
         WARC-Target-URI: {url}\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        url.len(),
        block.len()
    )
    .into_bytes();
    record.extend_from_slice(&block);
    record.extend_from_slice(b"\r\n\r\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&record).unwrap();
    gz.finish().unwrap()
}

/// Two robots.txt files with one XXH3-128 digest, made as anyone can: in
/// XXH3's long-input loop, an 8-byte lane whose low half equals the key's
/// adds nothing but itself to an accumulator, so a difference in its high
/// half cancels against the opposite difference in another lane that
/// meets the same accumulator. The first file says `Disallow: /`; the
/// second comments it out.
fn forged_pair() -> (Vec<u8>, Vec<u8>) {
    // XXH3's default key, bytes 16..20 and 32..36 (the keys of lane 0 of
    // stripes 2 and 4).
    const KEY_A: [u8; 4] = [0xde, 0xd4, 0x6d, 0xe9];
    const KEY_B: [u8; 4] = [0xcb, 0x79, 0xe6, 0x4e];
    let mut a = b"User-agent: *\nAllow: /public/\n# ".to_vec();
    a.resize(128, b'-');
    a.extend_from_slice(&KEY_A);
    a.extend_from_slice(b"\nDisallow: /\n# ");
    a.resize(256, b'-');
    a.extend_from_slice(&KEY_B);
    a.extend_from_slice(b"z\n# ");
    a.resize(700, b'-');
    a.push(b'\n');
    let mut b = a.clone();
    // '\n' -> '#' adds 0x19 to the high half of one lane, 'z' -> 'a' takes
    // it from the other.
    b[132] = b'#';
    b[260] = b'a';
    (a, b)
}

#[test]
fn a_forged_digest_pair_keeps_each_captures_own_lines() {
    let (a, b) = forged_pair();
    assert_ne!(a, b);
    assert_eq!(
        xxhash_rust::xxh3::xxh3_128(&a),
        xxhash_rust::xxh3::xxh3_128(&b),
        "not a forged pair"
    );
    let work = temp_out("faults-forged");
    fs::create_dir_all(&work).unwrap();
    // One input holding both, and two inputs holding one each (the second
    // read after the first is stored).
    fs::write(
        work.join("both.warc.gz"),
        [
            response("https://a.example/robots.txt", &a),
            response("https://b.example/robots.txt", &b),
        ]
        .concat(),
    )
    .unwrap();
    fs::write(
        work.join("one-a.warc.gz"),
        response("https://c.example/robots.txt", &a),
    )
    .unwrap();
    fs::write(
        work.join("two-b.warc.gz"),
        response("https://d.example/robots.txt", &b),
    )
    .unwrap();
    let out = work.join("out");
    for input in ["both.warc.gz", "one-a.warc.gz", "two-b.warc.gz"] {
        ok(&Command::new(robostats())
            .current_dir(&work)
            .args(["ingest", input, "--out", "out", "-j1"])
            .output()
            .unwrap());
    }
    // Each capture's rules, as the `rules` view joins them: by digest.
    let captures = rows(&out, Table::Captures);
    let rules = rows(&out, Table::Rules);
    let digest_column = Table::Captures
        .columns()
        .iter()
        .position(|c| c.name == "body_digest")
        .unwrap();
    let url_column = Table::Captures
        .columns()
        .iter()
        .position(|c| c.name == "url")
        .unwrap();
    let rules_of = |host: &str| -> Vec<String> {
        let capture = captures
            .iter()
            .map(|r| r.split('\t').collect::<Vec<_>>())
            .find(|r| r[url_column].contains(host))
            .unwrap_or_else(|| panic!("no capture of {host}"));
        let digest = capture[digest_column];
        let mut lines: Vec<String> = rules
            .iter()
            .filter(|r| r.starts_with(&format!("{digest}\t")))
            .map(|r| r.split('\t').skip(1).collect::<Vec<_>>().join(" "))
            .collect();
        lines.sort();
        lines
    };
    for (says_disallow, hosts) in [
        (true, ["a.example", "c.example"]),
        (false, ["b.example", "d.example"]),
    ] {
        for host in hosts {
            let lines = rules_of(host);
            let disallows = lines
                .iter()
                .any(|l| l.contains("disallow") && l.contains(" / "));
            assert!(!lines.is_empty(), "{host}: no rules");
            assert_eq!(disallows, says_disallow, "{host}: {lines:?}");
        }
    }
    fs::remove_dir_all(&work).unwrap();
}

/// Runs `command`, killing it after `limit`: its output, or `None` if it
/// had to be killed.
fn within(mut command: Command, limit: Duration) -> Option<Output> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

#[test]
fn a_fifo_or_link_planted_among_body_files_is_neither_read_nor_deleted() {
    let inputs = Inputs::with("faults-planted", &SMALL);
    let out = temp_out("faults-planted");
    two_shards(&inputs, &out);
    let expected = tables(&out);
    let outside = out.with_extension("outside");
    fs::write(&outside, b"not ours").unwrap();
    // Named as part files of a body writer, of an input of the run.
    let stem = robostats::output::dataset::part_stem("crawl/segment-00.warc.gz");
    let fifo = out.join(format!("bodies/{stem}-00-00000000000000aa.parquet"));
    let link = out.join(format!("body_rules/{stem}-00-00000000000000bb.parquet"));
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let limit = Duration::from_secs(60);
    for (what, command) in [
        ("ingest", inputs.command(&out, &["-j2"])),
        ("compact", {
            let mut c = Command::new(robostats());
            c.arg("compact").arg(&out);
            c
        }),
        ("ingest after compact", inputs.command(&out, &["-j2"])),
    ] {
        let o = within(command, limit).unwrap_or_else(|| panic!("{what} blocked"));
        ok(&o);
        assert!(
            fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
            "{what}"
        );
        assert!(fs::symlink_metadata(&link).unwrap().is_symlink(), "{what}");
        assert_eq!(fs::read(&outside).unwrap(), b"not ours", "{what}");
    }
    fs::remove_file(&fifo).unwrap();
    fs::remove_file(&link).unwrap();
    assert_rows(&expected, &out, "planted files removed");
    fs::remove_file(&outside).unwrap();
    fs::remove_dir_all(&out).unwrap();
}
