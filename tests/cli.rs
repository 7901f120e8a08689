//! `robostats check` and `robostats lint`, run as the built binary.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

pub(crate) const ROBOTS: &str = "\
allow: /early
User-agent: *
Dissalow: /tmp
Disallow /x

user-agent: Googlebot/2.1 # the product token is Googlebot
Allow: /
Disallow: /private
Crawl-delay: 10
unicorn: yes
sitemap: https://example.com/sitemap.xml
<html> not a directive
Allow: /d/index.html
Disallow: /d/
";

pub(crate) fn robostats(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(crate::robostats())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run robostats");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(bytes) = stdin {
            input.write_all(bytes).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn lint_diagnoses_every_line_and_sums_up() {
    let o = robostats(&["lint", "-"], Some(ROBOTS.as_bytes()));
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    // 14 lines of text plus the empty last line, plus the summary.
    assert_eq!(lines.len(), 16, "{out}");
    for (want_line, want) in [
        (
            0,
            " 1  allow       allow: /early  [before any user-agent: ignored]",
        ),
        (
            2,
            " 3  disallow    Dissalow: /tmp  [typo of 'disallow', accepted by Google]",
        ),
        (
            3,
            " 4  disallow    Disallow /x  [missing colon, accepted by Google]",
        ),
        (4, " 5  -             [empty]"),
        (
            5,
            " 6  user-agent  user-agent: Googlebot/2.1 # the product token is Googlebot  [matches as 'Googlebot']",
        ),
        (
            8,
            " 9  unused      Crawl-delay: 10  ['crawl-delay': not used by Google, used by others]",
        ),
        (9, "10  unknown     unicorn: yes  [unknown key: ignored]"),
        (
            11,
            "12  -           <html> not a directive  [not a directive: ignored]",
        ),
    ] {
        assert_eq!(lines[want_line], want);
    }
    assert_eq!(
        lines[15],
        "summary: 15 lines, 2 groups, 2 user-agents, 7 rules (3 allow, 4 disallow), 1 sitemap, \
         1 typo, 2 unknown keys (1 used by other crawlers), 1 rule outside any group, \
         1 line not a directive, 0 lines too long, 0 bytes past 500 KiB"
    );
}

#[test]
fn lint_json_is_one_document_with_every_line() {
    let o = robostats(&["lint", "--json", "-"], Some(ROBOTS.as_bytes()));
    assert_eq!(o.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let lines = doc["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 15);
    assert_eq!(lines[2]["kind"], "disallow");
    assert_eq!(lines[2]["flags"]["is_acceptable_typo"], true);
    assert_eq!(lines[8]["known_elsewhere"], "crawl-delay");
    // What Google's reporter says: `unused` for a key of other crawlers,
    // `unknown` for any other key and for a line without a directive.
    assert_eq!(lines[8]["kind"], "unknown");
    // no directive: no kind (`-` in the text)
    assert!(lines[4]["kind"].is_null());
    assert_eq!(lines[8]["google_tag"], "unused");
    assert_eq!(lines[9]["google_tag"], "unknown");
    assert_eq!(lines[4]["google_tag"], "unknown");
    assert_eq!(lines[5]["google_tag"], "user-agent");
    assert_eq!(lines[3]["pattern"], "/x");
    assert_eq!(doc["summary"]["groups"], 2);
    assert_eq!(doc["summary"]["rules_outside_group"], 1);
    assert_eq!(doc["summary"]["typos"], 1);
}

#[test]
fn lint_survives_binary_input() {
    let body: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let o = robostats(&["lint", "-"], Some(&body));
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("summary:"));
}

/// Checks that the region of `file` between `BEGIN` and `END` marker
/// lines naming `command` is what `robostats <command>` prints. With
/// `ROBOSTATS_BLESS=1` in the environment, rewrites the region instead.
fn generated_region(file: &str, comment: (&str, &str), command: &[&str]) {
    let o = robostats(command, None);
    assert_eq!(o.status.code(), Some(0));
    let generated = stdout(&o);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let what = format!("robostats {}", command.join(" "));
    let begin = format!("{} BEGIN {what}{}\n", comment.0, comment.1);
    let end = format!("{} END {what}{}", comment.0, comment.1);
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{file}: no line {begin:?}"))
        + begin.len();
    let stop = start
        + text[start..]
            .find(&end)
            .unwrap_or_else(|| panic!("{file}: no line {end:?}"));
    if std::env::var_os("ROBOSTATS_BLESS").is_some() {
        std::fs::write(
            &path,
            format!("{}{generated}{}", &text[..start], &text[stop..]),
        )
        .unwrap();
        return;
    }
    assert!(
        text[start..stop] == generated,
        "{file} is out of date: run `ROBOSTATS_BLESS=1 cargo test generated_` to write `{what}` into it"
    );
}

#[test]
fn generated_table_reference_is_up_to_date() {
    generated_region(
        "docs/tables.md",
        ("<!--", " -->"),
        &["schema", "--markdown"],
    );
}

#[test]
fn generated_table_views_are_up_to_date() {
    generated_region("queries/tables.sql", ("--", ""), &["schema", "--views"]);
}

#[test]
fn docs_name_every_error_kind() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/warc.md");
    let text = std::fs::read_to_string(path).unwrap();
    for kind in robostats::warc::ErrorKind::ALL {
        let name = format!("`{}`", kind.as_str());
        assert!(
            text.contains(&name),
            "docs/warc.md does not name the error kind {name}"
        );
    }
}

/// Every finding `lint` has for Content-Signal and Content-Usage lines.
#[test]
fn lint_diagnoses_preference_lines() {
    let body = "\
Content-Usage: train-ai=n
User-Agent: *
Content-Signal: Search=yes
Content-Usage: tdm=n, train-ai=no, train-ai=y
Content-Usage: *.pdf train-ai=n
Content-Usage: /restricted/ ai=n train-ai=n
Content-Usage: /private/ train-ai=y
Content-Signal: search=y, use=maybe, foo=bar
Content-Usage: /ok/ search=y
Allow: /
Disallow: /private/
Content-Signals: ai-train=no
";
    let o = robostats(&["lint", "--strict", "-"], Some(body.as_bytes()));
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let line = |n: usize| out.lines().nth(n - 1).unwrap().to_owned();
    assert!(line(1).contains("outside every group, so no crawler reads this rule"));
    assert!(line(3).contains("upper-case label (labels are lower case)"));
    assert!(line(4).contains("label 'tdm' is from an earlier AIPREF draft (vocab-01)"));
    assert!(line(4).contains("train-ai=no: Content-Usage takes y or n, so this is unknown"));
    assert!(line(4).contains("'train-ai' given again later: the last one wins"));
    assert!(line(5).contains("'*.pdf' is not a path (a path starts with /), so it never matches"));
    assert!(line(6).contains("members separated by spaces (separate them with commas)"));
    assert!(line(7).contains("its crawlers (*) may fetch no path under /private/"));
    assert!(line(8).contains("search=y: Content-Signal takes yes or no"));
    assert!(line(8).contains("use=maybe: use takes immediate, reference or full"));
    assert!(line(8).contains("unknown label 'foo' for Content-Signal"));
    assert!(line(9).ends_with("['content-usage': not used by Google, used by others]"));
    assert!(line(12).contains("Cloudflare defines Content-Signal, without the s"));
    let o = robostats(&["lint", "--json", "-"], Some(body.as_bytes()));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["summary"]["preference_lines"], 8);
}

