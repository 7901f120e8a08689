//! Text robostats did not write itself reaches the terminal escaped: the
//! holder a lock file names, file names found in the output directory, and
//! the lines of a paths file (which may come from a server). An escape
//! sequence, a carriage return or a bidirectional override in them is
//! printed as `\x1b`, `\r`, `\u{202e}`, never as itself.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::ingest::temp_out;

const SMALL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/cc-main-2024-22-whirlwind.warc.gz"
);

/// What a hostile writer puts in: colours, a window title, a carriage
/// return over the line, a C1 CSI (clear the screen), a right-to-left
/// override.
const HOSTILE: &str = "\x1b[31mred\x1b]0;title\x07\rover\u{9b}2J\u{202e}cod.exe";
/// The same, as printed.
const SHOWN: &str = "\\x1b[31mred\\x1b]0;title\\x07\\rover\\x9b2J\\u{202e}cod.exe";

fn ingest(dir: &Path, args: &[&str]) -> Output {
    Command::new(crate::robostats())
        .current_dir(dir)
        .arg("ingest")
        .args(args)
        .output()
        .unwrap()
}

/// Standard error, checked to hold nothing that acts on a terminal.
fn stderr(o: &Output) -> String {
    let text = String::from_utf8(o.stderr.clone()).unwrap();
    let acting = |c: char| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c);
    assert!(!text.chars().any(acting), "{text:?}");
    text
}

#[test]
fn a_lock_files_holder_is_printed_escaped() {
    let dir = temp_out("term-lock");
    let out = dir.join("out");
    fs::create_dir_all(out.join("_manifest")).unwrap();
    // Held by this process, with words of anyone's choosing in it.
    let lock = out.join("_manifest/run.lock");
    fs::write(&lock, HOSTILE).unwrap();
    let held = fs::File::open(&lock).unwrap();
    held.lock().unwrap();
    let o = ingest(&dir, &[SMALL, "--out", "out"]);
    assert_eq!(o.status.code(), Some(2));
    let text = stderr(&o);
    assert!(text.contains(&format!("is held by {SHOWN}.")), "{text}");
    drop(held);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn names_from_the_output_directory_and_a_paths_file_are_printed_escaped() {
    let dir = temp_out("term-names");
    fs::create_dir_all(dir.join("out")).unwrap();
    // A file planted in --out: named in the refusal.
    fs::write(dir.join("out").join(HOSTILE), b"").unwrap();
    let o = ingest(&dir, &[SMALL, "--out", "out"]);
    assert_eq!(o.status.code(), Some(2));
    let text = stderr(&o);
    assert!(
        text.contains("holds files that robostats did not write") && text.contains(SHOWN),
        "{text}"
    );
    // A paths file's line naming a file that is not there: named in the
    // reason the input failed.
    fs::write(dir.join("paths"), format!("{HOSTILE}.warc.gz\n")).unwrap();
    let o = ingest(&dir, &["--paths", "paths", "--out", "fresh"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stderr(&o);
    assert!(
        text.contains(&format!("could not read '{SHOWN}.warc.gz'")),
        "{text}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
