//! `robostats lint`: every line with its diagnosis, and a summary.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use robostats::http::content::looks_like_html;
use robostats::robots::{
    GOOGLE_MAX_BYTES, Key, Line, MAX_LINE_BYTES, PreferenceLint, RobotsTxt, Stats, is_global_agent,
    known_elsewhere, product_token,
};
use serde_json::json;

use super::{FileArg, plural, printable, read_body};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The robots.txt file (`-` reads standard input).
    robots_file: FileArg,
    /// One JSON document: every line (number, kind, key, value, Google's
    /// flags, diagnostics) and the summary.
    #[arg(long)]
    json: bool,
    /// Exit with status 1 when a line has a finding (anything but `ok`,
    /// `empty` and `comment`), as linters do in CI.
    #[arg(long)]
    strict: bool,
}

/// Whether a line's diagnosis is a finding, not a description.
fn has_finding(diagnosis: &[String]) -> bool {
    diagnosis
        .iter()
        .any(|d| d != "empty" && d != "comment" && d != HTML_LINE)
}

/// A UTF-8 byte order mark encoded in UTF-8 a second time (read as
/// Latin-1 or Windows-1252 on the way): the UTF-8 of 'ï»¿'.
const BOM_TWICE: &[u8] = b"\xC3\xAF\xC2\xBB\xC2\xBF";

/// What an HTML body is said to be, on its first line read as a key.
const HTML_BODY: &str = "HTML served as robots.txt: Google reads its lines as unknown keys \
                         and ignores them";

/// The diagnosis of the body's other lines read as keys once `HTML_BODY`
/// has been said: a description, not a finding.
const HTML_LINE: &str = "html";

/// What is known of the whole file while its lines are diagnosed.
struct FileFacts<'r, 'a> {
    robots: &'r RobotsTxt<'a>,
    prefs: PreferenceLint<'r, 'a>,
    /// The body starts like an HTML page.
    html: bool,
    /// `HTML_BODY` has been said.
    html_said: bool,
}

/// The diagnosis of an allow or disallow line without a value. It matches
/// no path, yet its group still names its crawlers, who then follow this
/// group rather than the `*` group.
fn empty_rule(line: &Line<'_>, robots: &RobotsTxt<'_>) -> String {
    let rules = robots.rules();
    let group = rules
        .binary_search_by_key(&line.number, |r| r.line)
        .ok()
        .and_then(|i| rules[i].group)
        .map(|g| &robots.groups()[g]);
    let Some(group) = group else {
        return "empty value: no effect".to_owned();
    };
    if rules[group.rules.clone()]
        .iter()
        .any(|r| !r.value.is_empty())
    {
        return "empty value: no effect (the group's other rules decide)".to_owned();
    }
    let named = robots.user_agents()[group.user_agents.clone()]
        .iter()
        .any(|ua| !ua.global);
    if named {
        "allows everything: this group's crawlers no longer follow the * group".to_owned()
    } else {
        "empty value: disallows nothing".to_owned()
    }
}