/// What a new user could not tell from the diagnoses: a BOM encoded twice,
/// an empty rule that still takes its crawlers out of the `*` group, and
/// an HTML page served as robots.txt.
#[test]
fn lint_says_what_a_line_really_does() {
    let line = |out: &str, n: usize| out.lines().nth(n - 1).unwrap().to_owned();

    // A BOM encoded twice (5 of 502 real files) is said on line 1; the
    // parse stays Google's: line 1 is an unknown key, so the rule after it
    // is outside any group.
    let body = b"\xC3\xAF\xC2\xBB\xC2\xBFUser-agent: *\nDisallow: /x\n";
    let out = stdout(&robostats(&["lint", "-"], Some(body)));
    assert_eq!(
        line(&out, 1),
        "1  unknown     ï»¿User-agent: *  [starts with a BOM encoded twice (UTF-8 of 'ï»¿'): \
         Google reads the first line's key as unknown; unknown key: ignored]"
    );
    assert_eq!(
        line(&out, 2),
        "2  disallow    Disallow: /x  [before any user-agent: ignored]"
    );
    let o = robostats(
        &["check", "-", "--agent", "Googlebot", "https://a.example/x"],
        Some(body),
    );
    assert_eq!(stdout(&o), "allowed\tGooglebot\thttps://a.example/x\n");

    // An empty disallow decides for its group's crawlers, which no longer
    // follow the * group (check --explain names it); beside other rules,
    // or in the * group, it has no effect.
    let body = "User-agent: *\nDisallow: /\nDisallow:\n\nUser-agent: GPTBot\nDisallow:\n\n\
                User-agent: CCBot\nDisallow:\nDisallow: /y\n";
    let out = stdout(&robostats(&["lint", "-"], Some(body.as_bytes())));
    assert!(
        line(&out, 3).ends_with("[empty value: no effect (the group's other rules decide)]"),
        "{out}"
    );
    assert!(
        line(&out, 6)
            .ends_with("[allows everything: this group's crawlers no longer follow the * group]"),
        "{out}"
    );
    assert!(
        line(&out, 9).ends_with("[empty value: no effect (the group's other rules decide)]"),
        "{out}"
    );
    let o = robostats(
        &[
            "check",
            "-",
            "--agent",
            "GPTBot",
            "--explain",
            "https://a.example/",
        ],
        Some(body.as_bytes()),
    );
    assert!(
        stdout(&o)
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("allowed\tGPTBot\t")),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("line 6"), "{}", stdout(&o));
    let out = stdout(&robostats(
        &["lint", "-"],
        Some(b"User-agent: *\nDisallow:\n"),
    ));
    assert!(
        line(&out, 2).ends_with("[empty value: disallows nothing]"),
        "{out}"
    );

    // HTML is said to be HTML once, on its first line read as a key; its
    // other such lines are described, not found at fault one by one.
    let body = b"<!DOCTYPE html>\n<html lang=en>\n<head><title>Not found</title></head>\n\
                 <body>\n<p>Disallow: /nothing</p>\n</body>\n</html>\n";
    let o = robostats(&["lint", "--strict", "-"], Some(body));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out.matches("HTML served as robots.txt").count(), 1, "{out}");
    assert!(
        line(&out, 1).ends_with(
            "[HTML served as robots.txt: Google reads its lines as unknown keys and ignores \
             them]"
        ),
        "{out}"
    );
    for n in 2..=7 {
        assert!(line(&out, n).ends_with("  [html]"), "{out}");
    }
    assert!(!out.contains("missing colon"), "{out}");
}

