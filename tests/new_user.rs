//! What a new user runs into, run as a user would: the binary, from a
//! working directory, with relative and absolute paths. Each test checks the
//! message, the exit status and the rows.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use robostats::classify::Table;

use crate::ingest::{rows, temp_out};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/cc-main-2024-22-whirlwind.warc.gz"
);
const OTHER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/cc-main-2020-34-resiliparse-warcfile.warc.gz"
);

/// A working directory of its own, removed at the end.
struct Workdir(PathBuf);

impl Workdir {
    fn new(tag: &str) -> Workdir {
        let dir = temp_out(&format!("user-{tag}"));
        fs::create_dir_all(&dir).unwrap();
        Workdir(dir)
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }

    /// Copies `from` to `relative`, making its directories.
    fn copy(&self, from: &str, relative: &str) -> PathBuf {
        let to = self.path(relative);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(from, &to).unwrap();
        to
    }

    fn write(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let to = self.path(relative);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::write(&to, bytes).unwrap();
        to
    }

    /// `robostats ARGS` run in `cwd` (relative to the working directory).
    fn run_in(&self, cwd: &str, args: &[&str]) -> Output {
        Command::new(crate::robostats())
            .args(args)
            .current_dir(self.path(cwd))
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(".", args)
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `warc_filename` of every capture, sorted.
fn capture_files(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = rows(out, Table::Captures)
        .iter()
        .map(|r| r.split('\t').next().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_directory_stands_for_the_warc_files_under_it() {
    let w = Workdir::new("dir");
    w.copy(SAMPLE, "crawl/b/one.warc.gz");
    w.copy(OTHER, "crawl/a/two.warc.gz");
    w.write("crawl/README.txt", b"not a WARC file");
    let o = w.run(&["ingest", "crawl", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("ingest: 2 files done, 0 failed"),
        "{}",
        stdout(&o)
    );
    let mut files = capture_files(&w.path("out"));
    files.dedup();
    assert_eq!(files, ["crawl/a/two.warc.gz", "crawl/b/one.warc.gz"]);
    assert!(rows(&w.path("out"), Table::Errors).is_empty());

    // A directory with no WARC file under it is a clear error, and
    // nothing is written.
    fs::create_dir_all(w.path("empty")).unwrap();
    let o = w.run(&["ingest", "empty", "--out", "out2"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "robostats: no .warc.gz or .warc file under the directory 'empty'\n"
    );
    assert!(!w.path("out2").exists());
}

#[test]
fn an_input_whose_reads_keep_failing_is_given_up_on() {
    // /proc/self/mem opens, and every read at offset 0 fails with EIO.
    let w = Workdir::new("eio");
    let o = w.run(&["ingest", "/proc/self/mem", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(rows(&w.path("out"), Table::Errors).is_empty());
    assert!(
        stderr(&o).contains("3 reads in a row failed with this error, so the rest"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).starts_with("robostats: could not read '/proc/self/mem': Input/output error"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn one_file_under_several_spellings_is_read_once_and_recognised_by_re_runs() {
    let w = Workdir::new("spell");
    let abs = w.copy(SAMPLE, "samples/x.warc.gz");
    symlink(&abs, w.path("link.warc.gz")).unwrap();
    let abs = abs.to_str().unwrap().to_owned();
    let out = w.path("out");
    let out = out.to_str().unwrap();

    // In one run: three spellings, one input.
    let o = w.run(&[
        "ingest",
        "samples/x.warc.gz",
        "./samples/x.warc.gz",
        "link.warc.gz",
        "--out",
        out,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "robostats: './samples/x.warc.gz' is the file 'samples/x.warc.gz' listed again: it \
         is read once, as 'samples/x.warc.gz'\n\
         robostats: 'link.warc.gz' is the file 'samples/x.warc.gz' listed again: it is read \
         once, as 'samples/x.warc.gz'\n"
    );
    assert!(
        stdout(&o).starts_with("ingest: 1 file done"),
        "{}",
        stdout(&o)
    );
    let captures = rows(&w.path("out"), Table::Captures);
    assert_eq!(captures.len(), 1);

    // Re-runs under other spellings, from other directories, skip it.
    for (cwd, spelling) in [
        ("samples", "x.warc.gz"),
        (".", abs.as_str()),
        (".", "link.warc.gz"),
    ] {
        let o = w.run_in(cwd, &["ingest", spelling, "--out", out]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stdout(&o).starts_with("ingest: 0 files done, 0 failed, 1 skipped (done earlier)"),
            "{spelling}: {}",
            stdout(&o)
        );
    }
    assert_eq!(rows(&w.path("out"), Table::Captures), captures);
    assert_eq!(capture_files(&w.path("out")), ["samples/x.warc.gz"]);

    // Another file under a done input's name is refused: its rows could
    // not be told apart.
    w.copy(OTHER, "elsewhere/samples/x.warc.gz");
    let o = w.run_in("elsewhere", &["ingest", "samples/x.warc.gz", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'samples/x.warc.gz' is done in")
            && stderr(&o).contains("a data set holds one input per warc_filename"),
        "{}",
        stderr(&o)
    );
    assert_eq!(rows(&w.path("out"), Table::Captures), captures);
}

#[test]
fn why_an_input_failed_is_printed_with_the_path_opened() {
    let w = Workdir::new("why");
    w.write("empty.warc.gz", b"");
    w.write("random.warc.gz", &[0x42, 0x17, 0x99, 0x00, 0xfe, 0x33]);
    w.write("notes.txt", b"just some text\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, b"hello, not a WARC record\n").unwrap();
    w.write("not-warc.warc.gz", &gz.finish().unwrap());
    w.write("paths.txt", b"seg/missing.warc.gz\n");
    let o = w.run(&[
        "ingest",
        "typo.warc.gz",
        "empty.warc.gz",
        "random.warc.gz",
        "notes.txt",
        "not-warc.warc.gz",
        "--paths",
        "paths.txt",
        "--prefix",
        "mirror/",
        "--out",
        "out",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "robostats: could not read 'typo.warc.gz': No such file or directory (os error 2) (io)\n\
         robostats: could not read 'empty.warc.gz': the file is empty (empty_file at offset 0)\n\
         robostats: could not read 'random.warc.gz': neither gzip nor a WARC file (not_warc at \
         offset 0)\n\
         robostats: could not read 'notes.txt': neither gzip nor a WARC file (not_warc at \
         offset 0)\n\
         robostats: could not read 'not-warc.warc.gz': expected a WARC version line \
         (not_a_record at offset 0)\n\
         robostats: could not read 'seg/missing.warc.gz' (opened as 'mirror/seg/missing.warc.gz'): \
         No such file or directory (os error 2) (io)\n\
         robostats: nothing of a failed input is in the tables (the manifest says why); a \
         re-run tries the failed inputs again\n"
    );
    assert!(
        stdout(&o).starts_with("ingest: 0 files done, 6 failed"),
        "{}",
        stdout(&o)
    );
    // No row of a failed input is in the tables; the manifest says why.
    assert!(rows(&w.path("out"), Table::Errors).is_empty());
    let reasons = fs::read_to_string(w.path("out/_manifest/run.jsonl")).unwrap();
    assert_eq!(reasons.matches("\"reason\":").count(), 6, "{reasons}");
}

#[test]
fn an_unrelated_non_empty_out_directory_is_refused_unless_allowed() {
    let w = Workdir::new("foreign");
    w.copy(SAMPLE, "x.warc.gz");
    w.write("results/captures/old.parquet", b"not ours");
    w.write("results/notes.md", b"my notes");
    let o = w.run(&["ingest", "x.warc.gz", "--out", "results"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "robostats: results holds files that robostats did not write (captures/old.parquet, \
         notes.md) and \
         is not an ingest output: give a new or empty --out directory, or \
         --allow-other-files to write the tables beside them\n"
    );
    assert!(!w.path("results/_manifest").exists());
    assert!(!w.path("results/rules").exists());

    // An empty directory, and a directory robostats wrote, are fine.
    fs::create_dir_all(w.path("empty")).unwrap();
    let o = w.run(&["ingest", "x.warc.gz", "--out", "empty", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = w.run(&["ingest", "x.warc.gz", "--out", "empty", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Saying "yes, this one" writes beside the other files.
    fs::remove_file(w.path("results/captures/old.parquet")).unwrap();
    let o = w.run(&[
        "ingest",
        "x.warc.gz",
        "--out",
        "results",
        "--allow-other-files",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows(&w.path("results"), Table::Captures).len(), 1);
    assert!(w.path("results/notes.md").exists());
}

#[test]
fn an_out_that_reads_as_a_url_is_refused_and_no_directory_made() {
    let w = Workdir::new("url-out");
    w.copy(SAMPLE, "x.warc.gz");
    for out in ["gs://bucket/x", "hf://datasets/me/cc", "s3:results"] {
        for args in [
            &["ingest", "x.warc.gz", "-q", "--out", out][..],
            &["compact", out],
            &["report", out, "--output", "page.html"],
        ] {
            let o = w.run(args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            let scheme = out.split(':').next().unwrap();
            assert!(
                stderr(&o).contains(&format!(
                    "'{out}' reads as a URL ({scheme}:): a robostats data set is a local directory"
                )),
                "{args:?}: {}",
                stderr(&o)
            );
        }
        assert!(!w.path(out.split('/').next().unwrap()).exists(), "{out}");
    }
    // A local directory of that name, said as a path, is one.
    let o = w.run(&["ingest", "x.warc.gz", "-q", "--out", "./s3:results"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows(&w.path("s3:results"), Table::Captures).len(), 1);
}

#[test]
fn a_re_run_with_other_options_says_in_words_what_differs() {
    let w = Workdir::new("options");
    w.copy(SAMPLE, "x.warc.gz");
    w.write("more.txt", b"FooBot\nBarBot\n");
    let o = w.run(&["ingest", "x.warc.gz", "--out", "out", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = rows(&w.path("out"), Table::NamedVerdicts);
    let o = w.run(&[
        "ingest",
        "x.warc.gz",
        "--out",
        "out",
        "--add-agents",
        "more.txt",
        "--no-size-limit",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "robostats: out holds tables made with other options, and rows made two ways would \
         mix:\n  \
         - --no-size-limit is given now but was not before (bodies were parsed up to 512000 \
         bytes)\n  \
         - the crawlers of interest differ: this run adds 2 crawlers (FooBot, BarBot) \
         (--agents, --add-agents)\n\
         Run with the options of the earlier runs to add to it, or write to another --out \
         directory.\n"
    );
    assert_eq!(rows(&w.path("out"), Table::NamedVerdicts), before);
}

#[test]
fn check_warns_about_urls_that_are_not_percent_encoded() {
    let w = Workdir::new("check-url");
    w.write("robots.txt", b"User-agent: *\nDisallow: /caf%C3%A9\n");
    let o = w.run(&[
        "check",
        "robots.txt",
        "--agent",
        "GPTBot",
        "https://a.com/café",
        "https://a.com/a b",
        "https://a.com/caf%C3%A9",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "allowed\tGPTBot\thttps://a.com/café\n\
         allowed\tGPTBot\thttps://a.com/a b\n\
         disallowed\tGPTBot\thttps://a.com/caf%C3%A9\n"
    );
    let err = stderr(&o);
    assert!(
        err.contains(
            "warning: URL 'https://a.com/café' is not %-encoded (it has non-ASCII characters, \
             spaces or control characters); Google compares bytes, so rules written %-encoded \
             never match it: give it as 'https://a.com/caf%C3%A9'"
        ),
        "{err}"
    );
    assert!(err.contains("give it as 'https://a.com/a%20b'"), "{err}");
    assert_eq!(err.lines().count(), 2, "{err}");
}

#[test]
fn smaller_points() {
    let w = Workdir::new("small");
    w.copy(SAMPLE, "x.warc.gz");

    // `ingest -` is refused clearly (check and lint read standard input).
    let o = w.run(&["ingest", "-", "--out", "out"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "robostats: ingest reads WARC files, not standard input ('-'): save the stream to a \
         file and give its path\n"
    );
    assert!(!w.path("out").exists());

    // One unit (MiB), and "1 file".
    let o = w.run(&["ingest", "x.warc.gz", "--out", "out", "-q"]);
    let text = stdout(&o);
    assert!(text.starts_with("ingest: 1 file done"), "{text}");
    assert!(text.contains(" MiB in ") && text.contains(" MiB/s") && !text.contains(" MB"));

    // A path with every message that concerns it.
    w.write("a-file", b"");
    let o = w.run(&["ingest", "x.warc.gz", "--out", "a-file"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a-file"), "{}", stderr(&o));
    let o = w.run(&["compact", "no-such-dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).ends_with("no-such-dir does not exist\n"),
        "{}",
        stderr(&o)
    );

    // lint: a BOM is said in the text output too; past 500 KiB, the empty
    // last line is "past", not "crosses"; --strict makes findings status 1.
    let mut big = b"\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n".to_vec();
    while big.len() < 600 * 1024 {
        big.extend_from_slice(b"# padding padding padding padding padding padding\n");
    }
    w.write("big.txt", &big);
    let o = w.run(&["lint", "big.txt"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let last = text.lines().rev().nth(1).unwrap();
    assert!(
        last.ends_with("[past 500 KiB: ignored by Google's crawler; empty]"),
        "{last}"
    );
    assert!(
        text.trim_end()
            .ends_with("; starts with a UTF-8 byte order mark (skipped, as Google does)"),
        "{text}"
    );
    w.write("clean.txt", b"User-agent: *\nDisallow: /x\n");
    w.write("typo.txt", b"User-agent: *\nDissalow: /x\n");
    assert_eq!(w.run(&["lint", "typo.txt"]).status.code(), Some(0));
    assert_eq!(
        w.run(&["lint", "--strict", "typo.txt"]).status.code(),
        Some(1)
    );
    assert_eq!(
        w.run(&["lint", "--strict", "--json", "typo.txt"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        w.run(&["lint", "--strict", "clean.txt"]).status.code(),
        Some(0)
    );
}

#[test]
fn messages_say_what_to_do() {
    let w = Workdir::new("messages");
    w.copy(SAMPLE, "x.warc.gz");

    // --out naming a file says it is one, and what --out takes.
    w.write("a-file", b"");
    let o = w.run(&["ingest", "x.warc.gz", "--out", "a-file"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "robostats: --out 'a-file' is a file: the output is a directory of tables; give the \
         path of a new or empty directory, or of an earlier ingest's output\n"
    );

    // A paths file that lists nothing says so, not to give one.
    w.write("paths.txt", b"# nothing yet\n\n");
    let o = w.run(&["ingest", "--paths", "paths.txt", "--out", "out"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "robostats: no inputs: the paths file 'paths.txt' lists none (only blank lines and \
         comments); it lists one WARC file or URL a line\n"
    );
    assert!(!w.path("out").exists());

    // `ingest --agent TOKEN`: not clap's `--agents` (a file replacing the
    // list), but how to add a crawler, and whether it is there already.
    for args in [
        &["ingest", "x.warc.gz", "--out", "out", "--agent", "GPTBot"][..],
        &["ingest", "x.warc.gz", "--out", "out", "--agent=GPTBot"][..],
    ] {
        let o = w.run(args);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(
            err.starts_with("error: unexpected argument '--agent' found"),
            "{err}"
        );
        assert!(
            err.contains(
                "tip: ingest has no flag for one crawler: --add-agents FILE adds the crawlers \
                 FILE lists (product tokens, one a line) to the default list, and --agents FILE \
                 replaces the list"
            ),
            "{err}"
        );
        assert!(
            err.contains(
                "tip: for example: echo GPTBot > agents.txt, then robostats ingest ... \
                 --add-agents agents.txt"
            ),
            "{err}"
        );
        assert!(
            err.contains("tip: GPTBot is in the default list already"),
            "{err}"
        );
        assert!(!err.contains("similar argument"), "{err}");
        assert!(
            err.contains("Usage: robostats ingest [OPTIONS] --out <DIR|S3-URL>"),
            "{err}"
        );
    }
    let err = stderr(&w.run(&["ingest", "x.warc.gz", "--out", "out", "--agent", "MyBot"]));
    assert!(err.contains("echo MyBot > agents.txt"), "{err}");
    assert!(!err.contains("default list already"), "{err}");
    assert!(!w.path("out").exists());

    // The way given works, and adds the crawler.
    w.write("agents.txt", b"MyBot\n");
    let o = w.run(&[
        "ingest",
        "x.warc.gz",
        "--out",
        "out",
        "-q",
        "--add-agents",
        "agents.txt",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        rows(&w.path("out"), Table::Agents)
            .iter()
            .any(|r| r.starts_with("MyBot\t"))
    );

    // ingest's help names every table.
    let help = stdout(&w.run(&["ingest", "--help"]));
    let about = help.split("\n\n").next().unwrap().replace('\n', " ");
    for table in Table::ALL {
        assert!(about.contains(table.name()), "{table:?} not in {about}");
    }
}

#[test]
fn upper_case_extensions_are_listed_and_too_many_threads_capped() {
    let w = Workdir::new("extensions-threads");
    w.copy(SAMPLE, "x.warc.gz");

    // Extensions in upper case are WARC files too, in a directory.
    w.copy(SAMPLE, "upper/X.WARC.GZ");
    let o = w.run(&["ingest", "upper", "--out", "out-upper", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(capture_files(&w.path("out-upper")), ["upper/X.WARC.GZ"]);

    // --threads far past the cores is capped, with a warning.
    let o = w.run(&[
        "ingest",
        "x.warc.gz",
        "--out",
        "out-threads",
        "-q",
        "--threads",
        "100000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let err = stderr(&o);
    assert!(
        err.starts_with("robostats: --threads 100000 is more than 4 per core (")
            && err.ends_with(&format!("): using {}\n", 4 * cores)),
        "{err}"
    );
    let o = w.run(&["ingest", "x.warc.gz", "--out", "out-two", "-q", "-j", "2"]);
    assert_eq!(stderr(&o), "");
}