/// The exit status: 1 for findings under `--strict`.
fn status(args: &Args, findings: bool) -> ExitCode {
    if args.strict && findings {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What a line is, for people.
fn kind(line: &Line<'_>) -> &'static str {
    match line.key {
        Some(key) => key.as_str(),
        None => "-",
    }
}

/// Everything worth saying about one line; empty means fine.
fn diagnose(line: &Line<'_>, file: &mut FileFacts<'_, '_>) -> Vec<String> {
    let robots = file.robots;
    let first_user_agent = robots.user_agents().first().map(|ua| ua.line);
    let mut d = Vec::new();
    let m = &line.metadata;
    let end = line.offset + line.raw.len();
    if line.offset >= GOOGLE_MAX_BYTES {
        d.push("past 500 KiB: ignored by Google's crawler".to_owned());
    } else if end > GOOGLE_MAX_BYTES {
        d.push("crosses 500 KiB: Google's crawler reads only its start".to_owned());
    }
    if line.number == 1 && line.raw.starts_with(BOM_TWICE) {
        d.push(
            if line.key == Some(Key::Unknown) {
                "starts with a BOM encoded twice (UTF-8 of 'ï»¿'): Google reads the first \
                 line's key as unknown"
            } else {
                "starts with a BOM encoded twice (UTF-8 of 'ï»¿'), which Google reads as text"
            }
            .to_owned(),
        );
    }
    let unread =
        line.key == Some(Key::Unknown) || (line.key.is_none() && !m.is_empty && !m.is_comment);
    if file.html && unread {
        let said = std::mem::replace(&mut file.html_said, true);
        d.push(if said { HTML_LINE } else { HTML_BODY }.to_owned());
        return d;
    }
    if m.is_line_too_long {
        d.push(format!(
            "too long: Google keeps the first {MAX_LINE_BYTES} bytes"
        ));
    }
    if m.is_acceptable_typo {
        d.push(format!("typo of '{}', accepted by Google", kind(line)));
    }
    if m.is_missing_colon_separator {
        d.push("missing colon, accepted by Google".to_owned());
    }
    let value = line.value;
    match line.key {
        None if m.is_empty => d.push("empty".to_owned()),
        None if m.is_comment => d.push("comment".to_owned()),
        None => d.push("not a directive: ignored".to_owned()),
        Some(Key::UserAgent) => {
            let token = product_token(value);
            if is_global_agent(value) {
            } else if token.is_empty() {
                d.push("no product token ([A-Za-z_-]+): matches no crawler".to_owned());
            } else if token.len() != value.len() {
                d.push(format!("matches as '{}'", printable(token)));
            }
        }
        Some(Key::Allow | Key::Disallow) => {
            if first_user_agent.is_none_or(|ua| line.number < ua) {
                d.push("before any user-agent: ignored".to_owned());
            }
            match value.first() {
                None => d.push(empty_rule(line, robots)),
                Some(b'/' | b'*') => {}
                Some(_) => d.push("never matches: a pattern starts with / or *".to_owned()),
            }
        }
        Some(Key::Sitemap) => {
            let lower = value.to_ascii_lowercase();
            if !(lower.starts_with(b"http://") || lower.starts_with(b"https://")) {
                d.push("not an absolute http(s) URL".to_owned());
            }
        }
        Some(Key::Unknown) => {
            match known_elsewhere(line.key_text) {
                Some(name) => d.push(format!("'{name}': not used by Google, used by others")),
                None if line.key_text.eq_ignore_ascii_case(b"content-signals") => d.push(
                    "unknown key: ignored; Cloudflare defines Content-Signal, without the s \
                     (crawler-commons reads both), so robostats reads no preference here"
                        .to_owned(),
                ),
                None => d.push("unknown key: ignored".to_owned()),
            }
            let statements = robots.preferences();
            if let Ok(i) = statements.binary_search_by_key(&line.number, |s| s.line) {
                d.extend(
                    file.prefs
                        .findings(&statements[i])
                        .iter()
                        .map(|f| f.to_string()),
                );
            }
        }
    }
    d
}

fn summary_json(robots: &RobotsTxt<'_>, past_limit: usize) -> serde_json::Value {
    let s: &Stats = robots.stats();
    json!({
        "bytes": s.bytes,
        "bytes_past_500kib": past_limit,
        "bom": s.bom,
        "lines": s.lines,
        "groups": robots.groups().len(),
        "user_agents": s.user_agents,
        "rules": s.allows + s.disallows,
        "allows": s.allows,
        "disallows": s.disallows,
        "empty_rules": s.empty_rules,
        "rules_outside_group": s.rules_outside_group,
        "sitemaps": s.sitemaps,
        "typos": s.typos,
        "missing_colon": s.missing_colon,
        "unknown_keys": s.unknown,
        "known_elsewhere": s.known_elsewhere,
        "not_directives": s.invalid_lines,
        "empty_lines": s.empty_lines,
        "comment_lines": s.comment_lines,
        "too_long": s.too_long,
        "preference_lines": s.preference_lines,
        "cloudflare_blocks": s.cloudflare_blocks,
    })
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let body = read_body(&args.robots_file)?;
    // Lint everything (Google's library has no size limit) and say which
    // lines Google's crawler would not read.
    let robots = RobotsTxt::parse(&body);
    let mut facts = FileFacts {
        robots: &robots,
        prefs: PreferenceLint::new(&robots),
        html: looks_like_html(&body),
        html_said: false,
    };
    let past_limit = body.len().saturating_sub(GOOGLE_MAX_BYTES);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut findings = false;

    if args.json {
        let file = args.robots_file.display().to_string();
        write!(
            out,
            "{{\"file\":{},\"lines\":[",
            serde_json::to_string(&file)?
        )?;
        for (i, line) in robots.lines().enumerate() {
            let m = &line.metadata;
            let diagnosis = diagnose(&line, &mut facts);
            findings |= has_finding(&diagnosis);
            let value = match line.key {
                Some(k) if k.value_is_escaped() => {
                    json!({"value": String::from_utf8_lossy(line.value),
                           "pattern": String::from_utf8_lossy(&robostats::robots::escape_pattern(line.value))})
                }
                _ => json!({"value": String::from_utf8_lossy(line.value)}),
            };
            let mut obj = json!({
                "line": line.number,
                "offset": line.offset,
                "kind": line.key.map_or("none", Key::as_str),
                "key": String::from_utf8_lossy(line.key_text),
                "text": String::from_utf8_lossy(line.raw),
                "flags": m.flags().into_iter().map(|(k, v)| (k.to_owned(), v.into())).collect::<serde_json::Map<String, serde_json::Value>>(),
                "known_elsewhere": line.key.filter(|k| *k == Key::Unknown).and_then(|_| known_elsewhere(line.key_text)),
                "diagnostics": diagnosis,
            });
            obj.as_object_mut()
                .unwrap()
                .extend(value.as_object().unwrap().clone());
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut out, &obj)?;
        }
        write!(out, "],\"summary\":")?;
        serde_json::to_writer(&mut out, &summary_json(&robots, past_limit))?;
        writeln!(out, "}}")?;
        out.flush()?;
        return Ok(status(args, findings));
    }

    let width = robots.stats().lines.to_string().len();
    for line in robots.lines() {
        let diagnosis = diagnose(&line, &mut facts);
        findings |= has_finding(&diagnosis);
        let diagnosis = if diagnosis.is_empty() {
            "ok".to_owned()
        } else {
            diagnosis.join("; ")
        };
        let mut text = printable(&line.raw[..line.raw.len().min(200)]);
        if line.raw.len() > 200 {
            text.push('…');
        }
        writeln!(
            out,
            "{:>width$}  {:<10}  {text}  [{diagnosis}]",
            line.number,
            kind(&line)
        )?;
    }
    let s = robots.stats();
    writeln!(
        out,
        "summary: {}, {}, {}, {} ({} allow, {} disallow), {}, {}, {} ({} used by other crawlers), \
         {} outside any group, {}, {}, {} past 500 KiB{}",
        plural(s.lines, "line", "lines"),
        plural(robots.groups().len() as u64, "group", "groups"),
        plural(s.user_agents, "user-agent", "user-agents"),
        plural(s.allows + s.disallows, "rule", "rules"),
        s.allows,
        s.disallows,
        plural(s.sitemaps, "sitemap", "sitemaps"),
        plural(s.typos, "typo", "typos"),
        plural(s.unknown, "unknown key", "unknown keys"),
        s.known_elsewhere,
        plural(s.rules_outside_group, "rule", "rules"),
        plural(
            s.invalid_lines,
            "line not a directive",
            "lines not directives"
        ),
        plural(s.too_long, "line too long", "lines too long"),
        plural(past_limit as u64, "byte", "bytes"),
        if s.bom {
            "; starts with a UTF-8 byte order mark (skipped, as Google does)"
        } else {
            ""
        },
    )?;
    out.flush()?;
    Ok(status(args, findings))
}