/// A preference line's group of four crawlers is named whole: "and 1
/// more" would take the place of the name it hides.
#[test]
fn lint_names_four_crawlers_whole() {
    let four = "User-agent: A1\nUser-agent: B2\nUser-agent: C3\nUser-agent: D4\n\
                Disallow: /\nContent-Signal: ai-train=no\n";
    let out = stdout(&robostats(&["lint", "-"], Some(four.as_bytes())));
    assert!(out.contains("its crawlers (A1, B2, C3, D4)"), "{out}");
    let five = four.replace("User-agent: D4\n", "User-agent: D4\nUser-agent: E5\n");
    let out = stdout(&robostats(&["lint", "-"], Some(five.as_bytes())));
    assert!(
        out.contains("its crawlers (A1, B2, C3, and 2 more)"),
        "{out}"
    );
}

/// `lint --help` and docs/ingest.md say the same of `--strict`: which
/// diagnoses are not findings.
#[test]
fn lint_strict_is_described_alike_in_help_and_docs() {
    let help = stdout(&robostats(&["lint", "--help"], None));
    let said = "a diagnosis other than `ok`, `empty`, `comment` and `html`";
    assert!(
        help.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(said),
        "{help}"
    );
    let docs =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/ingest.md"))
            .unwrap();
    assert!(
        docs.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(said)
    );
}
