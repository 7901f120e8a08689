//! `robostats check`: Google's verdict per agent and URL, the crawler's
//! name refused when it is no product token, the policy, `--explain`.

use std::path::PathBuf;

use crate::cli::{ROBOTS, robostats, stdout};

struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let dir = std::env::temp_dir().join(format!("robostats-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        // The directory goes with the last file (removing a non-empty one
        // fails, harmlessly).
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[test]
fn check_prints_one_line_per_agent_and_url() {
    let f = TempFile::new("check.txt", ROBOTS.as_bytes());
    let path = f.0.to_str().unwrap();
    let o = robostats(
        &[
            "check",
            path,
            "--agent",
            "Googlebot",
            "--agent",
            "GPTBot",
            "http://example.com/tmp/a",
            "http://example.com/private",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(
        stdout(&o),
        "allowed\tGooglebot\thttp://example.com/tmp/a\n\
         disallowed\tGooglebot\thttp://example.com/private\n\
         disallowed\tGPTBot\thttp://example.com/tmp/a\n\
         allowed\tGPTBot\thttp://example.com/private\n"
    );
    assert!(o.stderr.is_empty());
}

#[test]
fn check_explain_names_group_line_and_rule() {
    let o = robostats(
        &[
            "check",
            "-",
            "-a",
            "googlebot",
            "-a",
            "GPTBot",
            "--explain",
            "http://example.com/d/",
            "http://example.com/x/y",
            "http://example.com/ok",
        ],
        Some(ROBOTS.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    // A header, then eight columns on every line (`-`: nothing to say;
    // the file has no preference line).
    assert_eq!(
        lines,
        [
            "verdict\tagent\turl\tgroup\tline\trule\tpreferences\tnote",
            "allowed\tgooglebot\thttp://example.com/d/\tspecific\tline 13\t\
             allow: /d/index.html (index.htm rule: its directory)\t-\t-",
            "allowed\tgooglebot\thttp://example.com/x/y\tspecific\tline 7\tallow: /\t-\t-",
            "allowed\tgooglebot\thttp://example.com/ok\tspecific\tline 7\tallow: /\t-\t-",
            "allowed\tGPTBot\thttp://example.com/d/\tglobal\t-\tno matching rule\t-\t-",
            "disallowed\tGPTBot\thttp://example.com/x/y\tglobal\tline 4\tdisallow: /x\t-\t-",
            "allowed\tGPTBot\thttp://example.com/ok\tglobal\t-\tno matching rule\t-\t-",
        ]
    );
}

#[test]
fn check_refuses_an_agent_that_is_not_a_product_token_naming_it() {
    // A header from a log: refused, naming the token to pass.
    let header = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let o = robostats(
        &["check", "-", "-a", header, "http://example.com/private"],
        Some(ROBOTS.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not a product token") && err.contains("pass its product token, 'Googlebot'"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    // Google's library compares it whole: only `*` applies, with a warning.
    let o = robostats(
        &[
            "check",
            "-",
            "--policy",
            "library",
            "-a",
            "Googlebot/2.1",
            "http://example.com/private",
        ],
        Some(ROBOTS.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "allowed\tGooglebot/2.1\thttp://example.com/private\n"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a product token"));
}

#[test]
fn check_missing_file_is_a_clear_error_with_exit_2() {
    let o = robostats(&["check", "/no/such/robots.txt", "-a", "x", "/"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot read '/no/such/robots.txt'"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn check_requires_an_agent() {
    let o = robostats(&["check", "-", "http://example.com/"], Some(b""));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--agent"));
}

#[test]
fn check_applies_500_kib_unless_told_not_to() {
    let mut body = b"user-agent: *\n".to_vec();
    body.resize(600 * 1024, b'#');
    body.extend_from_slice(b"\ndisallow: /late\n");
    let f = TempFile::new("big.txt", &body);
    let path = f.0.to_str().unwrap();
    let o = robostats(&["check", path, "-a", "x", "/late"], None);
    assert_eq!(stdout(&o), "allowed\tx\t/late\n");
    let o = robostats(
        &["check", path, "-a", "x", "--no-size-limit", "/late"],
        None,
    );
    assert_eq!(stdout(&o), "disallowed\tx\t/late\n");
    let o = robostats(&["lint", path], None);
    let out = stdout(&o);
    assert!(
        out.contains("3  disallow    disallow: /late  [past 500 KiB"),
        "{out}"
    );
    assert!(out.contains(&format!("{} bytes past 500 KiB", body.len() - 512_000)));
}

/// `check --explain` puts the preferences that apply next to the verdict.
#[test]
fn check_explain_shows_preferences() {
    let body = "\
# BEGIN Cloudflare Managed content
User-Agent: *
Content-Signal: search=yes,ai-train=no,use=reference
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
User-agent: GPTBot
Disallow: /
# END Cloudflare Managed Content
";
    let o = robostats(
        &[
            "check",
            "--explain",
            "-a",
            "Bingbot",
            "-a",
            "GPTBot",
            "-",
            "/test",
            "/never/test",
            "/ai-ok/test",
        ],
        Some(body.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let prefs: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(6).unwrap())
        .collect();
    assert_eq!(
        prefs[0],
        "preferences: Content-Usage train-ai=n search=unknown (line 6); Content-Signal \
         search=y ai-train=n ai-input=unknown use=reference (line 3, its groups)"
    );
    assert!(prefs[1].starts_with("preferences: none apply (it may not fetch the URL"));
    assert!(prefs[2].starts_with("preferences: Content-Usage train-ai=y search=unknown (line 7)"));
    assert!(
        prefs[3..]
            .iter()
            .all(|p| p.starts_with("preferences: none apply"))
    );
}

/// `check --explain` says that no preference line applies, rather than
/// listing six values all `unknown`; a directive with no line that applies
/// is said so beside the other's values.
#[test]
fn check_explain_says_when_no_preference_line_applies() {
    let body = "User-agent: GPTBot\nContent-Signal: ai-train=no\nAllow: /\n\n\
                User-agent: *\nDisallow: /x\n";
    let o = robostats(
        &[
            "check",
            "--explain",
            "-a",
            "Bingbot",
            "-a",
            "GPTBot",
            "-",
            "/",
        ],
        Some(body.as_bytes()),
    );
    let out = stdout(&o);
    let prefs: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(6).unwrap())
        .collect();
    assert_eq!(
        prefs,
        [
            "preferences: no Content-Usage or Content-Signal line applies",
            "preferences: no Content-Usage line applies; Content-Signal search=unknown \
             ai-train=n ai-input=unknown use=unknown (line 2, its groups)",
        ]
    );
    assert!(!out.contains("=unknown search=unknown"), "{out}");
}
