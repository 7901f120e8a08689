//! Command-line flags (clap), and the commands that print.

mod check;
mod compact;
mod ingest;
mod lint;
mod schema;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

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
    /// WARC files (local, or https://, http:// and s3:// URLs) to Parquet
    /// tables (captures, user_agents, rules, sitemaps, directives,
    /// named_verdicts, errors, agents) under --out.
    Ingest(Box<ingest::Args>),
    /// Merges the small part files of a finished ingest output into fewer
    /// large ones, with the same rows, atomically.
    Compact(compact::Args),
    /// The tables and their columns.
    Schema(schema::Args),
}

/// Parses the process's arguments (exits with usage on error).
pub fn parse() -> Cli {
    Cli::parse()
}

/// Runs one command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Lint(args) => lint::run(&args),
        Command::Ingest(args) => ingest::run(&args),
        Command::Compact(args) => compact::run(&args),
        Command::Schema(args) => schema::run(&args),
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

/// A file argument: a path or `-` for standard input.
type FileArg = PathBuf;

/// Bytes as text for a terminal: UTF-8 kept, invalid bytes and control
/// characters escaped so that a binary body cannot garble the output.
fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}
