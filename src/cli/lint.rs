//! `robostats lint`: every line with its diagnosis, and a summary.

use crate::cli::ExitCode;
use std::io::{self, BufWriter, Write};

use crate::http::content::looks_like_html;
use crate::robots::{
    FileLint, GOOGLE_MAX_BYTES, Key, Line, LineFinding, ReportedTag, RobotsTxt, Stats,
    known_elsewhere,
};
use serde_json::json;

use super::{FileArg, plural, printable, read_body};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The robots.txt file (`-` reads standard input).
    robots_file: FileArg,
    /// One JSON document: every line (number, kind, the tag Google's
    /// reporter gives it, key, value, Google's flags, diagnostics) and the
    /// summary.
    #[arg(long)]
    json: bool,
    /// Exit with status 1 when a line has a finding (a diagnosis other
    /// than `ok`, `empty`, `comment` and `html`), as linters do in CI.
    #[arg(long)]
    strict: bool,
}

/// Whether a line's diagnosis has a finding, not only a description.
fn has_finding(diagnosis: &[LineFinding]) -> bool {
    diagnosis.iter().any(LineFinding::is_finding)
}

/// A line's diagnosis as sentences.
fn sentences(diagnosis: &[LineFinding]) -> Vec<String> {
    diagnosis.iter().map(ToString::to_string).collect()
}

/// The exit status: 1 for findings under `--strict`.
fn status(args: &Args, findings: bool) -> ExitCode {
    if args.strict && findings {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// What Google's reporting parser calls a line (its tag); `-` for a line
/// without a directive, whose tag the reporter leaves at `unknown` and
/// flags blank, comment or no directive instead.
fn reported(line: &Line<'_>) -> &'static str {
    match line.key {
        Some(_) => ReportedTag::of(line).as_str(),
        None => "-",
    }
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
    let mut lint = FileLint::new(&robots, looks_like_html(&body));
    let past_limit = body.len().saturating_sub(GOOGLE_MAX_BYTES);
    let mut out = BufWriter::new(io::stdout().lock());
    let findings = if args.json {
        let file = args.robots_file.display().to_string();
        write_json(&mut out, &file, &robots, &mut lint, past_limit)?
    } else {
        write_text(&mut out, &robots, &mut lint, past_limit)?
    };
    out.flush()?;
    Ok(status(args, findings))
}

/// The lines and the summary as one JSON document; whether a line has a
/// finding.
fn write_json(
    out: &mut impl Write,
    file: &str,
    robots: &RobotsTxt<'_>,
    lint: &mut FileLint<'_, '_>,
    past_limit: usize,
) -> anyhow::Result<bool> {
    let mut findings = false;
    write!(
        out,
        "{{\"file\":{},\"lines\":[",
        serde_json::to_string(&file)?
    )?;
    for (i, line) in robots.lines().enumerate() {
        let m = &line.metadata;
        let diagnosis = lint.line(&line);
        findings |= has_finding(&diagnosis);
        let diagnosis = sentences(&diagnosis);
        let value = match line.key {
            Some(k) if k.value_is_escaped() => {
                json!({"value": String::from_utf8_lossy(line.value),
                       "pattern": String::from_utf8_lossy(&crate::robots::escape_pattern(line.value))})
            }
            _ => json!({"value": String::from_utf8_lossy(line.value)}),
        };
        let mut obj = json!({
            "line": line.number,
            "offset": line.offset,
            // null for a line without a directive (`-` in the text)
            "kind": line.key.map(Key::as_str),
            "google_tag": ReportedTag::of(&line).as_str(),
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
        serde_json::to_writer(&mut *out, &obj)?;
    }
    write!(out, "],\"summary\":")?;
    serde_json::to_writer(&mut *out, &summary_json(robots, past_limit))?;
    writeln!(out, "}}")?;
    Ok(findings)
}

/// The lines, one a row with its diagnosis, and the summary; whether a
/// line has a finding.
fn write_text(
    out: &mut impl Write,
    robots: &RobotsTxt<'_>,
    lint: &mut FileLint<'_, '_>,
    past_limit: usize,
) -> anyhow::Result<bool> {
    let mut findings = false;

    let width = robots.stats().lines.to_string().len();
    for line in robots.lines() {
        let diagnosis = lint.line(&line);
        findings |= has_finding(&diagnosis);
        // A diagnosis may quote the line (`matches as '...'`).
        let diagnosis = if diagnosis.is_empty() {
            "ok".to_owned()
        } else {
            crate::terminal::escaped(&sentences(&diagnosis).join("; ")).into_owned()
        };
        let mut text = printable(&line.raw[..line.raw.len().min(200)]);
        if line.raw.len() > 200 {
            text.push('…');
        }
        writeln!(
            out,
            "{:>width$}  {:<10}  {text}  [{diagnosis}]",
            line.number,
            reported(&line)
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
    Ok(findings)
}
