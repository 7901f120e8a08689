//! The `robostats` command: flags (clap), and the commands that print.
//!
//! It is part of the library so that the Rust binary and the Python
//! package's `robostats` command are one program: both call [`main`] with
//! their arguments.

mod check;
mod compact;
mod duckdb_extension;
mod ingest;
mod judge;
mod lint;
mod query;
mod ranks;
mod report;
mod schema;

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{CommandFactory, Parser, Subcommand};

/// A command's exit status: 0 success, 1 findings or failed inputs, 2 an
/// error, 3 an interrupted run (docs/ingest.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitCode(pub u8);

impl ExitCode {
    /// Success.
    pub const SUCCESS: ExitCode = ExitCode(0);
}

impl From<u8> for ExitCode {
    fn from(code: u8) -> ExitCode {
        ExitCode(code)
    }
}

/// Runs the `robostats` command with `args` (the program's name first, as
/// `std::env::args_os` gives them) and returns its exit status. Usage
/// errors and `--help` print as clap prints them; errors print as
/// `robostats: ...` on standard error. It never exits the process.
pub fn main(args: impl IntoIterator<Item = impl Into<OsString>>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match parse(&args) {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are "errors" that print to standard output.
            let _ = err.print();
            return ExitCode(err.exit_code().clamp(0, 255) as u8);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`robostats lint x | head`) is not an error.
            if err.chain().any(|e| {
                e.downcast_ref::<io::Error>().map(io::Error::kind)
                    == Some(io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            // A message may hold text from the output directory (file names,
            // a manifest's or a lock file's contents) or from a server.
            let message = format!("{err:#}");
            eprintln!("robostats: {}", crate::terminal::escaped_lines(&message));
            ExitCode(2)
        }
    }
}

/// Google-exact robots.txt analysis, from one file to a whole Common Crawl.
#[derive(Debug, Parser)]
#[command(name = "robostats", version, about, max_term_width = 100)]
struct Cli {
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
    /// One ready query of queries/ over a data set, run in DuckDB: its rows
    /// printed, or written to a CSV, JSON or Parquet file.
    Query(query::Args),
    /// Every URL of a corpus against its own robots.txt as the data set
    /// captured it: a Parquet file of verdicts, a row per URL.
    Judge(Box<judge::Args>),
    /// Writes robostats' DuckDB extension file (robots_can_fetch as a
    /// native function of any DuckDB from 1.2, the command line included).
    DuckdbExtension(duckdb_extension::Args),
}

/// Runs `robostats judge` with `argv` (the program's name first) quietly,
/// for the Python package's `judge`: its summary, or its error (a usage
/// error as clap words it).
pub fn judge(
    argv: impl IntoIterator<Item = impl Into<OsString>>,
) -> anyhow::Result<crate::judge::Summary> {
    let args: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    let cli = Cli::try_parse_from(&args).map_err(|e| anyhow::anyhow!("{}", e.render()))?;
    let Command::Judge(args) = cli.command else {
        anyhow::bail!("not a judge command");
    };
    judge::summary(&args)
}

/// The shard `--shard` (`I/N` or `auto`) and `--shard-count` name.
fn shard_flags(
    shard: Option<&str>,
    count: Option<u64>,
) -> anyhow::Result<Option<crate::shard::Shard>> {
    use crate::shard::Shard;
    let shard = match shard {
        None => return Ok(None),
        Some("auto") => Shard::from_env(|name| std::env::var(name).ok(), count)?,
        Some(text) => {
            if count.is_some() {
                anyhow::bail!("--shard-count goes with --shard auto; --shard I/N says the count");
            }
            Shard::parse(text)?
        }
    };
    Ok(Some(shard))
}

/// `ingest`'s line of help, naming every table.
fn ingest_about() -> String {
    let tables: Vec<&str> = crate::classify::Table::ALL
        .iter()
        .map(|t| t.name())
        .collect();
    format!(
        "WARC files (local, or {} URLs) to Parquet tables ({}) under --out.",
        crate::source::scheme::Scheme::listed(),
        tables.join(", ")
    )
}

/// Parses the arguments; a usage error carries its tips.
fn parse(args: &[OsString]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(args).map_err(|mut err| {
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
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
        err
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
    let list = crate::classify::agents::AgentList::default_list();
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
fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Ingest(args) => ingest::run(&args),
        Command::Compact(args) => compact::run(&args),
        Command::Schema(args) => schema::run(&args),
        Command::Report(args) => report::run(&args),
        Command::Query(args) => query::run(&args),
        Command::Judge(args) => judge::run(&args),
        Command::DuckdbExtension(args) => duckdb_extension::run(&args),
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
/// [`crate::terminal::escaped`] does) so that a body cannot garble
/// the output.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&crate::terminal::escaped(chunk.valid()));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::scheme::Scheme;

    #[test]
    fn ingest_help_names_every_scheme_from_the_list() {
        let mut cli = Cli::command();
        let ingest = cli.find_subcommand_mut("ingest").expect("ingest");
        // As printed, lines joined again (clap wraps them).
        let help = ingest.render_long_help().to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let listed = Scheme::listed();
        assert!(help.contains(&listed), "{help}");
        for scheme in Scheme::ALL {
            assert!(
                listed.contains(&format!("{}://", scheme.name())),
                "{listed}"
            );
        }
    }
}
