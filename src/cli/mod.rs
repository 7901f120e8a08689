//! Command-line flags (clap), and the commands that print.

mod check;
mod compact;
mod ingest;
mod lint;
mod report;
mod schema;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};

/// Google-exact robots.txt analysis, from one file to a whole Common Crawl.
#[derive(Debug, Parser)]
#[command(name = "robostats", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Google's verdict for each agent and URL: one line
    /// `allowed|disallowed<TAB>agent<TAB>url` each.
    Check(check::Args),
    /// Every line of a robots.txt with its diagnosis, and a summary.
    Lint(lint::Args),
    // WARC files to Parquet tables: the help names every table, from the
    // list of tables itself.
    #[command(about = ingest_about())]
    Ingest(Box<ingest::Args>),
    /// Merges the small part files of a finished ingest output into fewer
    /// large ones, with the same rows, atomically.
    Compact(compact::Args),
    /// The tables and their columns.
    Schema(schema::Args),
    /// Figures of a data set (the queries of queries/, run in DuckDB) as
    /// one self-contained HTML page.
    Report(report::Args),
}

/// `ingest`'s line of help, naming every table.
fn ingest_about() -> String {
    let tables: Vec<&str> = robostats::classify::Table::ALL
        .iter()
        .map(|t| t.name())
        .collect();
    format!(
        "WARC files (local, or https://, http:// and s3:// URLs) to Parquet tables ({}) \
         under --out.",
        tables.join(", ")
    )
}

/// Parses the process's arguments (exits with usage on error).
pub fn parse() -> Cli {
    Cli::try_parse().unwrap_or_else(|mut err| {
        let args: Vec<String> = std::env::args().collect();
        if let Some(tips) = agent_flag_tips(&err, &args) {
            use clap::error::{ContextKind, ContextValue};
            err.remove(ContextKind::SuggestedArg);
            // clap's usage line would show the `--agents` it suggested.
            let mut cli = Cli::command();
            cli.build();
            if let Some(ingest) = cli.find_subcommand_mut("ingest") {
                err.insert(
                    ContextKind::Usage,
                    ContextValue::StyledStr(ingest.render_usage()),
                );
            }
            err.insert(
                ContextKind::Suggested,
                ContextValue::StyledStrs(tips.into_iter().map(Into::into).collect()),
            );
        }
        err.exit()
    })
}

/// For `ingest --agent TOKEN`, what to do instead: clap's own tip,
/// `--agents`, takes a file and replaces the whole list.
fn agent_flag_tips(err: &clap::Error, args: &[String]) -> Option<Vec<String>> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let Some(ContextValue::String(flag)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    let ingest = args.iter().skip(1).find(|a| !a.starts_with('-'));
    if err.kind() != ErrorKind::UnknownArgument
        || ingest.map(String::as_str) != Some("ingest")
        || !(flag == "--agent" || flag.starts_with("--agent="))
    {
        return None;
    }
    let joined = args.iter().find_map(|a| a.strip_prefix("--agent="));
    let given = match joined {
        Some(token) => Some(token),
        None => args
            .iter()
            .position(|a| a == "--agent")
            .and_then(|i| args.get(i + 1))
            .map(String::as_str)
            .filter(|a| !a.is_empty() && !a.starts_with('-')),
    };
    let token = given.unwrap_or("GPTBot");
    let mut tips = vec![
        "ingest has no flag for one crawler: --add-agents FILE adds the crawlers FILE lists \
         (product tokens, one a line) to the default list, and --agents FILE replaces the list"
            .to_owned(),
        format!(
            "for example: echo {token} > agents.txt, then robostats ingest ... --add-agents \
             agents.txt"
        ),
    ];
    let list = robostats::classify::agents::AgentList::default_list();
    let known = given.and_then(|given| {
        list.agents
            .iter()
            .find(|a| a.token.eq_ignore_ascii_case(given))
    });
    if let Some(known) = known {
        tips.push(format!(
            "{} is in the default list already: ingest judges it without any flag",
            known.token
        ));
    }
    Some(tips)
}

/// Runs one command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Ingest(args) => ingest::run(&args),
        Command::Compact(args) => compact::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Report(args) => report::run(&args),
    }
}

/// Reads a whole robots.txt; `-` is standard input.
fn read_body(path: &Path) -> anyhow::Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut body = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut body)
            .context("cannot read standard input")?;
        return Ok(body);
    }
    std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))
}

/// `n` and the noun, singular or plural: `1 file`, `2 files`.
fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Names for a message: quoted, the first five, then how many more.
fn listed(names: &[String]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(5)
        .map(|n| format!("'{}'", printable(n.as_bytes())))
        .collect();
    match names.len().saturating_sub(shown.len()) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// A file argument: a path or `-` for standard input.
type FileArg = PathBuf;

/// Bytes as text for a terminal: UTF-8 kept, invalid bytes, control
/// characters and bidirectional overrides escaped (as
/// [`robostats::terminal::escaped`] does) so that a body cannot garble
/// the output.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&robostats::terminal::escaped(chunk.valid()));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}
