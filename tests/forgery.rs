//! The body store under a hostile hand: body files deleted by hand (with
//! or without the inputs that wrote them), two bodies forged to share an
//! XXH3-128 digest, and a FIFO and a link planted among the part files.
//! Whatever happens, the tables read as a clean run's, or a run says
//! plainly what to do. (Kills and failed deletions: `faults.rs`.)

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use robostats::classify::Table;

use crate::compact::compact;
use crate::faults::{
    SMALL, assert_rows, clean_run, copy_dir, robostats, stderr, tables, two_shards,
};
use crate::ingest::{rows, temp_out};
use crate::resume::{Inputs, ok};

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
